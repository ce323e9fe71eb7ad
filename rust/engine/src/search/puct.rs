//! PUCT (AlphaZero's search) with a batched, external evaluator: a learned network gives each
//! leaf's move priors and values, and many leaves (of one tree, or of many trees) are valued in
//! one call.
//!
//! The engine knows nothing of the evaluator: a search is driven in steps. [`PuctTree::gather`]
//! selects up to `batch_size` leaves (each selection adds a *virtual loss* along its path so
//! the next one tries elsewhere), writes their observations ([`GameIo::write_observation`],
//! from the view of the player to move) and legal-action masks into the caller's buffers and
//! returns their number; the caller values them (a Python function, an ONNX session, a Rust
//! closure) and hands the policy logits and values back to [`PuctTree::backup`], which expands
//! the leaves and backs the values up. A [`Forest`] does the same for many trees at once, each
//! contributing its leaves to one shared batch, and [`run`] drives it with a
//! [`BatchEvaluator`] (all three in [`crate::search::forest`]).
//!
//! [`Forest`]: crate::search::forest::Forest
//! [`run`]: crate::search::forest::run
//! [`BatchEvaluator`]: crate::search::forest::BatchEvaluator
//!
//! - Selection: `q + c * p * sqrt(N) / (1 + n)` with `q` the mean return of the player who
//!   moves into the child (0 for an unvisited child), `p` the prior (softmax of the
//!   evaluator's logits over the moves kept), `N` the parent's visits and `n` the child's,
//!   both counting pending (virtual) visits. A pending visit counts as a loss (-1).
//! - The root may instead pick by Gumbel-top-k and sequential halving ([`RootRule::Gumbel`],
//!   [`crate::search::gumbel`]): the move played is then the one it chooses, and
//!   [`PuctTree::improved_policy`] the training target.
//! - Backup is per player (max-n, as [`crate::search::mcts`]): any number of players.
//! - Values come per seat from the player to move: `values[k]` is the return of player
//!   `(to_move + k) % players`, clipped to `[-1, 1]`.
//! - A leaf that is over, or that [`Evaluate::exact`] solves, is valued exactly without the
//!   evaluator (the root is always given to the evaluator, for its priors).
//! - Dirichlet noise may be mixed into the root's priors; trees may be kept between moves.
//! - `iterations` counts leaves valued below the root; the root's own evaluation is not one.
//!   With a fresh tree the root's children's visits add up to the iterations.
//! - Each tree draws its random numbers (the order of equal children, the noise) from its own
//!   seed: a tree's result does not depend on the other trees sharing its batches.

use std::sync::Arc;

use crate::error::Result;
use crate::game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::io::GameIo;
use crate::rng::Rng;
use crate::search::budget::Budget;
use crate::search::gumbel::{self, GumbelConfig, GumbelRoot};
use crate::search::tree::{self, most_visited, Kind, Rule, Tree};
use crate::search::{check_start, Algorithm, Evaluate, SearchResult};

/// Settings of a PUCT search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctConfig {
    /// The exploration constant `c`.
    pub exploration: f64,
    /// The most leaves one tree sends to the evaluator per round.
    pub batch_size: usize,
    /// Dirichlet noise at the root: `(alpha, fraction)`; the priors become
    /// `(1 - fraction) * p + fraction * noise`.
    pub dirichlet: Option<(f64, f64)>,
    /// Keep the tree between searches (re-rooted at the new position when it lies a few
    /// plies below the old root).
    pub reuse: bool,
    /// The memory the tree may hold, in MiB; once full, its leaves keep their first value.
    pub memory_mb: usize,
    /// How the root picks its children.
    pub root: RootRule,
    /// AlphaGo's lambda: a leaf's value is `(1 - playout_mix) * evaluator + playout_mix *
    /// playout`, the playout being the game evaluation's ([`Evaluate::playout`]) from the leaf.
    /// A weak value net with a good policy gains from it; 0 (the default) plays none.
    pub playout_mix: f64,
}

/// How a PUCT search picks the root's children (below the root, PUCT always).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum RootRule {
    /// PUCT, the move played the most visited.
    #[default]
    Puct,
    /// Gumbel-top-k and sequential halving ([`crate::search::gumbel`]).
    Gumbel(GumbelConfig),
}

