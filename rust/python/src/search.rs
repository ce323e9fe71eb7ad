//! Bindings of the search: `Searcher` (a player that keeps its trees and transposition table
//! between moves, for one game at a time), and the exact Fish solver. A search takes the state
//! object itself (its shared game and `Copy` state, no JSON) and runs off the GIL on a worker
//! thread that Ctrl-C stops (`detached`).

use std::sync::{Arc, Mutex, TryLockError};

use numpy::{PyArray1, PyArrayMethods};
use pingvinas_engine::fish::eval::{FishEval, FishEvalConfig};
use pingvinas_engine::fish::solver as fish_solver;
use pingvinas_engine::fish::{FishGame, W1024};
use pingvinas_engine::marathon::eval::{MarathonEval, MarathonEvalConfig};
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::search::alphabeta::AlphaBetaConfig;
use pingvinas_engine::search::mcts::{self, Leaf, MctsConfig, Selection};
use pingvinas_engine::search::tt;
use pingvinas_engine::search::{
    AutoChoice, Budget, Choice, Evaluate, SearchResult, Searcher, StopFlag,
};
use pingvinas_engine::with_fish_state;
use pingvinas_engine::Game;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::args;
use crate::errors::ToPyResult;
use crate::fish::PyFishState;
use crate::marathon::PyMarathonState;
use crate::state::Bind;

/// The names `algorithm` accepts, `"auto"` first.
pub fn algorithms() -> Vec<&'static str> {
    std::iter::once("auto").chain(Choice::NAMES).collect()
}

/// `"auto"` or one algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Algorithm {
    Auto,
    Fixed(Choice),
}

impl Algorithm {
    fn parse(text: &str) -> PyResult<Algorithm> {
        if text == "auto" {
            return Ok(Algorithm::Auto);
        }
        Choice::parse(text).map(Algorithm::Fixed).map_err(|_| {
            PyValueError::new_err(format!(
                "algorithm = {:?}: expected one of {}",
                args::cut(text),
                algorithms().join(", ")
            ))
        })
    }

    fn choice<G: AutoChoice>(self, game: &G) -> Choice {
        match self {
            Algorithm::Auto => game.auto_choice(),
            Algorithm::Fixed(c) => c,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Fixed(c) => c.name(),
        }
    }
}

/// Settings as given from Python, checked.
#[derive(Clone, Debug)]
struct Options {
    algorithm: Algorithm,
    threads: usize,
    seed: u64,
    exploration: Option<f64>,
    selection: Selection,
    playout: String,
    knowledge: bool,
    tt_mb: usize,
    memory_mb: usize,
    reuse: bool,
}

