//! The solver as it was before the table, ordering, bounds and null windows (a plain
//! alpha-beta with a map for a table): the reference the tests check the solver against.

use std::collections::HashMap;

use super::regions::{exact_scores, FishPlanes, FxBuild};
use super::{split_value, value_of, SolveOptions, INF};
use crate::error::invalid;
use crate::error::Result;
use crate::fish::symmetry::{fish_symmetries, map_state};
use crate::fish::{FishGame, FishState, Word};
use crate::game::{Action, ActionList, Game};
use crate::rng::splitmix64;
use crate::search::tt::Bound;
use crate::search::StopFlag;
use crate::symmetry::Symmetry;

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

/// The old solver's value and positions searched.
pub fn solve<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    options: SolveOptions,
    stop: Option<&StopFlag>,
) -> Result<((i32, i32), u64)> {
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
    Ok((split_value(value), solver.nodes))
}
