//! Bindings of the Penguin Marathon engine: `Marathon` (a variant), `MarathonState`,
//! `MarathonMove`, the `MarathonPiece` named tuple, and the batch playouts. Python values are
//! converted at the edge; the engine does the work.

use std::sync::Arc;

use numpy::ndarray::{Array3, Axis};
use numpy::{IntoPyArray, PyArray1, PyArray3};
use pingvinas_engine::marathon::json::{self, piece_from_parts};
use pingvinas_engine::marathon::playout::random_playouts;
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::marathon::{Config, Marathon, Move, Piece, Place, State};
use pingvinas_engine::{ActionList, Game};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PySequence, PyString, PyTuple, PyType};

use crate::errors::{IllegalMoveError, ToPyResult};

type Cell = (i32, i32);

/// `(winners, plies)` of a batch of playouts.
type PlayoutArrays<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i32>>);

/// `MarathonPiece(owner, kind, status, cell, facing)`: a named tuple made once.
static PIECE_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn piece_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PIECE_TYPE
        .get_or_try_init(py, || {
            let nt = py.import("collections")?.getattr("namedtuple")?;
            let t = nt.call1((
                "MarathonPiece",
                ("owner", "kind", "status", "cell", "facing"),
            ))?;
            t.setattr("__module__", "pingvinas")?;
            t.setattr(
                "__doc__",
                "A piece: owner (player), kind ('mama', 'papa', 'baby'), status ('waiting', \
                 'on course', 'finished'), cell ((row, col) or None), facing (None when upright, \
                 else 'N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW').",
            )?;
            Ok::<_, PyErr>(t.cast_into::<PyType>()?.unbind())
        })
        .map(|t| t.bind(py))
}

fn py_piece<'py>(py: Python<'py>, p: &Piece) -> PyResult<Bound<'py, PyAny>> {
    piece_type(py)?.call1((
        p.owner,
        p.kind.name(),
        p.place.status(),
        p.place.cell(),
        p.place.facing().map(|f| f.name()),
    ))
}

/// A non-negative int that fits `T`, or a ValueError/TypeError naming `what`.
fn small_int<T: TryFrom<i64>>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    if !(value.is_instance_of::<PyInt>() || value.hasattr("__index__")?)
        || value.is_instance_of::<pyo3::types::PyBool>()
    {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not {}",
            value.get_type().name()?
        )));
    }
    let n: i64 = value
        .extract()
        .map_err(|_| PyValueError::new_err(format!("{what} = {value} is out of range")))?;
    if n < 0 {
        return Err(PyValueError::new_err(format!(
            "{what} = {n} must not be negative"
        )));
    }
    T::try_from(n).map_err(|_| PyValueError::new_err(format!("{what} = {n} is out of range")))
}

