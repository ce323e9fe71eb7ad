//! Search, written once against [`crate::game::Game`]: Monte Carlo tree search for any number of players
//! ([`mcts`]) and alpha-beta for two (paranoid for more) ([`alphabeta`]). A game may supply an
//! [`Evaluate`] implementation (a heuristic value, an exact value for solved positions, a move
//! ordering hint and a playout policy); [`NoEval`] works for every game.
//!
//! Values are *returns* as [`Game::returns`] defines them: per player, in `[-1, 1]`, zero-sum.

pub mod agent;
pub mod algorithms;
pub mod alphabeta;
mod arenas;
pub mod budget;
pub mod forest;
pub mod gumbel;
pub mod mcts;
pub mod puct;
mod tree;
pub mod tt;

#[cfg(test)]
pub(crate) mod toys;

use std::time::Duration;

use crate::error::invalid;
use crate::error::Result;
use crate::game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::rng::Rng;

pub use budget::{Budget, Clock, Pacer, StopFlag};
use mcts::{Leaf, Selection};

/// What a game knows about its positions beyond the rules. Every method has a default, so
/// `impl Evaluate<MyGame> for MyEval {}` is a valid (if uninformed) evaluator.
pub trait Evaluate<G: Game>: Sync + Send {
    /// An estimate of the final returns of a position that is not over, each in `[-1, 1]`.
    /// The default knows nothing: zeros.
    fn evaluate(&self, _game: &G, _state: &G::State) -> Returns {
        [0.0; MAX_PLAYERS]
    }

    /// The exact final returns of a position that is not over, when they are known without
    /// search (a solved endgame). Search then treats the position as a leaf with this value.
    fn exact(&self, _game: &G, _state: &G::State) -> Option<Returns> {
        None
    }

    /// A move ordering hint: actions with larger hints are tried first by alpha-beta, and MCTS
    /// uses them as tie-breakers among unvisited children.
    fn order_hint(&self, _game: &G, _state: &G::State, _action: Action) -> i32 {
        0
    }

    /// True when [`Evaluate::order_hint`] is worth calling.
    fn has_order_hint(&self) -> bool {
        false
    }

    /// Removes moves that need no search from a (not finished) position's legal actions, for
    /// example all but one move inside a region that one player owns alone. Must leave at
    /// least one action. The default keeps every action.
    fn prune_actions(&self, _game: &G, _state: &G::State, _actions: &mut ActionList) {}

    /// The key of a position for transposition tables: it must tell apart positions whose
    /// values differ. The default is [`Game::search_key`].
    fn key(&self, game: &G, state: &G::State) -> u64 {
        game.search_key(state)
    }

    /// Plays a position to the end and returns the final returns. The default plays uniformly
    /// random legal moves; a game may override it with a faster or smarter policy.
    fn playout(&self, game: &G, state: &G::State, rng: &mut Rng) -> Returns {
        random_playout(game, state, rng)
    }

    /// The `solve` player's search: the position solved exactly within `budget` (nodes and
    /// time), its result `exact`. `None` (the default) for a game without an exact solver.
    fn solve(
        &self,
        _game: &G,
        _state: &G::State,
        _budget: &Budget,
        _stop: &StopFlag,
    ) -> Option<Result<SearchResult>> {
        None
    }
}

/// The evaluator that knows nothing: alpha-beta sees only finished games, MCTS plays random
/// playouts.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEval;

impl<G: Game> Evaluate<G> for NoEval {}

/// Plays uniformly random legal actions until the game is over; returns its returns.
pub fn random_playout<G: Game>(game: &G, state: &G::State, rng: &mut Rng) -> Returns {
    let mut s = *state;
    let mut actions = ActionList::new();
    while !game.is_over(&s) {
        actions.clear();
        game.legal_actions(&s, &mut actions);
        let a = actions[rng.below(actions.len())];
        game.apply(&mut s, a);
    }
    game.returns(&s)
}

/// Which search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Monte Carlo tree search ([`mcts`]).
    Mcts,
    /// Alpha-beta ([`alphabeta`]).
    AlphaBeta,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play.
    pub best: Action,
    /// Its value for the player to move, in `[-1, 1]` (MCTS: mean playout return; alpha-beta:
    /// the minimax value, heuristic unless `exact`).
    pub value: f64,
    /// The expected line of play, starting with `best`.
    pub pv: Vec<Action>,
    /// MCTS: tree nodes created; alpha-beta: positions visited.
    pub nodes: u64,
    /// MCTS: iterations (playouts); alpha-beta: 0.
    pub iterations: u64,
    /// Alpha-beta: the last completed iteration depth; MCTS: the depth of the deepest leaf.
    pub depth: u32,
    /// Wall-clock time the search took.
    pub elapsed: Duration,
    /// MCTS: visit count of each root action (ascending action order); alpha-beta: empty.
    pub visits: Vec<(Action, u64)>,
    /// True when `value` is proven (a forced result found by alpha-beta or a solved root).
    pub exact: bool,
    /// True when the stop flag ended the search before its budget.
    pub interrupted: bool,
}

