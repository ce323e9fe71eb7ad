//! Penguin Marathon knowledge for search: how many turns each piece still needs to finish.
//!
//! For every piece kind and every state a piece can be in (waiting, on a cell lying in one of
//! eight facings or upright), the evaluator precomputes the fewest turns that piece needs to
//! cross the finish line on an empty course: a breadth-first search over the piece's own moves,
//! which it learns from the engine itself (a position with that piece alone, and its legal
//! actions). A family needs the sum of its pieces' turns (one piece moves per turn); the family
//! that needs the fewest, counting who moves first, is the likely winner.

use super::{Kind, MarathonGame, MarathonState, Piece, Place, PIECES};
use crate::game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::rng::Rng;
use crate::search::Evaluate;

/// Turns-to-finish of a piece that cannot finish at all (never on a valid course).
const FAR: u8 = 60;

/// Settings of the MarathonGame evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarathonEvalConfig {
    /// How sharply a lead in turns turns into a likely win (softmax temperature inverse).
    pub sharpness: f64,
    /// In playouts, the chance of playing the move that gains the most turns (else random).
    pub greedy: f64,
}

impl Default for MarathonEvalConfig {
    fn default() -> Self {
        MarathonEvalConfig {
            sharpness: 1.0,
            greedy: 0.9,
        }
    }
}

/// The Marathon evaluator. Build one per game (it precomputes the turn tables).
#[derive(Clone, Debug)]
pub struct MarathonEval {
    /// The weights.
    pub config: MarathonEvalConfig,
    /// `dist[kind][code]`: turns to finish from a piece state; `code` is the action's result
    /// encoding (`cell * 9 + facing`, 8 upright; `9 n` finished) and `9 n + 1` for waiting.
    dist: [Vec<u8>; 3],
    cells: usize,
}

impl MarathonEval {
    /// An evaluator for `game`'s course (computes the turn tables).
    pub fn new(game: &MarathonGame, config: MarathonEvalConfig) -> MarathonEval {
        let n = game.course().len();
        let per_kind = 9 * n + 1;
        let finished = 9 * n;
        let waiting = 9 * n + 1;
        let coords = game.course().coords().to_vec();
        let mut dist: [Vec<u8>; 3] = [
            vec![FAR; n * 9 + 2],
            vec![FAR; n * 9 + 2],
            vec![FAR; n * 9 + 2],
        ];
        for kind in Kind::ALL {
            let k = kind.index();
            // Forward edges, learned from the engine.
            let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n * 9 + 2];
            let mut actions = ActionList::new();
            for code in (0..finished).chain([waiting]) {
                let place = if code == waiting {
                    Place::Waiting
                } else {
                    let facing =
                        (code % 9 != 8).then(|| crate::marathon::Dir::from_index(code % 9));
                    Place::OnCourse {
                        cell: coords[code / 9],
                        facing,
                    }
                };
                let pieces = [Piece {
                    owner: 0,
                    kind,
                    place,
                }];
                let Ok(s) = game.position(&pieces, 0, 0) else {
                    continue;
                };
                if s.to_move() != Some(0) {
                    continue;
                }
                game.legal_actions(&s, &mut actions);
                for &a in &actions {
                    let (ak, res) = (a as usize / per_kind, a as usize % per_kind);
                    if ak == k {
                        preds[res].push(code);
                    }
                }
            }
            // Breadth-first from "finished" backwards.
            let d = &mut dist[k];
            d[finished] = 0;
            let mut queue = std::collections::VecDeque::from([finished]);
            while let Some(x) = queue.pop_front() {
                for &y in &preds[x] {
                    if d[y] == FAR {
                        d[y] = d[x] + 1;
                        queue.push_back(y);
                    }
                }
            }
        }
        MarathonEval {
            config,
            dist,
            cells: n,
        }
    }

    /// The state code of a piece (see `dist`).
    fn code(&self, game: &MarathonGame, s: &MarathonState, player: usize, kind: Kind) -> usize {
        match game.place(s, player, kind) {
            Place::Waiting => 9 * self.cells + 1,
            Place::Finished => 9 * self.cells,
            Place::OnCourse { cell, facing } => {
                let c = game.course().cell_at(cell.0, cell.1).unwrap_or(0) as usize;
                c * 9 + facing.map_or(8, |f| f.index())
            }
        }
    }

    /// Turns a piece still needs on an empty course.
    pub fn piece_turns(
        &self,
        game: &MarathonGame,
        s: &MarathonState,
        player: usize,
        kind: Kind,
    ) -> u32 {
        self.dist[kind.index()][self.code(game, s, player, kind)] as u32
    }

    /// Turns `player`'s family still needs on an empty course.
    pub fn family_turns(&self, game: &MarathonGame, s: &MarathonState, player: usize) -> u32 {
        Kind::ALL
            .iter()
            .map(|&k| self.piece_turns(game, s, player, k))
            .sum()
    }

    /// How many turns the move `a` saves its piece (negative if it loses some).
    fn gain(&self, game: &MarathonGame, s: &MarathonState, player: usize, a: Action) -> i32 {
        let per_kind = 9 * self.cells + 1;
        let (k, res) = (a as usize / per_kind, a as usize % per_kind);
        if k >= PIECES {
            return 0;
        }
        let kind = Kind::from_index(k);
        let before = self.dist[k][self.code(game, s, player, kind)] as i32;
        before - self.dist[k][res] as i32
    }
}

