//! A vector environment: `num_envs` games of one game stepped together, for learning code.
//!
//! [`VectorEnv`] holds one game (an `Arc<G>`, shared, or dealt anew for each game by a
//! [`Source::Deal`] closure, as Fish deals a standard board per game) and one state per env, and
//! steps them all in one call: each env plays its action, games that end are reset at once, and
//! every output (observations, legal-action masks, compact legal actions, the player to move,
//! rewards, terminations, final observations and returns) is written into slices the caller
//! owns and passes in again on the next call ([`Outputs`]). The work is split over a rayon pool
//! of `threads` built once per env; the results do not depend on `threads`.
//!
//! # Autoreset: Gymnasium's "same-step" mode
//!
//! The step that ends a game returns that game's rewards and `terminated = true` (and
//! `ended = true`), its final observation and returns in [`Outputs::final_observations`] and
//! [`Outputs::final_returns`], and, in every other output, the *new* game of that env (its
//! observation, legal actions and player to move). So every observation returned is one in
//! which somebody has to move, and every step's actions are legal in the observations of the
//! previous step. Nothing is ever truncated: Marathon's ply limit is a rule of the game (a
//! draw), visible in its observation.
//!
//! # Seeds
//!
//! Game `k` (counted from 0 since the last seeded reset) of env `i` is made from
//! [`game_seed`]`(seed, i, k)`: for Fish dealing a board per game that is the seed of
//! `Board::standard` (the same board as `Fish.new_state(seed=...)` in Python), and it also seeds
//! the learner's seat when drawn at random and the built-in opponent of that game. A `seed`
//! thus reproduces every game exactly, whatever the number of threads.
//!
//! # Single-agent mode
//!
//! With an opponent ([`Options::opponent`]) one seat per env is the learner's, and every other
//! seat is played inside the step by a built-in [`Agent`] (for example [`SearchAgent`]); one
//! step is then one decision of the learner, observations are from the learner's view and
//! rewards are the learner's alone (one per env).

use std::sync::Arc;

use rayon::prelude::*;

use crate::error::invalid;
use crate::error::{Error, Result};
use crate::game::{Action, ActionList, Game};
use crate::io::GameIo;
use crate::net::Mlp;
use crate::rng::{splitmix64, Rng};
use crate::search::alphabeta::AlphaBetaConfig;
use crate::search::forest::Forest;
use crate::search::mcts::MctsConfig;
use crate::search::puct::{PuctConfig, PuctTree};
use crate::search::{Budget, Choice, Evaluate, Knowledge, Playout, Searcher, StopFlag};
use crate::threads::KeptPool;

/// The most envs one [`VectorEnv`] holds.
pub const MAX_ENVS: usize = 1 << 24;

/// The most threads a [`VectorEnv`] uses.
pub const MAX_THREADS: usize = 256;

/// The seed of game `game` of env `env` in a vector env seeded with `seed`.
pub fn game_seed(seed: u64, env: usize, game: u64) -> u64 {
    Rng::for_item(Rng::for_item(seed, env as u64).next_u64(), game).next_u64()
}

/// A built-in player for the seats the learner does not play.
pub trait Agent<G: Game>: Send + Sync {
    /// The action to play in `state` (a game that is not over), or `None` when `stop` was set
    /// before it was found. It must depend on `state` alone (not on earlier calls), so that a
    /// step abandoned halfway can be played again with the same result.
    fn act(&mut self, game: &G, state: &G::State, stop: &StopFlag) -> Option<Action>;
}

/// Makes the agent of one game from the game and a seed.
pub type AgentMaker<G> = Arc<dyn Fn(&Arc<G>, u64) -> Box<dyn Agent<G>> + Send + Sync>;

/// An engine [`Searcher`] as an agent: random, greedy (one ply by the evaluator's order hints)
/// or MCTS with a fixed iteration budget, on one thread, seeded: deterministic (each move's
/// randomness comes from the seed and the position).
pub struct SearchAgent<G: Game, E> {
    searcher: Searcher<G::State>,
    eval: Arc<E>,
    budget: Budget,
    seed: u64,
}

impl<G: Game, E: Evaluate<G>> SearchAgent<G, E> {
    /// An agent playing `choice` within `budget` (MCTS needs an iteration budget to be
    /// deterministic, alpha-beta a depth or node budget).
    pub fn new(choice: Choice, budget: Budget, eval: Arc<E>, seed: u64) -> Self {
        SearchAgent {
            searcher: Searcher::new(
                choice,
                MctsConfig {
                    threads: 1,
                    reuse: false,
                    seed,
                    ..MctsConfig::default()
                },
                AlphaBetaConfig {
                    tt_mb: crate::search::agent::TT_MB,
                    threads: 1,
                    ..AlphaBetaConfig::default()
                },
            ),
            eval,
            budget,
            seed,
        }
    }

    /// The maker of such agents for every game, the evaluation made per game by `eval`.
    pub fn maker(
        choice: Choice,
        budget: Budget,
        eval: impl Fn(&Arc<G>) -> Arc<E> + Send + Sync + 'static,
    ) -> AgentMaker<G>
    where
        G: 'static,
        E: 'static,
    {
        Arc::new(move |game: &Arc<G>, seed: u64| {
            Box::new(SearchAgent::new(choice, budget, eval(game), seed)) as Box<dyn Agent<G>>
        })
    }
}

impl<G: Game, E: Evaluate<G>> Agent<G> for SearchAgent<G, E> {
    fn act(&mut self, game: &G, state: &G::State, stop: &StopFlag) -> Option<Action> {
        self.searcher
            .reseed(splitmix64(self.seed ^ game.hash(state)));
        // A move must depend on the position alone: no table kept from earlier moves.
        if self.searcher.choice == Choice::AlphaBeta {
            self.searcher.clear();
        }
        let r = self
            .searcher
            .search(game, &*self.eval, state, &self.budget, stop.clone())
            .expect("a search of a game that is not over, within a checked budget");
        (!r.interrupted && !stop.is_set()).then_some(r.best)
    }
}