/// Checks that a search can start from `state` with `budget`.
///
/// # Errors
/// `Error::Invalid` when the game is over or the budget cannot end the search.
pub fn check_start<G: Game>(
    game: &G,
    state: &G::State,
    budget: &Budget,
    algorithm: Algorithm,
) -> Result<usize> {
    let Some(player) = game.to_move(state) else {
        return invalid!("cannot search a finished game");
    };
    if algorithm == Algorithm::Mcts && budget.is_unbounded() {
        return invalid!(
            "an MCTS search needs a time, iteration or node budget (MCTS does not count depth)"
        );
    }
    if algorithm == Algorithm::AlphaBeta
        && budget.time.is_none()
        && budget.nodes.is_none()
        && budget.depth.is_none()
    {
        return if budget.iterations.is_some() {
            invalid!(
                "alpha-beta counts nodes and depth, not iterations: give time, nodes or depth \
                 (or use MCTS, which counts iterations)"
            )
        } else {
            invalid!("an alpha-beta search needs a time, depth or node budget")
        };
    }
    Ok(player)
}

/// The algorithms a [`Searcher`] can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Monte Carlo tree search ([`mcts`]).
    Mcts,
    /// Alpha-beta with iterative deepening ([`alphabeta`]).
    AlphaBeta,
    /// One ply: the move with the largest [`Evaluate::order_hint`], ties broken at random.
    Greedy,
    /// A uniformly random legal move.
    Random,
    /// The exact solver, for positions small enough ([`Evaluate::solve`]: Fish only).
    Solve,
}

/// What a game brings to search by default, implemented beside its evaluation (`fish/eval.rs`,
/// `marathon/eval.rs`): every front end (bindings, vector env, self-play) asks here rather
/// than naming a game's evaluator.
pub trait Knowledge: Game + Sized {
    /// The game's evaluation.
    type Eval: Evaluate<Self> + 'static;

    /// The evaluation search uses: with the game's knowledge, or without it (plain MCTS);
    /// `playout` is the leaf setting it serves (a game may drop knowledge from random
    /// playouts).
    fn default_eval(&self, knowledge: bool, playout: Playout) -> Self::Eval;

    /// The algorithm `"auto"` stands for in this game: the one measured strongest at short
    /// times per move (README, "Strength"), with [`Knowledge::default_eval`]; it may depend on
    /// the players.
    fn auto_choice(&self) -> Choice;

    /// How `"auto"` selects children when it runs MCTS ([`Knowledge::auto_choice`]).
    fn auto_selection(&self) -> Selection {
        Selection::Uct
    }

    /// The exploration constant of `"auto"`'s MCTS when none is given (MCTS's own: 1.0).
    fn auto_exploration(&self) -> f64 {
        1.0
    }

    /// How `"auto"`'s MCTS values a leaf when no playout setting is given (MCTS's own: a
    /// playout).
    fn auto_leaf(&self) -> Leaf {
        Leaf::Playout
    }
}

/// How MCTS values a leaf, as a front end names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Playout {
    /// The game's own playout policy.
    #[default]
    Auto,
    /// Random playouts.
    Random,
    /// No playout: the evaluation's value ([`mcts::Leaf::Evaluate`]).
    Evaluate,
}

crate::names::named_enum!(Playout {
    Auto => "auto",
    Random => "random",
    Evaluate => "evaluate",
});

crate::names::named_enum!(Choice {
    Mcts => "mcts",
    AlphaBeta => "alphabeta",
    Greedy => "greedy",
    Random => "random",
    Solve => "solve",
});

impl Choice {
    /// The algorithm of a name: one of [`Choice::NAMES`], or `"alpha-beta"` and `"ab"` for
    /// `"alphabeta"`.
    ///
    /// # Errors
    /// `Error::Invalid` for any other name.
    pub fn parse(text: &str) -> Result<Choice> {
        match text {
            "alpha-beta" | "ab" => Ok(Choice::AlphaBeta),
            _ => text.parse().map_err(|_| {
                crate::error::Error::Invalid(format!(
                    "algorithm = {}: expected \"mcts\", \"alphabeta\", \"greedy\", \"random\", \
                     \"solve\" or \"auto\"",
                    crate::error::quote(text)
                ))
            }),
        }
    }
}

crate::names::named_enum!(Selection {
    Uct => "uct",
    Puct => "puct",
});

crate::names::named_enum!(Leaf {
    Playout => "playout",
    Evaluate => "evaluate",
});

/// A player that keeps its search state (MCTS trees, the transposition table) between moves.
pub struct Searcher<S> {
    /// The algorithm it runs.
    pub choice: Choice,
    mcts: mcts::Mcts<S>,
    ab: Option<alphabeta::AlphaBeta>,
    ab_config: alphabeta::AlphaBetaConfig,
    rng: Rng,
}

impl<S: Copy + PartialEq + Send> Searcher<S> {
    /// A player running `choice`, with these settings for MCTS and alpha-beta (the alpha-beta
    /// table is allocated on its first search).
    pub fn new(
        choice: Choice,
        mcts: mcts::MctsConfig,
        ab: alphabeta::AlphaBetaConfig,
    ) -> Searcher<S> {
        Searcher {
            choice,
            rng: Rng::new(mcts.seed),
            mcts: mcts::Mcts::new(mcts),
            ab: None,
            ab_config: ab,
        }
    }

