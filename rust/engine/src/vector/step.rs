//! The calls of a [`VectorEnv`]: make it, reset it, step it, load a position. A step is worked
//! out for every env first ([`Advance`]) and only then applied, so that a step stopped or
//! failed halfway changes nothing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::batch::{Advance, Crew, Dims, Play, Shared, Slot, VectorEnv, Work};
use super::opponents::{failed, interrupted, play_opponents};
use super::options::{Learner, Options, Reward, Source};
use super::outputs::{ActionInt, Outputs, Rows};
use super::{game_seed, MAX_ENVS, MAX_THREADS};
use crate::error::invalid;
use crate::error::{Error, Result};
use crate::game::Action;
use crate::io::GameIo;
use crate::rng::splitmix64;
use crate::search::StopFlag;
use crate::threads::Disjoint;

/// Whether every env's work is done and the call may take effect (its flag then committed):
/// else the error of the first env that failed, or `Error::Interrupted` when stopped.
fn settle<T>(work: &mut [Option<Result<T>>], stop: &StopFlag) -> Result<()> {
    if !stop.is_set() {
        let failed = work.iter_mut().find(|w| matches!(w, Some(Err(_))));
        if let Some(Some(Err(e))) = failed.map(Option::take) {
            return Err(e);
        }
    }
    if work.iter().any(|w| !matches!(w, Some(Ok(_)))) || !stop.commit() {
        return Err(interrupted());
    }
    Ok(())
}

impl<G: GameIo> Shared<G> {
    /// Each player's score minus the mean of the others'.
    fn lead(&self, game: &G, state: &G::State, player: usize) -> f64 {
        let n = self.dims.players;
        let score = |p| game.score(state, p).unwrap_or(0.0);
        if n < 2 {
            return score(player);
        }
        let others: f64 = (0..n).filter(|&q| q != player).map(score).sum();
        score(player) - others / (n - 1) as f64
    }

    /// What stepping env `env` with a checked legal `action` does. Changes nothing that
    /// matters: the position is played on a copy, and agents depend only on the position.
    ///
    /// # Errors
    /// `Error::Interrupted` when stopped (an opponent's search was cut short), an opponent's
    /// error naming the env.
    fn advance(
        &self,
        env: usize,
        slot: &mut Slot<G>,
        action: Action,
        stop: &StopFlag,
    ) -> Result<Advance<G>> {
        if stop.is_set() {
            return Err(interrupted());
        }
        let d = &self.dims;
        let play = &mut slot.play;
        let score = self.options.reward == Reward::Score;
        let mut before = [0.0; crate::game::MAX_PLAYERS];
        if score {
            for (p, b) in before.iter_mut().enumerate().take(d.players) {
                *b = self.lead(&play.game, &play.state, p);
            }
        }
        let mut state = play.state;
        play.game.apply(&mut state, action);
        let agent = play.agent.as_deref_mut();
        play_opponents(&*play.game, &mut state, play.learner, agent, stop)
            .map_err(|e| failed(env, e))?;
        let game = &play.game;
        let over = game.is_over(&state);
        // Rewards other than scores are the returns at the end, zero before.
        let returns = if over && !score {
            game.returns(&state)
        } else {
            [0.0; crate::game::MAX_PLAYERS]
        };
        let mut rewards = [0.0; crate::game::MAX_PLAYERS];
        let seats = if self.single_agent() {
            play.learner..play.learner + 1
        } else {
            0..d.players
        };
        for (r, p) in rewards.iter_mut().zip(seats) {
            *r = match (score, over) {
                (true, _) => (self.lead(game, &state, p) - before[p]) as f32,
                (false, true) => returns[p] as f32,
                (false, false) => 0.0,
            };
        }
        let next = if over {
            Some(self.begin(env, play.index + 1, stop)?)
        } else {
            None
        };
        Ok(Advance {
            state,
            rewards,
            over,
            next,
        })
    }