impl RootRule {
    /// The names [`RootRule::parse`] takes.
    pub const NAMES: [&'static str; 2] = ["puct", "gumbel"];

    /// `"puct"`, or `"gumbel"` with mctx's settings ([`GumbelConfig::default`]).
    ///
    /// # Errors
    /// `Error::Invalid` naming both, for any other text.
    pub fn parse(text: &str) -> Result<RootRule> {
        match text {
            "puct" => Ok(RootRule::Puct),
            "gumbel" => Ok(RootRule::Gumbel(GumbelConfig::default())),
            _ => crate::error::invalid!(
                "root = {}: expected one of {}",
                crate::error::quote(text),
                Self::NAMES.join(", ")
            ),
        }
    }
}

impl Default for PuctConfig {
    fn default() -> Self {
        PuctConfig {
            exploration: 1.25,
            batch_size: 16,
            dirichlet: None,
            reuse: true,
            memory_mb: tree::DEFAULT_MEMORY_MB,
            root: RootRule::Puct,
            playout_mix: 0.0,
        }
    }
}

/// The largest [`PuctConfig::batch_size`].
pub const MAX_BATCH: usize = 1 << 16;

impl PuctConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// `Error::Invalid` naming the bad setting.
    pub fn check(&self) -> Result<()> {
        if !(1..=MAX_BATCH).contains(&self.batch_size) {
            return crate::error::invalid!(
                "batch_size = {}: expected 1 to {MAX_BATCH}",
                self.batch_size
            );
        }
        if !self.exploration.is_finite() || !(0.0..=1e6).contains(&self.exploration) {
            return crate::error::invalid!(
                "exploration = {}: expected a finite number from 0 to 1e6",
                self.exploration
            );
        }
        if let Some((alpha, frac)) = self.dirichlet {
            if !alpha.is_finite() || !(1e-3..=1e3).contains(&alpha) {
                return crate::error::invalid!("dirichlet alpha = {alpha}: expected 0.001 to 1000");
            }
            if !frac.is_finite() || !(0.0..=1.0).contains(&frac) {
                return crate::error::invalid!("dirichlet fraction = {frac}: expected 0 to 1");
            }
        }
        let max = tree::MAX_MEMORY_MB;
        if !(1..=max).contains(&self.memory_mb) {
            return crate::error::invalid!("memory_mb = {}: expected 1 to {max}", self.memory_mb);
        }
        if !(0.0..=1.0).contains(&self.playout_mix) {
            return crate::error::invalid!(
                "playout_mix = {}: expected a number from 0 to 1",
                self.playout_mix
            );
        }
        if let RootRule::Gumbel(g) = self.root {
            g.check()?;
        }
        Ok(())
    }

    fn nodes_per_tree(&self) -> usize {
        tree::nodes_per_tree(self.memory_mb, 1, NODE_BYTES)
    }
}

/// The bytes one node is counted as against [`PuctConfig::memory_mb`].
pub const NODE_BYTES: usize = tree::node_bytes::<u32>();

/// The node of a collision in [`Pending`].
const NONE: u32 = u32::MAX;

/// What a [`Pending`] path ends in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Leaf {
    /// A leaf for the evaluator: a row.
    Row,
    /// A pending leaf of another path (it holds a virtual loss until the next backup).
    Collision,
    /// A leaf whose position is not worked out yet ([`Batch::resolve`]).
    Unresolved,
    /// A leaf valued exactly by [`Batch::resolve`]: these returns.
    Exact(Returns),
}

/// An evaluator's answer that a search cannot use: row `row` of its batch holds `kind`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BadAnswer {
    /// The row, counted from the batch's first.
    pub row: usize,
    /// What is wrong with it.
    pub kind: BadKind,
}

/// What is wrong with a [`BadAnswer`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BadKind {
    /// A value that is NaN or infinite.
    Value(f32),
    /// The logit of a legal action that is NaN or `+inf`.
    Logit(Action, f32),
    /// Every legal action's logit is `-inf`.
    NoFiniteLogit,
}

impl BadAnswer {
    /// The same answer in a batch where this one's rows start at row `first`.
    pub fn after(self, first: usize) -> BadAnswer {
        BadAnswer {
            row: first + self.row,
            ..self
        }
    }
}

impl std::fmt::Display for BadAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let row = self.row;
        match self.kind {
            BadKind::Value(x) => write!(
                f,
                "the evaluator's values must be finite: row {row} holds {x}"
            ),
            BadKind::Logit(a, x) => write!(
                f,
                "the evaluator's policy_logits must not hold NaN or +inf for legal actions: \
                 row {row}, action {a} holds {x}"
            ),
            BadKind::NoFiniteLogit => write!(
                f,
                "the evaluator's policy_logits of row {row} are -inf for every legal action"
            ),
        }
    }
}

impl From<BadAnswer> for crate::error::Error {
    fn from(bad: BadAnswer) -> Self {
        crate::error::Error::Invalid(bad.to_string())
    }
}

/// The first thing wrong with one row's answer (`values` of the row, `logits` of every
/// action) for a position whose legal actions are `legal`, if any.
fn check_row(values: &[f32], logits: &[f32], legal: &[Action]) -> Option<BadKind> {
    if let Some(&x) = values.iter().find(|x| !x.is_finite()) {
        return Some(BadKind::Value(x));
    }
    let mut finite = false;
    for &a in legal {
        let x = logits[a as usize];
        if x.is_nan() || x == f32::INFINITY {
            return Some(BadKind::Logit(a, x));
        }
        finite |= x.is_finite();
    }
    (!finite).then_some(BadKind::NoFiniteLogit)
}

