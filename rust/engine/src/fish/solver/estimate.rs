//! A cheap lower estimate of the positions a solve searches, so that a position far beyond a
//! node limit is refused at once instead of after the whole limit (minutes to hours on large
//! boards, whose positions take up to milliseconds each).
//!
//! To know a position's exact value `v`, a search proves both that the player to move gets at
//! least `v` and that they get at most `v`. Each proof follows one move where its prover moves
//! and every move where the other side moves, down to where the value is known without a
//! search: here, a position whose regions each have one owner (the region solver's), or the
//! end of the game. Along one line of play, the proof that the root's side gets at least `v`
//! then holds at least the product of the other side's numbers of moves, and the other proof
//! the product of the root's side's (Knuth and Moore's minimal tree). Moves that lead to one
//! position in another order count once: a player's placements to come in any order (the
//! `k`-th last of them counts its choices divided by `k`), and in the movement phase the moves
//! of different penguins (each ply counts its moves divided by the penguins that can move).
//!
//! The estimate plays [`LINES`] seeded random lines from the position (a few microseconds a
//! ply) and keeps the smallest product, the larger of the two sides', divided by the board's
//! symmetries (symmetric positions share the solver's table). It is not a proof: the solver's
//! cheap bounds on a lopsided position, and transpositions the count leaves out, can make a
//! search smaller. So a solve is refused only when the estimate is more than [`MARGIN`] times
//! its node limit (2^10). On every class measured, the estimate stayed below the positions the
//! solve searched (by 2^0.3 to 2^17 where it was above 1; the tests: small boards from the
//! start and later with two to four players, one-row corridors, standard-board endgames;
//! `examples/solve_estimate.rs`: 234 positions, larger boards, 6x6 middle games and two-row
//! corridors too).

use crate::fish::{Bitboard, FishGame, FishState, Phase, Word};
use crate::game::{ActionList, Game};
use crate::rng::Rng;

/// Random lines played: the smallest estimate counts.
pub const LINES: usize = 8;

/// How far above a node limit the estimate must be for a solve to be refused without search.
pub const MARGIN: f64 = 1000.0;

/// Plies of the lines between two readings of the solve's clock.
pub const PLIES_PER_CLOCK_READ: usize = 32;

/// What [`estimate`] found: the estimate (as a power of two) and what made it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The base-2 logarithm of the estimated positions (at least; capped where the lines were
    /// cut short).
    pub log2: f64,
    /// Floes in regions with penguins of two players or more (every floe while penguins are
    /// still being placed).
    pub contested: u32,
    /// Placements to come.
    pub placements: u32,
}

impl Estimate {
    /// The estimate as a number of positions.
    pub fn positions(&self) -> f64 {
        self.log2.exp2()
    }
}

/// The floes of the regions of movement-phase `s` that hold penguins of two players or more
/// (none when every region has at most one owner).
fn contested_floes<W: Word>(game: &FishGame<W>, s: &FishState<W>) -> Bitboard<W> {
    let board = game.board();
    let players = game.rules().players();
    let occupied = s.occupied();
    let mut contested = Bitboard(W::ZERO);
    let mut rest = s.floes;
    while let Some(c) = (rest & occupied).first() {
        let region = board.fill(Bitboard::from_cell(c), rest);
        rest = rest - region;
        let owners = (0..players)
            .filter(|&p| s.penguins[p].intersects(region))
            .count();
        if owners > 1 {
            contested |= region;
        }
    }
    contested
}

/// The moves of `p` in movement-phase `s`, and how many of `p`'s penguins can move.
fn moves_and_movers<W: Word>(game: &FishGame<W>, s: &FishState<W>, p: usize) -> (u32, u32) {
    let empty = s.empty();
    let empty_rev = Bitboard(empty.0.reverse());
    let (mut moves, mut movers) = (0, 0);
    for from in s.penguins[p] {
        let mut n = 0;
        game.board()
            .slide_counts(from, empty, empty_rev, |_, k| n += k);
        moves += n;
        movers += u32::from(n > 0);
    }
    (moves, movers)
}

