//! The move objects of both games, `FishMove` and `MarathonMove`, and how each game's moves
//! and actions correspond ([`Bind`]): what the state layer (`state.rs`) turns moves into and
//! reads them from.

use pingvinas_engine::fish::notation::column_name;
use pingvinas_engine::fish::{AnyFish, AnyFishState, FishGame, FishMove, FishState, Width, Word};
use pingvinas_engine::marathon::{Dir, Kind, Marathon, Move, Place, State};
use pingvinas_engine::{with_fish, with_fish_state, Action};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{IllegalMoveError, ToPyResult};
use crate::state::Bind;

type Cell = (i32, i32);

/// `str()` (the notation, `fn text`) and `repr()` of a move class named `$name` in Python.
macro_rules! move_text {
    ($class:ident, $name:literal) => {
        #[pymethods]
        impl $class {
            fn __str__(&self) -> String {
                self.text()
            }

            fn __repr__(&self) -> String {
                format!(
                    concat!("<", $name, " {} (action {})>"),
                    self.text(),
                    self.number()
                )
            }
        }
    };
}

/// What `FishMove(src, dst, action)` is rebuilt from.
type MoveParts = (Option<(usize, usize)>, (usize, usize), u32);

/// A move: `src` is `None` for a placement; `action` is its number in the action space.
/// `FishMove(src, dst, action)` rebuilds one (pickle does); it means the slide or placement
/// between those cells, whatever board it is played on.
#[pyclass(module = "pingvinas", name = "FishMove", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyFishMove {
    #[pyo3(get)]
    src: Option<(usize, usize)>,
    #[pyo3(get)]
    dst: (usize, usize),
    #[pyo3(get)]
    action: u32,
}

impl PyFishMove {
    fn of<W: Word>(game: &FishGame<W>, action: Action) -> Self {
        let board = game.board();
        let (src, dst) = match game.move_of(action).expect("a legal action") {
            FishMove::Place(c) => (None, board.coords(c)),
            FishMove::Slide(a, b) => (Some(board.coords(a)), board.coords(b)),
        };
        PyFishMove { src, dst, action }
    }

    fn number(&self) -> u32 {
        self.action
    }

    fn text(&self) -> String {
        // Moves made by hand may name any cell; columns past the largest board show as numbers.
        let cell = |(r, c): (usize, usize)| {
            if c < pingvinas_engine::fish::board::MAX_SIDE {
                format!("{}{}", column_name(c), r + 1)
            } else {
                format!("({r}, {c})")
            }
        };
        match self.src {
            None => cell(self.dst),
            Some(src) => format!("{}-{}", cell(src), cell(self.dst)),
        }
    }
}

move_text!(PyFishMove, "FishMove");

#[pymethods]
impl PyFishMove {
    #[new]
    #[pyo3(signature = (src, dst, action))]
    fn new(
        #[pyo3(from_py_with = fish_src)] src: Option<(usize, usize)>,
        #[pyo3(from_py_with = fish_dst)] dst: (usize, usize),
        #[pyo3(from_py_with = action_arg)] action: u32,
    ) -> Self {
        PyFishMove { src, dst, action }
    }

    /// `True` for a placement.
    #[getter]
    fn is_placement(&self) -> bool {
        self.src.is_none()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, MoveParts)> {
        let m = slf.get();
        Ok((slf.get_type().into_any(), (m.src, m.dst, m.action)))
    }
}

/// The action of a move object, checked legal in `s`.
fn move_object_action<W: Word>(
    game: &FishGame<W>,
    s: &FishState<W>,
    m: &PyFishMove,
) -> PyResult<Action> {
    let board = game.board();
    let cell = |(r, c): (usize, usize)| {
        board.cell(r as i64, c as i64).ok_or_else(|| {
            IllegalMoveError::new_err(format!("move {} is off this board", m.text()))
        })
    };
    let mv = match m.src {
        None => FishMove::Place(cell(m.dst)?),
        Some(src) => FishMove::Slide(cell(src)?, cell(m.dst)?),
    };
    game.check_move(s, mv).py()
}

impl Bind for AnyFish {
    type Move = PyFishMove;
    const MOVE_CLASS: &'static str = "FishMove";
    const STATE_CLASS: &'static str = "FishState";

    fn py_move(&self, _s: &AnyFishState, action: Action) -> PyFishMove {
        with_fish!(self, |g| PyFishMove::of(&**g, action))
    }

    fn move_object(&self, s: &AnyFishState, obj: &Bound<'_, PyAny>) -> Option<PyResult<Action>> {
        let m = obj.cast::<PyFishMove>().ok()?.get().clone();
        Some(with_fish_state!(
            self,
            s,
            |g, s| move_object_action(&**g, s, &m),
            Err(PyValueError::new_err("a Fish state of another board"))
        ))
    }
}