fn cell_of(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Cell>> {
    if value.is_none() {
        return Ok(None);
    }
    let bad = || {
        PyValueError::new_err(format!(
            "{what}: cell must be None or (row, col), not {value:?}"
        ))
    };
    if value.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let seq = value.cast::<PySequence>().map_err(|_| bad())?;
    if seq.len()? != 2 {
        return Err(bad());
    }
    let coord = |i: usize| -> PyResult<i32> {
        let v = seq.get_item(i)?;
        if !v.is_instance_of::<PyInt>() || v.is_instance_of::<pyo3::types::PyBool>() {
            return Err(bad());
        }
        v.extract::<i32>().map_err(|_| {
            PyValueError::new_err(format!("{what}: cell {value:?} is not on the course"))
        })
    };
    Ok(Some((coord(0)?, coord(1)?)))
}

fn opt_str(value: Option<Bound<'_, PyAny>>, what: &str, field: &str) -> PyResult<Option<String>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .cast::<PyString>()
            .map(|s| Some(s.to_string()))
            .map_err(|_| {
                PyValueError::new_err(format!(
                    "{what}: {field} must be a string, not {}",
                    v.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            }),
    }
}

/// A piece from a dict (`owner`, `kind`, `status`, `cell`, `facing`) or a tuple
/// `(owner, kind, status, cell, facing)` (the last two or three may be left out).
fn extract_piece(value: &Bound<'_, PyAny>, i: usize) -> PyResult<Piece> {
    let what = format!("pieces[{i}]");
    let (owner, kind, status, cell, facing) = if let Ok(d) = value.cast::<PyDict>() {
        for key in d.keys() {
            let k: String = key.extract().unwrap_or_default();
            if !["owner", "kind", "status", "cell", "facing"].contains(&k.as_str()) {
                return Err(PyValueError::new_err(format!(
                    "{what}: unknown key {key:?} (keys: owner, kind, status, cell, facing)"
                )));
            }
        }
        let need = |k: &str| {
            d.get_item(k)?
                .ok_or_else(|| PyValueError::new_err(format!("{what}: missing {k:?}")))
        };
        (
            need("owner")?,
            need("kind")?,
            d.get_item("status")?,
            d.get_item("cell")?,
            d.get_item("facing")?,
        )
    } else if value.is_instance_of::<PyTuple>() || value.is_instance_of::<PyList>() {
        let seq = value.cast::<PySequence>()?;
        let n = seq.len()?;
        if !(2..=5).contains(&n) {
            return Err(PyValueError::new_err(format!(
                "{what}: expected (owner, kind, status, cell, facing), got {n} items"
            )));
        }
        let item = |j: usize| -> PyResult<Option<Bound<'_, PyAny>>> {
            if j < n {
                seq.get_item(j).map(Some)
            } else {
                Ok(None)
            }
        };
        (
            seq.get_item(0)?,
            seq.get_item(1)?,
            item(2)?,
            item(3)?,
            item(4)?,
        )
    } else {
        return Err(PyTypeError::new_err(format!(
            "{what}: a piece is a dict or a tuple (owner, kind, status, cell, facing), not {}",
            value.get_type().name()?
        )));
    };
    let owner: usize = small_int(&owner, &format!("{what}: owner"))?;
    let kind = opt_str(Some(kind), &what, "kind")?.unwrap_or_default();
    let cell = match cell {
        Some(c) => cell_of(&c, &what)?,
        None => None,
    };
    let status = opt_str(status, &what, "status")?.unwrap_or_else(|| {
        if cell.is_some() {
            "on course".into()
        } else {
            "waiting".into()
        }
    });
    let facing = opt_str(facing, &what, "facing")?;
    piece_from_parts(&what, owner, &kind, &status, cell, facing.as_deref()).py()
}

/// A Penguin Marathon variant: a course, a number of players and a ply limit.
///
/// >>> game = Marathon(players=3, course="zigzag")
/// >>> state = game.new_state()
#[pyclass(module = "pingvinas", name = "Marathon", frozen)]
pub struct PyMarathon {
    game: Arc<Marathon>,
}

impl PyMarathon {
    fn from_config_struct(config: Config) -> PyResult<Self> {
        Ok(PyMarathon {
            game: Arc::new(config.build().py()?),
        })
    }
}

#[pymethods]
impl PyMarathon {
    /// `course`: a bundled course (`"marathon"` or `"standard"`, `"marathon-5"` or `"5"`,
    /// `"marathon-l"` or `"l"`, `"marathon-zigzag"` or `"zigzag"`) or an ASCII course map (see
    /// the bundled TOML files). `players`: 2 to 5. `ply_limit`: a game reaching this many
    /// actions is a draw.
    #[new]
    #[pyo3(signature = (players = None, course = "marathon", *, ply_limit = None))]
    fn new(
        players: Option<&Bound<'_, PyAny>>,
        course: &str,
        ply_limit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let players: usize = players.map_or(Ok(2), |p| small_int(p, "players"))?;
        let ply_limit: u32 = ply_limit.map_or(Ok(500), |p| small_int(p, "ply_limit"))?;
        let mut config = if course.contains('#') {
            Config {
                name: "custom".into(),
                description: String::new(),
                players: 2,
                ply_limit: 500,
                course: course.to_string(),
            }
        } else {
            Config::bundled(course).py()?
        };
        config.players = players;
        config.ply_limit = ply_limit;
        PyMarathon::from_config_struct(config)
    }

    /// A bundled variant by name (see `pingvinas.variants()`; the short names work too).
    #[staticmethod]
    fn variant(name: &str) -> PyResult<Self> {
        PyMarathon::from_config_struct(Config::bundled(name).py()?)
    }

    /// A variant from a TOML file (a path) or a dict with the same keys (`course` is the ASCII
    /// map; `name`, `description`, `players`, `ply_limit` are optional).
    #[staticmethod]
    fn from_config(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config = if source.is_instance_of::<PyDict>() {
            let text: String = py
                .import("json")?
                .call_method1("dumps", (source,))
                .map_err(|e| PyValueError::new_err(format!("Marathon config dict: {e}")))?
                .extract()?;
            Config::from_json(&text, "Marathon config dict").py()?
        } else {
            let path: std::path::PathBuf = source.extract().map_err(|_| {
                PyTypeError::new_err("from_config takes a path to a TOML file or a dict")
            })?;
            let bytes = std::fs::read(&path).map_err(|e| {
                PyValueError::new_err(format!(
                    "cannot read Marathon config {}: {e}",
                    path.display()
                ))
            })?;
            let text = String::from_utf8(bytes).map_err(|e| {
                PyValueError::new_err(format!(
                    "Marathon config {}: not UTF-8 text ({e})",
                    path.display()
                ))
            })?;
            Config::from_toml(&text, &path.display().to_string()).py()?
        };
        PyMarathon::from_config_struct(config)
    }

    #[getter]
    fn name(&self) -> String {
        self.game.name().to_string()
    }

    #[getter]
    fn description(&self) -> String {
        self.game.description().to_string()
    }

    #[getter]
    fn players(&self) -> usize {
        self.game.players()
    }

    #[getter]
    fn ply_limit(&self) -> u32 {
        self.game.ply_limit()
    }

    /// The course as an ASCII map (`#` cells, `S` before the start line, `F` beyond the finish).
    #[getter]
    fn course(&self) -> String {
        self.game.course().to_map()
    }

    /// The course cells `(row, col)`, in row-major order (the order of the action encoding).
    #[getter]
    fn cells(&self) -> Vec<Cell> {
        self.game.course().coords().to_vec()
    }

    /// Rows and columns of the course's bounding box.
    #[getter]
    fn rows(&self) -> usize {
        self.game.course().size().0
    }

    #[getter]
    fn cols(&self) -> usize {
        self.game.course().size().1
    }

    /// The outside places pieces enter from, along the start line.
    #[getter]
    fn start(&self) -> Vec<Cell> {
        self.game.course().start_origins().to_vec()
    }

    /// The outside places just beyond the finish line.
    #[getter]
    fn finish(&self) -> Vec<Cell> {
        self.game.course().finish_line().to_vec()
    }

    /// Size of the fixed action space: `3 * (9 * cells + 1)`.
    #[getter]
    fn num_actions(&self) -> usize {
        self.game.num_actions()
    }

    /// The config as TOML text (readable by `Marathon.from_config`).
    fn to_toml(&self) -> String {
        self.game.config().to_toml()
    }

    /// The opening position: every piece waiting, player 0 to move. (`seed` is accepted for
    /// symmetry with `Fish.new_state` and ignored: Marathon has no chance.)
    #[pyo3(signature = (seed = None))]
    fn new_state(&self, seed: Option<&Bound<'_, PyAny>>) -> PyMarathonState {
        let _ = seed;
        PyMarathonState {
            game: self.game.clone(),
            state: self.game.new_state(),
        }
    }

    /// Any position, for tests and puzzles. `pieces`: a list of pieces, each a dict
    /// `{"owner": 0, "kind": "papa", "status": "on course", "cell": (3, 1), "facing": "SE"}` or a
    /// tuple `(owner, kind, status, cell, facing)` (as `state.pieces` gives them); `status`
    /// defaults to "on course" with a cell and "waiting" without; `facing` None is upright.
    /// Pieces not listed are waiting. If player `to_move` has no legal action the turn passes
    /// on as in play; `ply` counts the actions already played (the ply limit applies).
    #[pyo3(signature = (pieces = None, to_move = None, ply = None))]
    fn position(
        &self,
        pieces: Option<&Bound<'_, PyAny>>,
        to_move: Option<&Bound<'_, PyAny>>,
        ply: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyMarathonState> {
        let mut list = Vec::new();
        if let Some(pieces) = pieces.filter(|p| !p.is_none()) {
            if pieces.is_instance_of::<PyString>() || pieces.is_instance_of::<PyDict>() {
                return Err(PyTypeError::new_err(
                    "pieces must be a list of pieces (dicts or tuples)",
                ));
            }
            let iter = pieces.try_iter().map_err(|_| {
                PyTypeError::new_err("pieces must be a list of pieces (dicts or tuples)")
            })?;
            for (i, item) in iter.enumerate() {
                list.push(extract_piece(&item?, i)?);
            }
        }
        let to_move: usize = match to_move {
            Some(t) if !t.is_none() => small_int(t, "to_move")?,
            _ => 0,
        };
        let ply: u32 = match ply {
            Some(p) if !p.is_none() => small_int(p, "ply")?,
            _ => 0,
        };
        let state = self.game.position(&list, to_move, ply).py()?;
        Ok(PyMarathonState {
            game: self.game.clone(),
            state,
        })
    }

    fn __repr__(&self) -> String {
        let name = self.game.name();
        let bundled = Config::bundled(name)
            .ok()
            .filter(|c| c.course == self.game.course().to_map());
        let course = match bundled {
            Some(_) => format!("{name:?}"),
            None => format!("{:?}", self.game.course().to_map()),
        };
        format!(
            "Marathon(players={}, course={course}, ply_limit={})",
            self.game.players(),
            self.game.ply_limit()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyMarathon>()
            .is_ok_and(|o| same_game(&o.get().game, &self.game))
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.game.config().course.hash(&mut h);
        (self.game.players(), self.game.ply_limit()).hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let config = slf.get().game.config();
        let dict = PyDict::new(py);
        dict.set_item("name", config.name)?;
        dict.set_item("description", config.description)?;
        dict.set_item("players", config.players)?;
        dict.set_item("ply_limit", config.ply_limit)?;
        dict.set_item("course", config.course)?;
        let from_config = slf.get_type().getattr("from_config")?;
        Ok((from_config, PyTuple::new(py, [dict])?))
    }
}

fn same_game(a: &Arc<Marathon>, b: &Arc<Marathon>) -> bool {
    Arc::ptr_eq(a, b) || a.config() == b.config()
}

/// A move. `str(move)` is its notation, e.g. `"B 0,1 S 3,1 SE"`.
#[pyclass(module = "pingvinas", name = "MarathonMove", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyMarathonMove {
    mv: Move,
}

#[pymethods]
impl PyMarathonMove {
    /// The move's number in the action space.
    #[getter]
    fn action(&self) -> u32 {
        self.mv.action
    }

    /// The player who moves.
    #[getter]
    fn player(&self) -> usize {
        self.mv.player
    }

    /// The piece that moves: `"mama"`, `"papa"` or `"baby"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.mv.kind.name()
    }

    /// The same as `kind`: which of the player's pieces moves.
    #[getter]
    fn piece(&self) -> &'static str {
        self.mv.kind.name()
    }

    /// `"enter"` (a waiting piece slides onto the course), `"slide"` or `"stand"`.
    #[getter]
    fn r#type(&self) -> &'static str {
        if self.mv.is_stand() {
            "stand"
        } else if self.mv.is_entry() {
            "enter"
        } else {
            "slide"
        }
    }

    #[getter]
    fn is_stand(&self) -> bool {
        self.mv.is_stand()
    }

    #[getter]
    fn is_entry(&self) -> bool {
        self.mv.is_entry()
    }

    /// Whether the piece crosses the finish line.
    #[getter]
    fn finishes(&self) -> bool {
        self.mv.finishes()
    }

    /// The slide direction (`"N"` … `"NW"`); None for a stand.
    #[getter]
    fn direction(&self) -> Option<&'static str> {
        self.mv.dir.map(|d| d.name())
    }

    /// The piece's cell before the move; None when it enters.
    #[getter]
    fn src(&self) -> Option<Cell> {
        self.mv.src
    }

    /// For an entry, the outside place before the start line it entered from; else None.
    #[getter]
    fn entry(&self) -> Option<Cell> {
        self.mv.entry
    }

    /// The cell the piece ends on; None when it finishes.
    #[getter]
    fn dst(&self) -> Option<Cell> {
        self.mv.dst()
    }

    /// The facing the piece ends with; None when it ends upright or finishes.
    #[getter]
    fn facing(&self) -> Option<&'static str> {
        self.mv.facing().map(|d| d.name())
    }

    fn __str__(&self) -> String {
        self.mv.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<MarathonMove {} (action {})>", self.mv, self.mv.action)
    }
}

