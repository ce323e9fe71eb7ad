//! `Searcher` (and through it `pv.search`): a player that keeps its trees and transposition
//! table between moves, for one game at a time. A long search runs on a worker thread that
//! Ctrl-C stops (`off_gil`), a small one on the calling thread with the GIL released.

use std::any::Any;
use std::sync::{Arc, Mutex, TryLockError};

use pingvinas_engine::net::{AutoEval, CellFeatures, WithNet};
use pingvinas_engine::search::algorithms::{default_budget, Algorithm, Settings};
use pingvinas_engine::search::mcts::{self, Selection};
use pingvinas_engine::search::puct::{PuctTree, RootRule, MAX_BATCH};
use pingvinas_engine::search::tt;
use pingvinas_engine::search::{Budget, Choice, Evaluate, Playout, Searcher, StopFlag};
use pingvinas_engine::with_game_state;
use pingvinas_engine::Concrete;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::{
    budget_arg, dirichlet_arg, eval_for, improved_policy, puct_search, result_tuple, tree_seed,
    Options,
};
use crate::args;
use crate::errors::ToPyResult;
use crate::state::Bind;

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

/// A search player. It keeps its MCTS trees and alpha-beta transposition table between calls
/// on the same game (use one per seat), starts afresh on another board or course, and may be
/// stopped from another thread with `stop()`. One search runs at a time: a second thread
/// calling `search` meanwhile gets `RuntimeError("Searcher is busy ...")`.
#[pyclass(module = "pingvinas._core", name = "Searcher")]
pub struct PySearcher {
    pub(super) options: Options,
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
    pub(super) fn new(
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
