//! The bundled variant configs. They are the TOML files shipped in `pingvinas/variants/`,
//! compiled in so that lookup never depends on where the package is installed.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

macro_rules! variants {
    ($($name:literal : $game:literal),* $(,)?) => {
        &[$(($name, $game, include_str!(concat!("../../../python/pingvinas/variants/", $name, ".toml")))),*]
    };
}

/// `(name, game, TOML text)`.
pub const VARIANTS: &[(&str, &str, &str)] = variants![
    "fish": "fish",
    "fish-3p": "fish",
    "fish-4p": "fish",
    "fish-snake-any": "fish",
    "marathon": "marathon",
    "marathon-5": "marathon",
    "marathon-l": "marathon",
    "marathon-zigzag": "marathon",
];

/// The TOML text of the variant `name` of `game`, with an error that lists the choices.
pub fn find(name: &str, game: &str) -> PyResult<&'static str> {
    VARIANTS
        .iter()
        .find(|(n, g, _)| *n == name && *g == game)
        .map(|(_, _, text)| *text)
        .ok_or_else(|| {
            let names: Vec<_> = VARIANTS
                .iter()
                .filter(|(_, g, _)| *g == game)
                .map(|(n, _, _)| *n)
                .collect();
            PyValueError::new_err(format!(
                "unknown {game} variant {name:?}; bundled variants: {}",
                names.join(", ")
            ))
        })
}

/// The names of every bundled variant, both games.
#[pyfunction]
pub fn variants() -> Vec<&'static str> {
    VARIANTS.iter().map(|(n, _, _)| *n).collect()
}
