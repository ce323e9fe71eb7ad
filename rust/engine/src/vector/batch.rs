//! The batch: one game (its rules, position and seats) per env, what every thread of a step
//! shares, and the threads that step the envs.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::options::{Options, Source};
use crate::error::Result;
use crate::game::Game;
use crate::io::GameIo;
use crate::search::agent::Agent;
use crate::threads::{guided, Team};

/// Work that takes less than this on one thread is done there: sharing it out costs about as
/// much as it saves, even to a helper that is awake.
const SPLIT_NS: f64 = 30_000.0;

/// Work that comes with a hand-out made anyway (a step's checks) is shared out with it from
/// this much on one thread: below, the helpers' share of it costs more than it saves.
const JOIN_NS: f64 = 5_000.0;

/// The least work in one piece handed out (envs are taken a piece at a time).
const PIECE_NS: f64 = 1_000.0;

/// The cost of one env's share of one kind of work (a bare step, opponents' moves, a new
/// game), measured on the calling thread at each call: it decides how a call is split.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    /// Nanoseconds per env.
    ns: f64,
}

impl Pace {
    /// A first guess, until a call has been measured.
    pub(super) const fn guess(ns: f64) -> Pace {
        Pace { ns }
    }

    /// Whether `n` envs of this work on `threads` are worth sharing out.
    fn splits(&self, n: usize, threads: usize) -> bool {
        threads > 1 && n as f64 * self.ns >= SPLIT_NS
    }

    /// Cuts `n` envs on `threads` into pieces, their bounds into `bounds`: one piece (nothing
    /// handed out) unless `split`; else [`guided`] pieces of at least [`PIECE_NS`] of work.
    fn cut(&self, n: usize, threads: usize, split: bool, bounds: &mut Vec<usize>) {
        if !split {
            bounds.clear();
            bounds.extend([0, n]);
            return;
        }
        let least = ((PIECE_NS / self.ns).ceil() as usize).max(1);
        guided(n, threads, least, bounds);
    }

    /// Learns from `envs` done in `busy` by the calling thread.
    fn learn(&mut self, envs: usize, busy: Duration) {
        if envs > 0 {
            let ns = busy.as_nanos() as f64 / envs as f64;
            self.ns = 0.5 * self.ns + 0.5 * ns;
        }
    }
}

/// The kinds of work a vector env measures apart.
#[derive(Clone, Copy, Debug)]
pub(super) enum Work {
    /// A step without opponents, or the rows of a step with them, or observations.
    Step = 0,
    /// The opponents' moves of a step.
    Opponents = 1,
    /// New games, the opponents played up to the learner's first move.
    Begin = 2,
    /// The legality of a step's actions.
    Check = 3,
}

/// How a vector env shares its envs out: the kept helpers and the measured paces.
pub(super) struct Crew {
    /// The threads a call uses (0 resolved to every core).
    threads: usize,
    team: Team,
    paces: [Pace; 4],
    /// The bounds of a call's pieces (kept for its allocation).
    bounds: Vec<usize>,
}

impl Crew {
    pub(super) fn new(threads: usize, opponents: bool) -> Crew {
        // A searching opponent costs far more than a bare step: its moves are split at once.
        let heavy = Pace::guess(if opponents { 50_000.0 } else { 500.0 });
        Crew {
            threads,
            team: Team::new("pingvinas-vector"),
            paces: [Pace::guess(300.0), heavy, heavy, Pace::guess(50.0)],
            bounds: Vec::new(),
        }
    }

    /// Runs `f` over ranges that cover `0..n`, on this thread and the helpers when the work
    /// is worth sharing (by the pace of `work`, which learns from the call). Each env's work
    /// depends on that env alone, so the results do not depend on the threads.
    pub(super) fn share(&mut self, work: Work, n: usize, f: impl Fn(Range<usize>) + Sync) {
        self.share_like(work, work, n, f);
    }

    /// [`Crew::share`], shared out when `like` work of `n` envs would be and this work is at
    /// least [`JOIN_NS`]: work too light to be worth a hand-out of its own that comes with
    /// heavier work, whose hand-out wakes the helpers anyway (a step's checks), is then done
    /// by each thread on the envs it steps, in its own cache.
    pub(super) fn share_like(
        &mut self,
        work: Work,
        like: Work,
        n: usize,
        f: impl Fn(Range<usize>) + Sync,
    ) {
        let split = self.paces[like as usize].splits(n, self.threads)
            && n as f64 * self.paces[work as usize].ns >= JOIN_NS;
        let pace = &mut self.paces[work as usize];
        pace.cut(n, self.threads, split, &mut self.bounds);
        let bounds = &self.bounds;
        // The pace is learnt from the envs this thread ran in the time it ran them.
        let me = std::thread::current().id();
        let mine = AtomicUsize::new(0);
        let (_, busy) = self.team.run(self.threads, bounds.len() - 1, &|k| {
            let envs = bounds[k]..bounds[k + 1];
            if std::thread::current().id() == me {
                mine.fetch_add(envs.len(), Ordering::Relaxed);
            }
            f(envs)
        });
        pace.learn(mine.into_inner(), busy);
    }
}

