//! Fish knowledge for search: a heuristic evaluation (score, plus territory by breadth-first
//! fill, plus mobility) over the regions of a position.
//!
//! As floes disappear the board splits into regions (connected groups of floes, occupied ones
//! included). A region that holds the penguins of one player only is that player's alone: nobody
//! else can ever enter it, so what that player collects there does not depend on anything else.
//! Its *haul* (the most fish, then floes, the owner's penguins there can still collect, the floes
//! they stand on included) is exact: the region solver's ([`HaulSolver`], with the regions of a
//! position and their hauls, in [`crate::fish::solver::regions`], re-exported here). When every
//! region has at most one owner, the final result of the game is exact.

pub use crate::fish::solver::regions::{
    exact_scores, pack, unpack, with_haul_solver, with_regions, FishPlanes, FxBuild, FxHasher,
    HaulSolver, Packed, Region, MAX_HAUL_FLOES,
};
use crate::fish::{Bitboard, Direction, FishGame, FishMove, FishState, Phase, Policy, Word};
use crate::game::{returns_from_keys, Action, ActionList, Returns, MAX_PLAYERS};
use crate::rng::Rng;
use crate::search::{Budget, Evaluate, SearchResult, StopFlag};

/// Settings of the heuristic evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FishEvalConfig {
    /// Weight of a contested floe reached first (by breadth-first fill), in fish per fish.
    pub territory: f64,
    /// Weight of each legal move, in fish.
    pub mobility: f64,
    /// A lead of `scale` fish is worth half a win: value = lead / (|lead| + scale).
    pub scale: f64,
    /// Component searches allowed when solving one single-owner region.
    pub haul_limit: u64,
    /// Use exact results of single-owner regions (in the evaluation, as exact leaves, and to
    /// prune moves inside them).
    pub regions: bool,
}

impl Default for FishEvalConfig {
    fn default() -> Self {
        FishEvalConfig {
            territory: 0.8,
            mobility: 0.3,
            scale: 10.0,
            haul_limit: 20_000,
            regions: true,
        }
    }
}

/// The Fish evaluator. Build one per game (it precomputes the board's fish planes).
#[derive(Clone, Debug)]
pub struct FishEval<W: Word = u64> {
    /// The weights and switches.
    pub config: FishEvalConfig,
    planes: FishPlanes<W>,
    /// Random playouts only, no knowledge (the baseline player).
    plain: bool,
}

impl<W: Word> FishEval<W> {
    /// An evaluator for `game`'s board.
    pub fn new(game: &FishGame<W>, config: FishEvalConfig) -> Self {
        FishEval {
            config,
            planes: FishPlanes::new(game.board()),
            plain: false,
        }
    }

    /// An evaluator with no knowledge at all but fast random playouts.
    pub fn plain(game: &FishGame<W>) -> Self {
        let config = FishEvalConfig {
            regions: false,
            territory: 0.0,
            mobility: 0.0,
            ..FishEvalConfig::default()
        };
        FishEval {
            config,
            planes: FishPlanes::new(game.board()),
            plain: true,
        }
    }

    /// The board's fish planes.
    pub fn planes(&self) -> &FishPlanes<W> {
        &self.planes
    }

    /// Each player's estimated final fish: the score, the hauls of the regions the player owns
    /// alone (exact where solved, most of the region where not), the fish under the player's
    /// penguins elsewhere, `territory` times the contested fish the player reaches first and
    /// `mobility` times the player's moves ([`FishEval::terms`], weighed).
    pub fn estimate(&self, game: &FishGame<W>, s: &FishState<W>) -> [f64; 4] {
        self.weigh(game, &self.terms(game, s))
    }

    /// The evaluation ([`Evaluate::evaluate`]) of a state with these [`FishEval::terms`].
    pub fn returns_of_terms(&self, game: &FishGame<W>, terms: &[[f64; TERMS]; 4]) -> Returns {
        if self.plain {
            return [0.0; MAX_PLAYERS];
        }
        let n = game.rules().players();
        returns_of(&self.weigh(game, terms), n, self.config.scale)
    }

    /// The estimate of these terms.
    fn weigh(&self, game: &FishGame<W>, terms: &[[f64; TERMS]; 4]) -> [f64; 4] {
        let mut est = [0.0; 4];
        for (e, t) in est.iter_mut().zip(terms).take(game.rules().players()) {
            // Every term before the weighed ones is a whole number of 2048ths, so these sums
            // are exact whatever their order.
            *e = t[term::SCORE] + t[term::HAUL] + t[term::GUESS] + t[term::UNDER];
            *e += self.config.territory * (t[term::NEAR] + t[term::MID] + t[term::FAR]);
            *e += self.config.mobility * t[term::MOVES];
        }
        est
    }

