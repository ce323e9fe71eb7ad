//! Python lists of legal actions, built without allocating an int object per action: the ints
//! of small action spaces are made once and shared (learning loops call `legal_actions` every
//! step), and the engine's list is read in place, never copied.

use numpy::{IntoPyArray, PyArray1};
use pingvinas_engine::game::{ActionList, Game};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyList;

/// Actions below this are served from the cache (the standard Fish board has 2,752).
const CACHED: u32 = 8192;

static INTS: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();

/// `actions` as a Python list of ints.
pub fn action_list<'py>(py: Python<'py>, actions: &[u32]) -> PyResult<Bound<'py, PyList>> {
    let ints = INTS.get_or_try_init(py, || {
        (0..CACHED)
            .map(|a| Ok(a.into_pyobject(py)?.into_any().unbind()))
            .collect::<PyResult<Vec<_>>>()
    })?;
    if actions.iter().all(|&a| a < CACHED) {
        return PyList::new(py, actions.iter().map(|&a| ints[a as usize].bind(py)));
    }
    PyList::new(py, actions)
}

/// The legal actions of `state`, ascending, as a Python list of ints.
pub fn legal_action_list<'py, G: Game>(
    py: Python<'py>,
    game: &G,
    state: &G::State,
) -> PyResult<Bound<'py, PyList>> {
    let mut actions = ActionList::new();
    game.legal_actions(state, &mut actions);
    action_list(py, &actions)
}

/// A numpy bool array over the action space of `game`, `True` for the legal actions of `state`.
pub fn legal_action_mask<'py, G: Game>(
    py: Python<'py>,
    game: &G,
    state: &G::State,
) -> Bound<'py, PyArray1<bool>> {
    let mut actions = ActionList::new();
    game.legal_actions(state, &mut actions);
    let mut mask = vec![false; game.num_actions()];
    for &a in &actions {
        mask[a as usize] = true;
    }
    mask.into_pyarray(py)
}
