//! Bindings of the search: `Searcher` (a player that keeps its trees and transposition table
//! between moves), and the exact Fish solver. Searches run on a worker thread with the GIL
//! released; the calling thread polls for Ctrl-C and stops the search cleanly.

use std::sync::Mutex;
use std::time::Duration;

use pingvinas_engine::fish::eval::{FishEval, FishEvalConfig};
use pingvinas_engine::fish::solver as fish_solver;
use pingvinas_engine::fish::{json as fish_json, FishGame, FishState};
use pingvinas_engine::marathon::eval::{MarathonEval, MarathonEvalConfig};
use pingvinas_engine::marathon::{json as marathon_json, Marathon, State as MarathonState};
use pingvinas_engine::search::alphabeta::AlphaBetaConfig;
use pingvinas_engine::search::mcts::{Leaf, MctsConfig, Selection};
use pingvinas_engine::search::{Budget, Choice, SearchResult, Searcher, StopFlag};
use pingvinas_engine::{Error, Game};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::ToPyResult;

/// A position of either game, taken out of its Python object.
enum Position {
    Fish(FishGame, FishState),
    Marathon(Marathon, MarathonState),
}

impl Position {
    fn game_name(&self) -> &'static str {
        match self {
            Position::Fish(..) => "Fish",
            Position::Marathon(..) => "Marathon",
        }
    }
}

/// Reads the engine position of a Python state object (`FishState` or `MarathonState`), through
/// its JSON form (which the engine checks in full).
fn position_of(state: &Bound<'_, PyAny>) -> PyResult<Position> {
    let kind = state.get_type().name()?.to_string();
    match kind.as_str() {
        "FishState" => {
            let text: String = state.call_method0("to_json")?.extract()?;
            let (game, s) = fish_json::from_json(&text).py()?;
            Ok(Position::Fish(game, s))
        }
        "MarathonState" => marathon_position(state),
        _ => Err(PyTypeError::new_err(format!(
            "expected a FishState or a MarathonState, got {kind}"
        ))),
    }
}

fn marathon_position(state: &Bound<'_, PyAny>) -> PyResult<Position> {
    let text: String = state.call_method0("to_json")?.extract()?;
    let (game, s) = marathon_json::from_json(&text).py()?;
    Ok(Position::Marathon(game, s))
}

/// The algorithm `auto` picks (by measured strength, README "Strength"): for Fish alpha-beta
/// with the Fish evaluation (paranoid with 3 or 4 players, where it also beats MCTS), for
/// Marathon MCTS with the game's knowledge.
fn auto_choice(game: &str) -> Choice {
    if game == "Fish" {
        Choice::AlphaBeta
    } else {
        Choice::Mcts
    }
}

/// Settings as given from Python.
#[derive(Clone, Debug)]
struct Options {
    algorithm: String,
    threads: usize,
    seed: u64,
    exploration: Option<f64>,
    selection: Selection,
    playout: String,
    knowledge: bool,
    tt_mb: usize,
    reuse: bool,
}

/// The per-game searchers of one `Searcher`, created on first use.
#[derive(Default)]
struct Inner {
    /// The game this searcher plays (set by its first search).
    game: Option<&'static str>,
    fish: Option<(Choice, Searcher<FishState>)>,
    marathon: Option<(Choice, Searcher<MarathonState>)>,
}

impl Options {
    fn choice(&self, game: &str) -> PyResult<Choice> {
        if self.algorithm == "auto" {
            Ok(auto_choice(game))
        } else {
            Choice::parse(&self.algorithm).py()
        }
    }

    fn mcts(&self) -> MctsConfig {
        MctsConfig {
            exploration: self.exploration.unwrap_or(1.0),
            selection: self.selection,
            leaf: if self.playout == "evaluate" {
                Leaf::Evaluate
            } else {
                Leaf::Playout
            },
            threads: self.threads,
            reuse: self.reuse,
            expand_after: 1,
            seed: self.seed,
        }
    }

    fn searcher<S: Copy + PartialEq + Send>(&self, choice: Choice) -> Searcher<S> {
        Searcher::new(
            choice,
            self.mcts(),
            AlphaBetaConfig {
                tt_mb: self.tt_mb,
                threads: self.threads,
                ..AlphaBetaConfig::default()
            },
        )
    }
}

