//! Engine errors mapped to Python exceptions, in one place.

use pingvinas_engine::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    pingvinas,
    IllegalMoveError,
    PyValueError,
    "A well-formed move that the rules forbid in this position."
);
create_exception!(
    pingvinas,
    InvalidMoveError,
    PyValueError,
    "Move text or an action number that does not denote a move."
);

/// The error of a panic or a broken invariant inside the engine: never a user's fault.
pub fn internal() -> PyErr {
    PyRuntimeError::new_err("the engine failed (an internal error); please report it")
}

pub fn to_py(err: Error) -> PyErr {
    match err {
        Error::IllegalMove(m) => IllegalMoveError::new_err(m),
        Error::Parse(m) => InvalidMoveError::new_err(m),
        Error::Invalid(m) => PyValueError::new_err(m),
        // Only a stop flag raised by Ctrl-C interrupts a call from Python.
        Error::Interrupted(m) => PyKeyboardInterrupt::new_err(m),
        Error::Memory(m) => PyMemoryError::new_err(m),
    }
}

/// `?` on engine results inside bindings.
pub trait ToPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> ToPyResult<T> for Result<T, Error> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
