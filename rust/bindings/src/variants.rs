//! The bundled variant configs: the engine's table ([`pingvinas_engine::variants::BUNDLED`]).

use pingvinas_engine::variants::{self as bundled, BUNDLED};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The TOML text of the variant `name` of `game`, with an error that lists the choices.
pub fn find(name: &str, game: &str) -> PyResult<&'static str> {
    bundled::find(game, name).map(|v| v.toml).ok_or_else(|| {
        let names: Vec<_> = bundled::of_game(game).map(|v| v.name).collect();
        PyValueError::new_err(format!(
            "unknown {game} variant {}; bundled variants: {}",
            crate::args::cut(&format!("{name:?}")),
            names.join(", ")
        ))
    })
}

/// The names of every bundled variant, both games.
#[pyfunction]
pub fn variants() -> Vec<&'static str> {
    BUNDLED.iter().map(|v| v.name).collect()
}