    /// Reseeds the random choices of greedy and random play (MCTS seeds each search from its
    /// settings).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// Forgets the trees and the transposition table.
    pub fn clear(&mut self) {
        self.mcts.clear();
        if let Some(ab) = &mut self.ab {
            ab.clear();
        }
    }

    /// Searches `state` with the chosen algorithm (greedy and random ignore the budget but
    /// still check it).
    ///
    /// # Errors
    /// `Error::Invalid` for a finished game or an unusable budget.
    pub fn search<G: Game<State = S>, E: Evaluate<G>>(
        &mut self,
        game: &G,
        eval: &E,
        state: &S,
        budget: &Budget,
        stop: StopFlag,
    ) -> Result<SearchResult> {
        match self.choice {
            Choice::Mcts => self.mcts.search(game, eval, state, budget, stop),
            Choice::AlphaBeta => {
                let config = self.ab_config;
                self.ab
                    .get_or_insert_with(|| alphabeta::AlphaBeta::new(config))
                    .search(game, eval, state, budget, stop)
            }
            Choice::Solve => match eval.solve(game, state, budget, &stop) {
                Some(result) => result,
                None => invalid!(
                    "algorithm \"solve\" needs a game with an exact solver (Fish) and its own \
                     evaluation"
                ),
            },
            Choice::Greedy | Choice::Random => {
                check_start(game, state, &Budget::iterations(1), Algorithm::Mcts)?;
                let clock = Clock::start(budget, stop);
                let mut actions = ActionList::new();
                game.legal_actions(state, &mut actions);
                let best = if self.choice == Choice::Random {
                    actions[self.rng.below(actions.len())]
                } else {
                    let mut best = actions[0];
                    let mut best_hint = i32::MIN;
                    let mut ties = 0;
                    for &a in &actions {
                        let h = eval.order_hint(game, state, a);
                        if h > best_hint {
                            (best, best_hint, ties) = (a, h, 1);
                        } else if h == best_hint {
                            ties += 1;
                            if self.rng.below(ties) == 0 {
                                best = a;
                            }
                        }
                    }
                    best
                };
                Ok(SearchResult {
                    best,
                    value: 0.0,
                    pv: vec![best],
                    nodes: 1,
                    iterations: 0,
                    depth: 1,
                    elapsed: clock.elapsed(),
                    visits: Vec::new(),
                    exact: false,
                    interrupted: false,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::alphabeta::AlphaBetaConfig;
    use crate::search::mcts::MctsConfig;
    use crate::search::toys::{Nim, NimState};

    /// Hints that prefer leaving a multiple of four stones (the winning Nim move).
    struct NimHints;
    impl Evaluate<Nim> for NimHints {
        fn has_order_hint(&self) -> bool {
            true
        }
        fn order_hint(&self, _g: &Nim, s: &NimState, a: Action) -> i32 {
            ((s.stones - a - 1) % 4 == 0) as i32
        }
    }

    fn searcher(choice: Choice, seed: u64) -> Searcher<NimState> {
        Searcher::new(
            choice,
            MctsConfig {
                seed,
                ..Default::default()
            },
            AlphaBetaConfig {
                tt_mb: 1,
                ..Default::default()
            },
        )
    }

    #[test]
    fn greedy_follows_the_hint_and_random_varies() {
        let nim = Nim { players: 2 };
        for stones in [5, 6, 7, 9] {
            let r = searcher(Choice::Greedy, 1)
                .search(
                    &nim,
                    &NimHints,
                    &nim.start(stones),
                    &Budget::iterations(1),
                    StopFlag::new(),
                )
                .unwrap();
            assert_eq!(r.best + 1, stones % 4);
        }
        let mut s = searcher(Choice::Random, 3);
        let picks: std::collections::BTreeSet<Action> = (0..50)
            .map(|_| {
                s.search(
                    &nim,
                    &NoEval,
                    &nim.start(10),
                    &Budget::iterations(1),
                    StopFlag::new(),
                )
                .unwrap()
                .best
            })
            .collect();
        assert_eq!(picks.into_iter().collect::<Vec<_>>(), vec![0, 1, 2]);
        assert!(s
            .search(
                &nim,
                &NoEval,
                &nim.start(0),
                &Budget::iterations(1),
                StopFlag::new()
            )
            .is_err());
    }

    #[test]
    fn searcher_runs_each_algorithm() {
        let nim = Nim { players: 2 };
        for choice in [Choice::Mcts, Choice::AlphaBeta] {
            let r = searcher(choice, 2)
                .search(
                    &nim,
                    &NoEval,
                    &nim.start(7),
                    &Budget {
                        iterations: Some(5000),
                        depth: Some(12),
                        ..Budget::default()
                    },
                    StopFlag::new(),
                )
                .unwrap();
            assert_eq!(r.best, 2, "{choice:?}");
            assert_eq!(Choice::parse(choice.name()).unwrap(), choice);
        }
        assert!(Choice::parse("minimax").is_err());
    }
}