/// A Penguin Marathon position. Mutable: `play` changes it in place; `after` and `copy` make
/// new ones.
#[pyclass(module = "pingvinas", name = "MarathonState")]
#[derive(Clone)]
pub struct PyMarathonState {
    game: Arc<Marathon>,
    state: State,
}

impl PyMarathonState {
    fn actions(&self) -> ActionList {
        let mut out = ActionList::new();
        self.game.legal_actions(&self.state, &mut out);
        out
    }

    /// The legal engine move meant by a Python value (MarathonMove, int action or notation),
    /// or `IllegalMoveError` / `InvalidMoveError` / `TypeError` saying why not.
    fn legal_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<Move> {
        if let Ok(m) = mv.cast::<PyMarathonMove>() {
            let m = m.get().mv;
            let here = self.game.describe(&self.state, m.action).py()?;
            if here != m {
                return Err(IllegalMoveError::new_err(format!(
                    "illegal move {:?}: not a legal move in this position",
                    m.to_string()
                )));
            }
            return Ok(m);
        }
        if let Ok(text) = mv.cast::<PyString>() {
            return self.game.parse_move(&self.state, &text.to_cow()?).py();
        }
        if (mv.is_instance_of::<PyInt>() || mv.hasattr("__index__")?)
            && !mv.is_instance_of::<pyo3::types::PyBool>()
        {
            let n = self.game.num_actions();
            let action = mv
                .extract::<i64>()
                .ok()
                .filter(|&a| (0..n as i64).contains(&a))
                .ok_or_else(|| {
                    IllegalMoveError::new_err(format!(
                        "action {mv} is not in the action space (0 to {})",
                        n - 1
                    ))
                })?;
            return self.game.describe(&self.state, action as u32).py();
        }
        Err(PyTypeError::new_err(format!(
            "expected a MarathonMove, an int action or a move string, got {}",
            mv.get_type().name()?
        )))
    }
}

