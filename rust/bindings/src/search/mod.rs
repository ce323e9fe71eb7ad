//! Bindings of the search: `Searcher` (a player that keeps its trees and transposition table
//! between moves, for one game at a time), and the exact Fish solver. A search takes the state
//! object itself (its shared game and `Copy` state, no JSON) and runs off the GIL on a worker
//! thread that Ctrl-C stops (`detached`).

use std::any::Any;
use std::sync::{Arc, Mutex, TryLockError};

use numpy::{PyArray1, PyArrayMethods};
use pingvinas_engine::every_game::cached_eval;
use pingvinas_engine::fish::solver as fish_solver;
use pingvinas_engine::net::{AutoEval, CellFeatures, WithNet};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::agent::AgentSpec;
use pingvinas_engine::search::algorithms::{default_budget, Algorithm, Settings};
use pingvinas_engine::search::forest::SharedTree;
use pingvinas_engine::search::forest::{Forest, Stepped};
use pingvinas_engine::search::mcts::{self, Selection};
use pingvinas_engine::search::puct::{PuctTree, RootRule, MAX_BATCH};
use pingvinas_engine::search::tt;
use pingvinas_engine::search::{
    Budget, Choice, Evaluate, Playout, SearchResult, Searcher, StopFlag,
};
use pingvinas_engine::{with_game, with_game_state};
use pingvinas_engine::{AnyGame, AnyState, Concrete};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::args;
use crate::errors::ToPyResult;
use crate::fish::PyFishState;
use crate::state::Bind;

/// The settings of a searcher: the engine's, checked as given from Python.
type Options = Settings;

/// What a searcher keeps for one game: the game it was made for (its trees and table mean
/// nothing on another board or course), the evaluation `E` and the engine searcher.
struct Kept<G: Concrete, E> {
    game: Arc<G>,
    eval: Arc<E>,
    choice: Choice,
    searcher: Searcher<G::State>,
}

/// What a searcher keeps from the game searched last: a [`Kept`] or a PUCT tree of that
/// game's type, found again by downcasting to the type of the game searched now.
type Inner = Option<Box<dyn Any + Send>>;

/// The evaluation of `game` for these settings.
fn eval_for<G: Concrete>(options: &Options, game: &Arc<G>) -> Arc<G::Eval> {
    cached_eval(game, options.knowledge, options.playout)
}

/// The kept searcher for `game`, made afresh (with the evaluation `eval()`) when the game
/// (board, course, rules) or the algorithm differs from the last search's.
fn kept<'a, G: Concrete, E: Send + Sync + 'static>(
    inner: &'a mut Inner,
    game: &Arc<G>,
    choice: Choice,
    options: &Options,
    eval: impl FnOnce() -> Arc<E>,
) -> &'a mut Kept<G, E> {
    let reusable = inner
        .as_mut()
        .and_then(|b| b.downcast_mut::<Kept<G, E>>())
        .is_some_and(|k| k.choice == choice && (Arc::ptr_eq(&k.game, game) || *k.game == **game));
    if !reusable {
        *inner = Some(Box::new(Kept {
            game: game.clone(),
            eval: eval(),
            choice,
            searcher: options.searcher_for(&**game, choice),
        }));
    }
    inner
        .as_mut()
        .and_then(|b| b.downcast_mut::<Kept<G, E>>())
        .expect("just stored")
}

/// Gumbel's improved policy at the root of `tree` (`PuctTree::improved_policy`) as a float32
/// array over the actions (0 for moves it does not keep); None for a tree with the PUCT root.
fn improved_policy<'py, G: Concrete>(
    py: Python<'py>,
    tree: &PuctTree<G, G::Eval>,
) -> Bound<'py, PyAny> {
    if !matches!(tree.config().root, RootRule::Gumbel(_)) {
        return py.None().into_bound(py);
    }
    let policy = PyArray1::<f32>::zeros(py, tree.game().num_actions(), false);
    {
        // SAFETY: made just above, contiguous, not shared.
        let out = unsafe { policy.as_slice_mut() }.expect("contiguous");
        for (a, p) in tree.improved_policy() {
            out[a as usize] = p;
        }
    }
    policy.into_any()
}

