//! `search_many`: PUCT searches of many states at once, one tree each, every round's leaves of
//! all the trees valued in one evaluator call.

use std::sync::Arc;

use pingvinas_engine::search::algorithms::default_budget;
use pingvinas_engine::search::puct::PuctTree;
use pingvinas_engine::search::{Budget, Choice, StopFlag};
use pingvinas_engine::with_game;
use pingvinas_engine::{AnyGame, AnyState, Concrete};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::searcher::PySearcher;
use super::{budget_arg, eval_for, improved_policy, puct_search, result_tuple, tree_seed, Options};
use crate::state::Bind;

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
