//! Single-agent mode's opponents: they move inside the step until the learner is to move, and
//! each new game is played up to the learner's first move.

use super::batch::{Play, Shared};
use super::game_seed;
use super::options::Learner;
use crate::game::Game;
use crate::io::GameIo;
use crate::rng::{splitmix64, Rng};
use crate::search::StopFlag;

/// A game that keeps ending before the learner's first move is skipped, at most this many times
/// in a row.
const MAX_SKIPPED: usize = 64;

impl<G: GameIo> Shared<G> {
    /// Game `first` of env `env` (or the next that does not end before the learner's first
    /// move), the opponents played up to the learner's first move; `None` when stopped.
    pub(super) fn begin(&self, env: usize, first: u64, stop: &StopFlag) -> Option<Play<G>> {
        let mut play = None;
        for index in first..first + MAX_SKIPPED as u64 {
            let seed = game_seed(self.seed, env, index);
            let game = self.source.game(seed);
            let mut rng = Rng::new(splitmix64(seed ^ 0x6F70_706F_6E65_6E74));
            let learner = match self.options.learner {
                Learner::Seat(p) => p,
                Learner::Random => rng.below(self.dims.players),
            };
            let agent = self
                .options
                .opponent
                .as_ref()
                .map(|make| make(&game, rng.next_u64()));
            let mut p = Play {
                state: game.initial_state(),
                game,
                index,
                learner,
                agent,
            };
            play_opponents(&mut p, stop)?;
            let over = p.game.is_over(&p.state);
            play = Some(p);
            if !over {
                break;
            }
        }
        play
    }
}

/// Single-agent mode: the opponents move until the learner is to move or the game is over;
/// `None` when stopped (the position is then partly played).
pub(super) fn play_opponents<G: Game>(play: &mut Play<G>, stop: &StopFlag) -> Option<()> {
    let Some(agent) = play.agent.as_mut() else {
        return Some(());
    };
    while let Some(p) = play.game.to_move(&play.state) {
        if p == play.learner {
            break;
        }
        let a = agent.act(&play.game, &play.state, stop)?;
        play.game.apply(&mut play.state, a);
    }
    Some(())
}