    /// The terms of [`FishEval::estimate`] per player, unweighed ([`term`] names them): what a
    /// learned evaluation may weigh otherwise. All zero but the score once the game is over;
    /// regions, moves and stuck penguins are counted in the movement phase only.
    pub fn terms(&self, game: &FishGame<W>, s: &FishState<W>) -> [[f64; TERMS]; 4] {
        let board = game.board();
        let n = game.rules().players();
        let phase = game.phase(s);
        let mut terms = [[0.0; TERMS]; 4];
        for (p, t) in terms.iter_mut().enumerate().take(n) {
            t[term::SCORE] = s.fish[p] as f64 + s.taken[p] as f64 / 2048.0;
            if phase == Phase::Placement {
                t[term::UNPLACED] = game.rules().penguins as f64 - s.penguins[p].count() as f64;
            }
        }
        if phase == Phase::Over {
            return terms;
        }
        // Single-owner regions: exact hauls; the rest is contested.
        let mut contested = s.floes;
        if self.config.regions && phase == Phase::Movement {
            with_regions(game, &self.planes, s, self.config.haul_limit, |regions| {
                for r in regions {
                    if let Some(p) = r.owner() {
                        let (which, (f, c)) = match r.haul {
                            Some(h) => (term::HAUL, unpack(h)),
                            // Too large to solve: most of it.
                            None => (
                                term::GUESS,
                                (
                                    (self.planes.fish_on(r.floes) * 4) / 5,
                                    r.floes.count() * 4 / 5,
                                ),
                            ),
                        };
                        terms[p][which] += f as f64 + c as f64 / 2048.0;
                        contested = contested - r.floes;
                    }
                }
            });
        }
        // Penguins in contested regions keep the floes they stand on.
        for (p, t) in terms.iter_mut().enumerate().take(n) {
            t[term::UNDER] = self.planes.fish_on(s.penguins[p] & contested) as f64;
        }
        // Territory: simultaneous breadth-first fill from each player's penguins.
        let empty = s.empty() & contested;
        let mut frontier = [Bitboard::<W>::EMPTY; 4];
        for (f, &penguins) in frontier.iter_mut().zip(&s.penguins).take(n) {
            *f = penguins & contested;
        }
        let mut unclaimed = empty;
        let mut step = 0;
        while unclaimed.any() && frontier.iter().any(|f| f.any()) {
            let mut next = [Bitboard::<W>::EMPTY; 4];
            let mut all = Bitboard::<W>::EMPTY;
            let mut twice = Bitboard::<W>::EMPTY;
            for p in 0..n {
                next[p] = board.neighbours(frontier[p]) & unclaimed;
                twice |= all & next[p];
                all |= next[p];
            }
            let which = [term::NEAR, term::MID, term::FAR][step.min(2)];
            for (p, t) in terms.iter_mut().enumerate().take(n) {
                let shared = self.planes.fish_on(next[p] & twice) as f64;
                t[which] += self.planes.fish_on(next[p] - twice) as f64 + 0.5 * shared;
                t[term::SHARED] += shared;
            }
            unclaimed = unclaimed - all;
            frontier = next;
            step += 1;
        }
        if phase == Phase::Movement {
            for (t, &penguins) in terms.iter_mut().zip(&s.penguins).take(n) {
                for from in penguins & contested {
                    let moves: u32 = Direction::ALL
                        .iter()
                        .map(|&dir| board.slide(from, dir, empty).count())
                        .sum();
                    t[term::MOVES] += moves as f64;
                    t[term::STUCK] += (moves == 0) as u32 as f64;
                }
            }
        }
        terms
    }
}

/// How many terms [`FishEval::terms`] gives a player.
pub const TERMS: usize = 11;

/// The index of each of [`FishEval::terms`]' terms.
pub mod term {
    /// Fish so far (and floes, in 2048ths).
    pub const SCORE: usize = 0;
    /// The solved hauls of the regions the player owns alone (fish, and floes in 2048ths).
    pub const HAUL: usize = 1;
    /// Four fifths of the fish and floes of the player's own regions too large to solve.
    pub const GUESS: usize = 2;
    /// The fish under the player's penguins in contested regions.
    pub const UNDER: usize = 3;
    /// Contested fish the player reaches first, one step from a penguin (half a fish for a
    /// floe reached at the same step as another player)...
    pub const NEAR: usize = 4;
    /// ... two steps ...
    pub const MID: usize = 5;
    /// ... and three or more.
    pub const FAR: usize = 6;
    /// Contested fish the player reaches at the same step as another player (counted whole).
    pub const SHARED: usize = 7;
    /// The player's legal moves in contested regions.
    pub const MOVES: usize = 8;
    /// The player's penguins in contested regions that cannot move.
    pub const STUCK: usize = 9;
    /// Penguins the player has still to place.
    pub const UNPLACED: usize = 10;
}

