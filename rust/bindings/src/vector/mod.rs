//! `VectorEnv`: many games of either game stepped in Rust (`pingvinas_engine::vector`), with
//! the GIL released, into numpy buffers the env owns and reuses (`buffers.rs`). The engine env
//! is held behind the object-safe [`Envs`] (`envs.rs`), so one Python class serves both games.

mod buffers;
mod envs;

use std::sync::{Arc, Mutex, TryLockError};

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pingvinas_engine::search::agent::{self, AgentSpec};
use pingvinas_engine::search::Choice;
use pingvinas_engine::vector::{self, Dims, Learner, Options, Reward, Source};
use pingvinas_engine::{with_game, AnySource, Concrete};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use buffers::{Buffers, Shown};
use envs::{env_on, Envs};

use crate::args;
use crate::errors::InvalidMoveError;

/// Many games of Fish or Penguin Marathon stepped together in Rust.
///
/// ``VectorEnv(game, num_envs, *, seed=None, threads=1, opponent=None, learner=0,
/// opponent_time=1.0, reward="returns", copy=False)`` holds ``num_envs`` games of ``game`` (a ``Fish`` or
/// ``Marathon``, any variant; a Fish variant without a fixed board deals a new standard board
/// for every game). ``reset`` and ``step`` run with the GIL released on up to ``threads``
/// threads (1 by default; 0: every core): the calling thread and helpers kept between calls
/// share the envs out when the batch is large enough to pay for it (the env measures what one
/// env's step costs), else the calling thread steps them alone. The results do not depend on
/// ``threads``; docs/performance.md measures one and two threads at several batch sizes.
///
/// - ``obs, info = env.reset(seed=None)``; ``obs, rewards, terminations, truncations, info =
///   env.step(actions)`` with ``actions`` an int array of shape ``(num_envs,)``.
/// - ``obs``: float32 ``(num_envs, *observation_shape)``, each from the view of the player to
///   move (the learner with an ``opponent``), as ``state.observation_tensor()``.
/// - ``rewards``: float32 ``(num_envs, players)``, per player (the learner's alone,
///   ``(num_envs,)``, with an ``opponent``): the game's ``returns()`` on the step it ends, 0
///   before; with ``reward="score"`` (Fish), each step's change of the player's fish minus the
///   mean fish of the others.
/// - ``terminations``: the envs whose game ended in this step; ``truncations``: always False
///   (Marathon's ply limit is a rule: a draw, seen in the observation).
/// - ``info``: ``legal_action_mask`` (bool ``(num_envs, num_actions)``; ``.view(np.int8)`` for
///   int8 without a copy), ``legal_actions`` (int16, or int32 for action spaces beyond 32768,
///   ``(num_envs, legal_width)``: ascending, padded with -1) and ``legal_action_count``,
///   ``to_move`` (int32), ``final_mask`` (bool: the games that ended), ``final_observation``
///   (their final position, from the learner's view, else player 0's; zeros for the other
///   envs) and ``final_returns`` (float32 ``(num_envs, players)``, zeros for the other envs).
///
/// Autoreset is Gymnasium's *same-step* mode: the step that ends a game returns its rewards,
/// ``terminations=True`` and its final observation and returns in ``info``, and the
/// observation, mask and player to move of the env's *next* game. Game ``k`` of env ``i``
/// (counted from the last ``reset(seed=...)``) is made from ``env.game_seed(i, k)``: a Fish
/// board is the one of ``game.new_state(seed=env.game_seed(i, k))``. ``reset()`` without a
/// seed starts the next game of each env's stream.
///
/// ``opponent`` makes the env single-agent: an agent spec (``AgentSpec``: ``"random"``,
/// ``"greedy"``, ``"mcts"`` (200 iterations a move; ``"mcts:N"`` for N), ``"alphabeta"`` (depth
/// 2; ``"alphabeta:D"`` for D), ``"learned"`` (alpha-beta with the learned evaluation that
/// ships, ``"learned:D"``), ``"auto"``, ``"net:PATH"`` (PUCT with the net file and a Gumbel
/// root, 64 simulations a move; ``"puct:N+net:PATH"`` for N) or ``"SPEC+net:PATH"`` (the net, a
/// ``Net`` or an ``NnueNet``, as the estimate of mcts, alphabeta or auto; the file is read
/// once)) plays every seat but the learner's (``learner``: a seat, or ``"random"`` for a seat
/// drawn per game), inside the step; one step is one decision of the learner. Each opponent
/// move is bounded by ``opponent_time`` seconds (above 0, at most ``MAX_TIME``, a week; 1.0 by default):
/// a safety net for specs that would search long (``"alphabeta:64"``, ``"solve"`` on a big
/// board), which the default budgets stay far below; a move cut short by it depends on the
/// machine's speed, not on the seed alone. An opponent that cannot move (``"solve"`` on a
/// position too big for that time) makes the call raise ``ValueError`` naming the env, and no
/// env changes. Ctrl-C stops a step whose opponents search (``KeyboardInterrupt``, no env
/// changed). ``learner`` and ``opponent_time`` need an ``opponent``.
///
/// The arrays returned are the env's own buffers, the same objects on every call, overwritten
/// by the next ``reset``, ``step`` or ``set_state``: copy what you keep (or make the env with
/// ``copy=True`` to get fresh arrays from every call), and do not write into them (a step
/// clears only the mask entries it set).
///
/// An action outside the action space raises ``InvalidMoveError``, an illegal one
/// ``IllegalMoveError("env 17: action 42 is illegal (...)")``; in both cases no env has moved.
#[pyclass(module = "pingvinas", name = "VectorEnv", frozen)]
pub struct PyVectorEnv {
    /// What a call changes; a second thread calling meanwhile is told the env is busy.
    core: Mutex<Core>,
    /// The read-only views of the buffers, the same objects on every call.
    shown: Shown,
    dims: Dims,
    game: Py<PyAny>,
    threads: usize,
    opponent: Option<String>,
    learner: Option<Learner>,
    /// The bound on an opponent's move, in seconds (with an opponent).
    opponent_time: Option<f64>,
    reward: Reward,
    copy: bool,
    /// Whether a step may take long (opponents that search, or very many envs): it then runs
    /// on a worker thread that Ctrl-C stops.
    long: bool,
}

