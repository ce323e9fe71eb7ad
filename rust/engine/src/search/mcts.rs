//! Monte Carlo tree search for any number of players.
//!
//! Each node keeps the sum of the rewards *of the player who moved into it*, so selection at a
//! node picks the child that is best for the player to move there (max-n backup): this works for
//! any number of players and for turn orders that skip players. Selection is UCT or PUCT (priors
//! from the evaluator's order hints), leaves are valued by a playout (random, or the evaluator's
//! policy) or by the evaluator directly, and a position the evaluator solves exactly is a leaf
//! with that value. Trees are kept between searches and re-rooted at the new position when it is
//! a few plies below the old root. Several threads search independent trees (root parallelism)
//! whose root statistics are summed; one thread with a given seed and an iteration budget always
//! gives the same result. The tree itself (nodes, re-rooting, the selection rules, the principal
//! variation) is the one PUCT uses too, in `search/tree.rs`.
//!
//! # Memory
//!
//! The trees of one searcher hold at most [`MctsConfig::memory_mb`] MiB of nodes (1 GiB by
//! default), counted as [`NODE_BYTES`] per node (a node plus the returns a solved node keeps)
//! and shared equally between the threads' trees. A tree that is full is not expanded further:
//! the search goes on (until its time, iteration or node budget) with playouts from the
//! existing leaves, so its statistics keep improving while its memory stays flat. The root is
//! always expanded. Re-rooting a kept tree copies the reachable subtree into an arena of
//! exactly its size and frees the rest.

use crate::error::Result;
use crate::game::{Action, ActionList, Game};
use crate::rng::Rng;
use crate::search::budget::{Budget, Clock, Pacer, StopFlag};
use crate::search::tree::{self, most_visited, Kind, RootStat, Rule, Tree};
use crate::search::{check_start, Algorithm, Evaluate, SearchResult};
use crate::threads::KeptPool;

/// How a child is selected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selection {
    /// UCB1: `q + c * sqrt(ln N / n)`.
    Uct,
    /// AlphaZero's rule: `q + c * prior * sqrt(N) / (1 + n)`, priors `∝ exp(hint / 100)`
    /// from [`Evaluate::order_hint`] (uniform without hints).
    Puct,
}

/// How a new leaf is valued.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf {
    /// [`Evaluate::playout`] to the end of the game (uniformly random for [`crate::search::NoEval`]).
    Playout,
    /// [`Evaluate::evaluate`], no playout.
    Evaluate,
}

/// Settings of an MCTS search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// The exploration constant `c`.
    pub exploration: f64,
    /// How a child is selected.
    pub selection: Selection,
    /// How a new leaf is valued.
    pub leaf: Leaf,
    /// Threads, each searching its own tree (root parallelism).
    pub threads: usize,
    /// Keep the trees between searches and re-root them.
    pub reuse: bool,
    /// A leaf is expanded once it has been visited this many times.
    pub expand_after: u32,
    /// The seed of the playouts and tie-breaks.
    pub seed: u64,
    /// The memory the trees may hold, in MiB (see the module docs): 1 to [`MAX_MEMORY_MB`].
    pub memory_mb: usize,
}

/// Iterations in a row without a new node after which a search with only a node budget stops.
pub const STALE: u32 = 1024;

pub use super::tree::{DEFAULT_MEMORY_MB, MAX_MEMORY_MB};

/// The bytes one tree node is counted as against [`MctsConfig::memory_mb`]: the node itself
/// plus the returns a solved node keeps (the worst case).
pub const NODE_BYTES: usize = tree::node_bytes::<()>();

impl MctsConfig {
    /// The most nodes each of the `threads` trees may hold under `memory_mb`.
    pub fn nodes_per_tree(&self) -> usize {
        tree::nodes_per_tree(self.memory_mb, self.threads, NODE_BYTES)
    }

    /// The rule that picks a child.
    fn rule(&self) -> Rule {
        match self.selection {
            Selection::Uct => Rule::Uct(self.exploration),
            Selection::Puct => Rule::Puct(self.exploration),
        }
    }
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            exploration: 1.0,
            selection: Selection::Uct,
            leaf: Leaf::Playout,
            threads: 1,
            reuse: true,
            expand_after: 1,
            seed: 0,
            memory_mb: DEFAULT_MEMORY_MB,
        }
    }
}

/// Per-root-action statistics of one tree.
type RootStats = Vec<RootStat>;

/// An MCTS searcher. Keep it between moves of a game to reuse its trees.
pub struct Mcts<S> {
    config: MctsConfig,
    trees: Vec<Tree<S>>,
    /// Nodes a tree gained a second in the last timed search: a timed search reserves room
    /// for what it will likely add, so that no tree doubles its arena (a copy of tens of MiB)
    /// close to the deadline.
    growth: Option<f64>,
    /// The helper threads (`threads - 1`; the first tree is searched on the calling thread),
    /// made at the first search and kept: what the evaluation keeps per thread (the Fish
    /// region solver's memo) stays warm between moves, as on the calling thread.
    helpers: KeptPool,
}

