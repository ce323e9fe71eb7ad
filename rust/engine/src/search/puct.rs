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
//! the leaves and backs the values up. [`Forest`] does the same for many trees at once, each
//! contributing its leaves to one shared batch, and [`run`] drives it with a
//! [`BatchEvaluator`].
//!
//! - Selection: `q + c * p * sqrt(N) / (1 + n)` with `q` the mean return of the player who
//!   moves into the child (0 for an unvisited child), `p` the prior (softmax of the
//!   evaluator's logits over the moves kept), `N` the parent's visits and `n` the child's,
//!   both counting pending (virtual) visits. A pending visit counts as a loss (-1).
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
use crate::search::budget::{Budget, Clock, StopFlag};
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
}

impl Default for PuctConfig {
    fn default() -> Self {
        PuctConfig {
            exploration: 1.25,
            batch_size: 16,
            dirichlet: None,
            reuse: true,
            memory_mb: crate::search::mcts::DEFAULT_MEMORY_MB,
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
            return crate::invalid!(
                "batch_size = {}: expected 1 to {MAX_BATCH}",
                self.batch_size
            );
        }
        if !self.exploration.is_finite() || !(0.0..=1e6).contains(&self.exploration) {
            return crate::invalid!(
                "exploration = {}: expected a finite number from 0 to 1e6",
                self.exploration
            );
        }
        if let Some((alpha, frac)) = self.dirichlet {
            if !alpha.is_finite() || !(1e-3..=1e3).contains(&alpha) {
                return crate::invalid!("dirichlet alpha = {alpha}: expected 0.001 to 1000");
            }
            if !frac.is_finite() || !(0.0..=1.0).contains(&frac) {
                return crate::invalid!("dirichlet fraction = {frac}: expected 0 to 1");
            }
        }
        let max = crate::search::mcts::MAX_MEMORY_MB;
        if !(1..=max).contains(&self.memory_mb) {
            return crate::invalid!("memory_mb = {}: expected 1 to {max}", self.memory_mb);
        }
        Ok(())
    }

    fn nodes_per_tree(&self) -> usize {
        let bytes = self.memory_mb.min(crate::search::mcts::MAX_MEMORY_MB) << 20;
        (bytes / NODE_BYTES).clamp(1, u32::MAX as usize - 2048)
    }
}

/// The bytes one node is counted as against [`PuctConfig::memory_mb`].
pub const NODE_BYTES: usize = std::mem::size_of::<Node>() + std::mem::size_of::<Returns>();

const UNSEEN: u8 = 0;
const PENDING: u8 = 1;
const EXPANDED: u8 = 2;
/// Valued exactly (over, or solved by the game's evaluation).
const SOLVED: u8 = 3;
/// Valued once by the evaluator and never expanded (the tree was full): its value is kept.
const FROZEN: u8 = 4;
const NONE: u32 = u32::MAX;
/// The mover of the root (nobody moved into it).
const ROOT: u8 = u8::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    action: Action,
    first_child: u32,
    visits: u32,
    /// Pending visits (virtual losses).
    pending: u32,
    /// For `SOLVED` and `FROZEN` nodes, the index of their returns in `PuctTree::values`.
    value_index: u32,
    /// Sum of the returns of `mover`.
    value: f64,
    prior: f32,
    n_children: u16,
    mover: u8,
    kind: u8,
}

impl Node {
    fn new(action: Action, mover: u8, prior: f32) -> Node {
        Node {
            action,
            first_child: NONE,
            visits: 0,
            pending: 0,
            value_index: NONE,
            value: 0.0,
            prior,
            n_children: 0,
            mover,
            kind: UNSEEN,
        }
    }
    #[inline]
    fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..self.first_child as usize + self.n_children as usize
    }
    fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.value / self.visits as f64
        }
    }
}

