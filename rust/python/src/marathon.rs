//! Bindings of the Penguin Marathon engine: `Marathon` (a variant), `MarathonState`,
//! `MarathonMove`, the `MarathonPiece` named tuple, and the batch playouts. Python values are
//! converted at the edge; the engine does the work.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use pingvinas_engine::marathon::json::piece_from_parts;
use pingvinas_engine::marathon::playout::random_playouts;
use pingvinas_engine::marathon::{Config, Dir, Kind, Marathon, Move, Piece, Place, State};
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::{Action, Game, GameIo};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PySequence, PyString, PyTuple, PyType};

use crate::args;
use crate::errors::{IllegalMoveError, ToPyResult};
use crate::state::{game_class, state_class, Bind};

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

/// A cell, or `None`: any pair of ints (`args::cell`) that fits the course's coordinates.
fn cell_of(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Cell>> {
    if value.is_none() {
        return Ok(None);
    }
    let (r, c) = args::cell(value, what)?;
    match (i32::try_from(r), i32::try_from(c)) {
        (Ok(r), Ok(c)) => Ok(Some((r, c))),
        _ => Err(PyValueError::new_err(format!(
            "{what}: cell {} is not on the course",
            args::quote(value)
        ))),
    }
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
    let owner = args::count(&owner, &format!("{what}: owner"), 0, usize::MAX as u64)? as usize;
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
    pub(crate) game: Arc<Marathon>,
}

impl PyMarathon {
    /// The game of a state (what `state.game` gives).
    pub fn of_game(game: Arc<Marathon>) -> Self {
        PyMarathon { game }
    }

    fn from_config_struct(config: Config) -> PyResult<Self> {
        Ok(PyMarathon {
            game: Arc::new(config.build().py()?),
        })
    }

    fn sample(&self) -> &Marathon {
        &self.game
    }

    /// `course` is the ASCII map; `name`, `description`, `players`, `ply_limit` are optional.
    fn from_dict(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let origin = "Marathon config dict";
        let value = args::config_value(source, origin, "")?;
        PyMarathon::from_config_struct(Config::from_value(value, origin).py()?)
    }

    fn from_file(text: &str, path: &std::path::Path) -> PyResult<Self> {
        PyMarathon::from_config_struct(Config::from_toml(text, &path.display().to_string()).py()?)
    }

    fn config_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let config = self.game.config();
        let dict = PyDict::new(py);
        dict.set_item("game", "marathon")?;
        dict.set_item("name", config.name)?;
        dict.set_item("description", config.description)?;
        dict.set_item("players", config.players)?;
        dict.set_item("ply_limit", config.ply_limit)?;
        dict.set_item("course", config.course)?;
        Ok(dict.into_any())
    }
}