impl Evaluate<MarathonGame> for MarathonEval {
    fn evaluate(&self, game: &MarathonGame, s: &MarathonState) -> Returns {
        let n = game.players();
        let mut r = [0.0; MAX_PLAYERS];
        let Some(first) = s.to_move() else {
            return game.returns(s);
        };
        // Effective turns: a player later in the turn order is a fraction of a round behind.
        let mut e = [0.0; MAX_PLAYERS];
        for (p, ep) in e.iter_mut().enumerate().take(n) {
            let offset = (p + n - first) % n;
            *ep = self.family_turns(game, s, p) as f64 + offset as f64 / n as f64;
        }
        let min = e[..n].iter().copied().fold(f64::MAX, f64::min);
        let w: Vec<f64> = e[..n]
            .iter()
            .map(|x| (-(x - min) * self.config.sharpness).exp())
            .collect();
        let sum: f64 = w.iter().sum();
        for p in 0..n {
            let win = w[p] / sum;
            r[p] = (n as f64 * win - 1.0) / (n - 1) as f64;
        }
        r
    }

    fn has_order_hint(&self) -> bool {
        true
    }

    fn order_hint(&self, game: &MarathonGame, s: &MarathonState, action: Action) -> i32 {
        let Some(p) = s.to_move() else { return 0 };
        100 * self.gain(game, s, p, action)
    }

    fn playout(&self, game: &MarathonGame, s: &MarathonState, rng: &mut Rng) -> Returns {
        let mut c = *s;
        let mut actions = ActionList::new();
        while let Some(p) = c.to_move() {
            let a = if rng.unit() < self.config.greedy {
                game.legal_actions(&c, &mut actions);
                let mut best = actions[0];
                let mut best_gain = i32::MIN;
                let mut ties = 0;
                for &a in &actions {
                    let g = self.gain(game, &c, p, a);
                    if g > best_gain {
                        best_gain = g;
                        best = a;
                        ties = 1;
                    } else if g == best_gain {
                        ties += 1;
                        if rng.below(ties) == 0 {
                            best = a;
                        }
                    }
                }
                best
            } else {
                match game.random_action(&c, rng) {
                    Some(a) => a,
                    None => break,
                }
            };
            game.apply(&mut c, a);
        }
        game.returns(&c)
    }
}

impl crate::search::Knowledge for MarathonGame {
    type Eval = MarathonEval;

    /// [`MarathonEval`] with its defaults; without knowledge, or for random playouts, its
    /// playouts are uniformly random (`greedy = 0`).
    fn default_eval(&self, knowledge: bool, playout: crate::search::Playout) -> MarathonEval {
        let mut config = MarathonEvalConfig::default();
        if !knowledge || playout == crate::search::Playout::Random {
            config.greedy = 0.0;
        }
        MarathonEval::new(self, config)
    }

    /// MCTS with the Marathon knowledge (turn counts in playouts, and in priors:
    /// [`Knowledge::auto_selection`]).
    ///
    /// [`Knowledge::auto_selection`]: crate::search::Knowledge::auto_selection
    fn auto_choice(&self) -> crate::search::Choice {
        crate::search::Choice::Mcts
    }

    /// PUCT, each move's prior growing with the turns it saves its piece ([`MarathonEval`]'s
    /// move ordering): with the same playouts it played stronger than UCT selection with 2 to
    /// 5 players.
    fn auto_selection(&self) -> crate::search::mcts::Selection {
        crate::search::mcts::Selection::Puct
    }

    /// 2.0, which beat 0.5 and 1.0 with PUCT selection.
    fn auto_exploration(&self) -> f64 {
        2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_tables_on_the_standard_course() {
        let game = MarathonGame::standard();
        let eval = MarathonEval::new(&game, MarathonEvalConfig::default());
        let s = game.new_state();
        // 12 rows: a baby (3 cells a turn) needs at least 13 / 3 -> 5 turns to cross 13 lines
        // (enter + 12 cells + finish): every kind needs a positive, finite number of turns.
        let mut total = 0;
        for kind in Kind::ALL {
            let t = eval.piece_turns(&game, &s, 0, kind);
            assert!(t > 0 && t < FAR as u32, "{kind:?}: {t}");
            total += t;
        }
        // Mama slides one cell a turn: it needs more turns than the baby.
        assert!(
            eval.piece_turns(&game, &s, 0, Kind::Mama) > eval.piece_turns(&game, &s, 0, Kind::Baby)
        );
        assert_eq!(eval.family_turns(&game, &s, 0), total);
        // At the start the player to move is ahead.
        let r = eval.evaluate(&game, &s);
        assert!(r[0] > 0.0 && (r[0] + r[1]).abs() < 1e-9);
    }

    #[test]
    fn turn_counts_fall_by_at_most_one_per_move_and_reach_zero() {
        // Along any game, a move lowers its piece's count by at most one turn (the table is a
        // true shortest distance), and a finished piece needs zero.
        let game = MarathonGame::standard();
        let eval = MarathonEval::new(&game, MarathonEvalConfig::default());
        let mut rng = Rng::new(4);
        let mut actions = ActionList::new();
        for _ in 0..20 {
            let mut s = game.new_state();
            while let Some(p) = s.to_move() {
                game.legal_actions(&s, &mut actions);
                let a = actions[rng.below(actions.len())];
                let before = eval.family_turns(&game, &s, p);
                game.apply(&mut s, a);
                let after = eval.family_turns(&game, &s, p);
                assert!(after + 1 >= before, "{before} -> {after}");
            }
        }
    }
}
