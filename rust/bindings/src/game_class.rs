//! The game-class layer both games share: every method of `Fish` and `Marathon` whose body does
//! not depend on the game is written once here, in [`game_class!`], over a few small functions
//! each class provides. The state classes' shared methods are in `state.rs`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The largest config file `from_config` reads, in bytes (1 MiB): the largest board or course
/// the games take is a few kilobytes of TOML. A larger file is refused before it is read.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The text of a config file named by a Python path, or what is wrong with it (`title`:
/// `"Fish"` or `"Marathon"`, for messages): not a regular file, over [`MAX_CONFIG_BYTES`], or
/// not UTF-8.
pub fn config_file(
    source: &Bound<'_, PyAny>,
    title: &str,
) -> PyResult<(String, std::path::PathBuf)> {
    use std::io::Read;
    let path: std::path::PathBuf = source
        .extract()
        .map_err(|_| PyTypeError::new_err("from_config takes a path to a TOML file or a dict"))?;
    let shown = path.display();
    let cannot = |e: std::io::Error| {
        PyValueError::new_err(format!("cannot read {title} config {shown}: {e}"))
    };
    let too_big = |size: &dyn std::fmt::Display| {
        PyValueError::new_err(format!(
            "{title} config {shown}: {size} bytes, more than a config may take \
             ({MAX_CONFIG_BYTES} bytes)"
        ))
    };
    let meta = std::fs::metadata(&path).map_err(cannot)?;
    if meta.is_dir() {
        return Err(PyValueError::new_err(format!(
            "{title} config {shown}: a directory, not a config file"
        )));
    }
    if !meta.is_file() {
        return Err(PyValueError::new_err(format!(
            "{title} config {shown}: not a regular file (a device, pipe or socket)"
        )));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(too_big(&meta.len()));
    }
    // Read at most one byte past the cap: a file that grew since is refused too.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&path)
        .and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(too_big(&format!("over {MAX_CONFIG_BYTES}")));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        PyValueError::new_err(format!("{title} config {shown}: not UTF-8 text ({e})"))
    })?;
    Ok((text, path))
}

/// `hash()` of a variant: of what `feed` writes (its rules and board or course; names are
/// labels, as for `==`).
pub fn variant_hash(feed: impl FnOnce(&mut std::collections::hash_map::DefaultHasher)) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    feed(&mut h);
    h.finish()
}

/// Emits the methods both game classes share, for a game class `$class` whose states are
/// `$state { game, state }`; `$title` names the game in messages. The docstrings that differ
/// per game are given with the method's name. The class provides:
/// - `fn sample(&self) -> &G` (a game of the variant, `G: GameIo`: its sizes),
/// - `fn config_dict(&self, py)` (its config as a dict), `fn from_dict(dict)`,
///   `fn from_file(text, path)` and `fn bundled(name)` (a bundled variant),
/// - `fn label(&self)` and `fn note(&self)` (its name and description, `Option<String>`),
///   `fn player_count(&self)`,
/// - `fn game_for(&self, seed: u64)` (the game of a new state: a game whose `initial_state`
///   is its opening),
/// - `fn same_rules(&self, other: &Self) -> bool` and `fn hash_rules(&self, h)` (what `==`
///   and `hash()` compare).
macro_rules! game_class {
    (
        $class:ident, $state:ident, $title:literal,
        $(#[$variant:meta])* variant,
        $(#[$name:meta])* name,
        $(#[$description:meta])* description,
        $(#[$new_state:meta])* new_state $(,)?
    ) => {
        #[pymethods]
        impl $class {
            /// A variant from a TOML file (a path) or a dict with the same keys (what
            /// `to_config` gives).
            #[staticmethod]
            fn from_config(source: &Bound<'_, PyAny>) -> PyResult<Self> {
                if source.is_instance_of::<pyo3::types::PyDict>() {
                    return Self::from_dict(source);
                }
                let (text, path) = $crate::game_class::config_file(source, $title)?;
                Self::from_file(&text, &path)
            }

            /// The config as a dict (what `from_config` reads).
            fn to_config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                self.config_dict(py)
            }

            $(#[$variant])*
            #[staticmethod]
            fn variant(name: &str) -> PyResult<Self> {
                Self::bundled(name)
            }

            $(#[$name])*
            #[getter]
            fn name(&self) -> Option<String> {
                self.label()
            }

            $(#[$description])*
            #[getter]
            fn description(&self) -> Option<String> {
                self.note()
            }

            #[getter]
            fn players(&self) -> usize {
                self.player_count()
            }

            /// Rows of the board or of the course's bounding box.
            #[getter]
            fn rows(&self) -> usize {
                self.sample().observation_shape()[1]
            }

            /// Columns of the board or of the course's bounding box.
            #[getter]
            fn cols(&self) -> usize {
                self.sample().observation_shape()[2]
            }

            /// Size of the fixed action space.
            #[getter]
            fn num_actions(&self) -> usize {
                self.sample().num_actions()
            }

            /// Shape `(planes, rows, cols)` of `state.observation_tensor()`.
            #[getter]
            fn observation_shape(&self) -> (usize, usize, usize) {
                let [p, r, c] = self.sample().observation_shape();
                (p, r, c)
            }

            /// The most actions a game can last (Fish: placements plus one per floe; Marathon:
            /// the ply limit, the game then a draw).
            #[getter]
            fn max_game_length(&self) -> usize {
                self.sample().max_game_length()
            }

            $(#[$new_state])*
            #[pyo3(signature = (seed = None))]
            fn new_state(&self, seed: Option<&Bound<'_, PyAny>>) -> PyResult<$state> {
                let game = self.game_for($crate::args::seed_or_random(seed)?);
                let state = game.initial_state();
                Ok($state { game, state })
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                other.cast::<$class>().is_ok_and(|o| self.same_rules(o.get()))
            }

            fn __hash__(&self) -> u64 {
                $crate::game_class::variant_hash(|h| self.hash_rules(h))
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, pyo3::types::PyTuple>)> {
                let config = slf.get().to_config(slf.py())?;
                let from_config = slf.get_type().getattr("from_config")?;
                Ok((from_config, pyo3::types::PyTuple::new(slf.py(), [config])?))
            }
        }
    };
}

pub(crate) use game_class;
