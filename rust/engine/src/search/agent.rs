//! The agent spec: a built-in player named in text, `random`, `greedy`, `mcts[:N]`,
//! `alphabeta[:D]`, `solve` (perfect play, on Fish boards small enough) or `auto`, parsed once
//! here for every front end (the vector env's opponents, the Python agents, the CLI, the web
//! server). PUCT is not an agent spec: it needs an evaluator, which no text names.

use super::{Budget, Choice, Knowledge};
use crate::error::invalid;
use crate::error::{quote, Result};

/// MCTS iterations a move of `mcts` without a count, as a fixed-budget opponent.
pub const MCTS_ITERATIONS: u64 = 200;
/// The most MCTS iterations `mcts:N` may ask for.
pub const MAX_MCTS_ITERATIONS: u64 = 1_000_000;
/// Alpha-beta depth of `alphabeta` without a depth, as a fixed-budget opponent.
pub const ALPHABETA_DEPTH: u32 = 2;
/// The deepest `alphabeta:D` may ask for.
pub const MAX_ALPHABETA_DEPTH: u32 = 64;

/// A built-in player: an algorithm (`None`: the game's `"auto"`) and optionally the count of
/// its fixed budget (MCTS iterations, alpha-beta depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    /// The algorithm; `None` for the game's choice ([`Knowledge::auto_choice`]).
    pub choice: Option<Choice>,
    /// `N` of `mcts:N` (iterations) or `alphabeta:D` (depth).
    pub count: Option<u64>,
}

impl AgentSpec {
    /// The names of the agents, without counts, `"auto"` last.
    pub const NAMES: [&'static str; 6] = ["random", "greedy", "mcts", "alphabeta", "solve", "auto"];

    /// Reads a spec (`"alpha-beta"` and `"ab"` are read as `"alphabeta"`).
    ///
    /// # Errors
    /// `Error::Invalid` for any other text, quoting it and naming what is accepted (callers
    /// prefix the argument's name).
    pub fn parse(text: &str) -> Result<AgentSpec> {
        let (name, count) = match text.split_once(':') {
            Some((name, count)) => (name, Some(count)),
            None => (text, None),
        };
        let choice = match name {
            "auto" => None,
            "puct" => {
                return invalid!(
                    "{}: PUCT needs an evaluator, so it is no agent spec (search with \
                     algorithm=\"puct\" and an evaluator)",
                    quote(text)
                )
            }
            _ => match Choice::parse(name) {
                Ok(c) => Some(c),
                Err(_) => return bad(text),
            },
        };
        let max = match choice {
            Some(Choice::Mcts) => MAX_MCTS_ITERATIONS,
            Some(Choice::AlphaBeta) => MAX_ALPHABETA_DEPTH as u64,
            _ if count.is_some() => return bad(text),
            _ => 0,
        };
        let count = match count.map(str::parse::<u64>) {
            None => None,
            Some(Ok(n)) if (1..=max).contains(&n) => Some(n),
            Some(_) => return bad(text),
        };
        Ok(AgentSpec { choice, count })
    }

    /// The algorithm it plays in `game`.
    pub fn choice_for<G: Knowledge>(&self, game: &G) -> Choice {
        self.choice.unwrap_or_else(|| game.auto_choice())
    }

    /// The fixed budget of a move in `game` (deterministic for a seed on one thread, as a
    /// vector env's opponent needs): the count given, or [`MCTS_ITERATIONS`] and
    /// [`ALPHABETA_DEPTH`]; one iteration for greedy and random, which look one ply ahead;
    /// none for `solve`, which then stops at its game's own node limit.
    pub fn fixed_budget<G: Knowledge>(&self, game: &G) -> Budget {
        match self.choice_for(game) {
            Choice::Solve => Budget::default(),
            Choice::Mcts => Budget::iterations(self.count.unwrap_or(MCTS_ITERATIONS)),
            Choice::AlphaBeta => Budget::depth(self.count.map_or(ALPHABETA_DEPTH, |d| d as u32)),
            Choice::Greedy | Choice::Random => Budget::iterations(1),
        }
    }

    /// The spec's name without its count: `"auto"` or the algorithm's.
    pub fn name(&self) -> &'static str {
        self.choice.map_or("auto", Choice::name)
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.count {
            Some(n) => write!(f, "{}:{n}", self.name()),
            None => f.write_str(self.name()),
        }
    }
}

fn bad<T>(text: &str) -> Result<T> {
    invalid!(
        "{}: expected \"random\", \"greedy\", \"mcts\", \"mcts:N\" (N iterations a move, 1 \
         to {MAX_MCTS_ITERATIONS}), \"alphabeta\", \"alphabeta:D\" (depth D, 1 to \
         {MAX_ALPHABETA_DEPTH}), \"solve\" or \"auto\"",
        quote(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_back() {
        for text in [
            "random",
            "greedy",
            "mcts",
            "mcts:7",
            "alphabeta",
            "alphabeta:3",
            "solve",
            "auto",
        ] {
            assert_eq!(AgentSpec::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(AgentSpec::parse("ab:2").unwrap().to_string(), "alphabeta:2");
        for text in [
            "",
            "mcts:",
            "mcts:0",
            "mcts:x",
            "greedy:2",
            "auto:3",
            "solve:9",
            "alphabeta:65",
            "nn",
        ] {
            let e = AgentSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains("expected \"random\""), "{text}: {e}");
        }
        let e = AgentSpec::parse("puct").unwrap_err().to_string();
        assert!(e.contains("needs an evaluator"), "{e}");
    }
}
