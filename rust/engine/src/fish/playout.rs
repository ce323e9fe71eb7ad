//! Random playouts: [`FishGame::random_playout_with`] on any board, the kernels on 64-bit tables
//! (the private `narrow` module) behind [`FishGame::playout_scores`] and [`standard_playout`],
//! and batches of playouts on the generic driver [`crate::batch`]: game `i` of a batch draws its
//! randomness from `Rng::for_item(seed, i)`, so results do not depend on the number of threads;
//! `n`, `threads` and interruption follow the driver's rules.

use arrayvec::ArrayVec;

use super::bitboard::{Bitboard, Cell, Word};
use super::board::{Direction, NO_CELL};
use super::rules::{Policy, Rules, Scores, MAX_PENGUINS};
use super::state::{FishGame, FishState, NOBODY};
use crate::batch;
use crate::error::Result;
use crate::rng::Rng;
use crate::search::budget::StopFlag;

mod narrow;

/// Where the playouts of a batch start.
pub enum Start<'a, W: Word = u64> {
    /// A fresh standard board for every game, shuffled from the game's own seed.
    Standard(Rules),
    /// The opening position of this game (its board as it is).
    Opening(&'a FishGame<W>),
    /// This position.
    Position(&'a FishGame<W>, FishState<W>),
}

/// Final `(fish, floes)` of each player, per game.
pub type FinalScores = Scores;

/// Plays `n` random games and returns their final scores. `threads == 0` uses every core.
///
/// # Errors
/// As [`batch::run`]: `Error::Invalid` for `n` above [`batch::MAX_GAMES`] (or beyond the memory
/// available) or `threads` above [`batch::MAX_THREADS`]; `Error::Interrupted` once `stop` is
/// raised (read between chunks of [`batch::CHUNK`] games).
pub fn random_playouts<W: Word>(
    start: &Start<W>,
    n: usize,
    seed: u64,
    threads: usize,
    policy: Policy,
    stop: &StopFlag,
) -> Result<Vec<FinalScores>> {
    let one = |i: usize| {
        let mut rng = Rng::for_item(seed, i as u64);
        let play = |game: &FishGame<W>, s: FishState<W>, rng: &mut Rng| {
            game.playout_scores(&s, rng, policy)
        };
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

pub use narrow::standard_playout;

impl<W: Word> FishGame<W> {
    /// Plays random moves to the end under `policy`, without removing unreachable floes (which
    /// never changes a move or a score). Listing the moves of the player to move doubles as the
    /// check that they can move at all, so each ply looks at the board once.
    pub fn random_playout_with(&self, s: &mut FishState<W>, rng: &mut Rng, policy: Policy) {
        let total = self.rules().placement_turns() as u8;
        while s.turn < total && s.to_move != NOBODY {
            let cells = self.placement_cells(s);
            let cell = cells
                .nth(rng.below(cells.count() as usize) as u32)
                .expect("in range");
            self.place(s, cell);
        }
        let n = self.rules().players();
        while s.to_move != NOBODY {
            let p = s.to_move as usize;
            let moved = match policy {
                Policy::Uniform => self.random_slide_uniform(s, rng),
                Policy::Fast => self.random_slide_fast(s, rng),
            };
            if !moved {
                self.lift(s, p);
            }
            // The next player with penguins on the board; whether they can move is found out
            // when their turn is played.
            let mut next = NOBODY;
            let mut q = p;
            for _ in 0..n {
                q = if q + 1 == n { 0 } else { q + 1 };
                if s.penguins[q].any() {
                    next = q as u8;
                    break;
                }
            }
            s.set_to_move(next);
        }
    }

    /// The final `(fish, floes)` of each player after random play from `s` under `policy`: the
    /// same moves and scores as [`FishGame::random_playout_with`], on 64-bit bitboards when the
    /// grid has at most 64 cells (the standard board does), which is about twice as fast.
    pub fn playout_scores(&self, s: &FishState<W>, rng: &mut Rng, policy: Policy) -> Scores {
        match self.board().narrow() {
            Some(tables) => narrow::playout(self, tables, s, rng, policy),
            None => {
                let mut end = *s;
                self.random_playout_with(&mut end, rng, policy);
                std::array::from_fn(|p| end.score(p))
            }
        }
    }

    /// Plays uniformly random moves to the end (see [`FishGame::random_playout_with`]).
    pub fn random_playout(&self, s: &mut FishState<W>, rng: &mut Rng) {
        self.random_playout_with(s, rng, Policy::Uniform);
    }

    /// Plays a slide drawn uniformly from all legal slides; `false` if there is none. The
    /// slides are counted per direction: in one direction the destinations of different
    /// penguins never overlap, and each names its penguin (the nearest one behind it).
    fn random_slide_uniform(&self, s: &mut FishState<W>, rng: &mut Rng) -> bool {
        let empty = s.empty();
        let mut dests = [Bitboard::<W>::EMPTY; 6];
        for from in s.penguins[s.to_move as usize] {
            self.board()
                .slides(from, empty, |dir, d| dests[dir as usize] |= d);
        }
        let count: u32 = dests.iter().map(|d| d.count()).sum();
        if count == 0 {
            return false;
        }
        let mut k = rng.below(count as usize) as u32;
        for (dir, d) in Direction::ALL.into_iter().zip(dests) {
            if k < d.count() {
                let to = d.nth(k).expect("in range");
                let from = self
                    .board()
                    .slide_source(to, dir, empty)
                    .expect("a penguin slid here");
                self.move_penguin(s, from, to);
                return true;
            }
            k -= d.count();
        }
        unreachable!("k < count")
    }

    /// Plays a slide of a random penguin among those that can move, in a random direction among
    /// its open ones, by a random distance; `false` if no penguin can move. Cheaper than
    /// [`Policy::Uniform`]: it looks at one ray, not all of them.
    fn random_slide_fast(&self, s: &mut FishState<W>, rng: &mut Rng) -> bool {
        let empty = s.empty();
        let mut movable = ArrayVec::<Cell, MAX_PENGUINS>::new();
        for cell in s.penguins[s.to_move as usize] {
            if self.board().adjacent(cell).intersects(empty) {
                movable.push(cell);
            }
        }
        if movable.is_empty() {
            return false;
        }
        let from = movable[rng.below(movable.len())];
        let mut open = ArrayVec::<Direction, 6>::new();
        for (dir, &step) in Direction::ALL.iter().zip(self.board().steps(from)) {
            if step != NO_CELL && empty.contains(step) {
                open.push(*dir);
            }
        }
        let dests = self.board().slide(from, open[rng.below(open.len())], empty);
        let to = dests
            .nth(rng.below(dests.count() as usize) as u32)
            .expect("in range");
        self.move_penguin(s, from, to);
        true
    }
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
        let start: Start = Start::Standard(Rules::standard(2).unwrap());
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
        let start: Start = Start::Standard(Rules::standard(2).unwrap());
        let e = random_playouts(&start, usize::MAX, 1, 1, Policy::Uniform, &stop).unwrap_err();
        assert!(e.to_string().contains("at most 4294967296"), "{e}");
        let e = random_playouts(&start, 2000, 1, 5000, Policy::Uniform, &stop).unwrap_err();
        assert!(e.to_string().contains("at most 256 threads"), "{e}");
        stop.stop();
        let e = random_playouts(&start, 2000, 1, 2, Policy::Uniform, &stop).unwrap_err();
        assert!(matches!(e, crate::error::Error::Interrupted(_)), "{e}");
    }
}
