//! Bindings of the Fish engine: `Fish` (a variant), `FishState`, `FishMove`, and the batch
//! playouts. Python values are converted at the edge; the engine does the work.

use std::sync::Arc;

use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3};
use pingvinas_engine::fish::playout::{random_playouts, Start};
use pingvinas_engine::fish::{
    json, notation, Board, Config, FishGame, FishMove, FishState, Order, Placement, Policy, Rules,
};
use pingvinas_engine::{ActionList, Error, Game};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple};

use crate::errors::{to_py, IllegalMoveError, ToPyResult};
use crate::variants;

type Coords = (i64, i64);

fn parse_placement(text: &str) -> PyResult<Placement> {
    text.parse()
        .map_err(|e| PyValueError::new_err(format!("placement = {e}")))
}

fn parse_order(text: &str) -> PyResult<Order> {
    text.parse()
        .map_err(|e| PyValueError::new_err(format!("order = {e}")))
}

/// A grid of fish counts from Python (lists, tuples or a numpy array), checked cell by cell.
fn extract_grid(board: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    let rows: Vec<Vec<i64>> = board.extract().map_err(|_| {
        PyTypeError::new_err(
            "board must be a grid of fish counts: a list of rows of ints (0 = gap)",
        )
    })?;
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(|(c, &f)| {
                    u8::try_from(f).map_err(|_| {
                        PyValueError::new_err(format!(
                            "board: {f} fish at ({r}, {c}): a cell holds 0 to 255 fish"
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

/// A Fish variant: the rules, and a fixed board or the standard board shuffled per game.
///
/// >>> game = Fish(players=3)
/// >>> state = game.new_state(seed=7)
#[pyclass(module = "pingvinas", name = "Fish", frozen)]
pub struct PyFish {
    rules: Rules,
    /// A game on a fixed board; `None` deals a standard board for each new state.
    fixed: Option<Arc<FishGame>>,
    name: Option<String>,
}

impl PyFish {
    fn build(rules: Rules, grid: Option<Vec<Vec<u8>>>, name: Option<String>) -> PyResult<Self> {
        let fixed = match grid {
            Some(grid) => Some(Arc::new(FishGame::new(
                rules,
                Board::from_grid(&grid).py()?,
            ))),
            None => None,
        };
        Ok(PyFish { rules, fixed, name })
    }

    fn from_config_struct(config: Config) -> PyResult<Self> {
        let rules = config.rules().py()?;
        PyFish::build(rules, config.grid().py()?, config.name.clone())
    }

    /// The game for a new state: the fixed board, or a standard board dealt from `seed`.
    fn game_for(&self, seed: u64) -> Arc<FishGame> {
        match &self.fixed {
            Some(game) => game.clone(),
            None => Arc::new(FishGame::new(self.rules, Board::standard(seed))),
        }
    }

    /// A representative board for sizes: the fixed one or the standard shape.
    fn shape(&self) -> (usize, usize, usize) {
        let game = self.game_for(0);
        (game.board().rows(), game.board().cols(), game.num_actions())
    }
}

#[pymethods]
impl PyFish {
    #[new]
    #[pyo3(signature = (players = 2, *, penguins = None, board = None, placement = "one-fish", order = "round-robin"))]
    fn new(
        players: usize,
        penguins: Option<usize>,
        board: Option<&Bound<'_, PyAny>>,
        placement: &str,
        order: &str,
    ) -> PyResult<Self> {
        let rules = Rules::new(
            players,
            penguins,
            parse_placement(placement)?,
            parse_order(order)?,
        )
        .py()?;
        let grid = board.map(extract_grid).transpose()?;
        PyFish::build(rules, grid, None)
    }

    /// A bundled variant by name (see `pingvinas.variants()`).
    #[staticmethod]
    fn variant(name: &str) -> PyResult<Self> {
        let text = variants::find(name, "fish")?;
        PyFish::from_config_struct(Config::from_toml(text).py()?)
    }

    /// A variant from a TOML file (a path) or a dict with the same keys.
    #[staticmethod]
    fn from_config(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config = if source.is_instance_of::<PyDict>() {
            let text: String = py
                .import("json")?
                .call_method1("dumps", (source,))?
                .extract()?;
            Config::from_json(&text).py()?
        } else {
            let path: std::path::PathBuf = source.extract().map_err(|_| {
                PyTypeError::new_err("from_config takes a path to a TOML file or a dict")
            })?;
            let text = std::fs::read_to_string(&path).map_err(|e| {
                PyValueError::new_err(format!("cannot read Fish config {}: {e}", path.display()))
            })?;
            Config::from_toml(&text).py()?
        };
        PyFish::from_config_struct(config)
    }

    /// The variant's name, if it came from a config that names it.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
    }

    #[getter]
    fn players(&self) -> usize {
        self.rules.players()
    }

    /// Penguins per player.
    #[getter]
    fn penguins(&self) -> usize {
        self.rules.penguins as usize
    }

    #[getter]
    fn placement(&self) -> &'static str {
        self.rules.placement.name()
    }

    #[getter]
    fn order(&self) -> &'static str {
        self.rules.order.name()
    }

    #[getter]
    fn rows(&self) -> usize {
        self.shape().0
    }

    #[getter]
    fn cols(&self) -> usize {
        self.shape().1
    }

    /// Size of the fixed action space of this variant's board.
    #[getter]
    fn num_actions(&self) -> usize {
        self.shape().2
    }

    /// The opening position: placement phase, player 0 to place. `seed` deals the standard
    /// board (a random one when `None`); a fixed board is used as it is.
    #[pyo3(signature = (seed = None))]
    fn new_state(&self, seed: Option<u64>) -> PyFishState {
        let game = self.game_for(seed.unwrap_or_else(rand_seed));
        let state = game.initial_state();
        PyFishState { game, state }
    }

    /// A movement-phase position: `board` (a grid of fish counts, 0 = gap; the variant's fixed
    /// board when omitted), `penguins` (one list of `(row, col)` per player), the player to
    /// move, and optionally `scores` so far as `(fish, floes)` per player. Unreachable floes are
    /// removed and a stuck player to move lifts their penguins, as in play.
    #[pyo3(signature = (board = None, penguins = None, to_move = 0, scores = None))]
    fn position(
        &self,
        board: Option<&Bound<'_, PyAny>>,
        penguins: Option<Vec<Vec<Coords>>>,
        to_move: usize,
        scores: Option<Vec<(u16, u8)>>,
    ) -> PyResult<PyFishState> {
        let game = match (board, &self.fixed) {
            (Some(board), _) => Arc::new(FishGame::new(
                self.rules,
                Board::from_grid(&extract_grid(board)?).py()?,
            )),
            (None, Some(game)) => game.clone(),
            (None, None) => {
                return Err(PyValueError::new_err(
                    "position: give a board (this variant deals a new board per game)",
                ))
            }
        };
        let penguins = penguins.unwrap_or_else(|| vec![vec![]; self.rules.players()]);
        let state = game.position(&penguins, to_move, scores.as_deref()).py()?;
        Ok(PyFishState { game, state })
    }

    fn __repr__(&self) -> String {
        let mut args = format!(
            "players={}, penguins={}",
            self.rules.players, self.rules.penguins
        );
        if self.rules.placement != Placement::OneFish {
            args += &format!(", placement={:?}", self.rules.placement.name());
        }
        if self.rules.order != Order::RoundRobin {
            args += &format!(", order={:?}", self.rules.order.name());
        }
        if let Some(game) = &self.fixed {
            args += &format!(", board={:?}", game.board().grid());
        }
        format!("Fish({args})")
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyFish>().is_ok_and(|o| {
            let o = o.get();
            o.rules == self.rules && o.fixed.as_deref() == self.fixed.as_deref()
        })
    }
}

fn rand_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// A move: `src` is `None` for a placement; `action` is its number in the action space.
#[pyclass(module = "pingvinas", name = "FishMove", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyFishMove {
    #[pyo3(get)]
    src: Option<(usize, usize)>,
    #[pyo3(get)]
    dst: (usize, usize),
    #[pyo3(get)]
    action: u32,
    text: String,
}

impl PyFishMove {
    fn new(game: &FishGame, mv: FishMove, action: u32) -> Self {
        let board = game.board();
        let (src, dst) = match mv {
            FishMove::Place(c) => (None, board.coords(c)),
            FishMove::Slide(a, b) => (Some(board.coords(a)), board.coords(b)),
        };
        PyFishMove {
            src,
            dst,
            action,
            text: notation::move_name(board, mv),
        }
    }
}

#[pymethods]
impl PyFishMove {
    /// `True` for a placement.
    #[getter]
    fn is_placement(&self) -> bool {
        self.src.is_none()
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("<FishMove {} (action {})>", self.text, self.action)
    }
}

/// A Fish position. Mutable: `play` changes it in place; `after` and `copy` make new ones.
#[pyclass(module = "pingvinas", name = "FishState")]
#[derive(Clone)]
pub struct PyFishState {
    game: Arc<FishGame>,
    state: FishState,
}

impl PyFishState {
    /// The engine move meant by a Python value (FishMove, int action or notation), not yet
    /// checked for legality.
    fn to_engine_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<FishMove> {
        let board = self.game.board();
        if let Ok(m) = mv.cast::<PyFishMove>() {
            let m = m.get();
            let cell = |(r, c): (usize, usize)| {
                board.cell(r as i64, c as i64).ok_or_else(|| {
                    IllegalMoveError::new_err(format!("move {} is off this board", m.text))
                })
            };
            return Ok(match m.src {
                None => FishMove::Place(cell(m.dst)?),
                Some(src) => FishMove::Slide(cell(src)?, cell(m.dst)?),
            });
        }
        if let Ok(text) = mv.cast::<PyString>() {
            return notation::parse_move(board, &text.to_cow()?).py();
        }
        if mv.is_instance_of::<PyInt>() || mv.hasattr("__index__")? {
            let n = self.game.num_actions();
            return mv
                .extract::<u32>()
                .ok()
                .filter(|&a| (a as usize) < n)
                .and_then(|a| self.game.move_of(a))
                .ok_or_else(|| {
                    IllegalMoveError::new_err(format!(
                        "action {mv} is not a move on this board (actions are 0 to {})",
                        n - 1
                    ))
                });
        }
        Err(PyTypeError::new_err(format!(
            "expected a FishMove, an int action or a move string, got {}",
            mv.get_type().name()?
        )))
    }

    /// The checked move: legal here, or `IllegalMoveError` naming it and why.
    fn legal_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<FishMove> {
        let m = self.to_engine_move(mv)?;
        match self.game.illegal_reason(&self.state, m) {
            None => Ok(m),
            Some(why) => {
                let who = self
                    .state
                    .to_move()
                    .map_or(String::new(), |p| format!(" for player {p}"));
                Err(to_py(Error::IllegalMove(format!(
                    "illegal move {:?}{who}: {why}",
                    notation::move_name(self.game.board(), m)
                ))))
            }
        }
    }

    fn py_move(&self, mv: FishMove) -> PyFishMove {
        PyFishMove::new(
            &self.game,
            mv,
            self.game.action_of(mv).expect("on the board"),
        )
    }

    fn actions(&self) -> ActionList {
        let mut out = ActionList::new();
        self.game.legal_actions(&self.state, &mut out);
        out
    }
}

#[pymethods]
impl PyFishState {
    /// A state from its JSON (the same as `FishState.from_json`); used by pickle.
    #[new]
    fn new(json: &str) -> PyResult<Self> {
        PyFishState::from_json(json)
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

    /// `"placement"`, `"movement"` or `"over"`.
    #[getter]
    fn phase(&self) -> &'static str {
        self.game.phase(&self.state).name()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.state.is_over()
    }

    /// OpenSpiel's name for `is_over`.
    fn is_terminal(&self) -> bool {
        self.state.is_over()
    }

    #[getter]
    fn players(&self) -> usize {
        self.game.num_players()
    }

    /// Size of this state's action space (it depends on the board's size).
    #[getter]
    fn num_actions(&self) -> usize {
        self.game.num_actions()
    }

    /// The legal moves, in ascending action order.
    fn legal_moves(&self) -> Vec<PyFishMove> {
        self.actions()
            .iter()
            .map(|&a| PyFishMove::new(&self.game, self.game.move_of(a).expect("legal"), a))
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

    /// Whether a move (FishMove, action or notation) is legal here.
    fn is_legal(&self, mv: &Bound<'_, PyAny>) -> bool {
        self.legal_move(mv).is_ok()
    }

    /// The legal move that a notation string (or action, or FishMove) denotes.
    fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyFishMove> {
        Ok(self.py_move(self.legal_move(mv)?))
    }

    /// Plays a move: a FishMove, an int action or a notation string like `"c4"` or `"a1-c1"`.
    /// Raises `IllegalMoveError` (and leaves the state unchanged) when it is illegal.
    fn play(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<()> {
        // Fast path for the common case in learning loops: a legal int action.
        if let Some(m) = mv
            .cast_exact::<PyInt>()
            .ok()
            .and_then(|a| a.extract::<u32>().ok())
            .and_then(|a| self.game.move_of(a))
        {
            if self.game.illegal_reason(&self.state, m).is_none() {
                self.game.apply_move(&mut self.state, m);
                return Ok(());
            }
        }
        let m = self.legal_move(mv)?;
        self.game.apply_move(&mut self.state, m);
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

    /// `(fish, floes)` collected by each player so far.
    #[getter]
    fn scores(&self) -> Vec<(u16, u8)> {
        (0..self.game.num_players())
            .map(|p| self.state.score(p))
            .collect()
    }

    /// Places per player, 1 = first: most fish, then most floes; equal players share a place
    /// (`[1, 1, 3]`). Meaningful at the end; before it, the standings so far.
    fn ranking(&self) -> Vec<usize> {
        self.game.ranking(&self.state)
    }

    /// Zero-sum returns at the end: each player gets +1 per player ranked below and −1 per
    /// player ranked above, divided by `players − 1` (two players: +1/−1, 0/0 for a draw).
    /// All zeros before the end.
    fn returns(&self) -> Vec<f64> {
        self.game.returns(&self.state)[..self.game.num_players()].to_vec()
    }

    /// Fish on each remaining floe as a numpy int array (rows, cols); 0 for gaps and removed floes.
    #[getter]
    fn board<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let board = self.game.board();
        let grid = Array2::from_shape_fn((board.rows(), board.cols()), |(r, c)| {
            let cell = board.cell(r as i64, c as i64).expect("on the grid");
            if self.state.floes().contains(cell) {
                board.fish(cell) as i32
            } else {
                0
            }
        });
        grid.into_pyarray(py)
    }

    /// Penguins on the board, one list of `(row, col)` per player.
    #[getter]
    fn penguins(&self) -> Vec<Vec<(usize, usize)>> {
        let board = self.game.board();
        (0..self.game.num_players())
            .map(|p| {
                self.state
                    .penguins(p)
                    .into_iter()
                    .map(|c| board.coords(c))
                    .collect()
            })
            .collect()
    }

    /// The 64-bit Zobrist hash of the position (floes, penguins, player to move).
    #[getter]
    fn zobrist_hash(&self) -> u64 {
        self.state.hash()
    }

    /// Planes `(3 + players, rows, cols)` of float32 from `player`'s view (default: the player
    /// to move): floes with 1, 2 and 3+ fish, then the penguins of `player`, `player + 1`, ...
    #[pyo3(signature = (player = None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let n = self.game.num_players();
        let me = crate::errors::viewer(player, self.state.to_move(), n)?;
        let board = self.game.board();
        let planes = Array3::from_shape_fn((3 + n, board.rows(), board.cols()), |(k, r, c)| {
            let cell = board.cell(r as i64, c as i64).expect("on the grid");
            let on = if k < 3 {
                self.state.floes().contains(cell) && (board.fish(cell) as usize).min(3) == k + 1
            } else {
                self.state.penguins((me + k - 3) % n).contains(cell)
            };
            on as u8 as f32
        });
        Ok(planes.into_pyarray(py))
    }

    fn to_json(&self) -> String {
        json::to_json(&self.game, &self.state)
    }

    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let (game, state) = json::from_json(text).py()?;
        Ok(PyFishState {
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
        other.cast::<PyFishState>().is_ok_and(|o| {
            let o = o.borrow();
            o.state == self.state && (Arc::ptr_eq(&o.game, &self.game) || *o.game == *self.game)
        })
    }

    fn __hash__(&self) -> u64 {
        self.state.hash()
            ^ (0..pingvinas_engine::fish::rules::MAX_FISH_PLAYERS)
                .fold(0u64, |h, p| h.rotate_left(16) ^ self.state.fish(p) as u64)
    }

    fn __str__(&self) -> String {
        crate::render::fish_text(&self.game, &self.state)
    }

    fn __repr__(&self) -> String {
        let who = self
            .state
            .to_move()
            .map_or("game over".to_string(), |p| format!("player {p} to move"));
        format!(
            "<FishState {}, {who}, scores {:?}>",
            self.game.phase(&self.state).name(),
            self.scores()
        )
    }
}

/// Plays `n` random games in Rust with the GIL released and returns `(fish, floes)`: two numpy
/// int32 arrays of shape `(n, players)`. Starts from `state`, or the opening of `game`, or by
/// default a freshly dealt standard 2-player board per game. `threads=0` uses every core.
/// `policy`: `"uniform"` (every legal move equally likely) or `"fast"` (a random movable
/// penguin, then a random open direction, then a random distance).
#[pyfunction]
#[pyo3(signature = (n, *, seed = 0, threads = 1, game = None, state = None, policy = "uniform"))]
pub fn fish_random_playouts<'py>(
    py: Python<'py>,
    n: usize,
    seed: u64,
    threads: usize,
    game: Option<PyRef<'py, PyFish>>,
    state: Option<PyRef<'py, PyFishState>>,
    policy: &str,
) -> PyResult<(Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<i32>>)> {
    let policy = match policy {
        "uniform" => Policy::Uniform,
        "fast" => Policy::Fast,
        _ => {
            return Err(PyValueError::new_err(format!(
                "policy = {policy:?}: expected \"uniform\" or \"fast\""
            )))
        }
    };
    let rules = game
        .as_ref()
        .map_or(Rules::standard(2).expect("standard"), |g| g.rules);
    let fixed = game.as_ref().and_then(|g| g.fixed.clone());
    let position = state.map(|s| (s.game.clone(), s.state));
    let start = match (&position, &fixed) {
        (Some((g, s)), _) => Start::Position(g, *s),
        (None, Some(g)) => Start::Opening(g),
        (None, None) => Start::Standard(rules),
    };
    let players = match &start {
        Start::Standard(r) => r.players(),
        Start::Opening(g) | Start::Position(g, _) => g.num_players(),
    };
    let scores = py
        .detach(|| random_playouts(&start, n, seed, threads, policy))
        .py()?;
    let fish = Array2::from_shape_fn((n, players), |(i, p)| scores[i][p].0 as i32);
    let floes = Array2::from_shape_fn((n, players), |(i, p)| scores[i][p].1 as i32);
    Ok((fish.into_pyarray(py), floes.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFish>()?;
    m.add_class::<PyFishState>()?;
    m.add_class::<PyFishMove>()?;
    m.add_function(wrap_pyfunction!(fish_random_playouts, m)?)?;
    Ok(())
}
