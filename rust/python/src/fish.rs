//! Bindings of the Fish engine: `Fish` (a variant), `FishState`, `FishMove`, and the batch
//! playouts. The methods both games share come from `state_class!`; this file holds what only
//! Fish has.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pingvinas_engine::batch;
use pingvinas_engine::fish::notation::column_name;
use pingvinas_engine::fish::playout::{random_playouts, Start};
use pingvinas_engine::fish::rules::BoardSpec;
use pingvinas_engine::fish::{
    AnyFish, AnyFishState, Config, FishGame, FishMove, FishState, Order, Placement, Policy, Rules,
    Width, Word,
};
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::{with_fish, with_fish_state};
use pingvinas_engine::{Action, AnyGame, AnySource, Game, GameIo};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::args;
use crate::errors::{IllegalMoveError, ToPyResult};
use crate::state::{game_class, state_class, Bind};
use crate::variants;

/// A config file's error, naming the file: `Fish config: ...` becomes `Fish config FILE: ...`.
fn in_file(e: pingvinas_engine::Error, path: &std::path::Path) -> pingvinas_engine::Error {
    match e {
        pingvinas_engine::Error::Invalid(m) => {
            pingvinas_engine::Error::Invalid(match m.strip_prefix("Fish config") {
                Some(rest) => format!("Fish config {}{rest}", path.display()),
                None => format!("Fish config {}: {m}", path.display()),
            })
        }
        other => other,
    }
}

fn parse_placement(text: &str) -> PyResult<Placement> {
    text.parse::<Placement>()
        .map_err(|e| PyValueError::new_err(format!("placement = {}", args::cut(&e.to_string()))))
}

fn parse_order(text: &str) -> PyResult<Order> {
    text.parse::<Order>()
        .map_err(|e| PyValueError::new_err(format!("order = {}", args::cut(&e.to_string()))))
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
#[derive(Clone)]
#[pyclass(module = "pingvinas", name = "Fish", frozen)]
pub struct PyFish {
    rules: Rules,
    /// A game on a fixed board; `None` deals a standard board for each new state.
    fixed: Option<Arc<AnyFish>>,
    /// The fixed game, or one standard deal: what sizes are read from (made when first asked:
    /// learning loops make a `Fish()` per game and never ask).
    sample: OnceLock<Arc<AnyFish>>,
    name: Option<String>,
    description: Option<String>,
}

impl PyFish {
    fn build(rules: Rules, grid: Option<Vec<Vec<u8>>>) -> PyResult<Self> {
        let fixed = match grid {
            Some(grid) => Some(Arc::new(AnyFish::new(rules, &grid).py()?)),
            None => None,
        };
        Ok(PyFish {
            rules,
            fixed,
            sample: OnceLock::new(),
            name: None,
            description: None,
        })
    }

    fn from_config_struct(config: Config) -> PyResult<Self> {
        let mut game = PyFish::build(config.rules().py()?, config.grid().py()?)?;
        game.name = config.name;
        game.description = config.description;
        Ok(game)
    }

    /// The game a state belongs to (what `state.game` gives): the variant that dealt its
    /// board, or the variant with its board fixed.
    pub fn of_game(game: Arc<AnyFish>) -> Self {
        PyFish {
            rules: *game.rules(),
            fixed: (!game.is_dealt()).then(|| game.clone()),
            sample: OnceLock::from(game),
            name: None,
            description: None,
        }
    }

    /// The fixed game, or one standard deal.
    fn sample(&self) -> &AnyFish {
        self.sample.get_or_init(|| {
            self.fixed
                .clone()
                .unwrap_or_else(|| Arc::new(AnyFish::dealt(self.rules, 0)))
        })
    }

    /// The games of this variant, for self-play and the vector env.
    pub(crate) fn source(&self) -> AnySource {
        match &self.fixed {
            Some(game) => AnySource::Fixed(AnyGame::Fish((**game).clone())),
            None => AnySource::Deal(self.rules),
        }
    }

    /// The game for a new state: the fixed board, or a standard board dealt from `seed`.
    pub(crate) fn game_for(&self, seed: u64) -> Arc<AnyFish> {
        match &self.fixed {
            Some(game) => game.clone(),
            None => Arc::new(AnyFish::dealt(self.rules, seed)),
        }
    }

    fn from_dict(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config = Config::from_value(args::config_value(source, "Fish config", "")?).py()?;
        PyFish::from_config_struct(config)
    }

    fn from_file(text: &str, path: &std::path::Path) -> PyResult<Self> {
        PyFish::from_config_struct(Config::from_toml(text).map_err(|e| in_file(e, path)).py()?)
    }

    fn config_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?
            .call_method1("loads", (self.config().to_json(),))
    }

    fn config(&self) -> Config {
        Config {
            game: "fish".into(),
            name: self.name.clone(),
            description: self.description.clone(),
            players: self.rules.players(),
            penguins: Some(self.rules.penguins as usize),
            placement: self.rules.placement,
            order: self.rules.order,
            board: Some(match &self.fixed {
                Some(game) => BoardSpec::Grid(game.grid()),
                None => BoardSpec::Named("standard".into()),
            }),
        }
    }
}

