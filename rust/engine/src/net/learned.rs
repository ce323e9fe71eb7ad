//! The learned evaluation that ships with the engine, and what `auto` searches with.
//!
//! The net (`python/pingvinas/weights/fish-2p.safetensors`, the one copy: the Python package
//! ships the same file, and `pingvinas train` remakes it, see `docs/training.md`) is an
//! [`Nnue`] over the hand-written evaluation's terms for 2-player Fish with the standard rules
//! on the standard board. There, alpha-beta with it is ahead of alpha-beta with the
//! hand-written evaluation alone at equal depth and level at equal time (`docs/strength.md`),
//! so `auto` plays it there ([`AutoEval`]) and nowhere else.

use std::sync::{Arc, OnceLock};

use super::{CellFeatures, Nnue, WithNet};
use crate::fish::{FishGame, Rules, Word};
use crate::game::{Action, ActionList, Returns};
use crate::rng::Rng;
use crate::search::{Budget, Evaluate, SearchResult, StopFlag};

/// The file's bytes, checked by the tests below.
const BYTES: &[u8] = include_bytes!("../../../../python/pingvinas/weights/fish-2p.safetensors");

/// The learned net for standard 2-player Fish (read once).
pub fn learned() -> Arc<Nnue> {
    static NET: OnceLock<Arc<Nnue>> = OnceLock::new();
    NET.get_or_init(|| {
        Arc::new(Nnue::from_bytes(BYTES).expect("the bundled net is a valid NNUE file"))
    })
    .clone()
}

/// Fish's [`CellFeatures::auto_net`]: [`learned`] for the standard rules with 2 players on a
/// board of the standard layout and fish (dealt or given), else none.
pub(super) fn fish_auto_net<W: Word>(game: &FishGame<W>) -> Option<Arc<Nnue>> {
    let standard = Rules::standard(2).is_ok_and(|r| *game.rules() == r)
        && (game.is_dealt() || game.has_standard_fish());
    standard.then(learned)
}

/// The evaluation `auto` searches a game with: the game's own (`base`), with the game's learned
/// net as its estimate where it has one ([`CellFeatures::auto_net`]). One type for both, so
/// that front ends whose games differ (a vector env's list of boards) need one searcher type.
pub enum AutoEval<E> {
    /// The game's own evaluation.
    Own(Arc<E>),
    /// The game's own evaluation with the learned net's estimate.
    Learned(WithNet<E, Nnue>),
}

impl<E> AutoEval<E> {
    /// `auto`'s evaluation of `game`, over its own evaluation `base`.
    pub fn new<G: CellFeatures>(game: &G, base: Arc<E>) -> AutoEval<E> {
        match game.auto_net() {
            Some(net) => AutoEval::Learned(WithNet { base, net }),
            None => AutoEval::Own(base),
        }
    }

    /// Whether it searches with the learned net.
    pub fn is_learned(&self) -> bool {
        matches!(self, AutoEval::Learned(_))
    }
}

/// Each call goes to the evaluation it holds.
macro_rules! either {
    ($self:ident, $e:ident => $call:expr) => {
        match $self {
            AutoEval::Own($e) => $call,
            AutoEval::Learned($e) => $call,
        }
    };
}

impl<G: CellFeatures, E: Evaluate<G>> Evaluate<G> for AutoEval<E> {
    fn evaluate(&self, game: &G, state: &G::State) -> Returns {
        either!(self, e => e.evaluate(game, state))
    }

    fn exact(&self, game: &G, state: &G::State) -> Option<Returns> {
        either!(self, e => e.exact(game, state))
    }

    fn order_hint(&self, game: &G, state: &G::State, action: Action) -> i32 {
        either!(self, e => e.order_hint(game, state, action))
    }

    fn has_order_hint(&self) -> bool {
        either!(self, e => e.has_order_hint())
    }

    fn prune_actions(&self, game: &G, state: &G::State, actions: &mut ActionList) {
        either!(self, e => e.prune_actions(game, state, actions))
    }

    fn key(&self, game: &G, state: &G::State) -> u64 {
        either!(self, e => e.key(game, state))
    }

    fn playout(&self, game: &G, state: &G::State, rng: &mut Rng) -> Returns {
        either!(self, e => e.playout(game, state, rng))
    }

    fn solve(
        &self,
        game: &G,
        state: &G::State,
        budget: &Budget,
        stop: &StopFlag,
    ) -> Option<crate::error::Result<SearchResult>> {
        either!(self, e => e.solve(game, state, budget, stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::{Board, Order, Placement};
    use crate::marathon::MarathonGame;
    use crate::search::Knowledge;

    #[test]
    fn the_bundled_net_reads_the_terms_of_standard_two_player_fish() {
        let net = learned();
        assert!(Arc::ptr_eq(&net, &learned()), "read once");
        let game = FishGame::dealt(Rules::standard(2).unwrap(), 7);
        net.check(&game).unwrap();
        assert!(net.reads_terms());
        let eval = AutoEval::new(&game, Arc::new(game.default_eval(true, Default::default())));
        assert!(eval.is_learned());
        // Its estimate is the net's, not the hand-written one.
        let s = game.initial_state();
        let own = game
            .default_eval(true, Default::default())
            .evaluate(&game, &s);
        assert_eq!(
            eval.evaluate(&game, &s),
            Evaluate::evaluate(&*net, &game, &s)
        );
        assert_ne!(eval.evaluate(&game, &s), own);
    }

    #[test]
    fn auto_keeps_its_own_evaluation_off_standard_two_player_fish() {
        let dealt = FishGame::dealt(Rules::standard(2).unwrap(), 7);
        // The same board given cell by cell is still standard.
        let given = FishGame::new(*dealt.rules(), dealt.board().clone());
        assert!(given.auto_net().is_some());
        let others = [
            FishGame::dealt(Rules::standard(3).unwrap(), 7),
            FishGame::dealt(
                Rules::new(2, Some(3), Placement::Any, Order::RoundRobin).unwrap(),
                7,
            ),
            FishGame::new(
                *dealt.rules(),
                Board::from_grid(&[vec![1, 2, 3], vec![1, 1, 2], vec![2, 1, 1]]).unwrap(),
            ),
        ];
        for game in others {
            assert!(game.auto_net().is_none(), "{:?}", game.rules());
            let base = Arc::new(game.default_eval(true, Default::default()));
            assert!(!AutoEval::new(&game, base).is_learned());
        }
        let marathon = MarathonGame::variant("marathon").unwrap();
        let base = Arc::new(marathon.default_eval(true, Default::default()));
        assert!(!AutoEval::new(&marathon, base).is_learned());
    }
}