/// Returns from estimated final scores: the mean over opponents of `d / (|d| + scale)`, `d` the
/// lead over that opponent (zero-sum, in `(-1, 1)`).
fn returns_of(est: &[f64; 4], n: usize, scale: f64) -> Returns {
    let mut r = [0.0; MAX_PLAYERS];
    for p in 0..n {
        for q in 0..n {
            if p != q {
                let d = est[p] - est[q];
                r[p] += d / (d.abs() + scale);
            }
        }
        r[p] /= (n - 1) as f64;
    }
    r
}

impl<W: Word> Evaluate<FishGame<W>> for FishEval<W> {
    /// The exact solver ([`FishGame::solve_search`], in `solve_search.rs`).
    fn solve(
        &self,
        game: &FishGame<W>,
        s: &FishState<W>,
        budget: &Budget,
        stop: &StopFlag,
    ) -> Option<crate::error::Result<SearchResult>> {
        Some(game.solve_search(s, budget, stop))
    }

    fn evaluate(&self, game: &FishGame<W>, s: &FishState<W>) -> Returns {
        if self.plain {
            return [0.0; MAX_PLAYERS];
        }
        self.returns_of_terms(game, &self.terms(game, s))
    }

    fn exact(&self, game: &FishGame<W>, s: &FishState<W>) -> Option<Returns> {
        if !self.config.regions {
            return None;
        }
        let scores = exact_scores(game, &self.planes, s, self.config.haul_limit)?;
        let n = game.rules().players();
        Some(returns_from_keys(&scores[..n]))
    }

    fn has_order_hint(&self) -> bool {
        !self.plain
    }

    fn order_hint(&self, game: &FishGame<W>, s: &FishState<W>, action: Action) -> i32 {
        let board = game.board();
        match game.move_of(action) {
            None => 0,
            Some(FishMove::Place(cell)) => {
                let room = board.adjacent(cell) & s.empty();
                20 * self.planes.fish_on(room) as i32
            }
            Some(FishMove::Slide(_, to)) => {
                // Fish on the landing floe, and room around it.
                let room = board.adjacent(to) & s.empty();
                100 * board.fish(to) as i32 + 10 * self.planes.fish_on(room) as i32
            }
        }
    }

    fn prune_actions(&self, game: &FishGame<W>, s: &FishState<W>, actions: &mut ActionList) {
        if !self.config.regions || game.phase(s) != Phase::Movement || actions.len() < 2 {
            return;
        }
        let Some(p) = s.to_move() else { return };
        let board = game.board();
        // The player's own regions: keep one optimal move from one of them (all their moves
        // there are independent of everything else), and every move elsewhere.
        let others = s.occupied() - s.penguins[p];
        let mut own = Bitboard::<W>::EMPTY;
        let mut rest = s.penguins[p];
        while let Some(c) = rest.first() {
            let region = board.fill(Bitboard::from_cell(c), s.floes);
            rest = rest - region;
            if !region.intersects(others) {
                own |= region;
            }
        }
        if own.is_empty() {
            return;
        }
        let mut keep = None;
        let mut rest = s.penguins[p] & own;
        while let Some(c) = rest.first() {
            let region = board.fill(Bitboard::from_cell(c), s.floes);
            rest = rest - region;
            let pens = s.penguins[p] & region;
            if let Some((from, to)) = with_haul_solver(|h| {
                h.best_move(board, &self.planes, region, pens, self.config.haul_limit)
            }) {
                keep = game.action_of(FishMove::Slide(from, to));
                break;
            }
            // Unsolved or stuck: keep its moves as they are.
            own = own - region;
        }
        let Some(keep) = keep else { return };
        actions.retain(|a| match game.move_of(*a) {
            Some(FishMove::Slide(from, _)) => !own.contains(from) || *a == keep,
            _ => true,
        });
        if actions.is_empty() {
            actions.push(keep);
        }
    }

