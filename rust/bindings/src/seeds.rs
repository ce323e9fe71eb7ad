//! The engine's seed derivation for Python code that plays numbered items of a batch (the
//! games of a match): the same `Rng::for_item` that self-play, the vector env and the batch
//! playouts use, so that one rule derives every per-item seed.

use pingvinas_engine::rng::Rng;
use pyo3::prelude::*;

use crate::args;

/// The seed of item ``index`` of a batch seeded with ``seed`` (both any int, taken modulo
/// 2**64): a non-negative 63-bit int, the same on every machine and independent of how the
/// batch is split.
#[pyfunction]
pub fn seed_for(seed: &Bound<'_, PyAny>, index: &Bound<'_, PyAny>) -> PyResult<u64> {
    let seed = args::seed(seed)?;
    let index = args::int(index, "index")?
        .bitand(u64::MAX)?
        .extract::<u64>()?;
    Ok(Rng::for_item(seed, index).next_u64() >> 1)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(seed_for, m)?)
}
