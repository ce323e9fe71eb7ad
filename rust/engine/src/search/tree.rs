//! The search tree that MCTS ([`super::mcts`]) and PUCT ([`super::puct`]) share: the nodes in
//! one arena (the root at index 0, the children of a node side by side), re-rooting at a later
//! position, the selection rules, the root statistics and the principal variation.
//!
//! Each node keeps the sum of the returns *of the player who moved into it* (max-n), so a parent
//! picks the child that is best for its own player to move: any number of players, and turn
//! orders that skip players.
//!
//! As in mctx (`tree.py`, `action_selection.py`), the searches differ in how they value leaves,
//! not in the tree: the rule that picks a child is passed to [`Tree::select`]. A root rule
//! with a state of its own, such as Gumbel-top-k with sequential halving (mctx's
//! `gumbel_muzero_policy`, [`super::gumbel`]), reads this tree beside it: the search that
//! owns it selects at the root (index 0) with it and below the root with a [`Rule`].

use super::arenas::Spares;
use crate::game::{Action, Game, Returns};
use crate::memory::Arena;
use crate::search::Evaluate;

/// The default memory of a searcher's trees, in MiB: 1 GiB.
pub const DEFAULT_MEMORY_MB: usize = 1024;

/// The largest memory of a searcher's trees, in MiB: 1 TiB.
pub const MAX_MEMORY_MB: usize = 1 << 20;

/// The most arenas of PUCT trees that ended kept for the next trees, and the most memory they
/// may hold in all: what one search may use by default.
const SPARE_ARENAS: usize = 4096;
const SPARE_BYTES: usize = DEFAULT_MEMORY_MB << 20;

/// The most nodes each of `trees` trees may hold when they share `memory_mb` MiB, counting
/// `node_bytes` a node.
pub(super) fn nodes_per_tree(memory_mb: usize, trees: usize, node_bytes: usize) -> usize {
    let bytes = memory_mb.min(MAX_MEMORY_MB) << 20;
    (bytes / node_bytes / trees.max(1)).clamp(1, u32::MAX as usize - 2048)
}

/// The bytes a node with virtual losses `L` is counted as against a memory budget: the node
/// itself plus the returns a valued leaf keeps (the worst case).
pub(super) const fn node_bytes<L>() -> usize {
    std::mem::size_of::<Node<L>>() + std::mem::size_of::<Returns>()
}

/// What is known of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Not looked at yet.
    Unseen,
    /// Looked at, neither solved nor expanded (MCTS values it by playouts until it expands).
    Leaf,
    /// Sent to the evaluator, the answer not back yet (PUCT).
    Pending,
    /// Has its children.
    Expanded,
    /// Valued exactly (over, or solved by the game's evaluation); its returns are kept.
    Solved,
    /// Valued once by the evaluator and never expanded (the tree was full); its returns are
    /// kept (PUCT).
    Frozen,
}

/// The visits a node has under way (virtual losses, each counted as a loss): PUCT keeps a
/// count (`u32`) for its batches of leaves; MCTS descends one path at a time and keeps none
/// (`()`, which takes no room and reads as zero).
pub(super) trait VirtualLoss: Copy + Default + std::fmt::Debug + Send + 'static {
    /// The visits under way.
    fn count(self) -> u32;

    /// The spare arenas of trees of such nodes ([`super::arenas`]).
    fn spares() -> &'static Spares<Arena<Node<Self>>>;
}

impl VirtualLoss for () {
    #[inline(always)]
    fn count(self) -> u32 {
        0
    }

    fn spares() -> &'static Spares<Arena<Node<()>>> {
        // None kept: MCTS keeps its trees in its searcher between moves and takes no spare.
        static SPARES: Spares<Arena<Node<()>>> = Spares::new(0, 0);
        &SPARES
    }
}

impl VirtualLoss for u32 {
    #[inline(always)]
    fn count(self) -> u32 {
        self
    }

    fn spares() -> &'static Spares<Arena<Node<u32>>> {
        static SPARES: Spares<Arena<Node<u32>>> = Spares::new(SPARE_ARENAS, SPARE_BYTES);
        &SPARES
    }
}

