//! Board symmetries for Python: `Fish.symmetries()`, `Marathon.symmetries()` and
//! `state.transformed(symmetry)` on both state classes. The geometry is the engine's
//! (`pingvinas_engine::fish::symmetry`, `marathon::symmetry`); this file only wraps it, in
//! `#[pymethods]` blocks of its own beside the classes' main ones.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use pingvinas_engine::fish::symmetry as fish_symmetry;
use pingvinas_engine::marathon::symmetry as marathon_symmetry;
use pingvinas_engine::symmetry::Symmetry;
use pyo3::prelude::*;

use crate::errors::ToPyResult;
use crate::fish::{PyFish, PyFishState};
use crate::marathon::{PyMarathon, PyMarathonState};

/// A symmetry of a board: a map of the board onto itself that maps every position to an
/// equivalent one (same values, same player to move). `name` says which (`"identity"`,
/// `"mirror"` for the left-right mirror, `"rotate-60"`, `"reflect-30"`, ...). As numpy int64
/// arrays:
///
/// - `actions[a]`: the image of action `a` (a permutation of the action space);
/// - `cells[i]`: the image of cell `i = row * cols + col` of the observation planes;
/// - `planes[p]`: the plane that plane `p`'s values move to (Marathon's facing planes turn
///   with the board; the identity for Fish).
///
/// So for an observation `obs` of shape `(planes, rows, cols)` and a policy `pi`:
///
/// ```python
/// out = np.empty_like(obs).reshape(len(sym.planes), -1)
/// out[sym.planes[:, None], sym.cells[None, :]] = obs.reshape(len(sym.planes), -1)
/// out = out.reshape(obs.shape)          # == state.transformed(sym).observation_tensor()
/// pi2 = np.empty_like(pi); pi2[sym.actions] = pi
/// ```
#[pyclass(module = "pingvinas", name = "Symmetry", frozen)]
pub struct PySymmetry {
    sym: Arc<Symmetry>,
}

fn array<'py>(py: Python<'py>, v: &[u32]) -> Bound<'py, PyArray1<i64>> {
    v.iter()
        .map(|&x| x as i64)
        .collect::<Vec<i64>>()
        .into_pyarray(py)
}

fn wrap(syms: Vec<Symmetry>) -> Vec<PySymmetry> {
    syms.into_iter()
        .map(|sym| PySymmetry { sym: Arc::new(sym) })
        .collect()
}

#[pymethods]
impl PySymmetry {
    /// `"identity"`, `"mirror"`, `"rotate-60"`, ... (see the class docs).
    #[getter]
    fn name(&self) -> &str {
        &self.sym.name
    }

    /// `actions[a]`: the image of action `a`.
    #[getter]
    fn actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        array(py, &self.sym.actions)
    }

    /// `cells[i]`: the image of observation cell `i` (`row * cols + col`).
    #[getter]
    fn cells<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        array(py, &self.sym.cells)
    }

    /// `planes[p]`: the plane that observation plane `p`'s values move to.
    #[getter]
    fn planes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        array(py, &self.sym.planes)
    }

    fn __repr__(&self) -> String {
        format!("<Symmetry {}>", self.sym.name)
    }
}

#[pymethods]
impl PyFish {
    /// The symmetries of the board, the identity first: the maps of the hex grid (turns by
    /// 60 degrees, reflections) that take the board's floes onto themselves, and on a fixed
    /// board each floe's fish too. The standard board (dealt per game) has 2, the identity and
    /// the left-right mirror (`"mirror"`), whose image of a state is a state of the mirrored
    /// deal; a hexagon of hexes has 12; a board of no symmetry just the identity.
    fn symmetries(&self) -> Vec<PySymmetry> {
        wrap(fish_symmetry::any_symmetries(&self.game_for(0)))
    }
}

#[pymethods]
impl PyFishState {
    /// The image of this state under `symmetry` (one of `game.symmetries()`): every floe and
    /// penguin moved by it, scores and player to move kept. On a board dealt per game the image
    /// is on the mirrored deal. Raises `ValueError` for a symmetry of another board.
    fn transformed(&self, symmetry: &PySymmetry) -> PyResult<PyFishState> {
        let (game, state) =
            fish_symmetry::any_transform(&self.game, &symmetry.sym, &self.state).py()?;
        Ok(PyFishState {
            game: game.map_or_else(|| self.game.clone(), Arc::new),
            state,
        })
    }
}

#[pymethods]
impl PyMarathon {
    /// The symmetries of the course, the identity first: the maps of the square grid (quarter
    /// turns, reflections) that take the course's cells, start line and finish line onto
    /// themselves. The straight courses have 2 (the identity and the left-right `"mirror"`);
    /// the L and the zigzag only the identity.
    fn symmetries(&self) -> Vec<PySymmetry> {
        wrap(marathon_symmetry::symmetries(&self.game))
    }
}

#[pymethods]
impl PyMarathonState {
    /// The image of this state under `symmetry` (one of `game.symmetries()`): every piece on
    /// the cell and facing the symmetry takes it to. Raises `ValueError` for a symmetry of
    /// another course.
    fn transformed(&self, symmetry: &PySymmetry) -> PyResult<PyMarathonState> {
        let state =
            marathon_symmetry::checked_transform(&self.game, &symmetry.sym, &self.state).py()?;
        Ok(PyMarathonState {
            game: self.game.clone(),
            state,
        })
    }
}

/// Registers the `Symmetry` class.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySymmetry>()
}
