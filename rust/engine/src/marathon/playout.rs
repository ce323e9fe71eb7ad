//! Batches of random playouts on the generic driver [`crate::batch`]: game `i` of a batch draws
//! its randomness from `Rng::for_item(seed, i)`, so results do not depend on the number of
//! threads; `n`, `threads` and interruption follow the driver's rules.

use super::{Marathon, State};
use crate::batch;
use crate::error::Result;
use crate::rng::Rng;
use crate::search::budget::StopFlag;

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
/// As [`batch::run`]: `Error::Invalid` for `n` above [`batch::MAX_GAMES`] (or beyond the memory
/// available) or `threads` above [`batch::MAX_THREADS`]; `Error::Interrupted` once `stop` is
/// raised (read between chunks of [`batch::CHUNK`] games).
pub fn random_playouts(
    game: &Marathon,
    start: Option<&State>,
    n: usize,
    seed: u64,
    threads: usize,
    stop: &StopFlag,
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
    let results = batch::run(n, threads, stop, one)?;
    let mut winners = Vec::new();
    let mut plies = Vec::new();
    reserve(&mut winners, n)?;
    reserve(&mut plies, n)?;
    for (w, p) in results {
        winners.push(w);
        plies.push(p);
    }
    Ok(Playouts { winners, plies })
}

/// Room for the `n` results of a result column, or an error.
fn reserve<T>(v: &mut Vec<T>, n: usize) -> Result<()> {
    v.try_reserve_exact(n).map_err(|_| {
        crate::error::Error::Invalid(format!("n = {n}: cannot allocate the results of {n} games"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_results_are_pinned_and_thread_independent() {
        let stop = StopFlag::new();
        let game = Marathon::standard();
        let one = random_playouts(&game, None, 3000, 1, 1, &stop).unwrap();
        for threads in [0, 2, 3] {
            assert_eq!(
                one,
                random_playouts(&game, None, 3000, 1, threads, &stop).unwrap()
            );
        }
        let h = one
            .winners
            .iter()
            .zip(&one.plies)
            .fold(0u64, |h, (&w, &p)| {
                crate::rng::splitmix64(h ^ ((w as u8 as u64) << 32 | p as u64))
            });
        // The value of the rayon-only driver this one replaced (same seeds, same games).
        assert_eq!(h, 0x98f0_5249_30d4_1acf);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let stop = StopFlag::new();
        let game = Marathon::standard();
        let e = random_playouts(&game, None, usize::MAX, 1, 1, &stop).unwrap_err();
        assert!(e.to_string().contains("at most 4294967296"), "{e}");
        let e = random_playouts(&game, None, 2000, 1, 20_000, &stop).unwrap_err();
        assert!(e.to_string().contains("at most 256 threads"), "{e}");
        stop.stop();
        let e = random_playouts(&game, None, 2000, 1, 1, &stop).unwrap_err();
        assert!(matches!(e, crate::error::Error::Interrupted(_)), "{e}");
    }
}