/// The sizes of one env's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Envs in the vector env.
    pub num_envs: usize,
    /// `f32`s per observation.
    pub observation: usize,
    /// `(planes, rows, cols)` of one observation.
    pub observation_shape: [usize; 3],
    /// Size of the action space (of one mask row).
    pub num_actions: usize,
    /// Width of the compact legal-action rows.
    pub legal_width: usize,
    /// Players of the game.
    pub players: usize,
    /// Rewards per env: `players`, or 1 in single-agent mode.
    pub rewards: usize,
}

impl Dims {
    /// The bytes of one env's rows of every output (observations twice: current and final).
    pub fn bytes_per_env(&self) -> usize {
        let f32s = 2 * self.observation + self.rewards + self.players;
        let action_int = if self.num_actions <= i16::MAX as usize + 1 {
            2
        } else {
            4
        };
        f32s * 4 + self.num_actions + (self.legal_width + 1) * action_int + 4 + 3
    }
}

/// One game of an env: its rules and position, its number and who plays which seat.
pub(super) struct Play<G: Game> {
    pub(super) game: Arc<G>,
    pub(super) state: G::State,
    /// The number of the current game since the last seeded reset.
    pub(super) index: u64,
    pub(super) learner: usize,
    pub(super) agent: Option<Box<dyn Agent<G>>>,
}

/// One env: its game, and what the step needs to remember.
pub(super) struct Slot<G: Game> {
    pub(super) play: Play<G>,
    /// The `final_*` rows hold the previous step's data (cleared on the next step).
    pub(super) dirty: bool,
    /// The actions set in the mask row by the last write of the row: the legal actions of the
    /// position, cleared by the next write (so that it does not clear the whole row) and read
    /// by the step's checks. Empty before the first write, after a new game started by a reset
    /// (whose write clears whole rows), and when actions do not fit a `u16`.
    pub(super) shown: Vec<u16>,
}

/// What one env's step will do, worked out before any env changes (so that a step stopped
/// halfway changes nothing).
pub(super) struct Advance<G: Game> {
    /// The position after the action and the opponents' replies (the final one when over).
    pub(super) state: G::State,
    pub(super) rewards: [f32; crate::game::MAX_PLAYERS],
    pub(super) over: bool,
    /// When over: the env's next game.
    pub(super) next: Option<Play<G>>,
}

/// Everything but the slots, shared read-only by the threads of a step.
pub(super) struct Shared<G: Game> {
    pub(super) source: Source<G>,
    pub(super) options: Options<G>,
    pub(super) seed: u64,
    pub(super) dims: Dims,
    /// Mask rows are cleared action by action (every action fits a `u16`).
    pub(super) incremental: bool,
}

/// `num_envs` games stepped together; see the module docs.
pub struct VectorEnv<G: GameIo> {
    pub(super) shared: Shared<G>,
    pub(super) slots: Vec<Slot<G>>,
    /// The threads a call shares its envs with.
    pub(super) crew: Crew,
    /// The worked-out steps of a step call (kept for its allocation).
    pub(super) pending: Vec<Option<Result<Advance<G>>>>,
}

impl<G: GameIo> Shared<G> {
    pub(super) fn single_agent(&self) -> bool {
        self.options.opponent.is_some()
    }

    /// The player whose view observations take.
    pub(super) fn viewer(&self, play: &Play<G>) -> usize {
        if self.single_agent() {
            play.learner
        } else {
            play.game.to_move(&play.state).unwrap_or(0)
        }
    }
}

impl<G: GameIo> VectorEnv<G> {
    /// The sizes of every output row.
    pub fn dims(&self) -> &Dims {
        &self.shared.dims
    }

    /// The number of envs.
    pub fn num_envs(&self) -> usize {
        self.slots.len()
    }

    /// The seed of the current game stream (the last seeded reset's).
    pub fn seed(&self) -> u64 {
        self.shared.seed
    }

    /// The game of env `i` (for Fish, with this game's board).
    pub fn game(&self, i: usize) -> &Arc<G> {
        &self.slots[i].play.game
    }

    /// The state of env `i`.
    pub fn state(&self, i: usize) -> &G::State {
        &self.slots[i].play.state
    }

    /// The number of env `i`'s current game since the last seeded reset.
    pub fn game_index(&self, i: usize) -> u64 {
        self.slots[i].play.index
    }

    /// The learner's seat in env `i` (single-agent mode).
    pub fn learner(&self, i: usize) -> usize {
        self.slots[i].play.learner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_too_small_to_split_stays_in_one_piece() {
        let mut bounds = Vec::new();
        // 1 us an env: work of 1,024 envs is split, of 16 (16 us) is not.
        let pace = Pace::guess(1_000.0);
        assert!(!pace.splits(16, 2) && !pace.splits(1_024, 1) && pace.splits(1_024, 2));
        pace.cut(1_024, 2, false, &mut bounds);
        assert_eq!(bounds, [0, 1_024]);
        pace.cut(1_024, 2, true, &mut bounds);
        assert!(bounds.len() > 10, "{bounds:?}");
        // At 250 ns an env a piece holds at least PIECE_NS of work (4 envs), but the last
        // taken (what was left).
        Pace::guess(250.0).cut(1_024, 2, true, &mut bounds);
        let sizes: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(sizes.iter().filter(|&&s| s < 4).count() <= 1, "{sizes:?}");
    }
}
