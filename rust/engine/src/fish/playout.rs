//! Random playouts: [`FishGame::random_playout_with`] on any board, the kernels on 64-bit tables
//! (the private `narrow` module) behind [`FishGame::playout_scores`] and [`standard_playout`],
//! and batches of playouts in parallel with rayon. Game `i` of a batch draws its randomness from
//! `Rng::for_item(seed, i)`, so results do not depend on the number of threads.

use rayon::prelude::*;

use arrayvec::ArrayVec;

use super::bitboard::{Bitboard, Cell};
use super::board::{Direction, NO_CELL};
use super::rules::{Policy, Rules, Scores, MAX_PENGUINS};
use super::state::{FishGame, FishState, NOBODY};
use crate::error::Result;
use crate::invalid;
use crate::rng::Rng;

mod narrow;

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
/// `Error::Invalid` when the thread pool cannot be started.
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

pub use narrow::standard_playout;

impl FishGame {
    /// Plays random moves to the end under `policy`, without removing unreachable floes (which
    /// never changes a move or a score). Listing the moves of the player to move doubles as the
    /// check that they can move at all, so each ply looks at the board once.
    pub fn random_playout_with(&self, s: &mut FishState, rng: &mut Rng, policy: Policy) {
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
    pub fn playout_scores(&self, s: &FishState, rng: &mut Rng, policy: Policy) -> Scores {
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
    pub fn random_playout(&self, s: &mut FishState, rng: &mut Rng) {
        self.random_playout_with(s, rng, Policy::Uniform);
    }

    /// Plays a slide drawn uniformly from all legal slides; `false` if there is none. The
    /// slides are counted per direction: in one direction the destinations of different
    /// penguins never overlap, and each names its penguin (the nearest one behind it).
    fn random_slide_uniform(&self, s: &mut FishState, rng: &mut Rng) -> bool {
        let empty = s.empty();
        let mut dests = [Bitboard::EMPTY; 6];
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
    fn random_slide_fast(&self, s: &mut FishState, rng: &mut Rng) -> bool {
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
