//! Bindings of the search: `Searcher` (a player that keeps its trees and transposition table
//! between moves, for one game at a time), and the exact Fish solver. A search takes the state
//! object itself (its shared game and `Copy` state, no JSON) and runs off the GIL on a worker
//! thread that Ctrl-C stops (`detached`).

use std::sync::{Arc, Mutex, TryLockError};

use numpy::{PyArray1, PyArrayMethods};
use pingvinas_engine::fish::eval::{FishEval, FishEvalConfig};
use pingvinas_engine::fish::solver as fish_solver;
use pingvinas_engine::fish::{AnyFish, AnyFishState, FishGame, FishState, Width, W1024};
use pingvinas_engine::marathon::eval::{MarathonEval, MarathonEvalConfig};
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::alphabeta::AlphaBetaConfig;
use pingvinas_engine::search::mcts::{self, Leaf, MctsConfig, Selection};
use pingvinas_engine::search::puct::{Forest, PuctConfig, PuctTree, Stepped, MAX_BATCH};
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

/// The names `algorithm` accepts, `"auto"` first, `"puct"` (which needs an evaluator) last.
pub fn algorithms() -> Vec<&'static str> {
    std::iter::once("auto")
        .chain(Choice::NAMES)
        .chain(std::iter::once("puct"))
        .collect()
}

/// `"auto"`, one of the engine's own algorithms, or PUCT with an evaluator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Algorithm {
    Auto,
    Fixed(Choice),
    Puct,
}