/// The tuple `search.SearchResult` is built from (`improved`: its `improved_policy`).
fn result_tuple<'py, G: Bind>(
    py: Python<'py>,
    game: &G,
    state: &G::State,
    r: &SearchResult,
    algorithm: &str,
    improved: Bound<'py, PyAny>,
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
            improved,
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
    /// The other algorithms' net: their position estimates (`WithNet`).
    net: Option<crate::net::Estimate>,
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
            *guard = None;
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

/// The games and states of a list of state objects, all of one game.
fn states_of(states: &Bound<'_, PyAny>) -> PyResult<Vec<(AnyGame, AnyState)>> {
    let mut list: Vec<(AnyGame, AnyState)> = Vec::new();
    for (i, item) in states.try_iter()?.enumerate() {
        let item = item?;
        let Some((game, state)) = crate::dispatch::state_of(&item) else {
            return Err(PyTypeError::new_err(format!(
                "states[{i}]: expected a FishState or a MarathonState, got {}",
                item.get_type().name()?
            )));
        };
        if list.first().is_some_and(|(g, _)| g.name() != game.name()) {
            return Err(PyTypeError::new_err(
                "states must all be of one game: Fish and Marathon states are mixed",
            ));
        }
        list.push((game, state));
    }
    Ok(list)
}

/// The concrete games and states of `list`, of the type of `_sample`. Fish trees run on their
/// board's bitboard word, so the boards must share one.
#[allow(clippy::type_complexity)]
fn concrete<G: Concrete>(
    _sample: &Arc<G>,
    list: &[(AnyGame, AnyState)],
) -> PyResult<Vec<(Arc<G>, G::State)>> {
    list.iter()
        .map(|(g, s)| Some((G::game_of(g)?.clone(), *G::state_of(s)?)))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            PyValueError::new_err(
                "states are of Fish boards of different size classes (up to 64, 65 to 128, \
                 over 128 cells): search those of each class in a call of their own",
            )
        })
}

/// PUCT over `states` (one tree each, the trees given or new ones seeded `(seed, i)`), driven
/// by `evaluator`; the trees come back with the results. A native `Net` runs on `threads`
/// threads: many trees are shared out between them (each tree's result as on one thread), one
/// tree is searched by all of them at once (`SharedTree`). A Python evaluator runs on this
/// thread.
#[allow(clippy::type_complexity)]
fn puct_search<G: Concrete + Bind>(
    py: Python<'_>,
    mut trees: Vec<PuctTree<G, G::Eval>>,
    states: &[G::State],
    budget: &Budget,
    stop: &StopFlag,
    evaluator: &Bound<'_, PyAny>,
    threads: usize,
) -> PyResult<(Vec<SearchResult>, Vec<PuctTree<G, G::Eval>>)>
where
    G::State: Send,
{
    let Some(first) = trees.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let shape = first.game().observation_shape();
    let net = evaluator
        .cast::<crate::net::PyNet>()
        .ok()
        .filter(|_| threads > 1);
    if let (Some(net), 1) = (&net, trees.len()) {
        let tree = trees.pop().expect("one tree");
        let state = states
            .first()
            .ok_or_else(|| PyValueError::new_err(format!("{} states for 1 tree", states.len())))?;
        let shared = SharedTree::start(tree, state, budget, stop.clone()).py()?;
        let mut workers = shared.workers(threads);
        crate::net::drive_parts(py, &mut workers, &net.get().mlp, shape, |_| Ok(()))?;
        drop(workers);
        let (result, tree) = shared.finish();
        return Ok((vec![result], vec![tree]));
    }
    let mut forest = Forest::new(trees).py()?;
    forest.start(states, budget, stop.clone()).py()?;
    match net {
        Some(net) => {
            let mut parts = forest.split(threads);
            crate::net::drive_parts(py, &mut parts, &net.get().mlp, shape, |_| Ok(()))?;
            let results = parts.iter().flat_map(Forest::results).collect();
            Ok((results, parts.into_iter().flat_map(|f| f.trees).collect()))
        }
        None => {
            crate::evaluator::drive(py, &mut forest, shape, evaluator, |_| Ok(()))?;
            let results = forest.results();
            Ok((results, forest.trees))
        }
    }
}

