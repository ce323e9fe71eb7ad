//! Bindings of the search: the settings, the PUCT runs and the result tuples that `Searcher`
//! (`searcher.rs`) and `search_many` (`many.rs`) share, the agent specs (`agent.rs`) and the
//! algorithm names. A search takes the state object itself (its shared game and `Copy` state,
//! no JSON) and runs off the GIL (`off_gil`).

mod agent;
mod many;
mod searcher;

use std::sync::Arc;

use numpy::{PyArray1, PyArrayMethods};
use pingvinas_engine::every_game::cached_eval;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::algorithms::{Algorithm, Settings};
use pingvinas_engine::search::forest::{Forest, SharedTree};
use pingvinas_engine::search::puct::{PuctTree, RootRule};
use pingvinas_engine::search::{Budget, SearchResult, StopFlag};
use pingvinas_engine::Concrete;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::args;
use crate::errors::ToPyResult;
use crate::state::Bind;

/// The settings of a searcher: the engine's, checked as given from Python.
type Options = Settings;

/// The evaluation of `game` for these settings.
fn eval_for<G: Concrete>(options: &Options, game: &Arc<G>) -> Arc<G::Eval> {
    cached_eval(game, options.knowledge, options.playout)
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

/// The seed of tree `i` of a PUCT search seeded with `seed` (`pv.search` is tree 0).
pub fn tree_seed(seed: u64, i: usize) -> u64 {
    Rng::for_item(seed, i as u64).next_u64()
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
            forest.set_threads(threads);
            crate::evaluator::drive(py, &mut forest, shape, evaluator, |_| Ok(()))?;
            let results = forest.results();
            Ok((results, forest.trees))
        }
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

/// The tuple of algorithm names, `"auto"` first (`pingvinas.search.ALGORITHMS`).
fn register_names(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ALGORITHMS", PyTuple::new(m.py(), Algorithm::NAMES)?)?;
    m.add("MAX_TIME", pingvinas_engine::search::budget::MAX_TIME_SECS)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<searcher::PySearcher>()?;
    m.add_class::<agent::PyAgentSpec>()?;
    m.add_function(wrap_pyfunction!(many::search_many, m)?)?;
    register_names(m)
}
