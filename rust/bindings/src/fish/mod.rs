//! Bindings of the Fish engine: `Fish` (a variant) and `FishState`; `FishMove` is in
//! `moves.rs` and the batch playouts in `playouts.rs`. The methods both games share come from
//! `game_class!` and `state_class!`; this file holds what only Fish has, and `solver.rs` the
//! exact solver (`fish_solve`).

mod solver;

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pingvinas_engine::fish::rules::BoardSpec;
use pingvinas_engine::fish::{AnyFish, AnyFishState, Config, Order, Placement, Rules};
use pingvinas_engine::with_fish_state;
use pingvinas_engine::{AnyGame, AnySource, Game, GameIo};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::args;
use crate::errors::ToPyResult;
use crate::game_class::game_class;
use crate::moves::PyFishMove;
use crate::state::{state_class, Bind};
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
    pub(crate) rules: Rules,
    /// A game on a fixed board; `None` deals a standard board for each new state.
    pub(crate) fixed: Option<Arc<AnyFish>>,
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

    fn bundled(name: &str) -> PyResult<Self> {
        PyFish::from_config_struct(Config::from_toml(variants::find(name, "fish")?).py()?)
    }

    fn label(&self) -> Option<String> {
        self.name.clone()
    }

    fn note(&self) -> Option<String> {
        self.description.clone()
    }

    fn player_count(&self) -> usize {
        self.rules.players()
    }

    /// Games are equal when their rules and boards are (names are labels).
    fn same_rules(&self, other: &Self) -> bool {
        other.rules == self.rules && other.fixed.as_deref() == self.fixed.as_deref()
    }

    fn hash_rules(&self, h: &mut impl Hasher) {
        self.rules.hash(h);
        self.fixed.as_ref().map(|g| g.grid()).hash(h);
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

game_class!(
    PyFish,
    PyFishState,
    "Fish",
    /// A bundled variant by name (see `pingvinas.variants()`).
    variant,
    /// The variant's name, if it came from a config that names it.
    name,
    /// The variant's description, if its config has one.
    description,
    /// The opening position: placement phase, player 0 to place. `seed` (any int) deals the
    /// standard board (a random one when `None`); a fixed board is used as it is.
    new_state,
);

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
        let players = args::count_or(players, "players", 0, 255, 2)? as usize;
        let penguins = penguins
            .map(|p| args::count(p, "penguins", 0, 255))
            .transpose()?;
        let rules = Rules::new(
            players,
            penguins.map(|p| p as usize),
            args::parsed(placement, "placement")?,
            args::parsed(order, "order")?,
        )
        .py()?;
        let grid = board.map(extract_grid).transpose()?;
        PyFish::build(rules, grid)
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFish>()?;
    m.add_class::<PyFishState>()?;
    m.add_function(wrap_pyfunction!(solver::fish_solve, m)?)?;
    Ok(())
}