impl PySearcher {
    /// A PUCT search of `state`, keeping the tree for the next move.
    fn run_puct<'py, G: Concrete + Bind>(
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
        let budget = default_budget(Choice::Mcts, budget);
        let mut inner = lock(&self.inner)?;
        self.stop.reset();
        let kept = inner
            .take()
            .and_then(|b| b.downcast::<PuctTree<G, G::Eval>>().ok());
        let tree = match kept {
            Some(t) if Arc::ptr_eq(t.game(), &game) || **t.game() == *game => *t,
            _ => PuctTree::new(
                game.clone(),
                eval_for(&self.options, &game),
                self.options.puct(),
                tree_seed(self.options.seed, 0),
            ),
        };
        let (results, mut trees) = puct_search(
            py,
            vec![tree],
            &[state],
            &budget,
            &self.stop,
            evaluator,
            self.options.threads,
        )?;
        let improved = match trees.first() {
            Some(tree) => improved_policy(py, tree),
            None => py.None().into_bound(py),
        };
        if let Some(tree) = trees.pop() {
            *inner = Some(Box::new(tree));
        }
        result_tuple(py, &*game, &state, &results[0], "puct", improved)
    }

    fn run<'py, G: Concrete + Bind + CellFeatures>(
        &self,
        py: Python<'py>,
        game: Arc<G>,
        state: G::State,
        budget: Budget,
    ) -> PyResult<Bound<'py, PyTuple>>
    where
        G::State: Send,
    {
        use crate::net::Estimate;
        if self.options.algorithm == Algorithm::Puct {
            return self.run_puct(py, game, state, budget);
        }
        match &self.net {
            // `auto` with the game's knowledge: with the learned net where the game has one.
            None if self.options.algorithm == Algorithm::Auto && self.options.knowledge => self
                .run_with(py, game, state, budget, |options, game| {
                    Arc::new(AutoEval::new(&**game, eval_for(options, game)))
                }),
            None => self.run_with(py, game, state, budget, eval_for),
            Some(Estimate::Mlp(net)) => {
                net.fits().check(&*game).py()?;
                self.run_with(py, game, state, budget, |options, game| {
                    Arc::new(WithNet {
                        base: eval_for(options, game),
                        net: net.clone(),
                    })
                })
            }
            Some(Estimate::Nnue(net)) => {
                net.check(&*game).py()?;
                self.run_with(py, game, state, budget, |options, game| {
                    Arc::new(WithNet {
                        base: eval_for(options, game),
                        net: net.clone(),
                    })
                })
            }
        }
    }

    /// A search with the evaluation `eval` makes (kept with the searcher).
    fn run_with<'py, G: Concrete + Bind, E: Evaluate<G> + 'static>(
        &self,
        py: Python<'py>,
        game: Arc<G>,
        state: G::State,
        budget: Budget,
        eval: impl FnOnce(&Options, &Arc<G>) -> Arc<E>,
    ) -> PyResult<Bound<'py, PyTuple>>
    where
        G::State: Send,
    {
        let choice = self.options.algorithm.choice(&*game);
        let budget = default_budget(choice, budget);
        let mut inner = lock(&self.inner)?;
        self.stop.reset();
        let options = &self.options;
        let kept = kept(&mut inner, &game, choice, options, || eval(options, &game));
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
                crate::off_gil::run(py, &self.stop, search)?
            }
            .py()?;
        result_tuple(
            py,
            &*game,
            &state,
            &result,
            choice.name(),
            py.None().into_bound(py),
        )
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
    #[pyo3(signature = (algorithm = "auto", *, threads = None, seed = None, exploration = None, selection = "uct", playout = "auto", knowledge = true, tt_mb = None, memory_mb = None, reuse = true, evaluator = None, batch_size = None, dirichlet = None, root = "puct", playout_mix = 0.0))]
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
        root: &str,
        playout_mix: f64,
    ) -> PyResult<Self> {
        let root_name = root;
        let defaults = Settings::default();
        if !(0.0..=1.0).contains(&playout_mix) {
            return Err(PyValueError::new_err(format!(
                "playout_mix = {playout_mix}: expected a number from 0 to 1"
            )));
        }
        let algorithm = Algorithm::parse(algorithm).py()?;
        let given = evaluator.filter(|e| !e.is_none());
        let evaluator = match (algorithm, given) {
            (Algorithm::Puct, Some(e)) => Some(crate::evaluator::check_evaluator(e)?),
            (Algorithm::Puct, None) => {
                return Err(PyValueError::new_err(
                    "algorithm = \"puct\" needs an evaluator: a callable fn(observations, \
                     legal_mask) -> (policy_logits, values)",
                ))
            }
            (_, Some(e)) if crate::net::estimate_of(e).is_none() => {
                return Err(PyValueError::new_err(format!(
                    "algorithm = {:?} takes only a pingvinas Net or NnueNet as its evaluator (its \
                     position estimates); a Python evaluator is used by algorithm = \"puct\"",
                    algorithm.name()
                )))
            }
            (_, _) => None,
        };
        let net = match (algorithm, given) {
            (Algorithm::Puct, _) | (_, None) => None,
            (_, Some(e)) => crate::net::estimate_of(e),
        };
        let batch_size = match batch_size {
            Some(b) if !b.is_none() => args::count(b, "batch_size", 1, MAX_BATCH as u64)? as usize,
            _ => defaults.batch_size,
        };
        let dirichlet = dirichlet_arg(dirichlet)?;
        let root = RootRule::parse(root).py()?;
        if root != RootRule::Puct && algorithm != Algorithm::Puct {
            return Err(PyValueError::new_err(format!(
                "root = {:?} is a root rule of PUCT: give algorithm = \"puct\" (with an \
                 evaluator), not {:?}",
                args::cut(root_name),
                algorithm.name()
            )));
        }
        let threads = match threads {
            Some(t) if !t.is_none() => args::count(t, "threads", 1, 256)? as usize,
            _ => defaults.threads,
        };
        if let Some(c) = exploration {
            if !c.is_finite() || !(0.0..=1e6).contains(&c) {
                return Err(PyValueError::new_err(format!(
                    "exploration = {c}: expected a finite number from 0 to 1e6"
                )));
            }
        }
        let selection = selection.parse::<Selection>().map_err(|e| {
            PyValueError::new_err(format!("selection = {}", args::cut(&e.to_string())))
        })?;
        let playout = playout.parse::<Playout>().map_err(|e| {
            PyValueError::new_err(format!("playout = {}", args::cut(&e.to_string())))
        })?;
        let tt_mb = match tt_mb {
            Some(t) if !t.is_none() => args::count(t, "tt_mb", 1, tt::MAX_TT_MB as u64)? as usize,
            _ => defaults.tt_mb,
        };
        let memory_mb = match memory_mb {
            Some(m) if !m.is_none() => {
                args::count(m, "memory_mb", 1, mcts::MAX_MEMORY_MB as u64)? as usize
            }
            _ => defaults.memory_mb,
        };
        Ok(PySearcher {
            options: Options {
                algorithm,
                threads,
                seed: seed.map_or(Ok(0), args::seed)?,
                exploration,
                selection,
                playout,
                knowledge,
                tt_mb,
                memory_mb,
                reuse,
                batch_size,
                dirichlet,
                root,
                playout_mix,
            },
            evaluator,
            net,
            inner: Mutex::new(None),
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
        time: Option<&Bound<'py, PyAny>>,
        iterations: Option<&Bound<'py, PyAny>>,
        nodes: Option<&Bound<'py, PyAny>>,
        depth: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let budget = budget_arg(time, iterations, nodes, depth)?;
        let (game, s) = crate::dispatch::state_arg(state, "a FishState or a MarathonState")?;
        // Searched on the concrete game (a Fish board's own word, small states): one dispatch.
        with_game_state!(
            &game,
            &s,
            |g, s| self.run(py, g.clone(), *s, budget),
            Err(PyTypeError::new_err("a Fish state of another board"))
        )
    }

    /// Asks a running search to stop now (it returns its best move so far). Thread-safe.
    fn stop(&self) {
        self.stop.stop();
    }

    /// Forgets the kept trees and transposition table.
    fn clear(&self) -> PyResult<()> {
        *lock(&self.inner)? = None;
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
#[pyo3(signature = (states, *, evaluator, time = None, iterations = None, nodes = None, batch_size = None, seed = None, exploration = None, dirichlet = None, knowledge = true, memory_mb = None, root = "puct", threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn search_many<'py>(
    py: Python<'py>,
    states: &Bound<'py, PyAny>,
    evaluator: &Bound<'py, PyAny>,
    time: Option<&Bound<'py, PyAny>>,
    iterations: Option<&Bound<'py, PyAny>>,
    nodes: Option<&Bound<'py, PyAny>>,
    batch_size: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    exploration: Option<f64>,
    dirichlet: Option<&Bound<'py, PyAny>>,
    knowledge: bool,
    memory_mb: Option<&Bound<'py, PyAny>>,
    root: &str,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let searcher = PySearcher::new(
        "puct",
        threads,
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
        root,
        0.0,
    )?;
    let budget = default_budget(Choice::Mcts, budget_arg(time, iterations, nodes, None)?);
    let options = &searcher.options;
    let out = PyList::empty(py);
    let list = states_of(states)?;
    if let Some((first, _)) = list.first() {
        with_game!(first, |g| many(
            py,
            &concrete(g, &list)?,
            options,
            &budget,
            evaluator,
            &out
        )?);
    }
    Ok(out)
}

fn many<'py, G: Concrete + Bind>(
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
    let (results, trees) = puct_search(
        py,
        trees,
        &states,
        budget,
        &StopFlag::new(),
        evaluator,
        options.threads,
    )?;
    for (((g, s), r), tree) in list.iter().zip(&results).zip(&trees) {
        let improved = improved_policy(py, tree);
        out.append(result_tuple(py, &**g, s, r, "puct", improved)?)?;
    }
    Ok(())
}

/// A fresh PUCT tree for each game of `list`, tree `i` seeded `(seed, i)`.
fn new_trees<G: Concrete + Bind>(
    list: &[(Arc<G>, G::State)],
    options: &Options,
) -> Vec<PuctTree<G, G::Eval>> {
    let config = options.puct();
    list.iter()
        .enumerate()
        .map(|(i, (g, _))| {
            PuctTree::new(
                g.clone(),
                eval_for(options, g),
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
    iterations: &Bound<'_, PyAny>,
    batch_size: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::seed)] seed: u64,
    knowledge: bool,
) -> PyResult<f64> {
    let budget = budget_arg(None, Some(iterations), None, None)?;
    let batch_size = args::count(batch_size, "batch_size", 1, MAX_BATCH as u64)? as usize;
    fn go<G: Concrete + Bind>(
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
        seed,
        selection: Selection::Puct,
        knowledge,
        tt_mb: 1,
        reuse: false,
        batch_size,
        ..Settings::default()
    };
    let list = states_of(states)?;
    match list.first() {
        Some((first, _)) => with_game!(first, |g| go(py, &concrete(g, &list)?, &options, &budget)),
        None => Ok(0.0),
    }
}

/// The budget of a call from its keywords, each count checked for its range (before it can
/// overflow an integer type) by a message that names it.
fn budget_arg(
    time: Option<&Bound<'_, PyAny>>,
    iterations: Option<&Bound<'_, PyAny>>,
    nodes: Option<&Bound<'_, PyAny>>,
    depth: Option<&Bound<'_, PyAny>>,
) -> PyResult<Budget> {
    use pingvinas_engine::search::budget::{MAX_DEPTH, MAX_ITERATIONS, MAX_NODES};
    let count = |v, what, max| args::opt_count(v, what, 1, max).map(|n| n.map(|n| n as i64));
    Budget::checked(
        args::opt_seconds(time, "time")?,
        count(iterations, "iterations", MAX_ITERATIONS)?,
        count(nodes, "nodes", MAX_NODES)?,
        count(depth, "depth", MAX_DEPTH as u64)?,
    )
    .py()
}

/// `max_nodes` of `fish_solve`: 1 to [`pingvinas_engine::search::budget::MAX_NODES`].
fn max_nodes_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    use pingvinas_engine::search::budget::MAX_NODES;
    args::count(value, "max_nodes", 1, MAX_NODES)
}

/// `tt_mb` of `fish_solve`: 1 to the solver's largest table.
fn tt_mb_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    args::count(value, "tt_mb", 1, fish_solver::MAX_TABLE_MB as u64)
}

