//! Python lists of action numbers without allocating an int object per action: the ints of
//! small action spaces are made once and shared (learning loops call `legal_actions` every step).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple};

/// Actions below this are served from the cache (the standard Fish board has 2,752).
const CACHED: u32 = 8192;

static INTS: PyOnceLock<Py<PyTuple>> = PyOnceLock::new();

pub fn action_list<'py>(py: Python<'py>, actions: &[u32]) -> PyResult<Bound<'py, PyList>> {
    let ints = INTS
        .get_or_try_init(py, || PyTuple::new(py, 0..CACHED).map(Bound::unbind))?
        .bind(py);
    PyList::new(
        py,
        actions
            .iter()
            .map(|&a| {
                if a < CACHED {
                    ints.get_item(a as usize)
                } else {
                    Ok(a.into_pyobject(py)?.into_any())
                }
            })
            .collect::<PyResult<Vec<_>>>()?,
    )
}
