//! `Net`: a network the engine evaluates itself (`pingvinas_engine::net::Mlp`). It is an
//! evaluator like any Python one (callable on a batch of observations), and searches and
//! self-play that are given one run it in Rust, with the GIL released and no Python per leaf.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArrayDyn,
    PyUntypedArrayMethods,
};
use pingvinas_engine::net::{Dense, Fits, Mlp, Nnue};
use pingvinas_engine::search::forest::{drive_parallel, Stepped};
use pingvinas_engine::{with_game, with_game_state, Game};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::ToPyResult;

/// A `(rows, columns)` float32 array.
type Rows<'py> = Bound<'py, PyArray2<f32>>;

/// A dense layer from Python: `(weight, bias)`.
type Layer<'py> = (PyReadonlyArray2<'py, f32>, PyReadonlyArray1<'py, f32>);

/// How long the net searches between two looks at Python (progress, Ctrl-C).
const ROUNDS_FOR: Duration = Duration::from_millis(20);

/// A policy-and-value network that pingvinas evaluates in Rust: see the `pingvinas.nets`
/// module for the architecture and the file format.
#[pyclass(module = "pingvinas._core", name = "Net", frozen)]
pub struct PyNet {
    pub(crate) mlp: Arc<Mlp>,
}

#[pymethods]
impl PyNet {
    /// Reads a net from a ``safetensors`` file; ``ValueError`` says what is wrong with a file
    /// that is not one.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyNet> {
        let mlp = py.detach(|| Mlp::load(&path)).py()?;
        Ok(PyNet { mlp: Arc::new(mlp) })
    }

    /// Reads a net from the bytes of a ``safetensors`` file.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyNet> {
        let mlp = py.detach(|| Mlp::from_bytes(data)).py()?;
        Ok(PyNet { mlp: Arc::new(mlp) })
    }

    /// A net for ``game`` (a ``Fish`` or ``Marathon``) with random weights (He
    /// initialisation, from ``seed``) and trunk layers of these widths (1 to 16 layers, each 1
    /// to 4096 wide).
    #[staticmethod]
    #[pyo3(signature = (game, hidden, *, seed = None))]
    fn random(
        game: &Bound<'_, PyAny>,
        hidden: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyNet> {
        let hidden = crate::args::widths(hidden, "hidden")?;
        let seed = match seed {
            Some(s) if !s.is_none() => crate::args::seed(s)?,
            _ => 0,
        };
        let sample = crate::dispatch::source_of(game)?.sample();
        let fits = with_game!(&sample, |g| Fits::of(&**g, sample.name()));
        let mlp = Mlp::random(fits, &hidden, seed).py()?;
        Ok(PyNet { mlp: Arc::new(mlp) })
    }

    /// A net for ``game`` from its layers, each a ``(weight, bias)`` pair of float32 arrays,
    /// ``weight`` of shape ``(outputs, inputs)``: ``trunk`` (one or more, each followed by a
    /// ReLU), then the ``policy`` and ``value`` heads (see ``pingvinas.nets.from_numpy``).
    #[staticmethod]
    fn from_arrays(
        game: &Bound<'_, PyAny>,
        trunk: Vec<Layer<'_>>,
        policy: Layer<'_>,
        value: Layer<'_>,
    ) -> PyResult<PyNet> {
        let sample = crate::dispatch::source_of(game)?.sample();
        let fits = with_game!(&sample, |g| Fits::of(&**g, sample.name()));
        let trunk = trunk
            .iter()
            .enumerate()
            .map(|(k, l)| dense_of(&format!("trunk.{k}"), l))
            .collect::<PyResult<Vec<_>>>()?;
        let mlp = Mlp::from_layers(
            fits,
            trunk,
            dense_of("policy", &policy)?,
            dense_of("value", &value)?,
        )
        .py()?;
        Ok(PyNet { mlp: Arc::new(mlp) })
    }

    /// The layers as :meth:`from_arrays` takes them: ``{"trunk": [(weight, bias), ...],
    /// "policy": (weight, bias), "value": (weight, bias)}``, float32 arrays.
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let pair = |l: &Dense| pair(py, l);
        let (trunk, policy, value) = self.mlp.layers();
        let out = PyDict::new(py);
        out.set_item(
            "trunk",
            trunk.iter().map(pair).collect::<PyResult<Vec<_>>>()?,
        )?;
        out.set_item("policy", pair(policy)?)?;
        out.set_item("value", pair(value)?)?;
        Ok(out)
    }

    /// Writes the net to a ``safetensors`` file.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        write_file(py, &path, self.mlp.to_bytes().py()?)
    }

    /// The bytes of a ``safetensors`` file holding the net.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.mlp.to_bytes().py()?))
    }

    /// The game the net was made for (``"fish"``, ``"marathon"``).
    #[getter]
    fn game(&self) -> String {
        self.mlp.fits().game.clone()
    }

    /// The observation shape it reads, ``(planes, rows, cols)``.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [p, r, c] = self.mlp.fits().observation;
        (p, r, c)
    }

    /// The size of the action space of its policy.
    #[getter]
    fn num_actions(&self) -> usize {
        self.mlp.fits().actions
    }

    /// The players its value head has.
    #[getter]
    fn num_players(&self) -> usize {
        self.mlp.fits().players
    }

    /// The widths of its trunk layers.
    #[getter]
    fn hidden(&self) -> Vec<usize> {
        self.mlp.hidden()
    }

    /// The evaluator protocol: ``observations`` (float32, ``(n, planes, rows, cols)`` or
    /// ``(n, planes * rows * cols)``) and ``legal_mask`` (bool, ``(n, num_actions)``) give
    /// ``(policy_logits, values)``, float32 arrays of shapes ``(n, num_actions)`` (0 for
    /// illegal actions) and ``(n, num_players)`` (per seat from the observer).
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        observations: PyReadonlyArrayDyn<'py, f32>,
        legal_mask: PyReadonlyArray2<'py, bool>,
    ) -> PyResult<(Rows<'py>, Rows<'py>)> {
        let f = self.mlp.fits();
        let obs_len: usize = f.observation.iter().product();
        let shape = observations.shape();
        let rows = shape.first().copied().unwrap_or(0);
        if shape.iter().skip(1).product::<usize>() != obs_len || shape.len() < 2 {
            return Err(PyValueError::new_err(format!(
                "observations of shape {shape:?}: expected (n, {}, {}, {}) for this net",
                f.observation[0], f.observation[1], f.observation[2]
            )));
        }
        if legal_mask.shape() != [rows, f.actions] {
            return Err(PyValueError::new_err(format!(
                "legal_mask of shape {:?}: expected ({rows}, {})",
                legal_mask.shape(),
                f.actions
            )));
        }
        let obs = observations.as_slice()?;
        let mask = legal_mask.as_slice()?;
        let (a, n) = (f.actions, f.players);
        let mut policy = vec![0.0f32; rows * a];
        let mut values = vec![0.0f32; rows * n];
        py.detach(|| {
            for r in 0..rows {
                self.mlp.forward(
                    &obs[r * obs_len..(r + 1) * obs_len],
                    Some(&mask[r * a..(r + 1) * a]),
                    &mut policy[r * a..(r + 1) * a],
                    &mut values[r * n..(r + 1) * n],
                );
            }
        });
        let policy = numpy::PyArray1::from_vec(py, policy).reshape([rows, a])?;
        let values = numpy::PyArray1::from_vec(py, values).reshape([rows, n])?;
        Ok((policy, values))
    }

    /// Pickles as the bytes of its file (agents holding a net ship to other processes).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = PyBytes::new(slf.py(), &slf.get().mlp.to_bytes().py()?);
        Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
    }

    fn __repr__(&self) -> String {
        let f = self.mlp.fits();
        format!(
            "<Net {} {:?}, trunk {:?}, {} actions, {} players>",
            f.game,
            f.observation,
            self.mlp.hidden(),
            f.actions,
            f.players
        )
    }
}