/// A path of one selection, with the leaf it ends in.
#[derive(Clone, Copy, Debug)]
struct Pending<S> {
    /// The leaf, `NONE` for a collision.
    node: u32,
    leaf: Leaf,
    state: S,
    to_move: u8,
    /// Its nodes (and their moves) in [`Batch::paths`] and [`Batch::moves`].
    path: (u32, u32),
}

/// The paths of `pending` that end in rows, in row order.
fn row_leaves<S>(pending: &[Pending<S>]) -> impl Iterator<Item = &Pending<S>> + '_ {
    pending.iter().filter(|p| p.leaf == Leaf::Row)
}

/// The leaves of one selection ([`PuctTree::select_into`]) on their way to the evaluator and
/// back. A tree may have several batches out at once: threads that share it
/// ([`crate::search::forest::SharedTree`]) each hold one, and the virtual losses of all of
/// them steer the selections apart.
#[derive(Clone, Debug)]
pub struct Batch<S> {
    pending: Vec<Pending<S>>,
    paths: Vec<u32>,
    /// The move into each node of `paths`.
    moves: Vec<Action>,
    /// The root's position.
    root: Option<S>,
    /// Leaves sent to the evaluator (rows).
    rows: usize,
    /// Leaves counted as with the evaluator: rows, and leaves unresolved or valued exactly.
    claimed: usize,
    /// The leaves' children made ready by [`Batch::prepare`]: (move, prior) of every row, in
    /// the random order that breaks ties between equal children, row `r`'s ending at
    /// `ends[r]`.
    children: Vec<(Action, f32)>,
    ends: Vec<usize>,
    /// Each row's returns, per player (clipped, mixed with a playout).
    returns: Vec<Returns>,
}

impl<S> Default for Batch<S> {
    fn default() -> Self {
        Batch {
            pending: Vec::new(),
            paths: Vec::new(),
            moves: Vec::new(),
            root: None,
            rows: 0,
            claimed: 0,
            children: Vec::new(),
            ends: Vec::new(),
            returns: Vec::new(),
        }
    }
}