impl<S: Copy + PartialEq + Send> Mcts<S> {
    /// A searcher with these settings and no tree yet.
    pub fn new(config: MctsConfig) -> Mcts<S> {
        Mcts {
            config,
            trees: Vec::new(),
            growth: None,
            helpers: KeptPool::new("pingvinas-mcts"),
        }
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Total nodes held by the kept trees.
    pub fn tree_size(&self) -> usize {
        self.trees.iter().map(|t| t.nodes.len()).sum()
    }

    /// Forgets the kept trees.
    pub fn clear(&mut self) {
        self.trees.clear();
    }

    /// Searches `state` within `budget` (time, iterations and/or nodes; the iteration and node
    /// budgets are shared between threads) or until `stop` is set.
    ///
    /// # Errors
    /// `Error::Invalid` when the game is over, the budget is unbounded or `threads` is 0.
    pub fn search<G: Game<State = S>, E: Evaluate<G>>(
        &mut self,
        game: &G,
        eval: &E,
        state: &S,
        budget: &Budget,
        stop: StopFlag,
    ) -> Result<SearchResult> {
        let player = check_start(game, state, budget, Algorithm::Mcts)?;
        let threads = self.config.threads;
        if threads == 0 || threads > 1024 {
            return crate::error::invalid!("threads must be between 1 and 1024, got {threads}");
        }
        let memory_mb = self.config.memory_mb;
        if !(1..=MAX_MEMORY_MB).contains(&memory_mb) {
            return crate::error::invalid!(
                "memory_mb = {memory_mb}: expected 1 to {MAX_MEMORY_MB} MiB for the MCTS trees"
            );
        }
        let clock = Clock::start(budget, stop);
        while self.trees.len() < threads {
            self.trees.push(Tree::new());
        }
        self.trees.truncate(threads);
        let config = self.config;
        let plies = game.num_players().max(2);
        for tree in &mut self.trees {
            if config.reuse {
                tree.reroot(game, state, plies);
            } else {
                tree.reset(*state);
            }
            if let (Some(rate), Some(time)) = (self.growth, budget.time) {
                let expected =
                    (rate * time.as_secs_f64() * GROWTH_MARGIN) as usize + tree.nodes.len();
                let room = expected.min(config.nodes_per_tree());
                // Room not found is no error: the tree then grows as it goes.
                let _ = tree
                    .nodes
                    .try_reserve_exact(room.saturating_sub(tree.nodes.len()));
            }
        }
        let sizes: Vec<usize> = self.trees.iter().map(|t| t.nodes.len()).collect();
        let share = |total: Option<u64>, t: usize| {
            total.map(|n| (n / threads as u64 + ((t as u64) < n % threads as u64) as u64).max(1))
        };
        let mut outcomes: Vec<(u64, RootStats)> = Vec::with_capacity(threads);
        if threads == 1 {
            let tree = &mut self.trees[0];
            let mut rng = Rng::for_item(config.seed, 0);
            outcomes.push(run(
                tree,
                game,
                eval,
                &config,
                &clock,
                budget.iterations,
                budget.nodes,
                &mut rng,
            ));
        } else {
            let pool = self.helpers.get(threads - 1)?;
            let (first, rest) = self.trees.split_first_mut().expect("threads > 1 trees");
            let mut found: Vec<Option<(u64, RootStats)>> = vec![None; rest.len()];
            let (clock, config) = (&clock, &config);
            let search = |t: usize, tree: &mut Tree<S>| {
                let (iters, nodes) = (share(budget.iterations, t), share(budget.nodes, t));
                let mut rng = Rng::for_item(config.seed, t as u64);
                run(tree, game, eval, config, clock, iters, nodes, &mut rng)
            };
            // Tree 0 on this thread, the others on the kept helpers.
            let main = pool.in_place_scope(|scope| {
                for (t, (tree, slot)) in rest.iter_mut().zip(&mut found).enumerate() {
                    let search = &search;
                    scope.spawn(move |_| *slot = Some(search(t + 1, tree)));
                }
                search(0, first)
            });
            outcomes.push(main);
            outcomes.extend(
                found
                    .into_iter()
                    .map(|o| o.expect("every helper ran its tree")),
            );
        }
        // Sum the root statistics over the trees.
        let mut iterations = 0;
        let mut merged: RootStats = Vec::new();
        for (iters, stats) in &outcomes {
            iterations += iters;
            for &(a, n, v) in stats {
                match merged.iter_mut().find(|m| m.0 == a) {
                    Some(m) => {
                        m.1 += n;
                        m.2 += v;
                    }
                    None => merged.push((a, n, v)),
                }
            }
        }
        merged.sort_by_key(|m| m.0);
        let (best, best_n, best_v) = most_visited(merged.iter().copied())
            .expect("a position that is not over has a legal move");
        // The principal variation from the tree that visited the best move most.
        let (t, _) = self
            .trees
            .iter()
            .enumerate()
            .map(|(t, tree)| (t, tree.child(0, best).map_or(0, |c| tree.nodes[c].visits)))
            .max_by_key(|&(t, n)| (n, std::cmp::Reverse(t)))
            .unwrap_or((0, 0));
        let pv = self.trees[t].principal_variation(best);
        let solved_root = self
            .trees
            .iter()
            .any(|tree| tree.nodes[0].kind == Kind::Solved);
        let nodes = self.tree_size() as u64;
        if budget.time.is_some() && !clock.stopped() {
            let added =
                (self.trees.iter().zip(&sizes)).map(|(t, &n)| t.nodes.len().saturating_sub(n));
            let secs = clock.elapsed().as_secs_f64().max(1e-3);
            self.growth = Some(added.max().unwrap_or(0) as f64 / secs);
        }
        let depth = self.trees.iter().map(|t| t.max_depth).max().unwrap_or(0);
        let _ = player;
        Ok(SearchResult {
            best,
            value: if best_n > 0 {
                (best_v / best_n as f64).clamp(-1.0, 1.0)
            } else {
                0.0
            },
            pv,
            nodes,
            iterations,
            depth,
            elapsed: clock.elapsed(),
            visits: merged.iter().map(|m| (m.0, m.1)).collect(),
            exact: solved_root,
            interrupted: clock.stopped(),
        })
    }
}

/// Runs iterations on one tree until a limit; returns the iterations done and the root's
/// per-action statistics.
#[allow(clippy::too_many_arguments)]
fn run<G: Game, E: Evaluate<G>>(
    tree: &mut Tree<G::State>,
    game: &G,
    eval: &E,
    config: &MctsConfig,
    clock: &Clock,
    iterations: Option<u64>,
    nodes: Option<u64>,
    rng: &mut Rng,
) -> (u64, RootStats) {
    // Exact evaluations that search (the Fish region solver) read this clock too.
    let _clock = clock.enter();
    let root_state = tree.root.expect("the tree has a root");
    let iter_limit = iterations.unwrap_or(u64::MAX);
    let node_limit = nodes.unwrap_or(u64::MAX).min(u32::MAX as u64 - 2048) as usize;
    // The most nodes the tree may hold: the memory bound, or less once a timed search finds
    // growing too costly so close to its deadline (grow_for_deadline).
    let mut memory_limit = config.nodes_per_tree();
    let rule = config.rule();
    let mut path: Vec<u32> = Vec::with_capacity(256);
    let mut actions = ActionList::new();
    let mut done = 0u64;
    tree.max_depth = 0;
    // With a node budget alone, a tree that cannot grow (every leaf solved, or the memory
    // bound reached) would never end the search: it stops after STALE iterations in a row
    // that add no node.
    let nodes_only = iterations.is_none() && !clock.has_deadline();
    let mut stale = 0u32;
    let mut pacer = Pacer::new(16);
    let start_size = tree.nodes.len();
    while done < iter_limit {
        if nodes_only && stale >= STALE {
            break;
        }
        let size = tree.nodes.len();
        if tree.nodes.capacity() - size < GROW_AHEAD && memory_limit > tree.nodes.capacity() {
            memory_limit = grow_for_deadline(tree, clock, start_size, memory_limit);
        }
        if done > 0 && (tree.nodes.len() >= node_limit || pacer.expired(clock)) {
            break;
        }
        if tree.nodes[0].kind == Kind::Solved && done > 0 {
            // Nothing more to learn: the root is solved.
            break;
        }
        done += 1;
        // Selection.
        let mut s = root_state;
        path.clear();
        path.push(0);
        let mut i = 0;
        while tree.nodes[i].kind == Kind::Expanded {
            let c = tree.select(i, rule);
            game.apply(&mut s, tree.nodes[c].action);
            path.push(c as u32);
            i = c;
        }
        // Classify a node seen for the first time.
        if tree.nodes[i].kind == Kind::Unseen {
            classify(tree, i, game, eval, &s);
        }
        // Expansion.
        if tree.nodes[i].kind == Kind::Leaf
            && tree.nodes[i].visits + 1 >= config.expand_after
            && expand(
                tree,
                i,
                game,
                eval,
                &s,
                config,
                rng,
                &mut actions,
                memory_limit,
            )
        {
            if i != 0 && tree.nodes.len() > node_limit {
                // The node budget is spent: undo this expansion and stop.
                tree.unexpand(i);
                done -= 1;
                break;
            }
            let c = tree.select(i, rule);
            game.apply(&mut s, tree.nodes[c].action);
            path.push(c as u32);
            i = c;
            classify(tree, i, game, eval, &s);
        }
        // Evaluation.
        let r = match tree.nodes[i].kind {
            Kind::Solved => tree.value_of(i),
            _ => match config.leaf {
                Leaf::Playout => eval.playout(game, &s, rng),
                Leaf::Evaluate => eval.evaluate(game, &s),
            },
        };
        // Backup.
        stale = if tree.nodes.len() == size {
            stale + 1
        } else {
            0
        };
        tree.add_visit(&path, &r);
    }
    let stats = if tree.nodes[0].kind == Kind::Expanded {
        tree.root_stats().collect()
    } else {
        // A root solved before expansion: pick the move whose (exactly known) result is best
        // for the player to move, among the moves the evaluator keeps.
        let mut list = ActionList::new();
        game.legal_actions(&root_state, &mut list);
        eval.prune_actions(game, &root_state, &mut list);
        let p = game.to_move(&root_state).unwrap_or(0);
        let value = |a: Action| {
            let mut c = root_state;
            game.apply(&mut c, a);
            if game.is_over(&c) {
                game.returns(&c)[p]
            } else {
                eval.exact(game, &c)
                    .unwrap_or_else(|| eval.evaluate(game, &c))[p]
            }
        };
        let best = list
            .iter()
            .map(|&a| (a, value(a)))
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)));
        best.map(|(a, v)| vec![(a, 1, v)]).unwrap_or_default()
    };
    (done, stats)
}

