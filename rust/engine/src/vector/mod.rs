//! A vector environment: `num_envs` games of one game stepped together, for learning code.
//!
//! [`VectorEnv`] holds one game (an `Arc<G>`, shared, or dealt anew for each game by a
//! [`Source::Deal`] closure, as Fish deals a standard board per game) and one state per env, and
//! steps them all in one call: each env plays its action, games that end are reset at once, and
//! every output (observations, legal-action masks, compact legal actions, the player to move,
//! rewards, terminations, final observations and returns) is written into slices the caller
//! owns and passes in again on the next call ([`Outputs`]). The envs are shared out to up to
//! `threads` threads (the calling thread and helpers kept by the env, a
//! [`Team`](crate::threads::Team)) when the work of a call, measured per env, is large enough
//! to pay for it; the results do not depend on `threads`.
//!
//! # Autoreset: Gymnasium's "same-step" mode
//!
//! The step that ends a game returns that game's rewards and `terminated = true` (and
//! `ended = true`), its final observation and returns in [`Outputs::final_observations`] and
//! [`Outputs::final_returns`], and, in every other output, the *new* game of that env (its
//! observation, legal actions and player to move). So every observation returned is one in
//! which somebody has to move, and every step's actions are legal in the observations of the
//! previous step. Nothing is ever truncated: Marathon's ply limit is a rule of the game (a
//! draw), visible in its observation.
//!
//! # Seeds
//!
//! Game `k` (counted from 0 since the last seeded reset) of env `i` is made from
//! [`game_seed`]`(seed, i, k)`: for Fish dealing a board per game that is the seed of
//! `Board::standard` (the same board as `Fish.new_state(seed=...)` in Python), and it also seeds
//! the learner's seat when drawn at random and the built-in opponent of that game. A `seed`
//! thus reproduces every game exactly, whatever the number of threads.
//!
//! # Single-agent mode
//!
//! With an opponent ([`Options::opponent`]) one seat per env is the learner's, and every other
//! seat is played inside the step by a built-in [`Agent`] (for example [`SearchAgent`]); one
//! step is then one decision of the learner, observations are from the learner's view and
//! rewards are the learner's alone (one per env).
//!
//! # Layout
//!
//! [`options`] holds what an env is made from (its games' [`Source`] and its [`Options`]),
//! `batch` the envs' games and states and the threads they are stepped on, [`outputs`] the
//! buffers a call writes and the writers of each env's row, `opponents` the built-in opponents'
//! moves and the start of each game, and `step` the public calls: make, reset, step, load.
//!
//! [`Agent`]: crate::search::agent::Agent
//! [`SearchAgent`]: crate::search::agent::SearchAgent

mod batch;
mod opponents;
pub mod options;
pub mod outputs;
mod step;
#[cfg(test)]
mod tests;

use crate::rng::Rng;

pub use batch::{Dims, VectorEnv};
pub use options::{Evals, Learner, Options, Reward, Source};
pub use outputs::{ActionInt, Outputs};

/// The most envs one [`VectorEnv`] holds.
pub const MAX_ENVS: usize = 1 << 24;

/// The most threads a [`VectorEnv`] uses.
pub const MAX_THREADS: usize = 256;

/// The seed of game `game` of env `env` in a vector env seeded with `seed`.
pub fn game_seed(seed: u64, env: usize, game: u64) -> u64 {
    Rng::for_item(Rng::for_item(seed, env as u64).next_u64(), game).next_u64()
}