/// A leaf sent to the evaluator, or a collision (a path that met a pending leaf and holds a
/// virtual loss until the next backup).
#[derive(Clone, Copy, Debug)]
struct Pending<S> {
    /// The leaf, `NONE` for a collision.
    node: u32,
    state: S,
    to_move: u8,
    path: (u32, u32),
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
    nodes: Vec<Node>,
    values: Vec<Returns>,
    root: Option<G::State>,
    rng: Rng,
    pending: Vec<Pending<G::State>>,
    paths: Vec<u32>,
    /// Rows of the last gather (leaves, not collisions).
    rows: usize,
    iterations: u64,
    limits: Limits,
    max_depth: u32,
    done: bool,
    interrupted: bool,
    noised: bool,
    actions: ActionList,
}

impl<G: GameIo, E: Evaluate<G>> PuctTree<G, E> {
    /// An empty tree for `game` whose random choices come from `seed` alone (callers that
    /// search many trees derive it from `(seed, i)`, [`Rng::for_item`]).
    pub fn new(game: Arc<G>, eval: Arc<E>, config: PuctConfig, seed: u64) -> PuctTree<G, E> {
        PuctTree {
            game,
            eval,
            config,
            nodes: Vec::new(),
            values: Vec::new(),
            root: None,
            rng: Rng::new(seed),
            pending: Vec::new(),
            paths: Vec::new(),
            rows: 0,
            iterations: 0,
            limits: Limits {
                iterations: 0,
                nodes: 0,
            },
            max_depth: 0,
            done: true,
            interrupted: false,
            noised: false,
            actions: ActionList::new(),
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

    /// Sets the Dirichlet noise of the next searches (self-play turns it off for fast
    /// searches).
    pub fn set_dirichlet(&mut self, dirichlet: Option<(f64, f64)>) {
        self.config.dirichlet = dirichlet;
    }

    /// Nodes held.
    pub fn size(&self) -> usize {
        self.nodes.len()
    }

    /// Leaves valued so far in the current search.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Forgets the tree.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.values.clear();
        self.root = None;
        self.pending.clear();
        self.paths.clear();
        self.done = true;
    }

    /// Starts a search of `state` within `budget` (iterations and nodes; time is the
    /// driver's, see [`Forest`]): keeps the part of the old tree below `state` when reuse is
    /// on.
    ///
    /// # Errors
    /// `Error::Invalid` for a finished game, an unbounded budget or bad settings.
    pub fn start(&mut self, state: &G::State, budget: &Budget) -> Result<()> {
        check_start(&*self.game, state, budget, Algorithm::Mcts)?;
        self.config.check()?;
        let plies = self.game.num_players().max(2);
        let kept = self.config.reuse && self.reroot(state, plies);
        if !kept {
            self.reset(*state);
        }
        self.pending.clear();
        self.paths.clear();
        self.rows = 0;
        self.iterations = 0;
        self.max_depth = 0;
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
        if self.nodes[0].kind == EXPANDED && !self.noised {
            self.add_noise();
        }
        Ok(())
    }

    /// Moves the root down to the child reached by `action` (self-play), keeping its subtree;
    /// a fresh tree when that child was never expanded. `state` must be the new position.
    pub fn advance(&mut self, action: Action, state: &G::State) {
        let child = match self.root {
            Some(_) if self.nodes.first().is_some_and(|n| n.kind == EXPANDED) => self.nodes[0]
                .children()
                .find(|&c| self.nodes[c].action == action),
            _ => None,
        };
        match child {
            Some(c) if self.config.reuse => self.keep_subtree(c, *state),
            _ => self.reset(*state),
        }
    }

    fn reset(&mut self, state: G::State) {
        self.nodes.clear();
        self.values.clear();
        self.nodes.push(Node::new(Action::MAX, ROOT, 1.0));
        self.root = Some(state);
        self.noised = false;
    }

    /// Re-roots the tree at `target` when it lies within `max_plies` plies below the current
    /// root. Returns whether any of the tree was kept.
    fn reroot(&mut self, target: &G::State, max_plies: usize) -> bool {
        let Some(root) = self.root else {
            return false;
        };
        if self.nodes.is_empty() {
            return false;
        }
        if root == *target {
            return true;
        }
        let game = &*self.game;
        let mut frontier = vec![(0usize, root)];
        for _ in 0..max_plies {
            let mut next = Vec::new();
            for (i, s) in frontier {
                if self.nodes[i].kind != EXPANDED {
                    continue;
                }
                for c in self.nodes[i].children() {
                    let mut cs = s;
                    game.apply(&mut cs, self.nodes[c].action);
                    if cs == *target {
                        self.keep_subtree(c, cs);
                        return true;
                    }
                    next.push((c, cs));
                }
            }
            frontier = next;
        }
        false
    }

    /// Copies the subtree of `new_root` into a fresh arena of exactly its size.
    fn keep_subtree(&mut self, new_root: usize, state: G::State) {
        if self.nodes[new_root].kind != EXPANDED {
            self.reset(state);
            return;
        }
        let mut size = 0usize;
        let mut stack = vec![new_root];
        while let Some(i) = stack.pop() {
            size += 1;
            if self.nodes[i].kind == EXPANDED {
                stack.extend(self.nodes[i].children());
            }
        }
        let mut nodes = Vec::with_capacity(size);
        let mut values = Vec::new();
        let mut root_node = self.nodes[new_root];
        root_node.action = Action::MAX;
        root_node.mover = ROOT;
        nodes.push(root_node);
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            if n.value_index != NONE {
                values.push(self.values[n.value_index as usize]);
                nodes[i].value_index = (values.len() - 1) as u32;
            }
            if n.kind == EXPANDED {
                let first = nodes.len() as u32;
                nodes.extend_from_slice(&self.nodes[n.children()]);
                nodes[i].first_child = first;
            }
            i += 1;
        }
        self.nodes = nodes;
        self.values = values;
        self.root = Some(state);
        self.noised = false;
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
        self.pending
            .iter()
            .filter(|p| p.node != NONE)
            .map(|p| &p.state)
    }

