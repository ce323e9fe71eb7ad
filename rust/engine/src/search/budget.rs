//! How long a search may run: a time limit, an iteration (playout) count, a node count and a
//! depth, any combination, plus a stop flag that another thread (or a Ctrl-C handler) may set.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::invalid;
use crate::error::Result;

/// The longest time budget, in seconds (a week), wherever one is given: a search's `time`, an
/// opponent's bound, the command line's `--time`, the protocol's `movetime`. Anything longer is
/// refused as a mistake (milliseconds given as seconds, say) rather than run.
pub const MAX_TIME_SECS: f64 = 7.0 * 24.0 * 3600.0;
/// The most iterations a budget may ask for.
pub const MAX_ITERATIONS: u64 = 1 << 40;
/// The most nodes a budget may ask for.
pub const MAX_NODES: u64 = 1 << 40;
/// The deepest alpha-beta depth a budget may ask for.
pub const MAX_DEPTH: u32 = 1000;

/// A time budget given by a user as `name`: seconds above 0, at most [`MAX_TIME_SECS`].
///
/// # Errors
/// `Error::Invalid` naming `name` and the bad value.
pub fn check_time(name: &str, seconds: f64) -> Result<Duration> {
    if !(seconds > 0.0 && seconds <= MAX_TIME_SECS) {
        return invalid!(
            "{name} = {}: expected seconds above 0, at most {MAX_TIME_SECS}",
            crate::error::short_number(seconds)
        );
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Search limits. A search stops at the first limit it reaches; `None` means no limit of that
/// kind. What each algorithm honours, exactly:
///
/// - **MCTS** counts `iterations` (one selection, expansion, playout and backup each; exact)
///   and `nodes` (tree nodes held after the search, a memory bound: the search stops before an
///   expansion that would take the tree beyond `nodes`, so it holds at most `nodes`, or only
///   the root and its children when `nodes` is smaller); with `nodes` its only limit, it also
///   stops once [`crate::search::mcts::STALE`] iterations in a row add no node (the tree is
///   complete or at its memory bound). It ignores `depth`. It reads the clock
///   (time and stop flag) every 1 to 16 iterations ([`Pacer`]: about every 0.1-1 ms).
///   Iteration and node budgets are shared between
///   threads.
/// - **Alpha-beta** counts `nodes` (positions visited, checked before each one: never more
///   than `nodes`, summed over all threads) and `depth` (iterative deepening stops after this
///   depth). It ignores `iterations`, and refuses a budget with no time, node or depth limit.
///   It reads the clock every 1 to [`crate::search::alphabeta::CLOCK_INTERVAL`] (1024) nodes
///   ([`Pacer`]: about every 0.1-1 ms).
/// - Greedy and random play one move whatever the budget (which is still checked).
///
/// A search given a time stops within one clock interval of its deadline (and within 10 ms on
/// the boards and budgets the tests cover): exact evaluations that search themselves (the Fish
/// region solver) read the running search's clock too, through [`Clock::enter`], and give up
/// when it expires. With a node limit, such an evaluation's own effort is bounded by
/// [`SOLVER_WORK_PER_NODE`] times that limit, so that a small node budget is a small search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// MCTS iterations.
    pub iterations: Option<u64>,
    /// MCTS tree nodes, or alpha-beta positions visited.
    pub nodes: Option<u64>,
    /// Alpha-beta iteration depth (plies).
    pub depth: Option<u32>,
}

impl Budget {
    /// A time limit of `secs` seconds, and no other.
    pub fn time(secs: f64) -> Budget {
        Budget {
            time: Some(Duration::from_secs_f64(secs.clamp(0.0, MAX_TIME_SECS))),
            ..Budget::default()
        }
    }

    /// A limit of `n` MCTS iterations, and no other.
    pub fn iterations(n: u64) -> Budget {
        Budget {
            iterations: Some(n),
            ..Budget::default()
        }
    }

    /// A depth limit of `d` plies, and no other.
    pub fn depth(d: u32) -> Budget {
        Budget {
            depth: Some(d),
            ..Budget::default()
        }
    }

    /// A limit of `n` nodes, and no other.
    pub fn nodes(n: u64) -> Budget {
        Budget {
            nodes: Some(n),
            ..Budget::default()
        }
    }

    /// Builds a budget from user input, rejecting negative, zero, non-finite and absurd values.
    ///
    /// # Errors
    /// `Error::Invalid` with a message naming the bad value.
    pub fn checked(
        time: Option<f64>,
        iterations: Option<i64>,
        nodes: Option<i64>,
        depth: Option<i64>,
    ) -> Result<Budget> {
        let time = time.map(|t| check_time("time", t)).transpose()?;
        let count = |name: &str, v: Option<i64>, max: u64| -> Result<Option<u64>> {
            match v {
                None => Ok(None),
                Some(n) if n <= 0 || n as u64 > max => {
                    invalid!("{name} = {n}: expected 1 to {max}")
                }
                Some(n) => Ok(Some(n as u64)),
            }
        };
        let iterations = count("iterations", iterations, MAX_ITERATIONS)?;
        let nodes = count("nodes", nodes, MAX_NODES)?;
        let depth = count("depth", depth, MAX_DEPTH as u64)?.map(|d| d as u32);
        Ok(Budget {
            time,
            iterations,
            nodes,
            depth,
        })
    }

    /// True when no limit but the depth is set (alpha-beta can stop on depth alone, MCTS cannot).
    pub fn is_unbounded(&self) -> bool {
        self.time.is_none() && self.iterations.is_none() && self.nodes.is_none()
    }
}

/// The most work an exact evaluation may do per node of a search's node limit, when the search
/// has one (for the Fish region solver, region splits: one flood fill each).
pub const SOLVER_WORK_PER_NODE: u64 = 4;

const RUNNING: u8 = 0;
const STOPPED: u8 = 1;
const COMMITTED: u8 = 2;

/// A flag that asks a running search to stop as soon as it can (it then returns the best move it
/// has). Cheap to clone and share between threads.
///
/// Work that must be all or nothing (a vector env's step) finishes by [`StopFlag::commit`]:
/// a flag is either stopped or committed, never both, so the caller that stopped it knows
/// whether the work took effect ([`StopFlag::stop_unless_committed`]).
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicU8>);

