//! The state layer both games share: every method of `FishState` and `MarathonState` that does
//! not depend on the game is written once here, as generic functions over [`GameIo`], and
//! emitted for each class by [`state_class!`]. The game-specific getters live beside the class.

use std::hash::{Hash, Hasher};

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pingvinas_engine::{Action, ActionList, GameIo};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::args;
use crate::errors::{InvalidMoveError, ToPyResult};

/// What the shared layer needs of a game beyond [`GameIo`]: its Python move objects.
pub trait Bind: GameIo + 'static {
    /// The Python class of the game's moves.
    type Move: pyo3::PyClass + Into<pyo3::PyClassInitializer<Self::Move>>;
    /// Its Python name, for messages.
    const MOVE_CLASS: &'static str;
    /// The Python name of the game's states, for messages.
    const STATE_CLASS: &'static str;

    /// The move object of a legal action of `s`.
    fn py_move(&self, s: &Self::State, action: Action) -> Self::Move;

    /// The action of a move object of this game, checked legal in `s`; `None` when `obj` is not
    /// a move object of this game.
    fn move_object(&self, s: &Self::State, obj: &Bound<'_, PyAny>) -> Option<PyResult<Action>>;

    /// [`Bind::py_move`] as a Python object.
    fn move_object_py<'py>(
        &self,
        py: Python<'py>,
        s: &Self::State,
        action: Action,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(Bound::new(py, self.py_move(s, action))?.into_any())
    }
}

/// The legal action that a Python value denotes: a move object, an int action (not a bool) or
/// notation. `IllegalMoveError` for a move the rules forbid here, `InvalidMoveError` for an
/// action number or text that denotes no move, `TypeError` for anything else.
pub fn action_of<G: Bind>(game: &G, s: &G::State, mv: &Bound<'_, PyAny>) -> PyResult<Action> {
    if let Some(action) = game.move_object(s, mv) {
        return action;
    }
    if let Ok(text) = mv.cast::<PyString>() {
        return game.parse_action(s, &text.to_cow()?).py();
    }
    let is_int = !mv.is_instance_of::<PyBool>()
        && (mv.is_instance_of::<PyInt>() || mv.hasattr("__index__")?);
    if !is_int {
        return Err(PyTypeError::new_err(format!(
            "expected a {}, an int action or a move string, got {}",
            G::MOVE_CLASS,
            mv.get_type().name()?
        )));
    }
    let n = game.num_actions();
    let action = args::int(mv, "action")?
        .extract::<i64>()
        .ok()
        .filter(|&a| (0..n as i64).contains(&a))
        .ok_or_else(|| {
            InvalidMoveError::new_err(format!(
                "action {} is not in the action space (0 to {})",
                args::quote(mv),
                n - 1
            ))
        })? as Action;
    game.check_action(s, action).py()?;
    Ok(action)
}

/// Plays a move given as any Python value `action_of` reads; the state is unchanged when it
/// raises.
pub fn play<G: Bind>(game: &G, s: &mut G::State, mv: &Bound<'_, PyAny>) -> PyResult<()> {
    // The common case in learning loops, a legal int action, without building an error.
    if let Some(a) = mv
        .cast_exact::<PyInt>()
        .ok()
        .and_then(|a| a.extract::<Action>().ok())
    {
        if (a as usize) < game.num_actions() && game.is_legal(s, a) {
            game.apply(s, a);
            return Ok(());
        }
    }
    let action = action_of(game, s, mv)?;
    game.apply(s, action);
    Ok(())
}

/// `f` of the legal actions of `s` (ascending), read in place: the list is 4 KiB, and copying
/// it out of a function cost more than making it.
pub fn with_actions<G: Bind, T>(game: &G, s: &G::State, f: impl FnOnce(&[Action]) -> T) -> T {
    let mut out = ActionList::new();
    game.legal_actions(s, &mut out);
    f(&out)
}

/// The observation tensor of `s` from the view of `player` (default: the player to move),
/// written straight into a new numpy array.
pub fn observation<'py, G: Bind>(
    py: Python<'py>,
    game: &G,
    s: &G::State,
    player: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray3<f32>>> {
    let viewer = args::viewer(player, game.to_move(s), game.num_players())?;
    let array = PyArray3::<f32>::zeros(py, game.observation_shape(), false);
    // SAFETY: the array was made just above, is C-contiguous and nothing else refers to it.
    let out = unsafe { array.as_slice_mut() }.expect("a new array is contiguous");
    game.write_observation(s, viewer, out);
    Ok(array)
}

