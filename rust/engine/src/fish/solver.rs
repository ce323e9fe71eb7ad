//! The exact Fish solver for small positions.
//!
//! **Two players:** each player maximises their final fish minus the opponent's, floes breaking
//! ties (the value compares `(fish difference, floe difference)` lexicographically).
//! **Three or four players:** the *paranoid* reduction: the player to move at the root maximises
//! their own final fish minus the sum of the others' (floes breaking ties), and the others all
//! minimise that.
//!
//! Values count only what is still to be collected (so the transposition table can use the
//! engine's hash, which leaves the scores out), a search ends in every position whose regions
//! each have at most one owner (their hauls are exact: see [`super::eval`]), and the usual
//! alpha-beta machinery (a transposition table, best move first) keeps it fast.
//!
//! The transposition table is keyed by the position (the engine's hash, which leaves the scores
//! out, as the values do) with bounds; on a board with symmetries (those that keep every floe's
//! fish: [`super::symmetry::fish_symmetries`]) the key is that of the position's canonical image,
//! the least hash over the symmetries, so symmetric positions share one entry (its best move is
//! stored in the canonical image's frame and mapped back). [`SolveOptions::symmetry`] turns that
//! off (for comparisons); values are the same either way.

use std::collections::HashMap;

use crate::error::invalid;
use crate::error::Result;
use crate::fish::eval::{exact_scores, pack, FishPlanes, FxBuild};
use crate::fish::symmetry::{fish_symmetries, map_state};
use crate::fish::{FishGame, FishState, Word};
use crate::game::{Action, ActionList, Game};
use crate::rng::splitmix64;
use crate::search::tt::Bound;
use crate::search::StopFlag;
use crate::symmetry::Symmetry;

/// What the solver found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Final `(fish, floes)` of every player after optimal play.
    pub scores: Vec<(u32, u32)>,
    /// The best move of the player to move (`None` when the game is over).
    pub best: Option<Action>,
    /// The optimal line, to the end of the game or to a position whose regions are all solved.
    pub pv: Vec<Action>,
    /// The value for the player to move: what they gain from here on, minus what the
    /// opponent (two players) or the others together (more) gain, as `(fish, floes)`.
    pub value: (i32, i32),
    /// Positions searched.
    pub nodes: u64,
}

const INF: i32 = i32::MAX / 2;

/// The largest search the solver allows by default.
pub const DEFAULT_MAX_NODES: u64 = 50_000_000;

struct Solver<'a, W: Word> {
    game: &'a FishGame<W>,
    planes: FishPlanes<W>,
    players: usize,
    root: usize,
    salt: u64,
    tt: HashMap<u64, (i32, Bound, Action), FxBuild>,
    nodes: u64,
    max_nodes: u64,
    overflow: bool,
    stop: Option<&'a StopFlag>,
    /// The board's symmetries other than the identity, each with its inverse.
    syms: Vec<(Symmetry, Symmetry)>,
}

/// How [`solve_with_options`] searches.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// Give up (with an error) after this many positions.
    pub max_nodes: u64,
    /// Fold symmetric positions into one transposition-table entry (see the module docs).
    pub symmetry: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            max_nodes: DEFAULT_MAX_NODES,
            symmetry: true,
        }
    }
}

/// Packs a `(fish, floes)` difference so that comparing values compares fish first.
#[inline]
fn value_of(fish: i32, floes: i32) -> i32 {
    // Floe differences stay within ±1024 (the most cells of a board).
    fish * 4096 + floes
}

#[inline]
fn split_value(v: i32) -> (i32, i32) {
    let fish = (v + 2048).div_euclid(4096);
    (fish, v - fish * 4096)
}