    /// Applies env row `j`'s worked-out step and writes its outputs.
    fn commit<A: ActionInt>(
        &self,
        slot: &mut Slot<G>,
        step: Advance<G>,
        out: &mut Outputs<'_, A>,
        j: usize,
    ) {
        let d = &self.dims;
        out.rewards[j * d.rewards..(j + 1) * d.rewards].copy_from_slice(&step.rewards[..d.rewards]);
        out.terminated[j] = step.over;
        out.truncated[j] = false;
        out.ended[j] = step.over;
        slot.play.state = step.state;
        if step.over {
            self.write_final(&slot.play, out, j);
        } else if slot.dirty {
            self.clear_final(out, j);
        }
        if let Some(next) = step.next {
            slot.play = next;
        }
        slot.dirty = step.over;
        self.observe(slot, out, j, false);
    }
}

impl<G: GameIo> VectorEnv<G> {
    /// `num_envs` envs (1 to [`MAX_ENVS`]) of games from `source`, every game started from
    /// `seed` as [`VectorEnv::reset`] does.
    ///
    /// # Errors
    /// `Error::Invalid` for a bad number of envs or threads, a learner seat the game does not
    /// have, a score reward for a game without scores, a game that is over before its first
    /// move; `Error::Memory` when the envs and their
    /// outputs ([`Dims::bytes_per_env`]) need more memory than is available.
    pub fn new(source: Source<G>, num_envs: usize, seed: u64, options: Options<G>) -> Result<Self> {
        Self::new_or_stop(source, num_envs, seed, options, &StopFlag::new())
    }