/// The concrete games too, for search (which runs on the board's own word).
impl<W: Width> Bind for FishGame<W> {
    type Move = PyFishMove;
    const MOVE_CLASS: &'static str = "FishMove";
    const STATE_CLASS: &'static str = "FishState";

    fn py_move(&self, _s: &FishState<W>, action: Action) -> PyFishMove {
        PyFishMove::of(self, action)
    }

    fn move_object(&self, s: &FishState<W>, obj: &Bound<'_, PyAny>) -> Option<PyResult<Action>> {
        let m = obj.cast::<PyFishMove>().ok()?.get().clone();
        Some(move_object_action(self, s, &m))
    }
}

/// A move. `str(move)` is its notation, e.g. `"B 0,1 S 3,1 SE"`.
#[pyclass(module = "pingvinas", name = "MarathonMove", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyMarathonMove {
    mv: Move,
}

impl PyMarathonMove {
    fn number(&self) -> u32 {
        self.mv.action
    }

    fn text(&self) -> String {
        self.mv.to_string()
    }
}

move_text!(PyMarathonMove, "MarathonMove");

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

    /// Rebuilds a move from its parts (what pickle does): `dst` None for a finish, `facing`
    /// None when it ends upright, `direction` None for a stand.
    #[new]
    #[pyo3(signature = (action, player, kind, src, entry, direction, dst, facing))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = action_arg)] action: u32,
        #[pyo3(from_py_with = player_arg)] player: usize,
        kind: &str,
        #[pyo3(from_py_with = marathon_src)] src: Option<Cell>,
        #[pyo3(from_py_with = marathon_entry)] entry: Option<Cell>,
        direction: Option<&str>,
        #[pyo3(from_py_with = marathon_dst)] dst: Option<Cell>,
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFishMove>()?;
    m.add_class::<PyMarathonMove>()
}

/// A move's `action` argument: 0 to 2**32 - 1.
fn action_arg(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    crate::args::count(value, "action", 0, u32::MAX as u64).map(|a| a as u32)
}

/// A Marathon move's `player` argument.
fn player_arg(value: &Bound<'_, PyAny>) -> PyResult<usize> {
    let most = pingvinas_engine::MAX_PLAYERS as u64 - 1;
    crate::args::count(value, "player", 0, most).map(|p| p as usize)
}

/// A cell argument `what` whose coordinates lie in `min..=max`, or `None`.
fn cell_in(
    value: &Bound<'_, PyAny>,
    what: &str,
    min: i64,
    max: i64,
) -> PyResult<Option<(i64, i64)>> {
    if value.is_none() {
        return Ok(None);
    }
    let out_of_range = || {
        PyValueError::new_err(format!(
            "{what} = {}: expected a pair of ints, each from {min} to {max}",
            crate::args::quote(value)
        ))
    };
    let coord = |v: &Bound<'_, PyAny>| -> PyResult<i64> {
        let i = crate::args::int(v, what)?;
        i.extract::<i64>()
            .ok()
            .filter(|x| (min..=max).contains(x))
            .ok_or_else(out_of_range)
    };
    let items: Vec<Bound<'_, PyAny>> = match value.is_instance_of::<pyo3::types::PyString>() {
        true => return Err(out_of_range()),
        false => value
            .try_iter()
            .map_err(|_| out_of_range())?
            .collect::<PyResult<_>>()?,
    };
    let [r, c] = items.as_slice() else {
        return Err(out_of_range());
    };
    Ok(Some((coord(r)?, coord(c)?)))
}

/// A Fish move's cell `what` (rows and columns from 0 to 65535), or `None`.
fn fish_cell(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<(usize, usize)>> {
    let cell = cell_in(value, what, 0, u16::MAX as i64)?;
    Ok(cell.map(|(r, c)| (r as usize, c as usize)))
}

fn fish_src(value: &Bound<'_, PyAny>) -> PyResult<Option<(usize, usize)>> {
    fish_cell(value, "src")
}

fn fish_dst(value: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    fish_cell(value, "dst")?
        .ok_or_else(|| PyValueError::new_err("dst: a Fish move ends on a cell, not None"))
}

/// A Marathon move's cell `what`, or `None`.
fn marathon_cell(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Cell>> {
    let cell = cell_in(value, what, i32::MIN as i64, i32::MAX as i64)?;
    Ok(cell.map(|(r, c)| (r as i32, c as i32)))
}

fn marathon_src(value: &Bound<'_, PyAny>) -> PyResult<Option<Cell>> {
    marathon_cell(value, "src")
}

fn marathon_entry(value: &Bound<'_, PyAny>) -> PyResult<Option<Cell>> {
    marathon_cell(value, "entry")
}

fn marathon_dst(value: &Bound<'_, PyAny>) -> PyResult<Option<Cell>> {
    marathon_cell(value, "dst")
}