    /// Selects up to `batch_size` leaves (fewer when `obs` has room for fewer rows) and writes
    /// their observations and legal masks, one row each, to the start of `obs` (rows of
    /// [`GameIo::observation_len`]) and `mask` (rows of [`Game::num_actions`]). Returns the
    /// number of rows; call [`PuctTree::backup`] with the evaluator's answers (also after 0
    /// rows: it releases the virtual losses). Leaves valued exactly are backed up here and
    /// need no row.
    pub fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize {
        debug_assert!(self.pending.is_empty(), "gather twice without a backup");
        self.pending.clear();
        self.paths.clear();
        self.rows = 0;
        if self.done {
            return 0;
        }
        let game = self.game.clone();
        let game = &*game;
        let obs_len = game.observation_len();
        let num_actions = game.num_actions();
        let room = (obs.len() / obs_len.max(1)).min(mask.len() / num_actions.max(1));
        let want = self.config.batch_size.min(room);
        if want == 0 {
            return 0;
        }
        let root_state = self.root.expect("start() sets the root");
        if self.nodes[0].kind != EXPANDED {
            // The root first, alone: its children need its priors.
            self.push_leaf(0, root_state, &[0], obs, mask);
            return self.rows;
        }
        if self.root_settled() || self.nodes.len() >= self.limits.nodes {
            self.done = true;
            return 0;
        }
        // Each attempt adds a row, backs up an exact leaf, or collides; bound them so that a
        // tree whose leaves are all exact still returns to the driver (its clock).
        let mut attempts = 0;
        let max_attempts = 4 * want + 64;
        let mut collisions = 0;
        let mut path: Vec<u32> = Vec::with_capacity(64);
        while self.rows < want
            && attempts < max_attempts
            && collisions < want
            && self.iterations + (self.rows as u64) < self.limits.iterations
        {
            attempts += 1;
            let mut s = root_state;
            path.clear();
            path.push(0);
            let mut i = 0usize;
            while self.nodes[i].kind == EXPANDED {
                let c = self.select(i);
                game.apply(&mut s, self.nodes[c].action);
                path.push(c as u32);
                i = c;
            }
            if self.nodes[i].kind == UNSEEN {
                self.classify(i, &s);
            }
            match self.nodes[i].kind {
                SOLVED | FROZEN => {
                    let r = self.values[self.nodes[i].value_index as usize];
                    self.add_visit(&path, &r);
                    self.iterations += 1;
                }
                PENDING => {
                    collisions += 1;
                    let start = self.paths.len() as u32;
                    self.paths.extend_from_slice(&path);
                    for &j in &path {
                        self.nodes[j as usize].pending += 1;
                    }
                    self.pending.push(Pending {
                        node: NONE,
                        state: s,
                        to_move: 0,
                        path: (start, self.paths.len() as u32),
                    });
                }
                _ => self.push_leaf(i, s, &path, obs, mask),
            }
        }
        if self.iterations >= self.limits.iterations {
            self.done = true;
        }
        self.rows
    }