/// Drives `work` with `net` in Rust, off the GIL, until it is done: in stretches of about
/// [`ROUNDS_FOR`], calling `after` between them with the GIL held, and stopping on Ctrl-C.
pub fn drive<G: Game, W: Stepped<G> + Send>(
    py: Python<'_>,
    work: &mut W,
    net: &PyNet,
    obs_shape: [usize; 3],
    mut after: impl FnMut(&W) -> PyResult<()>,
) -> PyResult<()> {
    drive_parts(
        py,
        std::slice::from_mut(work),
        &net.mlp,
        obs_shape,
        |parts| after(&parts[0]),
    )
}

/// [`drive`] for several pieces of work at once, each on a thread of its own
/// (`forest::drive_parallel`); one piece runs exactly as [`drive`]. `after` sees them all.
pub fn drive_parts<G: Game, W: Stepped<G> + Send>(
    py: Python<'_>,
    parts: &mut [W],
    mlp: &Mlp,
    obs_shape: [usize; 3],
    mut after: impl FnMut(&[W]) -> PyResult<()>,
) -> PyResult<()> {
    if let Some(w) = parts.first() {
        mlp.fits()
            .check_sizes(obs_shape, w.num_actions(), w.num_players())
            .py()?;
    }
    let stop = pingvinas_engine::search::StopFlag::new();
    while !parts.iter().all(|w| w.is_done()) {
        let stretch = |flag: &pingvinas_engine::search::StopFlag| {
            let start = Instant::now();
            drive_parallel(&mut *parts, &mlp, || {
                !flag.is_set() && start.elapsed() < ROUNDS_FOR
            })
        };
        if let Err(e) = crate::off_gil::run(py, &stop, stretch).and_then(|r| r.py()) {
            for w in parts.iter_mut() {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.abort()));
            }
            return Err(e);
        }
        after(parts)?;
    }
    Ok(())
}

