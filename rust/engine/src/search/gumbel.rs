//! Gumbel AlphaZero's root search (Danihelka et al., "Policy improvement by planning with
//! Gumbel", ICLR 2022; mctx's `gumbel_muzero_policy`), a root rule of PUCT
//! ([`super::puct::PuctConfig::root`]) in the shared tree (`tree.rs`).
//!
//! - Gumbel-top-k: each root move `a` draws Gumbel noise `g(a)` from the tree's random numbers;
//!   the first simulations visit the `m = min(max_considered, moves)` moves with the largest
//!   `g(a) + logits(a)`, sampling `m` moves without replacement from the prior.
//! - Sequential halving spreads the simulations over phases ([`considered_visit`], mctx's
//!   `seq_halving.py`): each phase visits the moves still considered equally, then keeps the
//!   better half by `g + logits + sigma(completed_q)`, where
//!   `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`. As in mctx the schedule is a table of
//!   visit counts: a simulation goes to the best move whose visits this search equal the
//!   table's entry for the simulations spent (visits under way included, so a batch of leaves
//!   follows the schedule too).
//! - The move played is the best by the same score among the most visited.
//! - The improved policy ([`PuctTree::improved_policy`]), the training target:
//!   `softmax(logits + sigma(completed_q))` over the root moves. Completed Q (mctx's
//!   `qtransform_completed_by_mix_value`): a visited move keeps its mean return, an unvisited
//!   one gets the mixed value (the root's own value mixed with the prior-weighted Q of the
//!   visited moves), then all are scaled to `[0, 1]` by their min and max.
//! - The logits are the log priors: a shift of the evaluator's logits over the moves kept,
//!   which changes no argmax and no softmax.
//! - Below the root, selection stays PUCT: mctx's deterministic interior rule needs every
//!   node's own evaluator value (for the mixed value), which the shared node does not keep.
//! - Self-play records the improved policy and plays the move chosen, without temperature
//!   (the Gumbel noise is the exploration; Dirichlet noise is not added).
//!
//! [`PuctTree::improved_policy`]: crate::search::puct::PuctTree::improved_policy

use crate::rng::Rng;
use crate::search::tree::{Tree, VirtualLoss};

/// Settings of the Gumbel root (mctx's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelConfig {
    /// The most root moves sampled (Gumbel-top-k) and halved.
    pub max_considered: usize,
    /// `c_visit` of `sigma`.
    pub c_visit: f64,
    /// `c_scale` of `sigma`.
    pub c_scale: f64,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            max_considered: 16,
            c_visit: 50.0,
            c_scale: 0.1,
        }
    }
}

impl GumbelConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// `Error::Invalid` naming the bad setting.
    pub fn check(&self) -> crate::error::Result<()> {
        if !(1..=crate::game::MAX_ACTIONS).contains(&self.max_considered) {
            return crate::error::invalid!(
                "max_considered = {}: expected 1 to {}",
                self.max_considered,
                crate::game::MAX_ACTIONS
            );
        }
        for (name, x) in [("c_visit", self.c_visit), ("c_scale", self.c_scale)] {
            if !x.is_finite() || !(0.0..=1e6).contains(&x) {
                return crate::error::invalid!(
                    "{name} = {x}: expected a finite number from 0 to 1e6"
                );
            }
        }
        Ok(())
    }
}

/// The simulations a search without an iteration budget plans its halving for.
pub const UNPLANNED: u64 = 1024;

/// The visits (this search) of the moves that simulation `k` (from 0) may go to, when `m`
/// moves are considered and `n` simulations planned: mctx's
/// `get_sequence_of_considered_visits(m, n)[k]`, continued past `n` by the last phase.
pub fn considered_visit(m: usize, n: u64, k: u64) -> u64 {
    if m <= 1 {
        return k;
    }
    let log2max = (m as f64).log2().ceil() as u64;
    let (mut c, mut start, mut visits) = (m as u64, 0u64, 0u64);
    loop {
        let extra = (n / (log2max * c)).max(1);
        // From two moves on every phase is the same: no need to walk them one by one.
        if c == 2 || k < start + extra * c {
            return visits + (k - start) / c;
        }
        start += extra * c;
        visits += extra;
        c = (c / 2).max(2);
    }
}

/// The Gumbel state of one search's root: per root child (in child order), its
/// `g + logits` and its visits when the search started.
#[derive(Clone, Debug)]
pub(super) struct GumbelRoot {
    config: GumbelConfig,
    /// Simulations planned.
    plan: u64,
    /// `m`.
    considered: usize,
    score: Vec<f64>,
    base: Vec<u32>,
    /// The root's own value for the player to move (for the mixed value).
    raw_value: f64,
}

