//! Python lists of legal actions, built without allocating an int object per action: the ints
//! of small action spaces are made once and shared (learning loops call `legal_actions` every
//! step), and the engine's list is read in place, never copied.

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