    /// As [`VectorEnv::new`], stopped by `stop` (`Error::Interrupted`) while the opponents
    /// play up to the learners' first moves.
    ///
    /// # Errors
    /// As [`VectorEnv::new`], and `Error::Interrupted` when stopped.
    pub fn new_or_stop(
        source: Source<G>,
        num_envs: usize,
        seed: u64,
        options: Options<G>,
        stop: &StopFlag,
    ) -> Result<Self> {
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return invalid!("num_envs = {num_envs}: expected 1 to {MAX_ENVS}");
        }
        if options.threads > MAX_THREADS {
            return invalid!("threads = {}: expected 0 to {MAX_THREADS}", options.threads);
        }
        let sample = source.game(game_seed(seed, 0, 0));
        let players = sample.num_players();
        if let Learner::Seat(p) = options.learner {
            if p >= players {
                return invalid!(
                    "learner = {p}: this game has {players} players (0 to {})",
                    players - 1
                );
            }
        }
        if options.reward == Reward::Score && sample.score(&sample.initial_state(), 0).is_none() {
            return invalid!("reward = \"score\": {} has no score to reward", G::NAME);
        }
        if sample.is_over(&sample.initial_state()) {
            return invalid!(
                "this {} game is over before its first move (a Fish board needs a one-fish floe \
                 for each penguin to place): every step would be refused",
                G::NAME
            );
        }
        let crew = Crew::new(
            crate::batch::resolve_threads(options.threads)?,
            options.opponent.is_some(),
        );
        let dims = Dims {
            num_envs,
            observation: sample.observation_len(),
            observation_shape: sample.observation_shape(),
            num_actions: sample.num_actions(),
            legal_width: sample.max_legal_actions(&sample.initial_state()),
            players,
            rewards: if options.opponent.is_some() {
                1
            } else {
                players
            },
        };
        let per_env = dims.bytes_per_env() + std::mem::size_of::<Slot<G>>();
        crate::batch::check_memory(
            &format!("{num_envs} envs (their states and output buffers)"),
            num_envs.saturating_mul(per_env),
        )?;
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(num_envs)
            .map_err(|_| Error::Memory(format!("cannot allocate {num_envs} envs")))?;
        slots.extend((0..num_envs).map(|_| Slot {
            play: Play {
                game: sample.clone(),
                state: sample.initial_state(),
                index: 0,
                learner: 0,
                agent: None,
            },
            dirty: false,
            shown: Vec::new(),
        }));
        let mut env = VectorEnv {
            shared: Shared {
                source,
                options,
                seed,
                dims,
                incremental: dims.num_actions <= 1 << 16,
            },
            slots,
            crew,
            pending: Vec::new(),
        };
        env.restart(Some(seed), stop)?;
        Ok(env)
    }

    /// Starts a new game in every env: from `seed` (game 0 of each env's stream) when given,
    /// else the next game of each env's stream. All or nothing: when stopped, no env changes.
    fn restart(&mut self, seed: Option<u64>, stop: &StopFlag) -> Result<()> {
        let before = self.shared.seed;
        self.shared.seed = seed.unwrap_or(before);
        let n = self.slots.len();
        let mut next: Vec<Option<Result<Play<G>>>> = Vec::new();
        next.resize_with(n, || None);
        let shared = &self.shared;
        let slots = Disjoint::new(&mut self.slots);
        let cells = Disjoint::new(&mut next);
        self.crew.share(Work::Begin, n, |envs| {
            // SAFETY: the ranges of one call do not overlap.
            let (slots, next) = unsafe { (slots.range(envs.clone()), cells.range(envs.clone())) };
            for ((i, slot), next) in envs.zip(slots).zip(next) {
                let index = if seed.is_some() {
                    0
                } else {
                    slot.play.index + 1
                };
                *next = Some(shared.begin(i, index, stop));
            }
        });
        if let Err(e) = settle(&mut next, stop) {
            self.shared.seed = before;
            return Err(e);
        }
        for (slot, play) in self.slots.iter_mut().zip(next) {
            if let Some(Ok(play)) = play {
                slot.play = play;
                // No longer this position's legal actions (the next write is a full one).
                slot.shown.clear();
            }
        }
        Ok(())
    }

    /// Starts a new game in every env (game 0 of each env's stream from `seed` when given, else
    /// each env's next game) and writes the outputs:
    /// observations, legal actions and players to move; zero rewards, no terminations.
    ///
    /// # Errors
    /// `Error::Invalid` when an output has the wrong length.
    pub fn reset<A: ActionInt>(&mut self, seed: Option<u64>, out: Outputs<'_, A>) -> Result<()> {
        self.reset_or_stop(seed, out, &StopFlag::new())
    }

    /// As [`VectorEnv::reset`], stopped by `stop` while the opponents play: then
    /// `Error::Interrupted`, and no env and no output has changed.
    ///
    /// # Errors
    /// As [`VectorEnv::reset`], and `Error::Interrupted` when stopped.
    pub fn reset_or_stop<A: ActionInt>(
        &mut self,
        seed: Option<u64>,
        out: Outputs<'_, A>,
        stop: &StopFlag,
    ) -> Result<()> {
        out.check(&self.shared.dims)?;
        self.restart(seed, stop)?;
        self.observe(out)
    }

    /// Writes the outputs of the current games without changing them (as after a reset).
    ///
    /// # Errors
    /// `Error::Invalid` when an output has the wrong length.
    pub fn observe<A: ActionInt>(&mut self, out: Outputs<'_, A>) -> Result<()> {
        out.check(&self.shared.dims)?;
        self.check_width::<A>()?;
        let n = self.slots.len();
        let shared = &self.shared;
        let slots = Disjoint::new(&mut self.slots);
        let rows = Rows::new(out);
        self.crew.share(Work::Step, n, |envs| {
            // SAFETY: the ranges of one call do not overlap.
            let (slots, mut out) =
                unsafe { (slots.range(envs.clone()), rows.take(envs, &shared.dims)) };
            for (j, slot) in slots.iter_mut().enumerate() {
                shared.quiet(slot, &mut out, j);
                shared.observe(slot, &mut out, j, true);
            }
        });
        Ok(())
    }

    fn check_width<A: ActionInt>(&self) -> Result<()> {
        if self.shared.dims.num_actions > A::MAX + 1 {
            return invalid!(
                "{} actions do not fit the compact legal actions' integer type",
                self.shared.dims.num_actions
            );
        }
        Ok(())
    }

    /// The first env whose action is not legal, with the engine's error prefixed by the env.
    fn check_actions(&mut self, actions: &[i64]) -> Result<()> {
        let n = self.slots.len();
        if actions.len() != n {
            return invalid!("expected {n} actions (one per env), got {}", actions.len());
        }
        let num_actions = self.shared.dims.num_actions;
        let slots = &self.slots;
        let legal = |i: usize| {
            let a = actions[i];
            (0..num_actions as i64).contains(&a) && {
                let slot = &slots[i];
                let play = &slot.play;
                // The actions shown are the position's legal actions: a look-up, not a move
                // generation (none are kept before the first write or past `u16`).
                if slot.shown.is_empty() {
                    play.game.is_legal(&play.state, a as Action)
                } else {
                    let shown = slot.shown.contains(&(a as u16));
                    debug_assert_eq!(shown, play.game.is_legal(&play.state, a as Action));
                    shown
                }
            }
        };
        // Shared out when the step is: each thread checks the envs it then steps.
        let first = AtomicUsize::new(n);
        let like = if self.shared.single_agent() {
            Work::Opponents
        } else {
            Work::Step
        };
        self.crew.share_like(Work::Check, like, n, |envs| {
            if let Some(i) = envs.into_iter().find(|&i| !legal(i)) {
                first.fetch_min(i, Ordering::Relaxed);
            }
        });
        let i = first.into_inner();
        if i == n {
            return Ok(());
        }
        let a = actions[i];
        if !(0..num_actions as i64).contains(&a) {
            return Err(Error::Parse(format!(
                "env {i}: action {a} is not in the action space (0 to {}); no env was stepped",
                num_actions - 1
            )));
        }
        let play = &self.slots[i].play;
        Err(match play.game.check_action(&play.state, a as Action) {
            Err(Error::Parse(m)) => Error::Parse(format!(
                "env {i}: action {a} is not a move ({m}); no env was stepped"
            )),
            Err(e) => Error::IllegalMove(format!(
                "env {i}: action {a} is illegal ({e}); no env was stepped"
            )),
            Ok(()) => Error::IllegalMove(format!(
                "env {i}: action {a} is illegal; no env was stepped"
            )),
        })
    }

    /// Plays `actions[i]` in env `i` for every env, resets the games that end (same-step
    /// autoreset, see the module docs) and writes the outputs.
    ///
    /// # Errors
    /// Before any env changes: `Error::Parse` for an action outside the action space (or one
    /// that denotes no move), `Error::IllegalMove` for an action the rules forbid, each naming
    /// the first such env and its action; `Error::Invalid` for outputs of the wrong length.
    pub fn step<A: ActionInt>(&mut self, actions: &[i64], out: Outputs<'_, A>) -> Result<()> {
        self.step_or_stop(actions, out, &StopFlag::new())
    }

    /// As [`VectorEnv::step`], stopped by `stop` while the opponents search: then
    /// `Error::Interrupted`, and no env and no output has changed (a step is all or nothing;
    /// the flag is committed otherwise, see [`StopFlag::commit`]).
    ///
    /// # Errors
    /// As [`VectorEnv::step`], and `Error::Interrupted` when stopped.
    pub fn step_or_stop<A: ActionInt>(
        &mut self,
        actions: &[i64],
        out: Outputs<'_, A>,
        stop: &StopFlag,
    ) -> Result<()> {
        out.check(&self.shared.dims)?;
        self.check_width::<A>()?;
        self.check_actions(actions)?;
        let n = self.slots.len();
        let shared = &self.shared;
        let slots = Disjoint::new(&mut self.slots);
        let rows = Rows::new(out);
        let commit = |envs: std::ops::Range<usize>, steps: &mut [Option<Result<Advance<G>>>]| {
            // SAFETY: the ranges of one call do not overlap.
            let (slots, mut out) =
                unsafe { (slots.range(envs.clone()), rows.take(envs, &shared.dims)) };
            for (j, (slot, step)) in slots.iter_mut().zip(steps).enumerate() {
                // Every step was worked out (`settle`).
                if let Some(Ok(step)) = step.take() {
                    shared.commit(slot, step, &mut out, j);
                }
            }
        };
        if !shared.single_agent() {
            // Without opponents nothing can stop or fail a step once its actions are checked:
            // each env is worked out and applied at once, in one hand-out to the threads.
            if !stop.commit() {
                return Err(interrupted());
            }
            self.crew.share(Work::Step, n, |envs| {
                // SAFETY: the ranges of one call do not overlap.
                let (slots, mut out) = unsafe {
                    (
                        slots.range(envs.clone()),
                        rows.take(envs.clone(), &shared.dims),
                    )
                };
                for (j, (i, slot)) in envs.zip(slots).enumerate() {
                    // The flag is committed and no opponent can fail: this is always `Ok`.
                    if let Ok(step) = shared.advance(i, slot, actions[i] as Action, stop) {
                        shared.commit(slot, step, &mut out, j);
                    }
                }
            });
            return Ok(());
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        pending.resize_with(n, || None);
        let cells = Disjoint::new(&mut pending);
        self.crew.share(Work::Opponents, n, |envs| {
            // SAFETY: the ranges of one call do not overlap.
            let (slots, cells) = unsafe { (slots.range(envs.clone()), cells.range(envs.clone())) };
            for ((i, slot), p) in envs.zip(slots).zip(cells) {
                *p = Some(shared.advance(i, slot, actions[i] as Action, stop));
            }
        });
        if let Err(e) = settle(&mut pending, stop) {
            pending.clear();
            self.pending = pending;
            return Err(e);
        }
        let cells = Disjoint::new(&mut pending);
        self.crew.share(Work::Step, n, |envs| {
            // SAFETY: the ranges of one call do not overlap.
            commit(envs.clone(), unsafe { cells.range(envs) });
        });
        self.pending = pending;
        Ok(())
    }

    /// Loads `state` of `game` into env `i` (its current game goes on from there) and writes
    /// its row of `out` (which must be the buffers of the previous call).
    ///
    /// # Errors
    /// `Error::Invalid` when `i` is out of range, the game differs in shape from this env's,
    /// the game is over, the learner is not to move (single-agent mode), or the position may
    /// have more legal actions than the compact rows hold.
    pub fn set_state<A: ActionInt>(
        &mut self,
        i: usize,
        game: Arc<G>,
        state: G::State,
        out: Outputs<'_, A>,
    ) -> Result<()> {
        out.check(&self.shared.dims)?;
        let n = self.slots.len();
        if i >= n {
            return invalid!("env {i}: there are {n} envs");
        }
        let shared = &self.shared;
        let slot = &mut self.slots[i];
        if !slot.play.game.same_shape(&game) {
            return invalid!("env {i}: the state is of another game (rules, size or players)");
        }
        let Some(p) = game.to_move(&state) else {
            return invalid!("env {i}: cannot load a finished game");
        };
        if shared.single_agent() && p != slot.play.learner {
            return invalid!(
                "env {i}: the learner (player {}) must be to move, not player {p}",
                slot.play.learner
            );
        }
        if game.max_legal_actions(&state) > shared.dims.legal_width {
            return invalid!(
                "env {i}: the position may have more legal actions than this env's rows hold ({})",
                shared.dims.legal_width
            );
        }
        if let Some(make) = &shared.options.opponent {
            let seed = game_seed(shared.seed, i, slot.play.index);
            if !Arc::ptr_eq(&slot.play.game, &game) {
                slot.play.agent = Some(make(&game, splitmix64(seed ^ 0x6C6F_6164)));
            }
        }
        slot.play.game = game;
        slot.play.state = state;
        let (_, rest) = out.split(i, &shared.dims);
        let (mut row, _) = rest.split(1, &shared.dims);
        shared.quiet(slot, &mut row, 0);
        shared.observe(slot, &mut row, 0, true);
        Ok(())
    }
}