/// Solves a small Fish position exactly. Returns a dict: scores ([(fish, floes)] per player
/// after optimal play), best (action, None when over), moves (every optimal action, best
/// first), values ([(action, (fish, floes))] of the optimal actions, or of every legal one with
/// `all_values`), pv (actions), value ((fish, floes) difference for the player to move),
/// nodes, time (seconds). Raises ValueError for a finished game, a position too large (more
/// than `max_nodes` positions or `time` seconds) or a bad `tt_mb`, MemoryError when `tt_mb`
/// MiB are more than the memory available, KeyboardInterrupt on Ctrl-C; `progress(nodes,
/// seconds)` is called about every 0.25 s while it runs (an exception it raises stops the
/// solve and is raised).
#[pyfunction]
#[pyo3(signature = (state, *, max_nodes = 50_000_000, time = None, tt_mb = 512, symmetry = true, all_values = false, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn fish_solve<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = max_nodes_arg)] max_nodes: u64,
    time: Option<f64>,
    #[pyo3(from_py_with = tt_mb_arg)] tt_mb: u64,
    symmetry: bool,
    all_values: bool,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    let state = state
        .cast::<PyFishState>()
        .map_err(|_| PyTypeError::new_err("fish.solve needs a FishState"))?;
    let (game, s) = {
        let s = state.borrow();
        (s.game.clone(), s.state)
    };
    let time = match time {
        // A NaN is not finite: refused too.
        Some(t) if t <= 0.0 || !t.is_finite() => {
            return Err(PyValueError::new_err(format!(
                "time = {}: expected a positive number of seconds",
                pingvinas_engine::error::short_number(t)
            )));
        }
        // Past what a duration holds: no limit in practice.
        t => t.map(|t| Duration::try_from_secs_f64(t).unwrap_or(Duration::MAX)),
    };
    // The signature's default is the engine's (a literal, so that Python sees it).
    debug_assert_eq!(fish_solver::DEFAULT_TT_MB, 512);
    let options = fish_solver::SolveOptions {
        max_nodes,
        time,
        tt_mb: tt_mb as usize,
        symmetry,
        all_values,
    };
    let nodes = AtomicU64::new(0);
    let start = Instant::now();
    let mut last = start;
    let work = |stop: &StopFlag| {
        fish_solver::solve_any(&game, &s, options, Some(stop), Some(&nodes)).unwrap_or_else(|| {
            Err(pingvinas_engine::Error::Invalid(
                "a Fish state of another board".into(),
            ))
        })
    };
    let report = |py: Python<'_>| -> PyResult<()> {
        let Some(f) = progress else { return Ok(()) };
        if last.elapsed() >= Duration::from_millis(250) {
            last = Instant::now();
            f.call1((nodes.load(Ordering::Relaxed), start.elapsed().as_secs_f64()))?;
        }
        let _ = py;
        Ok(())
    };
    let sol = crate::off_gil::run_reporting(py, &StopFlag::new(), work, report)?.py()?;
    let d = PyDict::new(py);
    d.set_item("scores", sol.scores)?;
    d.set_item("best", sol.best)?;
    d.set_item("moves", sol.moves)?;
    d.set_item("values", sol.values)?;
    d.set_item("pv", sol.pv)?;
    d.set_item("value", sol.value)?;
    d.set_item("nodes", sol.nodes)?;
    d.set_item("time", start.elapsed().as_secs_f64())?;
    Ok(d)
}