/// A net that gives alpha-beta, MCTS and `auto` their position estimates.
#[derive(Clone)]
pub enum Estimate {
    /// A policy-and-value net's value head.
    Mlp(Arc<Mlp>),
    /// An evaluation-only NNUE net.
    Nnue(Arc<Nnue>),
}

impl Estimate {
    /// The net of the file at `path`, of the kind its header names (`load_net`, and the
    /// engine's own players such as a vector env's opponent); errors name the file.
    pub fn read(path: &Path) -> pingvinas_engine::error::Result<Estimate> {
        use pingvinas_engine::net::file::{format_of, read_file, NNUE_FORMAT};
        let bytes = read_file(path)?;
        let named = |e: pingvinas_engine::error::Error| {
            pingvinas_engine::error::Error::Invalid(format!("{}: {e}", path.display()))
        };
        Ok(if format_of(&bytes).map_err(named)? == NNUE_FORMAT {
            Estimate::Nnue(Arc::new(Nnue::from_bytes(&bytes).map_err(named)?))
        } else {
            Estimate::Mlp(Arc::new(Mlp::from_bytes(&bytes).map_err(named)?))
        })
    }
}

/// The net `evaluator` holds, if it is a `Net` or an `NnueNet`.
pub fn estimate_of(evaluator: &Bound<'_, PyAny>) -> Option<Estimate> {
    if let Ok(net) = evaluator.cast::<PyNet>() {
        return Some(Estimate::Mlp(net.get().mlp.clone()));
    }
    evaluator
        .cast::<PyNnueNet>()
        .ok()
        .map(|n| Estimate::Nnue(n.get().nnue.clone()))
}

/// A dense layer from a Python `(weight, bias)` pair, in any memory layout (a transposed flax
/// kernel, a slice): the values in logical order.
fn dense_of(name: &str, (w, b): &Layer<'_>) -> PyResult<Dense> {
    let values = |a: numpy::ndarray::ArrayViewD<'_, f32>| a.iter().copied().collect();
    let (weight, bias) = (
        values(w.as_array().into_dyn()),
        values(b.as_array().into_dyn()),
    );
    Dense::new(name, w.shape(), weight, bias).py()
}