impl<W: Word> Solver<'_, W> {
    fn same_side(&self, p: usize, q: usize) -> bool {
        if self.players == 2 {
            p == q
        } else {
            (p == self.root) == (q == self.root)
        }
    }

    /// The value for `p`'s side of the score changes from `a` to `b`.
    fn delta(&self, a: &FishState<W>, b: &FishState<W>, p: usize) -> i32 {
        let d = |q: usize| {
            value_of(
                b.fish[q] as i32 - a.fish[q] as i32,
                b.taken[q] as i32 - a.taken[q] as i32,
            )
        };
        let n = self.players;
        let root_side = if n == 2 { p } else { self.root };
        let mut v = d(root_side);
        for q in 0..n {
            if q != root_side {
                v -= d(q);
            }
        }
        if self.same_side(p, root_side) {
            v
        } else {
            -v
        }
    }

    /// What `p`'s side still gains from `s` to the end under exact regions, if they are exact.
    fn exact_future(&self, s: &FishState<W>, p: usize) -> Option<i32> {
        let scores = exact_scores(self.game, &self.planes, s, u64::MAX)?;
        let mut end = *s;
        for (q, &(fish, floes)) in scores.iter().enumerate().take(self.players) {
            end.fish[q] = fish as u16;
            end.taken[q] = floes as u16;
        }
        Some(self.delta(s, &end, p))
    }

    /// The table key of `s` and the symmetry (an index into `syms`, `None` for the identity)
    /// that takes `s` to the canonical image the key belongs to.
    #[inline]
    fn key(&self, s: &FishState<W>) -> (u64, Option<usize>) {
        let mut best = (self.game.hash(s), None);
        for (i, (sym, _)) in self.syms.iter().enumerate() {
            let h = map_state(self.game, sym, s).hash();
            if h < best.0 {
                best = (h, Some(i));
            }
        }
        (best.0 ^ self.salt, best.1)
    }

    /// An action of `s` in the frame of its canonical image (`to == true`), or back.
    #[inline]
    fn frame(&self, sym: Option<usize>, a: Action, to: bool) -> Action {
        match sym {
            None => a,
            Some(i) if to => self.syms[i].0.actions[a as usize],
            Some(i) => self.syms[i].1.actions[a as usize],
        }
    }

    /// The table entry of `s`, its move in `s`'s own frame.
    fn probe(&self, s: &FishState<W>) -> Option<(i32, Bound, Action)> {
        let (key, sym) = self.key(s);
        self.tt
            .get(&key)
            .map(|&(v, bound, a)| (v, bound, self.frame(sym, a, false)))
    }

    /// The value of `s` for its player to move `p`.
    fn negamax(&mut self, s: &FishState<W>, mut alpha: i32, beta: i32) -> i32 {
        let p = s
            .to_move()
            .expect("the solver searches positions that are not over");
        self.nodes += 1;
        if self.nodes > self.max_nodes
            || (self.nodes & 4095 == 0 && self.stop.is_some_and(|f| f.is_set()))
        {
            self.overflow = true;
            return 0;
        }
        let (key, sym) = self.key(s);
        let mut hash_move = None;
        if let Some(&(v, bound, best)) = self.tt.get(&key) {
            hash_move = Some(self.frame(sym, best, false));
            match bound {
                Bound::Exact => return v,
                Bound::Lower if v >= beta => return v,
                Bound::Upper if v <= alpha => return v,
                _ => {}
            }
        }
        let mut actions = ActionList::new();
        self.game.legal_actions(s, &mut actions);
        if let Some(h) = hash_move {
            if let Some(i) = actions.iter().position(|&a| a == h) {
                actions.swap(0, i);
            }
        }
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_action = actions[0];
        for &a in &actions {
            let mut c = *s;
            self.game.apply(&mut c, a);
            let v = self.delta(s, &c, p) + self.child(&c, p, alpha, beta, s);
            if self.overflow {
                return 0;
            }
            if v > best {
                best = v;
                best_action = a;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .insert(key, (best, bound, self.frame(sym, best_action, true)));
        best
    }

    /// The future value of child `c` for `p`'s side, given the window of the parent `s` (in
    /// `p`'s terms, before the move's own gain).
    fn child(
        &mut self,
        c: &FishState<W>,
        p: usize,
        alpha: i32,
        beta: i32,
        s: &FishState<W>,
    ) -> i32 {
        let Some(q) = c.to_move() else { return 0 };
        if let Some(v) = self.exact_future(c, p) {
            return v;
        }
        let gain = self.delta(s, c, p);
        let (a, b) = (alpha.saturating_sub(gain), beta.saturating_sub(gain));
        if self.same_side(p, q) {
            self.negamax(c, a, b)
        } else {
            -self.negamax(c, -b, -a)
        }
    }
}

/// Solves a Fish position exactly (see the module docs for what "optimal" means with more than
/// two players). Positions with many floes can take very long: the search gives up after
/// `max_nodes` positions.
///
/// # Errors
/// `Error::Invalid` when the game is over or the search would exceed `max_nodes`.
pub fn solve<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    max_nodes: u64,
) -> Result<Solution> {
    solve_with_stop(game, state, max_nodes, None)
}

/// [`solve`], giving up (with an error) as soon as `stop` is set.
///
/// # Errors
/// As [`solve`], and `Error::Invalid` when stopped.
pub fn solve_with_stop<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    max_nodes: u64,
    stop: Option<&StopFlag>,
) -> Result<Solution> {
    let options = SolveOptions {
        max_nodes,
        ..SolveOptions::default()
    };
    solve_with_options(game, state, options, stop)
}