impl<S> Batch<S> {
    /// The leaves' rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The positions of the leaves, in row order.
    pub fn states(&self) -> impl Iterator<Item = &S> + '_ {
        row_leaves(&self.pending).map(|p| &p.state)
    }

    fn clear(&mut self) {
        self.pending.clear();
        self.paths.clear();
        self.moves.clear();
        self.root = None;
        self.rows = 0;
        self.claimed = 0;
        self.children.clear();
        self.ends.clear();
        self.returns.clear();
    }

    /// Makes the leaves ready for [`PuctTree::backup_from`] from the evaluator's answers (see
    /// [`PuctTree::backup`]), without the tree: their children (the moves `eval` keeps, with
    /// the softmax of their logits as priors, shuffled) and their returns (mixed with a
    /// playout by `playout_mix`, [`PuctConfig::playout_mix`]). Threads that share a tree do
    /// this outside its lock, drawing from `rng`; one tree does it in its backup, from its own.
    ///
    /// # Errors
    /// The first row whose answer cannot be used (a value not finite, a legal action's logit
    /// NaN or `+inf`, or every one `-inf`); the batch must then be aborted
    /// ([`PuctTree::abort_batch`]).
    #[allow(clippy::too_many_arguments)]
    pub fn prepare<G: Game<State = S>, E: Evaluate<G>>(
        &mut self,
        game: &G,
        eval: &E,
        policy: &[f32],
        values: &[f32],
        playout_mix: f64,
        rng: &mut Rng,
    ) -> std::result::Result<(), BadAnswer> {
        let a_len = game.num_actions();
        let n = game.num_players();
        self.children.clear();
        self.ends.clear();
        self.returns.clear();
        let mut actions = ActionList::new();
        let mut weights: Vec<(Action, f64)> = Vec::new();
        for (row, p) in row_leaves(&self.pending).enumerate() {
            let logits = &policy[row * a_len..(row + 1) * a_len];
            let v = &values[row * n..(row + 1) * n];
            actions.clear();
            game.legal_actions(&p.state, &mut actions);
            if let Some(kind) = check_row(v, logits, &actions) {
                return Err(BadAnswer { row, kind });
            }
            let mut r: Returns = [0.0; MAX_PLAYERS];
            for (k, &x) in v.iter().enumerate() {
                r[(p.to_move as usize + k) % n] = (x as f64).clamp(-1.0, 1.0);
            }
            if playout_mix > 0.0 {
                let played = eval.playout(game, &p.state, rng);
                for (x, y) in r[..n].iter_mut().zip(&played[..n]) {
                    *x = (1.0 - playout_mix) * *x + playout_mix * y.clamp(-1.0, 1.0);
                }
            }
            self.returns.push(r);
            eval.prune_actions(game, &p.state, &mut actions);
            let max = actions
                .iter()
                .map(|&a| logits[a as usize] as f64)
                .fold(f64::NEG_INFINITY, f64::max);
            weights.clear();
            // The moves kept may all be -inf (the finite logits on moves pruned): then they
            // are equal.
            weights.extend(actions.iter().map(|&a| {
                let w = if max == f64::NEG_INFINITY {
                    1.0
                } else {
                    (logits[a as usize] as f64 - max).exp()
                };
                (a, w)
            }));
            // A random order breaks ties between equal children.
            rng.shuffle(&mut weights);
            let sum: f64 = weights.iter().map(|c| c.1).sum();
            self.children
                .extend(weights.iter().map(|&(a, w)| (a, (w / sum) as f32)));
            self.ends.push(self.children.len());
        }
        Ok(())
    }

    /// Works out the positions of the leaves of [`PuctTree::select_deferred`], without the
    /// tree: each is valued exactly when it is over or `eval` solves it
    /// ([`Evaluate::exact`]), else it becomes a row. Returns the rows.
    pub fn resolve<G: Game<State = S>, E: Evaluate<G>>(&mut self, game: &G, eval: &E) -> usize
    where
        S: Copy,
    {
        let Some(root) = self.root else {
            return self.rows;
        };
        for p in self
            .pending
            .iter_mut()
            .filter(|p| p.leaf == Leaf::Unresolved)
        {
            let mut s = root;
            // The first node is the root.
            for &a in &self.moves[p.path.0 as usize + 1..p.path.1 as usize] {
                game.apply(&mut s, a);
            }
            p.state = s;
            p.leaf = if game.is_over(&s) {
                Leaf::Exact(game.returns(&s))
            } else if let Some(r) = eval.exact(game, &s) {
                Leaf::Exact(r)
            } else {
                p.to_move = game.to_move(&s).unwrap_or(0) as u8;
                self.rows += 1;
                Leaf::Row
            };
        }
        self.rows
    }

    /// Writes the leaves' observations (from the player to move) and legal masks, one row
    /// each, to the start of `obs` and `mask`.
    pub fn write_rows<G: GameIo<State = S>>(&self, game: &G, obs: &mut [f32], mask: &mut [bool]) {
        let obs_len = game.observation_len();
        let a_len = game.num_actions();
        let mut actions = ActionList::new();
        for (row, p) in row_leaves(&self.pending).enumerate() {
            let o = &mut obs[row * obs_len..(row + 1) * obs_len];
            game.write_observation(&p.state, p.to_move as usize, o);
            let m = &mut mask[row * a_len..(row + 1) * a_len];
            m.fill(false);
            actions.clear();
            game.legal_actions(&p.state, &mut actions);
            for &a in &actions {
                m[a as usize] = true;
            }
        }
    }
}

/// The limits of the current search of one tree.
#[derive(Clone, Copy, Debug)]
struct Limits {
    iterations: u64,
    nodes: usize,
}

/// One PUCT search tree over `game`, with the game's evaluation `eval` (for exact leaves and
/// move pruning; its heuristic value is not used). See the module docs.
pub struct PuctTree<G: Game, E> {
    game: Arc<G>,
    eval: Arc<E>,
    config: PuctConfig,
    /// The tree, its nodes counting the visits under way (virtual losses).
    tree: Tree<G::State, u32>,
    rng: Rng,
    /// The batch of [`PuctTree::gather`] and [`PuctTree::backup`].
    batch: Batch<G::State>,
    /// Leaves with the evaluator, in every batch out.
    in_flight: u64,
    iterations: u64,
    limits: Limits,
    done: bool,
    interrupted: bool,
    noised: bool,
    /// The Gumbel state of the current search's root, once the root is expanded.
    gumbel: Option<GumbelRoot>,
    /// The evaluator's value of the root for the player to move, when it valued this root.
    root_raw: Option<f64>,
}

impl<G: GameIo, E: Evaluate<G>> PuctTree<G, E> {
    /// An empty tree for `game` whose random choices come from `seed` alone (callers that
    /// search many trees derive it from `(seed, i)`, [`Rng::for_item`]).
    pub fn new(game: Arc<G>, eval: Arc<E>, config: PuctConfig, seed: u64) -> PuctTree<G, E> {
        PuctTree {
            game,
            eval,
            config,
            tree: Tree::new(),
            rng: Rng::new(seed),
            batch: Batch::default(),
            in_flight: 0,
            iterations: 0,
            limits: Limits {
                iterations: 0,
                nodes: 0,
            },
            done: true,
            interrupted: false,
            noised: false,
            gumbel: None,
            root_raw: None,
        }
    }

    /// The game of this tree.
    pub fn game(&self) -> &Arc<G> {
        &self.game
    }