/// A layer as a Python `(weight, bias)` pair of float32 arrays.
fn pair<'py>(py: Python<'py>, l: &Dense) -> PyResult<(Rows<'py>, Bound<'py, PyArray1<f32>>)> {
    let w = PyArray1::from_slice(py, &l.weight).reshape([l.outputs, l.inputs])?;
    Ok((w, PyArray1::from_slice(py, &l.bias)))
}

/// An evaluation-only network for alpha-beta in the manner of Stockfish's NNUE (architecture
/// ``pingvinas-nnue`` 1): per-player accumulators over 0/1 cell features (a floe of 1, 2 or 3
/// fish, a penguin of each seat, from that player's view), then dense ReLU layers and a
/// ``tanh`` value per seat. A move changes a few features, so an accumulator can be updated
/// from its parent's; searches given one (``alphabeta``, ``mcts``, ``auto``) update each
/// thread's last leaf's accumulators to the next leaf. A residual net (a ``base`` layer)
/// corrects the hand-written evaluation's estimate. Fish only; stored as a ``safetensors``
/// file like :class:`Net`.
#[pyclass(module = "pingvinas._core", name = "NnueNet", frozen)]
pub struct PyNnueNet {
    pub(crate) nnue: Arc<Nnue>,
}

#[pymethods]
impl PyNnueNet {
    /// Reads a net from a ``safetensors`` file; ``ValueError`` says what is wrong with a file
    /// that is not one (a :class:`Net`'s file included).
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyNnueNet> {
        let nnue = py.detach(|| Nnue::load(&path)).py()?;
        Ok(PyNnueNet {
            nnue: Arc::new(nnue),
        })
    }

