//! Random playouts on the 64-bit tables of [`Narrow`], for boards of at most 64 grid cells (the
//! standard 8x8 among them).
//!
//! The playouts here make the same moves with the same random draws as
//! [`FishGame::random_playout_with`], so both give identical scores (tested); batch playouts and
//! the search's rollouts use them whenever the board fits.

use crate::fish::bitboard::Word;
use crate::fish::board::{self, Board};
use crate::fish::geometry::{Narrow, INCREASING};
use crate::fish::rules::{Placement, Policy, Rules, Scores, MAX_FISH_PLAYERS, MAX_PENGUINS};
use crate::fish::state::{FishGame, FishState, NOBODY};
use crate::rng::Rng;

/// The `n`-th lowest cell of `bb` (`n < bb.count_ones()`).
#[inline(always)]
fn nth(mut bb: u64, n: usize) -> usize {
    for _ in 0..n {
        bb &= bb - 1;
    }
    bb.trailing_zeros() as usize
}

/// A game in progress in the narrow layout.
struct Position<'a> {
    narrow: &'a Narrow,
    fish_on: &'a [u8; 64],
    floes: u64,
    penguins: [u64; MAX_FISH_PLAYERS],
    scores: Scores,
}

impl Position<'_> {
    #[inline(always)]
    fn empty(&self) -> u64 {
        self.floes & !(self.penguins[0] | self.penguins[1] | self.penguins[2] | self.penguins[3])
    }

    #[inline(always)]
    fn slide(&mut self, p: usize, from: usize, to: usize) {
        self.penguins[p] ^= 1 << from | 1 << to;
        self.floes &= !(1 << from);
        self.scores[p].0 += self.fish_on[from] as u16;
        self.scores[p].1 += 1;
    }

    fn lift(&mut self, p: usize) {
        let mut left = self.penguins[p];
        while left != 0 {
            let cell = left.trailing_zeros() as usize;
            left &= left - 1;
            self.scores[p].0 += self.fish_on[cell] as u16;
            self.scores[p].1 += 1;
        }
        self.floes &= !self.penguins[p];
        self.penguins[p] = 0;
    }

    /// A slide drawn uniformly from every legal slide of `p`; `false` if there is none. As in
    /// `FishGame::random_playout_with`, slides are counted per direction, and a destination
    /// names its penguin: the nearest cell behind it that is not empty. Destinations in the
    /// directions that run to lower indices are gathered bit-reversed (see `Narrow::rays_up`).
    #[inline(always)]
    fn slide_uniform(&mut self, p: usize, rng: &mut Rng) -> bool {
        let empty = self.empty();
        let empty_rev = empty.reverse_bits();
        let mut dests = [0u64; 6];
        let mut mine = self.penguins[p];
        while mine != 0 {
            let from = mine.trailing_zeros() as usize;
            mine &= mine - 1;
            for (d, (dest, &ray)) in dests.iter_mut().zip(&self.narrow.rays_up[from]).enumerate() {
                let blockers = ray & !if INCREASING[d] { empty } else { empty_rev };
                *dest |= ray & (blockers & blockers.wrapping_neg()).wrapping_sub(1);
            }
        }
        let counts = dests.map(|d| d.count_ones() as usize);
        let total: usize = counts.iter().sum();
        if total == 0 {
            return false;
        }
        let mut k = rng.below(total);
        let mut d = 0;
        while k >= counts[d] {
            k -= counts[d];
            d += 1;
        }
        // The `k`-th lowest cell; in a reversed set, the `count - 1 - k`-th lowest there.
        let to = if INCREASING[d] {
            nth(dests[d], k)
        } else {
            63 - nth(dests[d], counts[d] - 1 - k)
        };
        let from = self.narrow.nearest(to, (d + 3) % 6, !empty);
        self.slide(p, from, to);
        true
    }

    /// A random movable penguin, open direction and distance; `false` if no penguin can move.
    #[inline(always)]
    fn slide_fast(&mut self, p: usize, rng: &mut Rng) -> bool {
        let empty = self.empty();
        let mut movable = [0usize; MAX_PENGUINS];
        let mut len = 0;
        let mut mine = self.penguins[p];
        while mine != 0 {
            let cell = mine.trailing_zeros() as usize;
            mine &= mine - 1;
            movable[len] = cell;
            len += usize::from(self.narrow.adjacent[cell] & empty != 0);
        }
        if len == 0 {
            return false;
        }
        let from = movable[rng.below(len)];
        // A direction is open when the first cell of its ray is empty.
        let mut open = [0usize; 6];
        let mut n = 0;
        for d in 0..6 {
            open[n] = d;
            n += usize::from(
                self.narrow.rays[from][d] != 0
                    && empty >> self.narrow.nearest(from, d, !0) & 1 != 0,
            );
        }
        let dests = self.narrow.slide(from, open[rng.below(n)], empty);
        self.slide(p, from, nth(dests, rng.below(dests.count_ones() as usize)));
        true
    }

    /// Plays to the end from player `to_move` at placement turn `turn` (placement over when
    /// `turn` reaches the rules' count); `eligible` holds the floes a penguin may be placed on.
    fn play(
        mut self,
        rules: &Rules,
        to_move: usize,
        mut turn: usize,
        eligible: u64,
        rng: &mut Rng,
        policy: Policy,
    ) -> Scores {
        let n = rules.players();
        let total = rules.placement_turns();
        let mut p = to_move;
        if turn < total {
            loop {
                let cells = self.empty() & eligible;
                self.penguins[p] |= 1 << nth(cells, rng.below(cells.count_ones() as usize));
                turn += 1;
                if turn == total || self.empty() & eligible == 0 {
                    break;
                }
                p = rules.placer(turn);
            }
            // Movement starts with player 0: step back so that the loop below starts there.
            p = n - 1;
        } else {
            p = if p == 0 { n - 1 } else { p - 1 };
        }
        loop {
            // The next player with penguins on the board; stuck players lift on their turn.
            let mut next = None;
            let mut q = p;
            for _ in 0..n {
                q = if q + 1 == n { 0 } else { q + 1 };
                if self.penguins[q] != 0 {
                    next = Some(q);
                    break;
                }
            }
            let Some(q) = next else { return self.scores };
            p = q;
            let moved = match policy {
                Policy::Uniform => self.slide_uniform(p, rng),
                Policy::Fast => self.slide_fast(p, rng),
            };
            if !moved {
                self.lift(p);
            }
        }
    }
}