    /// Whether every child of the root is valued exactly: more search changes nothing.
    fn root_settled(&self) -> bool {
        let root = &self.nodes[0];
        root.kind == EXPANDED && root.children().all(|c| self.nodes[c].kind == SOLVED)
    }

    /// Marks `i` pending, adds a virtual loss along `path` and writes its row.
    fn push_leaf(
        &mut self,
        i: usize,
        s: G::State,
        path: &[u32],
        obs: &mut [f32],
        mask: &mut [bool],
    ) {
        let game = &*self.game;
        let to_move = game
            .to_move(&s)
            .expect("a pending leaf is not over (finished positions are solved)");
        let row = self.rows;
        let obs_len = game.observation_len();
        let a_len = game.num_actions();
        game.write_observation(&s, to_move, &mut obs[row * obs_len..(row + 1) * obs_len]);
        let m = &mut mask[row * a_len..(row + 1) * a_len];
        m.fill(false);
        self.actions.clear();
        game.legal_actions(&s, &mut self.actions);
        for &a in &self.actions {
            m[a as usize] = true;
        }
        self.nodes[i].kind = PENDING;
        let start = self.paths.len() as u32;
        self.paths.extend_from_slice(path);
        for &j in path {
            self.nodes[j as usize].pending += 1;
        }
        self.pending.push(Pending {
            node: i as u32,
            state: s,
            to_move: to_move as u8,
            path: (start, self.paths.len() as u32),
        });
        self.rows += 1;
    }

    fn classify(&mut self, i: usize, s: &G::State) {
        let solved = if self.game.is_over(s) {
            Some(self.game.returns(s))
        } else {
            self.eval.exact(&self.game, s)
        };
        if let Some(r) = solved {
            self.values.push(r);
            self.nodes[i].value_index = (self.values.len() - 1) as u32;
            self.nodes[i].kind = SOLVED;
        }
    }

    fn add_visit(&mut self, path: &[u32], r: &Returns) {
        self.max_depth = self.max_depth.max(path.len() as u32 - 1);
        for &j in path {
            let n = &mut self.nodes[j as usize];
            n.visits += 1;
            if n.mover != ROOT {
                n.value += r[n.mover as usize];
            }
        }
    }

    /// Takes the evaluator's answers for the rows of the last [`PuctTree::gather`]:
    /// `policy` holds `rows * num_actions` logits (illegal entries are ignored) and `values`
    /// `rows * num_players` values per seat from the player to move (see the module docs).
    /// Both must be finite (the caller checks).
    pub fn backup(&mut self, policy: &[f32], values: &[f32]) {
        let game = self.game.clone();
        let game = &*game;
        let a_len = game.num_actions();
        let n = game.num_players();
        let pending = std::mem::take(&mut self.pending);
        let mut row = 0;
        for p in &pending {
            let path: Vec<u32> = self.paths[p.path.0 as usize..p.path.1 as usize].to_vec();
            for &j in &path {
                self.nodes[j as usize].pending -= 1;
            }
            if p.node == NONE {
                continue;
            }
            let logits = &policy[row * a_len..(row + 1) * a_len];
            let v = &values[row * n..(row + 1) * n];
            row += 1;
            let mut r: Returns = [0.0; MAX_PLAYERS];
            for (k, &x) in v.iter().enumerate() {
                r[(p.to_move as usize + k) % n] = (x as f64).clamp(-1.0, 1.0);
            }
            let i = p.node as usize;
            if !self.expand(i, &p.state, p.to_move, logits) {
                self.values.push(r);
                self.nodes[i].value_index = (self.values.len() - 1) as u32;
                self.nodes[i].kind = FROZEN;
            }
            self.add_visit(&path, &r);
            if i != 0 {
                self.iterations += 1;
            }
        }
        self.pending = pending;
        self.pending.clear();
        self.paths.clear();
        self.rows = 0;
        if self.iterations >= self.limits.iterations {
            self.done = true;
        }
    }