    /// Reads a net from the bytes of a ``safetensors`` file.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyNnueNet> {
        let nnue = py.detach(|| Nnue::from_bytes(data)).py()?;
        Ok(PyNnueNet {
            nnue: Arc::new(nnue),
        })
    }

    /// A net for ``game`` (a ``Fish``) with random weights (He initialisation, from
    /// ``seed``), accumulators of ``width`` (1 to 4096) a player and dense layers of the widths
    /// ``hidden`` (1 to 16 layers, each 1 to 4096 wide).
    #[staticmethod]
    #[pyo3(signature = (game, width = 64, hidden = vec![32, 32], *, seed = None))]
    fn random(
        game: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = nnue_width)] width: usize,
        #[pyo3(from_py_with = nnue_hidden)] hidden: Vec<usize>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyNnueNet> {
        let seed = match seed {
            Some(s) if !s.is_none() => crate::args::seed(s)?,
            _ => 0,
        };
        let fits = fish_fits(game)?;
        let nnue = Nnue::random(fits, width, &hidden, seed).py()?;
        Ok(PyNnueNet {
            nnue: Arc::new(nnue),
        })
    }

    /// A net for ``game`` from its layers, each a ``(weight, bias)`` pair of float32 arrays,
    /// ``weight`` of shape ``(outputs, inputs)``: ``features`` (``(width, features)``), the
    /// ``dense`` layers (one or more, each followed by a ReLU; the first takes ``players *
    /// width + players`` inputs, or ``players * 11`` more to read the hand-written
    /// evaluation's terms, see :meth:`inputs`; ``width`` may be 0 then) and the ``value``
    /// head (``players`` outputs); ``base`` (``(1, 1)`` and ``(1,)``) makes a residual net:
    /// each seat's value is then
    /// ``tanh(value + base_weight * atanh(e) + base_bias)``, ``e`` the hand-written
    /// evaluation's estimate of the seat.
    #[staticmethod]
    #[pyo3(signature = (game, features, dense, value, base = None))]
    fn from_arrays(
        game: &Bound<'_, PyAny>,
        features: Layer<'_>,
        dense: Vec<Layer<'_>>,
        value: Layer<'_>,
        base: Option<Layer<'_>>,
    ) -> PyResult<PyNnueNet> {
        let fits = fish_fits(game)?;
        let dense = dense
            .iter()
            .enumerate()
            .map(|(k, l)| dense_of(&format!("dense.{k}"), l))
            .collect::<PyResult<Vec<_>>>()?;
        let base = base.map(|b| dense_of("base", &b)).transpose()?;
        let nnue = Nnue::with_base(
            fits,
            dense_of("features", &features)?,
            dense,
            dense_of("value", &value)?,
            base,
        )
        .py()?;
        Ok(PyNnueNet {
            nnue: Arc::new(nnue),
        })
    }

    /// The layers as :meth:`from_arrays` takes them: ``{"features": (weight, bias), "dense":
    /// [(weight, bias), ...], "value": (weight, bias), "base": (weight, bias) or None}``,
    /// float32 arrays.
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (features, dense, value) = self.nnue.layers();
        let out = PyDict::new(py);
        out.set_item("features", pair(py, &features)?)?;
        out.set_item(
            "dense",
            dense
                .iter()
                .map(|l| pair(py, l))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        out.set_item("value", pair(py, value)?)?;
        match self.nnue.base() {
            Some(b) => out.set_item("base", pair(py, b)?)?,
            None => out.set_item("base", py.None())?,
        }
        Ok(out)
    }

    /// Writes the net to a ``safetensors`` file.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        write_file(py, &path, self.nnue.to_bytes().py()?)
    }

    /// The bytes of a ``safetensors`` file holding the net.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.nnue.to_bytes().py()?))
    }

    /// The game the net was made for (``"fish"``).
    #[getter]
    fn game(&self) -> String {
        self.nnue.fits().game.clone()
    }

    /// The observation shape of the game it was made for, ``(planes, rows, cols)``.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [p, r, c] = self.nnue.fits().observation;
        (p, r, c)
    }

    /// The players its value head has.
    #[getter]
    fn num_players(&self) -> usize {
        self.nnue.fits().players
    }

    /// The width of each player's accumulator.
    #[getter]
    fn width(&self) -> usize {
        self.nnue.width()
    }

    /// The widths of its dense layers.
    #[getter]
    fn hidden(&self) -> Vec<usize> {
        self.nnue.hidden()
    }

    /// The net's value of ``state`` for each player (player 0 first), each in ``[-1, 1]``:
    /// what a search given the net uses at a leaf. ``ValueError`` for a state of a game the
    /// net was not made for.
    fn value(&self, state: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
        let (game, s) = crate::dispatch::state_arg(state, "a FishState")?;
        with_game_state!(
            &game,
            &s,
            |g, s| {
                self.nnue.check(&**g).py()?;
                let n = g.num_players();
                Ok(self.nnue.values(&**g, s)[..n].to_vec())
            },
            Err(PyValueError::new_err("a Fish state of another board"))
        )
    }

    /// What the net reads of each of ``states`` (Fish states of boards it fits), for
    /// training: ``{"features": uint8 (n, players, features), "scores": float32 (n,
    /// players), "estimate": float32 (n, players), "terms": float32 (n, players, 11)}``, each
    /// seat from the player to move on: the 0/1 cell features from each seat's view, the
    /// seats' fish so far over the board's, the hand-written evaluation's estimate of each
    /// seat (what a residual net corrects) and its terms, a tenth of each (fish so far, solved
    /// hauls of own regions, most of own regions too large to solve, fish under penguins,
    /// contested fish reached first at one, two and three or more steps, contested fish
    /// reached at the same step as another player, moves, penguins that cannot move, penguins
    /// still to place; what a net whose first dense layer takes ``players * 11`` more inputs
    /// reads). States that are over give the last mover's view.
    fn inputs<'py>(
        &self,
        py: Python<'py>,
        states: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        use pingvinas_engine::net::CellFeatures;
        let (n, count) = (
            self.nnue.fits().players,
            Nnue::feature_count(self.nnue.fits()),
        );
        let mut features = vec![0u8; states.len() * n * count];
        let mut scores = vec![0f32; states.len() * n];
        let mut estimate = vec![0f32; states.len() * n];
        let t = pingvinas_engine::fish::eval::TERMS;
        let mut terms = vec![0f32; states.len() * n * t];
        for (k, state) in states.iter().enumerate() {
            let (game, s) = crate::dispatch::state_arg(state, "FishStates")?;
            with_game_state!(
                &game,
                &s,
                |g, s| {
                    self.nnue.check(&**g).py()?;
                    let p = pingvinas_engine::game::Game::to_move(&**g, s).unwrap_or(0);
                    for seat in 0..n {
                        let row = &mut features[(k * n + seat) * count..][..count];
                        g.for_each_feature(s, (p + seat) % n, |f| row[f] = 1);
                    }
                    g.write_scores(s, p, &mut scores[k * n..(k + 1) * n]);
                    g.write_base(
                        &g.base(),
                        s,
                        p,
                        &mut estimate[k * n..(k + 1) * n],
                        Some(&mut terms[k * n * t..(k + 1) * n * t]),
                    );
                    Ok(())
                },
                Err(PyValueError::new_err("a Fish state of another board"))
            )?;
        }
        let out = PyDict::new(py);
        let m = states.len();
        out.set_item(
            "features",
            PyArray1::from_vec(py, features).reshape([m, n, count])?,
        )?;
        out.set_item("scores", PyArray1::from_vec(py, scores).reshape([m, n])?)?;
        out.set_item(
            "estimate",
            PyArray1::from_vec(py, estimate).reshape([m, n])?,
        )?;
        out.set_item("terms", PyArray1::from_vec(py, terms).reshape([m, n, t])?)?;
        Ok(out)
    }

    /// Pickles as the bytes of its file.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = PyBytes::new(slf.py(), &slf.get().nnue.to_bytes().py()?);
        Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
    }

    fn __repr__(&self) -> String {
        let f = self.nnue.fits();
        format!(
            "<NnueNet {} {:?}, accumulator {}, dense {:?}, {} players>",
            f.game,
            f.observation,
            self.nnue.width(),
            self.nnue.hidden(),
            f.players
        )
    }
}