/// Free nodes below which a timed search looks ahead before its arena must grow.
const GROW_AHEAD: usize = 1024;

/// The room a timed search reserves over the nodes its rate says it will add (before it
/// starts, by the last search's rate; when nearly full, by its own so far): rates vary from
/// move to move, and too little room costs a copy of the arena.
const GROWTH_MARGIN: f64 = 1.25;

/// For a timed search whose arena is nearly full: reserves, in one step, room for the nodes it
/// will likely add by its deadline at its rate so far (with a margin), since each growth copies
/// the whole arena (tens of MiB at 0.1 s a move). Where that copy would take too much of the
/// time left, the tree stops growing instead: the rest of the search refines the values of the
/// nodes it has. Returns the most nodes the tree may hold from now on (`limit`, or the arena's
/// capacity when it stops growing). Without a deadline the arena grows by doubling.
fn grow_for_deadline<S>(
    tree: &mut Tree<S>,
    clock: &Clock,
    start_size: usize,
    limit: usize,
) -> usize {
    let Some(left) = clock.remaining() else {
        return limit;
    };
    let len = tree.nodes.len();
    let added = len - start_size;
    if added < GROW_AHEAD {
        return limit; // Too little seen yet to tell a rate.
    }
    if !clock.affords_copy(len * NODE_BYTES) {
        return tree.nodes.capacity().min(limit);
    }
    let rate = added as f64 / clock.elapsed().as_secs_f64().max(1e-4);
    let room =
        ((rate * left.as_secs_f64() * GROWTH_MARGIN) as usize).min(limit.saturating_sub(len));
    if room > tree.nodes.capacity() - len {
        // At least double, as the arena would: a small step now would copy it again soon.
        let _ = tree
            .nodes
            .try_reserve_exact(room.max(len).min(limit.saturating_sub(len)));
    }
    limit
}

