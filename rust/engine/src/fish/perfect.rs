//! The perfect player: the exact solver ([`super::solver`]) as a search, for the `solve`
//! algorithm and agent spec ([`crate::search::Choice::Solve`]). [`FishGame::solve_search`] is
//! an inherent method so that the evaluation, which the solver itself uses, can offer it
//! without naming this file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{invalid, Result};
use crate::fish::solver::{solve_with_stop, DEFAULT_MAX_NODES};
use crate::fish::{FishGame, FishState, Word};
use crate::search::{Budget, SearchResult, StopFlag};

/// How often the watch of a time budget looks at the clock and the caller's stop flag.
const WATCH_EVERY: Duration = Duration::from_millis(5);

impl<W: Word> FishGame<W> {
    /// Solves `state` exactly within `budget`: at most `budget.nodes` positions (default the
    /// solver's [`DEFAULT_MAX_NODES`]) and, when it has one, `budget.time`. The result is the
    /// solver's best move and line, `exact`, its value the returns of the final scores.
    ///
    /// # Errors
    /// `Error::Invalid` for a finished game, and for a position too big for the budget (what to
    /// do then: a larger `nodes` budget, or another algorithm).
    pub fn solve_search(
        &self,
        state: &FishState<W>,
        budget: &Budget,
        stop: &StopFlag,
    ) -> Result<SearchResult> {
        let Some(player) = state.to_move() else {
            return invalid!("cannot solve a finished game");
        };
        let start = Instant::now();
        let max_nodes = budget.nodes.unwrap_or(DEFAULT_MAX_NODES);
        let solution = within(budget.time, stop, |flag| {
            solve_with_stop(self, state, max_nodes, Some(flag))
        });
        let solution = match solution {
            Ok(s) => s,
            Err(e) if stop.is_set() => return Err(e),
            Err(_) => {
                let time = budget
                    .time
                    .map_or(String::new(), |t| format!(" or {:.3} s", t.as_secs_f64()));
                return invalid!(
                    "algorithm \"solve\": the position is too big to solve within its budget \
                     ({max_nodes} positions{time}); give a larger nodes budget or use another \
                     algorithm"
                );
            }
        };
        let mut scores = [(0u16, 0u16); crate::fish::rules::MAX_FISH_PLAYERS];
        for (k, &(fish, floes)) in solution.scores.iter().enumerate() {
            scores[k] = (fish as u16, floes as u16);
        }
        let best = solution
            .best
            .expect("a position with a player to move has a best move");
        Ok(SearchResult {
            best,
            value: self.returns_of(&scores)[player],
            depth: solution.pv.len() as u32,
            pv: solution.pv,
            nodes: solution.nodes,
            iterations: 0,
            elapsed: start.elapsed(),
            visits: Vec::new(),
            exact: true,
            interrupted: false,
        })
    }
}

/// Runs `f` with a stop flag that `stop` sets and, with a `time` limit, the clock sets too: a
/// watch thread, which `f`'s return ends, sets it when the time is up.
fn within<T>(time: Option<Duration>, stop: &StopFlag, f: impl FnOnce(&StopFlag) -> T) -> T {
    let Some(time) = time else {
        return f(stop);
    };
    let deadline = Instant::now() + time;
    let mine = StopFlag::new();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watch = scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                let now = Instant::now();
                if stop.is_set() || now >= deadline {
                    mine.stop();
                    return;
                }
                std::thread::park_timeout(WATCH_EVERY.min(deadline - now));
            }
        });
        let out = f(&mine);
        done.store(true, Ordering::Release);
        watch.thread().unpark();
        out
    })
}