/// Runs `work` on a worker thread with the GIL released; every 10 ms checks for signals
/// (Ctrl-C), and on one sets `stop`, waits for the worker to finish and raises.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    stop: &StopFlag,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let handle = scope.spawn(work);
        loop {
            py.detach(|| {
                for _ in 0..10 {
                    if handle.is_finished() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
            if handle.is_finished() {
                return handle
                    .join()
                    .map_err(|_| PyRuntimeError::new_err("the search failed (an internal error)"));
            }
            if let Err(e) = py.check_signals() {
                stop.stop();
                let _ = handle.join();
                return Err(e);
            }
        }
    })
}

fn result_dict<'py>(
    py: Python<'py>,
    r: &SearchResult,
    algorithm: Choice,
    num_actions: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("best", r.best)?;
    d.set_item("value", r.value)?;
    d.set_item("pv", r.pv.clone())?;
    d.set_item("nodes", r.nodes)?;
    d.set_item("iterations", r.iterations)?;
    d.set_item("depth", r.depth)?;
    d.set_item("time", r.elapsed.as_secs_f64())?;
    d.set_item("visits", r.visits.clone())?;
    d.set_item("exact", r.exact)?;
    d.set_item("interrupted", r.interrupted)?;
    d.set_item("algorithm", algorithm.name())?;
    d.set_item("num_actions", num_actions)?;
    Ok(d)
}

/// A search player. It keeps its MCTS trees and alpha-beta transposition table between calls
/// (use one per seat in a game) and may be stopped from another thread with `stop()`.
///
/// Args:
///     algorithm: "auto", "mcts", "alphabeta", "greedy" or "random".
///     threads: threads searching at once: root-parallel MCTS, lazy-SMP alpha-beta (one
///         thread is deterministic for a seed).
///     seed: seed of playouts and tie-breaks (one thread and an iteration budget: same result).
///     exploration: the MCTS exploration constant (default 1.0).
///     selection: "uct" or "puct".
///     playout: "auto" (the game's playout policy), "random", or "evaluate" (no playouts).
///     knowledge: use the game's evaluation (regions, territory, turn counts); False gives
///         plain random playouts and a blind evaluation.
///     tt_mb: alpha-beta transposition table size in MiB.
///     reuse: keep MCTS trees between moves.
#[pyclass(module = "pingvinas._core", name = "Searcher")]
pub struct PySearcher {
    options: Options,
    inner: Mutex<Inner>,
    stop: StopFlag,
}

