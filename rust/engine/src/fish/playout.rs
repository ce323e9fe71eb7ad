//! Batches of random playouts, in parallel with rayon. Game `i` of a batch draws its randomness
//! from `Rng::for_item(seed, i)`, so results do not depend on the number of threads.

use rayon::prelude::*;

use super::narrow::{self, Scores};
use super::rules::Rules;
use super::state::{FishGame, FishState, Policy};
use crate::error::Result;
use crate::invalid;
use crate::rng::Rng;

/// Where the playouts of a batch start.
pub enum Start<'a> {
    /// A fresh standard board for every game, shuffled from the game's own seed.
    Standard(Rules),
    /// The opening position of this game (its board as it is).
    Opening(&'a FishGame),
    /// This position.
    Position(&'a FishGame, FishState),
}

/// Final `(fish, floes)` of each player, per game.
pub type FinalScores = Scores;

/// Plays `n` random games and returns their final scores. `threads == 0` uses every core.
pub fn random_playouts(
    start: &Start,
    n: usize,
    seed: u64,
    threads: usize,
    policy: Policy,
) -> Result<Vec<FinalScores>> {
    let one = |i: usize| {
        let mut rng = Rng::for_item(seed, i as u64);
        let play =
            |game: &FishGame, s: FishState, rng: &mut Rng| game.playout_scores(&s, rng, policy);
        match start {
            Start::Standard(rules) => {
                narrow::standard_playout(rules, rng.next_u64(), &mut rng, policy)
            }
            Start::Opening(game) => play(game, game.initial_state(), &mut rng),
            Start::Position(game, s) => play(game, *s, &mut rng),
        }
    };
    if threads == 1 {
        return Ok((0..n).map(one).collect());
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    match pool {
        Ok(pool) => Ok(pool.install(|| (0..n).into_par_iter().with_min_len(64).map(one).collect())),
        Err(e) => invalid!("could not start {threads} threads: {e}"),
    }
}
