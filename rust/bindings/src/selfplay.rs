//! `pingvinas.selfplay`'s engine call: games played by PUCT with a Python evaluator (every
//! live game's leaves in one call per round) or by plain MCTS on threads, returned as numpy
//! arrays.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pingvinas_engine::search::puct::{PuctConfig, RootRule, MAX_BATCH};
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::selfplay::{
    default_maker, game_seeds, play_many_mcts, GameRecord, SelfPlay, SelfPlayConfig, MAX_GAMES,
};
use pingvinas_engine::vector::Source;
use pingvinas_engine::{with_game, AnySource, Concrete};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::args;
use crate::errors::ToPyResult;

/// An empty vector with room for `len` values, or `MemoryError` naming `what`.
fn buffer<T>(len: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        PyMemoryError::new_err(format!("self-play data: cannot allocate {len} {what}"))
    })?;
    Ok(v)
}

/// The records as a dict of numpy arrays (see `pingvinas.selfplay.SelfPlayData`).
fn arrays<'py>(
    py: Python<'py>,
    records: &[GameRecord],
    shape: [usize; 3],
    a_len: usize,
    players: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let n: usize = records.iter().map(GameRecord::len).sum();
    let mut obs = buffer(n * shape.iter().product::<usize>(), "observations")?;
    let mut masks = buffer(n * a_len, "legal masks")?;
    let mut policies = buffer(n * a_len, "policies")?;
    let mut to_move = buffer(n, "players to move")?;
    let mut returns = buffer(n * players, "returns")?;
    let mut game_ids = buffer(n, "game ids")?;
    let mut move_numbers = buffer(n, "move numbers")?;
    for r in records {
        obs.extend_from_slice(&r.observations);
        masks.extend_from_slice(&r.masks);
        policies.extend_from_slice(&r.policies);
        to_move.extend_from_slice(&r.to_move);
        move_numbers.extend_from_slice(&r.move_numbers);
        for _ in 0..r.len() {
            returns.extend(r.returns[..players].iter().map(|&x| x as f32));
            game_ids.push(r.game_id as i64);
        }
    }
    let d = PyDict::new(py);
    d.set_item(
        "observations",
        PyArray1::from_vec(py, obs).reshape([n, shape[0], shape[1], shape[2]])?,
    )?;
    d.set_item(
        "legal_masks",
        PyArray1::from_vec(py, masks).reshape([n, a_len])?,
    )?;
    d.set_item(
        "policies",
        PyArray1::from_vec(py, policies).reshape([n, a_len])?,
    )?;
    d.set_item("to_move", PyArray1::from_vec(py, to_move))?;
    d.set_item(
        "returns",
        PyArray1::from_vec(py, returns).reshape([n, players])?,
    )?;
    d.set_item("game_ids", PyArray1::from_vec(py, game_ids))?;
    d.set_item("move_numbers", PyArray1::from_vec(py, move_numbers))?;
    let lengths: Vec<i64> = records.iter().map(|r| r.length as i64).collect();
    let resigned: Vec<i8> = records
        .iter()
        .map(|r| r.resigned.map_or(-1, |p| p as i8))
        .collect();
    let ids: Vec<i64> = records.iter().map(|r| r.game_id as i64).collect();
    d.set_item("game_lengths", PyArray1::from_vec(py, lengths))?;
    d.set_item("game_resigned", PyArray1::from_vec(py, resigned))?;
    d.set_item("game_list", PyArray1::from_vec(py, ids))?;
    Ok(d)
}