impl Options {
    fn searcher<S: Copy + PartialEq + Send>(&self, choice: Choice) -> Searcher<S> {
        Searcher::new(
            choice,
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

/// What a searcher keeps for one game: the game it was made for (its trees and table mean
/// nothing on another board or course), the game's evaluation and the engine searcher.
struct Kept<G: Game, E> {
    game: Arc<G>,
    eval: Arc<E>,
    choice: Choice,
    searcher: Searcher<G::State>,
}

/// The searcher kept for the game played last.
#[derive(Default)]
enum Inner {
    #[default]
    Empty,
    Fish(Kept<FishGame, FishEval>),
    /// Fish on boards of 65 to 128 cells.
    Fish128(Kept<FishGame<u128>, FishEval<u128>>),
    /// Fish on boards of more than 128 cells.
    FishWide(Kept<FishGame<W1024>, FishEval<W1024>>),
    Marathon(Kept<Marathon, MarathonEval>),
}

/// Recently built evaluations, by game and settings, newest first.
type EvalCache<G, E> = Mutex<Vec<(Arc<G>, bool, Arc<E>)>>;

/// How many evaluations [`EvalCache`] keeps per game type.
const EVALS_KEPT: usize = 8;

/// A game the search binding knows: how to reach its kept searcher and build its evaluation.
trait Searchable: Bind + AutoChoice + Sized
where
    Self::State: Send,
{
    type Eval: Evaluate<Self> + Send + Sync;
    fn slot(inner: &mut Inner) -> Option<&mut Kept<Self, Self::Eval>>;
    fn store(kept: Kept<Self, Self::Eval>) -> Inner;
    /// The one setting the evaluation depends on: whether it uses the game's knowledge.
    fn knows(options: &Options) -> bool;
    fn build_eval(&self, knowledge: bool) -> Self::Eval;
    fn evals() -> &'static EvalCache<Self, Self::Eval>;

    /// The evaluation of this game, built once per game and settings: Marathon's computes
    /// distance tables, which one-shot `pv.search` calls would otherwise redo every move.
    fn eval(self: &Arc<Self>, options: &Options) -> Arc<Self::Eval> {
        let knowledge = Self::knows(options);
        let mut cache = Self::evals().lock().unwrap_or_else(|e| e.into_inner());
        let hit = cache
            .iter()
            .position(|(g, k, _)| *k == knowledge && (Arc::ptr_eq(g, self) || **g == **self));
        let entry = match hit {
            Some(i) => cache.remove(i),
            None => (
                self.clone(),
                knowledge,
                Arc::new(self.build_eval(knowledge)),
            ),
        };
        let eval = entry.2.clone();
        cache.insert(0, entry);
        cache.truncate(EVALS_KEPT);
        eval
    }
}

/// Fish is searched on the bitboard word of its board: one impl per word.
macro_rules! fish_searchable {
    ($w:ty, $variant:ident) => {
        impl Searchable for FishGame<$w> {
            type Eval = FishEval<$w>;
            fn slot(inner: &mut Inner) -> Option<&mut Kept<Self, Self::Eval>> {
                match inner {
                    Inner::$variant(k) => Some(k),
                    _ => None,
                }
            }
            fn store(kept: Kept<Self, Self::Eval>) -> Inner {
                Inner::$variant(kept)
            }
            fn knows(options: &Options) -> bool {
                options.knowledge
            }
            fn build_eval(&self, knowledge: bool) -> Self::Eval {
                if knowledge {
                    FishEval::new(self, FishEvalConfig::default())
                } else {
                    FishEval::plain(self)
                }
            }
            fn evals() -> &'static EvalCache<Self, Self::Eval> {
                static EVALS: EvalCache<FishGame<$w>, FishEval<$w>> = Mutex::new(Vec::new());
                &EVALS
            }
        }
    };
}

fish_searchable!(u64, Fish);
fish_searchable!(u128, Fish128);
fish_searchable!(W1024, FishWide);

impl Searchable for Marathon {
    type Eval = MarathonEval;
    fn slot(inner: &mut Inner) -> Option<&mut Kept<Self, MarathonEval>> {
        match inner {
            Inner::Marathon(k) => Some(k),
            _ => None,
        }
    }
    fn store(kept: Kept<Self, MarathonEval>) -> Inner {
        Inner::Marathon(kept)
    }
    fn knows(options: &Options) -> bool {
        options.knowledge && options.playout != "random"
    }
    fn build_eval(&self, knowledge: bool) -> MarathonEval {
        let mut config = MarathonEvalConfig::default();
        if !knowledge {
            config.greedy = 0.0;
        }
        MarathonEval::new(self, config)
    }
    fn evals() -> &'static EvalCache<Self, MarathonEval> {
        static EVALS: EvalCache<Marathon, MarathonEval> = Mutex::new(Vec::new());
        &EVALS
    }
}

/// The kept searcher for `game`, made afresh when the game (board, course, rules) or the
/// algorithm differs from the last search's.
fn kept<'a, G: Searchable>(
    inner: &'a mut Inner,
    game: &Arc<G>,
    choice: Choice,
    options: &Options,
) -> &'a mut Kept<G, G::Eval>
where
    G::State: Send,
{
    let reusable = G::slot(inner)
        .is_some_and(|k| k.choice == choice && (Arc::ptr_eq(&k.game, game) || *k.game == **game));
    if !reusable {
        *inner = G::store(Kept {
            game: game.clone(),
            eval: game.eval(options),
            choice,
            searcher: options.searcher(choice),
        });
    }
    G::slot(inner).expect("just stored")
}

/// The budget of a search: as given, or one second when none is given to an algorithm that
/// needs one (greedy and random look one ply ahead and need none). Whether the algorithm can
/// honour it is the engine's check (`search::check_start`).
fn budget_for(choice: Choice, budget: Budget) -> Budget {
    let given = budget.time.is_some()
        || budget.iterations.is_some()
        || budget.nodes.is_some()
        || budget.depth.is_some();
    match choice {
        Choice::Mcts | Choice::AlphaBeta if !given => Budget::time(1.0),
        _ => budget,
    }
}

