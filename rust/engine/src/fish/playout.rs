//! Batches of random playouts on the generic driver [`crate::batch`]: game `i` of a batch draws
//! its randomness from `Rng::for_item(seed, i)`, so results do not depend on the number of
//! threads; `n`, `threads` and interruption follow the driver's rules.

use super::narrow::{self, Scores};
use super::rules::Rules;
use super::state::{FishGame, FishState, Policy};
use crate::batch;
use crate::error::Result;
use crate::rng::Rng;
use crate::search::budget::StopFlag;

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
///
/// # Errors
/// As [`batch::run`]: `Error::Invalid` for `n` above [`batch::MAX_GAMES`] (or beyond the memory
/// available) or `threads` above [`batch::MAX_THREADS`]; `Error::Interrupted` once `stop` is
/// raised (read between chunks of [`batch::CHUNK`] games).
pub fn random_playouts(
    start: &Start,
    n: usize,
    seed: u64,
    threads: usize,
    policy: Policy,
    stop: &StopFlag,
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
    batch::run(n, threads, stop, one)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checksum(scores: &[FinalScores]) -> u64 {
        scores.iter().flatten().fold(0u64, |h, &(f, t)| {
            crate::rng::splitmix64(h ^ ((f as u64) << 8 | t as u64))
        })
    }

    #[test]
    fn seeded_results_are_pinned_and_thread_independent() {
        let stop = StopFlag::new();
        let start = Start::Standard(Rules::standard(2).unwrap());
        for policy in [Policy::Uniform, Policy::Fast] {
            let one = random_playouts(&start, 10_000, 1, 1, policy, &stop).unwrap();
            for threads in [0, 2, 3] {
                let many = random_playouts(&start, 10_000, 1, threads, policy, &stop).unwrap();
                assert!(one == many, "{policy:?}, {threads} threads");
            }
            // The values of the rayon-only driver this one replaced (same seeds, same games).
            let want = match policy {
                Policy::Uniform => 0x5b91_e28e_08c0_e0c5,
                Policy::Fast => 0x01c3_0a01_6589_f2b0,
            };
            assert_eq!(checksum(&one), want, "{policy:?}");
        }
    }

    #[test]
    fn bad_arguments_are_errors() {
        let stop = StopFlag::new();
        let start = Start::Standard(Rules::standard(2).unwrap());
        let e = random_playouts(&start, usize::MAX, 1, 1, Policy::Uniform, &stop).unwrap_err();
        assert!(e.to_string().contains("at most 4294967296"), "{e}");
        let e = random_playouts(&start, 2000, 1, 5000, Policy::Uniform, &stop).unwrap_err();
        assert!(e.to_string().contains("at most 256 threads"), "{e}");
        stop.stop();
        let e = random_playouts(&start, 2000, 1, 2, Policy::Uniform, &stop).unwrap_err();
        assert!(matches!(e, crate::Error::Interrupted(_)), "{e}");
    }
}