fn classify<G: Game, E: Evaluate<G>>(
    tree: &mut Tree<G::State>,
    i: usize,
    game: &G,
    eval: &E,
    s: &G::State,
) {
    if !tree.solve(i, game, eval, s) {
        tree.nodes[i].kind = Kind::Leaf;
    }
}

/// Expands leaf `i`; returns `false` (and leaves it a leaf) when its children would take the
/// tree beyond `memory_limit` nodes (the root is always expanded) or cannot be allocated.
#[allow(clippy::too_many_arguments)]
fn expand<G: Game, E: Evaluate<G>>(
    tree: &mut Tree<G::State>,
    i: usize,
    game: &G,
    eval: &E,
    s: &G::State,
    config: &MctsConfig,
    rng: &mut Rng,
    actions: &mut ActionList,
    memory_limit: usize,
) -> bool {
    actions.clear();
    game.legal_actions(s, actions);
    eval.prune_actions(game, s, actions);
    if !tree.reserve(i, actions.len(), memory_limit) {
        return false;
    }
    let mover = game
        .to_move(s)
        .expect("a leaf that is not over has a player to move") as u8;
    // A random order breaks ties among unvisited children; hints then order them.
    rng.shuffle(actions);
    let mut hints: ArrayHints = ArrayHints::new();
    if eval.has_order_hint() {
        for &a in actions.iter() {
            hints.push(eval.order_hint(game, s, a));
        }
        let mut idx: Vec<usize> = (0..actions.len()).collect();
        idx.sort_by_key(|&k| std::cmp::Reverse(hints[k]));
        let sorted: Vec<(Action, i32)> = idx.iter().map(|&k| (actions[k], hints[k])).collect();
        for (k, (a, h)) in sorted.into_iter().enumerate() {
            actions[k] = a;
            hints[k] = h;
        }
    }
    let priors: Vec<f32> = if config.selection == Selection::Puct && !hints.is_empty() {
        let max = hints.iter().copied().max().unwrap_or(0);
        let w: Vec<f64> = hints
            .iter()
            .map(|&h| ((h - max) as f64 / 100.0).exp())
            .collect();
        let sum: f64 = w.iter().sum();
        w.iter().map(|x| (x / sum) as f32).collect()
    } else {
        vec![1.0 / actions.len() as f32; actions.len()]
    };
    tree.expand(i, mover, actions.iter().copied().zip(priors));
    true
}

