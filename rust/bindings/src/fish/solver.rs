//! `fish_solve` (`pv.fish.solve`): the exact Fish solver, off the GIL, with progress reports.

use pingvinas_engine::fish::solver as fish_solver;
use pingvinas_engine::search::StopFlag;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::ToPyResult;
use crate::fish::PyFishState;

/// `max_nodes` of `fish_solve`: 1 to [`pingvinas_engine::search::budget::MAX_NODES`].
fn max_nodes_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    use pingvinas_engine::search::budget::MAX_NODES;
    args::count(value, "max_nodes", 1, MAX_NODES)
}

/// `tt_mb` of `fish_solve`: 1 to the solver's largest table.
fn tt_mb_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    args::count(value, "tt_mb", 1, fish_solver::MAX_TABLE_MB as u64)
}

/// Solves a small Fish position exactly. Returns a dict: scores ([(fish, floes)] per player
/// after optimal play), best (action, None when over), moves (every optimal action, best
/// first), values ([(action, (fish, floes))] of the optimal actions, or of every legal one with
/// `all_values`), pv (actions), value ((fish, floes) difference for the player to move),
/// nodes, time (seconds). Raises ValueError for a finished game, a position too large (more
/// than `max_nodes` positions or `time` seconds) or a bad `tt_mb`, MemoryError when `tt_mb`
/// MiB are more than the memory available, KeyboardInterrupt on Ctrl-C; `progress(nodes,
/// seconds)` is called about every 0.25 s while it runs (an exception it raises stops the
/// solve and is raised).
#[pyfunction]
#[pyo3(signature = (state, *, max_nodes = 50_000_000, time = None, tt_mb = 512, symmetry = true, all_values = false, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn fish_solve<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = max_nodes_arg)] max_nodes: u64,
    time: Option<f64>,
    #[pyo3(from_py_with = tt_mb_arg)] tt_mb: u64,
    symmetry: bool,
    all_values: bool,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    let state = state
        .cast::<PyFishState>()
        .map_err(|_| PyTypeError::new_err("fish.solve needs a FishState"))?;
    let (game, s) = {
        let s = state.borrow();
        (s.game.clone(), s.state)
    };
    let time = match time {
        // A NaN is not finite: refused too.
        Some(t) if t <= 0.0 || !t.is_finite() => {
            return Err(PyValueError::new_err(format!(
                "time = {}: expected a positive number of seconds",
                pingvinas_engine::error::short_number(t)
            )));
        }
        // Past what a duration holds: no limit in practice.
        t => t.map(|t| Duration::try_from_secs_f64(t).unwrap_or(Duration::MAX)),
    };
    // The signature's default is the engine's (a literal, so that Python sees it).
    debug_assert_eq!(fish_solver::DEFAULT_TT_MB, 512);
    let options = fish_solver::SolveOptions {
        max_nodes,
        time,
        tt_mb: tt_mb as usize,
        symmetry,
        all_values,
    };
    let nodes = AtomicU64::new(0);
    let start = Instant::now();
    let mut last = start;
    let work = |stop: &StopFlag| {
        fish_solver::solve_any(&game, &s, options, Some(stop), Some(&nodes)).unwrap_or_else(|| {
            Err(pingvinas_engine::Error::Invalid(
                "a Fish state of another board".into(),
            ))
        })
    };
    let report = |py: Python<'_>| -> PyResult<()> {
        let Some(f) = progress else { return Ok(()) };
        if last.elapsed() >= Duration::from_millis(250) {
            last = Instant::now();
            f.call1((nodes.load(Ordering::Relaxed), start.elapsed().as_secs_f64()))?;
        }
        let _ = py;
        Ok(())
    };
    let sol = crate::off_gil::run_reporting(py, &StopFlag::new(), work, report)?.py()?;
    let d = PyDict::new(py);
    d.set_item("scores", sol.scores)?;
    d.set_item("best", sol.best)?;
    d.set_item("moves", sol.moves)?;
    d.set_item("values", sol.values)?;
    d.set_item("pv", sol.pv)?;
    d.set_item("value", sol.value)?;
    d.set_item("nodes", sol.nodes)?;
    d.set_item("time", start.elapsed().as_secs_f64())?;
    Ok(d)
}
