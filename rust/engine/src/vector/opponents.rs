//! Single-agent mode's opponents: they move inside the step until the learner is to move, and
//! each new game is played up to the learner's first move. They play on copies: an opponent
//! that is stopped or fails changes no env.

use super::batch::{Play, Shared};
use super::game_seed;
use super::options::Learner;
use crate::error::{Error, Result};
use crate::game::Game;
use crate::io::GameIo;
use crate::rng::{splitmix64, Rng};
use crate::search::agent::Agent;
use crate::search::StopFlag;

/// A game that keeps ending before the learner's first move is skipped, at most this many times
/// in a row.
const MAX_SKIPPED: usize = 64;

impl<G: GameIo> Shared<G> {
    /// Game `first` of env `env` (or the next that does not end before the learner's first
    /// move), the opponents played up to the learner's first move.
    ///
    /// # Errors
    /// `Error::Interrupted` when stopped, an opponent's error naming the env.
    pub(super) fn begin(&self, env: usize, first: u64, stop: &StopFlag) -> Result<Play<G>> {
        let mut index = first;
        loop {
            let seed = game_seed(self.seed, env, index);
            let game = self.source.game(seed);
            let mut rng = Rng::new(splitmix64(seed ^ 0x6F70_706F_6E65_6E74));
            let learner = match self.options.learner {
                Learner::Seat(p) => p,
                Learner::Random => rng.below(self.dims.players),
            };
            let mut agent = self
                .options
                .opponent
                .as_ref()
                .map(|make| make(&game, rng.next_u64()));
            let mut state = game.initial_state();
            play_opponents(&*game, &mut state, learner, agent.as_deref_mut(), stop)
                .map_err(|e| failed(env, e))?;
            let over = game.is_over(&state);
            let play = Play {
                game,
                state,
                index,
                learner,
                agent,
            };
            if !over || index + 1 >= first + MAX_SKIPPED as u64 {
                return Ok(play);
            }
            index += 1;
        }
    }
}

/// Single-agent mode: the opponents (`agent`, none outside it) move in `state` until
/// `learner` is to move or the game is over.
///
/// # Errors
/// `Error::Interrupted` when stopped, the agent's error when it cannot move; `state` is then
/// partly played.
pub(super) fn play_opponents<G: Game, A: Agent<G> + ?Sized>(
    game: &G,
    state: &mut G::State,
    learner: usize,
    agent: Option<&mut A>,
    stop: &StopFlag,
) -> Result<()> {
    let Some(agent) = agent else {
        return Ok(());
    };
    while let Some(p) = game.to_move(state) {
        if p == learner {
            break;
        }
        let Some(a) = agent.act(game, state, stop)? else {
            return Err(interrupted());
        };
        game.apply(state, a);
    }
    Ok(())
}

/// The error of a call stopped by its flag.
pub(super) fn interrupted() -> Error {
    Error::Interrupted("the vector env call was interrupted; no env changed".into())
}

/// `e`, an opponent's error in env `env`, saying so (a stop stays as it is).
pub(super) fn failed(env: usize, e: Error) -> Error {
    let say = |m: String| format!("env {env}: the opponent cannot move ({m}); no env changed");
    match e {
        Error::Interrupted(m) => Error::Interrupted(m),
        Error::Invalid(m) => Error::Invalid(say(m)),
        Error::Parse(m) => Error::Parse(say(m)),
        Error::IllegalMove(m) => Error::IllegalMove(say(m)),
        Error::Memory(m) => Error::Memory(say(m)),
    }
}
