//! The `pingvinas._core` extension module: bindings only; the rules live in `pingvinas-engine`.

mod args;
mod arrays;
mod dispatch;
mod errors;
mod evaluator;
mod fish;
mod game_class;
mod ints;
mod marathon;
mod moves;
mod net;
mod off_gil;
mod playouts;
mod search;
mod seeds;
mod selfplay;
mod state;
mod symmetry;
mod variants;
mod vector;

use pyo3::prelude::*;

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "IllegalMoveError",
        m.py().get_type::<errors::IllegalMoveError>(),
    )?;
    m.add(
        "InvalidMoveError",
        m.py().get_type::<errors::InvalidMoveError>(),
    )?;
    m.add_function(wrap_pyfunction!(variants::variants, m)?)?;
    fish::register(m)?;
    // Each further game or tool registers itself here, one line each:
    marathon::register(m)?;
    moves::register(m)?;
    playouts::register(m)?;
    search::register(m)?;
    seeds::register(m)?;
    selfplay::register(m)?;
    vector::register(m)?;
    symmetry::register(m)?;
    net::register(m)?;
    Ok(())
}
