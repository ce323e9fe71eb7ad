//! The agent spec: a built-in player named in text, `random`, `greedy`, `mcts[:N]`,
//! `alphabeta[:D]`, `learned[:D]` (alpha-beta with the learned net that ships,
//! [`crate::net::learned()`]), `solve` (perfect play, on Fish boards small enough) or `auto`,
//! parsed once here for every front end (the vector env's opponents, the Python agents, the
//! CLI, the web server).
//!
//! A net file ([`crate::net::Mlp`]) makes a player too: `net:PATH` is PUCT with the net and a
//! Gumbel root (`puct:N+net:PATH` for N simulations a move), and `SPEC+net:PATH` (`SPEC` one of
//! `mcts[:N]`, `alphabeta[:D]`, `auto`) that search with the net as its position estimate.
//! Everything after `net:` is the path, so that it may hold `:` (a Windows drive letter) or
//! `+`. The spec names the file; each front end loads it once per agent.
//!
//! The players a spec names, as the vector env's opponents play them, are here too: the
//! [`Agent`] trait, [`SearchAgent`] (a [`Searcher`] with a fixed budget) and [`NetAgent`]
//! (PUCT with a net).

use std::sync::Arc;

use super::alphabeta::AlphaBetaConfig;
use super::budget::check_time;
use super::forest::{self, BatchEvaluator, Forest};
use super::mcts::MctsConfig;
use super::puct::{PuctConfig, PuctTree};
use super::{Budget, Choice, Evaluate, Knowledge, Searcher, StopFlag};
use crate::error::invalid;
use crate::error::{quote, Result};
use crate::game::{Action, Game};
use crate::io::GameIo;
use crate::rng::splitmix64;

/// MCTS iterations a move of `mcts` without a count, as a fixed-budget opponent.
pub const MCTS_ITERATIONS: u64 = 200;
/// The most MCTS iterations `mcts:N` may ask for.
pub const MAX_MCTS_ITERATIONS: u64 = 1_000_000;
/// Alpha-beta depth of `alphabeta` without a depth, as a fixed-budget opponent.
pub const ALPHABETA_DEPTH: u32 = 2;
/// The deepest `alphabeta:D` may ask for.
pub const MAX_ALPHABETA_DEPTH: u32 = 64;
/// The transposition table (MiB) of a fixed-budget opponent's alpha-beta: its depths are small.
pub const TT_MB: usize = 1;
/// PUCT simulations a move of `net:PATH`, as a fixed-budget opponent.
pub const NET_SIMULATIONS: u64 = 64;
/// The default bound on an opponent's move, in seconds ([`AgentSpec::opponent_budget`]): far
/// above what the default fixed budgets take, so that it cuts short only the specs that would
/// take long (`alphabeta:64`, `solve` on a big board).
pub const OPPONENT_TIME: f64 = 1.0;

/// A built-in player: an algorithm (`None`: the game's `"auto"`) and optionally the count of
/// its fixed budget (MCTS iterations, alpha-beta depth), and a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    /// The algorithm; `None` for the game's choice ([`Knowledge::auto_choice`]). Unused by
    /// PUCT ([`AgentSpec::puct`]).
    pub choice: Option<Choice>,
    /// `N` of `mcts:N` (iterations), `alphabeta:D` (depth) or `puct:N+net:PATH` (simulations).
    pub count: Option<u64>,
    /// The path of the net file of `net:PATH` and `SPEC+net:PATH`.
    pub net: Option<String>,
    /// PUCT with the net and a Gumbel root (`net:PATH`, `puct:N+net:PATH`).
    pub puct: bool,
    /// Alpha-beta with the learned net that ships (`learned[:D]`, [`crate::net::learned()`]).
    pub learned: bool,
}

impl AgentSpec {
    /// The names of the agents, without counts, `"auto"` last.
    pub const NAMES: [&'static str; 7] = [
        "random",
        "greedy",
        "mcts",
        "alphabeta",
        "learned",
        "solve",
        "auto",
    ];