/// A built-in player named in text, parsed by the engine: ``"random"``, ``"greedy"``,
/// ``"mcts"``, ``"mcts:N"`` (N iterations a move), ``"alphabeta"``, ``"alphabeta:D"`` (depth
/// D), ``"learned"``, ``"learned:D"`` (alpha-beta with the learned evaluation that ships),
/// ``"solve"`` (perfect play: the exact Fish solver) or ``"auto"`` (the game's choice);
/// with a net file, ``"net:PATH"`` (PUCT with the net and a Gumbel root; ``"puct:N+net:PATH"``
/// for N simulations a move) or ``"SPEC+net:PATH"`` (SPEC one of mcts, alphabeta, auto, with
/// the net as its position estimate). Everything after ``net:`` is the path (it may hold
/// ``:``). ``str(spec)`` is its canonical text. Raises ``ValueError`` for any other text (the
/// file is read by whoever plays the spec).
#[pyclass(module = "pingvinas._core", name = "AgentSpec", frozen, eq)]
#[derive(PartialEq)]
pub struct PyAgentSpec {
    spec: AgentSpec,
}

#[pymethods]
impl PyAgentSpec {
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        let spec = AgentSpec::parse(text)
            .map_err(|e| PyValueError::new_err(format!("agent {}", args::cut(&e.to_string()))))?;
        Ok(PyAgentSpec { spec })
    }

    /// The agent names, without counts.
    #[classattr]
    #[allow(non_snake_case)]
    fn NAMES(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        PyTuple::new(py, AgentSpec::NAMES)
    }

    /// The algorithm it runs: ``"random"``, ``"greedy"``, ``"mcts"``, ``"alphabeta"`` (also
    /// for ``"learned"``), ``"solve"``, ``"auto"`` or ``"puct"`` (``"net:PATH"``).
    #[getter]
    fn algorithm(&self) -> &'static str {
        match self.spec.learned {
            true => Choice::AlphaBeta.name(),
            false => self.spec.name(),
        }
    }

    /// Whether it is ``"learned"``: alpha-beta with the learned evaluation that ships
    /// (``pingvinas.evaluators.learned()``).
    #[getter]
    fn learned(&self) -> bool {
        self.spec.learned
    }

    /// N of ``"mcts:N"`` or ``"puct:N+net:PATH"``, else None.
    #[getter]
    fn iterations(&self) -> Option<u64> {
        self.spec
            .count
            .filter(|_| self.spec.puct || self.spec.choice == Some(Choice::Mcts))
    }

    /// The path of the net file of ``"net:PATH"`` and ``"SPEC+net:PATH"``, else None.
    #[getter]
    fn net(&self) -> Option<String> {
        self.spec.net.clone()
    }

    /// D of ``"alphabeta:D"`` and ``"learned:D"``, else None.
    #[getter]
    fn depth(&self) -> Option<u64> {
        self.spec
            .count
            .filter(|_| !self.spec.puct && self.spec.choice == Some(Choice::AlphaBeta))
    }

    /// The fixed budget of a move as ``pingvinas.search`` keywords (deterministic for a seed:
    /// an iteration count, a depth): ``{"iterations": 200}`` for ``"mcts"``, ``{"depth": 2,
    /// "tt_mb": 1}`` for ``"alphabeta"``, both for ``"auto"``, ``{}`` for greedy and random.
    #[getter]
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let dict = pyo3::types::PyDict::new(py);
        let (iterations, depth) = self.spec.fixed_counts();
        if let Some(n) = iterations {
            dict.set_item("iterations", n)?;
        }
        if let Some(d) = depth {
            dict.set_item("depth", d)?;
            dict.set_item("tt_mb", pingvinas_engine::search::agent::TT_MB)?;
        }
        Ok(dict)
    }

    fn __str__(&self) -> String {
        self.spec.to_string()
    }

    fn __repr__(&self) -> String {
        format!("AgentSpec({:?})", self.spec.to_string())
    }

    fn __hash__(&self) -> u64 {
        crate::state::state_hash(&self.spec.to_string())
    }
}

/// The tuple of algorithm names, `"auto"` first (`pingvinas.search.ALGORITHMS`).
fn register_names(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ALGORITHMS", PyTuple::new(m.py(), Algorithm::NAMES)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySearcher>()?;
    m.add_class::<PyAgentSpec>()?;
    m.add_function(wrap_pyfunction!(fish_solve, m)?)?;
    m.add_function(wrap_pyfunction!(search_many, m)?)?;
    m.add_function(wrap_pyfunction!(_search_many_native, m)?)?;
    register_names(m)
}