game_class!(PyFish, "Fish");

#[pymethods]
impl PyFish {
    #[new]
    #[pyo3(signature = (players = None, *, penguins = None, board = None, placement = "one-fish", order = "round-robin"))]
    fn new(
        players: Option<&Bound<'_, PyAny>>,
        penguins: Option<&Bound<'_, PyAny>>,
        board: Option<&Bound<'_, PyAny>>,
        placement: &str,
        order: &str,
    ) -> PyResult<Self> {
        let players = match players {
            Some(p) if !p.is_none() => args::count(p, "players", 0, 255)? as usize,
            _ => 2,
        };
        let penguins = match penguins {
            Some(p) if !p.is_none() => Some(args::count(p, "penguins", 0, 255)? as usize),
            _ => None,
        };
        let rules = Rules::new(
            players,
            penguins,
            parse_placement(placement)?,
            parse_order(order)?,
        )
        .py()?;
        let grid = board.map(extract_grid).transpose()?;
        PyFish::build(rules, grid)
    }

    /// A bundled variant by name (see `pingvinas.variants()`).
    #[staticmethod]
    fn variant(name: &str) -> PyResult<Self> {
        let text = variants::find(name, "fish")?;
        PyFish::from_config_struct(Config::from_toml(text).py()?)
    }

    /// The variant's name, if it came from a config that names it.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
    }

    /// The variant's description, if its config has one.
    #[getter]
    fn description(&self) -> Option<String> {
        self.description.clone()
    }

    #[getter]
    fn players(&self) -> usize {
        self.rules.players()
    }

    /// Penguins per player (placed at the start).
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

    /// The opening position: placement phase, player 0 to place. `seed` (any int) deals the
    /// standard board (a random one when `None`); a fixed board is used as it is.
    #[pyo3(signature = (seed = None))]
    fn new_state(&self, seed: Option<&Bound<'_, PyAny>>) -> PyResult<PyFishState> {
        let game = self.game_for(args::seed_or_random(seed)?);
        let state = game.initial_state();
        Ok(PyFishState { game, state })
    }

    /// A movement-phase position: `board` (a grid of fish counts, 0 = gap; the variant's fixed
    /// board when omitted), `penguins` (one list of `(row, col)` per player, any number each,
    /// none for a player already lifted), the player to move, and optionally `scores` so far
    /// as `(fish, floes)` per player. Unreachable floes are removed and a stuck player to move
    /// lifts their penguins, as in play.
    #[pyo3(signature = (board = None, penguins = None, to_move = None, scores = None))]
    fn position(
        &self,
        board: Option<&Bound<'_, PyAny>>,
        penguins: Option<&Bound<'_, PyAny>>,
        to_move: Option<&Bound<'_, PyAny>>,
        scores: Option<Vec<(u16, u16)>>,
    ) -> PyResult<PyFishState> {
        let game = match (board, &self.fixed) {
            (Some(board), _) => Arc::new(AnyFish::new(self.rules, &extract_grid(board)?).py()?),
            (None, Some(game)) => game.clone(),
            (None, None) => {
                return Err(PyValueError::new_err(
                    "position: give a board (this variant deals a new board per game)",
                ))
            }
        };
        let penguins = match penguins {
            Some(p) if !p.is_none() => p
                .try_iter()
                .map_err(|_| PyTypeError::new_err("penguins must be one list of cells per player"))?
                .enumerate()
                .map(|(i, cells)| args::cells(&cells?, &format!("penguins[{i}]")))
                .collect::<PyResult<Vec<_>>>()?,
            _ => vec![vec![]; self.rules.players()],
        };
        let to_move = match to_move {
            Some(t) if !t.is_none() => args::player(t, self.rules.players())?,
            _ => 0,
        };
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
            args += &format!(", board={:?}", game.grid());
        }
        format!("Fish({args})")
    }

    /// Games are equal when their rules and boards are (names are labels).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyFish>().is_ok_and(|o| {
            let o = o.get();
            o.rules == self.rules && o.fixed.as_deref() == self.fixed.as_deref()
        })
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.rules.hash(&mut h);
        self.fixed.as_ref().map(|g| g.grid()).hash(&mut h);
        h.finish()
    }
}

/// What `FishMove(src, dst, action)` is rebuilt from.
type MoveParts = (Option<(usize, usize)>, (usize, usize), u32);

/// `(fish, floes)` of a batch of playouts.
type ScoreArrays<'py> = (Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<i32>>);

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

#[pymethods]
impl PyFishMove {
    #[new]
    #[pyo3(signature = (src, dst, action))]
    fn new(src: Option<(usize, usize)>, dst: (usize, usize), action: u32) -> Self {
        PyFishMove { src, dst, action }
    }