    /// Reads a spec (`"alpha-beta"` and `"ab"` are read as `"alphabeta"`).
    ///
    /// # Errors
    /// `Error::Invalid` for any other text, quoting it and naming what is accepted (callers
    /// prefix the argument's name).
    pub fn parse(text: &str) -> Result<AgentSpec> {
        let (base, net) = match text.strip_prefix("net:") {
            Some(path) => ("puct", Some(path)),
            None => match text.split_once("+net:") {
                Some((base, path)) => (base, Some(path)),
                None => (text, None),
            },
        };
        let Some(path) = net else {
            return AgentSpec::parse_base(text);
        };
        if path.is_empty() {
            return invalid!("{}: the net's path is missing after \"net:\"", quote(text));
        }
        if base.is_empty() {
            return invalid!(
                "{}: the algorithm's name is missing before \"+net:\" (\"mcts+net:PATH\", \
                 \"alphabeta+net:PATH\", \"auto+net:PATH\"), or write \"net:PATH\" for PUCT",
                quote(text)
            );
        }
        let spec = match base.split_once(':') {
            Some(("puct", count)) => match count.parse::<u64>() {
                Ok(n) if (1..=MAX_MCTS_ITERATIONS).contains(&n) => AgentSpec {
                    choice: None,
                    count: Some(n),
                    net: None,
                    puct: true,
                    learned: false,
                },
                _ => return bad(text),
            },
            None if base == "puct" => AgentSpec {
                choice: None,
                count: None,
                net: None,
                puct: true,
                learned: false,
            },
            _ => AgentSpec::parse_base(base)?,
        };
        if spec.learned
            || matches!(
                spec.choice,
                Some(Choice::Greedy | Choice::Random | Choice::Solve)
            )
        {
            return invalid!(
                "{}: a net is the estimate of \"mcts\", \"alphabeta\" or \"auto\" \
                 (\"SPEC+net:PATH\"), or plays PUCT (\"net:PATH\", \"puct:N+net:PATH\"); \
                 {} takes none",
                quote(text),
                spec.name()
            );
        }
        Ok(AgentSpec {
            net: Some(path.to_string()),
            ..spec
        })
    }

    /// A spec without a net.
    fn parse_base(text: &str) -> Result<AgentSpec> {
        let (name, count) = match text.split_once(':') {
            Some((name, count)) => (name, Some(count)),
            None => (text, None),
        };
        let (choice, learned) = match name {
            "auto" => (None, false),
            "learned" => (Some(Choice::AlphaBeta), true),
            "puct" => {
                return invalid!(
                    "{}: PUCT needs an evaluator: name a net file (\"net:PATH\", \
                     \"puct:N+net:PATH\"), or search with algorithm=\"puct\" and an evaluator",
                    quote(text)
                )
            }
            _ => match Choice::parse(name) {
                Ok(c) => (Some(c), false),
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
        Ok(AgentSpec {
            choice,
            count,
            net: None,
            puct: false,
            learned,
        })
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
        let (iterations, depth) = self.fixed_counts();
        if self.puct {
            return Budget::iterations(iterations.unwrap_or(NET_SIMULATIONS));
        }
        match self.choice_for(game) {
            Choice::Solve => Budget::default(),
            Choice::Mcts => Budget::iterations(iterations.unwrap_or(MCTS_ITERATIONS)),
            Choice::AlphaBeta => Budget::depth(depth.unwrap_or(ALPHABETA_DEPTH)),
            Choice::Greedy | Choice::Random => Budget::iterations(1),
        }
    }

    /// The budget of a move as an opponent: the fixed budget ([`AgentSpec::fixed_budget`]),
    /// bounded by `time` seconds ([`OPPONENT_TIME`] by default; at most
    /// [`MAX_TIME_SECS`](super::budget::MAX_TIME_SECS), as every time budget). A move that runs out of time depends on the machine's speed, so
    /// that the bound is a safety net: within it the moves are the fixed budget's.
    ///
    /// # Errors
    /// `Error::Invalid` for a time that is not a number of seconds above 0, at most
    /// [`MAX_TIME_SECS`](super::budget::MAX_TIME_SECS).
    pub fn opponent_budget<G: Knowledge>(&self, game: &G, time: Option<f64>) -> Result<Budget> {
        let time = check_time("opponent_time", time.unwrap_or(OPPONENT_TIME))?;
        Ok(Budget {
            time: Some(time),
            ..self.fixed_budget(game)
        })
    }

    /// The counts of the fixed budget before a game is known: MCTS iterations and alpha-beta
    /// depth, both for `auto` (which plays the game's choice), none for greedy and random;
    /// PUCT's simulations as its iterations.
    pub fn fixed_counts(&self) -> (Option<u64>, Option<u32>) {
        if self.puct {
            return (Some(self.count.unwrap_or(NET_SIMULATIONS)), None);
        }
        let iterations = Some(self.count.unwrap_or(MCTS_ITERATIONS));
        let depth = Some(self.count.map_or(ALPHABETA_DEPTH, |d| d as u32));
        match self.choice {
            None => (iterations, depth),
            Some(Choice::Mcts) => (iterations, None),
            Some(Choice::AlphaBeta) => (None, depth),
            Some(Choice::Greedy | Choice::Random | Choice::Solve) => (None, None),
        }
    }

    /// The spec's name without its count and net: `"auto"`, `"puct"`, `"learned"` or the
    /// algorithm's.
    pub fn name(&self) -> &'static str {
        if self.puct {
            return "puct";
        }
        if self.learned {
            return "learned";
        }
        self.choice.map_or("auto", Choice::name)
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.puct, self.count, &self.net) {
            (true, None, Some(path)) => return write!(f, "net:{path}"),
            (_, Some(n), _) => write!(f, "{}:{n}", self.name())?,
            (_, None, _) => f.write_str(self.name())?,
        }
        match &self.net {
            Some(path) => write!(f, "+net:{path}"),
            None => Ok(()),
        }
    }
}