/// Calls `progress(k)` with the games finished since the last call.
fn report(progress: Option<&Bound<'_, PyAny>>, done: usize, reported: &mut usize) -> PyResult<()> {
    if let Some(p) = progress {
        if done > *reported {
            p.call1((done - *reported,))?;
            *reported = done;
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run<'py, G: Concrete>(
    py: Python<'py>,
    config: SelfPlayConfig,
    source: &Source<G>,
    ids: &[u64],
    evaluator: Option<&Bound<'py, PyAny>>,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    // PUCT games use the game's knowledge, MCTS games plain MCTS.
    let (puct_maker, mcts_maker) = (default_maker(source, true), default_maker(source, false));
    let first = ids.first().copied().unwrap_or(0);
    let (sample, _) = puct_maker(game_seeds(config.seed, first).0);
    let (shape, a_len, players) = (
        sample.observation_shape(),
        sample.num_actions(),
        sample.num_players(),
    );
    let mut reported = 0;
    let records = match evaluator {
        Some(evaluator) => match evaluator.cast::<crate::net::PyNet>() {
            // A native net plays the games on threads, shared out by id: every game is the
            // same as on one thread (its trees and choices come from its own seeds).
            Ok(net) if threads != 1 && ids.len() > 1 => {
                let n = pingvinas_engine::batch::resolve_threads(threads)
                    .py()?
                    .min(ids.len());
                let part = |k: usize| {
                    let part_ids: Vec<u64> = ids.iter().skip(k).step_by(n).copied().collect();
                    let config = SelfPlayConfig {
                        max_live: config.max_live.div_ceil(n),
                        ..config
                    };
                    SelfPlay::new(config, puct_maker.clone(), &part_ids)
                };
                let mut parts = (0..n).map(part).collect::<Result<Vec<_>, _>>().py()?;
                crate::net::drive_parts(py, &mut parts, &net.get().mlp, shape, |parts| {
                    let done = parts.iter().map(SelfPlay::finished).sum();
                    report(progress, done, &mut reported)
                })?;
                parts.into_iter().flat_map(SelfPlay::into_records).collect()
            }
            _ => {
                let mut sp = SelfPlay::new(config, puct_maker, ids).py()?;
                crate::evaluator::drive(py, &mut sp, shape, evaluator, |sp| {
                    report(progress, sp.finished(), &mut reported)
                })?;
                sp.into_records()
            }
        },
        None => {
            config.check().py()?;
            let finished = AtomicUsize::new(0);
            crate::off_gil::run_reporting(
                py,
                &StopFlag::new(),
                |stop| play_many_mcts(&config, &mcts_maker, ids, threads, stop, &finished),
                |_| report(progress, finished.load(Ordering::Relaxed), &mut reported),
            )?
            .py()?
        }
    };
    let mut records = records;
    records.sort_by_key(|r| r.game_id);
    let done = records.len();
    report(progress, done, &mut reported)?;
    arrays(py, &records, shape, a_len, players)
}

/// Self-play games (see `pingvinas.selfplay.selfplay`): returns a dict of numpy arrays.
#[pyfunction]
#[pyo3(signature = (game, games, *, simulations, evaluator = None, temperature = 1.0, temperature_moves = None, dirichlet = None, batch_size = None, seed = None, threads = None, resign = None, playout_cap = None, exploration = None, max_live = None, progress = None, root = "puct"))]
#[allow(clippy::too_many_arguments)]
pub fn selfplay<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    games: PyReadonlyArray1<'py, i64>,
    simulations: &Bound<'py, PyAny>,
    evaluator: Option<&Bound<'py, PyAny>>,
    temperature: f64,
    temperature_moves: Option<&Bound<'py, PyAny>>,
    dirichlet: Option<&Bound<'py, PyAny>>,
    batch_size: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    resign: Option<f64>,
    playout_cap: Option<&Bound<'py, PyAny>>,
    exploration: Option<f64>,
    max_live: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
    root: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let evaluator = match evaluator.filter(|e| !e.is_none()) {
        Some(e) => Some(crate::evaluator::check_evaluator(e)?.into_bound(py)),
        None => None,
    };
    let root = RootRule::parse(root).py()?;
    if evaluator.is_none() && root != RootRule::Puct {
        return Err(PyValueError::new_err(
            "root = \"gumbel\" is a PUCT search: it needs an evaluator",
        ));
    }
    let games = games.as_array();
    if games.len() > MAX_GAMES {
        return Err(PyValueError::new_err(format!(
            "games: {} games asked for, at most {MAX_GAMES} in one call",
            games.len()
        )));
    }
    let mut ids = Vec::new();
    ids.try_reserve_exact(games.len()).map_err(|_| {
        PyMemoryError::new_err(format!("cannot allocate {} game indices", games.len()))
    })?;
    for &g in games {
        if g < 0 {
            return Err(PyValueError::new_err(format!(
                "game indices must not be negative, got {g}"
            )));
        }
        ids.push(g as u64);
    }
    let count = |v: Option<&Bound<'py, PyAny>>, what: &str, max: u64, default: u64| match v {
        Some(v) if !v.is_none() => args::count(v, what, 1, max),
        _ => Ok(default),
    };
    let simulations = args::count(
        simulations,
        "simulations",
        1,
        pingvinas_engine::search::budget::MAX_ITERATIONS,
    )?;
    let batch_size = count(batch_size, "batch_size", MAX_BATCH as u64, 8)? as usize;
    let max_live = count(max_live, "max_live", 1 << 20, 256)? as usize;
    let threads = match threads {
        Some(t) if !t.is_none() => args::count(t, "threads", 0, 256)? as usize,
        _ => 1,
    };
    let temperature_moves = match temperature_moves {
        Some(t) if !t.is_none() => {
            Some(args::count(t, "temperature_moves", 0, u32::MAX as u64)? as usize)
        }
        _ => None,
    };
    let playout_cap = match playout_cap {
        Some(cap) if !cap.is_none() => {
            let bad = || {
                PyTypeError::new_err(format!(
                    "playout_cap = {}: expected a pair (probability, fast simulations)",
                    args::quote(cap)
                ))
            };
            let items: Vec<Bound<'py, PyAny>> = match cap.is_instance_of::<PyString>() {
                true => return Err(bad()),
                false => cap
                    .try_iter()
                    .map_err(|_| bad())?
                    .collect::<PyResult<_>>()
                    .map_err(|_| bad())?,
            };
            let [p, fast] = <[Bound<'py, PyAny>; 2]>::try_from(items).map_err(|_| bad())?;
            let p: f64 = p.extract().map_err(|_| {
                PyTypeError::new_err("playout_cap: the probability must be a number")
            })?;
            let most = pingvinas_engine::search::budget::MAX_ITERATIONS;
            let fast = args::count(&fast, "playout_cap's fast simulations", 1, most)?;
            Some((p, fast))
        }
        _ => None,
    };
    let mut exploration_value = PuctConfig::default().exploration;
    if let Some(c) = exploration {
        exploration_value = c;
    }
    let config = SelfPlayConfig {
        simulations,
        temperature,
        temperature_moves,
        puct: PuctConfig {
            exploration: exploration_value,
            batch_size,
            dirichlet: crate::search::dirichlet_arg(dirichlet)?,
            reuse: true,
            root,
            ..PuctConfig::default()
        },
        resign,
        playout_cap,
        seed: seed.map_or(Ok(0), args::seed)?,
        max_live,
        ..SelfPlayConfig::default()
    };
    config.check().py()?;
    let evaluator = evaluator.as_ref();
    let source = crate::dispatch::source_of(game)?;
    with_game!(&source.sample(), |g| run(
        py,
        config,
        &typed(g, &source),
        &ids,
        evaluator,
        threads,
        progress
    ))
}

/// The concrete source of the type of `_sample`, a game of `source`.
fn typed<G: Concrete>(_sample: &Arc<G>, source: &AnySource) -> Source<G> {
    source.typed().expect("a source's sample has its type")
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(selfplay, m)?)
}
