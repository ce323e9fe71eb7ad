//! Bindings of the Penguin Marathon engine: `Marathon` (a variant), `MarathonState` and the
//! `MarathonPiece` named tuple; `MarathonMove` is in `moves.rs` and the batch playouts in
//! `playouts.rs`. Python values are converted at the edge; the engine does the work.

use std::sync::Arc;

use pingvinas_engine::marathon::json::piece_from_parts;
use pingvinas_engine::marathon::{Config, Marathon, Piece, State};
use pingvinas_engine::{Game, GameIo};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyType};

use crate::args;
use crate::errors::ToPyResult;
use crate::game_class::game_class;
use crate::moves::PyMarathonMove;
use crate::state::{state_class, Bind};

type Cell = (i32, i32);

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

/// A piece from a dict (`owner`, `kind`, `status`, `cell`, `facing`) or a tuple
/// `(owner, kind, status, cell, facing)` (the last two or three may be left out).
fn extract_piece(value: &Bound<'_, PyAny>, i: usize) -> PyResult<Piece> {
    let what = format!("pieces[{i}]");
    let keys = ["owner", "kind", "status", "cell", "facing"];
    let mut fields = args::record(value, &what, "a piece", &keys, 2)?.into_iter();
    let mut field = || fields.next().flatten();
    let (owner, kind, status, cell, facing) = (field(), field(), field(), field(), field());
    let owner = owner.expect("a required field");
    let owner = args::count(&owner, &format!("{what}: owner"), 0, usize::MAX as u64)? as usize;
    let kind = args::opt_str(kind, &what, "kind")?.unwrap_or_default();
    let cell = match cell {
        Some(c) => cell_of(&c, &what)?,
        None => None,
    };
    let status = args::opt_str(status, &what, "status")?.unwrap_or_else(|| {
        if cell.is_some() {
            "on course".into()
        } else {
            "waiting".into()
        }
    });
    let facing = args::opt_str(facing, &what, "facing")?;
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

    fn bundled(name: &str) -> PyResult<Self> {
        PyMarathon::from_config_struct(Config::bundled(name).py()?)
    }

    fn label(&self) -> Option<String> {
        Some(self.game.name().to_string())
    }

    fn note(&self) -> Option<String> {
        Some(self.game.description().to_string())
    }

    fn player_count(&self) -> usize {
        self.game.players()
    }

    /// Marathon has no chance: every new state is of the one game.
    fn game_for(&self, _seed: u64) -> Arc<Marathon> {
        self.game.clone()
    }

    /// Games are equal when their rules are (course, players, ply limit); names are labels.
    fn same_rules(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.game, &other.game) || *self.game == *other.game
    }

    fn hash_rules(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        self.game.config().course.hash(h);
        (self.game.players(), self.game.ply_limit()).hash(h);
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

game_class!(
    PyMarathon,
    PyMarathonState,
    "Marathon",
    /// A bundled variant by name (see `pingvinas.variants()`; the short names work too).
    variant,
    /// The variant's name (`"custom"` for a course map given as it is); optional, as Fish's.
    name,
    /// The variant's description; optional, as Fish's.
    description,
    /// The opening position: every piece waiting, player 0 to move. (`seed`, any int, is
    /// accepted for symmetry with `Fish.new_state` and has no effect: Marathon has no chance.)
    new_state,
);

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
        let players = args::count_or(players, "players", 0, usize::MAX as u64, 2)? as usize;
        let ply_limit = args::count_or(ply_limit, "ply_limit", 0, u32::MAX as u64, 500)? as u32;
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
        let to_move = args::count_or(to_move, "to_move", 0, usize::MAX as u64, 0)? as usize;
        let ply = args::count_or(ply, "ply", 0, u32::MAX as u64, 0)? as u32;
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
}

/// A Penguin Marathon position. Mutable: `play` changes it in place; `after` and `copy` make
/// new ones.
#[pyclass(module = "pingvinas", name = "MarathonState")]
#[derive(Clone)]
pub struct PyMarathonState {
    pub(crate) game: Arc<Marathon>,
    pub(crate) state: State,
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMarathon>()?;
    m.add_class::<PyMarathonState>()?;
    m.add("MarathonPiece", piece_type(m.py())?)?;
    Ok(())
}