/// PUCT with a net ([`Mlp`]) as an agent: a fresh tree for every move (a move depends on the
/// position alone), within a fixed iteration budget, on one thread, seeded from the position.
pub struct NetAgent<G: Game, E> {
    game: Arc<G>,
    eval: Arc<E>,
    net: Arc<Mlp>,
    config: PuctConfig,
    budget: Budget,
    seed: u64,
}

impl<G: GameIo + 'static, E: Evaluate<G> + 'static> NetAgent<G, E> {
    /// The maker of such agents for every game: PUCT with `config` and `net` (which must fit
    /// the games: [`crate::net::Fits::check`]), the game's evaluation (exact leaves, pruning)
    /// made per game by `eval`.
    pub fn maker(
        net: Arc<Mlp>,
        config: PuctConfig,
        budget: Budget,
        eval: impl Fn(&Arc<G>) -> Arc<E> + Send + Sync + 'static,
    ) -> AgentMaker<G> {
        Arc::new(move |game: &Arc<G>, seed: u64| {
            Box::new(NetAgent {
                game: game.clone(),
                eval: eval(game),
                net: net.clone(),
                config,
                budget,
                seed,
            }) as Box<dyn Agent<G>>
        })
    }
}

impl<G: GameIo, E: Evaluate<G>> Agent<G> for NetAgent<G, E> {
    fn act(&mut self, game: &G, state: &G::State, stop: &StopFlag) -> Option<Action> {
        let seed = splitmix64(self.seed ^ game.hash(state));
        let tree = PuctTree::new(self.game.clone(), self.eval.clone(), self.config, seed);
        let mut forest = Forest::new(vec![tree]).expect("one tree");
        let r = crate::search::forest::run(
            &mut forest,
            &[*state],
            &self.budget,
            stop.clone(),
            &mut &*self.net,
        )
        .expect("a search of a game that is not over, within a checked budget")
        .pop()
        .expect("one result");
        (!r.interrupted && !stop.is_set()).then_some(r.best)
    }
}

/// Where each game's rules (and board) come from.
pub enum Source<G> {
    /// The same game for every env and every game.
    Fixed(Arc<G>),
    /// A game per new game, from its seed (Fish dealing a standard board).
    Deal(Arc<dyn Fn(u64) -> Arc<G> + Send + Sync>),
}

impl<G> Clone for Source<G> {
    fn clone(&self) -> Self {
        match self {
            Source::Fixed(g) => Source::Fixed(g.clone()),
            Source::Deal(deal) => Source::Deal(deal.clone()),
        }
    }
}

impl<G> Source<G> {
    /// The game made from `seed`.
    pub fn game(&self, seed: u64) -> Arc<G> {
        match self {
            Source::Fixed(g) => g.clone(),
            Source::Deal(deal) => deal(seed),
        }
    }
}

/// The evaluation of each game of a source: built once for a fixed game.
pub type Evals<G, E> = Arc<dyn Fn(&Arc<G>) -> Arc<E> + Send + Sync>;

impl<G: Knowledge + 'static> Source<G> {
    /// [`Knowledge::default_eval`] of each game of this source (with the game's playouts).
    pub fn default_evals(&self, knowledge: bool) -> Evals<G, G::Eval> {
        match self {
            Source::Fixed(g) => {
                let eval = Arc::new(g.default_eval(knowledge, Playout::Auto));
                Arc::new(move |_| eval.clone())
            }
            Source::Deal(_) => {
                Arc::new(move |g| Arc::new(g.default_eval(knowledge, Playout::Auto)))
            }
        }
    }
}

/// What a step rewards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// [`Game::returns`] on the step a game ends, 0 otherwise (zero-sum).
    Returns,
    /// The change over the step of each player's score minus the mean score of the others
    /// (Fish: fish collected). Zero-sum; over a game the rewards add up to the final fish
    /// difference (the game's returns are in the final returns).
    Score,
}

crate::names::named_enum!(Reward {
    Returns => "returns",
    Score => "score",
});

/// Which seat the learner plays in single-agent mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learner {
    /// This seat in every game.
    Seat(usize),
    /// A seat drawn per game from the game's seed.
    Random,
}

/// Settings of a [`VectorEnv`].
#[derive(Clone)]
pub struct Options<G> {
    /// Threads for a step; 0 for every core.
    pub threads: usize,
    /// What a step rewards.
    pub reward: Reward,
    /// Single-agent mode: the agent playing every seat but the learner's.
    pub opponent: Option<AgentMaker<G>>,
    /// The learner's seat in single-agent mode.
    pub learner: Learner,
}

impl<G> Default for Options<G> {
    fn default() -> Self {
        Options {
            threads: 1,
            reward: Reward::Returns,
            opponent: None,
            learner: Learner::Seat(0),
        }
    }
}

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

/// The sizes of one env's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Envs in the vector env.
    pub num_envs: usize,
    /// `f32`s per observation.
    pub observation: usize,
    /// `(planes, rows, cols)` of one observation.
    pub observation_shape: [usize; 3],
    /// Size of the action space (of one mask row).
    pub num_actions: usize,
    /// Width of the compact legal-action rows.
    pub legal_width: usize,
    /// Players of the game.
    pub players: usize,
    /// Rewards per env: `players`, or 1 in single-agent mode.
    pub rewards: usize,
}

