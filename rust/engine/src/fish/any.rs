//! [`AnyFish`]: a Fish game on the narrowest bitboard word its board fits, chosen once when the
//! game is made: `u64` up to 64 cells (the standard board), `u128` up to 128, [`W1024`] up to
//! [`MAX_CELLS`]. Everything below (rules, move generation, search, playouts) is generic over the
//! word and monomorphised per width; callers that hold games of any size (the Python bindings)
//! hold an `AnyFish` and dispatch once per call with [`with_fish!`] or
//! [`with_fish_state!`].
//!
//! `AnyFish` is itself a [`Game`] and a [`GameIo`], with [`AnyFishState`] as its state, so code
//! written once against those traits works on it unchanged; hot loops (search, batches) should
//! dispatch first and run on the concrete game, whose states are smaller.

use std::sync::Arc;

use super::bitboard::{Word, MAX_CELLS, W1024};
use super::board::{check_grid, Board};
use super::json;
use super::rules::Rules;
use super::state::{FishGame, FishState};
use crate::error::{Error, Result};
use crate::game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::io::GameIo;

/// A Fish game on the bitboard word its board needs (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyFish {
    /// At most 64 cells (the standard board).
    Narrow(Arc<FishGame<u64>>),
    /// 65 to 128 cells.
    Wide(Arc<FishGame<u128>>),
    /// 129 to [`MAX_CELLS`] cells.
    Huge(Arc<FishGame<W1024>>),
}

/// A state of an [`AnyFish`] game: the state of the same width. As large as the widest state
/// (states are `Copy`, so nothing is boxed): hold one per position object, and search and batch
/// on the concrete state instead.
#[allow(clippy::large_enum_variant)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyFishState {
    /// A state of [`AnyFish::Narrow`].
    Narrow(FishState<u64>),
    /// A state of [`AnyFish::Wide`].
    Wide(FishState<u128>),
    /// A state of [`AnyFish::Huge`].
    Huge(FishState<W1024>),
}

/// Runs `$body` with `$g` bound to the concrete `&Arc<FishGame<W>>` of an [`AnyFish`]: the body
/// is compiled once per width.
#[macro_export]
macro_rules! with_fish {
    ($game:expr, |$g:ident| $body:expr) => {
        match $game {
            $crate::fish::AnyFish::Narrow($g) => $body,
            $crate::fish::AnyFish::Wide($g) => $body,
            $crate::fish::AnyFish::Huge($g) => $body,
        }
    };
}

/// Runs `$body` with `$g` and `$s` bound to the concrete game and state of an [`AnyFish`] and
/// an [`AnyFishState`] of the same width, `$other` when the widths differ (a state of another
/// game: callers never pair them so).
#[macro_export]
macro_rules! with_fish_state {
    ($game:expr, $state:expr, |$g:ident, $s:ident| $body:expr, $other:expr) => {
        match ($game, $state) {
            ($crate::fish::AnyFish::Narrow($g), $crate::fish::AnyFishState::Narrow($s)) => $body,
            ($crate::fish::AnyFish::Wide($g), $crate::fish::AnyFishState::Wide($s)) => $body,
            ($crate::fish::AnyFish::Huge($g), $crate::fish::AnyFishState::Huge($s)) => $body,
            _ => $other,
        }
    };
}

pub(crate) use {with_fish, with_fish_state};

/// The conversions between a concrete game or state and the `Any` enums.
pub trait Width: Word {
    /// The game as an [`AnyFish`].
    fn any_game(game: Arc<FishGame<Self>>) -> AnyFish;
    /// The state as an [`AnyFishState`].
    fn any_state(state: FishState<Self>) -> AnyFishState;
    /// The state of this width, if `state` has it.
    fn state_of(state: &AnyFishState) -> Option<&FishState<Self>>;
    /// The game of this width, if `game` has it.
    fn game_of(game: &AnyFish) -> Option<&Arc<FishGame<Self>>>;
}

macro_rules! width {
    ($w:ty, $variant:ident) => {
        impl Width for $w {
            fn any_game(game: Arc<FishGame<Self>>) -> AnyFish {
                AnyFish::$variant(game)
            }
            fn any_state(state: FishState<Self>) -> AnyFishState {
                AnyFishState::$variant(state)
            }
            fn state_of(state: &AnyFishState) -> Option<&FishState<Self>> {
                match state {
                    AnyFishState::$variant(s) => Some(s),
                    _ => None,
                }
            }
            fn game_of(game: &AnyFish) -> Option<&Arc<FishGame<Self>>> {
                match game {
                    AnyFish::$variant(g) => Some(g),
                    _ => None,
                }
            }
        }
    };
}

width!(u64, Narrow);
width!(u128, Wide);
width!(W1024, Huge);