/// [`solve_with_stop`] with every option.
///
/// # Errors
/// As [`solve_with_stop`].
pub fn solve_with_options<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    options: SolveOptions,
    stop: Option<&StopFlag>,
) -> Result<Solution> {
    let max_nodes = options.max_nodes;
    let syms = if options.symmetry {
        fish_symmetries(game)
            .into_iter()
            .filter(|s| !s.is_identity())
            .map(|s| {
                let inverse = s.inverse();
                (s, inverse)
            })
            .collect()
    } else {
        Vec::new()
    };
    let Some(root) = state.to_move() else {
        return invalid!("cannot solve a finished game");
    };
    let players = game.rules().players();
    let mut solver = Solver {
        game,
        planes: FishPlanes::new(game.board()),
        players,
        root,
        salt: if players > 2 {
            splitmix64(root as u64 + 77)
        } else {
            0
        },
        tt: HashMap::default(),
        nodes: 0,
        max_nodes,
        overflow: false,
        stop,
        syms,
    };
    let value = solver.negamax(state, -INF, INF);
    if solver.overflow && stop.is_some_and(|f| f.is_set()) {
        return invalid!("the solver was stopped");
    }
    if solver.overflow {
        return invalid!(
            "the position is too large to solve exactly (more than {max_nodes} positions)"
        );
    }
    // Walk the optimal line to the end, or to a position whose regions are all solved.
    let mut s = *state;
    let mut pv = Vec::new();
    while let Some(p) = s.to_move() {
        if !pv.is_empty() && solver.exact_future(&s, p).is_some() {
            break;
        }
        if !matches!(solver.probe(&s), Some((_, Bound::Exact, _))) {
            solver.negamax(&s, -INF, INF);
        }
        let Some((_, _, a)) = solver.probe(&s) else {
            break;
        };
        pv.push(a);
        game.apply(&mut s, a);
        if pv.len() > game.max_game_length() {
            break;
        }
    }
    let final_scores = exact_scores(game, &solver.planes, &s, u64::MAX).unwrap_or_else(|| {
        let mut sc = [(0, 0); 4];
        for (q, x) in sc.iter_mut().enumerate().take(players) {
            *x = (s.fish[q] as u32, s.taken[q] as u32);
        }
        sc
    });
    let _ = pack;
    Ok(Solution {
        scores: final_scores[..players].to_vec(),
        best: pv.first().copied(),
        pv,
        value: split_value(value),
        nodes: solver.nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::{Board, Order, Placement, Rules};
    use crate::rng::Rng;

    /// Brute force: the same objective by plain minimax over every move, no pruning, no regions.
    fn brute(game: &FishGame, s: &FishState, root: usize) -> i32 {
        let n = game.rules().players();
        let Some(p) = s.to_move() else { return 0 };
        let solver_like = |a: &FishState, b: &FishState| -> i32 {
            // Value for the root side (two players: for `p`).
            let side = if n == 2 { p } else { root };
            let d = |q: usize| {
                value_of(
                    b.fish[q] as i32 - a.fish[q] as i32,
                    b.taken[q] as i32 - a.taken[q] as i32,
                )
            };
            let mut v = d(side);
            for q in 0..n {
                if q != side {
                    v -= d(q);
                }
            }
            v
        };
        let mut actions = ActionList::new();
        game.legal_actions(s, &mut actions);
        let mut best = -INF;
        for &a in &actions {
            let mut c = *s;
            game.apply(&mut c, a);
            // In `p`'s side's terms.
            let mut v = solver_like(s, &c);
            if n > 2 && p != root {
                v = -v;
            }
            let rest = match c.to_move() {
                None => 0,
                Some(q) => {
                    let same = if n == 2 {
                        p == q
                    } else {
                        (p == root) == (q == root)
                    };
                    let r = brute(game, &c, root);
                    if same {
                        r
                    } else {
                        -r
                    }
                }
            };
            best = best.max(v + rest);
        }
        best
    }

    fn random_position(rng: &mut Rng, players: usize) -> (FishGame, FishState) {
        let rows = 2 + rng.below(2);
        let cols = 3 + rng.below(2);
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| {
                        if rng.below(6) == 0 {
                            0
                        } else {
                            1 + rng.below(3) as u8
                        }
                    })
                    .collect()
            })
            .collect();
        let penguins = if players == 2 { 1 + rng.below(2) } else { 1 };
        let rules = Rules::new(players, Some(penguins), Placement::Any, Order::RoundRobin).unwrap();
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        // Random placement, then a few random moves.
        let extra = rng.below(3);
        let mut moves = 0;
        while !game.is_over(&s) {
            if game.phase(&s) == crate::fish::Phase::Movement {
                if moves == extra {
                    break;
                }
                moves += 1;
            }
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        (game, s)
    }

    #[test]
    fn solver_agrees_with_brute_force() {
        let mut rng = Rng::new(2024);
        let mut done = 0;
        while done < 500 {
            let players = if done % 5 == 4 { 3 } else { 2 };
            let (game, s) = random_position(&mut rng, players);
            let Some(root) = s.to_move() else { continue };
            let sol = solve(&game, &s, DEFAULT_MAX_NODES).unwrap();
            let truth = brute(&game, &s, root);
            assert_eq!(sol.value, split_value(truth), "{:?} {:?}", game.board(), s);
            // Playing the solution's line reaches its final scores, worth the value.
            let mut c = s;
            for &a in &sol.pv {
                assert!(game.is_legal(&c, a));
                game.apply(&mut c, a);
            }
            let me = sol.scores[root];
            let mine = value_of(
                me.0 as i32 - s.fish[root] as i32,
                me.1 as i32 - s.taken[root] as i32,
            );
            let others: i32 = (0..players)
                .filter(|&q| q != root)
                .map(|q| {
                    value_of(
                        sol.scores[q].0 as i32 - s.fish[q] as i32,
                        sol.scores[q].1 as i32 - s.taken[q] as i32,
                    )
                })
                .sum();
            assert_eq!(mine - others, truth);
            done += 1;
        }
    }

    /// A random board with the half turn's symmetry (rows even, fish equal on `(r, c)` and
    /// `(rows - 1 - r, cols - 1 - c)`).
    fn half_turn_board(rng: &mut Rng, rows: usize, cols: usize) -> Vec<Vec<u8>> {
        let mut grid = vec![vec![0u8; cols]; rows];
        for r in 0..rows {
            for c in 0..cols {
                let (r2, c2) = (rows - 1 - r, cols - 1 - c);
                if (r, c) <= (r2, c2) {
                    let f = if rng.below(8) == 0 {
                        0
                    } else {
                        1 + rng.below(3) as u8
                    };
                    grid[r][c] = f;
                    grid[r2][c2] = f;
                }
            }
        }
        grid
    }

    #[test]
    fn symmetry_reduction_keeps_every_value() {
        let plain = SolveOptions {
            symmetry: false,
            ..SolveOptions::default()
        };
        let mut rng = Rng::new(77);
        let mut folded = 0;
        for i in 0..60 {
            let (rows, cols) = [(2, 4), (4, 3), (2, 5), (4, 3), (2, 4), (4, 4)][i % 6];
            let grid = if i % 3 == 2 {
                (0..rows)
                    .map(|_| (0..cols).map(|_| 1 + rng.below(3) as u8).collect())
                    .collect()
            } else {
                half_turn_board(&mut rng, rows, cols)
            };
            let players = if i % 10 == 9 { 3 } else { 2 };
            let penguins = if rows * cols <= 10 && players == 2 {
                2
            } else {
                1
            };
            let rules =
                Rules::new(players, Some(penguins), Placement::Any, Order::RoundRobin).unwrap();
            let Ok(board) = Board::from_grid(&grid) else {
                continue;
            };
            let game: FishGame = FishGame::new(rules, board);
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            for _ in 0..rng.below(3) {
                if game.is_over(&s) {
                    break;
                }
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            if game.is_over(&s) {
                continue;
            }
            let a = solve_with_options(&game, &s, SolveOptions::default(), None).unwrap();
            let b = solve_with_options(&game, &s, plain, None).unwrap();
            // The value is the same (the final scores may differ: several lines can be optimal).
            assert_eq!(a.value, b.value, "{grid:?} {s:?}");
            // The line, its moves mapped back from the canonical images, is legal.
            let mut c = s;
            for &m in &a.pv {
                assert!(game.is_legal(&c, m), "{grid:?}");
                game.apply(&mut c, m);
            }
            folded += usize::from(fish_symmetries(&game).len() > 1);
        }
        assert!(folded > 20, "{folded} boards had a symmetry");
    }

    #[test]
    fn solver_rejects_finished_and_oversized() {
        let game: FishGame = FishGame::new(Rules::standard(2).unwrap(), Board::standard(3));
        let mut s = game.initial_state();
        assert!(solve(&game, &s, 1000).is_err());
        let mut rng = Rng::new(1);
        game.random_playout(&mut s, &mut rng);
        assert!(solve(&game, &s, DEFAULT_MAX_NODES).is_err());
    }
}