impl Algorithm {
    fn parse(text: &str) -> PyResult<Algorithm> {
        if text == "auto" {
            return Ok(Algorithm::Auto);
        }
        if text == "puct" {
            return Ok(Algorithm::Puct);
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
            // PUCT is searched apart (`PySearcher::run_puct`); MCTS is its nearest kin.
            Algorithm::Puct => Choice::Mcts,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Fixed(c) => c.name(),
            Algorithm::Puct => "puct",
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
    batch_size: usize,
    dirichlet: Option<(f64, f64)>,
}

impl Options {
    fn puct(&self) -> PuctConfig {
        PuctConfig {
            exploration: self
                .exploration
                .unwrap_or(PuctConfig::default().exploration),
            batch_size: self.batch_size,
            dirichlet: self.dirichlet,
            reuse: self.reuse,
            memory_mb: self.memory_mb,
            ..PuctConfig::default()
        }
    }

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
// One per searcher: the wide boards' variants being large costs nothing.
#[allow(clippy::large_enum_variant)]
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
    FishPuct(PuctTree<FishGame, FishEval>),
    FishPuct128(PuctTree<FishGame<u128>, FishEval<u128>>),
    FishPuctWide(PuctTree<FishGame<W1024>, FishEval<W1024>>),
    MarathonPuct(PuctTree<Marathon, MarathonEval>),
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
    /// The kept PUCT tree, taken out of `inner`.
    fn take_puct(inner: &mut Inner) -> Option<PuctTree<Self, Self::Eval>>;
    fn store_puct(tree: PuctTree<Self, Self::Eval>) -> Inner;
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
    ($w:ty, $variant:ident, $puct:ident) => {
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
            fn take_puct(inner: &mut Inner) -> Option<PuctTree<Self, Self::Eval>> {
                match std::mem::take(inner) {
                    Inner::$puct(t) => Some(t),
                    _ => None,
                }
            }
            fn store_puct(tree: PuctTree<Self, Self::Eval>) -> Inner {
                Inner::$puct(tree)
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

fish_searchable!(u64, Fish, FishPuct);
fish_searchable!(u128, Fish128, FishPuct128);
fish_searchable!(W1024, FishWide, FishPuctWide);

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
    fn take_puct(inner: &mut Inner) -> Option<PuctTree<Self, MarathonEval>> {
        match std::mem::take(inner) {
            Inner::MarathonPuct(t) => Some(t),
            _ => None,
        }
    }
    fn store_puct(tree: PuctTree<Self, MarathonEval>) -> Inner {
        Inner::MarathonPuct(tree)
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
    algorithm: &str,
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
            algorithm.into_pyobject(py)?.into_any(),
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
    /// PUCT's evaluator.
    evaluator: Option<Py<PyAny>>,
    inner: Mutex<Inner>,
    stop: StopFlag,
}

/// The kept searcher state, or `RuntimeError` when another thread is searching with it.
fn lock(inner: &Mutex<Inner>) -> PyResult<std::sync::MutexGuard<'_, Inner>> {
    match inner.try_lock() {
        Ok(guard) => Ok(guard),
        Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
            "Searcher is busy: another thread (or its own evaluator) is searching with it (use \
             one Searcher per thread)",
        )),
        // A search that failed midway leaves nothing worth keeping.
        Err(TryLockError::Poisoned(e)) => {
            let mut guard = e.into_inner();
            *guard = Inner::Empty;
            Ok(guard)
        }
    }
}

/// Budgets below which a search runs on the calling thread (with the GIL released) rather than
/// on a worker thread that Ctrl-C stops: the hand-off costs 50-200 us.
const SMALL_ITERATIONS: u64 = 64;
const SMALL_NODES: u64 = 4096;
const SMALL_TIME: std::time::Duration = std::time::Duration::from_millis(2);

/// Whether `budget` ends a search of `choice` within a few milliseconds (its first limit
/// reached ends it; alpha-beta does not count iterations).
fn is_small(choice: Choice, budget: &Budget) -> bool {
    (choice == Choice::Mcts && budget.iterations.is_some_and(|n| n <= SMALL_ITERATIONS))
        || budget.nodes.is_some_and(|n| n <= SMALL_NODES)
        || budget.time.is_some_and(|t| t <= SMALL_TIME)
}

/// The seed of tree `i` of a PUCT search seeded with `seed` (`pv.search` is tree 0).
pub fn tree_seed(seed: u64, i: usize) -> u64 {
    Rng::for_item(seed, i as u64).next_u64()
}

/// The states of a list, all of one game type, with their games.
enum States {
    Fish(Vec<(Arc<FishGame>, FishState)>),
    Fish128(Vec<(Arc<FishGame<u128>>, FishState<u128>)>),
    FishWide(Vec<(Arc<FishGame<W1024>>, FishState<W1024>)>),
    Marathon(Vec<(Arc<Marathon>, <Marathon as Game>::State)>),
}

fn states_of(states: &Bound<'_, PyAny>) -> PyResult<States> {
    let mut fish = Vec::new();
    let mut marathon = Vec::new();
    for (i, item) in states.try_iter()?.enumerate() {
        let item = item?;
        if let Ok(s) = item.cast::<PyFishState>() {
            let s = s.borrow();
            fish.push((s.game.clone(), s.state));
        } else if let Ok(s) = item.cast::<PyMarathonState>() {
            let s = s.borrow();
            marathon.push((s.game.clone(), s.state));
        } else {
            return Err(PyTypeError::new_err(format!(
                "states[{i}]: expected a FishState or a MarathonState, got {}",
                item.get_type().name()?
            )));
        }
        if !fish.is_empty() && !marathon.is_empty() {
            return Err(PyTypeError::new_err(
                "states must all be of one game: Fish and Marathon states are mixed",
            ));
        }
    }
    if !marathon.is_empty() {
        return Ok(States::Marathon(marathon));
    }
    // Each tree runs on its board's bitboard word, so the boards must share one.
    if let Some(list) = narrowed::<u64>(&fish) {
        Ok(States::Fish(list))
    } else if let Some(list) = narrowed::<u128>(&fish) {
        Ok(States::Fish128(list))
    } else if let Some(list) = narrowed::<W1024>(&fish) {
        Ok(States::FishWide(list))
    } else {
        Err(PyValueError::new_err(
            "states are of Fish boards of different size classes (up to 64, 65 to 128, over 128 \
             cells): search those of each class in a call of their own",
        ))
    }
}

/// The concrete games and states of `fish` when all have the word `W`.
#[allow(clippy::type_complexity)]
fn narrowed<W: Width>(
    fish: &[(Arc<AnyFish>, AnyFishState)],
) -> Option<Vec<(Arc<FishGame<W>>, FishState<W>)>> {
    fish.iter()
        .map(|(g, s)| Some((W::game_of(g)?.clone(), *W::state_of(s)?)))
        .collect()
}

/// PUCT over `states` (one tree each, the trees given or new ones seeded `(seed, i)`), driven
/// by the Python `evaluator`; the trees come back with the results.
#[allow(clippy::type_complexity)]
fn puct_search<G: Searchable>(
    py: Python<'_>,
    trees: Vec<PuctTree<G, G::Eval>>,
    states: &[G::State],
    budget: &Budget,
    stop: &StopFlag,
    evaluator: &Bound<'_, PyAny>,
) -> PyResult<(Vec<SearchResult>, Vec<PuctTree<G, G::Eval>>)>
where
    G::State: Send,
{
    let Some(first) = trees.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let shape = first.game().observation_shape();
    let mut forest = Forest::new(trees).py()?;
    forest.start(states, budget, stop.clone()).py()?;
    crate::evaluator::drive(py, &mut forest, shape, evaluator, |_| Ok(()))?;
    let results = forest.results();
    Ok((results, forest.trees))
}

impl PySearcher {
    /// A PUCT search of `state`, keeping the tree for the next move.
    fn run_puct<'py, G: Searchable>(
        &self,
        py: Python<'py>,
        game: Arc<G>,
        state: G::State,
        budget: Budget,
    ) -> PyResult<Bound<'py, PyTuple>>
    where
        G::State: Send,
    {
        // Set when the searcher was made; gone only after the garbage collector cleared it.
        let Some(evaluator) = self.evaluator.as_ref().map(|e| e.bind(py)) else {
            return Err(PyRuntimeError::new_err(
                "this Searcher's evaluator was cleared by the garbage collector",
            ));
        };
        let budget = budget_for(Choice::Mcts, budget);
        let mut inner = lock(&self.inner)?;
        self.stop.reset();
        let tree = match G::take_puct(&mut inner) {
            Some(t) if Arc::ptr_eq(t.game(), &game) || **t.game() == *game => t,
            _ => PuctTree::new(
                game.clone(),
                game.eval(&self.options),
                self.options.puct(),
                tree_seed(self.options.seed, 0),
            ),
        };
        let (results, mut trees) =
            puct_search(py, vec![tree], &[state], &budget, &self.stop, evaluator)?;
        if let Some(tree) = trees.pop() {
            *inner = G::store_puct(tree);
        }
        result_tuple(py, &*game, &state, &results[0], "puct")
    }

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
        if self.options.algorithm == Algorithm::Puct {
            return self.run_puct(py, game, state, budget);
        }
        let choice = self.options.algorithm.choice(&*game);
        let budget = budget_for(choice, budget);
        let mut inner = lock(&self.inner)?;
        self.stop.reset();
        let options = &self.options;
        let kept = kept(&mut inner, &game, choice, options);
        let mut search = |stop: &StopFlag| {
            kept.searcher
                .search(&*kept.game, &*kept.eval, &state, &budget, stop.clone())
        };
        // Greedy and random look one ply ahead, and small budgets end within a few
        // milliseconds: not worth a worker thread (Ctrl-C is seen as soon as they return).
        let result =
            if matches!(choice, Choice::Greedy | Choice::Random) || is_small(choice, &budget) {
                let stop = self.stop.clone();
                py.detach(move || search(&stop))
            } else {
                crate::detached::run(py, &self.stop, search)?
            }
            .py()?;
        result_tuple(py, &*game, &state, &result, choice.name())
    }
}