impl<W: Width> From<FishGame<W>> for AnyFish {
    fn from(game: FishGame<W>) -> AnyFish {
        W::any_game(Arc::new(game))
    }
}

impl AnyFish {
    /// A game with these rules on a board made from `grid`, on the narrowest word that holds it.
    ///
    /// # Errors
    /// `Error::Invalid` for a bad grid (see [`check_grid`]: at most [`MAX_CELLS`] cells).
    pub fn new(rules: Rules, grid: &[Vec<u8>]) -> Result<AnyFish> {
        let (rows, cols) = check_grid(grid)?;
        let cells = rows * cols;
        debug_assert!(cells <= MAX_CELLS);
        Ok(if cells <= 64 {
            FishGame::new(rules, Board::<u64>::from_grid(grid)?).into()
        } else if cells <= 128 {
            FishGame::new(rules, Board::<u128>::from_grid(grid)?).into()
        } else {
            FishGame::new(rules, Board::<W1024>::from_grid(grid)?).into()
        })
    }

    /// A game on a standard board dealt from `seed`, marked as dealt ([`FishGame::dealt`]).
    pub fn dealt(rules: Rules, seed: u64) -> AnyFish {
        FishGame::dealt(rules, seed).into()
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        with_fish!(self, |g| g.rules())
    }

    /// Whether the board was dealt for this game from the standard layout.
    pub fn is_dealt(&self) -> bool {
        with_fish!(self, |g| g.is_dealt())
    }

    /// This game marked as dealt when its board is a standard deal ([`FishGame::as_dealt`]).
    pub fn as_dealt(&self) -> Option<AnyFish> {
        with_fish!(self, |g| g.as_dealt().map(AnyFish::from))
    }

    /// The number of rows of the board.
    pub fn rows(&self) -> usize {
        with_fish!(self, |g| g.board().rows())
    }

    /// The number of columns of the board.
    pub fn cols(&self) -> usize {
        with_fish!(self, |g| g.board().cols())
    }

    /// The board's grid of fish counts as dealt.
    pub fn grid(&self) -> Vec<Vec<u8>> {
        with_fish!(self, |g| g.board().grid())
    }

    /// The bitboard word of this game's board: `"u64"`, `"u128"` or `"wide"`.
    pub fn word(&self) -> &'static str {
        with_fish!(self, |g| word_name(g))
    }

    /// The opening position.
    pub fn initial_state(&self) -> AnyFishState {
        with_fish!(self, |g| Width::any_state(g.initial_state()))
    }

    /// A movement-phase position ([`FishGame::position`]).
    ///
    /// # Errors
    /// As [`FishGame::position`].
    pub fn position(
        &self,
        penguins: &[Vec<(i64, i64)>],
        to_move: usize,
        scores: Option<&[(u16, u16)]>,
    ) -> Result<AnyFishState> {
        with_fish!(self, |g| g
            .position(penguins, to_move, scores)
            .map(Width::any_state))
    }
}

fn same_shape<W: Width>(game: &FishGame<W>, other: &AnyFish) -> bool {
    W::game_of(other).is_some_and(|o| game.same_shape(o))
}

fn word_name<W: Word>(_: &FishGame<W>) -> &'static str {
    W::NAME
}

impl AnyFishState {
    /// The player to move; `None` when the game is over.
    pub fn to_move(&self) -> Option<usize> {
        match self {
            AnyFishState::Narrow(s) => s.to_move(),
            AnyFishState::Wide(s) => s.to_move(),
            AnyFishState::Huge(s) => s.to_move(),
        }
    }

    /// `(fish, floes)` collected by `player`.
    pub fn score(&self, player: usize) -> (u16, u16) {
        match self {
            AnyFishState::Narrow(s) => s.score(player),
            AnyFishState::Wide(s) => s.score(player),
            AnyFishState::Huge(s) => s.score(player),
        }
    }
}

impl Game for AnyFish {
    type State = AnyFishState;

    fn num_players(&self) -> usize {
        with_fish!(self, |g| g.num_players())
    }

    fn num_actions(&self) -> usize {
        with_fish!(self, |g| g.num_actions())
    }

    fn max_game_length(&self) -> usize {
        with_fish!(self, |g| g.max_game_length())
    }

    fn to_move(&self, s: &AnyFishState) -> Option<usize> {
        s.to_move()
    }

    fn legal_actions(&self, s: &AnyFishState, out: &mut ActionList) {
        with_fish_state!(self, s, |g, s| g.legal_actions(s, out), out.clear())
    }

    fn apply(&self, s: &mut AnyFishState, action: Action) {
        with_fish_state!(self, s, |g, s| g.apply(s, action), ())
    }