impl StopFlag {
    /// A flag that is not set.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }
    /// Asks every search holding a clone of this flag to stop.
    pub fn stop(&self) {
        self.stop_unless_committed();
    }
    /// Asks the work to stop; false when it had already committed (then it has taken effect
    /// and the flag stays committed).
    pub fn stop_unless_committed(&self) -> bool {
        self.0
            .compare_exchange(RUNNING, STOPPED, Ordering::AcqRel, Ordering::Acquire)
            .map_or_else(|now| now == STOPPED, |_| true)
    }
    /// Marks the work as done for good, unless a stop came first: true when the work may take
    /// effect, false when it was stopped (and must be discarded).
    pub fn commit(&self) -> bool {
        self.0
            .compare_exchange(RUNNING, COMMITTED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
    /// Clears the flag, for the next search.
    pub fn reset(&self) {
        self.0.store(RUNNING, Ordering::Relaxed);
    }
    /// Whether a stop was asked for.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed) == STOPPED
    }
}

/// Reads a clock every `interval` calls, the interval adapted so that readings come about
/// every 0.1-1 ms: rare for fast iterations (a reading costs tens of nanoseconds), every call
/// for slow ones (a playout on a large board), so that a search stops close to its deadline
/// whatever its iterations cost.
#[derive(Clone, Debug)]
pub struct Pacer {
    interval: u64,
    max: u64,
    count: u64,
    last: Instant,
}

impl Pacer {
    /// A pacer reading the clock at least every `max` calls.
    pub fn new(max: u64) -> Pacer {
        Pacer {
            interval: 1,
            max: max.max(1),
            count: 0,
            last: Instant::now(),
        }
    }