fn bad<T>(text: &str) -> Result<T> {
    let name = text.split([':', '+']).next().unwrap_or(text);
    let hint = match near(name) {
        Some(near) => format!("; did you mean \"{near}\"?"),
        None => String::new(),
    };
    invalid!(
        "{}: expected \"random\", \"greedy\", \"mcts\", \"mcts:N\" (N iterations a move, 1 \
         to {MAX_MCTS_ITERATIONS}), \"alphabeta\", \"alphabeta:D\" (depth D, 1 to \
         {MAX_ALPHABETA_DEPTH}), \"learned\", \"learned:D\", \"solve\", \"auto\", \
         \"net:PATH\" (PUCT with a net file), \"puct:N+net:PATH\" or \"SPEC+net:PATH\" (the \
         net as the estimate of mcts, alphabeta or auto){hint}",
        quote(text)
    )
}

/// The agent name that `name` (not one) is likely a slip for: the same in other case, the
/// start of a name, or the nearest within two edits (one for a name of four letters or
/// fewer).
fn near(name: &str) -> Option<&'static str> {
    if AgentSpec::NAMES.contains(&name) {
        return None; // its count or net is what is wrong
    }
    let name = name.to_ascii_lowercase();
    let n = name.chars().count();
    if !(2..=40).contains(&n) {
        return None;
    }
    if let Some(full) = AgentSpec::NAMES.iter().find(|full| full.starts_with(&name)) {
        return Some(full);
    }
    let most = if n <= 4 { 1 } else { 2 };
    AgentSpec::NAMES
        .iter()
        .map(|full| (edits(&name, full), *full))
        .filter(|&(d, _)| d <= most)
        .min_by_key(|&(d, _)| d)
        .map(|(_, full)| full)
}

/// The Levenshtein distance: the fewest insertions, deletions and substitutions (a swap of
/// two neighbours counts one) that turn `a` into `b`.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: two back (for swaps), one back, and this one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}

/// A built-in player for the seats the learner does not play.
pub trait Agent<G: Game>: Send + Sync {
    /// The action to play in `state` (a game that is not over), or `Ok(None)` when `stop` was
    /// set before it was found. It must depend on `state` alone (not on earlier calls), so
    /// that a step abandoned halfway can be played again with the same result (unless its
    /// budget's time ran out first: then the move depends on the machine's speed).
    ///
    /// # Errors
    /// What its search could not do: `solve` on a position too big for its budget, a net
    /// that fails.
    fn act(&mut self, game: &G, state: &G::State, stop: &StopFlag) -> Result<Option<Action>>;
}

/// Makes the agent of one game from the game and a seed.
pub type AgentMaker<G> = Arc<dyn Fn(&Arc<G>, u64) -> Box<dyn Agent<G>> + Send + Sync>;

/// An engine [`Searcher`] as an agent: random, greedy (one ply by the evaluator's order hints)
/// or MCTS with a fixed iteration budget, on one thread, seeded: deterministic (each move's
/// randomness comes from the seed and the position).
pub struct SearchAgent<G: Game, E> {
    searcher: Searcher<G::State>,
    eval: Arc<E>,
    budget: Budget,
    seed: u64,
}

impl<G: Game, E: Evaluate<G>> SearchAgent<G, E> {
    /// An agent playing `choice` within `budget` (MCTS needs an iteration budget to be
    /// deterministic, alpha-beta a depth or node budget).
    pub fn new(choice: Choice, budget: Budget, eval: Arc<E>, seed: u64) -> Self {
        Self::with_mcts(choice, MctsConfig::default(), budget, eval, seed)
    }