    fn returns(&self, s: &AnyFishState) -> Returns {
        with_fish_state!(self, s, |g, s| g.returns(s), [0.0; MAX_PLAYERS])
    }

    fn hash(&self, s: &AnyFishState) -> u64 {
        with_fish_state!(self, s, |g, s| g.hash(s), 0)
    }

    fn is_legal(&self, s: &AnyFishState, action: Action) -> bool {
        with_fish_state!(self, s, |g, s| g.is_legal(s, action), false)
    }
}

/// The error of a state paired with a game of another board (never made by this crate).
fn mismatch() -> Error {
    Error::Invalid("a Fish state of another board".into())
}

impl GameIo for AnyFish {
    const NAME: &'static str = "fish";

    fn parse_action(&self, s: &AnyFishState, text: &str) -> Result<Action> {
        with_fish_state!(self, s, |g, s| g.parse_action(s, text), Err(mismatch()))
    }

    fn check_action(&self, s: &AnyFishState, action: Action) -> Result<()> {
        with_fish_state!(self, s, |g, s| g.check_action(s, action), Err(mismatch()))
    }

    fn action_name(&self, s: &AnyFishState, action: Action) -> String {
        with_fish_state!(
            self,
            s,
            |g, s| g.action_name(s, action),
            format!("#{action}")
        )
    }

    fn to_json(&self, s: &AnyFishState) -> String {
        with_fish_state!(self, s, |g, s| g.to_json(s), String::new())
    }

    fn from_json(text: &str) -> Result<(AnyFish, AnyFishState)> {
        let parsed = json::parse(text)?;
        let (rows, cols) = check_grid(parsed.grid())?;
        fn build<W: Width>(parsed: json::Parsed) -> Result<(AnyFish, AnyFishState)> {
            let (g, s) = json::build::<W>(parsed)?;
            Ok((g.into(), W::any_state(s)))
        }
        match rows * cols {
            0..=64 => build::<u64>(parsed),
            65..=128 => build::<u128>(parsed),
            _ => build::<W1024>(parsed),
        }
    }

    fn observation_shape(&self) -> [usize; 3] {
        with_fish!(self, |g| g.observation_shape())
    }

    fn write_observation(&self, s: &AnyFishState, player: usize, out: &mut [f32]) {
        with_fish_state!(
            self,
            s,
            |g, s| g.write_observation(s, player, out),
            out.fill(0.0)
        )
    }

    fn ranking(&self, s: &AnyFishState) -> Vec<usize> {
        with_fish_state!(self, s, |g, s| GameIo::ranking(&**g, s), Vec::new())
    }

    fn render(&self, s: &AnyFishState) -> String {
        with_fish_state!(self, s, |g, s| g.render(s), String::new())
    }

    fn initial_state(&self) -> AnyFishState {
        AnyFish::initial_state(self)
    }

    fn max_legal_actions(&self, s: &AnyFishState) -> usize {
        with_fish_state!(self, s, |g, s| g.max_legal_actions(s), 0)
    }

    fn same_shape(&self, other: &AnyFish) -> bool {
        with_fish!(self, |g| same_shape(g, other))
    }

    fn score(&self, s: &AnyFishState, player: usize) -> Option<f64> {
        Some(s.score(player).0 as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_board_gets_the_narrowest_word() {
        let rules = Rules::standard(2).unwrap();
        let words: Vec<_> = [
            (8, 8),
            (1, 64),
            (10, 10),
            (50, 2),
            (2, 50),
            (9, 15),
            (20, 20),
            (32, 32),
        ]
        .iter()
        .map(|&(r, c)| AnyFish::new(rules, &vec![vec![1; c]; r]).unwrap().word())
        .collect();
        assert_eq!(
            words,
            ["u64", "u64", "u128", "u128", "u128", "wide", "wide", "wide"]
        );
        assert_eq!(AnyFish::dealt(rules, 3).word(), "u64");
        for (r, c) in [(33, 32), (129, 1), (1, 129)] {
            let e = AnyFish::new(rules, &vec![vec![1; c]; r]).unwrap_err();
            assert!(e.to_string().contains("at most 1024 cells"), "{e}");
        }
    }

    #[test]
    fn json_reads_back_on_the_same_word() {
        let rules = Rules::standard(2).unwrap();
        for (r, c) in [(8, 8), (10, 10), (32, 32)] {
            let game = AnyFish::new(rules, &vec![vec![1; c]; r]).unwrap();
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            for _ in 0..12 {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[actions.len() / 2]);
            }
            let (g2, s2) = AnyFish::from_json(&game.to_json(&s)).unwrap();
            assert_eq!((g2.word(), s2), (game.word(), s));
        }
    }
}