    /// The game's evaluation this tree uses.
    pub fn eval(&self) -> &Arc<E> {
        &self.eval
    }

    /// The settings.
    pub fn config(&self) -> &PuctConfig {
        &self.config
    }

    /// A seed drawn from this tree's random numbers, for the threads that share it.
    pub(crate) fn draw_seed(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Sets the Dirichlet noise of the next searches (self-play turns it off for fast
    /// searches).
    pub fn set_dirichlet(&mut self, dirichlet: Option<(f64, f64)>) {
        self.config.dirichlet = dirichlet;
    }

    /// Nodes held.
    pub fn size(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Leaves valued so far in the current search.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Forgets the tree.
    pub fn clear(&mut self) {
        self.tree.clear();
        self.batch.clear();
        self.in_flight = 0;
        self.done = true;
    }

    /// Starts a search of `state` within `budget` (iterations and nodes; time is the
    /// driver's, see [`crate::search::forest::Forest`]): keeps the part of the old tree below `state` when reuse is
    /// on.
    ///
    /// # Errors
    /// `Error::Invalid` for a finished game, an unbounded budget or bad settings.
    pub fn start(&mut self, state: &G::State, budget: &Budget) -> Result<()> {
        check_start(&*self.game, state, budget, Algorithm::Mcts)?;
        self.config.check()?;
        self.tree.reuse_spare(self.config.nodes_per_tree());
        let plies = self.game.num_players().max(2);
        let found = if self.config.reuse {
            self.tree.find(&*self.game, state, plies)
        } else {
            None
        };
        match found {
            Some(0) => {}
            Some(c) => self.keep_subtree(c, *state),
            None => self.reset(*state),
        }
        self.batch.clear();
        self.in_flight = 0;
        self.iterations = 0;
        self.tree.max_depth = 0;
        self.done = false;
        self.interrupted = false;
        let memory = self.config.nodes_per_tree();
        self.limits = Limits {
            iterations: budget.iterations.unwrap_or(u64::MAX),
            nodes: match budget.nodes {
                Some(n) => (n.min(u32::MAX as u64 - 2048) as usize).min(memory),
                None if budget.iterations.is_none() && budget.time.is_none() => memory,
                None => usize::MAX,
            },
        };
        if self.root_expanded() && !self.noised {
            self.add_noise();
        }
        self.gumbel = None;
        if self.root_expanded() {
            self.start_gumbel();
        }
        Ok(())
    }

    /// Moves the root down to the child reached by `action` (self-play), keeping its subtree;
    /// a fresh tree when that child was never expanded. `state` must be the new position.
    pub fn advance(&mut self, action: Action, state: &G::State) {
        let child = match self.tree.root {
            Some(_) if self.root_expanded() => self.tree.child(0, action),
            _ => None,
        };
        match child {
            Some(c) if self.config.reuse => self.keep_subtree(c, *state),
            _ => self.reset(*state),
        }
    }

    /// Whether the root has its children (its priors came back).
    pub fn root_expanded(&self) -> bool {
        self.tree
            .nodes
            .first()
            .is_some_and(|n| n.kind == Kind::Expanded)
    }

    fn reset(&mut self, state: G::State) {
        self.tree.reset(state);
        self.noised = false;
        self.root_raw = None;
    }

    /// Makes `new_root` the root at `state`, keeping its subtree when it has children (a
    /// fresh tree otherwise: the new root needs its own priors).
    fn keep_subtree(&mut self, new_root: usize, state: G::State) {
        if self.tree.nodes[new_root].kind != Kind::Expanded {
            self.reset(state);
            return;
        }
        self.tree.keep_subtree(new_root, state);
        self.noised = false;
        self.root_raw = None;
    }

    /// Draws the Gumbel noise of the current search (Gumbel root rule only), once the root
    /// has its children.
    fn start_gumbel(&mut self) {
        let RootRule::Gumbel(config) = self.config.root else {
            return;
        };
        let plan = match self.limits.iterations {
            u64::MAX => gumbel::UNPLANNED,
            n => n,
        };
        // A kept root was valued by the evaluator as someone's child: its own value for the
        // player to move is estimated by its children's.
        let raw = self.root_raw.unwrap_or_else(|| self.tree.root_value());
        self.gumbel = Some(GumbelRoot::new(
            config,
            &self.tree,
            &mut self.rng,
            plan,
            raw,
        ));
    }

    /// Whether the current search is over (its budget spent, stopped, or nothing left to
    /// learn).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Ends the current search at the next step (`interrupted` marks the result).
    pub fn stop(&mut self, interrupted: bool) {
        self.done = true;
        self.interrupted |= interrupted;
    }

    /// The positions of the leaves of the last [`PuctTree::gather`], in row order.
    pub fn pending_states(&self) -> impl Iterator<Item = &G::State> + '_ {
        self.batch.states()
    }

    /// Selects up to `batch_size` leaves (fewer when `obs` has room for fewer rows) and writes
    /// their observations and legal masks, one row each, to the start of `obs` (rows of
    /// [`GameIo::observation_len`]) and `mask` (rows of [`Game::num_actions`]). Returns the
    /// number of rows; call [`PuctTree::backup`] with the evaluator's answers (also after 0
    /// rows: it releases the virtual losses). Leaves valued exactly are backed up here and
    /// need no row.
    pub fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize {
        debug_assert!(
            self.batch.pending.is_empty(),
            "gather twice without a backup"
        );
        let game = &self.game;
        let room =
            (obs.len() / game.observation_len().max(1)).min(mask.len() / game.num_actions().max(1));
        let rows = self.select_rows(room);
        self.write_rows(obs, mask);
        rows
    }

    /// The selection of [`PuctTree::gather`] alone: its rows are written by
    /// [`PuctTree::write_rows`] (once the caller knows where they go).
    pub fn select_rows(&mut self, room: usize) -> usize {
        let mut batch = std::mem::take(&mut self.batch);
        let rows = self.select_into(&mut batch, room);
        self.batch = batch;
        rows
    }

    /// Writes the rows of the leaves [`PuctTree::select_rows`] selected.
    pub fn write_rows(&self, obs: &mut [f32], mask: &mut [bool]) {
        self.batch.write_rows(&*self.game, obs, mask);
    }

    /// The selection of [`PuctTree::gather`] into a batch of the caller's (which must be
    /// empty), at most `room` leaves, without writing their rows ([`Batch::write_rows`]).
    /// Other batches may be out: their leaves count as collisions, their rows against the
    /// iteration budget. Returns the rows; hand the batch back to [`PuctTree::backup_from`].
    pub fn select_into(&mut self, batch: &mut Batch<G::State>, room: usize) -> usize {
        self.select(batch, room, false);
        batch.rows
    }

    /// [`PuctTree::select_into`] that leaves the leaves' positions to be worked out later,
    /// by [`Batch::resolve`]: threads sharing a tree select under its lock and resolve the
    /// leaves (the moves along their paths, the game evaluation's exact values) and write
    /// their rows outside it. Returns the leaves claimed, rows and exact ones together.
    pub fn select_deferred(&mut self, batch: &mut Batch<G::State>, room: usize) -> usize {
        self.select(batch, room, true);
        batch.claimed
    }

    fn select(&mut self, batch: &mut Batch<G::State>, room: usize, defer: bool) {
        batch.clear();
        if self.done {
            return;
        }
        let game = self.game.clone();
        let game = &*game;
        let want = self.config.batch_size.min(room);
        if want == 0 {
            return;
        }
        let root_state = self.tree.root.expect("start() sets the root");
        batch.root = Some(root_state);
        match self.tree.nodes[0].kind {
            // Another batch has the root.
            Kind::Pending => return,
            Kind::Expanded => {}
            _ => {
                // The root first, alone: its children need its priors.
                self.push_leaf(batch, 0, root_state, &[0], Leaf::Row);
                return;
            }
        }
        if self.root_settled() || self.tree.nodes.len() >= self.limits.nodes {
            self.done = true;
            return;
        }
        let rule = Rule::Puct(self.config.exploration);
        // Each attempt adds a row, backs up an exact leaf, or collides; bound them so that a
        // tree whose leaves are all exact still returns to the driver (its clock).
        let mut attempts = 0;
        let max_attempts = 4 * want + 64;
        let mut collisions = 0;
        let mut path: Vec<u32> = Vec::with_capacity(64);
        while batch.claimed < want
            && attempts < max_attempts
            && collisions < want
            && self.iterations + self.in_flight < self.limits.iterations
        {
            attempts += 1;
            let mut s = root_state;
            path.clear();
            path.push(0);
            let mut i = 0usize;
            while self.tree.nodes[i].kind == Kind::Expanded {
                let c = match &self.gumbel {
                    Some(g) if i == 0 => g.select(&self.tree),
                    _ => self.tree.select(i, rule),
                };
                if !defer {
                    game.apply(&mut s, self.tree.nodes[c].action);
                }
                path.push(c as u32);
                i = c;
            }
            if self.tree.nodes[i].kind == Kind::Unseen && !defer {
                self.tree.solve(i, game, &*self.eval, &s);
            }
            match self.tree.nodes[i].kind {
                Kind::Solved | Kind::Frozen => {
                    let r = self.tree.value_of(i);
                    self.tree.add_visit(&path, &r);
                    self.iterations += 1;
                }
                Kind::Pending => {
                    collisions += 1;
                    self.hold(batch, NONE, s, 0, &path, Leaf::Collision);
                }
                _ if defer => self.push_leaf(batch, i, s, &path, Leaf::Unresolved),
                _ => self.push_leaf(batch, i, s, &path, Leaf::Row),
            }
        }
        if self.iterations >= self.limits.iterations {
            self.done = true;
        }
    }

    /// Whether every child of the root is valued exactly: more search changes nothing.
    fn root_settled(&self) -> bool {
        let nodes = &self.tree.nodes;
        nodes[0].kind == Kind::Expanded
            && nodes[0].children().all(|c| nodes[c].kind == Kind::Solved)
    }

    /// Marks `i` pending and adds it to `batch` (a row, or a leaf to resolve at `s`'s
    /// place), with a virtual loss along `path`.
    fn push_leaf(
        &mut self,
        batch: &mut Batch<G::State>,
        i: usize,
        s: G::State,
        path: &[u32],
        leaf: Leaf,
    ) {
        let to_move = match leaf {
            Leaf::Row => self
                .game
                .to_move(&s)
                .expect("a pending leaf is not over (finished positions are solved)"),
            _ => 0,
        };
        self.tree.nodes[i].kind = Kind::Pending;
        self.hold(batch, i as u32, s, to_move as u8, path, leaf);
        batch.rows += usize::from(leaf == Leaf::Row);
        batch.claimed += 1;
        self.in_flight += 1;
    }

    /// Keeps a virtual loss along `path` until the batch is backed up: for the leaf `node`,
    /// or for a collision (`NONE`).
    fn hold(
        &mut self,
        batch: &mut Batch<G::State>,
        node: u32,
        state: G::State,
        to_move: u8,
        path: &[u32],
        leaf: Leaf,
    ) {
        let start = batch.paths.len() as u32;
        batch.paths.extend_from_slice(path);
        let nodes = &self.tree.nodes;
        batch
            .moves
            .extend(path.iter().map(|&j| nodes[j as usize].action));
        self.tree.add_virtual_loss(path);
        batch.pending.push(Pending {
            node,
            leaf,
            state,
            to_move,
            path: (start, batch.paths.len() as u32),
        });
    }

    /// Takes the evaluator's answers for the rows of the last [`PuctTree::gather`]:
    /// `policy` holds `rows * num_actions` logits (illegal entries are ignored) and `values`
    /// `rows * num_players` values per seat from the player to move (see the module docs).
    ///
    /// # Errors
    /// The first row whose answer cannot be used ([`Batch::prepare`]); the tree is unchanged,
    /// its leaves still pending: abort them ([`Stepped::abort`]).
    ///
    /// [`Stepped::abort`]: crate::search::forest::Stepped::abort
    pub fn backup(&mut self, policy: &[f32], values: &[f32]) -> std::result::Result<(), BadAnswer> {
        let mut batch = std::mem::take(&mut self.batch);
        let done = self.backup_from(&mut batch, policy, values);
        self.batch = batch;
        done
    }

    /// [`PuctTree::backup`] of a batch of [`PuctTree::select_into`]; the batch is emptied.
    /// Its leaves are made ready here, from this tree's random numbers, unless
    /// [`Batch::prepare`] did it.
    ///
    /// # Errors
    /// As [`PuctTree::backup`]; the batch is then kept, for [`PuctTree::abort_batch`].
    pub fn backup_from(
        &mut self,
        batch: &mut Batch<G::State>,
        policy: &[f32],
        values: &[f32],
    ) -> std::result::Result<(), BadAnswer> {
        if batch.ends.len() != batch.rows {
            let mix = self.config.playout_mix;
            batch.prepare(&*self.game, &*self.eval, policy, values, mix, &mut self.rng)?;
        }
        let mut row = 0;
        for p in &batch.pending {
            let path = &batch.paths[p.path.0 as usize..p.path.1 as usize];
            self.tree.remove_virtual_loss(path);
            let i = p.node as usize;
            match p.leaf {
                Leaf::Row => {}
                Leaf::Exact(r) => {
                    self.tree.keep_value(i, Kind::Solved, r);
                    self.tree.add_visit(path, &r);
                    self.iterations += 1;
                    continue;
                }
                Leaf::Collision => continue,
                // Never resolved (a caller's slip): it is left to a later selection.
                Leaf::Unresolved => {
                    self.tree.nodes[i].kind = Kind::Unseen;
                    continue;
                }
            }
            let start = if row == 0 { 0 } else { batch.ends[row - 1] };
            let kids = &batch.children[start..batch.ends[row]];
            let r = batch.returns[row];
            row += 1;
            if i == 0 {
                self.root_raw = Some(r[p.to_move as usize]);
            }
            if !self.expand(i, p.to_move, kids) {
                self.tree.keep_value(i, Kind::Frozen, r);
            }
            self.tree.add_visit(path, &r);
            if i != 0 {
                self.iterations += 1;
            }
        }
        self.in_flight -= batch.claimed as u64;
        batch.clear();
        if self.iterations >= self.limits.iterations {
            self.done = true;
        }
        Ok(())
    }

    /// Drops the pending leaves of the last gather, and stops (an error in the evaluator, an
    /// interrupt).
    pub(super) fn abort(&mut self) {
        let mut batch = std::mem::take(&mut self.batch);
        self.abort_batch(&mut batch);
    }

    /// Drops the pending leaves of `batch` (emptied), and stops the search.
    pub fn abort_batch(&mut self, batch: &mut Batch<G::State>) {
        for p in &batch.pending {
            self.tree
                .remove_virtual_loss(&batch.paths[p.path.0 as usize..p.path.1 as usize]);
            if p.node != NONE && self.tree.nodes[p.node as usize].kind == Kind::Pending {
                self.tree.nodes[p.node as usize].kind = Kind::Unseen;
            }
        }
        self.in_flight -= batch.claimed as u64;
        batch.clear();
        self.stop(true);
    }

    /// Expands `i` with `children` (moves and priors, [`Batch::prepare`]); false when the
    /// tree has no room (the root is always expanded).
    fn expand(&mut self, i: usize, mover: u8, children: &[(Action, f32)]) -> bool {
        if !self
            .tree
            .reserve(i, children.len(), self.config.nodes_per_tree())
            && i != 0
        {
            return false;
        }
        self.tree.expand(i, mover, children.iter().copied());
        if i == 0 {
            self.add_noise();
            self.start_gumbel();
        }
        true
    }

    /// Mixes Dirichlet noise into the root's priors (once per search).
    fn add_noise(&mut self) {
        self.noised = true;
        // Gumbel's noise is its exploration.
        let (Some((alpha, frac)), RootRule::Puct) = (self.config.dirichlet, self.config.root)
        else {
            return;
        };
        let children = self.tree.nodes[0].children();
        if children.len() < 2 || frac == 0.0 {
            return;
        }
        let noise: Vec<f64> = children
            .clone()
            .map(|_| gamma(&mut self.rng, alpha))
            .collect();
        let sum: f64 = noise.iter().sum();
        if !(sum > 0.0 && sum.is_finite()) {
            return;
        }
        for (k, c) in children.enumerate() {
            let p = self.tree.nodes[c].prior as f64;
            self.tree.nodes[c].prior = ((1.0 - frac) * p + frac * noise[k] / sum) as f32;
        }
    }

    /// The result of the current search (call once it is done): the most visited root move,
    /// or with the Gumbel root rule the move it chose.
    pub fn result(&self, elapsed: std::time::Duration) -> SearchResult {
        let tree = &self.tree;
        let mut visits: Vec<(Action, u64)> = tree.root_stats().map(|s| (s.0, s.1)).collect();
        visits.sort_by_key(|v| v.0);
        let best_child = match &self.gumbel {
            Some(g) if self.root_expanded() => Some(g.best(tree)),
            _ => most_visited(tree.root_stats()).and_then(|s| tree.child(0, s.0)),
        };
        let (best, value, exact) = match best_child {
            Some(c) => {
                let n = &tree.nodes[c];
                let exact = n.kind == Kind::Solved && self.root_settled();
                let value = if n.kind == Kind::Solved {
                    tree.value_of(c)[n.mover as usize]
                } else {
                    n.mean()
                };
                (n.action, value.clamp(-1.0, 1.0), exact)
            }
            None => (0, 0.0, false),
        };
        SearchResult {
            best,
            value,
            pv: tree.principal_variation(best),
            nodes: tree.nodes.len() as u64,
            iterations: self.iterations,
            depth: tree.max_depth,
            elapsed,
            visits,
            exact,
            interrupted: self.interrupted,
        }
    }

    /// The root's value for the player to move: the mean value of its children weighted by
    /// visits (0 before any visit).
    pub fn root_value(&self) -> f64 {
        self.tree.root_value()
    }

    /// Gumbel's improved policy at the root, the training target: `softmax(logits +
    /// sigma(completed_q))` over the root moves kept, as `(action, probability)` in ascending
    /// action order (see [`crate::search::gumbel`]; with the PUCT root rule, `sigma` takes
    /// [`GumbelConfig`]'s defaults). Empty before the root is valued.
    pub fn improved_policy(&self) -> Vec<(Action, f32)> {
        if !self.root_expanded() {
            return Vec::new();
        }
        let (config, raw) = match (&self.gumbel, self.config.root) {
            (Some(g), RootRule::Gumbel(config)) => (config, g.raw_value()),
            _ => (
                GumbelConfig::default(),
                self.root_raw.unwrap_or_else(|| self.tree.root_value()),
            ),
        };
        let mut policy = gumbel::improved_policy(&self.tree, config, raw);
        policy.sort_by_key(|p| p.0);
        policy
    }
}

/// A standard normal deviate (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.unit();
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A Gamma(alpha, 1) deviate (Marsaglia and Tsang).
pub(crate) fn gamma(rng: &mut Rng, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u = rng.unit();
        return gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = rng.unit();
        if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests;