    /// `True` for a placement.
    #[getter]
    fn is_placement(&self) -> bool {
        self.src.is_none()
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!("<FishMove {} (action {})>", self.text(), self.action)
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

/// A Fish position. Mutable: `play` changes it in place; `after` and `copy` make new ones.
#[pyclass(module = "pingvinas", name = "FishState")]
#[derive(Clone)]
pub struct PyFishState {
    pub(crate) game: Arc<AnyFish>,
    pub(crate) state: AnyFishState,
}

state_class!(PyFishState, AnyFish, PyFish, PyFishMove);

#[pymethods]
impl PyFishState {
    /// `"placement"`, `"movement"` or `"over"`.
    #[getter]
    fn phase(&self) -> &'static str {
        with_fish_state!(&*self.game, &self.state, |g, s| g.phase(s).name(), "over")
    }

    /// `(fish, floes)` collected by each player so far.
    #[getter]
    fn scores(&self) -> Vec<(u16, u16)> {
        (0..self.game.num_players())
            .map(|p| self.state.score(p))
            .collect()
    }

    /// Fish on each remaining floe as a numpy int array (rows, cols); 0 for gaps and removed floes.
    #[getter]
    fn board<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let (rows, cols) = (self.game.rows(), self.game.cols());
        let mut grid = Array2::zeros((rows, cols));
        with_fish_state!(
            &*self.game,
            &self.state,
            |g, s| {
                // A cell's index is `row * cols + col`.
                for cell in s.floes() {
                    let cell = cell as usize;
                    grid[(cell / cols, cell % cols)] = g.board().fish(cell as _) as i32;
                }
            },
            ()
        );
        grid.into_pyarray(py)
    }

    /// The board as it was at the start of the game: fish on every floe, those gone since
    /// included, as a numpy int array (rows, cols); 0 for gaps.
    #[getter]
    fn start_board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let grid = self.game.grid();
        let rows: Vec<Vec<i32>> = grid
            .iter()
            .map(|row| row.iter().map(|&f| f as i32).collect())
            .collect();
        Ok(PyArray2::from_vec2(py, &rows)?)
    }

    /// Penguins on the board, one list of `(row, col)` per player.
    #[getter]
    fn penguins(&self) -> Vec<Vec<(usize, usize)>> {
        with_fish_state!(
            &*self.game,
            &self.state,
            |g, s| (0..g.num_players())
                .map(|p| s
                    .penguins(p)
                    .into_iter()
                    .map(|c| g.board().coords(c))
                    .collect())
                .collect(),
            Vec::new()
        )
    }

    fn __repr__(&self) -> String {
        let who = self
            .state
            .to_move()
            .map_or("game over".to_string(), |p| format!("player {p} to move"));
        format!(
            "<FishState {}, {who}, scores {:?}>",
            self.phase(),
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
#[pyo3(signature = (n, *, seed = None, threads = None, game = None, state = None, policy = "uniform"))]
#[allow(clippy::too_many_arguments)]
pub fn fish_random_playouts<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    game: Option<PyRef<'py, PyFish>>,
    state: Option<PyRef<'py, PyFishState>>,
    policy: &str,
) -> PyResult<ScoreArrays<'py>> {
    let n = args::count(n, "n", 0, batch::MAX_GAMES as u64)? as usize;
    let seed = seed.map_or(Ok(0), args::seed)?;
    let threads = threads.map_or(Ok(1), args::threads)?;
    let policy = match policy {
        "uniform" => Policy::Uniform,
        "fast" => Policy::Fast,
        _ => {
            return Err(PyValueError::new_err(format!(
                "policy = {:?}: expected \"uniform\" or \"fast\"",
                args::cut(policy)
            )))
        }
    };
    let rules = game
        .as_ref()
        .map_or(Rules::standard(2).expect("standard"), |g| g.rules);
    let fixed = game.as_ref().and_then(|g| g.fixed.clone());
    let position = state.map(|s| (s.game.clone(), s.state));
    let players = match (&position, &fixed) {
        (Some((g, _)), _) | (None, Some(g)) => g.num_players(),
        (None, None) => rules.players(),
    };
    let scores = crate::detached::run(py, &StopFlag::new(), |stop| match (&position, &fixed) {
        // One dispatch on the board's word, then the whole batch on the concrete game.
        (Some((g, s)), _) => with_fish_state!(
            &**g,
            s,
            |g, s| random_playouts(&Start::Position(g, *s), n, seed, threads, policy, stop),
            Ok(Vec::new())
        ),
        (None, Some(g)) => with_fish!(&**g, |g| random_playouts(
            &Start::Opening(g),
            n,
            seed,
            threads,
            policy,
            stop
        )),
        (None, None) => {
            random_playouts::<u64>(&Start::Standard(rules), n, seed, threads, policy, stop)
        }
    })?
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