    fn playout(&self, game: &FishGame<W>, s: &FishState<W>, rng: &mut Rng) -> Returns {
        game.returns_of(&game.playout_scores(s, rng, Policy::Fast))
    }
}

impl<W: Word> crate::search::Knowledge for FishGame<W> {
    type Eval = FishEval<W>;

    /// [`FishEval::new`] with its defaults, or [`FishEval::plain`]. Fish playouts use the
    /// fast policy whatever `playout` asks.
    fn default_eval(&self, knowledge: bool, _playout: crate::search::Playout) -> FishEval<W> {
        if knowledge {
            FishEval::new(self, FishEvalConfig::default())
        } else {
            FishEval::plain(self)
        }
    }

    /// Alpha-beta with 2 players; with 3 or 4, MCTS valuing its leaves by the evaluation
    /// ([`Knowledge::auto_leaf`]), in which each player picks what is best for itself (the
    /// *max^n* backup) where paranoid alpha-beta has every opponent play against the root
    /// player: it measured stronger (`docs/strength.md`).
    ///
    /// [`Knowledge::auto_leaf`]: crate::search::Knowledge::auto_leaf
    fn auto_choice(&self) -> crate::search::Choice {
        if self.rules().players() > 2 {
            crate::search::Choice::Mcts
        } else {
            crate::search::Choice::AlphaBeta
        }
    }

    /// The evaluation, no playout: it knows the regions and the territory a playout only
    /// samples.
    fn auto_leaf(&self) -> crate::search::mcts::Leaf {
        crate::search::mcts::Leaf::Evaluate
    }

