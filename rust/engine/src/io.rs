//! What a game says to the outside, beside the rules of [`Game`]: move notation, JSON, the
//! observation tensor for learning code and a text picture. Both games implement [`GameIo`], so
//! the Python bindings, the vector environment and the fuzz targets are written once.

use crate::error::Result;
use crate::game::{Action, Game, MAX_ACTIONS};

/// Input and output of one game. Every method is total on the states the game produces; the
/// ones that read input check it in full and return an error, never panic.
pub trait GameIo: Game + Clone + PartialEq + Sized {
    /// The game's name in JSON and messages: `"fish"` or `"marathon"`.
    const NAME: &'static str;

    /// The legal action that a move in notation denotes.
    ///
    /// # Errors
    /// `Error::Parse` for text that denotes no move of this game; `Error::IllegalMove` (with
    /// the reason) for a move the rules forbid in `state`.
    fn parse_action(&self, state: &Self::State, text: &str) -> Result<Action>;

    /// Checks an action number against `state`.
    ///
    /// # Errors
    /// `Error::Parse` when the number denotes no move at all (outside the action space, or off
    /// this board); `Error::IllegalMove` (with the reason) when the rules forbid it here.
    fn check_action(&self, state: &Self::State, action: Action) -> Result<()>;

    /// The notation of a legal action of `state`.
    fn action_name(&self, state: &Self::State, action: Action) -> String;

    /// The state as JSON, with the whole game (rules, board or course) so that it reads back
    /// alone.
    fn to_json(&self, state: &Self::State) -> String;

    /// A game and state from [`GameIo::to_json`]'s text.
    ///
    /// # Errors
    /// `Error::Invalid` for text that is not such JSON or a state the rules cannot reach.
    fn from_json(text: &str) -> Result<(Self, Self::State)>;

    /// `(planes, rows, cols)` of [`GameIo::write_observation`].
    fn observation_shape(&self) -> [usize; 3];

    /// Number of `f32`s in one observation.
    fn observation_len(&self) -> usize {
        self.observation_shape().iter().product()
    }

    /// Writes the observation of `state` from `player`'s view into `out` (planes, then rows,
    /// then columns; every element is written). `out.len()` must be
    /// [`GameIo::observation_len`] and `player` below [`Game::num_players`].
    fn write_observation(&self, state: &Self::State, player: usize, out: &mut [f32]);

    /// Places per player, 1 = first, equal players sharing a place (`[1, 1, 3]`).
    fn ranking(&self, state: &Self::State) -> Vec<usize>;

    /// A text picture of the state for a terminal.
    fn render(&self, state: &Self::State) -> String;

    /// The opening position (OpenSpiel's `NewInitialState`): where the vector env and
    /// self-play start every game.
    fn initial_state(&self) -> Self::State;

    // --- Provided: the vector env's facts, which a game may sharpen. ---

    /// An upper bound on the number of legal actions in `state` and every position after it:
    /// the width of the vector env's compact legal-action rows.
    fn max_legal_actions(&self, _state: &Self::State) -> usize {
        self.num_actions().min(MAX_ACTIONS)
    }

    /// Whether a state of `other` fits an env made for `self`: the same players, action space,
    /// observation shape and rules (a Fish board may differ, its shape may not).
    fn same_shape(&self, other: &Self) -> bool {
        self == other
    }

    /// The score that the vector env's `reward = Score` rewards, per player (Fish: the fish
    /// collected so far); `None` for games without one.
    fn score(&self, _state: &Self::State, _player: usize) -> Option<f64> {
        None
    }
}