/// The tuple `search.SearchResult` is built from.
fn result_tuple<'py, G: Bind>(
    py: Python<'py>,
    game: &G,
    state: &G::State,
    r: &SearchResult,
    choice: Choice,
) -> PyResult<Bound<'py, PyTuple>> {
    let visits = PyArray1::<i64>::zeros(py, game.num_actions(), false);
    {
        // SAFETY: made just above, contiguous, not shared.
        let out = unsafe { visits.as_slice_mut() }.expect("contiguous");
        for &(a, n) in &r.visits {
            out[a as usize] = n as i64;
        }
    }
    let mut s = *state;
    let pv = PyList::empty(py);
    for &a in &r.pv {
        if !game.is_legal(&s, a) {
            break;
        }
        pv.append(game.move_object_py(py, &s, a)?)?;
        game.apply(&mut s, a);
    }
    PyTuple::new(
        py,
        [
            game.move_object_py(py, state, r.best)?,
            r.best.into_pyobject(py)?.into_any(),
            r.value.into_pyobject(py)?.into_any(),
            pv.into_any(),
            r.nodes.into_pyobject(py)?.into_any(),
            r.iterations.into_pyobject(py)?.into_any(),
            r.depth.into_pyobject(py)?.into_any(),
            r.elapsed.as_secs_f64().into_pyobject(py)?.into_any(),
            visits.into_any(),
            pyo3::types::PyBool::new(py, r.exact).to_owned().into_any(),
            pyo3::types::PyBool::new(py, r.interrupted)
                .to_owned()
                .into_any(),
            choice.name().into_pyobject(py)?.into_any(),
        ],
    )
}

/// A search player. It keeps its MCTS trees and alpha-beta transposition table between calls
/// on the same game (use one per seat), starts afresh on another board or course, and may be
/// stopped from another thread with `stop()`. One search runs at a time: a second thread
/// calling `search` meanwhile gets `RuntimeError("Searcher is busy ...")`.
#[pyclass(module = "pingvinas._core", name = "Searcher")]
pub struct PySearcher {
    options: Options,
    inner: Mutex<Inner>,
    stop: StopFlag,
}

impl PySearcher {
    fn run<'py, G: Searchable>(
        &self,
        py: Python<'py>,
        game: Arc<G>,
        state: G::State,
        budget: Budget,
    ) -> PyResult<Bound<'py, PyTuple>>
    where
        G::State: Send,
    {
        let choice = self.options.algorithm.choice(&*game);
        let budget = budget_for(choice, budget);
        let mut inner =
            match self.inner.try_lock() {
                Ok(guard) => guard,
                Err(TryLockError::WouldBlock) => return Err(PyRuntimeError::new_err(
                    "Searcher is busy: another thread is searching with it (use one Searcher per \
                     thread)",
                )),
                // A search that failed midway leaves nothing worth keeping.
                Err(TryLockError::Poisoned(e)) => {
                    let mut guard = e.into_inner();
                    *guard = Inner::Empty;
                    guard
                }
            };
        self.stop.reset();
        let options = &self.options;
        let kept = kept(&mut inner, &game, choice, options);
        let mut search = |stop: &StopFlag| {
            kept.searcher
                .search(&*kept.game, &*kept.eval, &state, &budget, stop.clone())
        };
        // Greedy and random look one ply ahead: microseconds, not worth a worker thread.
        let result = if matches!(choice, Choice::Greedy | Choice::Random) {
            let stop = self.stop.clone();
            py.detach(move || search(&stop))
        } else {
            crate::detached::run(py, &self.stop, search)?
        }
        .py()?;
        result_tuple(py, &*game, &state, &result, choice)
    }
}