    /// Expands `i` with priors from `logits`; false when the tree has no room (the root is
    /// always expanded).
    fn expand(&mut self, i: usize, s: &G::State, mover: u8, logits: &[f32]) -> bool {
        let game = &*self.game;
        let mut actions = ActionList::new();
        game.legal_actions(s, &mut actions);
        self.eval.prune_actions(game, s, &mut actions);
        let needed = self.nodes.len() + actions.len();
        let memory = self.config.nodes_per_tree();
        if i != 0 && needed > memory {
            return false;
        }
        if needed > self.nodes.capacity() {
            let target = needed.max((2 * self.nodes.capacity()).min(memory));
            if self
                .nodes
                .try_reserve_exact(target - self.nodes.len())
                .is_err()
                && self.nodes.try_reserve_exact(actions.len()).is_err()
                && i != 0
            {
                return false;
            }
        }
        // A random order breaks ties between equal children.
        self.rng.shuffle(&mut actions);
        let max = actions
            .iter()
            .map(|&a| logits[a as usize] as f64)
            .fold(f64::NEG_INFINITY, f64::max);
        let weights: ArrayF64 = actions
            .iter()
            .map(|&a| (logits[a as usize] as f64 - max).exp())
            .collect();
        let sum: f64 = weights.iter().sum();
        let first = self.nodes.len() as u32;
        for (k, &a) in actions.iter().enumerate() {
            self.nodes
                .push(Node::new(a, mover, (weights[k] / sum) as f32));
        }
        let node = &mut self.nodes[i];
        node.first_child = first;
        node.n_children = actions.len() as u16;
        node.kind = EXPANDED;
        if i == 0 {
            self.add_noise();
        }
        true
    }

