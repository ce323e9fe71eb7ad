//! Where a call writes ([`Outputs`]: slices the caller owns, one row per env) and the writers
//! of each env's row: its observation, legal actions and player to move, its rewards and
//! flags, and the final observation and returns of a game that ended.

use std::ops::Range;

use super::batch::{Dims, Play, Shared, Slot};
use crate::error::invalid;
use crate::error::Result;
use crate::game::ActionList;
use crate::io::GameIo;
use crate::threads::Disjoint;

/// An integer type for the compact legal actions (`i16` when the action space allows, else
/// `i32`); rows are padded with -1.
pub trait ActionInt: Copy + Send + Sync + 'static {
    /// The padding after a row's legal actions: -1.
    const PAD: Self;
    /// The largest action it holds.
    const MAX: usize;
    /// An action (or a count) that fits.
    fn of(value: usize) -> Self;
}

impl ActionInt for i16 {
    const PAD: i16 = -1;
    const MAX: usize = i16::MAX as usize;
    #[inline]
    fn of(value: usize) -> i16 {
        value as i16
    }
}

impl ActionInt for i32 {
    const PAD: i32 = -1;
    const MAX: usize = i32::MAX as usize;
    #[inline]
    fn of(value: usize) -> i32 {
        value as i32
    }
}

/// Where a step writes, every slice `num_envs` rows long (row `i` is env `i`); the caller
/// passes the same buffers on every call (rows of `final_*` are cleared lazily: the rows of
/// envs that did not end are zero when the buffers are the ones of the previous call).
pub struct Outputs<'a, A> {
    /// `observation` per env: the current game, from the view of the player to move (the
    /// learner in single-agent mode).
    pub observations: &'a mut [f32],
    /// `num_actions` per env. A step clears only the actions the previous call set, so
    /// nothing else may write into it.
    pub legal_mask: &'a mut [bool],
    /// `legal_width` per env: the legal actions ascending, then -1.
    pub legal_actions: &'a mut [A],
    /// One per env.
    pub legal_count: &'a mut [A],
    /// One per env: the player to move.
    pub to_move: &'a mut [i32],
    /// `rewards` per env.
    pub rewards: &'a mut [f32],
    /// One per env: whether its game ended in this step.
    pub terminated: &'a mut [bool],
    /// One per env: always false (no game is cut short).
    pub truncated: &'a mut [bool],
    /// Whether the env's game ended in this step (the rows of `final_*` that hold data).
    pub ended: &'a mut [bool],
    /// `observation` per env: the final position of the game that ended, from the learner's
    /// view in single-agent mode, else player 0's; zeros for envs whose game did not end.
    pub final_observations: &'a mut [f32],
    /// `players` per env: the returns of the game that ended; zeros otherwise.
    pub final_returns: &'a mut [f32],
}

impl<'a, A> Outputs<'a, A> {
    /// Checks every slice's length.
    pub(super) fn check(&self, d: &Dims) -> Result<()> {
        let n = d.num_envs;
        let lens = [
            ("observations", self.observations.len(), n * d.observation),
            ("legal_mask", self.legal_mask.len(), n * d.num_actions),
            ("legal_actions", self.legal_actions.len(), n * d.legal_width),
            ("legal_count", self.legal_count.len(), n),
            ("to_move", self.to_move.len(), n),
            ("rewards", self.rewards.len(), n * d.rewards),
            ("terminated", self.terminated.len(), n),
            ("truncated", self.truncated.len(), n),
            ("ended", self.ended.len(), n),
            (
                "final_observations",
                self.final_observations.len(),
                n * d.observation,
            ),
            ("final_returns", self.final_returns.len(), n * d.players),
        ];
        for (name, len, want) in lens {
            if len != want {
                return invalid!("vector env output {name} has {len} elements, expected {want}");
            }
        }
        Ok(())
    }

    /// The first `k` envs' rows and the rest.
    pub(super) fn split(self, k: usize, d: &Dims) -> (Outputs<'a, A>, Outputs<'a, A>) {
        macro_rules! cut {
            ($($field:ident: $per:expr),*) => {{
                $(let $field = self.$field.split_at_mut(k * $per);)*
                (
                    Outputs { $($field: $field.0),* },
                    Outputs { $($field: $field.1),* },
                )
            }};
        }
        cut!(
            observations: d.observation,
            legal_mask: d.num_actions,
            legal_actions: d.legal_width,
            legal_count: 1,
            to_move: 1,
            rewards: d.rewards,
            terminated: 1,
            truncated: 1,
            ended: 1,
            final_observations: d.observation,
            final_returns: d.players
        )
    }
}

/// [`Outputs`] handed out by rows to the threads of a call.
pub(super) struct Rows<'a, A> {
    observations: Disjoint<'a, f32>,
    legal_mask: Disjoint<'a, bool>,
    legal_actions: Disjoint<'a, A>,
    legal_count: Disjoint<'a, A>,
    to_move: Disjoint<'a, i32>,
    rewards: Disjoint<'a, f32>,
    terminated: Disjoint<'a, bool>,
    truncated: Disjoint<'a, bool>,
    ended: Disjoint<'a, bool>,
    final_observations: Disjoint<'a, f32>,
    final_returns: Disjoint<'a, f32>,
}