#[pymethods]
impl PySearcher {
    #[new]
    #[pyo3(signature = (algorithm = "auto", *, threads = None, seed = None, exploration = None, selection = "uct", playout = "auto", knowledge = true, tt_mb = None, memory_mb = None, reuse = true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        algorithm: &str,
        threads: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        exploration: Option<f64>,
        selection: &str,
        playout: &str,
        knowledge: bool,
        tt_mb: Option<&Bound<'_, PyAny>>,
        memory_mb: Option<&Bound<'_, PyAny>>,
        reuse: bool,
    ) -> PyResult<Self> {
        let algorithm = Algorithm::parse(algorithm)?;
        let threads = match threads {
            Some(t) if !t.is_none() => args::count(t, "threads", 1, 256)? as usize,
            _ => 1,
        };
        if let Some(c) = exploration {
            if !c.is_finite() || !(0.0..=1e6).contains(&c) {
                return Err(PyValueError::new_err(format!(
                    "exploration = {c}: expected a finite number from 0 to 1e6"
                )));
            }
        }
        let selection = match selection {
            "uct" => Selection::Uct,
            "puct" => Selection::Puct,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "selection = {:?}: expected \"uct\" or \"puct\"",
                    args::cut(selection)
                )))
            }
        };
        if !["auto", "random", "evaluate"].contains(&playout) {
            return Err(PyValueError::new_err(format!(
                "playout = {:?}: expected \"auto\", \"random\" or \"evaluate\"",
                args::cut(playout)
            )));
        }
        let tt_mb = match tt_mb {
            Some(t) if !t.is_none() => args::count(t, "tt_mb", 1, tt::MAX_TT_MB as u64)? as usize,
            _ => 64,
        };
        let memory_mb = match memory_mb {
            Some(m) if !m.is_none() => {
                args::count(m, "memory_mb", 1, mcts::MAX_MEMORY_MB as u64)? as usize
            }
            _ => mcts::DEFAULT_MEMORY_MB,
        };
        Ok(PySearcher {
            options: Options {
                algorithm,
                threads,
                seed: seed.map_or(Ok(0), args::seed)?,
                exploration,
                selection,
                playout: playout.to_string(),
                knowledge,
                tt_mb,
                memory_mb,
                reuse,
            },
            inner: Mutex::new(Inner::Empty),
            stop: StopFlag::new(),
        })
    }

    /// Searches `state` (a FishState or MarathonState) and returns the tuple
    /// `pingvinas.search.SearchResult` is made of. Raises ValueError for a finished game or a
    /// budget the algorithm cannot honour, RuntimeError when another thread is searching with
    /// this searcher, KeyboardInterrupt on Ctrl-C (the search stops cleanly first).
    #[pyo3(signature = (state, *, time = None, iterations = None, nodes = None, depth = None))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
        time: Option<f64>,
        iterations: Option<i64>,
        nodes: Option<i64>,
        depth: Option<i64>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let budget = Budget::checked(time, iterations, nodes, depth).py()?;
        if let Ok(s) = state.cast::<PyFishState>() {
            let (game, s) = {
                let s = s.borrow();
                (s.game.clone(), s.state)
            };
            // Searched on the board's own word (and small states): one dispatch here.
            return with_fish_state!(
                &*game,
                s,
                |g, s| self.run(py, g.clone(), s, budget),
                Err(PyTypeError::new_err("a Fish state of another board"))
            );
        }
        if let Ok(s) = state.cast::<PyMarathonState>() {
            let (game, s) = {
                let s = s.borrow();
                (s.game.clone(), s.state)
            };
            return self.run(py, game, s, budget);
        }
        Err(PyTypeError::new_err(format!(
            "expected a FishState or a MarathonState, got {}",
            state.get_type().name()?
        )))
    }

    /// Asks a running search to stop now (it returns its best move so far). Thread-safe.
    fn stop(&self) {
        self.stop.stop();
    }

    /// Forgets the kept trees and transposition table.
    fn clear(&self) -> PyResult<()> {
        match self.inner.try_lock() {
            Ok(mut inner) => *inner = Inner::Empty,
            Err(TryLockError::Poisoned(e)) => *e.into_inner() = Inner::Empty,
            Err(TryLockError::WouldBlock) => {
                return Err(PyRuntimeError::new_err(
                    "Searcher is busy: another thread is searching with it",
                ))
            }
        }
        Ok(())
    }

    #[getter]
    fn algorithm(&self) -> &'static str {
        self.options.algorithm.name()
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "a Searcher cannot be pickled (it holds search trees); pickle its settings and make a \
             new one",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Searcher({:?}, threads={}, seed={})",
            self.options.algorithm.name(),
            self.options.threads,
            self.options.seed
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
    let state = state
        .cast::<PyFishState>()
        .map_err(|_| PyTypeError::new_err("fish.solve needs a FishState"))?;
    let (game, s) = {
        let s = state.borrow();
        (s.game.clone(), s.state)
    };
    if max_nodes <= 0 {
        return Err(PyValueError::new_err(format!(
            "max_nodes = {max_nodes}: expected a positive number"
        )));
    }
    let sol = crate::detached::run(py, &StopFlag::new(), |stop| {
        with_fish_state!(
            &*game,
            s,
            |g, s| fish_solver::solve_with_stop(&**g, &s, max_nodes as u64, Some(stop)),
            Err(pingvinas_engine::Error::Invalid(
                "a Fish state of another board".into()
            ))
        )
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

/// The tuple of algorithm names, `"auto"` first (`pingvinas.search.ALGORITHMS`).
fn register_names(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ALGORITHMS", PyTuple::new(m.py(), algorithms())?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySearcher>()?;
    m.add_function(wrap_pyfunction!(fish_solve, m)?)?;
    register_names(m)
}