type ArrayHints = arrayvec::ArrayVec<i32, { crate::game::MAX_ACTIONS }>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Returns, MAX_PLAYERS};
    use crate::search::toys::{Nim, NimState, TicTacToe, Ttt};
    use crate::search::tree::Node;
    use crate::search::NoEval;
    use std::time::{Duration, Instant};

    fn mcts<S: Copy + PartialEq + Send>(seed: u64) -> Mcts<S> {
        Mcts::new(MctsConfig {
            seed,
            ..Default::default()
        })
    }

    /// A tree of `len` nodes in an arena with `free` more nodes of room.
    fn filled(len: usize, free: usize) -> Tree<NimState> {
        let mut tree = Tree::new();
        tree.nodes.reserve_exact(len + free);
        tree.nodes.resize(len, Node::new(0, 0, 1.0));
        tree
    }

    #[test]
    fn a_timed_search_grows_its_arena_once_for_the_rest_or_stops_growing_near_the_deadline() {
        let stop = StopFlag::new;
        // Early in a long search: room for the rest at the rate so far, up to the memory bound.
        let mut tree = filled(200_000, 10);
        let clock = Clock::start(&Budget::time(30.0), stop());
        std::thread::sleep(Duration::from_millis(20));
        let limit = grow_for_deadline(&mut tree, &clock, 0, 2_000_000);
        assert_eq!(limit, 2_000_000);
        // 200,000 nodes in the time slept: at that rate 30 s would add far more than the bound
        // (an arena rounds its room up to whole pages).
        assert!((2_000_000..2_010_000).contains(&tree.nodes.capacity()));
        // Too few nodes added to tell a rate: left to the usual doubling.
        let mut tree = filled(200_000, 10);
        let room = tree.nodes.capacity();
        grow_for_deadline(&mut tree, &clock, 199_500, 50_000_000);
        assert_eq!(tree.nodes.capacity(), room);
        // Past the deadline a copy of the arena costs more than the time left: the tree keeps
        // its arena and may fill it, no more.
        let clock = Clock::start(&Budget::time(0.001), stop());
        std::thread::sleep(Duration::from_millis(2));
        let mut tree = filled(200_000, 10);
        assert_eq!(grow_for_deadline(&mut tree, &clock, 0, 50_000_000), room);
        assert_eq!(tree.nodes.capacity(), room);
        // Without a deadline nothing changes.
        let clock = Clock::start(&Budget::iterations(10), stop());
        let mut tree = filled(200_000, 10);
        assert_eq!(
            grow_for_deadline(&mut tree, &clock, 0, 50_000_000),
            50_000_000
        );
        assert_eq!(tree.nodes.capacity(), room);
    }

    #[test]
    fn nim_converges_to_the_winning_move() {
        let nim = Nim { players: 2 };
        for stones in [5, 6, 7, 9, 10, 11, 13] {
            let r = mcts(1)
                .search(
                    &nim,
                    &NoEval,
                    &nim.start(stones),
                    &Budget::iterations(20_000),
                    StopFlag::new(),
                )
                .unwrap();
            assert_eq!(r.best + 1, stones % 4, "{stones} stones: {r:?}");
            assert!(r.value > 0.5, "{stones} stones: {r:?}");
            assert_eq!(r.iterations, 20_000);
        }
    }

    #[test]
    fn tictactoe_blocks_and_wins() {
        let game = TicTacToe;
        // O to move must block X's row at cell 2.
        let r = mcts(3)
            .search(
                &game,
                &NoEval,
                &Ttt::from_str("XX./.O./..."),
                &Budget::iterations(20_000),
                StopFlag::new(),
            )
            .unwrap();
        assert_eq!(r.best, 2, "{r:?}");
        // X to move wins at cell 2 at once.
        let r = mcts(3)
            .search(
                &game,
                &NoEval,
                &Ttt::from_str("XX./OO./..."),
                &Budget::iterations(5_000),
                StopFlag::new(),
            )
            .unwrap();
        assert_eq!(r.best, 2);
        assert!(r.value > 0.9);
        // The opening is a draw: the value converges near 0.
        let r = mcts(3)
            .search(
                &game,
                &NoEval,
                &Ttt::default(),
                &Budget::iterations(100_000),
                StopFlag::new(),
            )
            .unwrap();
        assert!(r.value.abs() < 0.3, "{r:?}");
        let total: u64 = r.visits.iter().map(|v| v.1).sum();
        assert_eq!(r.visits.len(), 9);
        assert!(total >= 99_990);
    }

    #[test]
    fn three_player_max_n() {
        // Three-player Nim: with 1..=3 stones the player to move takes them all and wins.
        let nim = Nim { players: 3 };
        for stones in 1..=3 {
            let r = mcts(5)
                .search(
                    &nim,
                    &NoEval,
                    &nim.start(stones),
                    &Budget::iterations(2_000),
                    StopFlag::new(),
                )
                .unwrap();
            assert_eq!(r.best + 1, stones);
            assert!(r.value > 0.99);
        }
        // With 5 stones, taking 1 leaves 4: player 1 cannot win at once, and whatever they take,
        // player 2 takes the rest. Taking 2 or 3 lets player 1 win at once. Under max-n, player 0
        // loses either way, but its return is -1/2 in all lines: the value must be -0.5.
        let r = mcts(5)
            .search(
                &nim,
                &NoEval,
                &nim.start(5),
                &Budget::iterations(20_000),
                StopFlag::new(),
            )
            .unwrap();
        assert!((r.value + 0.5).abs() < 0.1, "{r:?}");
    }

    #[test]
    fn deterministic_for_a_seed_on_one_thread() {
        let game = TicTacToe;
        let a = mcts(42)
            .search(
                &game,
                &NoEval,
                &Ttt::default(),
                &Budget::iterations(3_000),
                StopFlag::new(),
            )
            .unwrap();
        let b = mcts(42)
            .search(
                &game,
                &NoEval,
                &Ttt::default(),
                &Budget::iterations(3_000),
                StopFlag::new(),
            )
            .unwrap();
        assert_eq!((a.best, &a.visits, &a.pv), (b.best, &b.visits, &b.pv));
        assert_eq!(a.value, b.value);
        let c = mcts(43)
            .search(
                &game,
                &NoEval,
                &Ttt::default(),
                &Budget::iterations(3_000),
                StopFlag::new(),
            )
            .unwrap();
        assert_ne!(a.visits, c.visits);
    }

    #[test]
    fn time_budget_is_respected() {
        let nim = Nim { players: 2 };
        let t0 = Instant::now();
        let r = mcts(1)
            .search(
                &nim,
                &NoEval,
                &nim.start(5_000),
                &Budget::time(0.05),
                StopFlag::new(),
            )
            .unwrap();
        let took = t0.elapsed();
        assert!(
            took >= Duration::from_millis(50) && took < Duration::from_millis(300),
            "took {took:?}"
        );
        assert!(r.iterations > 10);
    }

    #[test]
    fn stop_flag_interrupts() {
        let nim = Nim { players: 2 };
        let flag = StopFlag::new();
        let f2 = flag.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            f2.stop();
        });
        let t0 = Instant::now();
        let r = mcts(1)
            .search(&nim, &NoEval, &nim.start(5_000), &Budget::time(30.0), flag)
            .unwrap();
        h.join().unwrap();
        assert!(r.interrupted && t0.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn node_budget_bounds_the_tree() {
        let game = TicTacToe;
        let r = mcts(1)
            .search(
                &game,
                &NoEval,
                &Ttt::default(),
                &Budget::nodes(1_000),
                StopFlag::new(),
            )
            .unwrap();
        // At most the budget (it was exceeded by up to one expansion), and nearly all of it.
        assert!(r.nodes <= 1_000 && r.nodes > 1_000 - 10, "{}", r.nodes);
    }

    #[test]
    fn tree_is_reused_after_moves() {
        let game = TicTacToe;
        let mut m = mcts::<Ttt>(9);
        let s0 = Ttt::default();
        let r = m
            .search(
                &game,
                &NoEval,
                &s0,
                &Budget::iterations(5_000),
                StopFlag::new(),
            )
            .unwrap();
        // Play our move and the reply the tree expects most: the subtree is kept.
        let mut s = s0;
        game.apply(&mut s, r.pv[0]);
        game.apply(&mut s, r.pv[1]);
        let before = m.tree_size();
        assert!(m.trees[0].reroot(&game, &s, 2));
        let kept = m.tree_size();
        assert!(kept > 10 && kept < before, "kept {kept} of {before}");
        // The kept root's statistics are its children's (plus at most its own first visit).
        let root_visits = m.trees[0].nodes[0].visits as u64;
        let children: u64 = m.trees[0].nodes[0]
            .children()
            .map(|c| m.trees[0].nodes[c].visits as u64)
            .sum();
        assert!(
            root_visits == children || root_visits == children + 1,
            "{root_visits} vs {children}"
        );
        assert!(root_visits > 10);
        // A position not below the root starts a new tree.
        let far = Ttt::from_str("XOX/OXO/...");
        assert!(!m.trees[0].reroot(&game, &far, 2));
        assert_eq!(m.tree_size(), 1);
    }

    #[test]
    fn parallel_threads_merge_statistics() {
        let nim = Nim { players: 2 };
        let mut m = Mcts::<NimState>::new(MctsConfig {
            threads: 2,
            seed: 7,
            ..Default::default()
        });
        let r = m
            .search(
                &nim,
                &NoEval,
                &nim.start(10),
                &Budget::iterations(20_000),
                StopFlag::new(),
            )
            .unwrap();
        assert_eq!(r.best, 1);
        assert_eq!(r.iterations, 20_000);
        let total: u64 = r.visits.iter().map(|v| v.1).sum();
        // Each thread's root was visited once per iteration; children get all but the first.
        assert!((19_990..=20_000).contains(&total), "{total}");
    }

    #[test]
    fn puct_with_hints_and_evaluate_leaves() {
        // An evaluator that knows Nim: the exact value of every position, and hints for it.
        struct NimEval;
        impl Evaluate<Nim> for NimEval {
            fn exact(&self, _g: &Nim, s: &NimState) -> Option<Returns> {
                let mut r = [0.0; MAX_PLAYERS];
                let win = s.stones % 4 != 0;
                r[s.to_move as usize] = if win { 1.0 } else { -1.0 };
                r[1 - s.to_move as usize] = -r[s.to_move as usize];
                Some(r)
            }
            fn has_order_hint(&self) -> bool {
                true
            }
            fn order_hint(&self, _g: &Nim, s: &NimState, a: Action) -> i32 {
                if (s.stones - a - 1) % 4 == 0 {
                    300
                } else {
                    0
                }
            }
        }
        let nim = Nim { players: 2 };
        let mut m = Mcts::new(MctsConfig {
            selection: Selection::Puct,
            leaf: Leaf::Evaluate,
            ..Default::default()
        });
        let r = m
            .search(
                &nim,
                &NimEval,
                &nim.start(30),
                &Budget::iterations(50),
                StopFlag::new(),
            )
            .unwrap();
        // The root itself is solved by the evaluator: the search stops at once with its value.
        assert!(r.exact && r.value > 0.99 && r.iterations == 1, "{r:?}");
        let mut m = Mcts::new(MctsConfig {
            selection: Selection::Puct,
            leaf: Leaf::Evaluate,
            ..Default::default()
        });
        struct HintsOnly;
        impl Evaluate<Nim> for HintsOnly {
            fn has_order_hint(&self) -> bool {
                true
            }
            fn order_hint(&self, g: &Nim, s: &NimState, a: Action) -> i32 {
                NimEval.order_hint(g, s, a)
            }
        }
        let r = m
            .search(
                &nim,
                &HintsOnly,
                &nim.start(30),
                &Budget::iterations(200),
                StopFlag::new(),
            )
            .unwrap();
        assert_eq!(r.best, 1, "{r:?}");
        let n_best = r.visits.iter().find(|v| v.0 == 1).unwrap().1;
        assert!(n_best > 100, "{r:?}");
    }

    #[test]
    fn rejects_bad_input() {
        let nim = Nim { players: 2 };
        assert!(mcts(0)
            .search(
                &nim,
                &NoEval,
                &nim.start(0),
                &Budget::iterations(10),
                StopFlag::new()
            )
            .is_err());
        assert!(mcts(0)
            .search(
                &nim,
                &NoEval,
                &nim.start(9),
                &Budget::depth(10),
                StopFlag::new()
            )
            .is_err());
        let mut m = Mcts::new(MctsConfig {
            threads: 0,
            ..Default::default()
        });
        assert!(m
            .search(
                &nim,
                &NoEval,
                &nim.start(9),
                &Budget::iterations(10),
                StopFlag::new()
            )
            .is_err());
    }

    #[test]
    fn memory_bounds_the_tree_and_the_search_goes_on() {
        let nim = Nim { players: 2 };
        let config = MctsConfig {
            memory_mb: 1,
            ..Default::default()
        };
        let cap = config.nodes_per_tree();
        assert_eq!(cap, (1 << 20) / NODE_BYTES);
        let mut m: Mcts<NimState> = Mcts::new(config);
        let s = nim.start(200);
        let r = m
            .search(
                &nim,
                &NoEval,
                &s,
                &Budget::iterations(100_000),
                StopFlag::new(),
            )
            .unwrap();
        assert_eq!(
            r.iterations, 100_000,
            "the search goes on once the tree is full"
        );
        assert!(m.tree_size() <= cap, "{} nodes, cap {cap}", m.tree_size());
        assert!(
            m.tree_size() + 3 > cap,
            "the tree fills up: {}",
            m.tree_size()
        );
        let bytes = m.trees[0].nodes.capacity() * std::mem::size_of::<Node>();
        assert!(bytes <= 1 << 20, "{bytes} bytes");
        // Two threads share the memory.
        let mut m: Mcts<NimState> = Mcts::new(MctsConfig {
            memory_mb: 1,
            threads: 2,
            ..Default::default()
        });
        m.search(
            &nim,
            &NoEval,
            &s,
            &Budget::iterations(100_000),
            StopFlag::new(),
        )
        .unwrap();
        assert!(m.tree_size() <= cap, "{} nodes, cap {cap}", m.tree_size());
        // memory_mb out of range.
        for memory_mb in [0, MAX_MEMORY_MB + 1] {
            let mut m: Mcts<NimState> = Mcts::new(MctsConfig {
                memory_mb,
                ..Default::default()
            });
            assert!(m
                .search(&nim, &NoEval, &s, &Budget::iterations(10), StopFlag::new())
                .is_err());
        }
    }

    #[test]
    fn rerooting_frees_the_rest_of_the_tree() {
        let game = TicTacToe;
        let mut m: Mcts<Ttt> = mcts(3);
        let s = Ttt::from_str(".........");
        m.search(
            &game,
            &NoEval,
            &s,
            &Budget::iterations(20_000),
            StopFlag::new(),
        )
        .unwrap();
        let before = m.tree_size();
        // The subtree below two moves.
        let mut t = s;
        game.apply(&mut t, 4);
        game.apply(&mut t, 0);
        let tree = &m.trees[0];
        let a = tree.nodes[0]
            .children()
            .find(|&c| tree.nodes[c].action == 4)
            .unwrap();
        let b = tree.nodes[a]
            .children()
            .find(|&c| tree.nodes[c].action == 0)
            .unwrap();
        let mut subtree = 0;
        let mut stack = vec![b];
        while let Some(i) = stack.pop() {
            subtree += 1;
            if tree.nodes[i].kind == Kind::Expanded {
                stack.extend(tree.nodes[i].children());
            }
        }
        assert!(m.trees[0].reroot(&game, &t, 2));
        assert_eq!(m.tree_size(), subtree);
        assert!(subtree < before / 2, "{subtree} of {before}");
        assert_eq!(
            m.trees[0].nodes.capacity(),
            subtree,
            "the arena has exactly its size"
        );
        // Many searches along a game keep the memory flat.
        let mut m: Mcts<NimState> = mcts(4);
        let nim = Nim { players: 2 };
        let mut s = nim.start(3000);
        let mut most = 0;
        for _ in 0..2000 {
            if nim.is_over(&s) {
                break;
            }
            let r = m
                .search(&nim, &NoEval, &s, &Budget::iterations(300), StopFlag::new())
                .unwrap();
            most = most.max(m.trees[0].nodes.capacity());
            nim.apply(&mut s, r.best);
        }
        assert!(most < 20_000, "capacity grew to {most}");
    }

    #[test]
    fn a_node_budget_ends_even_when_the_tree_cannot_grow() {
        // Tic-tac-toe has fewer than 10,000 nodes; a full tree never reached the budget and
        // the search ran forever.
        let game = TicTacToe;
        let r = mcts(1)
            .search(
                &game,
                &NoEval,
                &Ttt::default(),
                &Budget::nodes(1_000_000),
                StopFlag::new(),
            )
            .unwrap();
        assert!(r.nodes < 1_000_000);
        // The same with the tree at its memory bound.
        let nim = Nim { players: 2 };
        let mut m: Mcts<NimState> = Mcts::new(MctsConfig {
            memory_mb: 1,
            ..Default::default()
        });
        let r = m
            .search(
                &nim,
                &NoEval,
                &nim.start(500),
                &Budget::nodes(1_000_000),
                StopFlag::new(),
            )
            .unwrap();
        assert!(r.nodes < 1_000_000);
    }
}