/// The final scores of random play from `s` under `policy` on a board with narrow tables.
pub(crate) fn playout<W: Word>(
    game: &FishGame<W>,
    narrow: &Narrow,
    s: &FishState<W>,
    rng: &mut Rng,
    policy: Policy,
) -> Scores {
    let scores = std::array::from_fn(|p| s.score(p));
    if s.to_move == NOBODY {
        return scores;
    }
    let board = game.board();
    let eligible = match game.rules().placement {
        Placement::OneFish => board.one_fish().0.low_u64(),
        Placement::Any => !0,
    };
    let pos = Position {
        narrow,
        fish_on: board.narrow_fish(),
        floes: s.floes.0.low_u64(),
        penguins: s.penguins.map(|bb| bb.0.low_u64()),
        scores,
    };
    pos.play(
        game.rules(),
        s.to_move as usize,
        s.turn as usize,
        eligible,
        rng,
        policy,
    )
}

/// The final scores of random play from the opening of a standard board dealt by `board_seed`
/// (as [`Board::standard`] deals it), without building the board.
pub fn standard_playout(rules: &Rules, board_seed: u64, rng: &mut Rng, policy: Policy) -> Scores {
    let shape = Board::standard_shape();
    let narrow = shape.narrow().expect("the standard grid has 64 cells");
    let (mut fish_on, mut one_fish) = ([0u8; 64], 0u64);
    board::deal_standard(board_seed, |r, c, f| {
        fish_on[r * 8 + c] = f;
        one_fish |= u64::from(f == 1) << (r * 8 + c);
    });
    let eligible = match rules.placement {
        Placement::OneFish => one_fish,
        Placement::Any => !0,
    };
    let pos = Position {
        narrow,
        fish_on: &fish_on,
        floes: shape.floes().0,
        penguins: [0; MAX_FISH_PLAYERS],
        scores: [(0, 0); MAX_FISH_PLAYERS],
    };
    pos.play(rules, rules.placer(0), 0, eligible, rng, policy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::board::Board;
    use crate::fish::{Order, Placement};
    use crate::game::{ActionList, Game};

    fn generic(game: &FishGame, s: &FishState, rng: &mut Rng, policy: Policy) -> Scores {
        let mut end = *s;
        game.random_playout_with(&mut end, rng, policy);
        std::array::from_fn(|p| end.score(p))
    }

    #[test]
    fn narrow_playouts_match_the_generic_ones_draw_for_draw() {
        let mut rng = Rng::new(11);
        for i in 0..3000u64 {
            let players = 2 + rng.below(3);
            let rules = Rules::new(
                players,
                None,
                if rng.below(2) == 0 {
                    Placement::OneFish
                } else {
                    Placement::Any
                },
                if rng.below(2) == 0 {
                    Order::RoundRobin
                } else {
                    Order::Snake
                },
            )
            .unwrap();
            let board = if i % 2 == 0 {
                Board::standard(rng.next_u64())
            } else {
                // Random grids of at most 64 cells, with gaps.
                let (rows, cols) = (1 + rng.below(8), 1 + rng.below(8));
                let grid: Vec<Vec<u8>> = (0..rows)
                    .map(|_| (0..cols).map(|_| rng.below(4) as u8).collect())
                    .collect();
                Board::<u64>::from_grid(&grid).unwrap()
            };
            let game = FishGame::new(rules, board);
            let narrow = game.board().narrow().expect("at most 64 cells");
            // From a random point of a random game.
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            for _ in 0..rng.below(40) {
                game.legal_actions(&s, &mut actions);
                if actions.is_empty() {
                    break;
                }
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            for policy in [Policy::Uniform, Policy::Fast] {
                let seed = rng.next_u64();
                let expected = generic(&game, &s, &mut Rng::new(seed), policy);
                assert_eq!(
                    playout(&game, narrow, &s, &mut Rng::new(seed), policy),
                    expected,
                    "{:?} {s:?}",
                    game.board()
                );
            }
        }
    }

    #[test]
    fn standard_playouts_match_a_dealt_board() {
        for seed in 0..500 {
            let rules = Rules::standard(2 + seed as usize % 3).unwrap();
            let game = FishGame::new(rules, Board::standard(seed));
            for policy in [Policy::Uniform, Policy::Fast] {
                let expected = generic(&game, &game.initial_state(), &mut Rng::new(seed), policy);
                assert_eq!(
                    standard_playout(&rules, seed, &mut Rng::new(seed), policy),
                    expected
                );
            }
        }
    }
}