#[pymethods]
impl PySearcher {
    // The evaluator may refer back to the searcher (a bound method of an object holding it):
    // show it to the garbage collector so that such cycles are freed.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(e) = &self.evaluator {
            visit.call(e)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.evaluator = None;
    }

    #[new]
    #[pyo3(signature = (algorithm = "auto", *, threads = None, seed = None, exploration = None, selection = "uct", playout = "auto", knowledge = true, tt_mb = None, memory_mb = None, reuse = true, evaluator = None, batch_size = None, dirichlet = None))]
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
        evaluator: Option<&Bound<'_, PyAny>>,
        batch_size: Option<&Bound<'_, PyAny>>,
        dirichlet: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let algorithm = Algorithm::parse(algorithm)?;
        let evaluator = evaluator.filter(|e| !e.is_none());
        let evaluator = match (algorithm, evaluator) {
            (Algorithm::Puct, Some(e)) => Some(crate::evaluator::check_evaluator(e)?),
            (Algorithm::Puct, None) => {
                return Err(PyValueError::new_err(
                    "algorithm = \"puct\" needs an evaluator: a callable fn(observations, \
                     legal_mask) -> (policy_logits, values)",
                ))
            }
            (_, Some(_)) => {
                return Err(PyValueError::new_err(format!(
                    "an evaluator is only used by algorithm = \"puct\", not {:?}",
                    algorithm.name()
                )))
            }
            (_, None) => None,
        };
        let batch_size = match batch_size {
            Some(b) if !b.is_none() => args::count(b, "batch_size", 1, MAX_BATCH as u64)? as usize,
            _ => 16,
        };
        let dirichlet = dirichlet_arg(dirichlet)?;
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
                batch_size,
                dirichlet,
            },
            evaluator,
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
        *lock(&self.inner)? = Inner::Empty;
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

