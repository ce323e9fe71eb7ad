//! Numpy buffers that the engine writes and Python only reads.

use numpy::ndarray::Dimension;
use numpy::{Element, PyArray};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// A new zeroed array made by numpy, so that memory it cannot have is numpy's `MemoryError`
/// (rust-numpy's constructors panic on it).
pub fn zeros<T: Element, D: Dimension>(
    py: Python<'_>,
    shape: &[usize],
) -> PyResult<Py<PyArray<T, D>>> {
    let array = py
        .import("numpy")?
        .call_method1("zeros", (PyTuple::new(py, shape)?, numpy::dtype::<T>(py)))?;
    Ok(array.cast_into::<PyArray<T, D>>()?.unbind())
}

/// Makes `array` read-only for Python. Its views are read-only too, and numpy refuses
/// `view.setflags(write=True)` (Rust still writes the memory, through raw slices).
pub fn freeze(array: &Bound<'_, PyAny>) -> PyResult<()> {
    let kwargs = PyDict::new(array.py());
    kwargs.set_item("write", false)?;
    array.call_method("setflags", (), Some(&kwargs))?;
    Ok(())
}

/// A read-only view of `array`, which is frozen ([`freeze`]).
pub fn read_only<T: Element, D: Dimension>(
    py: Python<'_>,
    array: &Py<PyArray<T, D>>,
) -> PyResult<Py<PyAny>> {
    let array = array.bind(py);
    freeze(array.as_any())?;
    Ok(array.call_method0("view")?.unbind())
}