/// The sizes of `game`, which must have cell features (a Fish board).
fn fish_fits(game: &Bound<'_, PyAny>) -> PyResult<Fits> {
    let sample = crate::dispatch::source_of(game)?.sample();
    with_game!(&sample, |g| {
        if !pingvinas_engine::net::CellFeatures::has_cell_features(&**g) {
            return Err(PyValueError::new_err(
                "an NnueNet reads Fish boards; Marathon has no cell features for it yet",
            ));
        }
        Ok(Fits::of(&**g, sample.name()))
    })
}

/// Reads a ``safetensors`` net file of either kind, as its header's ``format`` says: a
/// :class:`Net` (``pingvinas-mlp``) or an :class:`NnueNet` (``pingvinas-nnue``).
#[pyfunction]
fn load_net(py: Python<'_>, path: PathBuf) -> PyResult<Py<PyAny>> {
    Ok(match py.detach(|| Estimate::read(&path)).py()? {
        Estimate::Nnue(nnue) => Py::new(py, PyNnueNet { nnue })?.into_any(),
        Estimate::Mlp(mlp) => Py::new(py, PyNet { mlp })?.into_any(),
    })
}

/// Writes a net's file, `bytes`, to `path` with the GIL released.
fn write_file(py: Python<'_>, path: &Path, bytes: Vec<u8>) -> PyResult<()> {
    py.detach(|| std::fs::write(path, bytes)).map_err(|e| {
        PyValueError::new_err(format!("{}: cannot write the net ({e})", path.display()))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNet>()?;
    m.add_class::<PyNnueNet>()?;
    m.add_function(wrap_pyfunction!(load_net, m)?)
}

/// `width` of `NnueNet.random`.
fn nnue_width(value: &Bound<'_, PyAny>) -> PyResult<usize> {
    crate::args::count(value, "width", 1, crate::args::MAX_LAYER_WIDTH).map(|w| w as usize)
}

/// `hidden` of `NnueNet.random`.
fn nnue_hidden(value: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    crate::args::widths(value, "hidden")
}