#[pymethods]
impl PySearcher {
    #[new]
    #[pyo3(signature = (algorithm = "auto", *, threads = 1, seed = 0, exploration = None, selection = "uct", playout = "auto", knowledge = true, tt_mb = 64, reuse = true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        algorithm: &str,
        threads: i64,
        seed: u64,
        exploration: Option<f64>,
        selection: &str,
        playout: &str,
        knowledge: bool,
        tt_mb: i64,
        reuse: bool,
    ) -> PyResult<Self> {
        if algorithm != "auto" {
            Choice::parse(algorithm).py()?;
        }
        if !(1..=256).contains(&threads) {
            return Err(PyValueError::new_err(format!(
                "threads = {threads}: expected 1 to 256"
            )));
        }
        if let Some(c) = exploration {
            if !c.is_finite() || c < 0.0 || c > 1e6 {
                return Err(PyValueError::new_err(format!(
                    "exploration = {c}: expected a finite number >= 0"
                )));
            }
        }
        let selection = match selection {
            "uct" => Selection::Uct,
            "puct" => Selection::Puct,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "selection = {selection:?}: expected \"uct\" or \"puct\""
                )))
            }
        };
        if !["auto", "random", "evaluate"].contains(&playout) {
            return Err(PyValueError::new_err(format!(
                "playout = {playout:?}: expected \"auto\", \"random\" or \"evaluate\""
            )));
        }
        if !(1..=65536).contains(&tt_mb) {
            return Err(PyValueError::new_err(format!(
                "tt_mb = {tt_mb}: expected 1 to 65536 MiB"
            )));
        }
        let options = Options {
            algorithm: algorithm.to_string(),
            threads: threads as usize,
            seed,
            exploration,
            selection,
            playout: playout.to_string(),
            knowledge,
            tt_mb: tt_mb as usize,
            reuse,
        };
        Ok(PySearcher {
            options,
            inner: Mutex::new(Inner::default()),
            stop: StopFlag::new(),
        })
    }

    /// Searches `state` and returns a dict: best (action), value (for the player to move, in
    /// [-1, 1]), pv (actions), nodes, iterations, depth, time (s), visits ([(action, n)]),
    /// exact, interrupted, algorithm, num_actions. Raises ValueError for a finished game or a
    /// bad budget, KeyboardInterrupt on Ctrl-C (the search stops cleanly first).
    #[pyo3(signature = (state, *, time = None, iterations = None, nodes = None, depth = None))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
        time: Option<f64>,
        iterations: Option<i64>,
        nodes: Option<i64>,
        depth: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut budget = Budget::checked(time, iterations, nodes, depth).py()?;
        let position = position_of(state)?;
        let options = self.options.clone();
        let choice = options.choice(position.game_name())?;
        if budget.is_unbounded() && budget.depth.is_none() {
            // Greedy and random need no budget; the others get a default second.
            budget = if matches!(choice, Choice::Greedy | Choice::Random) {
                Budget::iterations(1)
            } else {
                Budget::time(1.0)
            };
        }
        if choice == Choice::Mcts && budget.is_unbounded() {
            return Err(PyValueError::new_err(
                "an MCTS search needs time, iterations or nodes (depth alone does not bound it)",
            ));
        }
        self.stop.reset();
        let stop = self.stop.clone();
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the searcher is broken"))?;
        let inner = &mut *inner;
        let name = position.game_name();
        match inner.game {
            Some(g) if g != name => {
                return Err(PyValueError::new_err(format!(
                    "this searcher plays {g}, not {name}: use one searcher (or agent) per game"
                )))
            }
            _ => inner.game = Some(name),
        }
        let (result, num_actions) = run_interruptible(
            py,
            &self.stop,
            move || -> Result<(SearchResult, usize), Error> {
                match position {
                    Position::Fish(game, s) => {
                        if inner.fish.as_ref().is_none_or(|f| f.0 != choice) {
                            inner.fish = Some((choice, options.searcher(choice)));
                        }
                        let slot = inner.fish.as_mut().expect("just set");
                        let eval = if options.knowledge {
                            FishEval::new(&game, FishEvalConfig::default())
                        } else {
                            FishEval::plain(&game)
                        };
                        Ok((
                            slot.1.search(&game, &eval, &s, &budget, stop)?,
                            game.num_actions(),
                        ))
                    }
                    Position::Marathon(game, s) => {
                        if inner.marathon.as_ref().is_none_or(|m| m.0 != choice) {
                            inner.marathon = Some((choice, options.searcher(choice)));
                        }
                        let slot = inner.marathon.as_mut().expect("just set");
                        let mut config = MarathonEvalConfig::default();
                        if options.playout == "random" || !options.knowledge {
                            config.greedy = 0.0;
                        }
                        let eval = MarathonEval::new(&game, config);
                        Ok((
                            slot.1.search(&game, &eval, &s, &budget, stop)?,
                            game.num_actions(),
                        ))
                    }
                }
            },
        )?
        .py()?;
        result_dict(py, &result, choice, num_actions)
    }

    /// Asks a running search to stop now (it returns its best move so far). Thread-safe.
    fn stop(&self) {
        self.stop.stop();
    }

    /// Forgets the kept trees and transposition table.
    fn clear(&self) -> PyResult<()> {
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the searcher is broken"))?;
        *inner = Inner::default();
        Ok(())
    }

    #[getter]
    fn algorithm(&self) -> String {
        self.options.algorithm.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Searcher({:?}, threads={}, seed={})",
            self.options.algorithm, self.options.threads, self.options.seed
        )
    }
}

/// Solves a small Fish position exactly. Returns a dict: scores ([(fish, floes)] per player
/// after optimal play), best (action, None when over), pv (actions), value ((fish, floes)
/// difference for the player to move), nodes. Raises ValueError for a finished game or a
/// position too large (more than `max_nodes` positions).
#[pyfunction]
#[pyo3(signature = (state, *, max_nodes = 50_000_000))]
pub fn fish_solve<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
    max_nodes: i64,
) -> PyResult<Bound<'py, PyDict>> {
    let Position::Fish(game, s) = position_of(state)? else {
        return Err(PyTypeError::new_err("fish.solve needs a FishState"));
    };
    if max_nodes <= 0 {
        return Err(PyValueError::new_err(format!(
            "max_nodes = {max_nodes}: expected a positive number"
        )));
    }
    let stop = StopFlag::new();
    let flag = stop.clone();
    let sol = run_interruptible(py, &stop, move || {
        fish_solver::solve_with_stop(&game, &s, max_nodes as u64, Some(&flag))
    })?
    .py()?;
    let d = PyDict::new(py);
    d.set_item("scores", sol.scores)?;
    d.set_item("best", sol.best)?;
    d.set_item("pv", sol.pv)?;
    d.set_item("value", sol.value)?;
    d.set_item("nodes", sol.nodes)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySearcher>()?;
    m.add_function(wrap_pyfunction!(fish_solve, m)?)?;
    Ok(())
}
