//! The algorithms by name, after lc0's `register.h`: every name a front end's `algorithm` takes,
//! the budget a search gets when none is given, and the default settings. The engine owns
//! them, so the bindings (and through them `pingvinas.search.ALGORITHMS`) only ask.

use super::alphabeta::AlphaBetaConfig;
use super::mcts::{Leaf, MctsConfig, Selection, DEFAULT_MEMORY_MB};
use super::puct::{PuctConfig, RootRule};
use super::{Budget, Choice, Knowledge, Playout, Searcher};
use crate::error::invalid;
use crate::error::{quote, Result};

/// What `algorithm` names: `"auto"`, one of the engine's own algorithms ([`Choice`]), or PUCT
/// (which needs an outside evaluator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// The game's choice ([`Knowledge::auto_choice`]).
    Auto,
    /// One of the engine's own algorithms.
    Fixed(Choice),
    /// PUCT with an evaluator ([`super::puct`]).
    Puct,
}

impl Algorithm {
    /// Every name, `"auto"` first, `"puct"` (which needs an evaluator) last.
    pub const NAMES: [&'static str; 7] = [
        "auto",
        "mcts",
        "alphabeta",
        "greedy",
        "random",
        "solve",
        "puct",
    ];

    /// The algorithm of a name ([`Choice::parse`]'s aliases included).
    ///
    /// # Errors
    /// `Error::Invalid` naming every algorithm, for any other text.
    pub fn parse(text: &str) -> Result<Algorithm> {
        match text {
            "auto" => Ok(Algorithm::Auto),
            "puct" => Ok(Algorithm::Puct),
            _ => match Choice::parse(text) {
                Ok(c) => Ok(Algorithm::Fixed(c)),
                Err(_) => invalid!(
                    "algorithm = {}: expected one of {}",
                    quote(text),
                    Self::NAMES.join(", ")
                ),
            },
        }
    }

    /// The engine algorithm it runs in `game` (PUCT, searched apart, has MCTS as its kin).
    pub fn choice<G: Knowledge>(self, game: &G) -> Choice {
        match self {
            Algorithm::Auto => game.auto_choice(),
            Algorithm::Fixed(c) => c,
            Algorithm::Puct => Choice::Mcts,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Fixed(c) => c.name(),
            Algorithm::Puct => "puct",
        }
    }
}

/// The budget of a search: as given, or one second when none is given to an algorithm that
/// needs one (greedy and random look one ply ahead and need none). Whether the algorithm can
/// honour it is [`super::check_start`]'s check.
pub fn default_budget(choice: Choice, budget: Budget) -> Budget {
    let given = budget.time.is_some()
        || budget.iterations.is_some()
        || budget.nodes.is_some()
        || budget.depth.is_some();
    match choice {
        Choice::Mcts | Choice::AlphaBeta if !given => Budget::time(1.0),
        _ => budget,
    }
}

/// The settings of a search player, every front end's defaults in [`Settings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Search threads.
    pub threads: usize,
    /// The seed of playouts and tie-breaks.
    pub seed: u64,
    /// The exploration constant; `None`: MCTS's 1.0, PUCT's [`PuctConfig`] default.
    pub exploration: Option<f64>,
    /// MCTS's child selection.
    pub selection: Selection,
    /// How MCTS values leaves.
    pub playout: Playout,
    /// Whether the game's knowledge is used ([`Knowledge::default_eval`]).
    pub knowledge: bool,
    /// The alpha-beta transposition table, in MiB.
    pub tt_mb: usize,
    /// The most memory a search tree takes, in MiB.
    pub memory_mb: usize,
    /// Whether trees are kept between moves.
    pub reuse: bool,
    /// PUCT leaves per evaluator call.
    pub batch_size: usize,
    /// PUCT's root noise: `(alpha, fraction)`.
    pub dirichlet: Option<(f64, f64)>,
    /// How PUCT picks the root's children.
    pub root: RootRule,
    /// PUCT's share of a leaf's value taken from a playout ([`PuctConfig::playout_mix`]).
    pub playout_mix: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            algorithm: Algorithm::Auto,
            threads: 1,
            seed: 0,
            exploration: None,
            selection: Selection::Uct,
            playout: Playout::Auto,
            knowledge: true,
            tt_mb: 64,
            memory_mb: DEFAULT_MEMORY_MB,
            reuse: true,
            batch_size: 16,
            dirichlet: None,
            root: RootRule::Puct,
            playout_mix: 0.0,
        }
    }
}

impl Settings {
    /// PUCT's settings.
    pub fn puct(&self) -> PuctConfig {
        PuctConfig {
            exploration: self
                .exploration
                .unwrap_or(PuctConfig::default().exploration),
            batch_size: self.batch_size,
            dirichlet: self.dirichlet,
            reuse: self.reuse,
            memory_mb: self.memory_mb,
            root: self.root,
            playout_mix: self.playout_mix,
        }
    }

    /// A searcher of `game` running `choice` with these settings; `"auto"` with the game's
    /// knowledge selects MCTS children as the game says ([`Knowledge::auto_selection`]), with
    /// its exploration constant unless one is given ([`Knowledge::auto_exploration`]) and its
    /// leaf values unless a playout is named ([`Knowledge::auto_leaf`]).
    pub fn searcher_for<G: Knowledge>(&self, game: &G, choice: Choice) -> Searcher<G::State>
    where
        G::State: Copy + PartialEq + Send,
    {
        if self.algorithm == Algorithm::Auto && self.knowledge {
            Settings {
                selection: game.auto_selection(),
                exploration: self.exploration.or(Some(game.auto_exploration())),
                playout: match (self.playout, game.auto_leaf()) {
                    (Playout::Auto, Leaf::Evaluate) => Playout::Evaluate,
                    (playout, _) => playout,
                },
                ..self.clone()
            }
            .searcher(choice)
        } else {
            self.searcher(choice)
        }
    }

    /// A searcher running `choice` with these settings.
    pub fn searcher<S: Copy + PartialEq + Send>(&self, choice: Choice) -> Searcher<S> {
        Searcher::new(
            choice,
            MctsConfig {
                exploration: self.exploration.unwrap_or(1.0),
                selection: self.selection,
                leaf: if self.playout == Playout::Evaluate {
                    Leaf::Evaluate
                } else {
                    Leaf::Playout
                },
                threads: self.threads,
                reuse: self.reuse,
                expand_after: 1,
                seed: self.seed,
                memory_mb: self.memory_mb,
            },
            AlphaBetaConfig {
                tt_mb: self.tt_mb,
                threads: self.threads,
                ..AlphaBetaConfig::default()
            },
        )
    }
}