/// The engine env, its buffers and the actions of the last step (reused).
struct Core {
    inner: Box<dyn Envs>,
    bufs: Buffers,
    actions: Vec<i64>,
}

/// Envs from which a step always runs on a worker thread that Ctrl-C stops.
const LONG_ENVS: usize = 1 << 14;

/// The concrete source of the type of `_sample`, a game of `source`.
fn typed<G: Concrete>(_sample: &Arc<G>, source: &AnySource) -> Source<G> {
    source.typed().expect("a source's sample has its type")
}

/// Reads `actions` (any integer array or sequence of shape `(n,)`) into `out`.
fn read_actions(
    py: Python<'_>,
    actions: &Bound<'_, PyAny>,
    n: usize,
    num_actions: usize,
    out: &mut Vec<i64>,
) -> PyResult<()> {
    let array = match actions.cast::<PyUntypedArray>() {
        Ok(a) => a.clone(),
        Err(_) => {
            if actions.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err(
                    "actions must be an int array of shape (num_envs,), not a str",
                ));
            }
            py.import("numpy")?
                .call_method1("asarray", (actions,))?
                .cast_into::<PyUntypedArray>()?
        }
    };
    let dtype = array.dtype();
    let kind = dtype.kind();
    if kind != b'i' && kind != b'u' {
        let what = if kind == b'b' {
            "bools".to_string()
        } else {
            format!("dtype {}", dtype.str()?)
        };
        return Err(PyTypeError::new_err(format!(
            "actions must be ints (an integer array of shape ({n},)), not {what}"
        )));
    }
    if array.shape() != [n] {
        return Err(PyValueError::new_err(format!(
            "actions must have shape ({n},) (one per env), not {:?}",
            array.shape()
        )));
    }
    out.clear();
    macro_rules! read {
        ($($t:ty),*) => {
            $(if let Ok(a) = array.cast::<PyArray1<$t>>() {
                let a = a
                    .try_readonly()
                    .map_err(|e| PyValueError::new_err(format!("actions: {e}")))?;
                for (i, &x) in a.as_array().iter().enumerate() {
                    // Beyond i64 (a uint64 action): refused here, with its own value.
                    let Some(x) = i64::try_from(x).ok() else {
                        return Err(InvalidMoveError::new_err(format!(
                            "env {i}: action {x} is not in the action space (0 to {}); no env \
                             was stepped",
                            num_actions - 1
                        )));
                    };
                    out.push(x);
                }
                return Ok(());
            })*
        };
    }
    read!(i64, i32, i16, i8, u64, u32, u16, u8);
    Err(PyTypeError::new_err(format!(
        "actions: unsupported integer dtype {}",
        dtype.str()?
    )))
}

