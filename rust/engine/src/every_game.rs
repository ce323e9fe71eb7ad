//! [`AnyGame`]: a game of either kind, Fish on its board's bitboard word or Marathon, and the
//! one place that names them all. Front ends that hold games of any kind (the Python bindings)
//! hold an `AnyGame` and dispatch once per call with [`with_game!`](crate::with_game) or
//! [`with_game_state!`](crate::with_game_state): the body is compiled once per concrete game,
//! whose every trait ([`Game`](crate::game::Game), [`GameIo`], [`Knowledge`]) it may then use. Everything below
//! (search, the vector env, self-play) is generic and names no game.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::fish::{AnyFish, AnyFishState, FishGame, FishState, Rules, Width};
use crate::io::GameIo;
use crate::marathon::{Marathon, State as MarathonState};
use crate::search::{Knowledge, Playout};
use crate::vector::Source;

/// A game of either kind (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum AnyGame {
    /// Fish, on the word of its board.
    Fish(AnyFish),
    /// Penguin Marathon.
    Marathon(Arc<Marathon>),
}

/// A state of an [`AnyGame`].
#[allow(clippy::large_enum_variant)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyState {
    /// A Fish state, on the word of its board.
    Fish(AnyFishState),
    /// A Marathon state.
    Marathon(MarathonState),
}

/// Runs `$body` with `$g` bound to the concrete `&Arc<G>` of an [`AnyGame`]: the body is
/// compiled once per game (each Fish word, Marathon).
#[macro_export]
macro_rules! with_game {
    ($game:expr, |$g:ident| $body:expr) => {
        match $game {
            $crate::every_game::AnyGame::Fish($crate::fish::AnyFish::Narrow($g)) => $body,
            $crate::every_game::AnyGame::Fish($crate::fish::AnyFish::Wide($g)) => $body,
            $crate::every_game::AnyGame::Fish($crate::fish::AnyFish::Huge($g)) => $body,
            $crate::every_game::AnyGame::Marathon($g) => $body,
        }
    };
}

/// Runs `$body` with `$g` and `$s` bound to the concrete game and state of an [`AnyGame`] and
/// an [`AnyState`] of the same game, `$other` when they differ (a state of another game).
#[macro_export]
macro_rules! with_game_state {
    ($game:expr, $state:expr, |$g:ident, $s:ident| $body:expr, $other:expr) => {{
        use $crate::every_game::{AnyGame as G, AnyState as S};
        use $crate::fish::{AnyFish as F, AnyFishState as FS};
        match ($game, $state) {
            (G::Fish(F::Narrow($g)), S::Fish(FS::Narrow($s))) => $body,
            (G::Fish(F::Wide($g)), S::Fish(FS::Wide($s))) => $body,
            (G::Fish(F::Huge($g)), S::Fish(FS::Huge($s))) => $body,
            (G::Marathon($g), S::Marathon($s)) => $body,
            _ => $other,
        }
    }};
}

/// The concrete games an [`AnyGame`] holds, and the conversions to and from it.
pub trait Concrete: GameIo + Knowledge + 'static {
    /// The game as an [`AnyGame`].
    fn any_game(game: Arc<Self>) -> AnyGame;
    /// The state as an [`AnyState`].
    fn any_state(state: Self::State) -> AnyState;
    /// The game of this type, if `game` has it.
    fn game_of(game: &AnyGame) -> Option<&Arc<Self>>;
    /// The state of this type, if `state` has it.
    fn state_of(state: &AnyState) -> Option<&Self::State>;
}

impl<W: Width> Concrete for FishGame<W> {
    fn any_game(game: Arc<Self>) -> AnyGame {
        AnyGame::Fish(W::any_game(game))
    }
    fn any_state(state: FishState<W>) -> AnyState {
        AnyState::Fish(W::any_state(state))
    }
    fn game_of(game: &AnyGame) -> Option<&Arc<Self>> {
        match game {
            AnyGame::Fish(g) => W::game_of(g),
            AnyGame::Marathon(_) => None,
        }
    }
    fn state_of(state: &AnyState) -> Option<&FishState<W>> {
        match state {
            AnyState::Fish(s) => W::state_of(s),
            AnyState::Marathon(_) => None,
        }
    }
}