/// `dirichlet`: None, or a pair (alpha, fraction).
pub fn dirichlet_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<(f64, f64)>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let pair: (f64, f64) = v.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "dirichlet must be None or a pair (alpha, fraction) of numbers, got {}",
            args::quote(v)
        ))
    })?;
    let (alpha, fraction) = pair;
    if !alpha.is_finite() || !(1e-3..=1e3).contains(&alpha) {
        return Err(PyValueError::new_err(format!(
            "dirichlet alpha = {alpha}: expected a number from 0.001 to 1000"
        )));
    }
    if !fraction.is_finite() || !(0.0..=1.0).contains(&fraction) {
        return Err(PyValueError::new_err(format!(
            "dirichlet fraction = {fraction}: expected a number from 0 to 1"
        )));
    }
    Ok(Some(pair))
}

/// PUCT searches of many states at once, one tree each, all trees' leaves valued in one
/// evaluator call per round (see `pingvinas.search.search_many`). Returns one result tuple per
/// state (as `Searcher.search`).
#[pyfunction]
#[pyo3(signature = (states, *, evaluator, time = None, iterations = None, nodes = None, batch_size = None, seed = None, exploration = None, dirichlet = None, knowledge = true, memory_mb = None))]
#[allow(clippy::too_many_arguments)]
pub fn search_many<'py>(
    py: Python<'py>,
    states: &Bound<'py, PyAny>,
    evaluator: &Bound<'py, PyAny>,
    time: Option<f64>,
    iterations: Option<i64>,
    nodes: Option<i64>,
    batch_size: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    exploration: Option<f64>,
    dirichlet: Option<&Bound<'py, PyAny>>,
    knowledge: bool,
    memory_mb: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let searcher = PySearcher::new(
        "puct",
        None,
        seed,
        exploration,
        "uct",
        "auto",
        knowledge,
        None,
        memory_mb,
        false,
        Some(evaluator),
        batch_size,
        dirichlet,
    )?;
    let budget = budget_for(
        Choice::Mcts,
        Budget::checked(time, iterations, nodes, None).py()?,
    );
    let options = &searcher.options;
    let out = PyList::empty(py);
    match states_of(states)? {
        States::Fish(list) => many(py, &list, options, &budget, evaluator, &out)?,
        States::Fish128(list) => many(py, &list, options, &budget, evaluator, &out)?,
        States::FishWide(list) => many(py, &list, options, &budget, evaluator, &out)?,
        States::Marathon(list) => many(py, &list, options, &budget, evaluator, &out)?,
    }
    Ok(out)
}

