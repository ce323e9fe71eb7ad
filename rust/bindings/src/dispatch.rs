//! The two games' Python classes seen as one: the engine's [`AnyGame`], [`AnyState`] and
//! [`AnySource`] read from game and state objects and turned back into state objects. Search,
//! self-play and the vector env take Python objects through here and dispatch once with
//! `with_game!`; nothing else in the bindings tells the games apart.

use std::sync::Arc;

use pingvinas_engine::{AnyGame, AnySource, AnyState, Concrete};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::fish::{PyFish, PyFishState};
use crate::marathon::{PyMarathon, PyMarathonState};

/// The game and state of a state object (`FishState` or `MarathonState`); `None` for any
/// other object.
pub fn state_of(obj: &Bound<'_, PyAny>) -> Option<(AnyGame, AnyState)> {
    if let Ok(s) = obj.cast::<PyFishState>() {
        let s = s.borrow();
        return Some((AnyGame::Fish((*s.game).clone()), AnyState::Fish(s.state)));
    }
    let s = obj.cast::<PyMarathonState>().ok()?.borrow();
    Some((
        AnyGame::Marathon(s.game.clone()),
        AnyState::Marathon(s.state),
    ))
}

/// [`state_of`], or a `TypeError` that says what was `expected` and what came instead.
pub fn state_arg(obj: &Bound<'_, PyAny>, expected: &str) -> PyResult<(AnyGame, AnyState)> {
    match state_of(obj) {
        Some(found) => Ok(found),
        None => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected {expected}, got {}",
            obj.get_type().name()?
        ))),
    }
}

/// The state object of a concrete game and state.
pub fn state_object<G: Concrete>(
    py: Python<'_>,
    game: Arc<G>,
    state: G::State,
) -> PyResult<Py<PyAny>> {
    Ok(match (G::any_game(game), G::any_state(state)) {
        (AnyGame::Fish(game), AnyState::Fish(state)) => Py::new(
            py,
            PyFishState {
                game: Arc::new(game),
                state,
            },
        )?
        .into_any(),
        (AnyGame::Marathon(game), AnyState::Marathon(state)) => {
            Py::new(py, PyMarathonState { game, state })?.into_any()
        }
        _ => unreachable!("a concrete game's state is of the same game"),
    })
}

/// The games of a game object (`Fish` or `Marathon`): its fixed game, or a standard board
/// dealt per game. `TypeError` for any other object.
pub fn source_of(game: &Bound<'_, PyAny>) -> PyResult<AnySource> {
    if let Ok(fish) = game.cast::<PyFish>() {
        return Ok(fish.get().source());
    }
    if let Ok(m) = game.cast::<PyMarathon>() {
        return Ok(AnySource::Fixed(AnyGame::Marathon(m.get().game.clone())));
    }
    Err(PyTypeError::new_err(format!(
        "game must be a pingvinas Fish or Marathon, not {}",
        game.get_type().name()?
    )))
}
