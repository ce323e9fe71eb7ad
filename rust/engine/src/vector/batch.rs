//! The batch: one game (its rules, position and seats) per env, what every thread of a step
//! shares, and the pool that steps the envs.

use std::sync::Arc;

use rayon::prelude::*;

use super::options::{Options, Source};
use crate::error::Result;
use crate::game::Game;
use crate::io::GameIo;
use crate::search::agent::Agent;
use crate::threads::KeptPool;

/// Fewer envs than this are stepped on the calling thread: waking the pool costs more.
pub(super) const PARALLEL_MIN: usize = 64;

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
    /// The actions set in the mask row by the last step, cleared by the next one (so that the
    /// step does not clear the whole row); `None` after a full write.
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
    /// The pool of `options.threads` threads (none for one), kept and built again after a fork.
    pub(super) pool: KeptPool,
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

    /// The pool, or none for one thread. A pool that cannot be started again (in a forked
    /// process) leaves the work to the calling thread rather than failing the call.
    pub(super) fn pool(&mut self) -> Option<Arc<rayon::ThreadPool>> {
        let threads = self.shared.options.threads;
        (threads > 1).then(|| self.pool.get(threads).ok()).flatten()
    }
}

/// Runs `f` on every slot and its entry of `pending` (on the pool when there is one and the
/// envs are many).
pub(super) fn each_slot<G: Game, T: Send>(
    pool: Option<&rayon::ThreadPool>,
    slots: &mut [Slot<G>],
    pending: &mut [T],
    f: impl Fn(usize, &mut Slot<G>, &mut T) + Sync,
) {
    let work = |(i, (slot, p)): (usize, (&mut Slot<G>, &mut T))| f(i, slot, p);
    match pool.filter(|_| slots.len() >= PARALLEL_MIN) {
        None => slots.iter_mut().zip(pending).enumerate().for_each(work),
        Some(pool) => pool.install(|| {
            slots
                .par_iter_mut()
                .zip(pending.par_iter_mut())
                .enumerate()
                .for_each(work)
        }),
    }
}