#[pymethods]
impl PyMarathonState {
    /// A state from its JSON (the same as `MarathonState.from_json`); used by pickle.
    #[new]
    fn new(json: &Bound<'_, PyAny>) -> PyResult<Self> {
        PyMarathonState::from_json(json)
    }

    /// The game (variant) this state belongs to.
    #[getter]
    fn game(&self) -> PyMarathon {
        PyMarathon {
            game: self.game.clone(),
        }
    }

    /// The player to move, `None` when the game is over.
    #[getter]
    fn to_move(&self) -> Option<usize> {
        self.state.to_move()
    }

    /// OpenSpiel's name: the player to move, or -4 (terminal) when the game is over.
    fn current_player(&self) -> i64 {
        self.state.to_move().map_or(-4, |p| p as i64)
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over(&self.state)
    }

    /// OpenSpiel's name for `is_over`.
    fn is_terminal(&self) -> bool {
        self.game.is_over(&self.state)
    }

    /// The player whose family came home first; None while the game is on or after a draw.
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.state.winner()
    }

    /// Actions played so far.
    #[getter]
    fn ply(&self) -> u32 {
        self.state.ply()
    }

    #[getter]
    fn players(&self) -> usize {
        self.game.players()
    }

    /// Size of the action space (fixed per course).
    #[getter]
    fn num_actions(&self) -> usize {
        self.game.num_actions()
    }

    /// Every piece, by owner then kind, as `MarathonPiece(owner, kind, status, cell, facing)`
    /// named tuples.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.game
            .pieces(&self.state)
            .iter()
            .map(|p| py_piece(py, p))
            .collect()
    }

    /// The legal moves, in ascending action order; each distinct (no two reach the same
    /// position).
    fn legal_moves(&self) -> Vec<PyMarathonMove> {
        self.game
            .legal_moves(&self.state)
            .into_iter()
            .map(|mv| PyMarathonMove { mv })
            .collect()
    }

    /// The legal actions, ascending (empty only when the game is over).
    fn legal_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        crate::ints::legal_action_list(py, &*self.game, &self.state)
    }

    /// A numpy bool array over the action space, `True` for legal actions.
    fn legal_action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        crate::ints::legal_action_mask(py, &*self.game, &self.state)
    }

    /// Whether a move (MarathonMove, action or notation) is legal here.
    fn is_legal(&self, mv: &Bound<'_, PyAny>) -> bool {
        self.legal_move(mv).is_ok()
    }

    /// The legal move that a notation string (or action, or MarathonMove) denotes.
    fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyMarathonMove> {
        Ok(PyMarathonMove {
            mv: self.legal_move(mv)?,
        })
    }

    /// Plays a move: a MarathonMove, an int action or a notation string like
    /// `"B 0,1 S 3,1 SE"`. Raises `IllegalMoveError` (and leaves the state unchanged) when it
    /// is illegal.
    fn play(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<()> {
        // Fast path for learning loops: a legal int action.
        if let Some(action) = mv
            .cast_exact::<PyInt>()
            .ok()
            .and_then(|a| a.extract::<u32>().ok())
        {
            if self.actions().binary_search(&action).is_ok() {
                self.game.apply(&mut self.state, action);
                return Ok(());
            }
        }
        let m = self.legal_move(mv)?;
        self.game.apply(&mut self.state, m.action);
        Ok(())
    }

    /// OpenSpiel's name: plays an int action (checked).
    fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        self.play(action)
    }

    /// A new state with the move played; this one is unchanged.
    fn after(&self, mv: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut child = self.clone();
        child.play(mv)?;
        Ok(child)
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    /// OpenSpiel's name for `copy`.
    fn clone(&self) -> Self {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    /// Places per player, 1 = first: the winner 1 and everyone else 2; all 1 in a draw (and
    /// while the game is on, when nobody is ahead yet).
    fn ranking(&self) -> Vec<usize> {
        self.game.ranking(&self.state)
    }

    /// Zero-sum returns: each player gets +1 per player ranked below and −1 per player ranked
    /// above, divided by `players − 1` (the winner +1, the others −1/(players−1)); all zeros for
    /// a draw and while the game is on.
    fn returns(&self) -> Vec<f64> {
        self.game.returns(&self.state)[..self.game.players()].to_vec()
    }

    /// Planes `(10 + 9 * players, rows, cols)` over the course's bounding box, from `player`'s
    /// view (default: the player to move; seats follow in turn order from them): 0 the course
    /// cells; `1 + 3 * seat + kind` where that piece stands (kinds mama, papa, baby); then 8
    /// planes of lying pieces by facing (N, NE, ..., NW) and one of upright pieces; then per
    /// piece, in the same order, a plane of ones while it waits and one once it has finished.
    #[pyo3(signature = (player = None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let n = self.game.players();
        let me = crate::errors::viewer(player, self.state.to_move(), n)?;
        let course = self.game.course();
        let (rows, cols) = course.size();
        let facing_planes = 1 + 3 * n;
        let status_planes = facing_planes + 9;
        let mut planes = Array3::<f32>::zeros((status_planes + 6 * n, rows, cols));
        for &(r, c) in course.coords() {
            planes[(0, r as usize, c as usize)] = 1.0;
        }
        for piece in self.game.pieces(&self.state) {
            let seat = (piece.owner + n - me) % n;
            let index = 3 * seat + piece.kind as usize;
            match piece.place {
                Place::OnCourse {
                    cell: (r, c),
                    facing,
                } => {
                    let (r, c) = (r as usize, c as usize);
                    planes[(1 + index, r, c)] = 1.0;
                    planes[(facing_planes + facing.map_or(8, |d| d.index()), r, c)] = 1.0;
                }
                Place::Waiting => planes
                    .index_axis_mut(Axis(0), status_planes + 2 * index)
                    .fill(1.0),
                Place::Finished => planes
                    .index_axis_mut(Axis(0), status_planes + 2 * index + 1)
                    .fill(1.0),
            }
        }
        Ok(planes.into_pyarray(py))
    }

    /// The 64-bit Zobrist hash of the position (pieces and the player to move; not the ply).
    #[getter]
    fn zobrist_hash(&self) -> u64 {
        self.game.hash(&self.state)
    }

    fn to_json(&self) -> String {
        json::to_json(&self.game, &self.state)
    }

    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = text
            .cast::<PyString>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "from_json takes a str, not {}",
                    text.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?
            .to_cow()?;
        let (game, state) = json::from_json(&text).py()?;
        Ok(PyMarathonState {
            game: Arc::new(game),
            state,
        })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let json = slf.borrow().to_json();
        Ok((slf.get_type().into_any(), PyTuple::new(slf.py(), [json])?))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyMarathonState>().is_ok_and(|o| {
            let o = o.borrow();
            o.state == self.state && same_game(&o.game, &self.game)
        })
    }

    fn __hash__(&self) -> u64 {
        self.game.hash(&self.state) ^ (self.state.ply() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn __str__(&self) -> String {
        self.game.render(&self.state)
    }

    fn __repr__(&self) -> String {
        let status = match (self.state.to_move(), self.state.winner()) {
            (Some(p), _) => format!("player {p} to move"),
            (None, Some(w)) => format!("over, player {w} won"),
            (None, None) => "over, a draw".to_string(),
        };
        format!(
            "<MarathonState {:?}, ply {}, {status}>",
            self.game.name(),
            self.state.ply()
        )
    }
}

/// Plays `n` uniformly random games in Rust with the GIL released. Returns `(winners, plies)`:
/// numpy arrays of shape `(n,)`, int8 winners (-1 for a draw) and int32 plies played. Starts
/// from `state`, or the opening of `game` (default: the standard 2-player game). Game `i` uses
/// a generator derived from `(seed, i)`, so results do not depend on `threads` (0: every core).
#[pyfunction]
#[pyo3(signature = (n, *, seed = 0, threads = 1, game = None, state = None))]
pub fn marathon_random_playouts<'py>(
    py: Python<'py>,
    n: usize,
    seed: u64,
    threads: usize,
    game: Option<PyRef<'py, PyMarathon>>,
    state: Option<PyRef<'py, PyMarathonState>>,
) -> PyResult<PlayoutArrays<'py>> {
    let (game, start) = match (&state, &game) {
        (Some(s), _) => (s.game.clone(), Some(s.state)),
        (None, Some(g)) => (g.game.clone(), None),
        (None, None) => (Arc::new(Marathon::standard()), None),
    };
    let out = py
        .detach(|| random_playouts(&game, start.as_ref(), n, seed, threads, &StopFlag::new()))
        .py()?;
    Ok((out.winners.into_pyarray(py), out.plies.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMarathon>()?;
    m.add_class::<PyMarathonState>()?;
    m.add_class::<PyMarathonMove>()?;
    m.add("MarathonPiece", piece_type(m.py())?)?;
    m.add_function(wrap_pyfunction!(marathon_random_playouts, m)?)?;
    Ok(())
}