impl Concrete for Marathon {
    fn any_game(game: Arc<Self>) -> AnyGame {
        AnyGame::Marathon(game)
    }
    fn any_state(state: MarathonState) -> AnyState {
        AnyState::Marathon(state)
    }
    fn game_of(game: &AnyGame) -> Option<&Arc<Self>> {
        match game {
            AnyGame::Marathon(g) => Some(g),
            AnyGame::Fish(_) => None,
        }
    }
    fn state_of(state: &AnyState) -> Option<&MarathonState> {
        match state {
            AnyState::Marathon(s) => Some(s),
            AnyState::Fish(_) => None,
        }
    }
}

impl AnyGame {
    /// The game's name: `"fish"` or `"marathon"`.
    pub fn name(&self) -> &'static str {
        with_game!(self, |g| game_name(&**g))
    }

    /// The game's opening position.
    pub fn initial_state(&self) -> AnyState {
        with_game!(self, |g| opening(&**g))
    }

    /// `(planes, rows, cols)` of its observations.
    pub fn observation_shape(&self) -> [usize; 3] {
        with_game!(self, |g| g.observation_shape())
    }
}

fn game_name<G: GameIo>(_: &G) -> &'static str {
    G::NAME
}

fn opening<G: Concrete>(game: &G) -> AnyState {
    G::any_state(game.initial_state())
}

/// The games of a variant: one game, or a standard Fish board dealt for each game from its
/// seed.
#[derive(Clone, Debug)]
pub enum AnySource {
    /// Every game is this one.
    Fixed(AnyGame),
    /// Game `k` is [`AnyFish::dealt`] from its seed, with these rules.
    Deal(Rules),
}

impl AnySource {
    /// A game of the source, for what all its games share (its concrete type, sizes).
    pub fn sample(&self) -> AnyGame {
        match self {
            AnySource::Fixed(g) => g.clone(),
            AnySource::Deal(rules) => AnyGame::Fish(AnyFish::dealt(*rules, 0)),
        }
    }

    /// The source of concrete games, for the type of [`AnySource::sample`]: `None` for
    /// another type.
    pub fn typed<G: Concrete>(&self) -> Option<Source<G>> {
        match self {
            AnySource::Fixed(g) => G::game_of(g).map(|g| Source::Fixed(g.clone())),
            AnySource::Deal(rules) => {
                G::game_of(&self.sample())?;
                let rules = *rules;
                Some(Source::Deal(Arc::new(move |seed| {
                    let game = AnyGame::Fish(AnyFish::dealt(rules, seed));
                    G::game_of(&game)
                        .expect("standard deals share one word")
                        .clone()
                })))
            }
        }
    }
}

/// Recently built evaluations, newest first: the game, the settings, the evaluation (a
/// `G::Eval` for the game's type).
type EvalCache = Vec<(AnyGame, (bool, Playout), Arc<dyn Any + Send + Sync>)>;

/// How many evaluations [`cached_eval`] keeps.
const EVALS_KEPT: usize = 8;

static EVALS: Mutex<EvalCache> = Mutex::new(Vec::new());

/// [`Knowledge::default_eval`] of `game`, built once per game and settings among the last
/// few asked for: Marathon's computes distance tables, which one-shot searches would
/// otherwise redo every move.
pub fn cached_eval<G: Concrete>(game: &Arc<G>, knowledge: bool, playout: Playout) -> Arc<G::Eval> {
    let key = (knowledge, playout);
    let mut cache = EVALS.lock().unwrap_or_else(|e| e.into_inner());
    let hit = cache.iter().position(|(g, k, _)| {
        *k == key && G::game_of(g).is_some_and(|g| Arc::ptr_eq(g, game) || **g == **game)
    });
    let entry = match hit {
        Some(i) => cache.remove(i),
        None => {
            let eval: Arc<dyn Any + Send + Sync> = Arc::new(game.default_eval(knowledge, playout));
            (G::any_game(game.clone()), key, eval)
        }
    };
    let eval = entry.2.clone();
    cache.insert(0, entry);
    cache.truncate(EVALS_KEPT);
    eval.downcast::<G::Eval>()
        .expect("a cached evaluation has its game's type")
}