const NONE: u32 = u32::MAX;
/// The mover of the root (nobody moved into it).
pub(super) const ROOT: u8 = u8::MAX;

/// A position in the tree, reached by `action` from its parent's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node<L = ()> {
    pub(super) action: Action,
    /// The first child of an `Expanded` node; for `Solved` and `Frozen` nodes, which have no
    /// children, the index of their returns in [`Tree::values`] (one field for both keeps a
    /// PUCT node in 32 bytes: selection reads every child of each node it passes).
    pub(super) first_child: u32,
    pub(super) visits: u32,
    pub(super) pending: L,
    /// Sum of the returns of `mover`.
    pub(super) value: f64,
    pub(super) prior: f32,
    pub(super) n_children: u16,
    pub(super) mover: u8,
    pub(super) kind: Kind,
}

// MCTS's nodes and PUCT's (with their count of visits under way) take 32 bytes each.
const _: () = assert!(std::mem::size_of::<Node<()>>() == 32);
const _: () = assert!(std::mem::size_of::<Node<u32>>() == 32);

impl<L: VirtualLoss> Node<L> {
    pub(super) fn new(action: Action, mover: u8, prior: f32) -> Node<L> {
        Node {
            action,
            first_child: NONE,
            visits: 0,
            pending: L::default(),
            value: 0.0,
            prior,
            n_children: 0,
            mover,
            kind: Kind::Unseen,
        }
    }

    /// Whether the node keeps its returns in [`Tree::values`].
    #[inline]
    fn is_valued(&self) -> bool {
        matches!(self.kind, Kind::Solved | Kind::Frozen)
    }

    #[inline]
    pub(super) fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..self.first_child as usize + self.n_children as usize
    }

    /// The mean return of the mover (0 before any visit).
    #[inline]
    pub(super) fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.value / self.visits as f64
        }
    }

    /// The visits, those under way included, and the mean return of the mover counting each
    /// visit under way as a loss (0 before any visit).
    #[inline(always)]
    fn with_virtual_loss(&self) -> (u32, f64) {
        let pending = self.pending.count();
        let n = self.visits + pending;
        let q = if n == 0 {
            0.0
        } else {
            (self.value - pending as f64) / n as f64
        };
        (n, q)
    }
}

/// How a node picks the child to descend into; `N` is the parent's visits, `n` and `q` the
/// child's visits and mean return (see [`Tree::select`]), `c` the exploration constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Rule {
    /// UCB1: `q + c * sqrt(ln N / n)`, an unvisited child first.
    Uct(f64),
    /// AlphaZero's: `q + c * prior * sqrt(N) / (1 + n)`.
    Puct(f64),
}

/// One root move's statistics: its action, visits, and the sum of its returns for the player
/// to move at the root.
pub(super) type RootStat = (Action, u64, f64);

/// The move to play among root moves' statistics: the most visited, then the best mean, then
/// the smallest action.
pub(super) fn most_visited(stats: impl IntoIterator<Item = RootStat>) -> Option<RootStat> {
    stats.into_iter().max_by(|x, y| {
        let mx = if x.1 > 0 { x.2 / x.1 as f64 } else { -2.0 };
        let my = if y.1 > 0 { y.2 / y.1 as f64 } else { -2.0 };
        x.1.cmp(&y.1).then(mx.total_cmp(&my)).then(y.0.cmp(&x.0))
    })
}

/// One search tree, kept between searches; `L` holds its virtual losses ([`VirtualLoss`]).
pub(super) struct Tree<S, L: VirtualLoss = ()> {
    pub(super) nodes: Arena<Node<L>>,
    /// The returns of the solved and frozen nodes.
    pub(super) values: Vec<Returns>,
    /// The root's position.
    pub(super) root: Option<S>,
    /// The depth of the deepest visit of the current search.
    pub(super) max_depth: u32,
}

impl<S, L: VirtualLoss> Drop for Tree<S, L> {
    fn drop(&mut self) {
        self.nodes.clear();
        L::spares().put(std::mem::take(&mut self.nodes));
    }
}