game_class!(PyMarathon, "Marathon");

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
        let players =
            players.map_or(Ok(2), |p| args::count(p, "players", 0, usize::MAX as u64))? as usize;
        let ply_limit =
            ply_limit.map_or(Ok(500), |p| args::count(p, "ply_limit", 0, u32::MAX as u64))? as u32;
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

    /// The variant's name (`"custom"` for a course map given as it is); optional, as Fish's.
    #[getter]
    fn name(&self) -> Option<String> {
        Some(self.game.name().to_string())
    }

    /// The variant's description; optional, as Fish's.
    #[getter]
    fn description(&self) -> Option<String> {
        Some(self.game.description().to_string())
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

    /// The config as TOML text (readable by `Marathon.from_config`).
    fn to_toml(&self) -> String {
        self.game.config().to_toml()
    }

    /// The opening position: every piece waiting, player 0 to move. (`seed`, any int, is
    /// accepted for symmetry with `Fish.new_state` and has no effect: Marathon has no chance.)
    #[pyo3(signature = (seed = None))]
    fn new_state(&self, seed: Option<&Bound<'_, PyAny>>) -> PyResult<PyMarathonState> {
        args::seed_or_random(seed)?;
        Ok(PyMarathonState {
            game: self.game.clone(),
            state: self.game.new_state(),
        })
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
            Some(t) if !t.is_none() => args::count(t, "to_move", 0, usize::MAX as u64)? as usize,
            _ => 0,
        };
        let ply: u32 = match ply {
            Some(p) if !p.is_none() => args::count(p, "ply", 0, u32::MAX as u64)? as u32,
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
}

/// Games are equal when their rules are (course, players, ply limit); names are labels.
fn same_game(a: &Arc<Marathon>, b: &Arc<Marathon>) -> bool {
    Arc::ptr_eq(a, b) || **a == **b
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

    /// Rebuilds a move from its parts (what pickle does): `dst` None for a finish, `facing`
    /// None when it ends upright, `direction` None for a stand.
    #[new]
    #[pyo3(signature = (action, player, kind, src, entry, direction, dst, facing))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        action: u32,
        player: usize,
        kind: &str,
        src: Option<Cell>,
        entry: Option<Cell>,
        direction: Option<&str>,
        dst: Option<Cell>,
        facing: Option<&str>,
    ) -> PyResult<Self> {
        let dir = |text: &str| {
            Dir::parse(text).ok_or_else(|| {
                PyValueError::new_err(format!("{:?} is not a direction", crate::args::cut(text)))
            })
        };
        let kind = Kind::parse(kind).ok_or_else(|| {
            PyValueError::new_err(format!("{:?} is not a piece", crate::args::cut(kind)))
        })?;
        let place = match dst {
            None => Place::Finished,
            Some(cell) => Place::OnCourse {
                cell,
                facing: facing.map(dir).transpose()?,
            },
        };
        Ok(PyMarathonMove {
            mv: Move {
                action,
                player,
                kind,
                src,
                entry,
                dir: direction.map(dir).transpose()?,
                place,
            },
        })
    }

    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let m = slf.get();
        let parts = (
            m.mv.action,
            m.mv.player,
            m.mv.kind.name(),
            m.mv.src,
            m.mv.entry,
            m.mv.dir.map(|d| d.name()),
            m.mv.dst(),
            m.mv.facing().map(|d| d.name()),
        );
        Ok((slf.get_type().into_any(), parts.into_pyobject(slf.py())?))
    }
}

/// A Penguin Marathon position. Mutable: `play` changes it in place; `after` and `copy` make
/// new ones.
#[pyclass(module = "pingvinas", name = "MarathonState")]
#[derive(Clone)]
pub struct PyMarathonState {
    pub(crate) game: Arc<Marathon>,
    pub(crate) state: State,
}

impl Bind for Marathon {
    type Move = PyMarathonMove;
    const MOVE_CLASS: &'static str = "MarathonMove";
    const STATE_CLASS: &'static str = "MarathonState";

    fn py_move(&self, s: &State, action: Action) -> PyMarathonMove {
        PyMarathonMove {
            mv: self.describe(s, action).expect("a legal action"),
        }
    }

    fn move_object(&self, s: &State, obj: &Bound<'_, PyAny>) -> Option<PyResult<Action>> {
        let m = obj.cast::<PyMarathonMove>().ok()?.get().mv;
        Some(self.describe(s, m.action).py().and_then(|here| {
            if here == m {
                Ok(m.action)
            } else {
                Err(IllegalMoveError::new_err(format!(
                    "illegal move {:?}: not a legal move in this position",
                    m.to_string()
                )))
            }
        }))
    }
}

state_class!(PyMarathonState, Marathon, PyMarathon, PyMarathonMove);

#[pymethods]
impl PyMarathonState {
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
#[pyo3(signature = (n, *, seed = None, threads = None, game = None, state = None))]
pub fn marathon_random_playouts<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    game: Option<PyRef<'py, PyMarathon>>,
    state: Option<PyRef<'py, PyMarathonState>>,
) -> PyResult<PlayoutArrays<'py>> {
    let n = args::count(n, "n", 0, pingvinas_engine::batch::MAX_GAMES as u64)? as usize;
    let seed = seed.map_or(Ok(0), args::seed)?;
    let threads = threads.map_or(Ok(1), args::threads)?;
    let (game, start) = match (&state, &game) {
        (Some(s), _) => (s.game.clone(), Some(s.state)),
        (None, Some(g)) => (g.game.clone(), None),
        (None, None) => (Arc::new(Marathon::standard()), None),
    };
    let out = crate::detached::run(py, &StopFlag::new(), |stop| {
        random_playouts(&game, start.as_ref(), n, seed, threads, stop)
    })?
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