impl Dims {
    /// The bytes of one env's rows of every output (observations twice: current and final).
    pub fn bytes_per_env(&self) -> usize {
        let f32s = 2 * self.observation + self.rewards + self.players;
        let action_int = if self.num_actions <= i16::MAX as usize + 1 {
            2
        } else {
            4
        };
        f32s * 4 + self.num_actions + (self.legal_width + 1) * action_int + 4 + 3
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
    fn check(&self, d: &Dims) -> Result<()> {
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
    fn split(self, k: usize, d: &Dims) -> (Outputs<'a, A>, Outputs<'a, A>) {
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

/// One game of an env: its rules and position, its number and who plays which seat.
struct Play<G: Game> {
    game: Arc<G>,
    state: G::State,
    /// The number of the current game since the last seeded reset.
    index: u64,
    learner: usize,
    agent: Option<Box<dyn Agent<G>>>,
}

/// One env: its game, and what the step needs to remember.
struct Slot<G: Game> {
    play: Play<G>,
    /// The `final_*` rows hold the previous step's data (cleared on the next step).
    dirty: bool,
    /// The actions set in the mask row by the last step, cleared by the next one (so that the
    /// step does not clear the whole row); `None` after a full write.
    shown: Vec<u16>,
}

/// What one env's step will do, worked out before any env changes (so that a step stopped
/// halfway changes nothing).
struct Advance<G: Game> {
    /// The position after the action and the opponents' replies (the final one when over).
    state: G::State,
    rewards: [f32; crate::game::MAX_PLAYERS],
    over: bool,
    /// When over: the env's next game.
    next: Option<Play<G>>,
}

/// Everything but the slots, shared read-only by the threads of a step.
struct Shared<G: Game> {
    source: Source<G>,
    options: Options<G>,
    seed: u64,
    dims: Dims,
    /// Mask rows are cleared action by action (every action fits a `u16`).
    incremental: bool,
}

/// `num_envs` games stepped together; see the module docs.
pub struct VectorEnv<G: GameIo> {
    shared: Shared<G>,
    slots: Vec<Slot<G>>,
    /// The pool of `options.threads` threads (none for one), kept and built again after a fork.
    pool: KeptPool,
    /// The worked-out steps of a step call (kept for its allocation).
    pending: Vec<Option<Advance<G>>>,
}

/// The error of a call stopped by its flag.
fn interrupted() -> Error {
    Error::Interrupted("the vector env call was interrupted; no env changed".into())
}

/// Fewer envs than this are stepped on the calling thread: waking the pool costs more.
const PARALLEL_MIN: usize = 64;

/// A game that keeps ending before the learner's first move is skipped, at most this many times
/// in a row.
const MAX_SKIPPED: usize = 64;

impl<G: GameIo> Shared<G> {
    fn single_agent(&self) -> bool {
        self.options.opponent.is_some()
    }

    /// Game `first` of env `env` (or the next that does not end before the learner's first
    /// move), the opponents played up to the learner's first move; `None` when stopped.
    fn begin(&self, env: usize, first: u64, stop: &StopFlag) -> Option<Play<G>> {
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

    /// The player whose view observations take.
    fn viewer(&self, play: &Play<G>) -> usize {
        if self.single_agent() {
            play.learner
        } else {
            play.game.to_move(&play.state).unwrap_or(0)
        }
    }

    /// Writes env row `j` of `out`: observation, legal actions and the player to move. With
    /// `full`, the whole mask row is cleared; else only the actions the last call set (the
    /// buffers must then be the previous call's).
    fn observe<A: ActionInt>(
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
    fn clear_final<A>(&self, out: &mut Outputs<'_, A>, j: usize) {
        let d = &self.dims;
        out.final_observations[j * d.observation..(j + 1) * d.observation].fill(0.0);
        out.final_returns[j * d.players..(j + 1) * d.players].fill(0.0);
    }

    /// What stepping env `env` with a checked legal `action` does; `None` when stopped (an
    /// opponent's search was cut short). Changes nothing that matters: agents depend only on
    /// the position.
    fn advance(
        &self,
        env: usize,
        slot: &mut Slot<G>,
        action: Action,
        stop: &StopFlag,
    ) -> Option<Advance<G>> {
        if stop.is_set() {
            return None;
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
        let start = play.state;
        play.game.apply(&mut play.state, action);
        let replied = play_opponents(play, stop);
        let state = std::mem::replace(&mut play.state, start);
        replied?;
        let game = &play.game;
        let over = game.is_over(&state);
        let returns = game.returns(&state);
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
        Some(Advance {
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
            let play = &slot.play;
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
        } else if slot.dirty {
            self.clear_final(out, j);
        }
        if let Some(next) = step.next {
            slot.play = next;
        }
        slot.dirty = step.over;
        self.observe(slot, out, j, false);
    }

    /// Rewards and flags of env row `j` after a reset or a load.
    fn quiet<A>(&self, slot: &mut Slot<G>, out: &mut Outputs<'_, A>, j: usize) {
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

/// Single-agent mode: the opponents move until the learner is to move or the game is over;
/// `None` when stopped (the position is then partly played).
fn play_opponents<G: Game>(play: &mut Play<G>, stop: &StopFlag) -> Option<()> {
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

/// Runs `f` on every slot and its entry of `pending` (on the pool when there is one and the
/// envs are many).
fn each_slot<G: Game, T: Send>(
    pool: Option<&rayon::ThreadPool>,
    slots: &mut [Slot<G>],
    pending: &mut [T],
    f: impl Fn(usize, &mut Slot<G>, &mut T) + Sync,
) {
    let work = |(i, (slot, p)): (usize, (&mut Slot<G>, &mut T))| f(i, slot, p);
    match pool.filter(|_| slots.len() >= PARALLEL_MIN) {
        None => slots.iter_mut().zip(pending).enumerate().for_each(work),
        Some(pool) => pool.install(|| {
            slots
                .par_iter_mut()
                .zip(pending.par_iter_mut())
                .enumerate()
                .for_each(work)
        }),
    }
}

impl<G: GameIo> VectorEnv<G> {
    /// `num_envs` envs (1 to [`MAX_ENVS`]) of games from `source`, every game started from
    /// `seed` as [`VectorEnv::reset`] does.
    ///
    /// # Errors
    /// `Error::Invalid` for a bad number of envs or threads, a learner seat the game does not
    /// have, a score reward for a game without scores, a game that is over before its first
    /// move, or threads that cannot be started; `Error::Memory` when the envs and their
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
        let mut pool = KeptPool::new("pingvinas-vector");
        if options.threads > 1 {
            pool.get(options.threads)?;
        }
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
            pool,
            pending: Vec::new(),
        };
        env.restart(Some(seed), stop)?;
        Ok(env)
    }

    /// The sizes of every output row.
    pub fn dims(&self) -> &Dims {
        &self.shared.dims
    }

    /// The number of envs.
    pub fn num_envs(&self) -> usize {
        self.slots.len()
    }

    /// The seed of the current game stream (the last seeded reset's).
    pub fn seed(&self) -> u64 {
        self.shared.seed
    }

    /// The game of env `i` (for Fish, with this game's board).
    pub fn game(&self, i: usize) -> &Arc<G> {
        &self.slots[i].play.game
    }

    /// The state of env `i`.
    pub fn state(&self, i: usize) -> &G::State {
        &self.slots[i].play.state
    }

    /// The number of env `i`'s current game since the last seeded reset.
    pub fn game_index(&self, i: usize) -> u64 {
        self.slots[i].play.index
    }

    /// The learner's seat in env `i` (single-agent mode).
    pub fn learner(&self, i: usize) -> usize {
        self.slots[i].play.learner
    }

    /// The pool, or none for one thread. A pool that cannot be started again (in a forked
    /// process) leaves the work to the calling thread rather than failing the call.
    fn pool(&mut self) -> Option<Arc<rayon::ThreadPool>> {
        let threads = self.shared.options.threads;
        (threads > 1).then(|| self.pool.get(threads).ok()).flatten()
    }

    /// Runs `f(first env, slots, their entries of extra, outputs)` over chunks of envs, on the
    /// pool when there is one.
    fn chunks<A: ActionInt, T: Send>(
        &mut self,
        out: Outputs<'_, A>,
        extra: &mut [T],
        f: impl Fn(&Shared<G>, usize, &mut [Slot<G>], &mut [T], Outputs<'_, A>) + Sync,
    ) {
        let n = self.slots.len();
        let pool = self.pool().filter(|_| n >= PARALLEL_MIN);
        let threads = pool.as_ref().map_or(1, |p| p.current_num_threads()).max(1);
        // Several chunks per thread balance the load; each is big enough to be worth a task.
        let size = if threads == 1 {
            n
        } else {
            n.div_ceil(threads * 4).max(8)
        };
        let shared = &self.shared;
        let mut outs = Vec::with_capacity(n.div_ceil(size));
        let mut rest = out;
        let mut start = 0;
        while start < n {
            let k = size.min(n - start);
            let (head, tail) = rest.split(k, &shared.dims);
            outs.push((start, head));
            rest = tail;
            start += k;
        }
        match pool {
            None => {
                let chunks = self.slots.chunks_mut(size).zip(extra.chunks_mut(size));
                for ((slots, extra), (first, out)) in chunks.zip(outs) {
                    f(shared, first, slots, extra, out);
                }
            }
            Some(pool) => {
                let slots = &mut self.slots;
                pool.install(|| {
                    slots
                        .par_chunks_mut(size)
                        .zip(extra.par_chunks_mut(size))
                        .zip(outs.into_par_iter())
                        .for_each(|((slots, extra), (first, out))| {
                            f(shared, first, slots, extra, out)
                        });
                });
            }
        }
    }

    /// Starts a new game in every env: from `seed` (game 0 of each env's stream) when given,
    /// else the next game of each env's stream. All or nothing: when stopped, no env changes.
    fn restart(&mut self, seed: Option<u64>, stop: &StopFlag) -> Result<()> {
        let before = self.shared.seed;
        self.shared.seed = seed.unwrap_or(before);
        let mut next: Vec<Option<Play<G>>> = Vec::new();
        next.resize_with(self.slots.len(), || None);
        let pool = self.pool();
        let shared = &self.shared;
        each_slot(
            pool.as_deref(),
            &mut self.slots,
            &mut next,
            |i, slot, next| {
                let index = if seed.is_some() {
                    0
                } else {
                    slot.play.index + 1
                };
                *next = shared.begin(i, index, stop);
            },
        );
        if next.iter().any(Option::is_none) || !stop.commit() {
            self.shared.seed = before;
            return Err(interrupted());
        }
        for (slot, play) in self.slots.iter_mut().zip(next) {
            slot.play = play.expect("checked above");
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
        let mut none = vec![(); self.slots.len()];
        self.chunks(out, &mut none, |shared, _first, slots, _, mut out| {
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
        let pool = self.pool().filter(|_| n >= PARALLEL_MIN);
        if actions.len() != n {
            return invalid!("expected {n} actions (one per env), got {}", actions.len());
        }
        let num_actions = self.shared.dims.num_actions;
        let legal = |i: usize| {
            let a = actions[i];
            (0..num_actions as i64).contains(&a) && {
                let play = &self.slots[i].play;
                play.game.is_legal(&play.state, a as Action)
            }
        };
        let bad = match pool {
            None => (0..n).find(|&i| !legal(i)),
            Some(pool) => pool.install(|| (0..n).into_par_iter().find_first(|&i| !legal(i))),
        };
        let Some(i) = bad else {
            return Ok(());
        };
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
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        pending.resize_with(self.slots.len(), || None);
        let pool = self.pool();
        let shared = &self.shared;
        each_slot(
            pool.as_deref(),
            &mut self.slots,
            &mut pending,
            |i, slot, p| {
                *p = shared.advance(i, slot, actions[i] as Action, stop);
            },
        );
        if pending.iter().any(Option::is_none) || !stop.commit() {
            pending.clear();
            self.pending = pending;
            return Err(interrupted());
        }
        self.chunks(
            out,
            &mut pending,
            |shared, _first, slots, steps, mut out| {
                for (j, (slot, step)) in slots.iter_mut().zip(steps).enumerate() {
                    let step = step.take().expect("one worked-out step per env");
                    shared.commit(slot, step, &mut out, j);
                }
            },
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::{Board, FishGame, Order, Phase, Placement, Rules};
    use crate::marathon::Marathon;
    use crate::search::NoEval;

    /// Owned output buffers.
    struct Bufs {
        obs: Vec<f32>,
        mask: Vec<bool>,
        legal: Vec<i16>,
        count: Vec<i16>,
        to_move: Vec<i32>,
        rewards: Vec<f32>,
        term: Vec<bool>,
        trunc: Vec<bool>,
        ended: Vec<bool>,
        final_obs: Vec<f32>,
        final_returns: Vec<f32>,
    }

    impl Bufs {
        fn new(d: &Dims) -> Bufs {
            let n = d.num_envs;
            Bufs {
                obs: vec![0.0; n * d.observation],
                mask: vec![false; n * d.num_actions],
                legal: vec![0; n * d.legal_width],
                count: vec![0; n],
                to_move: vec![0; n],
                rewards: vec![0.0; n * d.rewards],
                term: vec![false; n],
                trunc: vec![false; n],
                ended: vec![false; n],
                final_obs: vec![0.0; n * d.observation],
                final_returns: vec![0.0; n * d.players],
            }
        }

        fn out(&mut self) -> Outputs<'_, i16> {
            Outputs {
                observations: &mut self.obs,
                legal_mask: &mut self.mask,
                legal_actions: &mut self.legal,
                legal_count: &mut self.count,
                to_move: &mut self.to_move,
                rewards: &mut self.rewards,
                terminated: &mut self.term,
                truncated: &mut self.trunc,
                ended: &mut self.ended,
                final_observations: &mut self.final_obs,
                final_returns: &mut self.final_returns,
            }
        }

        /// A random legal action per env, from the compact rows.
        fn random_actions(&self, d: &Dims, rng: &mut Rng) -> Vec<i64> {
            (0..d.num_envs)
                .map(|i| {
                    let c = self.count[i] as usize;
                    self.legal[i * d.legal_width + rng.below(c)] as i64
                })
                .collect()
        }
    }

    fn fish_source(players: usize) -> Source<FishGame> {
        let rules = Rules::new(players, None, Placement::OneFish, Order::RoundRobin).unwrap();
        Source::Deal(Arc::new(move |seed| Arc::new(FishGame::dealt(rules, seed))))
    }

    /// Steps `env` with random actions and checks every env against its own state stepped
    /// alone, with autoreset from the documented seeds.
    fn differential<G: GameIo>(mut env: VectorEnv<G>, source: Source<G>, steps: usize) {
        let d = *env.dims();
        let mut bufs = Bufs::new(&d);
        env.reset(Some(5), bufs.out()).unwrap();
        let mut mine: Vec<(Arc<G>, G::State, u64)> = (0..d.num_envs)
            .map(|i| {
                let g = source.game(game_seed(5, i, 0));
                let s = g.initial_state();
                (g, s, 0)
            })
            .collect();
        let mut rng = Rng::new(9);
        let mut ended = 0;
        let mut obs = vec![0.0; d.observation];
        for _ in 0..steps {
            for (i, (g, s, _)) in mine.iter().enumerate() {
                assert_eq!(env.state(i), s);
                assert!(**env.game(i) == **g);
                let p = g.to_move(s).unwrap();
                g.write_observation(s, p, &mut obs);
                assert_eq!(
                    &bufs.obs[i * d.observation..(i + 1) * d.observation],
                    &obs[..]
                );
                let mut list = ActionList::new();
                g.legal_actions(s, &mut list);
                assert_eq!(bufs.count[i] as usize, list.len());
                for a in 0..d.num_actions {
                    assert_eq!(
                        bufs.mask[i * d.num_actions + a],
                        list.contains(&(a as Action))
                    );
                }
                assert_eq!(bufs.to_move[i], p as i32);
            }
            let actions = bufs.random_actions(&d, &mut rng);
            env.step(&actions, bufs.out()).unwrap();
            for (i, (g, s, k)) in mine.iter_mut().enumerate() {
                g.apply(s, actions[i] as Action);
                let over = g.is_over(s);
                assert_eq!(bufs.term[i], over);
                assert_eq!(bufs.ended[i], over);
                let r = g.returns(s);
                for (p, &v) in r.iter().enumerate().take(d.players) {
                    let want = if over { v as f32 } else { 0.0 };
                    assert_eq!(bufs.rewards[i * d.players + p], want);
                    assert_eq!(bufs.final_returns[i * d.players + p], want);
                }
                if over {
                    ended += 1;
                    g.write_observation(s, 0, &mut obs);
                    assert_eq!(
                        &bufs.final_obs[i * d.observation..(i + 1) * d.observation],
                        &obs[..]
                    );
                    *k += 1;
                    *g = source.game(game_seed(5, i, *k));
                    *s = g.initial_state();
                } else {
                    assert!(bufs.final_obs[i * d.observation..(i + 1) * d.observation]
                        .iter()
                        .all(|&x| x == 0.0));
                }
            }
        }
        assert!(ended > 0, "no game ended in {steps} steps");
    }

    #[test]
    fn fish_envs_agree_with_games_stepped_alone() {
        for players in [2, 3, 4] {
            for threads in [1, 2] {
                let options = Options {
                    threads,
                    ..Options::default()
                };
                // Enough envs to use the pool.
                let n = 70 * threads;
                let env = VectorEnv::new(fish_source(players), n, 1, options).unwrap();
                differential(env, fish_source(players), 100);
            }
        }
    }

    #[test]
    fn marathon_envs_agree_with_games_stepped_alone() {
        for players in [2, 3] {
            let game = Arc::new(Marathon::standard().with_players(players).unwrap());
            let game = Arc::new(game.with_ply_limit(40).unwrap());
            let env = VectorEnv::new(Source::Fixed(game.clone()), 5, 1, Options::default());
            differential(env.unwrap(), Source::Fixed(game), 100);
        }
    }

    /// Runs `steps` random steps and returns everything written.
    fn trace(threads: usize, seed: u64, steps: usize) -> Vec<(Vec<f32>, Vec<bool>, Vec<f32>)> {
        let options = Options {
            threads,
            ..Options::default()
        };
        let mut env = VectorEnv::new(fish_source(3), 2 * PARALLEL_MIN + 7, 0, options).unwrap();
        let d = *env.dims();
        let mut bufs = Bufs::new(&d);
        env.reset(Some(seed), bufs.out()).unwrap();
        let mut rng = Rng::new(seed);
        (0..steps)
            .map(|_| {
                let actions = bufs.random_actions(&d, &mut rng);
                env.step(&actions, bufs.out()).unwrap();
                (bufs.obs.clone(), bufs.mask.clone(), bufs.rewards.clone())
            })
            .collect()
    }

    #[test]
    fn threads_do_not_change_results_and_seeds_reproduce() {
        let one = trace(1, 3, 80);
        assert_eq!(one, trace(2, 3, 80));
        assert_eq!(one, trace(0, 3, 80));
        assert_ne!(one, trace(1, 4, 80));
    }

    #[test]
    fn an_illegal_action_changes_no_env() {
        let mut env = VectorEnv::new(fish_source(2), 4, 0, Options::default()).unwrap();
        let d = *env.dims();
        let mut bufs = Bufs::new(&d);
        env.reset(Some(0), bufs.out()).unwrap();
        let before: Vec<_> = (0..4).map(|i| *env.state(i)).collect();
        let snapshot = bufs.obs.clone();
        let mut actions: Vec<i64> = (0..4)
            .map(|i| bufs.legal[i * d.legal_width] as i64)
            .collect();
        // A one-fish floe is a legal placement; a slide is not, during placement.
        actions[2] = (d.num_actions - 1) as i64;
        let err = env.step(&actions, bufs.out()).unwrap_err();
        assert!(err.to_string().starts_with("env 2: action"), "{err}");
        actions[2] = d.num_actions as i64;
        let err = env.step(&actions, bufs.out()).unwrap_err();
        assert!(matches!(err, Error::Parse(_)), "{err}");
        actions[2] = -1;
        assert!(env.step(&actions, bufs.out()).is_err());
        let cells = d.observation_shape[1] * d.observation_shape[2];
        let taken = (0..cells).find(|&c| bufs.mask[c]).unwrap() as i64;
        actions[2] = bufs.legal[2 * d.legal_width] as i64;
        actions[3] = taken;
        // Legal in env 0 only, unless env 3's board happens to have it too.
        if !bufs.mask[3 * d.num_actions + taken as usize] {
            let err = env.step(&actions, bufs.out()).unwrap_err();
            assert!(matches!(err, Error::IllegalMove(_)), "{err}");
            assert!(err.to_string().starts_with("env 3: action"), "{err}");
        }
        assert_eq!(before, (0..4).map(|i| *env.state(i)).collect::<Vec<_>>());
        assert_eq!(snapshot, bufs.obs);
    }

    #[test]
    fn single_agent_steps_are_learner_decisions() {
        let options = Options {
            opponent: Some(SearchAgent::<FishGame, NoEval>::maker(
                Choice::Random,
                Budget::iterations(1),
                |_| Arc::new(NoEval),
            )),
            learner: Learner::Seat(1),
            ..Options::default()
        };
        let mut env = VectorEnv::new(fish_source(3), 6, 2, options).unwrap();
        let d = *env.dims();
        assert_eq!(d.rewards, 1);
        let mut bufs = Bufs::new(&d);
        env.reset(Some(2), bufs.out()).unwrap();
        let mut rng = Rng::new(1);
        let mut ended = 0;
        for _ in 0..200 {
            for i in 0..6 {
                assert_eq!(env.game(i).to_move(env.state(i)), Some(1));
                assert_eq!(bufs.to_move[i], 1);
            }
            let actions = bufs.random_actions(&d, &mut rng);
            env.step(&actions, bufs.out()).unwrap();
            for i in 0..6 {
                if bufs.term[i] {
                    ended += 1;
                    assert_eq!(bufs.rewards[i], bufs.final_returns[i * 3 + 1]);
                } else {
                    assert_eq!(bufs.rewards[i], 0.0);
                }
            }
        }
        assert!(ended > 0);
    }

    #[test]
    fn a_stopped_step_changes_nothing_and_replays_the_same() {
        let options = || Options {
            opponent: Some(SearchAgent::<FishGame, NoEval>::maker(
                Choice::Random,
                Budget::iterations(1),
                |_| Arc::new(NoEval),
            )),
            learner: Learner::Seat(0),
            ..Options::default()
        };
        let mut env = VectorEnv::new(fish_source(2), 5, 4, options()).unwrap();
        let mut twin = VectorEnv::new(fish_source(2), 5, 4, options()).unwrap();
        let d = *env.dims();
        let (mut bufs, mut twin_bufs) = (Bufs::new(&d), Bufs::new(&d));
        env.reset(Some(4), bufs.out()).unwrap();
        twin.reset(Some(4), twin_bufs.out()).unwrap();
        let mut rng = Rng::new(3);
        for _ in 0..40 {
            let actions = bufs.random_actions(&d, &mut rng);
            let states: Vec<_> = (0..5).map(|i| *env.state(i)).collect();
            let obs = bufs.obs.clone();
            let stop = StopFlag::new();
            stop.stop();
            let err = env.step_or_stop(&actions, bufs.out(), &stop).unwrap_err();
            assert!(matches!(err, Error::Interrupted(_)), "{err}");
            assert_eq!(states, (0..5).map(|i| *env.state(i)).collect::<Vec<_>>());
            assert_eq!(obs, bufs.obs);
            // Played again, the step is the one an env that was never stopped plays.
            let stop = StopFlag::new();
            env.step_or_stop(&actions, bufs.out(), &stop).unwrap();
            assert!(
                !stop.stop_unless_committed(),
                "a step that took effect is committed"
            );
            twin.step(&actions, twin_bufs.out()).unwrap();
            assert_eq!(bufs.obs, twin_bufs.obs);
            assert_eq!(bufs.rewards, twin_bufs.rewards);
            assert_eq!(bufs.term, twin_bufs.term);
        }
    }

    #[test]
    fn score_rewards_add_up_to_the_fish_lead() {
        let options = Options {
            reward: Reward::Score,
            ..Options::default()
        };
        let mut env = VectorEnv::new(fish_source(3), 3, 0, options).unwrap();
        let d = *env.dims();
        let mut bufs = Bufs::new(&d);
        env.reset(Some(0), bufs.out()).unwrap();
        let mut sums = [0.0f64; 3 * 3];
        let mut rng = Rng::new(4);
        let mut checked = 0;
        while checked < 5 {
            let actions = bufs.random_actions(&d, &mut rng);
            let states: Vec<_> = (0..3)
                .map(|i| (env.game(i).clone(), *env.state(i)))
                .collect();
            env.step(&actions, bufs.out()).unwrap();
            for i in 0..3 {
                let row = &bufs.rewards[i * 3..i * 3 + 3];
                assert!(row.iter().sum::<f32>().abs() < 1e-4);
                for p in 0..3 {
                    sums[i * 3 + p] += row[p] as f64;
                }
                if bufs.term[i] {
                    let (g, mut s) = states[i].clone();
                    g.apply(&mut s, actions[i] as Action);
                    let fish: Vec<f64> = (0..3).map(|p| s.score(p).0 as f64).collect();
                    for p in 0..3 {
                        let others = (fish.iter().sum::<f64>() - fish[p]) / 2.0;
                        assert!((sums[i * 3 + p] - (fish[p] - others)).abs() < 1e-3);
                        sums[i * 3 + p] = 0.0;
                    }
                    checked += 1;
                }
            }
        }
        let marathon = Source::Fixed(Arc::new(Marathon::standard()));
        let options = Options {
            reward: Reward::Score,
            ..Options::default()
        };
        assert!(VectorEnv::new(marathon, 1, 0, options).is_err());
    }

    #[test]
    fn legal_width_bounds_every_position() {
        let mut env = VectorEnv::new(fish_source(2), 16, 0, Options::default()).unwrap();
        let d = *env.dims();
        assert_eq!(d.legal_width, 168);
        let mut bufs = Bufs::new(&d);
        env.reset(Some(1), bufs.out()).unwrap();
        let mut rng = Rng::new(2);
        let mut most = 0;
        for _ in 0..300 {
            let actions = bufs.random_actions(&d, &mut rng);
            env.step(&actions, bufs.out()).unwrap();
            most = most.max(bufs.count.iter().copied().max().unwrap());
        }
        assert!(most as usize <= d.legal_width);
        let m = Marathon::standard();
        assert!(m.max_legal_actions(&m.new_state()) < m.num_actions());
        let mut s = m.new_state();
        let mut rng = Rng::new(3);
        let mut list = ActionList::new();
        for _ in 0..20_000 {
            if m.is_over(&s) {
                s = m.new_state();
            }
            m.legal_actions(&s, &mut list);
            assert!(list.len() <= m.max_legal_actions(&s));
            m.apply(&mut s, list[rng.below(list.len())]);
        }
    }

    #[test]
    fn set_state_loads_a_position_and_checks_it() {
        let mut env = VectorEnv::new(fish_source(2), 3, 0, Options::default()).unwrap();
        let d = *env.dims();
        let mut bufs = Bufs::new(&d);
        env.reset(Some(0), bufs.out()).unwrap();
        let game = env.game(0).clone();
        let mut s = *env.state(0);
        let mut list = ActionList::new();
        game.legal_actions(&s, &mut list);
        game.apply(&mut s, list[0]);
        env.set_state(1, game.clone(), s, bufs.out()).unwrap();
        assert_eq!(env.state(1), &s);
        let mut obs = vec![0.0; d.observation];
        game.write_observation(&s, 1, &mut obs);
        assert_eq!(&bufs.obs[d.observation..2 * d.observation], &obs[..]);
        assert_eq!(bufs.to_move[1], 1);
        let three = Rules::new(3, None, Placement::OneFish, Order::RoundRobin).unwrap();
        let other = Arc::new(FishGame::new(three, Board::standard(0)));
        assert!(env
            .set_state(0, other.clone(), other.initial_state(), bufs.out())
            .is_err());
        assert!(env.set_state(3, game.clone(), s, bufs.out()).is_err());
    }

    /// The Fish observation as first written (clear everything, then set), to check that the
    /// faster writer gives the same planes.
    fn fish_observation_reference(
        game: &FishGame,
        s: &crate::fish::FishState,
        viewer: usize,
    ) -> Vec<f32> {
        let n = game.num_players();
        let board = game.board();
        let cols = board.cols();
        let area = board.rows() * cols;
        let mut out = vec![0.0; game.observation_len()];
        let at = |cell| {
            let (r, c) = board.coords(cell);
            r * cols + c
        };
        for cell in s.floes() {
            let plane = (board.fish(cell) as usize).clamp(1, 3) - 1;
            out[plane * area + at(cell)] = 1.0;
        }
        let all_fish = board.fish_on(board.floes()).max(1) as f32;
        let all_floes = board.floes().count().max(1) as f32;
        let per_player = game.rules().penguins.max(1) as f32;
        let still_to_place = |p: usize| {
            if game.phase(s) != Phase::Placement {
                return 0;
            }
            let placed = (0..s.turn())
                .filter(|&t| game.rules().placer(t) == p)
                .count();
            (game.rules().penguins as usize).saturating_sub(placed)
        };
        let mut constant = |plane: usize, value: f32| {
            if value != 0.0 {
                out[plane * area..(plane + 1) * area].fill(value);
            }
        };
        for seat in 0..n {
            let p = (viewer + seat) % n;
            let (fish, floes) = s.score(p);
            constant(3 + n + seat, fish as f32 / all_fish);
            constant(3 + 2 * n + seat, floes as f32 / all_floes);
            constant(3 + 3 * n + seat, still_to_place(p) as f32 / per_player);
            constant(3 + 4 * n + seat, (s.to_move() == Some(p)) as u8 as f32);
        }
        constant(3 + 5 * n, (game.phase(s) == Phase::Placement) as u8 as f32);
        for seat in 0..n {
            for cell in s.penguins((viewer + seat) % n) {
                out[(3 + seat) * area + at(cell)] = 1.0;
            }
        }
        out
    }

    /// The Marathon observation as first written.
    fn marathon_observation_reference(
        game: &Marathon,
        s: &crate::marathon::State,
        viewer: usize,
    ) -> Vec<f32> {
        use crate::marathon::{Kind, Place};
        let n = game.players();
        let course = game.course();
        let cols = course.size().1;
        let area = course.size().0 * cols;
        let mut out = vec![0.0; game.observation_len()];
        let at = |(r, c): (i32, i32)| r as usize * cols + c as usize;
        for &cell in course.coords() {
            out[at(cell)] = 1.0;
        }
        let facing_planes = 1 + 3 * n;
        let status_planes = facing_planes + 9;
        let mut constant = |plane: usize, value: f32| {
            out[plane * area..(plane + 1) * area].fill(value);
        };
        for seat in 0..n {
            let p = (viewer + seat) % n;
            for kind in Kind::ALL {
                let i = 3 * seat + kind as usize;
                match game.place(s, p, kind) {
                    Place::Waiting => constant(status_planes + 2 * i, 1.0),
                    Place::Finished => constant(status_planes + 2 * i + 1, 1.0),
                    Place::OnCourse { .. } => {}
                }
            }
            if s.to_move() == Some(p) {
                constant(11 + 9 * n + seat, 1.0);
            }
        }
        let ply = s.ply() as f32 / game.ply_limit().max(1) as f32;
        if ply != 0.0 {
            constant(10 + 9 * n, ply);
        }
        for seat in 0..n {
            let p = (viewer + seat) % n;
            for kind in Kind::ALL {
                if let Place::OnCourse { cell, facing } = game.place(s, p, kind) {
                    let i = 3 * seat + kind as usize;
                    out[(1 + i) * area + at(cell)] = 1.0;
                    let f = facing.map_or(8, |d| d.index());
                    out[(facing_planes + f) * area + at(cell)] = 1.0;
                }
            }
        }
        out
    }

    /// Random games of `game`: every position from every player's view, written over garbage.
    fn check_observations<G: GameIo>(
        game: &G,
        reference: impl Fn(&G, &G::State, usize) -> Vec<f32>,
        games: usize,
    ) {
        let mut rng = Rng::new(8);
        let mut out = vec![0.0; game.observation_len()];
        let mut list = ActionList::new();
        for _ in 0..games {
            let mut s = game.initial_state();
            loop {
                for viewer in 0..game.num_players() {
                    out.fill(f32::NAN);
                    game.write_observation(&s, viewer, &mut out);
                    assert_eq!(out, reference(game, &s, viewer));
                }
                if game.is_over(&s) {
                    break;
                }
                game.legal_actions(&s, &mut list);
                game.apply(&mut s, list[rng.below(list.len())]);
            }
        }
    }

    #[test]
    fn observation_writers_match_their_reference() {
        for players in [2, 3, 4] {
            for (seed, placement) in [(1, Placement::OneFish), (2, Placement::Any)] {
                let rules = Rules::new(players, None, placement, Order::Snake).unwrap();
                let game: FishGame = FishGame::new(rules, Board::standard(seed));
                check_observations(&game, fish_observation_reference, 3);
            }
        }
        let grid = vec![
            vec![1, 2, 3, 0, 1],
            vec![0, 1, 1, 2, 3],
            vec![3, 3, 1, 1, 0],
        ];
        let rules = Rules::new(2, Some(2), Placement::Any, Order::RoundRobin).unwrap();
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        check_observations(&game, fish_observation_reference, 5);
        for players in [2, 3, 5] {
            for name in crate::marathon::bundled_names() {
                let game = Marathon::variant(name)
                    .unwrap()
                    .with_players(players)
                    .unwrap();
                let game = game.with_ply_limit(120).unwrap();
                check_observations(&game, marathon_observation_reference, 2);
            }
        }
    }
}