fn many<'py, G: Searchable>(
    py: Python<'py>,
    list: &[(Arc<G>, G::State)],
    options: &Options,
    budget: &Budget,
    evaluator: &Bound<'py, PyAny>,
    out: &Bound<'py, PyList>,
) -> PyResult<()>
where
    G::State: Send,
{
    let states: Vec<G::State> = list.iter().map(|(_, s)| *s).collect();
    let trees = new_trees(list, options);
    let (results, _) = puct_search(py, trees, &states, budget, &StopFlag::new(), evaluator)?;
    for ((g, s), r) in list.iter().zip(&results) {
        out.append(result_tuple(py, &**g, s, r, "puct")?)?;
    }
    Ok(())
}

/// A fresh PUCT tree for each game of `list`, tree `i` seeded `(seed, i)`.
fn new_trees<G: Searchable>(
    list: &[(Arc<G>, G::State)],
    options: &Options,
) -> Vec<PuctTree<G, G::Eval>> {
    let config = options.puct();
    list.iter()
        .enumerate()
        .map(|(i, (g, _))| {
            PuctTree::new(
                g.clone(),
                g.eval(options),
                config,
                tree_seed(options.seed, i),
            )
        })
        .collect()
}

/// For benchmarks: `search_many` driven by a Rust evaluator (zero logits and values) instead
/// of a Python one, so that the protocol's cost can be told from the search's own. Returns
/// the seconds the searches took.
#[pyfunction]
#[pyo3(signature = (states, *, iterations, batch_size, seed = 0, knowledge = true))]
fn _search_many_native(
    py: Python<'_>,
    states: &Bound<'_, PyAny>,
    iterations: i64,
    batch_size: usize,
    seed: u64,
    knowledge: bool,
) -> PyResult<f64> {
    fn go<G: Searchable>(
        py: Python<'_>,
        list: &[(Arc<G>, G::State)],
        options: &Options,
        budget: &Budget,
    ) -> PyResult<f64>
    where
        G::State: Send,
    {
        let states: Vec<G::State> = list.iter().map(|(_, s)| *s).collect();
        let mut forest = Forest::new(new_trees(list, options)).py()?;
        py.detach(|| {
            let t = std::time::Instant::now();
            forest.start(&states, budget, StopFlag::new())?;
            // The evaluator's answers: zeros, never written (as the benchmark's trivial
            // Python evaluator returns preallocated zeros).
            let (obs_len, a_len, n) = (
                forest.obs_len(),
                Stepped::num_actions(&forest),
                Stepped::num_players(&forest),
            );
            let cap = forest.capacity();
            let mut obs = vec![0.0f32; cap * obs_len];
            let mut mask = vec![false; cap * a_len];
            let policy = vec![0.0f32; cap * a_len];
            let values = vec![0.0f32; cap * n];
            while !forest.is_done() {
                forest.gather(&mut obs, &mut mask);
                forest.backup(&policy, &values);
            }
            Ok(t.elapsed().as_secs_f64())
        })
        .py()
    }
    let options = Options {
        algorithm: Algorithm::Puct,
        threads: 1,
        seed,
        exploration: None,
        selection: Selection::Puct,
        playout: "auto".into(),
        knowledge,
        tt_mb: 1,
        memory_mb: mcts::DEFAULT_MEMORY_MB,
        reuse: false,
        batch_size: batch_size.clamp(1, MAX_BATCH),
        dirichlet: None,
    };
    let budget = Budget::checked(None, Some(iterations), None, None).py()?;
    match states_of(states)? {
        States::Fish(list) => go(py, &list, &options, &budget),
        States::Fish128(list) => go(py, &list, &options, &budget),
        States::FishWide(list) => go(py, &list, &options, &budget),
        States::Marathon(list) => go(py, &list, &options, &budget),
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
    m.add_function(wrap_pyfunction!(search_many, m)?)?;
    m.add_function(wrap_pyfunction!(_search_many_native, m)?)?;
    register_names(m)
}