impl<'a, A: Send> Rows<'a, A> {
    pub(super) fn new(out: Outputs<'a, A>) -> Rows<'a, A> {
        Rows {
            observations: Disjoint::new(out.observations),
            legal_mask: Disjoint::new(out.legal_mask),
            legal_actions: Disjoint::new(out.legal_actions),
            legal_count: Disjoint::new(out.legal_count),
            to_move: Disjoint::new(out.to_move),
            rewards: Disjoint::new(out.rewards),
            terminated: Disjoint::new(out.terminated),
            truncated: Disjoint::new(out.truncated),
            ended: Disjoint::new(out.ended),
            final_observations: Disjoint::new(out.final_observations),
            final_returns: Disjoint::new(out.final_returns),
        }
    }

    /// The rows of envs `envs`.
    ///
    /// # Safety
    /// No two ranges of envs taken at once may overlap.
    pub(super) unsafe fn take(&self, envs: Range<usize>, d: &Dims) -> Outputs<'a, A> {
        let rows = |per: usize| envs.start * per..envs.end * per;
        // SAFETY: rows of envs that do not overlap do not overlap (the caller's promise).
        unsafe {
            Outputs {
                observations: self.observations.range(rows(d.observation)),
                legal_mask: self.legal_mask.range(rows(d.num_actions)),
                legal_actions: self.legal_actions.range(rows(d.legal_width)),
                legal_count: self.legal_count.range(rows(1)),
                to_move: self.to_move.range(rows(1)),
                rewards: self.rewards.range(rows(d.rewards)),
                terminated: self.terminated.range(rows(1)),
                truncated: self.truncated.range(rows(1)),
                ended: self.ended.range(rows(1)),
                final_observations: self.final_observations.range(rows(d.observation)),
                final_returns: self.final_returns.range(rows(d.players)),
            }
        }
    }
}

impl<G: GameIo> Shared<G> {
    /// Writes env row `j` of `out`: observation, legal actions and the player to move. With
    /// `full`, the whole mask row is cleared; else only the actions the last call set (the
    /// buffers must then be the previous call's).
    pub(super) fn observe<A: ActionInt>(
        &self,
        slot: &mut Slot<G>,
        out: &mut Outputs<'_, A>,
        j: usize,
        full: bool,
    ) {
        let d = &self.dims;
        let play = &slot.play;
        let viewer = self.viewer(play);
        play.game.write_observation(
            &play.state,
            viewer,
            &mut out.observations[j * d.observation..(j + 1) * d.observation],
        );
        let mut actions = ActionList::new();
        play.game.legal_actions(&play.state, &mut actions);
        let mask = &mut out.legal_mask[j * d.num_actions..(j + 1) * d.num_actions];
        if full || !self.incremental {
            mask.fill(false);
        } else {
            for &a in &slot.shown {
                mask[a as usize] = false;
            }
        }
        slot.shown.clear();
        for &a in &actions {
            mask[a as usize] = true;
        }
        if self.incremental {
            slot.shown.extend(actions.iter().map(|&a| a as u16));
        }
        let row = &mut out.legal_actions[j * d.legal_width..(j + 1) * d.legal_width];
        let shown = actions.len().min(d.legal_width);
        debug_assert!(
            actions.len() <= d.legal_width,
            "legal actions beyond the bound"
        );
        for (slot, &a) in row.iter_mut().zip(&actions[..shown]) {
            *slot = A::of(a as usize);
        }
        row[shown..].fill(A::PAD);
        out.legal_count[j] = A::of(actions.len());
        out.to_move[j] = play.game.to_move(&play.state).map_or(-1, |p| p as i32);
    }

    /// Clears the `final_*` rows of env row `j`.
    pub(super) fn clear_final<A>(&self, out: &mut Outputs<'_, A>, j: usize) {
        let d = &self.dims;
        out.final_observations[j * d.observation..(j + 1) * d.observation].fill(0.0);
        out.final_returns[j * d.players..(j + 1) * d.players].fill(0.0);
    }

    /// Writes the `final_*` rows of env row `j`: `play`'s game has just ended.
    pub(super) fn write_final<A>(&self, play: &Play<G>, out: &mut Outputs<'_, A>, j: usize) {
        let d = &self.dims;
        let viewer = if self.single_agent() { play.learner } else { 0 };
        play.game.write_observation(
            &play.state,
            viewer,
            &mut out.final_observations[j * d.observation..(j + 1) * d.observation],
        );
        let returns = play.game.returns(&play.state);
        for (r, &v) in out.final_returns[j * d.players..(j + 1) * d.players]
            .iter_mut()
            .zip(&returns)
        {
            *r = v as f32;
        }
    }

    /// Rewards and flags of env row `j` after a reset or a load.
    pub(super) fn quiet<A>(&self, slot: &mut Slot<G>, out: &mut Outputs<'_, A>, j: usize) {
        let d = &self.dims;
        out.rewards[j * d.rewards..(j + 1) * d.rewards].fill(0.0);
        out.terminated[j] = false;
        out.truncated[j] = false;
        out.ended[j] = false;
        if slot.dirty {
            self.clear_final(out, j);
            slot.dirty = false;
        }
    }
}
