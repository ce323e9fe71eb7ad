//! Batches of random playouts, in parallel with rayon. Game `i` of a batch draws its randomness
//! from `Rng::for_item(seed, i)`, so results do not depend on the number of threads.

use rayon::prelude::*;

use super::{Marathon, State};
use crate::rng::Rng;
use crate::{invalid, Result};

/// The outcome of each game of a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Playouts {
    /// The winner of each game, `-1` for a draw.
    pub winners: Vec<i8>,
    /// The plies (actions) each game lasted, counted from the start position.
    pub plies: Vec<i32>,
}

/// Plays `n` games of uniformly random legal actions from `start` (the opening position when
/// `None`) to the end. `threads == 0` uses every core.
///
/// # Errors
/// `Error::Invalid` when the thread pool cannot be started.
pub fn random_playouts(
    game: &Marathon,
    start: Option<&State>,
    n: usize,
    seed: u64,
    threads: usize,
) -> Result<Playouts> {
    let start = start.copied().unwrap_or_else(|| game.new_state());
    let one = |i: usize| -> (i8, i32) {
        let mut rng = Rng::for_item(seed, i as u64);
        let mut s = start;
        let winner = game.random_playout(&mut s, &mut rng);
        (
            winner.map_or(-1, |w| w as i8),
            (s.ply() - start.ply()) as i32,
        )
    };
    let results: Vec<(i8, i32)> = if threads == 1 || n < 128 {
        (0..n).map(one).collect()
    } else {
        let run = || (0..n).into_par_iter().with_min_len(64).map(one).collect();
        if threads == 0 {
            run()
        } else {
            match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                Ok(pool) => pool.install(run),
                Err(e) => return invalid!("could not start {threads} threads: {e}"),
            }
        }
    };
    let (winners, plies) = results.into_iter().unzip();
    Ok(Playouts { winners, plies })
}
