//! The batch playouts of both games (`pingvinas.fish.random_playouts`,
//! `pingvinas.marathon.random_playouts`): whole random games played in Rust with the GIL
//! released, their results returned as numpy arrays. The arguments both read are read once here.

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pingvinas_engine::fish::playout::{random_playouts as fish_playouts, Start};
use pingvinas_engine::fish::{Policy, Rules};
use pingvinas_engine::marathon::playout::random_playouts as marathon_playouts;
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::{batch, with_fish, with_fish_state, Game};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::args;
use crate::errors::ToPyResult;
use crate::fish::{PyFish, PyFishState};
use crate::marathon::{PyMarathon, PyMarathonState};

/// `(fish, floes)` of a batch of playouts.
type ScoreArrays<'py> = (Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<i32>>);

/// `(winners, plies)` of a batch of playouts.
type PlayoutArrays<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i32>>);

/// `(n, seed, threads)` of a batch: up to `batch::MAX_GAMES` games, seed 0 and one thread by
/// default.
fn batch_args(
    n: &Bound<'_, PyAny>,
    seed: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<(usize, u64, usize)> {
    Ok((
        args::count(n, "n", 0, batch::MAX_GAMES as u64)? as usize,
        seed.map_or(Ok(0), args::seed)?,
        threads.map_or(Ok(1), args::threads)?,
    ))
}

/// Plays `n` random games in Rust with the GIL released and returns `(fish, floes)`: two numpy
/// int32 arrays of shape `(n, players)`. Starts from `state`, or the opening of `game`, or by
/// default a freshly dealt standard 2-player board per game. `threads=0` uses every core.
/// `policy`: `"uniform"` (every legal move equally likely) or `"fast"` (a random movable
/// penguin, then a random open direction, then a random distance).
#[pyfunction]
#[pyo3(signature = (n, *, seed = None, threads = None, game = None, state = None, policy = "uniform"))]
#[allow(clippy::too_many_arguments)]
pub fn fish_random_playouts<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    game: Option<PyRef<'py, PyFish>>,
    state: Option<PyRef<'py, PyFishState>>,
    policy: &str,
) -> PyResult<ScoreArrays<'py>> {
    let (n, seed, threads) = batch_args(n, seed, threads)?;
    let policy = match policy {
        "uniform" => Policy::Uniform,
        "fast" => Policy::Fast,
        _ => {
            return Err(PyValueError::new_err(format!(
                "policy = {:?}: expected \"uniform\" or \"fast\"",
                args::cut(policy)
            )))
        }
    };
    let rules = game
        .as_ref()
        .map_or(Rules::standard(2).expect("standard"), |g| g.rules);
    let fixed = game.as_ref().and_then(|g| g.fixed.clone());
    let position = state.map(|s| (s.game.clone(), s.state));
    if let (Some(g), Some((sg, _))) = (&game, &position) {
        if *sg.rules() != g.rules || fixed.as_ref().is_some_and(|f| **f != **sg) {
            return Err(another_game(sg.rules().players(), g.rules.players()));
        }
    }
    let players = match (&position, &fixed) {
        (Some((g, _)), _) | (None, Some(g)) => g.num_players(),
        (None, None) => rules.players(),
    };
    let scores = crate::off_gil::run(py, &StopFlag::new(), |stop| match (&position, &fixed) {
        // One dispatch on the board's word, then the whole batch on the concrete game.
        (Some((g, s)), _) => with_fish_state!(
            &**g,
            s,
            |g, s| fish_playouts(&Start::Position(g, *s), n, seed, threads, policy, stop),
            Ok(Vec::new())
        ),
        (None, Some(g)) => with_fish!(&**g, |g| fish_playouts(
            &Start::Opening(g),
            n,
            seed,
            threads,
            policy,
            stop
        )),
        (None, None) => {
            fish_playouts::<u64>(&Start::Standard(rules), n, seed, threads, policy, stop)
        }
    })?
    .py()?;
    let fish = Array2::from_shape_fn((n, players), |(i, p)| scores[i][p].0 as i32);
    let floes = Array2::from_shape_fn((n, players), |(i, p)| scores[i][p].1 as i32);
    Ok((fish.into_pyarray(py), floes.into_pyarray(py)))
}

/// Plays `n` uniformly random games in Rust with the GIL released. Returns `(winners, plies)`:
/// numpy arrays of shape `(n,)`, int8 winners (-1 for a draw) and int32 plies played. Starts
/// from `state`, or the opening of `game` (default: the standard 2-player game). Game `i` uses
/// a generator derived from `(seed, i)`, so results do not depend on `threads` (0: every core).
#[pyfunction]
#[pyo3(signature = (n, *, seed = None, threads = None, game = None, state = None))]
pub fn marathon_random_playouts<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    game: Option<PyRef<'py, PyMarathon>>,
    state: Option<PyRef<'py, PyMarathonState>>,
) -> PyResult<PlayoutArrays<'py>> {
    let (n, seed, threads) = batch_args(n, seed, threads)?;
    if let (Some(s), Some(g)) = (&state, &game) {
        if *s.game != *g.game {
            return Err(another_game(s.game.players(), g.game.players()));
        }
    }
    let (game, start) = match (&state, &game) {
        (Some(s), _) => (s.game.clone(), Some(s.state)),
        (None, Some(g)) => (g.game.clone(), None),
        (None, None) => (Arc::new(Marathon::standard()), None),
    };
    let out = crate::off_gil::run(py, &StopFlag::new(), |stop| {
        marathon_playouts(&game, start.as_ref(), n, seed, threads, stop)
    })?
    .py()?;
    Ok((out.winners.into_pyarray(py), out.plies.into_pyarray(py)))
}

/// The error of a `state` that is not a position of `game` (both given).
fn another_game(state_players: usize, game_players: usize) -> PyErr {
    let players = if state_players != game_players {
        format!(" (a {state_players}-player state, a {game_players}-player game)")
    } else {
        String::new()
    };
    PyValueError::new_err(format!(
        "state is not a position of game{players}: give a state of that game, or one of the two"
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fish_random_playouts, m)?)?;
    m.add_function(wrap_pyfunction!(marathon_random_playouts, m)?)
}