/// A numpy bool array over the action space, `True` for the legal actions of `s`.
pub fn mask<'py, G: Bind>(py: Python<'py>, game: &G, s: &G::State) -> Bound<'py, PyArray1<bool>> {
    let array = PyArray1::<bool>::zeros(py, game.num_actions(), false);
    // SAFETY: as in `observation`.
    let out = unsafe { array.as_slice_mut() }.expect("a new array is contiguous");
    with_actions(game, s, |actions| {
        for &a in actions {
            out[a as usize] = true;
        }
    });
    array
}

/// `hash()` of a state: everything in it (scores and ply included), so that it agrees with
/// `==`, which also compares the games.
pub fn state_hash<S: Hash>(s: &S) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The state from JSON text given as a Python value (a `TypeError` unless it is a str).
pub fn from_json<G: Bind>(text: &Bound<'_, PyAny>) -> PyResult<(G, G::State)> {
    let text = text.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "from_json takes a str, not {}",
            text.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    G::from_json(&text.to_cow()?).py()
}

/// Emits the shared methods of a state class `$state { game: Arc<$game>, state }` whose game
/// class `$pygame` has `fn of_game(Arc<$game>) -> $pygame` and whose moves are `$move`.
macro_rules! state_class {
    ($state:ident, $game:ty, $pygame:ident, $move:ident) => {
        #[pymethods]
        impl $state {
            /// A state from its JSON (the same as `from_json`); used by pickle.
            #[new]
            fn __new__(json: &Bound<'_, PyAny>) -> PyResult<Self> {
                Self::from_json(json)
            }

            /// The game this state belongs to: the variant that made it (for Fish, one that deals a
            /// board per game, or the variant with this board fixed).
            #[getter]
            fn game(&self) -> $pygame {
                $pygame::of_game(self.game.clone())
            }

            /// The player to move, `None` when the game is over.
            #[getter]
            fn to_move(&self) -> Option<usize> {
                self.game.to_move(&self.state)
            }

            /// OpenSpiel's name: the player to move, or -4 (terminal) when the game is over.
            fn current_player(&self) -> i64 {
                self.game.to_move(&self.state).map_or(-4, |p| p as i64)
            }

            #[getter]
            fn is_over(&self) -> bool {
                self.game.is_over(&self.state)
            }

            /// OpenSpiel's name for `is_over`.
            fn is_terminal(&self) -> bool {
                self.game.is_over(&self.state)
            }

            #[getter]
            fn players(&self) -> usize {
                self.game.num_players()
            }

            /// Size of the fixed action space of this state's game.
            #[getter]
            fn num_actions(&self) -> usize {
                self.game.num_actions()
            }

            /// The legal moves, in ascending action order.
            fn legal_moves(&self) -> Vec<$move> {
                $crate::state::with_actions(&*self.game, &self.state, |actions| {
                    actions
                        .iter()
                        .map(|&a| self.game.py_move(&self.state, a))
                        .collect()
                })
            }

            /// The legal actions, ascending (empty only when the game is over).
            fn legal_actions<'py>(
                &self,
                py: Python<'py>,
            ) -> PyResult<Bound<'py, pyo3::types::PyList>> {
                $crate::state::with_actions(&*self.game, &self.state, |actions| {
                    $crate::ints::action_list(py, actions)
                })
            }

            /// A numpy bool array over the action space, `True` for legal actions.
            fn legal_action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<bool>> {
                $crate::state::mask(py, &*self.game, &self.state)
            }

            /// Whether a move (a move object, an int action or notation) is legal here.
            fn is_legal(&self, mv: &Bound<'_, PyAny>) -> bool {
                $crate::state::action_of(&*self.game, &self.state, mv).is_ok()
            }

            /// The legal move that notation (or an action, or a move object) denotes.
            fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<$move> {
                let a = $crate::state::action_of(&*self.game, &self.state, mv)?;
                Ok(self.game.py_move(&self.state, a))
            }

            /// Plays a move: a move object, an int action or notation. Raises
            /// `IllegalMoveError` (a well-formed move the rules forbid), `InvalidMoveError` (an
            /// action or text that denotes no move) or `TypeError`, and then leaves the state
            /// unchanged.
            fn play(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<()> {
                $crate::state::play(&*self.game, &mut self.state, mv)
            }

            /// OpenSpiel's name for `play`.
            fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
                self.play(action)
            }

            /// A new state with the move played; this one is unchanged.
            fn after(&self, mv: &Bound<'_, PyAny>) -> PyResult<Self> {
                let mut child = Clone::clone(self);
                child.play(mv)?;
                Ok(child)
            }

            /// The notation of a legal action.
            fn action_to_string(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
                let a = $crate::state::action_of(&*self.game, &self.state, action)?;
                Ok(self.game.action_name(&self.state, a))
            }

            fn copy(&self) -> Self {
                Clone::clone(self)
            }

            /// OpenSpiel's name for `copy`.
            fn clone(&self) -> Self {
                Clone::clone(self)
            }

            fn __copy__(&self) -> Self {
                Clone::clone(self)
            }

            fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
                Clone::clone(self)
            }

            /// Places per player, 1 = first, equal players sharing a place (`[1, 1, 3]`);
            /// before the end, the standings so far.
            fn ranking(&self) -> Vec<usize> {
                GameIo::ranking(&*self.game, &self.state)
            }

            /// Zero-sum returns at the end: each player gets +1 per player ranked below and −1
            /// per player ranked above, divided by `players − 1`. All zeros before the end.
            fn returns(&self) -> Vec<f64> {
                self.game.returns(&self.state)[..self.game.num_players()].to_vec()
            }

            /// The observation planes as a float32 numpy array `game.observation_shape`, from
            /// `player`'s view (default: the player to move). The planes are listed in the
            /// README ("Observation planes").
            #[pyo3(signature = (player = None))]
            fn observation_tensor<'py>(
                &self,
                py: Python<'py>,
                player: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, numpy::PyArray3<f32>>> {
                $crate::state::observation(py, &*self.game, &self.state, player)
            }

            /// The 64-bit Zobrist hash of the position kept by the engine (it leaves out the
            /// scores or ply; `hash(state)` covers everything).
            #[getter]
            fn zobrist_hash(&self) -> u64 {
                self.game.hash(&self.state)
            }

            /// The state as JSON, with its game (rules and board or course): it reads back alone.
            fn to_json(&self) -> String {
                GameIo::to_json(&*self.game, &self.state)
            }

            /// A state from `to_json`'s text. Raises `ValueError` for text that is not such JSON
            /// or a state the rules cannot reach.
            #[staticmethod]
            fn from_json(text: &Bound<'_, PyAny>) -> PyResult<Self> {
                let (game, state) = $crate::state::from_json::<$game>(text)?;
                Ok($state {
                    game: std::sync::Arc::new(game),
                    state,
                })
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, pyo3::types::PyTuple>)> {
                let json = slf.borrow().to_json();
                Ok((
                    slf.get_type().into_any(),
                    pyo3::types::PyTuple::new(slf.py(), [json])?,
                ))
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                other.cast::<$state>().is_ok_and(|o| {
                    let o = o.borrow();
                    o.state == self.state
                        && (std::sync::Arc::ptr_eq(&o.game, &self.game) || *o.game == *self.game)
                })
            }

            fn __hash__(&self) -> u64 {
                $crate::state::state_hash(&self.state)
            }

            fn __str__(&self) -> String {
                GameIo::render(&*self.game, &self.state)
            }

            /// An SVG picture of the position (`pingvinas.svg.state_svg`): `size` in pixels
            /// (width), `lastmove` and `arrows` to mark, coordinate `labels`, `flipped` 180°.
            #[pyo3(signature = (size = None, *, lastmove = None, arrows = None, labels = true, flipped = false))]
            fn svg<'py>(
                slf: &Bound<'py, Self>,
                size: Option<&Bound<'py, PyAny>>,
                lastmove: Option<&Bound<'py, PyAny>>,
                arrows: Option<&Bound<'py, PyAny>>,
                labels: bool,
                flipped: bool,
            ) -> PyResult<Bound<'py, PyAny>> {
                let kwargs = pyo3::types::PyDict::new(slf.py());
                kwargs.set_item("size", size)?;
                kwargs.set_item("lastmove", lastmove)?;
                kwargs.set_item("arrows", arrows)?;
                kwargs.set_item("labels", labels)?;
                kwargs.set_item("flipped", flipped)?;
                let draw = slf.py().import("pingvinas.svg")?.getattr("state_svg")?;
                draw.call((slf,), Some(&kwargs))
            }

            /// The picture Jupyter shows (`svg()` with its defaults).
            fn _repr_svg_<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                slf.py().import("pingvinas.svg")?.getattr("state_svg")?.call1((slf,))
            }
        }
    };
}

pub(crate) use state_class;