    /// As [`SearchAgent::new`], MCTS selecting children with `mcts`'s rule and exploration.
    fn with_mcts(
        choice: Choice,
        mcts: MctsConfig,
        budget: Budget,
        eval: Arc<E>,
        seed: u64,
    ) -> Self {
        SearchAgent {
            searcher: Searcher::new(
                choice,
                MctsConfig {
                    threads: 1,
                    reuse: false,
                    seed,
                    ..mcts
                },
                AlphaBetaConfig {
                    tt_mb: TT_MB,
                    threads: 1,
                    ..AlphaBetaConfig::default()
                },
            ),
            eval,
            budget,
            seed,
        }
    }

    /// The maker of such agents for every game, the evaluation made per game by `eval`.
    pub fn maker(
        choice: Choice,
        budget: Budget,
        eval: impl Fn(&Arc<G>) -> Arc<E> + Send + Sync + 'static,
    ) -> AgentMaker<G>
    where
        G: 'static,
        E: 'static,
    {
        Arc::new(move |game: &Arc<G>, seed: u64| {
            Box::new(SearchAgent::new(choice, budget, eval(game), seed)) as Box<dyn Agent<G>>
        })
    }

    /// The maker of `"auto"`'s agents: the game's algorithm ([`Knowledge::auto_choice`]) and,
    /// when that is MCTS, the game's selection rule, exploration constant and leaf values, as
    /// the searcher `"auto"` names ([`Knowledge::auto_selection`],
    /// [`Knowledge::auto_exploration`], [`Knowledge::auto_leaf`]).
    pub fn auto_maker(
        budget: Budget,
        eval: impl Fn(&Arc<G>) -> Arc<E> + Send + Sync + 'static,
    ) -> AgentMaker<G>
    where
        G: Knowledge + 'static,
        E: 'static,
    {
        Arc::new(move |game: &Arc<G>, seed: u64| {
            let mcts = MctsConfig {
                selection: game.auto_selection(),
                exploration: game.auto_exploration(),
                leaf: game.auto_leaf(),
                ..MctsConfig::default()
            };
            let agent = SearchAgent::with_mcts(game.auto_choice(), mcts, budget, eval(game), seed);
            Box::new(agent) as Box<dyn Agent<G>>
        })
    }
}

impl<G: Game, E: Evaluate<G>> Agent<G> for SearchAgent<G, E> {
    fn act(&mut self, game: &G, state: &G::State, stop: &StopFlag) -> Result<Option<Action>> {
        self.searcher
            .reseed(splitmix64(self.seed ^ game.hash(state)));
        // A move must depend on the position alone: no table kept from earlier moves.
        if self.searcher.choice == Choice::AlphaBeta {
            self.searcher.clear();
        }
        let r = self
            .searcher
            .search(game, &*self.eval, state, &self.budget, stop.clone());
        match r {
            // A search stopped by the flag may fail (the solver) rather than answer.
            Err(_) if stop.is_set() => Ok(None),
            Err(e) => Err(e),
            Ok(r) => Ok((!r.interrupted && !stop.is_set()).then_some(r.best)),
        }
    }
}

/// PUCT with a net (`N`, a [`crate::net::Mlp`]) as an agent: a fresh tree for every move (a
/// move depends on the position alone), within a fixed iteration budget, on one thread, seeded
/// from the position.
pub struct NetAgent<G: Game, E, N> {
    game: Arc<G>,
    eval: Arc<E>,
    net: Arc<N>,
    config: PuctConfig,
    budget: Budget,
    seed: u64,
}

impl<G, E, N> NetAgent<G, E, N>
where
    G: GameIo + 'static,
    E: Evaluate<G> + 'static,
    N: Send + Sync + 'static,
    for<'a> &'a N: BatchEvaluator<G>,
{
    /// The maker of such agents for every game: PUCT with `config` and `net` (which must fit
    /// the games: [`crate::net::Fits::check`]), the game's evaluation (exact leaves, pruning)
    /// made per game by `eval`.
    pub fn maker(
        net: Arc<N>,
        config: PuctConfig,
        budget: Budget,
        eval: impl Fn(&Arc<G>) -> Arc<E> + Send + Sync + 'static,
    ) -> AgentMaker<G> {
        Arc::new(move |game: &Arc<G>, seed: u64| {
            Box::new(NetAgent {
                game: game.clone(),
                eval: eval(game),
                net: net.clone(),
                config,
                budget,
                seed,
            }) as Box<dyn Agent<G>>
        })
    }
}