    /// Mixes Dirichlet noise into the root's priors (once per search).
    fn add_noise(&mut self) {
        self.noised = true;
        let Some((alpha, frac)) = self.config.dirichlet else {
            return;
        };
        let children = self.nodes[0].children();
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
            let p = self.nodes[c].prior as f64;
            self.nodes[c].prior = ((1.0 - frac) * p + frac * noise[k] / sum) as f32;
        }
    }

    #[inline]
    fn select(&self, i: usize) -> usize {
        let parent = &self.nodes[i];
        let c = self.config.exploration;
        let sqrt_n = ((parent.visits + parent.pending).max(1) as f64).sqrt();
        let mut best = parent.first_child as usize;
        let mut best_score = f64::NEG_INFINITY;
        for k in parent.children() {
            let ch = &self.nodes[k];
            let n = ch.visits + ch.pending;
            let q = if n == 0 {
                0.0
            } else {
                (ch.value - ch.pending as f64) / n as f64
            };
            let score = q + c * ch.prior as f64 * sqrt_n / (1.0 + n as f64);
            if score > best_score {
                best_score = score;
                best = k;
            }
        }
        best
    }

    /// The result of the current search (call once it is done): the most visited root move.
    pub fn result(&self, elapsed: std::time::Duration) -> SearchResult {
        let root = &self.nodes[0];
        let mut visits: Vec<(Action, u64)> = root
            .children()
            .map(|c| (self.nodes[c].action, self.nodes[c].visits as u64))
            .collect();
        visits.sort_by_key(|v| v.0);
        let best_child = root.children().max_by(|&x, &y| {
            let (a, b) = (&self.nodes[x], &self.nodes[y]);
            let ma = if a.visits > 0 { a.mean() } else { -2.0 };
            let mb = if b.visits > 0 { b.mean() } else { -2.0 };
            a.visits
                .cmp(&b.visits)
                .then(ma.total_cmp(&mb))
                .then(b.action.cmp(&a.action))
        });
        let (best, value, exact) = match best_child {
            Some(c) => {
                let n = &self.nodes[c];
                let exact =
                    n.kind == SOLVED && root.children().all(|k| self.nodes[k].kind == SOLVED);
                let value = if n.kind == SOLVED {
                    self.values[n.value_index as usize][n.mover as usize]
                } else {
                    n.mean()
                };
                (n.action, value.clamp(-1.0, 1.0), exact)
            }
            None => (0, 0.0, false),
        };
        let mut pv = vec![best];
        let mut i = best_child.unwrap_or(0);
        while best_child.is_some() && self.nodes[i].kind == EXPANDED && pv.len() < 64 {
            let Some(c) = self.nodes[i]
                .children()
                .filter(|&c| self.nodes[c].visits > 0)
                .max_by_key(|&c| (self.nodes[c].visits, std::cmp::Reverse(c)))
            else {
                break;
            };
            pv.push(self.nodes[c].action);
            i = c;
        }
        SearchResult {
            best,
            value,
            pv,
            nodes: self.nodes.len() as u64,
            iterations: self.iterations,
            depth: self.max_depth,
            elapsed,
            visits,
            exact,
            interrupted: self.interrupted,
        }
    }

    /// The root's value for the player to move: the mean value of its children weighted by
    /// visits (0 before any visit).
    pub fn root_value(&self) -> f64 {
        let root = &self.nodes[0];
        let (mut sum, mut n) = (0.0, 0u64);
        for c in root.children() {
            sum += self.nodes[c].value;
            n += self.nodes[c].visits as u64;
        }
        if n == 0 {
            0.0
        } else {
            sum / n as f64
        }
    }
}

type ArrayF64 = arrayvec::ArrayVec<f64, { crate::game::MAX_ACTIONS }>;

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

/// Values a batch of leaves: called by [`run`] with `n` rows.
pub trait BatchEvaluator<G: Game> {
    /// Fills `policy` (`n * num_actions` logits) and `values` (`n * num_players`, per seat from
    /// the player to move) for the `n` rows of `obs` and `mask`; `states` are the leaves'
    /// positions (for evaluators written in Rust).
    ///
    /// # Errors
    /// Any error stops the search and is returned by [`run`].
    fn evaluate(
        &mut self,
        states: &[G::State],
        obs: &[f32],
        mask: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) -> Result<()>;
}

/// Many trees searched together: each round every tree that is not done gathers up to its
/// `batch_size` leaves into one shared batch (see [`PuctTree::gather`]).
pub struct Forest<G: Game, E> {
    /// The trees, in the order of their states.
    pub trees: Vec<PuctTree<G, E>>,
    rows: Vec<usize>,
    clock: Option<Clock>,
}

impl<G: GameIo, E: Evaluate<G>> Forest<G, E> {
    /// A forest of these trees (all of games with the same observation shape, action space
    /// and players).
    ///
    /// # Errors
    /// `Error::Invalid` when the trees' games differ in those sizes.
    pub fn new(trees: Vec<PuctTree<G, E>>) -> Result<Forest<G, E>> {
        if let Some(first) = trees.first() {
            let g = first.game();
            let shape = (g.observation_shape(), g.num_actions(), g.num_players());
            for (i, t) in trees.iter().enumerate() {
                let h = t.game();
                if (h.observation_shape(), h.num_actions(), h.num_players()) != shape {
                    return crate::invalid!(
                        "state {i} is of a game with another observation shape, action space or \
                         player count than state 0: one batch needs one shape"
                    );
                }
            }
        }
        let n = trees.len();
        Ok(Forest {
            trees,
            rows: vec![0; n],
            clock: None,
        })
    }