    /// 0.5, which beat 1.0 and 2.0 with 3 and 4 players (values of leaves are the
    /// evaluation's, in (-1, 1)).
    fn auto_exploration(&self) -> f64 {
        0.5
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fish::{Board, Rules};
    use crate::game::Game;

    /// A random `rows` x `cols` board (a fifth of the cells water, 1 to 3 fish on the others)
    /// and `players` players' `penguins` each placed at random.
    pub(crate) fn small_game(
        rng: &mut Rng,
        rows: usize,
        cols: usize,
        players: usize,
        penguins: usize,
    ) -> (FishGame, FishState) {
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| {
                        if rng.below(5) == 0 {
                            0
                        } else {
                            1 + rng.below(3) as u8
                        }
                    })
                    .collect()
            })
            .collect();
        let rules = Rules::new(
            players,
            Some(penguins),
            crate::fish::Placement::Any,
            crate::fish::Order::RoundRobin,
        )
        .unwrap();
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        while game.phase(&s) == Phase::Placement {
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        (game, s)
    }

    #[test]
    fn solved_positions_play_the_best_haul() {
        // Player 0 alone on [1, 2, 3]: sliding east collects 2 + 3, west only 2 + 1; player 1 has
        // its own two floes. Both moves win, but the searches must take the larger haul.
        let grid = vec![vec![1, 2, 3, 0, 1, 1]];
        let game: FishGame = FishGame::new(
            Rules::standard(2).unwrap(),
            Board::from_grid(&grid).unwrap(),
        );
        let s = game
            .position(&[vec![(0, 1)], vec![(0, 4)]], 0, None)
            .unwrap();
        let eval = FishEval::new(&game, FishEvalConfig::default());
        let east = game
            .action_of(FishMove::Slide(
                game.board().cell(0, 1).unwrap(),
                game.board().cell(0, 2).unwrap(),
            ))
            .unwrap();
        let budget = crate::search::Budget::iterations(100);
        let r = crate::search::mcts::Mcts::new(Default::default())
            .search(&game, &eval, &s, &budget, Default::default())
            .unwrap();
        assert!(r.exact && r.value == 1.0 && r.best == east, "{r:?}");
        let r = crate::search::alphabeta::AlphaBeta::new(Default::default())
            .search(
                &game,
                &eval,
                &s,
                &crate::search::Budget::depth(4),
                Default::default(),
            )
            .unwrap();
        assert!(r.exact && r.value == 1.0 && r.best == east, "{r:?}");
        let mut pruned = ActionList::new();
        game.legal_actions(&s, &mut pruned);
        assert_eq!(pruned.len(), 2);
        eval.prune_actions(&game, &s, &mut pruned);
        assert_eq!(pruned.as_slice(), &[east]);
    }

    #[test]
    fn fast_playouts_end_games_legally() {
        // The final scores of a fast playout are those of a game that the engine can play:
        // replaying the same random choices is not possible, so check invariants instead: the
        // game is over, every player's fish and floes only grew, the floes taken never exceed
        // the floes in play, and no more fish were taken than the board held.
        let mut rng = Rng::new(9);
        for seed in 0..200 {
            let game: FishGame = FishGame::new(
                Rules::standard(2 + seed as usize % 3).unwrap(),
                Board::standard(seed),
            );
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            for _ in 0..rng.below(40) {
                if game.is_over(&s) {
                    break;
                }
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            let before = s;
            let mut c = s;
            game.random_playout_with(&mut c, &mut rng, Policy::Fast);
            assert_eq!(c.to_move(), None);
            assert!(
                game.returns(&c)[..game.num_players()]
                    .iter()
                    .sum::<f64>()
                    .abs()
                    < 1e-9
            );
            let n = game.num_players();
            let taken: u32 = (0..n).map(|p| (c.taken[p] - before.taken[p]) as u32).sum();
            let fish: u32 = (0..n).map(|p| (c.fish[p] - before.fish[p]) as u32).sum();
            assert!(taken <= before.floes.count());
            assert!(fish <= FishPlanes::new(game.board()).fish_on(before.floes));
            if !game.is_over(&before) && game.phase(&before) == Phase::Movement {
                // Every penguin's floe is kept in the end.
                assert!(taken >= before.occupied().count());
            }
        }
    }

    #[test]
    fn evaluation_is_zero_sum_and_prefers_the_leader() {
        let mut rng = Rng::new(3);
        let game: FishGame = FishGame::new(Rules::standard(2).unwrap(), Board::standard(1));
        let eval = FishEval::new(&game, FishEvalConfig::default());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        while !game.is_over(&s) {
            let r = eval.evaluate(&game, &s);
            assert!((r[0] + r[1]).abs() < 1e-9 && r[0].abs() < 1.0);
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let mut t = game.initial_state();
        while game.phase(&t) == Phase::Placement {
            game.legal_actions(&t, &mut actions);
            game.apply(&mut t, actions[0]);
        }
        let mut lead = t;
        lead.fish[0] += 10;
        assert!(eval.evaluate(&game, &lead)[0] > eval.evaluate(&game, &t)[0] + 0.1);
    }

    #[test]
    fn threads_agree_on_solved_fish_endgames() {
        use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
        use crate::search::{Budget, NoEval, StopFlag};
        let mut rng = Rng::new(8);
        let mut solved = 0;
        while solved < 20 {
            let (game, s) = small_game(&mut rng, 3, 4, 2, 2);
            let mut actions = ActionList::new();
            // A lone move is played without search (and without proof).
            game.legal_actions(&s, &mut actions);
            if actions.len() < 2 {
                continue;
            }
            let value = |threads| {
                let mut searcher = AlphaBeta::new(AlphaBetaConfig {
                    tt_mb: 1,
                    threads,
                    ..Default::default()
                });
                let r = searcher
                    .search(&game, &NoEval, &s, &Budget::depth(40), StopFlag::new())
                    .unwrap();
                assert!(r.exact && game.is_legal(&s, r.best), "{r:?}");
                r.value
            };
            assert_eq!(value(1), value(2), "{:?} {s:?}", game.board());
            solved += 1;
        }
    }

    #[test]
    fn a_full_search_without_evaluation_keys_positions_by_their_scores() {
        // The Fish hash leaves the scores out: a table keyed by it alone gave positions reached
        // with other scores each other's values. Both searches below are exact.
        use crate::search::alphabeta::AlphaBeta;
        use crate::search::{Budget, NoEval, StopFlag};
        let mut rng = Rng::new(21);
        for _ in 0..60 {
            let (game, s) = small_game(&mut rng, 3, 5, 2, 1);
            let mut actions = ActionList::new();
            game.legal_actions(&s, &mut actions);
            // A lone move is played without search (and without proof).
            if actions.len() < 2 {
                continue;
            }
            let value = |eval: &dyn Fn(&mut AlphaBeta) -> crate::search::SearchResult| {
                let mut searcher = AlphaBeta::new(Default::default());
                let r = eval(&mut searcher);
                assert!(r.exact, "{r:?}");
                r.value
            };
            let budget = Budget::depth(40);
            let plain = value(&|ab| {
                ab.search(&game, &NoEval, &s, &budget, StopFlag::new())
                    .unwrap()
            });
            let eval = FishEval::new(&game, FishEvalConfig::default());
            let full = value(&|ab| {
                ab.search(&game, &eval, &s, &budget, StopFlag::new())
                    .unwrap()
            });
            assert_eq!(plain, full, "{:?} {s:?}", game.board());
        }
    }
}