    /// Whether `clock` has expired, read only when it is time to.
    #[inline]
    pub fn expired(&mut self, clock: &Clock) -> bool {
        self.count += 1;
        if self.count < self.interval {
            return false;
        }
        self.count = 0;
        let now = Instant::now();
        let gap = now - std::mem::replace(&mut self.last, now);
        if gap < Duration::from_micros(100) {
            self.interval = (self.interval * 2).min(self.max);
        } else if gap > Duration::from_millis(1) {
            self.interval = (self.interval / 2).max(1);
        }
        clock.expired_at(now)
    }
}

thread_local! {
    /// The clock of the search running on this thread, if any ([`Clock::enter`]).
    static CURRENT: RefCell<Option<Clock>> = const { RefCell::new(None) };
}

/// While alive, [`Clock::current_expired`] on this thread reads its clock; dropping it restores
/// the clock before (searches may nest: a search inside an agent inside a search).
pub struct ClockScope {
    previous: Option<Clock>,
}

impl Drop for ClockScope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// A running search's view of its budget: a start time, a deadline and the stop flag.
#[derive(Clone, Debug)]
pub struct Clock {
    start: Instant,
    deadline: Option<Instant>,
    stop: StopFlag,
    /// Set when another thread of the same search has finished it.
    finished: Option<StopFlag>,
    /// The most work an exact evaluation may do ([`SOLVER_WORK_PER_NODE`]).
    solver_work: u64,
}

impl Clock {
    /// Starts the clock of a search with `budget`, stopped early by `stop`.
    pub fn start(budget: &Budget, stop: StopFlag) -> Clock {
        let start = Instant::now();
        Clock {
            start,
            // A time too long for the clock is no limit.
            deadline: budget.time.and_then(|t| start.checked_add(t)),
            stop,
            finished: None,
            solver_work: budget
                .nodes
                .map_or(u64::MAX, |n| n.saturating_mul(SOLVER_WORK_PER_NODE)),
        }
    }

    /// Makes this the clock that evaluations on this thread read ([`Clock::current_expired`],
    /// [`Clock::current_solver_work`]) until the scope is dropped.
    pub fn enter(&self) -> ClockScope {
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        ClockScope { previous }
    }

    /// Whether the clock of the search running on this thread has expired (false outside a
    /// search). For evaluations that search themselves, to give up in time.
    pub fn current_expired() -> bool {
        CURRENT.with(|c| c.borrow().as_ref().is_some_and(Clock::expired))
    }

    /// The most work an exact evaluation on this thread may do for the running search
    /// (unbounded outside a search or without a node limit).
    pub fn current_solver_work() -> u64 {
        CURRENT.with(|c| c.borrow().as_ref().map_or(u64::MAX, |c| c.solver_work))
    }

    /// This clock, allowing exact evaluations at most `work` ([`Clock::current_solver_work`]).
    pub fn with_solver_work(&self, work: u64) -> Clock {
        Clock {
            solver_work: work,
            ..self.clone()
        }
    }