    /// Starts every tree's search (tree `i` on `states[i]`) within `budget` (iterations and
    /// nodes per tree; time for all), stopped early by `stop`.
    ///
    /// # Errors
    /// As [`PuctTree::start`], naming the state.
    pub fn start(&mut self, states: &[G::State], budget: &Budget, stop: StopFlag) -> Result<()> {
        if states.len() != self.trees.len() {
            return crate::invalid!("{} states for {} trees", states.len(), self.trees.len());
        }
        for (i, (t, s)) in self.trees.iter_mut().zip(states).enumerate() {
            t.start(s, budget).map_err(|e| match e {
                crate::Error::Invalid(m) if states.len() > 1 => {
                    crate::Error::Invalid(format!("state {i}: {m}"))
                }
                e => e,
            })?;
        }
        self.clock = Some(Clock::start(budget, stop));
        Ok(())
    }

    /// Rows one round may need: the sum of the trees' batch sizes.
    pub fn capacity(&self) -> usize {
        self.trees.iter().map(|t| t.config.batch_size).sum()
    }

    /// Whether every tree is done.
    pub fn is_done(&self) -> bool {
        self.trees.iter().all(|t| t.is_done())
    }

    /// Gathers one round of leaves of every tree into `obs` and `mask` (rows of all trees
    /// together, tree by tree); returns the rows. Reads the clock first: past the deadline or
    /// with the stop flag raised, every tree is done.
    pub fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize {
        if let Some(clock) = &self.clock {
            if clock.expired() {
                let interrupted = clock.stopped();
                for t in &mut self.trees {
                    // A root never valued has no move to give: it is valued first.
                    if !t.is_done() && t.nodes.first().is_some_and(|n| n.kind == EXPANDED) {
                        t.stop(interrupted);
                    }
                }
            }
        }
        let Some(first) = self.trees.first() else {
            return 0;
        };
        // Exact evaluations that search (the Fish region solver) read this clock too.
        let _clock = self.clock.as_ref().map(Clock::enter);
        let obs_len = first.game.observation_len();
        let a_len = first.game.num_actions();
        let mut total = 0;
        for (t, rows) in self.trees.iter_mut().zip(self.rows.iter_mut()) {
            *rows = t.gather(&mut obs[total * obs_len..], &mut mask[total * a_len..]);
            total += *rows;
        }
        total
    }

    /// The positions of the rows of the last gather.
    pub fn pending_states(&self) -> Vec<G::State> {
        self.trees
            .iter()
            .flat_map(|t| t.pending_states().copied())
            .collect()
    }

    /// Hands the evaluator's answers for the last gather's rows back to the trees.
    pub fn backup(&mut self, policy: &[f32], values: &[f32]) {
        let Some(first) = self.trees.first() else {
            return;
        };
        let a_len = first.game.num_actions();
        let n = first.game.num_players();
        let _clock = self.clock.as_ref().map(Clock::enter);
        let mut row = 0;
        for (t, &rows) in self.trees.iter_mut().zip(&self.rows) {
            t.backup(&policy[row * a_len..], &values[row * n..]);
            row += rows;
        }
    }

    /// Stops every tree (an error in the evaluator, an interrupt); their pending leaves are
    /// dropped.
    pub fn abort(&mut self) {
        for t in &mut self.trees {
            for p in std::mem::take(&mut t.pending) {
                for &j in &t.paths[p.path.0 as usize..p.path.1 as usize] {
                    t.nodes[j as usize].pending -= 1;
                }
                if p.node != NONE && t.nodes[p.node as usize].kind == PENDING {
                    t.nodes[p.node as usize].kind = UNSEEN;
                }
            }
            t.paths.clear();
            t.stop(true);
        }
    }