impl PyVectorEnv {
    /// The env's core, or `RuntimeError` while another thread is using it.
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Core>> {
        match self.core.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "VectorEnv is busy: another thread is using it (use one VectorEnv per thread)",
            )),
            // Every call leaves the core whole (a panic is caught inside the call).
            Err(TryLockError::Poisoned(e)) => Ok(e.into_inner()),
        }
    }

    /// The env index `i`, checked.
    fn index(&self, i: &Bound<'_, PyAny>) -> PyResult<usize> {
        let n = self.dims.num_envs;
        let i = args::int(i, "env index")?;
        let value: i64 = i.extract().map_err(|_| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "env index out of range (0 to {})",
                n - 1
            ))
        })?;
        let value = if value < 0 { value + n as i64 } else { value };
        usize::try_from(value)
            .ok()
            .filter(|&v| v < n)
            .ok_or_else(|| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "env index {} out of range (0 to {})",
                    i,
                    n - 1
                ))
            })
    }

    /// A returned array: the read-only view, or a copy with `copy=True`.
    fn give<'py>(&self, py: Python<'py>, array: &Py<PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let array = array.bind(py).clone();
        if self.copy {
            array.call_method0("copy")
        } else {
            Ok(array)
        }
    }

    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = &self.shown;
        let info = PyDict::new(py);
        info.set_item("legal_action_mask", self.give(py, &b.mask)?)?;
        info.set_item("legal_actions", self.give(py, &b.legal)?)?;
        info.set_item("legal_action_count", self.give(py, &b.count)?)?;
        info.set_item("to_move", self.give(py, &b.to_move)?)?;
        info.set_item("final_mask", self.give(py, &b.ended)?)?;
        info.set_item("final_observation", self.give(py, &b.final_observations)?)?;
        info.set_item("final_returns", self.give(py, &b.final_returns)?)?;
        Ok(info)
    }
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    #[pyo3(signature = (game, num_envs, *, seed = None, threads = None, opponent = None, learner = None, opponent_time = None, reward = "returns", copy = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        num_envs: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        opponent: Option<&Bound<'_, PyAny>>,
        learner: Option<&Bound<'_, PyAny>>,
        opponent_time: Option<&Bound<'_, PyAny>>,
        reward: &str,
        copy: bool,
    ) -> PyResult<Self> {
        let num_envs = args::count(num_envs, "num_envs", 1, vector::MAX_ENVS as u64)? as usize;
        let seed = args::seed_or_random(seed)?;
        let threads = match threads {
            Some(t) if !t.is_none() => args::threads(t)?,
            _ => 1,
        };
        let opponent: Option<String> = match opponent {
            Some(o) if !o.is_none() => Some(
                o.cast::<PyString>()
                    .map_err(|_| {
                        PyTypeError::new_err(
                            "opponent must be None or an agent spec: \"random\", \"greedy\", \
                             \"mcts\", \"mcts:N\", \"alphabeta\", \"alphabeta:D\", \"auto\" or \
                             one with a net (\"net:PATH\", \"SPEC+net:PATH\")",
                        )
                    })?
                    .to_string(),
            ),
            _ => None,
        };
        let spec = match &opponent {
            Some(text) => Some(
                AgentSpec::parse(text)
                    .map_err(|e| PyValueError::new_err(format!("opponent = {e}")))?,
            ),
            None => None,
        };
        let learner_given = learner.is_some_and(|l| !l.is_none());
        let learner = match learner {
            Some(l) if !l.is_none() => {
                if let Ok(text) = l.cast::<PyString>() {
                    if text.to_cow()? != "random" {
                        return Err(PyValueError::new_err(format!(
                            "learner = {}: expected a seat (an int) or \"random\"",
                            args::quote(l)
                        )));
                    }
                    Learner::Random
                } else {
                    Learner::Seat(args::count(l, "learner", 0, 4)? as usize)
                }
            }
            _ => Learner::Seat(0),
        };
        if opponent.is_none() && learner_given {
            return Err(PyValueError::new_err(
                "learner is for single-agent envs: give an opponent too",
            ));
        }
        let opponent_time = match opponent_time {
            Some(t) if !t.is_none() => {
                if opponent.is_none() {
                    return Err(PyValueError::new_err(
                        "opponent_time bounds an opponent's move: give an opponent too",
                    ));
                }
                Some(args::seconds(t, "opponent_time")?)
            }
            _ => None,
        };
        let reward = reward.parse::<Reward>().map_err(|e| {
            PyValueError::new_err(format!("reward = {}", args::cut(&e.to_string())))
        })?;
        // Opponents that search (not greedy or random) make long steps.
        let long = num_envs >= LONG_ENVS
            || spec
                .as_ref()
                .is_some_and(|s| !matches!(s.choice, Some(Choice::Greedy | Choice::Random)));
        let source = crate::dispatch::source_of(game)?;
        let inner = with_game!(&source.sample(), |g| env_on(
            py,
            typed(g, &source),
            num_envs,
            seed,
            Options {
                threads,
                reward,
                opponent: None,
                learner,
            },
            spec,
            opponent_time,
            long,
        ))?;
        let dims = inner.dims();
        let bufs = Buffers::new(py, &dims, opponent.is_some())?;
        let mut actions = Vec::new();
        actions
            .try_reserve_exact(num_envs)
            .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {num_envs} actions")))?;
        let mut core = Core {
            inner,
            bufs,
            actions,
        };
        // SAFETY: see `Buffers::outputs`.
        let out = unsafe { core.bufs.outputs(py) };
        let inner = &mut core.inner;
        crate::off_gil::run_if_long(py, false, move |_| inner.observe(out))?;
        let shown = core.bufs.shown(py)?;
        Ok(PyVectorEnv {
            core: Mutex::new(core),
            shown,
            dims,
            game: game.clone().unbind(),
            threads,
            learner: opponent.is_some().then_some(learner),
            opponent_time: opponent
                .is_some()
                .then(|| opponent_time.unwrap_or(agent::OPPONENT_TIME)),
            opponent,
            reward,
            copy,
            long,
        })
    }

    /// Starts a new game in every env and returns ``(observations, info)``. With ``seed`` (any
    /// int) the games are game 0 of each env's stream from that seed; without, the next game of
    /// each env's stream. Ctrl-C stops it (``KeyboardInterrupt``), and then no env has changed.
    #[pyo3(signature = (seed = None, options = None))]
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        if options.is_some_and(|o| !o.is_none()) {
            return Err(PyValueError::new_err("reset takes no options"));
        }
        let seed = match seed {
            Some(s) if !s.is_none() => Some(args::seed(s)?),
            _ => None,
        };
        let mut core = self.lock()?;
        let core = &mut *core;
        // SAFETY: see `Buffers::outputs`.
        let out = unsafe { core.bufs.outputs(py) };
        let inner = &mut core.inner;
        crate::off_gil::run_if_long(py, self.long, move |stop| inner.reset(seed, out, stop))?;
        PyTuple::new(
            py,
            [
                self.give(py, &self.shown.observations)?,
                self.info(py)?.into_any(),
            ],
        )
    }

    /// Plays ``actions[i]`` in env ``i`` for every env; returns ``(observations, rewards,
    /// terminations, truncations, info)``. Raises ``IllegalMoveError`` / ``InvalidMoveError``
    /// naming the first env whose action is illegal or outside the action space, ``TypeError``
    /// / ``ValueError`` for actions that are not ints of shape ``(num_envs,)``; then no env has
    /// moved. Ctrl-C stops a long step (opponents that search) within about 50 ms: it raises
    /// ``KeyboardInterrupt`` and no env has moved either (a step is all or nothing).
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mut core = self.lock()?;
        let core = &mut *core;
        read_actions(
            py,
            actions,
            self.dims.num_envs,
            self.dims.num_actions,
            &mut core.actions,
        )?;
        // SAFETY: see `Buffers::outputs`.
        let out = unsafe { core.bufs.outputs(py) };
        let inner = &mut core.inner;
        let actions = &core.actions;
        crate::off_gil::run_if_long(py, self.long, move |stop| inner.step(actions, out, stop))?;
        let b = &self.shown;
        PyTuple::new(
            py,
            [
                self.give(py, &b.observations)?,
                self.give(py, &b.rewards)?,
                self.give(py, &b.terminated)?,
                self.give(py, &b.truncated)?,
                self.info(py)?.into_any(),
            ],
        )
    }

    /// The state of env ``i``: an ordinary ``FishState`` / ``MarathonState`` (a copy: playing
    /// on it does not change the env).
    fn state(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let i = self.index(i)?;
        self.lock()?.inner.state_object(py, i)
    }

    /// Every env's state (copies), in env order.
    fn states(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        let core = self.lock()?;
        (0..self.dims.num_envs)
            .map(|i| core.inner.state_object(py, i))
            .collect()
    }

    /// Loads ``state`` (a state of this env's game: same rules, players and size; a Fish board
    /// may differ) into env ``i``, whose game goes on from there, and writes its row of the
    /// buffers (the arrays returned last show it). Raises ``ValueError`` for a state of another
    /// game, a finished game, or (with an opponent) a state where the learner is not to move.
    fn set_state(
        &self,
        py: Python<'_>,
        i: &Bound<'_, PyAny>,
        state: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let i = self.index(i)?;
        let mut core = self.lock()?;
        let core = &mut *core;
        // SAFETY: see `Buffers::outputs`.
        let out = unsafe { core.bufs.outputs(py) };
        core.inner.set_state(i, state, out)
    }

    /// The seed of game ``game`` of env ``env`` since the last seeded reset (default: its
    /// current game; negative numbers count back from it, as env indices count from the end):
    /// ``game.new_state(seed=...)`` deals the same Fish board.
    #[pyo3(signature = (env, game = None))]
    fn game_seed(&self, env: &Bound<'_, PyAny>, game: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let i = self.index(env)?;
        let core = self.lock()?;
        let current = core.inner.game_index(i);
        let k = match game {
            Some(g) if !g.is_none() => {
                let g = args::int(g, "game")?;
                match g.extract::<i64>() {
                    Ok(back) if back < 0 => {
                        current.checked_add_signed(back + 1).ok_or_else(|| {
                            PyValueError::new_err(format!(
                                "game = {back}: env {i} has played {} games since the last seeded \
                             reset (-1 is its current game)",
                                current + 1
                            ))
                        })?
                    }
                    _ => args::count(&g, "game", 0, u64::MAX)?,
                }
            }
            _ => current,
        };
        Ok(vector::game_seed(core.inner.seed(), i, k))
    }

    /// The number of each env's current game since the last seeded reset (int64, a new array).
    #[getter]
    fn game_index<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let core = self.lock()?;
        let v: Vec<i64> = (0..self.dims.num_envs)
            .map(|i| core.inner.game_index(i) as i64)
            .collect();
        Ok(PyArray1::from_vec(py, v))
    }

    /// The learner's seat in each env (int32, a new array); None without an opponent.
    #[getter]
    fn learners<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<i32>>>> {
        if self.opponent.is_none() {
            return Ok(None);
        }
        let core = self.lock()?;
        let v: Vec<i32> = (0..self.dims.num_envs)
            .map(|i| core.inner.learner(i) as i32)
            .collect();
        Ok(Some(PyArray1::from_vec(py, v)))
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.dims.num_envs
    }

    /// Shape ``(planes, rows, cols)`` of one env's observation.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [p, r, c] = self.dims.observation_shape;
        (p, r, c)
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.dims.num_actions
    }

    /// Width of ``info["legal_actions"]``: the most legal actions a position of this game has.
    #[getter]
    fn legal_width(&self) -> usize {
        self.dims.legal_width
    }

    #[getter]
    fn players(&self) -> usize {
        self.dims.players
    }

    /// The game given to the constructor.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<PyAny> {
        self.game.clone_ref(py)
    }

    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// The built-in opponent's name, None for a multi-agent env.
    #[getter]
    fn opponent(&self) -> Option<String> {
        self.opponent.clone()
    }

    /// The bound on each opponent move, in seconds (``opponent_time``, by default 1.0); None
    /// for a multi-agent env.
    #[getter]
    fn opponent_time(&self) -> Option<f64> {
        self.opponent_time
    }

    /// ``"returns"`` or ``"score"``.
    #[getter]
    fn reward(&self) -> &'static str {
        self.reward.name()
    }

    /// The seed of the current game stream (the last seeded reset's, or the constructor's).
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.lock()?.inner.seed())
    }

    fn __len__(&self) -> usize {
        self.dims.num_envs
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let game = self.game.bind(py).repr()?.to_string();
        let mut text = format!("VectorEnv({game}, {}", self.dims.num_envs);
        if self.threads != 1 {
            text += &format!(", threads={}", self.threads);
        }
        if let Some(o) = &self.opponent {
            text += &format!(", opponent={o:?}");
            match self.learner {
                Some(Learner::Random) => text += ", learner=\"random\"",
                Some(Learner::Seat(p)) if p != 0 => text += &format!(", learner={p}"),
                _ => {}
            }
            match self.opponent_time {
                Some(t) if t != agent::OPPONENT_TIME => text += &format!(", opponent_time={t}"),
                _ => {}
            }
        }
        if self.reward == Reward::Score {
            text += ", reward=\"score\"";
        }
        Ok(text + ")")
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "a VectorEnv cannot be pickled: make a new one from its game and seed",
        ))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyVectorEnv>()
}