    /// This clock, also expired once `finished` is set (by a thread that completed the search
    /// first). Unlike the stop flag, it does not count as an interruption.
    pub fn until_finished(self, finished: StopFlag) -> Clock {
        Clock {
            finished: Some(finished),
            ..self
        }
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// True when the deadline has passed or the stop flag is set.
    #[inline]
    pub fn expired(&self) -> bool {
        self.expired_at(Instant::now())
    }

    /// [`Clock::expired`] at the time `now`.
    #[inline]
    fn expired_at(&self, now: Instant) -> bool {
        self.stop.is_set()
            || self.finished.as_ref().is_some_and(StopFlag::is_set)
            || self.deadline.is_some_and(|d| now >= d)
    }

    /// Whether the budget has a time limit.
    pub fn has_deadline(&self) -> bool {
        self.deadline.is_some()
    }

    /// Time left before the deadline (zero once it has passed); `None` without one.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether copying `bytes` now (a table or an arena that grows) leaves the search the time
    /// it needs: at most a quarter of the time left, the copy counted at 1 GB/s (it runs at
    /// several, which leaves room for page faults and a loaded machine). Always without a
    /// deadline.
    pub fn affords_copy(&self, bytes: usize) -> bool {
        self.remaining()
            .is_none_or(|left| bytes as f64 / 1e9 <= left.as_secs_f64() / 4.0)
    }

    /// [`Clock::affords_copy`] of the search running on this thread (always outside a search).
    pub fn current_affords_copy(bytes: usize) -> bool {
        CURRENT.with(|c| c.borrow().as_ref().is_none_or(|c| c.affords_copy(bytes)))
    }

    /// True when the stop flag (not the deadline) ended the search.
    pub fn stopped(&self) -> bool {
        self.stop.is_set()
    }

    /// The flag that stops this search.
    pub fn stop_flag(&self) -> &StopFlag {
        &self.stop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_rejects_bad_budgets() {
        assert!(Budget::checked(Some(-1.0), None, None, None).is_err());
        assert!(Budget::checked(Some(0.0), None, None, None).is_err());
        assert!(Budget::checked(Some(f64::NAN), None, None, None).is_err());
        assert!(Budget::checked(Some(1e12), None, None, None).is_err());
        assert!(Budget::checked(None, Some(0), None, None).is_err());
        assert!(Budget::checked(None, Some(-5), None, None).is_err());
        assert!(Budget::checked(None, None, Some(1 << 50), None).is_err());
        assert!(Budget::checked(None, None, None, Some(100_000)).is_err());
        let e = Budget::checked(Some(1e308), None, None, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "time = 1e308: expected seconds above 0, at most 604800"
        );
        let e = Budget::checked(None, Some(0), None, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("iterations = 0: expected 1 to {MAX_ITERATIONS}")
        );
        let b = Budget::checked(Some(0.5), Some(10), None, Some(3)).unwrap();
        assert_eq!(b.time, Some(Duration::from_millis(500)));
        assert_eq!(b.iterations, Some(10));
        assert_eq!(b.depth, Some(3));
        assert!(!b.is_unbounded());
        assert!(Budget::depth(4).is_unbounded());
    }

    #[test]
    fn clock_expires_on_deadline_and_on_flag() {
        let flag = StopFlag::new();
        let clock = Clock::start(&Budget::time(0.02), flag.clone());
        assert!(!clock.expired());
        std::thread::sleep(Duration::from_millis(30));
        assert!(clock.expired());
        let clock = Clock::start(&Budget::iterations(5), flag.clone());
        assert!(!clock.expired());
        flag.stop();
        assert!(clock.expired() && clock.stopped());
    }

    #[test]
    fn a_flag_is_stopped_or_committed_never_both() {
        let flag = StopFlag::new();
        assert!(flag.commit());
        assert!(!flag.stop_unless_committed() && !flag.is_set());
        flag.reset();
        assert!(flag.stop_unless_committed() && flag.is_set());
        assert!(!flag.commit());
        assert!(flag.stop_unless_committed());
    }

    #[test]
    fn the_current_clock_is_scoped() {
        assert!(!Clock::current_expired());
        let stopped = StopFlag::new();
        stopped.stop();
        let outer = Clock::start(&Budget::nodes(3), stopped);
        {
            let _outer = outer.enter();
            assert!(Clock::current_expired());
            assert_eq!(Clock::current_solver_work(), 3 * SOLVER_WORK_PER_NODE);
            let inner = Clock::start(&Budget::time(60.0), StopFlag::new());
            {
                let _inner = inner.enter();
                assert!(!Clock::current_expired());
                assert_eq!(Clock::current_solver_work(), u64::MAX);
            }
            assert!(Clock::current_expired());
        }
        assert!(!Clock::current_expired());
    }
}