impl GumbelRoot {
    /// Draws the noise of the expanded root of `tree` from `rng`, planning `plan` simulations.
    pub(super) fn new<S: Copy + PartialEq, L: VirtualLoss>(
        config: GumbelConfig,
        tree: &Tree<S, L>,
        rng: &mut Rng,
        plan: u64,
        raw_value: f64,
    ) -> GumbelRoot {
        let children = tree.nodes[0].children();
        let score = children
            .clone()
            .map(|c| {
                let u = rng.unit().max(f64::MIN_POSITIVE);
                -(-u.ln()).ln() + log_prior(tree.nodes[c].prior)
            })
            .collect();
        let base = children.clone().map(|c| tree.nodes[c].visits).collect();
        GumbelRoot {
            config,
            plan: plan.max(1),
            considered: config.max_considered.min(children.len()),
            score,
            base,
            raw_value,
        }
    }

    /// The visits of child `k` (index in child order) this search, those under way included.
    fn visits<S, L: VirtualLoss>(&self, tree: &Tree<S, L>, k: usize) -> u64 {
        let n = &tree.nodes[tree.nodes[0].first_child as usize + k];
        (n.visits + n.pending.count()).saturating_sub(self.base[k]) as u64
    }

    /// The root child to visit next (sequential halving).
    pub(super) fn select<S: Copy + PartialEq, L: VirtualLoss>(&self, tree: &Tree<S, L>) -> usize {
        let first = tree.nodes[0].first_child as usize;
        let count = self.score.len();
        let spent: u64 = (0..count).map(|k| self.visits(tree, k)).sum();
        let want = considered_visit(self.considered, self.plan, spent);
        let sigma = sigma_q(tree, self.config, self.raw_value);
        let best = |eligible: &dyn Fn(usize) -> bool| {
            (0..count).filter(|&k| eligible(k)).max_by(|&x, &y| {
                let sx = (self.score[x] + sigma[x]).max(-1e9);
                let sy = (self.score[y] + sigma[y]).max(-1e9);
                sx.total_cmp(&sy).then(y.cmp(&x))
            })
        };
        // Off the schedule (a search stopped and resumed, collisions), the least visited.
        let k = best(&|k| self.visits(tree, k) == want).or_else(|| {
            let least = (0..count).map(|k| self.visits(tree, k)).min()?;
            best(&|k| self.visits(tree, k) == least)
        });
        first + k.unwrap_or(0)
    }

    /// The root child to play: the best by `g + logits + sigma(completed_q)` among the most
    /// visited this search.
    pub(super) fn best<S: Copy + PartialEq, L: VirtualLoss>(&self, tree: &Tree<S, L>) -> usize {
        let first = tree.nodes[0].first_child as usize;
        let count = self.score.len();
        let most = (0..count).map(|k| self.visits(tree, k)).max().unwrap_or(0);
        let sigma = sigma_q(tree, self.config, self.raw_value);
        let k = (0..count)
            .filter(|&k| self.visits(tree, k) == most)
            .max_by(|&x, &y| {
                (self.score[x] + sigma[x])
                    .total_cmp(&(self.score[y] + sigma[y]))
                    .then(y.cmp(&x))
            });
        first + k.unwrap_or(0)
    }

    /// The root's own value this search used.
    pub(super) fn raw_value(&self) -> f64 {
        self.raw_value
    }
}

/// The log of a prior, finite.
fn log_prior(p: f32) -> f64 {
    (p as f64).max(f64::MIN_POSITIVE).ln()
}

/// `sigma(completed_q)` of each root child, in child order (mctx's
/// `qtransform_completed_by_mix_value`); `raw_value` is the root's own value for the player
/// to move. Visits under way are not counted: they have no value yet.
pub(super) fn sigma_q<S: Copy + PartialEq, L: VirtualLoss>(
    tree: &Tree<S, L>,
    config: GumbelConfig,
    raw_value: f64,
) -> Vec<f64> {
    let children = tree.nodes[0].children();
    let nodes = &tree.nodes[children];
    let total: f64 = nodes.iter().map(|n| n.visits as f64).sum();
    let (mut p_sum, mut pq_sum) = (0.0, 0.0);
    for n in nodes.iter().filter(|n| n.visits > 0) {
        let p = (n.prior as f64).max(f64::MIN_POSITIVE);
        p_sum += p;
        pq_sum += p * n.mean();
    }
    let mixed = if p_sum > 0.0 {
        (raw_value + total * pq_sum / p_sum) / (total + 1.0)
    } else {
        raw_value
    };
    let q: Vec<f64> = nodes
        .iter()
        .map(|n| if n.visits > 0 { n.mean() } else { mixed })
        .collect();
    let lo = q.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = q.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let max_visits = nodes.iter().map(|n| n.visits).max().unwrap_or(0) as f64;
    let scale = (config.c_visit + max_visits) * config.c_scale / (hi - lo).max(1e-8);
    q.iter().map(|x| (x - lo) * scale).collect()
}