impl<G, E, N> Agent<G> for NetAgent<G, E, N>
where
    G: GameIo,
    E: Evaluate<G>,
    N: Send + Sync,
    for<'a> &'a N: BatchEvaluator<G>,
{
    fn act(&mut self, game: &G, state: &G::State, stop: &StopFlag) -> Result<Option<Action>> {
        let seed = splitmix64(self.seed ^ game.hash(state));
        let tree = PuctTree::new(self.game.clone(), self.eval.clone(), self.config, seed);
        let mut forest = Forest::new(vec![tree])?;
        let r = forest::run(
            &mut forest,
            &[*state],
            &self.budget,
            stop.clone(),
            &mut &*self.net,
        );
        match r {
            Err(_) if stop.is_set() => Ok(None),
            Err(e) => Err(e),
            Ok(mut results) => Ok(results
                .pop()
                .filter(|r| !r.interrupted && !stop.is_set())
                .map(|r| r.best)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::budget::MAX_TIME_SECS;

    #[test]
    fn specs_read_back() {
        for text in [
            "random",
            "greedy",
            "mcts",
            "mcts:7",
            "alphabeta",
            "alphabeta:3",
            "learned",
            "learned:4",
            "solve",
            "auto",
        ] {
            assert_eq!(AgentSpec::parse(text).unwrap().to_string(), text);
        }
        let learned = AgentSpec::parse("learned:4").unwrap();
        assert_eq!(
            (learned.choice, learned.count, learned.learned),
            (Some(Choice::AlphaBeta), Some(4), true)
        );
        assert_eq!(learned.fixed_counts(), (None, Some(4)));
        assert!(!AgentSpec::parse("alphabeta:4").unwrap().learned);
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
            "learned:0",
            "nn",
        ] {
            let e = AgentSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains("expected \"random\""), "{text}: {e}");
        }
        let e = AgentSpec::parse("puct").unwrap_err().to_string();
        assert!(e.contains("needs an evaluator"), "{e}");
    }

    #[test]
    fn a_slip_of_the_keyboard_is_named() {
        for (text, meant) in [
            ("mcst", "mcts"),
            ("MCTS:50", "mcts"),
            ("alpha", "alphabeta"),
            ("alphabetta:3", "alphabeta"),
            ("gredy", "greedy"),
            ("radnom", "random"),
            ("lerned+net:x", "learned"),
            ("aut", "auto"),
        ] {
            let e = AgentSpec::parse(text).unwrap_err().to_string();
            assert!(
                e.ends_with(&format!("; did you mean \"{meant}\"?")),
                "{text}: {e}"
            );
        }
        for text in ["deep-blue", "x", "mcts:0", "zzzz", "greedy:2"] {
            let e = AgentSpec::parse(text).unwrap_err().to_string();
            assert!(!e.contains("did you mean"), "{text}: {e}");
        }
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("mcst", "mcts"), 1);
        assert_eq!(edits("", "auto"), 4);
    }

    #[test]
    fn an_opponent_budget_is_the_fixed_one_within_a_time() {
        let nim = crate::marathon::Marathon::standard();
        let spec = AgentSpec::parse("mcts:7").unwrap();
        let b = spec.opponent_budget(&nim, None).unwrap();
        assert_eq!(b.iterations, Some(7));
        assert_eq!(b.time.unwrap().as_secs_f64(), OPPONENT_TIME);
        let b = spec.opponent_budget(&nim, Some(0.25)).unwrap();
        assert_eq!(b.time.unwrap().as_secs_f64(), 0.25);
        let b = AgentSpec::parse("alphabeta:64")
            .unwrap()
            .opponent_budget(&nim, Some(MAX_TIME_SECS))
            .unwrap();
        assert_eq!(b.depth, Some(64));
        assert_eq!(b.time.unwrap().as_secs_f64(), MAX_TIME_SECS);
        for bad in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e308,
            MAX_TIME_SECS * 2.0,
        ] {
            let e = spec
                .opponent_budget(&nim, Some(bad))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("opponent_time = "), "{e}");
            assert!(e.len() < 100, "{e}");
        }
    }

    #[test]
    fn the_auto_agent_searches_as_the_auto_searcher() {
        use crate::game::Game;
        use crate::io::GameIo;
        use crate::search::mcts::Selection;
        let game = Arc::new(crate::marathon::Marathon::standard());
        assert_eq!(game.auto_selection(), Selection::Puct);
        let eval = Arc::new(game.default_eval(true, super::super::Playout::Auto));
        let budget = Budget::iterations(200);
        let (seed, stop) = (11, StopFlag::new());
        let maker = SearchAgent::auto_maker(budget, {
            let eval = eval.clone();
            move |_: &Arc<_>| eval.clone()
        });
        let mut auto = maker(&game, seed);
        let mut uct = SearchAgent::new(Choice::Mcts, budget, eval.clone(), seed);
        let mut state = game.initial_state();
        let mut differ = 0;
        for ply in 0..12 {
            // The searcher "auto" names: the game's selection and exploration.
            let mut searcher = Searcher::new(
                game.auto_choice(),
                MctsConfig {
                    selection: game.auto_selection(),
                    exploration: game.auto_exploration(),
                    threads: 1,
                    reuse: false,
                    seed,
                    ..MctsConfig::default()
                },
                AlphaBetaConfig::default(),
            );
            searcher.reseed(splitmix64(seed ^ game.hash(&state)));
            let want = searcher
                .search(&*game, &*eval, &state, &budget, stop.clone())
                .unwrap()
                .best;
            assert_eq!(
                auto.act(&game, &state, &stop).unwrap(),
                Some(want),
                "ply {ply}"
            );
            differ += usize::from(uct.act(&game, &state, &stop).unwrap() != Some(want));
            game.apply(&mut state, want);
        }
        // Plain UCT is another player: the test would notice auto falling back to it.
        assert!(differ > 0);
    }

    #[test]
    fn fixed_counts_are_the_defaults_or_the_count_given() {
        let counts = |text: &str| AgentSpec::parse(text).unwrap().fixed_counts();
        assert_eq!(
            counts("auto"),
            (Some(MCTS_ITERATIONS), Some(ALPHABETA_DEPTH))
        );
        assert_eq!(counts("mcts"), (Some(MCTS_ITERATIONS), None));
        assert_eq!(counts("mcts:7"), (Some(7), None));
        assert_eq!(counts("alphabeta"), (None, Some(ALPHABETA_DEPTH)));
        assert_eq!(counts("alphabeta:3"), (None, Some(3)));
        assert_eq!(counts("greedy"), (None, None));
        assert_eq!(counts("random"), (None, None));
    }

    #[test]
    fn nets_are_named_by_paths_that_may_hold_colons() {
        for text in [
            "net:a.safetensors",
            r"net:C:\nets\fish+1.safetensors",
            "puct:32+net:/tmp/x:y",
            "alphabeta:3+net:C:/n.st",
            "mcts+net:n",
            "auto+net:n",
        ] {
            assert_eq!(AgentSpec::parse(text).unwrap().to_string(), text);
        }
        let s = AgentSpec::parse(r"net:C:\n.st").unwrap();
        assert!(s.puct && s.net.as_deref() == Some(r"C:\n.st") && s.count.is_none());
        assert_eq!(s.name(), "puct");
        let s = AgentSpec::parse("alphabeta:3+net:D:x").unwrap();
        assert_eq!(
            (s.choice, s.count, s.puct),
            (Some(Choice::AlphaBeta), Some(3), false)
        );
        assert_eq!(s.net.as_deref(), Some("D:x"));
        assert_eq!(AgentSpec::parse("puct+net:x").unwrap().to_string(), "net:x");
        let counts = |text: &str| AgentSpec::parse(text).unwrap().fixed_counts();
        assert_eq!(counts("net:x"), (Some(NET_SIMULATIONS), None));
        assert_eq!(counts("puct:9+net:x"), (Some(9), None));
        assert_eq!(counts("alphabeta:3+net:x"), (None, Some(3)));
        // The old specs have no net.
        assert_eq!(AgentSpec::parse("mcts:7").unwrap().net, None);
        for text in [
            "net:",
            "mcts+net:",
            "puct:0+net:x",
            "puct:x+net:y",
            "nets:x",
        ] {
            assert!(AgentSpec::parse(text).is_err(), "{text}");
        }
        let e = AgentSpec::parse("+net:x").unwrap_err().to_string();
        assert!(e.contains("the algorithm's name is missing"), "{e}");
        for text in ["greedy+net:x", "learned+net:x"] {
            let e = AgentSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains("takes none"), "{e}");
        }
    }
}