/// The estimated positions a solve of `s` (not over) searches (see the module docs); lines
/// stop once they pass `cap` (a base-2 logarithm), so that the estimate costs little on
/// large boards (a millisecond or so). It asks `expired` every [`PLIES_PER_CLOCK_READ`] plies
/// and gives up, estimating nothing (0), once it says so: the solve's clock (the search then
/// ends at once on the same clock).
pub fn estimate<W: Word>(
    game: &FishGame<W>,
    s: &FishState<W>,
    symmetries: usize,
    cap: f64,
    expired: impl Fn() -> bool,
) -> Estimate {
    let root = s.to_move().unwrap_or(0);
    let placing = game.phase(s) == Phase::Placement;
    let placements = game
        .rules()
        .placement_turns()
        .saturating_sub(s.turn as usize) as u32;
    let contested = if placing {
        s.floes.count()
    } else {
        contested_floes(game, s).count()
    };
    let folded = (symmetries.max(1) as f64).log2();
    let mut best = f64::INFINITY;
    let mut rng = Rng::new(0x5EED_E571);
    let mut actions = ActionList::new();
    let mut plies = 0usize;
    for _ in 0..LINES {
        // log2 of the product of each side's factors: the root's side, the others.
        let mut sides = [0f64; 2];
        let mut c = *s;
        // Each player's placements to come.
        let mut left = [0u32; 4];
        for t in (c.turn as usize)..game.rules().placement_turns() {
            left[game.rules().placer(t)] += 1;
        }
        while let Some(p) = c.to_move() {
            let side = usize::from(p != root);
            let factor = match game.phase(&c) {
                Phase::Placement => {
                    let choices = game.count_moves(&c) as f64;
                    let k = left[p].max(1) as f64;
                    left[p] = left[p].saturating_sub(1);
                    choices / k
                }
                Phase::Movement => {
                    if contested_floes(game, &c).is_empty() {
                        break;
                    }
                    let (moves, movable) = moves_and_movers(game, &c, p);
                    moves as f64 / movable.max(1) as f64
                }
                Phase::Over => break,
            };
            sides[side] += factor.max(1.0).log2();
            if sides[0].max(sides[1]) - folded > cap.min(best) {
                break;
            }
            plies += 1;
            if plies % PLIES_PER_CLOCK_READ == 0 && expired() {
                return Estimate {
                    log2: 0.0,
                    contested,
                    placements,
                };
            }
            game.legal_actions(&c, &mut actions);
            let a = actions[rng.below(actions.len())];
            game.apply(&mut c, a);
        }
        best = best.min(sides[0].max(sides[1]) - folded);
    }
    Estimate {
        log2: best.max(0.0),
        contested,
        placements,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::solver::{solve, solve_with_options, SolveOptions, DEFAULT_MAX_NODES};
    use crate::fish::symmetry::fish_symmetries;
    use crate::fish::{Board, Order, Placement, Rules, W1024};

    /// `plies` random moves from the start of `game`.
    fn after<W: Word>(game: &FishGame<W>, plies: usize, rng: &mut Rng) -> FishState<W> {
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        for _ in 0..plies {
            if game.is_over(&s) {
                break;
            }
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        s
    }

    fn random_grid(rows: usize, cols: usize, rng: &mut Rng) -> Vec<Vec<u8>> {
        (0..rows)
            .map(|_| (0..cols).map(|_| 1 + rng.below(3) as u8).collect())
            .collect()
    }

    #[test]
    fn the_estimate_stays_below_the_positions_searched() {
        // Small boards from the start and later (two to four players), one-row corridors and
        // standard-board endgames: the estimate is at most twice what the solve searched (the
        // solver refuses only at a thousand times its limit). `examples/solve_estimate.rs`
        // measures larger positions.
        let mut rng = Rng::new(71);
        let mut checked = 0;
        let mut check = |game: &FishGame, s: &FishState, what: &str| {
            if s.to_move().is_none() {
                return;
            }
            let syms = fish_symmetries(game).len();
            let guess = estimate(game, s, syms, f64::INFINITY, || false);
            let sol = solve(game, s, DEFAULT_MAX_NODES).unwrap();
            let searched = (sol.nodes as f64).log2();
            assert!(
                guess.log2 <= searched + 1.0,
                "{what}: 2^{} > 2^{searched}",
                guess.log2
            );
            checked += 1;
        };
        for &(rows, cols, players, penguins) in &[
            (3, 4, 2, 1),
            (4, 4, 2, 1),
            (4, 5, 2, 1),
            (3, 4, 2, 2),
            (4, 4, 3, 1),
            (4, 4, 4, 1),
        ] {
            for seed in 0..3 {
                let grid = random_grid(rows, cols, &mut rng);
                let rules =
                    Rules::new(players, Some(penguins), Placement::Any, Order::RoundRobin).unwrap();
                let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
                for plies in [0, players * penguins, players * penguins + 4] {
                    if plies == 0 && players > 2 {
                        continue; // a million positions and more: seconds each
                    }
                    let s = after(&game, plies, &mut rng);
                    check(
                        &game,
                        &s,
                        &format!("{rows}x{cols} {players}x{penguins} {seed} {plies}"),
                    );
                }
            }
        }
        for cols in [16, 32, 64] {
            let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
            let game: FishGame = FishGame::new(rules, Board::from_grid(&[vec![1; cols]]).unwrap());
            for plies in [0, 2] {
                let s = after(&game, plies, &mut rng);
                check(&game, &s, &format!("1x{cols} corridor {plies}"));
            }
        }
        for seed in 0..6 {
            let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(seed));
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            while !game.is_over(&s) && s.floes().count() > 28 {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            check(&game, &s, &format!("standard {seed}"));
        }
        assert!(checked >= 55, "{checked}");
    }

    #[test]
    fn positions_far_beyond_the_limit_are_refused_at_once() {
        // The largest board (2 players, 4 penguins each placed anywhere, 1-3 fish): the default
        // limit ran 171 s into an abort (4.4 GB asked for), 1,000,000 positions took a minute.
        let mut rng = Rng::new(32);
        let rules = Rules::new(2, Some(4), Placement::Any, Order::RoundRobin).unwrap();
        let grid = random_grid(32, 32, &mut rng);
        let big: FishGame<W1024> = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let standard = FishGame::new(Rules::standard(2).unwrap(), Board::standard(1));
        let refused = |e: crate::error::Error, nodes: u64| {
            let e = e.to_string();
            assert!(e.contains(&format!("more than {nodes} positions")), "{e}");
            assert!(e.contains("an estimate"), "{e}");
        };
        for nodes in [1_000, DEFAULT_MAX_NODES, 1 << 40] {
            let t = std::time::Instant::now();
            refused(solve(&big, &big.initial_state(), nodes).unwrap_err(), nodes);
            refused(
                solve(&standard, &standard.initial_state(), nodes).unwrap_err(),
                nodes,
            );
            assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
        }
        let e = solve(&big, &big.initial_state(), DEFAULT_MAX_NODES).unwrap_err();
        assert!(
            e.to_string()
                .contains("1024 floes in play, 8 placements to come"),
            "{e}"
        );
        // On an expired clock it gives up, refusing nothing (the search then ends at once).
        let s = big.initial_state();
        assert_eq!(estimate(&big, &s, 1, f64::INFINITY, || true).log2, 0.0);
        assert!(estimate(&big, &s, 1, f64::INFINITY, || false).log2 > 100.0);
        // Within reach of the estimate: searched, and refused at the limit as before.
        let mut s = standard.initial_state();
        let mut actions = ActionList::new();
        while s.floes().count() > 40 {
            standard.legal_actions(&s, &mut actions);
            standard.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let options = SolveOptions {
            max_nodes: 1_000,
            ..SolveOptions::default()
        };
        let e = solve_with_options(&standard, &s, options, None).unwrap_err();
        assert!(!e.to_string().contains("estimate"), "{e}");
    }
}