/// The improved policy at the root of `tree`: `softmax(logits + sigma(completed_q))`, as
/// `(action, probability)` in child order.
pub(super) fn improved_policy<S: Copy + PartialEq, L: VirtualLoss>(
    tree: &Tree<S, L>,
    config: GumbelConfig,
    raw_value: f64,
) -> Vec<(crate::game::Action, f32)> {
    let children = tree.nodes[0].children();
    let sigma = sigma_q(tree, config, raw_value);
    let x: Vec<f64> = children
        .clone()
        .zip(&sigma)
        .map(|(c, s)| log_prior(tree.nodes[c].prior) + s)
        .collect();
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = x.iter().map(|v| (v - max).exp()).collect();
    let sum: f64 = w.iter().sum();
    children
        .zip(w)
        .map(|(c, w)| (tree.nodes[c].action, (w / sum) as f32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mctx's sequence, written as `seq_halving.py` writes it.
    fn mctx_sequence(m: usize, n: u64) -> Vec<u64> {
        if m <= 1 {
            return (0..n).collect();
        }
        let log2max = (m as f64).log2().ceil() as u64;
        let mut sequence = Vec::new();
        let mut visits = vec![0u64; m];
        let mut c = m;
        while (sequence.len() as u64) < n {
            let extra = (n / (log2max * c as u64)).max(1);
            for _ in 0..extra {
                sequence.extend_from_slice(&visits[..c]);
                for v in &mut visits[..c] {
                    *v += 1;
                }
            }
            c = (c / 2).max(2);
        }
        sequence.truncate(n as usize);
        sequence
    }

    #[test]
    fn the_schedule_is_mctx_s() {
        for m in 0..=20 {
            for n in [1, 2, 3, 5, 8, 16, 32, 50, 64, 100, 200] {
                let ours: Vec<u64> = (0..n).map(|k| considered_visit(m, n, k)).collect();
                assert_eq!(ours, mctx_sequence(m, n), "m {m}, n {n}");
            }
        }
        // 16 moves, 32 simulations: 16 visits of 0, 8 of 1, then 4 moves twice (2 and 3).
        let s: Vec<u64> = (0..32).map(|k| considered_visit(16, 32, k)).collect();
        let mut want = vec![0; 16];
        want.extend([1; 8]);
        want.extend([2, 2, 2, 2, 3, 3, 3, 3]);
        assert_eq!(s, want);
        // Past the plan, the last phase goes on.
        assert_eq!(considered_visit(4, 8, 8), 3);
        assert_eq!(considered_visit(4, 8, 9), 3);
        assert_eq!(considered_visit(4, 8, 10), 4);
    }

    #[test]
    fn completed_q_mixes_the_root_value_into_unvisited_moves() {
        // mctx's `test_gumbel_muzero_policy`, by hand: priors from logits, two moves visited,
        // one not.
        let logits = [0.0f64, 2.0, -1.0];
        let z: f64 = logits.iter().map(|l| l.exp()).sum();
        let p: Vec<f64> = logits.iter().map(|l| l.exp() / z).collect();
        let (visits, q) = ([3u32, 5, 0], [0.5, -0.25, 0.0]);
        let mut t: Tree<u8, u32> = Tree::new();
        t.reset(0);
        t.expand(0, 0, (0..3).map(|a| (a as u32, p[a] as f32)));
        for k in 0..3 {
            t.nodes[1 + k].visits = visits[k];
            t.nodes[1 + k].value = q[k] * visits[k] as f64;
        }
        let raw = -0.8;
        let config = GumbelConfig::default();
        let mixed = (raw + 8.0 * (p[0] * q[0] + p[1] * q[1]) / (p[0] + p[1])) / 9.0;
        let completed = [q[0], q[1], mixed];
        let (lo, hi) = (mixed.min(q[1]), q[0]);
        let sigma: Vec<f64> = completed
            .iter()
            .map(|c| (50.0 + 5.0) * 0.1 * (c - lo) / (hi - lo))
            .collect();
        for (got, want) in sigma_q(&t, config, raw).iter().zip(&sigma) {
            assert!((got - want).abs() < 1e-5, "{got} {want}");
        }
        let x: Vec<f64> = (0..3).map(|k| logits[k] + sigma[k]).collect();
        let z: f64 = x.iter().map(|v| v.exp()).sum();
        for (k, (a, w)) in improved_policy(&t, config, raw).into_iter().enumerate() {
            assert_eq!(a, k as u32);
            assert!((w as f64 - x[k].exp() / z).abs() < 1e-5);
        }
    }
}
