//! The one trait both games implement. Search, playouts and the numpy encoders are written once
//! against it (after OpenSpiel's `Game`/`State` split: the game value holds the rules and the
//! board, the state is a small `Copy` value).

use std::fmt::Debug;
use std::hash::Hash;

use arrayvec::ArrayVec;

/// An action: an index into the game's fixed action space `0..num_actions()`.
pub type Action = u32;

/// The most players any game supports (Marathon: 5; Fish: 4).
pub const MAX_PLAYERS: usize = 5;

/// Room for the legal actions of any position of either game on any supported board.
pub const MAX_ACTIONS: usize = 1024;

/// Legal actions, without heap allocation.
pub type ActionList = ArrayVec<Action, MAX_ACTIONS>;

/// Per-player returns; only the first `num_players()` entries are meaningful.
pub type Returns = [f64; MAX_PLAYERS];

/// A game: the rules (board, course, player count) as a value, and its positions as a small
/// `Copy` [`Game::State`]. Search, playouts and the encoders are written once against this
/// trait; both games implement it ([`crate::fish::FishGame`], [`crate::marathon::MarathonGame`]).
///
/// The contract, which search relies on and the tests of both games check:
/// - Players are `0..num_players()`; actions are `0..num_actions()`, the same space in every
///   position of a game.
/// - A state that is not over has a player to move, and that player has at least one legal
///   action ([`Game::legal_actions`] is empty exactly when [`Game::is_over`]).
/// - [`Game::apply`] of a legal action is deterministic: equal states and equal actions give
///   equal states (no hidden randomness; chance, such as a board shuffle, happens when a game
///   or its first state is made).
/// - Every game ends within [`Game::max_game_length`] actions.
///
/// The methods implementors write come first; the provided ones follow.
pub trait Game: Sync + Send {
    /// A position. Small and `Copy`, so search copies states rather than undoing moves;
    /// equality compares whole positions (scores and counters included).
    type State: Copy + Clone + Debug + PartialEq + Eq + Hash + Send + Sync;

    // --- Implementors write these. ---

    /// The number of players, at least 2 and at most [`MAX_PLAYERS`].
    fn num_players(&self) -> usize;

    /// The size of the fixed action space: every action of every position is below it.
    fn num_actions(&self) -> usize;

    /// An upper bound on the number of actions in one game, for search depths and buffers:
    /// every game ends within it.
    fn max_game_length(&self) -> usize;

    /// The player to move, `None` when the game is over. Never a player without a legal action.
    fn to_move(&self, state: &Self::State) -> Option<usize>;

    /// Writes all legal actions to `out` (cleared first) in ascending order, each once; empty
    /// only when the game is over. At most [`MAX_ACTIONS`] of them.
    fn legal_actions(&self, state: &Self::State, out: &mut ActionList);

    /// Plays a legal action, and every automatic step that follows it (for Fish: removing
    /// unreachable floes, lifting a stuck player's penguins), so that the next player to move
    /// can move. Unchecked: an illegal action may leave a meaningless state (but never causes
    /// undefined behaviour, and does nothing on a finished game).
    fn apply(&self, state: &mut Self::State, action: Action);

    /// The returns of a finished game, per player: zero-sum, each in `[-1, 1]`, as each game
    /// documents them; all zeros while the game is on. Entries from `num_players()` on are 0.
    fn returns(&self, state: &Self::State) -> Returns;

    /// A 64-bit Zobrist-style hash of the position, maintained incrementally by
    /// [`Game::apply`]. Equal states have equal hashes; the hash may leave parts of the state
    /// out (Fish: the scores so far; Marathon: the ply count), so equal hashes do not promise
    /// equal states.
    fn hash(&self, state: &Self::State) -> u64;

    // --- Provided. ---

    /// What transposition tables key a position by: [`Game::hash`] with whatever else the
    /// position's value depends on mixed in (Fish: the scores so far; Marathon: the ply count,
    /// as the ply limit ends the game). Positions with equal keys are taken to be worth the
    /// same. The default is the hash.
    fn search_key(&self, state: &Self::State) -> u64 {
        self.hash(state)
    }

    /// Whether the game is over: nobody is to move.
    fn is_over(&self, state: &Self::State) -> bool {
        self.to_move(state).is_none()
    }

    /// Whether `action` is among the legal actions of `state` (false for any action of a
    /// finished game). Lists the legal actions: a game may answer faster.
    fn is_legal(&self, state: &Self::State, action: Action) -> bool {
        let mut list = ActionList::new();
        self.legal_actions(state, &mut list);
        list.contains(&action)
    }
}

/// Places from sort keys (larger is better), with shared places: keys `[5, 9, 5]` give
/// `[2, 1, 2]` (standard competition ranking, "1224").
pub fn places<K: PartialOrd>(keys: &[K]) -> Vec<usize> {
    keys.iter()
        .map(|k| 1 + keys.iter().filter(|other| *other > k).count())
        .collect()
}

/// Zero-sum returns from places: each player scores +1 for every player placed below them, -1
/// for every player placed above, 0 for a shared place, divided by `n - 1`. Two players:
/// +1 / -1, or 0 / 0 for a draw.
pub fn returns_from_places(places: &[usize]) -> Returns {
    let n = places.len();
    let mut out = [0.0; MAX_PLAYERS];
    if n < 2 {
        return out;
    }
    for (i, &p) in places.iter().enumerate() {
        let below = places.iter().filter(|&&q| q > p).count() as f64;
        let above = places.iter().filter(|&&q| q < p).count() as f64;
        out[i] = (below - above) / (n - 1) as f64;
    }
    out
}

/// The [`returns_from_places`] of the places of `keys`, without building the places.
pub fn returns_from_keys<K: PartialOrd>(keys: &[K]) -> Returns {
    let n = keys.len();
    let mut out = [0.0; MAX_PLAYERS];
    if n < 2 {
        return out;
    }
    for (i, k) in keys.iter().enumerate() {
        let below = keys.iter().filter(|other| *other < k).count() as f64;
        let above = keys.iter().filter(|other| *other > k).count() as f64;
        out[i] = (below - above) / (n - 1) as f64;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_from_keys_are_the_returns_of_their_places() {
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..1000 {
            let n = 1 + rng.below(MAX_PLAYERS);
            let keys: Vec<(usize, usize)> = (0..n).map(|_| (rng.below(3), rng.below(2))).collect();
            assert_eq!(
                returns_from_keys(&keys),
                returns_from_places(&places(&keys)),
                "{keys:?}"
            );
        }
    }

    #[test]
    fn places_share_ties() {
        assert_eq!(places(&[5, 9, 5]), vec![2, 1, 2]);
        assert_eq!(places(&[(3, 1), (3, 2), (1, 9), (3, 2)]), vec![3, 1, 4, 1]);
    }

    #[test]
    fn returns_are_zero_sum() {
        let r = returns_from_places(&[2, 1, 2]);
        assert_eq!(&r[..3], &[-0.5, 1.0, -0.5]);
        let r = returns_from_places(&[1, 1]);
        assert_eq!(&r[..2], &[0.0, 0.0]);
        let r = returns_from_places(&[3, 1, 4, 1]);
        assert!((r[..4].iter().sum::<f64>()).abs() < 1e-12);
    }
}
