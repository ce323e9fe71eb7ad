//! What a vector env is made from: where its games come from ([`Source`]), what a step rewards
//! ([`Reward`]), and single-agent mode's opponent and learner ([`Options`]).

use std::sync::Arc;

use crate::search::agent::AgentMaker;
use crate::search::{Knowledge, Playout};

/// Where each game's rules (and board) come from.
pub enum Source<G> {
    /// The same game for every env and every game.
    Fixed(Arc<G>),
    /// A game per new game, from its seed (Fish dealing a standard board).
    Deal(Arc<dyn Fn(u64) -> Arc<G> + Send + Sync>),
}

impl<G> Clone for Source<G> {
    fn clone(&self) -> Self {
        match self {
            Source::Fixed(g) => Source::Fixed(g.clone()),
            Source::Deal(deal) => Source::Deal(deal.clone()),
        }
    }
}

impl<G> Source<G> {
    /// The game made from `seed`.
    pub fn game(&self, seed: u64) -> Arc<G> {
        match self {
            Source::Fixed(g) => g.clone(),
            Source::Deal(deal) => deal(seed),
        }
    }
}

/// The evaluation of each game of a source: built once for a fixed game.
pub type Evals<G, E> = Arc<dyn Fn(&Arc<G>) -> Arc<E> + Send + Sync>;

impl<G: Knowledge + 'static> Source<G> {
    /// [`Knowledge::default_eval`] of each game of this source (with the game's playouts).
    pub fn default_evals(&self, knowledge: bool) -> Evals<G, G::Eval> {
        match self {
            Source::Fixed(g) => {
                let eval = Arc::new(g.default_eval(knowledge, Playout::Auto));
                Arc::new(move |_| eval.clone())
            }
            Source::Deal(_) => {
                Arc::new(move |g| Arc::new(g.default_eval(knowledge, Playout::Auto)))
            }
        }
    }
}

/// What a step rewards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// [`Game::returns`](crate::game::Game::returns) on the step a game ends, 0 otherwise (zero-sum).
    Returns,
    /// The change over the step of each player's score minus the mean score of the others
    /// (Fish: fish collected). Zero-sum; over a game the rewards add up to the final fish
    /// difference (the game's returns are in the final returns).
    Score,
}

crate::names::named_enum!(Reward {
    Returns => "returns",
    Score => "score",
});

/// Which seat the learner plays in single-agent mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learner {
    /// This seat in every game.
    Seat(usize),
    /// A seat drawn per game from the game's seed.
    Random,
}

/// Settings of a [`VectorEnv`](super::VectorEnv).
#[derive(Clone)]
pub struct Options<G> {
    /// Threads for a step; 0 for every core.
    pub threads: usize,
    /// What a step rewards.
    pub reward: Reward,
    /// Single-agent mode: the agent playing every seat but the learner's.
    pub opponent: Option<AgentMaker<G>>,
    /// The learner's seat in single-agent mode.
    pub learner: Learner,
}

impl<G> Default for Options<G> {
    fn default() -> Self {
        Options {
            threads: 1,
            reward: Reward::Returns,
            opponent: None,
            learner: Learner::Seat(0),
        }
    }
}