    /// Every tree's result.
    pub fn results(&self) -> Vec<SearchResult> {
        let elapsed = self.clock.as_ref().map(Clock::elapsed).unwrap_or_default();
        self.trees.iter().map(|t| t.result(elapsed)).collect()
    }
}

/// A search driven in rounds by an outside evaluator: [`Forest`], and the self-play driver.
/// Each round: [`Stepped::gather`] writes rows, the caller values them, [`Stepped::backup`]
/// takes the answers (also after a round of 0 rows), until [`Stepped::is_done`].
pub trait Stepped<G: Game>: Send {
    /// Numbers of `f32`s in one observation row.
    fn obs_len(&self) -> usize;
    /// The game's action space (mask and policy row length).
    fn num_actions(&self) -> usize;
    /// The game's players (values row length).
    fn num_players(&self) -> usize;
    /// The most rows one round may write.
    fn capacity(&self) -> usize;
    /// Writes the next round's rows; returns their number.
    fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize;
    /// The positions of the last round's rows.
    fn pending_states(&self) -> Vec<G::State>;
    /// Takes the answers for the last round's rows.
    fn backup(&mut self, policy: &[f32], values: &[f32]);
    /// Whether the work is done.
    fn is_done(&self) -> bool;
    /// Drops the pending rows and stops (after an evaluator error).
    fn abort(&mut self);
}

impl<G: GameIo, E: Evaluate<G>> Stepped<G> for Forest<G, E> {
    fn obs_len(&self) -> usize {
        self.trees.first().map_or(0, |t| t.game.observation_len())
    }
    fn num_actions(&self) -> usize {
        self.trees.first().map_or(0, |t| t.game.num_actions())
    }
    fn num_players(&self) -> usize {
        self.trees.first().map_or(0, |t| t.game.num_players())
    }
    fn capacity(&self) -> usize {
        Forest::capacity(self)
    }
    fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize {
        Forest::gather(self, obs, mask)
    }
    fn pending_states(&self) -> Vec<G::State> {
        Forest::pending_states(self)
    }
    fn backup(&mut self, policy: &[f32], values: &[f32]) {
        Forest::backup(self, policy, values)
    }
    fn is_done(&self) -> bool {
        Forest::is_done(self)
    }
    fn abort(&mut self) {
        Forest::abort(self)
    }
}

/// Drives `work` with `evaluator` until it is done.
///
/// # Errors
/// The evaluator's error (the work is aborted first).
pub fn drive<G: Game, W: Stepped<G>, B: BatchEvaluator<G>>(
    work: &mut W,
    evaluator: &mut B,
) -> Result<()> {
    let (obs_len, a_len, n) = (work.obs_len(), work.num_actions(), work.num_players());
    let cap = work.capacity();
    let mut obs = vec![0.0f32; cap * obs_len];
    let mut mask = vec![false; cap * a_len];
    let mut policy = vec![0.0f32; cap * a_len];
    let mut values = vec![0.0f32; cap * n];
    while !work.is_done() {
        let rows = work.gather(&mut obs, &mut mask);
        if rows > 0 {
            let states = work.pending_states();
            if let Err(e) = evaluator.evaluate(
                &states,
                &obs[..rows * obs_len],
                &mask[..rows * a_len],
                &mut policy[..rows * a_len],
                &mut values[..rows * n],
            ) {
                work.abort();
                return Err(e);
            }
        }
        work.backup(&policy, &values);
    }
    Ok(())
}

/// Searches `states` (tree `i` on `states[i]`) with `evaluator` until every tree is done; see
/// [`Forest`].
///
/// # Errors
/// As [`Forest::start`], or the evaluator's error.
pub fn run<G: GameIo, E: Evaluate<G>, B: BatchEvaluator<G>>(
    forest: &mut Forest<G, E>,
    states: &[G::State],
    budget: &Budget,
    stop: StopFlag,
    evaluator: &mut B,
) -> Result<Vec<SearchResult>> {
    forest.start(states, budget, stop)?;
    drive(forest, evaluator)?;
    Ok(forest.results())
}

#[cfg(test)]
mod tests;