impl<S: Copy + PartialEq, L: VirtualLoss> Tree<S, L> {
    pub(super) fn new() -> Tree<S, L> {
        Tree {
            nodes: Arena::new(),
            values: Vec::new(),
            root: None,
            max_depth: 0,
        }
    }

    /// Forgets everything, the root too.
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.values.clear();
        self.root = None;
    }

    /// Takes a spare arena ([`super::arenas`]) of at most `max_nodes` nodes when the tree has
    /// none of its own yet.
    pub(super) fn reuse_spare(&mut self, max_nodes: usize) {
        if self.nodes.capacity() == 0 {
            if let Some(arena) = L::spares().take(|a| a.capacity() <= max_nodes) {
                self.nodes = arena;
            }
        }
    }

    /// A fresh tree of one unseen root at `state`.
    pub(super) fn reset(&mut self, state: S) {
        self.nodes.clear();
        self.values.clear();
        self.nodes.push(Node::new(Action::MAX, ROOT, 1.0));
        self.root = Some(state);
    }

    /// The child of `i` reached by `action`.
    pub(super) fn child(&self, i: usize, action: Action) -> Option<usize> {
        self.nodes[i]
            .children()
            .find(|&c| self.nodes[c].action == action)
    }

    /// The node of `target`: `Some(0)` for the root, else the first found breadth first
    /// within `max_plies` plies below it.
    pub(super) fn find<G: Game<State = S>>(
        &self,
        game: &G,
        target: &S,
        max_plies: usize,
    ) -> Option<usize> {
        let root = self.root?;
        if self.nodes.is_empty() {
            return None;
        }
        if root == *target {
            return Some(0);
        }
        let mut frontier = vec![(0usize, root)];
        for _ in 0..max_plies {
            let mut next = Vec::new();
            for (i, s) in frontier {
                if self.nodes[i].kind != Kind::Expanded {
                    continue;
                }
                for c in self.nodes[i].children() {
                    let mut cs = s;
                    game.apply(&mut cs, self.nodes[c].action);
                    if cs == *target {
                        return Some(c);
                    }
                    next.push((c, cs));
                }
            }
            frontier = next;
        }
        None
    }

    /// Re-roots the tree at `target` when it lies within `max_plies` plies below the root
    /// (keeping the subtree found, whatever it holds); otherwise starts afresh. Returns whether
    /// any of the tree was kept.
    pub(super) fn reroot<G: Game<State = S>>(
        &mut self,
        game: &G,
        target: &S,
        max_plies: usize,
    ) -> bool {
        match self.find(game, target, max_plies) {
            Some(0) => true,
            Some(c) => {
                self.keep_subtree(c, *target);
                true
            }
            None => {
                self.reset(*target);
                false
            }
        }
    }

    /// Makes `new_root` (at position `state`) the root: its subtree is copied into a fresh
    /// arena of exactly its size, breadth first (children stay side by side), and the rest of
    /// the old tree is freed.
    pub(super) fn keep_subtree(&mut self, new_root: usize, state: S) {
        let (mut size, mut valued) = (0usize, 0usize);
        let mut stack = vec![new_root];
        while let Some(i) = stack.pop() {
            size += 1;
            valued += self.nodes[i].is_valued() as usize;
            if self.nodes[i].kind == Kind::Expanded {
                stack.extend(self.nodes[i].children());
            }
        }
        let mut nodes = Arena::with_capacity(size);
        let mut values = Vec::with_capacity(valued);
        let mut root_node = self.nodes[new_root];
        root_node.action = Action::MAX;
        root_node.mover = ROOT;
        nodes.push(root_node);
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            if n.is_valued() {
                values.push(self.values[n.first_child as usize]);
                nodes[i].first_child = (values.len() - 1) as u32;
            }
            if n.kind == Kind::Expanded {
                let first = nodes.len() as u32;
                nodes.extend_from_slice(&self.nodes[n.children()]);
                nodes[i].first_child = first;
            }
            i += 1;
        }
        let mut old = std::mem::replace(&mut self.nodes, nodes);
        old.clear();
        L::spares().put(old);
        self.values = values;
        self.root = Some(state);
    }

    /// Values node `i` exactly when its position `s` is over or `eval` solves it (it becomes
    /// `Solved`); returns whether it did.
    pub(super) fn solve<G: Game<State = S>, E: Evaluate<G>>(
        &mut self,
        i: usize,
        game: &G,
        eval: &E,
        s: &S,
    ) -> bool {
        let solved = if game.is_over(s) {
            Some(game.returns(s))
        } else {
            eval.exact(game, s)
        };
        match solved {
            Some(r) => {
                self.keep_value(i, Kind::Solved, r);
                true
            }
            None => false,
        }
    }

    /// Keeps `r` as the value of node `i`, which becomes `kind` (`Solved` or `Frozen`).
    pub(super) fn keep_value(&mut self, i: usize, kind: Kind, r: Returns) {
        debug_assert!(matches!(kind, Kind::Solved | Kind::Frozen));
        debug_assert!(
            self.nodes[i].n_children == 0,
            "a valued node has no children"
        );
        self.values.push(r);
        self.nodes[i].first_child = (self.values.len() - 1) as u32;
        self.nodes[i].kind = kind;
    }

    /// The kept returns of a `Solved` or `Frozen` node.
    #[inline]
    pub(super) fn value_of(&self, i: usize) -> Returns {
        debug_assert!(self.nodes[i].is_valued());
        self.values[self.nodes[i].first_child as usize]
    }

    /// Makes room for `count` children of node `i` within `limit` nodes: false when they would
    /// take the tree past `limit` (the root may always grow) or cannot be allocated. The arena
    /// grows by doubling, but never past `limit`.
    pub(super) fn reserve(&mut self, i: usize, count: usize, limit: usize) -> bool {
        let needed = self.nodes.len() + count;
        if i != 0 && needed > limit {
            return false;
        }
        if needed > self.nodes.capacity() {
            let target = needed.max((2 * self.nodes.capacity()).min(limit));
            if !self.nodes.try_reserve_exact(target - self.nodes.len())
                && !self.nodes.try_reserve_exact(count)
            {
                return false;
            }
        }
        true
    }

    /// Gives node `i` the children `(action, prior)`, all moved into by `mover`.
    pub(super) fn expand(
        &mut self,
        i: usize,
        mover: u8,
        children: impl ExactSizeIterator<Item = (Action, f32)>,
    ) {
        let first = self.nodes.len() as u32;
        let n_children = children.len() as u16;
        for (a, prior) in children {
            self.nodes.push(Node::new(a, mover, prior));
        }
        let n = &mut self.nodes[i];
        n.first_child = first;
        n.n_children = n_children;
        n.kind = Kind::Expanded;
    }

    /// Takes back the last expansion, that of node `i`: it becomes a leaf again.
    pub(super) fn unexpand(&mut self, i: usize) {
        self.nodes.truncate(self.nodes[i].first_child as usize);
        let n = &mut self.nodes[i];
        n.first_child = NONE;
        n.n_children = 0;
        n.kind = Kind::Leaf;
    }

    /// The child of `i` to descend into under `rule`, counting the visits under way as losses.
    #[inline]
    pub(super) fn select(&self, i: usize, rule: Rule) -> usize {
        let parent = &self.nodes[i];
        let parent_n = (parent.visits + parent.pending.count()).max(1) as f64;
        match rule {
            Rule::Uct(c) => {
                let log_n = parent_n.ln();
                self.argmax(parent, |_, n, q| {
                    (n > 0).then(|| q + c * (log_n / n as f64).sqrt())
                })
            }
            Rule::Puct(c) => {
                let sqrt_n = parent_n.sqrt();
                self.argmax(parent, |ch, n, q| {
                    Some(q + c * ch.prior as f64 * sqrt_n / (1.0 + n as f64))
                })
            }
        }
    }

    /// The first child of `parent` with the largest `score(child, n, q)`, or the first whose
    /// score is `None` (taken at once).
    #[inline(always)]
    fn argmax(&self, parent: &Node<L>, score: impl Fn(&Node<L>, u32, f64) -> Option<f64>) -> usize {
        let mut best = parent.first_child as usize;
        let mut best_score = f64::NEG_INFINITY;
        for k in parent.children() {
            let ch = &self.nodes[k];
            let (n, q) = ch.with_virtual_loss();
            let Some(s) = score(ch, n, q) else {
                return k;
            };
            if s > best_score {
                best_score = s;
                best = k;
            }
        }
        best
    }

    /// Counts one visit under way along `path` (PUCT, while its leaf is with the evaluator).
    pub(super) fn add_virtual_loss(&mut self, path: &[u32])
    where
        L: std::ops::AddAssign<u32>,
    {
        for &j in path {
            self.nodes[j as usize].pending += 1;
        }
    }

    /// Takes back the visit under way along `path`.
    pub(super) fn remove_virtual_loss(&mut self, path: &[u32])
    where
        L: std::ops::SubAssign<u32>,
    {
        for &j in path {
            self.nodes[j as usize].pending -= 1;
        }
    }

    /// Backs `r` up along `path` (from the root): one visit each, and its mover's return.
    #[inline]
    pub(super) fn add_visit(&mut self, path: &[u32], r: &Returns) {
        self.max_depth = self.max_depth.max(path.len() as u32 - 1);
        for &j in path {
            let n = &mut self.nodes[j as usize];
            n.visits += 1;
            if n.mover != ROOT {
                n.value += r[n.mover as usize];
            }
        }
    }

    /// The statistics of the root's moves, in child order.
    pub(super) fn root_stats(&self) -> impl Iterator<Item = RootStat> + '_ {
        self.nodes[0].children().map(|c| {
            let n = &self.nodes[c];
            (n.action, n.visits as u64, n.value)
        })
    }

    /// The root's value for the player to move: the mean value of its children weighted by
    /// visits (0 before any visit).
    pub(super) fn root_value(&self) -> f64 {
        let (sum, n) = self
            .root_stats()
            .fold((0.0, 0u64), |(sum, n), s| (sum + s.2, n + s.1));
        if n == 0 {
            0.0
        } else {
            sum / n as f64
        }
    }

    /// The expected line of play: `best`, then the most visited children below it (up to 64
    /// moves).
    pub(super) fn principal_variation(&self, best: Action) -> Vec<Action> {
        let mut pv = vec![best];
        let Some(mut i) = self.child(0, best) else {
            return pv;
        };
        while self.nodes[i].kind == Kind::Expanded && pv.len() < 64 {
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
        pv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root whose children (nodes 1, 2, ...) have these visits, value sums and priors.
    fn tree(children: &[(u32, f64, f32)]) -> Tree<u8, u32> {
        let mut t = Tree::new();
        t.reset(0);
        let actions = children.iter().enumerate();
        t.expand(0, 0, actions.map(|(a, c)| (a as Action, c.2)));
        for (k, &(n, v, _)) in children.iter().enumerate() {
            t.nodes[1 + k].visits = n;
            t.nodes[1 + k].value = v;
            t.nodes[0].visits += n;
        }
        t
    }

    #[test]
    fn uct_tries_an_unvisited_child_first_and_puct_weighs_priors() {
        let t = tree(&[(10, 5.0, 0.1), (0, 0.0, 0.1), (10, 9.0, 0.8)]);
        assert_eq!(t.select(0, Rule::Uct(1.0)), 2);
        assert_eq!(t.select(0, Rule::Puct(1.0)), 3);
        assert_eq!(t.select(0, Rule::Puct(100.0)), 2);
    }

    #[test]
    fn a_visit_under_way_counts_as_a_loss() {
        let mut t = tree(&[(10, 6.0, 0.5), (10, 5.0, 0.5)]);
        assert_eq!(t.select(0, Rule::Puct(1.0)), 1);
        for _ in 0..3 {
            t.add_virtual_loss(&[0, 1]);
        }
        assert_eq!(t.select(0, Rule::Puct(1.0)), 2);
        for _ in 0..3 {
            t.remove_virtual_loss(&[0, 1]);
        }
        assert_eq!(t.select(0, Rule::Puct(1.0)), 1);
    }
}
