//! Alpha-beta search: negamax with principal variation search, iterative deepening, a
//! transposition table, and move ordering by hash move, killer moves, history and the
//! evaluator's hint.
//!
//! Two players: each maximises their own return. Three or more: the *paranoid* reduction, the
//! root player against a coalition of all the others, who minimise the root player's return.
//! Turns need not alternate (a player may move twice in a row when another is skipped): the sign
//! of a child's value flips only when the side to move changes.
//!
//! Values are integers: returns of finished (or exactly solved) games are scaled by [`WIN`] and
//! shortened by the distance in plies (a quicker win is worth more, a slower loss less), and the
//! evaluator's estimates by [`EVAL_SCALE`], so every proven result outranks every estimate.

use crate::error::Result;
use crate::game::{Action, ActionList, Game, Returns};
use crate::rng::splitmix64;
use crate::search::budget::{Budget, Clock, Pacer, StopFlag, MAX_DEPTH};
use crate::search::tt::{Bound, Tt};
use crate::search::{check_start, Algorithm, Evaluate, SearchResult};
use crate::threads::KeptPool;
use arrayvec::ArrayVec;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The value of a won game, before its distance is subtracted.
pub const WIN: i32 = 1_000_000;
/// The scale of heuristic estimates: `|estimate| <= EVAL_SCALE`.
pub const EVAL_SCALE: i32 = 100_000;
const INF: i32 = 2 * WIN;
const MAX_PLY: usize = MAX_DEPTH as usize + 8;
/// The most nodes between two readings of the clock (time and stop flag); fewer when nodes
/// are slow ([`Pacer`]), so that a search stops within about a millisecond of its deadline.
pub const CLOCK_INTERVAL: u64 = 1024;

/// Settings of an alpha-beta search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// Transposition table size in MiB, at most [`super::tt::MAX_TT_MB`] (and the memory
    /// available). The table is allocated at the first search, which fails cleanly
    /// (`Error::Invalid`) if it cannot be.
    pub tt_mb: usize,
    /// Try killer moves (quiet moves that caused a cutoff at the same ply) early.
    pub killers: bool,
    /// Order the remaining moves by the history heuristic.
    pub history: bool,
    /// Late-move reductions: search the moves that come late in the order (after the hash
    /// move, the killers and the first few others) less deep first, and in full only when
    /// that shallower search finds them better than the best so far. Only with two players,
    /// where they were measured to help (`docs/strength.md`), and in searches without a depth
    /// limit: a budget's `depth` is searched in full width, so that a search to the end of the
    /// game proves its value.
    pub reductions: bool,
    /// Reverse futility pruning: a node searched with a null window, a few plies from the
    /// leaves, whose own estimate beats the window by a margin that grows with the depth
    /// left, is cut off without searching its moves (the side to move is rarely worse off
    /// after its move than before it). Only where `reductions` apply.
    pub futility: bool,
    /// Threads searching at once: every thread deepens the same root, sharing the table and
    /// telling the others which moves it is on, so they take other moves first (simplified
    /// ABDADA), and the best root move proven so far in the deepest iteration, which the
    /// others' later root moves need only be searched against; a proven result is returned,
    /// else the deepest completed one. One thread is deterministic.
    pub threads: usize,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            tt_mb: 64,
            killers: true,
            history: true,
            reductions: true,
            futility: true,
            threads: 1,
        }
    }
}

/// An alpha-beta searcher. Keep it between moves of a game: its transposition table and history
/// carry over.
pub struct AlphaBeta {
    config: AlphaBetaConfig,
    tt: Tt,
    /// The positions threads are searching now (with more than one thread).
    busy: Busy,
    /// Move-ordering memory per thread (the first is the main search's).
    workers: Vec<Worker>,
    /// The helper threads (`threads - 1`), made at the first search and kept: what the
    /// evaluation keeps per thread (the Fish region solver's memo) stays warm between moves.
    helpers: KeptPool,
}

/// What one thread learns about move order.
#[derive(Clone)]
struct Worker {
    history: Vec<u32>,
    killers: Vec<[Action; 2]>,
    pv: Vec<Vec<Action>>,
    /// Each ply's ordering keys ([`Keyed`]), kept here rather than in `negamax`'s frame: 16
    /// KiB a ply on the stack let only about 80 plies fit in a 2 MiB thread stack.
    keyed: Vec<Keyed>,
}

impl Drop for AlphaBeta {
    /// Gives the table back for the next searcher ([`Tt::take`]).
    fn drop(&mut self) {
        std::mem::replace(&mut self.tt, Tt::unallocated()).give_back();
    }
}

/// The state of one thread's search (borrowed pieces, counters).
struct Run<'a, G: Game, E: Evaluate<G>> {
    game: &'a G,
    eval: &'a E,
    config: &'a AlphaBetaConfig,
    tt: &'a Tt,
    /// `None` on one thread: nothing to share.
    busy: Option<&'a Busy>,
    w: &'a mut Worker,
    clock: Clock,
    node_limit: u64,
    nodes: u64,
    /// The node count at which the clock is next read.
    pacer: Pacer,
    aborted: bool,
    /// Whether the current iteration cut any line short (so its value is an estimate).
    truncated: bool,
    /// Whether late moves are reduced ([`AlphaBetaConfig::reductions`]).
    reduce: bool,
    /// Whether nodes near the leaves are cut off by their estimate
    /// ([`AlphaBetaConfig::futility`]).
    futile: bool,
    /// With more than two players, the time after which no iteration starts; only completed
    /// iterations count there ([`Run::iterate`]).
    whole_iterations: Option<Duration>,
    players: usize,
    root: usize,
    salt: u64,
    num_actions: usize,
}

impl AlphaBeta {
    /// A searcher with these settings (its table is allocated on the first search).
    pub fn new(config: AlphaBetaConfig) -> AlphaBeta {
        let worker = Worker {
            history: Vec::new(),
            killers: vec![[Action::MAX; 2]; MAX_PLY],
            pv: vec![Vec::new(); MAX_PLY + 1],
            keyed: vec![Vec::new(); MAX_PLY + 1],
        };
        AlphaBeta {
            config,
            tt: Tt::unallocated(),
            busy: Busy::new(if config.threads > 1 { BUSY_SLOTS } else { 0 }),
            workers: vec![worker; config.threads.max(1)],
            helpers: KeptPool::new("pingvinas-alphabeta"),
        }
    }

    /// The settings.
    pub fn config(&self) -> &AlphaBetaConfig {
        &self.config
    }

    /// Forgets everything learned in earlier searches (the table's entries in O(1): see
    /// [`Tt::clear`]).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.workers.iter_mut().for_each(|w| w.history.clear());
    }

    /// Searches `state` within `budget` (time, nodes and/or depth) or until `stop` is set, and
    /// returns the best move of the last completed depth. With several threads, each deepens
    /// the same root and they share the work of each iteration (see `Busy`); all stop when
    /// one thread finishes, and the deepest completed result is returned.
    ///
    /// # Errors
    /// `Error::Invalid` when the game is over, the budget is unbounded or `threads` is 0 or
    /// above 1024.
    pub fn search<G: Game, E: Evaluate<G>>(
        &mut self,
        game: &G,
        eval: &E,
        state: &G::State,
        budget: &Budget,
        stop: StopFlag,
    ) -> Result<SearchResult> {
        let root = check_start(game, state, budget, Algorithm::AlphaBeta)?;
        let threads = self.config.threads;
        if threads == 0 || threads > 1024 {
            return crate::error::invalid!("threads must be between 1 and 1024, got {threads}");
        }
        if self.tt.is_unallocated() {
            // A table given back by a searcher dropped before (one-shot searches in a loop),
            // else a new one.
            self.tt = Tt::take(self.config.tt_mb)?;
        }
        let players = game.num_players();
        let num_actions = game.num_actions();
        for w in &mut self.workers {
            if w.history.len() != players * num_actions {
                w.history = vec![0; players * num_actions];
            } else {
                w.history.iter_mut().for_each(|h| *h /= 8);
            }
            w.killers.iter_mut().for_each(|k| *k = [Action::MAX; 2]);
        }
        self.tt.new_search();
        let max_depth = budget.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        // Paranoid values depend on who is at the root; two-player values do not.
        let salt = if players > 2 {
            splitmix64(root as u64 + 0x1234)
        } else {
            0
        };
        let pool = if threads > 1 {
            Some(self.helpers.get(threads - 1)?)
        } else {
            None
        };
        let AlphaBeta {
            config,
            tt,
            busy,
            workers,
            ..
        } = self;
        let busy = (threads > 1).then_some(&*busy);
        if let Some(busy) = busy {
            busy.new_search();
        }
        let (main, helpers) = workers.split_first_mut().expect("at least one worker");
        macro_rules! run {
            ($w:expr, $clock:expr, $node_limit:expr $(,)?) => {
                Run {
                    game,
                    eval,
                    config,
                    tt,
                    busy,
                    w: $w,
                    clock: $clock,
                    node_limit: $node_limit,
                    nodes: 0,
                    pacer: Pacer::new(CLOCK_INTERVAL),
                    aborted: false,
                    truncated: false,
                    reduce: config.reductions && budget.depth.is_none() && players == 2,
                    futile: config.futility && budget.depth.is_none() && players == 2,
                    whole_iterations: budget.time.filter(|_| players > 2).map(|t| t / 2),
                    players,
                    root,
                    salt,
                    num_actions,
                }
            };
        }
        // Every thread stops once one of them has finished; a proven result wins, else the
        // deepest (the main thread's among equals).
        let finished = StopFlag::new();
        let clock = || Clock::start(budget, stop.clone()).until_finished(finished.clone());
        // A node budget is shared: each helper gets `nodes / threads`, the main thread the rest.
        let helper_nodes = budget.nodes.map_or(u64::MAX, |n| n / threads as u64);
        let main_nodes = budget.nodes.map_or(u64::MAX, |n| {
            n - (threads as u64 - 1) * (n / threads as u64)
        });
        let mut main = run!(main, clock(), main_nodes);
        let Some(pool) = pool else {
            return main.iterate(state, 1, 1, max_depth);
        };
        // The helpers run on the pool, the main search on this thread; each helper's result
        // (or its panic) comes back in its slot.
        let mut results: Vec<Option<std::thread::Result<Result<SearchResult>>>> =
            (0..helpers.len()).map(|_| None).collect();
        let result = pool.in_place_scope(|scope| {
            for (w, slot) in helpers.iter_mut().zip(&mut results) {
                let mut helper = run!(w, clock(), helper_nodes);
                let finished = finished.clone();
                scope.spawn(move |_| {
                    *slot = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                        || {
                            let result = helper.iterate(state, 1, 1, max_depth);
                            if !helper.aborted {
                                finished.stop();
                            }
                            result
                        },
                    )));
                });
            }
            let result = main.iterate(state, 1, 1, max_depth);
            finished.stop();
            result
        });
        let mut best = result?;
        for r in results {
            let r = r
                .and_then(|r| r.ok())
                .ok_or_else(|| crate::error::Error::Invalid("a search thread panicked".into()))??;
            best.nodes += r.nodes;
            // A proven result is the value whatever its depth; otherwise the deepest wins.
            if (r.exact, r.depth) > (best.exact, best.depth) {
                best = SearchResult {
                    nodes: best.nodes,
                    ..r
                };
            }
        }
        Ok(best)
    }
}

impl<G: Game, E: Evaluate<G>> Run<'_, G, E> {
    /// Iterative deepening over `first_depth, first_depth + step, ...` and then `max_depth`,
    /// until the budget runs out. A budget of time is a time a move, not a clock for the game:
    /// with two players an iteration cut short still counts for the moves it finished, so
    /// deepening goes on until the deadline. With more (where that was not measured to help),
    /// only completed iterations count and none starts after half the time.
    fn iterate(
        &mut self,
        state: &G::State,
        first_depth: u32,
        step: u32,
        max_depth: u32,
    ) -> Result<SearchResult> {
        // Exact evaluations that search (the Fish region solver) read this clock too.
        let _clock = self.clock.enter();
        let mut root_actions = ActionList::new();
        self.game.legal_actions(state, &mut root_actions);
        self.eval.prune_actions(self.game, state, &mut root_actions);
        let mut scores: Vec<i32> = vec![0; root_actions.len()];
        let mut best = root_actions[0];
        let mut best_value = 0;
        let mut pv = vec![best];
        let mut depth_done = 0;
        let mut exact = false;
        let depths = (first_depth.min(max_depth)..max_depth)
            .step_by(step as usize)
            .chain([max_depth]);
        for depth in depths {
            self.truncated = false;
            let Some((b, v, line, complete)) =
                self.root(state, depth, &mut root_actions, &mut scores)
            else {
                break;
            };
            if !complete && self.whole_iterations.is_some() {
                break;
            }
            // An iteration cut short by the budget still counts for the moves it finished: its
            // first move is the last iteration's best, searched deeper, and any move it found
            // better than that one has been searched in full.
            best = b;
            best_value = v;
            pv = line;
            if !complete {
                break;
            }
            depth_done = depth;
            exact = !self.truncated;
            if exact || root_actions.len() == 1 {
                break;
            }
            if self
                .whole_iterations
                .is_some_and(|t| self.clock.elapsed() > t)
            {
                break;
            }
        }

        let value = if best_value.abs() > EVAL_SCALE {
            // A proven result: returns are multiples of 1/12 for up to five players, and the
            // distance correction is below 1/1000 of a win, so rounding recovers them exactly.
            (best_value as f64 / WIN as f64 * 12.0).round() / 12.0
        } else {
            best_value as f64 / EVAL_SCALE as f64
        };
        Ok(SearchResult {
            best,
            value: value.clamp(-1.0, 1.0),
            pv,
            nodes: self.nodes,
            iterations: 0,
            depth: depth_done,
            elapsed: self.clock.elapsed(),
            visits: Vec::new(),
            exact,
            interrupted: self.clock.stopped(),
        })
    }

    /// One iteration at the root: the best move, its value and line, and whether the iteration
    /// completed (else it was aborted, and the best is of the moves it finished); `None` when it
    /// was aborted before it finished a move.
    fn root(
        &mut self,
        state: &G::State,
        depth: u32,
        actions: &mut ActionList,
        scores: &mut [i32],
    ) -> Option<(Action, i32, Vec<Action>, bool)> {
        let p = self.root;
        // Best first, from the previous iteration.
        let mut order: Vec<(i32, Action)> = scores
            .iter()
            .copied()
            .zip(actions.iter().copied())
            .collect();
        order.sort_by_key(|&(s, a)| (std::cmp::Reverse(s), a));
        let mut alpha = -INF;
        let beta = INF;
        let mut best = None;
        let share = self.busy.filter(|_| depth as i32 >= SHARE_DEPTH);
        let mut deferred = Vec::new();
        let moves = order.len();
        for i in 0.. {
            let a = match order.get(i).or_else(|| deferred.get(i - moves)) {
                Some(&(_, a)) => a,
                None => break,
            };
            let mut child = *state;
            self.game.apply(&mut child, a);
            let first_pass = if i < moves { share } else { None };
            let Some(claim) = self.claim(first_pass, &child, i > 0) else {
                deferred.push((0, a));
                continue;
            };
            self.w.pv[1].clear();
            // After the first move, a move need only be searched against the best value that
            // any thread has proven at this depth, less one (so that that move itself comes out
            // exact here too): a move below it is not the best. Read again for a re-search.
            let busy = self.busy;
            let floor = |lo: i32| match busy.and_then(|b| b.root_best(depth)) {
                Some((v, _)) if i > 0 => lo.max(v - 1),
                _ => lo,
            };
            let mut lo = floor(alpha);
            let v = if i == 0 {
                self.child_value(&child, depth as i32 - 1, alpha, beta, 1, p)
            } else {
                let v = self.child_value(&child, depth as i32 - 1, lo, lo + 1, 1, p);
                if v > lo && !self.aborted {
                    lo = floor(lo);
                    self.w.pv[1].clear();
                    self.child_value(&child, depth as i32 - 1, lo, beta, 1, p)
                } else {
                    v
                }
            };
            drop(claim);
            if self.aborted {
                // A move that another thread proved better at this depth is the better answer.
                let own = best.as_ref().map(|b: &(Action, i32, Vec<Action>)| b.1);
                return match busy.and_then(|b| b.root_best(depth)) {
                    Some((v, a)) if own.is_none_or(|own| v > own) => Some((a, v, vec![a], false)),
                    _ => best.map(|(a, v, line)| (a, v, line, false)),
                };
            }
            let idx = actions.iter().position(|&x| x == a).unwrap_or(0);
            scores[idx] = if v > lo || i == 0 { v } else { -INF + 1 };
            if v > lo || best.is_none() {
                if let Some(busy) = busy {
                    busy.offer_root(depth, v, a);
                }
                alpha = v.max(alpha);
                let mut line = vec![a];
                line.extend_from_slice(&self.w.pv[1]);
                best = Some((a, v, line));
            }
        }
        if let Some((a, v, _)) = &best {
            let key = self.key(state);
            let complete = !self.truncated;
            self.tt.store(
                key,
                to_tt(*v, 0),
                depth as u8,
                Bound::Exact,
                Some(*a),
                complete,
            );
        }
        best.map(|(a, v, line)| (a, v, line, true))
    }

    #[inline]
    fn key(&self, s: &G::State) -> u64 {
        self.eval.key(self.game, s) ^ self.salt
    }

    /// The value of `r` for the side of player `p`.
    #[inline]
    fn rel(&self, r: &Returns, p: usize) -> f64 {
        match self.players {
            1 => r[0],
            2 => 0.5 * (r[p] - r[1 - p]),
            _ if p == self.root => r[self.root],
            _ => -r[self.root],
        }
    }

    #[inline]
    fn same_side(&self, p: usize, q: usize) -> bool {
        if self.players <= 2 {
            p == q
        } else {
            (p == self.root) == (q == self.root)
        }
    }

    /// A proven result for player `p` reached `ply` plies from the root.
    #[inline]
    fn proven(&self, r: &Returns, p: usize, ply: usize) -> i32 {
        let v = (self.rel(r, p) * WIN as f64).round() as i32;
        match v.signum() {
            1 => v - ply as i32,
            -1 => v + ply as i32,
            _ => 0,
        }
    }

    /// The value of `child` (the position after a move by `p`) for `p`'s side, searched to
    /// `depth` more plies, with the window `(alpha, beta)` in `p`'s terms.
    fn child_value(
        &mut self,
        child: &G::State,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        p: usize,
    ) -> i32 {
        // The node budget is checked exactly, before counting the node.
        if self.nodes >= self.node_limit || self.pacer.expired(&self.clock) {
            self.aborted = true;
            return 0;
        }
        self.nodes += 1;
        match self.game.to_move(child) {
            None => self.proven(&self.game.returns(child), p, ply),
            Some(q) => {
                if let Some(r) = self.eval.exact(self.game, child) {
                    return self.proven(&r, p, ply);
                }
                if depth <= 0 || ply >= MAX_PLY - 1 {
                    self.truncated = true;
                    let r = self.eval.evaluate(self.game, child);
                    return (self.rel(&r, p).clamp(-1.0, 1.0) * EVAL_SCALE as f64) as i32;
                }
                if self.same_side(p, q) {
                    self.negamax(child, depth, alpha, beta, ply, q)
                } else {
                    -self.negamax(child, depth, -beta, -alpha, ply, q)
                }
            }
        }
    }

    /// The value of `s` (not over, `p` to move) for `p`'s side.
    fn negamax(
        &mut self,
        s: &G::State,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        p: usize,
    ) -> i32 {
        self.w.pv[ply].clear();
        if self.aborted {
            return 0;
        }
        // Nodes one ply above the leaves are the most numerous and the cheapest to redo: they
        // skip the table (a cache miss each) and full move ordering.
        let use_tt = depth > 1;
        let key = if use_tt { self.key(s) } else { 0 };
        let alpha0 = alpha;
        let mut hash_move = None;
        if let Some(hit) = if use_tt { self.tt.probe(key) } else { None } {
            hash_move = hit.best;
            if hit.complete || hit.depth as i32 >= depth {
                let v = from_tt(hit.value, ply);
                let usable = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => v >= beta,
                    Bound::Upper => v <= alpha,
                };
                if usable {
                    self.truncated |= !hit.complete;
                    return v;
                }
            }
        }
        if self.futile && depth <= FUTILITY_DEPTH && beta - alpha == 1 && beta.abs() < EVAL_SCALE {
            let r = self.eval.evaluate(self.game, s);
            let v = (self.rel(&r, p).clamp(-1.0, 1.0) * EVAL_SCALE as f64) as i32;
            if v - FUTILITY_MARGIN * depth >= beta {
                self.truncated = true;
                return beta;
            }
        }
        let truncated_before = std::mem::replace(&mut self.truncated, false);

        let mut actions = ActionList::new();
        self.game.legal_actions(s, &mut actions);
        self.eval.prune_actions(self.game, s, &mut actions);
        // Search order: the hash move, the killers, then the rest by hint and history. The rest
        // are keyed only when the first moves did not cut the node off.
        let killers = self.w.killers[ply];
        let mut front = ArrayVec::<Action, 3>::new();
        for m in [hash_move, Some(killers[0]), Some(killers[1])]
            .into_iter()
            .flatten()
        {
            if !front.contains(&m) && actions.contains(&m) {
                front.push(m);
            }
        }
        let mut rest = std::mem::take(&mut self.w.keyed[ply]);
        rest.clear();
        let share = self.busy.filter(|_| depth >= SHARE_DEPTH);
        // Moves another thread is on, searched last (allocates only when one waits).
        let mut deferred = Vec::new();

        let mut best = -INF;
        let mut best_action = actions[0];
        let mut searched = 0;
        for i in 0.. {
            let a = if i < actions.len() {
                match i.checked_sub(front.len()) {
                    None => front[i],
                    Some(j) => {
                        if j == 0 {
                            self.order_keys(s, p, &actions, &front, &mut rest);
                        }
                        next_best(&mut rest, j)
                    }
                }
            } else if let Some(&a) = deferred.get(i - actions.len()) {
                a
            } else {
                break;
            };
            let mut child = *s;
            self.game.apply(&mut child, a);
            let first_pass = if i < actions.len() { share } else { None };
            let Some(claim) = self.claim(first_pass, &child, searched > 0) else {
                deferred.push(a);
                continue;
            };
            let v = if searched == 0 {
                self.child_value(&child, depth - 1, alpha, beta, ply + 1, p)
            } else {
                let r = self.reduction(depth, searched, i < front.len());
                let mut v = alpha + 1;
                if r > 0 {
                    v = self.child_value(&child, depth - 1 - r, alpha, alpha + 1, ply + 1, p);
                }
                if v > alpha && !self.aborted {
                    v = self.child_value(&child, depth - 1, alpha, alpha + 1, ply + 1, p);
                }
                if v > alpha && v < beta && !self.aborted {
                    self.child_value(&child, depth - 1, alpha, beta, ply + 1, p)
                } else {
                    v
                }
            };
            drop(claim);
            searched += 1;
            if self.aborted {
                self.truncated = true;
                self.w.keyed[ply] = rest;
                return 0;
            }
            if v > best {
                best = v;
                best_action = a;
                if v > alpha {
                    alpha = v;
                    let (head, tail) = self.w.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(a);
                    head[ply].extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        self.cutoff(p, ply, a, depth);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.w.keyed[ply] = rest;
        let complete = !self.truncated;
        self.truncated |= truncated_before;
        if use_tt {
            self.tt.store(
                key,
                to_tt(best, ply),
                depth.clamp(0, 255) as u8,
                bound,
                Some(best_action),
                complete,
            );
        }
        best
    }

    /// Simplified ABDADA: claims `child` in `share` (the busy table, on a first pass over the
    /// moves) for as long as the returned guard lives, or `None` when another thread is on it
    /// and the move may wait (`may_wait`: not the first move, which sets the window) until the
    /// others are done.
    fn claim<'b>(
        &self,
        share: Option<&'b Busy>,
        child: &G::State,
        may_wait: bool,
    ) -> Option<Claim<'b>> {
        let Some(busy) = share else {
            return Some(Claim(None));
        };
        let key = self.key(child);
        if may_wait && busy.taken(key) {
            return None;
        }
        busy.claim(key);
        Some(Claim(Some((busy, key))))
    }

    /// How many plies less a late move is searched first ([`AlphaBetaConfig::reductions`]):
    /// none for the first moves (`searched` so far), the hash move and killers (`front`), or
    /// near the leaves; one, and two for the moves far down the order in deep searches.
    #[inline]
    fn reduction(&self, depth: i32, searched: usize, front: bool) -> i32 {
        if !self.reduce || front || depth < LMR_DEPTH || searched < LMR_MOVES {
            return 0;
        }
        let r = if depth >= 6 && searched >= 12 { 2 } else { 1 };
        r.min(depth - 2)
    }

    fn cutoff(&mut self, p: usize, ply: usize, a: Action, depth: i32) {
        if self.config.killers {
            let k = &mut self.w.killers[ply];
            if k[0] != a {
                k[1] = k[0];
                k[0] = a;
            }
        }
        if self.config.history {
            let h = &mut self.w.history[p * self.num_actions + a as usize];
            *h = h.saturating_add((depth * depth) as u32);
        }
    }

    /// The actions not in `front` with their ordering keys: the evaluator's hint, then
    /// history.
    fn order_keys(
        &self,
        s: &G::State,
        p: usize,
        actions: &ActionList,
        front: &[Action],
        keyed: &mut Keyed,
    ) {
        let hints = self.eval.has_order_hint() && actions.len() > 1;
        let history = &self.w.history[p * self.num_actions..(p + 1) * self.num_actions];
        let key = |a: Action| -> u64 {
            let mut k = history[a as usize] as u64;
            if hints {
                let h = self
                    .eval
                    .order_hint(self.game, s, a)
                    .clamp(-(1 << 19), (1 << 19) - 1)
                    + (1 << 19);
                k |= (h as u64) << 32;
            }
            k
        };
        keyed.extend(
            actions
                .iter()
                .filter(|a| !front.contains(a))
                .map(|&a| (key(a) as u128) << 32 | u128::from(!a)),
        );
    }
}

/// The deepest remaining depth at which a node may be cut off by its estimate
/// ([`AlphaBetaConfig::futility`]).
const FUTILITY_DEPTH: i32 = 3;
/// The margin by which an estimate must beat the window, per ply left: searched values fell
/// below the estimate by more than this in about 2% of Fish positions at 1 and 2 plies.
const FUTILITY_MARGIN: i32 = EVAL_SCALE * 3 / 20;

/// The shallowest remaining depth at which late moves are reduced.
const LMR_DEPTH: i32 = 3;
/// The moves searched in full at a node before the later ones are reduced.
const LMR_MOVES: usize = 3;

/// The shallowest remaining depth at which threads tell each other what they are searching:
/// below it a position is cheaper to search twice than to look up.
const SHARE_DEPTH: i32 = 3;
/// Slots of the busy table: far more than the positions that threads are in at once.
const BUSY_SLOTS: usize = 1 << 14;
/// The bits of a root value (`value + INF`, at most `2 * INF`) in [`Busy`]'s root word, below
/// 10 bits of depth (at most [`MAX_DEPTH`]).
const ROOT_VALUE_MASK: u64 = (1 << 22) - 1;
const _: () = assert!(2 * INF as u64 <= ROOT_VALUE_MASK && MAX_DEPTH < 1 << 10);

/// The positions that some thread is searching now, by key (simplified ABDADA, after Tom
/// Kerrigan): a thread that meets a move another is on searches its other moves first, so that
/// threads share the work of one iteration instead of repeating it. A slot holds one key; a
/// collision only loses a hint.
struct Busy {
    slots: Vec<AtomicU64>,
    /// The best root move proven so far in the deepest iteration any thread is in, with its
    /// value, as `depth << 54 | (value + INF) << 32 | action` (0: none yet): a thread's later
    /// root moves need only be searched against it.
    root: AtomicU64,
}

impl Busy {
    fn new(slots: usize) -> Busy {
        Busy {
            slots: (0..slots).map(|_| AtomicU64::new(0)).collect(),
            root: AtomicU64::new(0),
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[key as usize & (self.slots.len() - 1)]
    }

    /// Forgets the last search's root value.
    fn new_search(&self) {
        self.root.store(0, Ordering::Relaxed);
    }

    /// The best root move some thread has proven in its iteration at `depth`, and its value.
    #[inline]
    fn root_best(&self, depth: u32) -> Option<(i32, Action)> {
        let r = self.root.load(Ordering::Relaxed);
        let value = ((r >> 32) & ROOT_VALUE_MASK) as i64 - INF as i64;
        ((r >> 54) as u32 == depth).then_some((value as i32, r as Action))
    }

    /// Records root move `action`, proven worth `value` at `depth`, if it is the best known.
    fn offer_root(&self, depth: u32, value: i32, action: Action) {
        let new = (depth as u64) << 54
            | ((value as i64 + INF as i64) as u64 & ROOT_VALUE_MASK) << 32
            | action as u64;
        let _ = self
            .root
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                (new >> 54 > r >> 54 || (new >> 54 == r >> 54 && new > r)).then_some(new)
            });
    }

    #[inline]
    fn taken(&self, key: u64) -> bool {
        self.slot(key).load(Ordering::Relaxed) == key
    }

    #[inline]
    fn claim(&self, key: u64) {
        self.slot(key).store(key, Ordering::Relaxed);
    }

    #[inline]
    fn release(&self, key: u64) {
        let _ = self
            .slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// A position claimed in the busy table, released when dropped.
struct Claim<'a>(Option<(&'a Busy, u64)>);

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if let Some((busy, key)) = self.0 {
            busy.release(key);
        }
    }
}

/// Actions with their ordering keys, as `key << 32 | !action`: one comparison orders by key,
/// then by smaller action.
type Keyed = Vec<u128>;

/// The `i`-th action in order (largest key first, then smallest action). The first few are
/// picked by selection, as most nodes are cut off after a move or two; a node that gets that
/// far sorts the rest once.
#[inline]
fn next_best(keyed: &mut Keyed, i: usize) -> Action {
    const SELECT: usize = 3;
    if i < SELECT {
        let mut best = i;
        for j in i + 1..keyed.len() {
            if keyed[j] > keyed[best] {
                best = j;
            }
        }
        keyed.swap(i, best);
    } else if i == SELECT {
        keyed[i..].sort_unstable_by(|a, b| b.cmp(a));
    }
    !(keyed[i] as u32)
}

/// Proven values are stored as distances from the stored position, not from the root.
#[inline]
fn to_tt(v: i32, ply: usize) -> i32 {
    if v > EVAL_SCALE {
        v + ply as i32
    } else if v < -EVAL_SCALE {
        v - ply as i32
    } else {
        v
    }
}

#[inline]
fn from_tt(v: i32, ply: usize) -> i32 {
    if v > EVAL_SCALE {
        v - ply as i32
    } else if v < -EVAL_SCALE {
        v + ply as i32
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::toys::{minimax, Nim, TicTacToe, Ttt};
    use crate::search::NoEval;
    use std::time::Duration;

    fn ab() -> AlphaBeta {
        AlphaBeta::new(AlphaBetaConfig {
            tt_mb: 1,
            ..Default::default()
        })
    }

    #[test]
    fn a_search_on_a_table_given_back_equals_one_on_a_fresh_table() {
        // What one-shot searches do: each searcher takes the table the last one gave back,
        // cleared (a new generation) rather than zeroed. Results and node counts are those of
        // a fresh table, move for move.
        use crate::fish::{FishGame, Rules};
        use crate::game::{ActionList, Game};
        use crate::rng::Rng;
        let game = FishGame::dealt(Rules::standard(2).unwrap(), 7);
        let config = AlphaBetaConfig {
            tt_mb: 1,
            ..Default::default()
        };
        let mut rng = Rng::new(3);
        let mut positions = Vec::new();
        let mut actions = ActionList::new();
        while positions.len() < 12 {
            let mut s = game.initial_state();
            for _ in 0..8 + rng.below(20) {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            if !game.is_over(&s) {
                positions.push(s);
            }
        }
        let search = |ab: &mut AlphaBeta, s| {
            let mut r = ab
                .search(&game, &NoEval, s, &Budget::depth(4), StopFlag::new())
                .unwrap();
            r.elapsed = Duration::ZERO;
            r
        };
        // A table that has seen other searches, entries of every age in it.
        let mut used = Tt::new(1).unwrap();
        for (k, s) in positions.iter().enumerate() {
            let mut fresh = ab();
            fresh.tt = Tt::new(1).unwrap();
            let want = search(&mut fresh, s);
            let mut reused = AlphaBeta::new(config);
            used.clear();
            reused.tt = std::mem::replace(&mut used, Tt::unallocated());
            assert_eq!(search(&mut reused, s), want, "position {k}");
            // Dirtier for the next position: another position searched on it too.
            search(&mut reused, &positions[(k + 5) % positions.len()]);
            used = std::mem::replace(&mut reused.tt, Tt::unallocated());
        }
    }

    #[test]
    fn a_deep_line_fits_a_small_thread_stack() {
        // Nim from 60 stones, searched to the end: 60 frames of `negamax` deep. The ordering
        // keys live in the worker, not the frame, so a quarter of a default thread stack holds
        // them (an overflow aborts the process).
        let nim = Nim { players: 2 };
        let r = std::thread::Builder::new()
            .stack_size(512 << 10)
            .spawn(move || {
                ab().search(
                    &nim,
                    &NoEval,
                    &nim.start(60),
                    &Budget::depth(60),
                    StopFlag::new(),
                )
                .unwrap()
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(r.exact && r.value == -1.0, "{r:?}");
    }

    #[test]
    fn nim_forced_wins_and_losses() {
        let nim = Nim { players: 2 };
        for stones in 1..=21 {
            let r = ab()
                .search(
                    &nim,
                    &NoEval,
                    &nim.start(stones),
                    &Budget::depth(30),
                    StopFlag::new(),
                )
                .unwrap();
            assert!(r.exact, "{stones} stones: {r:?}");
            if stones % 4 == 0 {
                assert_eq!(r.value, -1.0, "{stones} stones should lose: {r:?}");
            } else {
                assert_eq!(r.value, 1.0, "{stones} stones should win: {r:?}");
                assert_eq!(
                    r.best + 1,
                    stones % 4,
                    "{stones} stones: take {} to win",
                    stones % 4
                );
            }
        }
    }

    #[test]
    fn tictactoe_matches_brute_force() {
        let game = TicTacToe;
        let positions = [
            "X.O/.X./..O",
            "XO./.O./X..",
            "X../.O./...",
            ".........",
            "XX./OO./...",
            "OX./.X./...",
        ];
        // Lazy SMP must not change a proven result.
        for threads in [1, 3] {
            let mut searcher = AlphaBeta::new(AlphaBetaConfig {
                tt_mb: 1,
                threads,
                ..Default::default()
            });
            for pos in positions {
                let s = Ttt::from_str(pos);
                let p = game.to_move(&s).unwrap();
                let truth = minimax(&game, &s) * if p == 0 { 1.0 } else { -1.0 };
                let r = searcher
                    .search(&game, &NoEval, &s, &Budget::depth(9), StopFlag::new())
                    .unwrap();
                assert!(r.exact);
                assert_eq!(r.value.round(), truth, "{pos}: {r:?}");
                // The chosen move keeps the value.
                let mut c = s;
                game.apply(&mut c, r.best);
                assert_eq!(
                    minimax(&game, &c) * if p == 0 { 1.0 } else { -1.0 },
                    truth,
                    "{pos}: move {}",
                    r.best
                );
                assert_eq!(r.pv[0], r.best);
            }
        }
    }

    #[test]
    fn busy_table_marks_positions_while_they_are_searched() {
        let busy = Busy::new(BUSY_SLOTS);
        let (a, b) = (0x1234_5678_9abc_def0, 0x1234_5678_9abc_def0 ^ (1 << 40));
        assert!(!busy.taken(a));
        busy.claim(a);
        assert!(busy.taken(a) && !busy.taken(b), "a slot holds one key");
        busy.release(b);
        assert!(busy.taken(a), "another key does not free the slot");
        busy.release(a);
        assert!(!busy.taken(a));
    }

    #[test]
    fn busy_table_keeps_the_best_root_move_of_the_deepest_iteration() {
        let busy = Busy::new(BUSY_SLOTS);
        assert_eq!(busy.root_best(1), None);
        busy.offer_root(3, -WIN + 5, 7);
        assert_eq!(busy.root_best(3), Some((-WIN + 5, 7)));
        assert_eq!(
            busy.root_best(2),
            None,
            "another depth's value is not this one's"
        );
        busy.offer_root(3, -EVAL_SCALE, 9);
        busy.offer_root(3, -INF + 1, 2);
        assert_eq!(
            busy.root_best(3),
            Some((-EVAL_SCALE, 9)),
            "the better value stays"
        );
        busy.offer_root(MAX_DEPTH, INF - 1, Action::MAX);
        busy.offer_root(4, INF, 1);
        assert_eq!(busy.root_best(MAX_DEPTH), Some((INF - 1, Action::MAX)));
        assert_eq!(busy.root_best(3), None, "a deeper iteration replaces it");
        busy.new_search();
        assert_eq!(busy.root_best(MAX_DEPTH), None);
    }

    #[test]
    fn quicker_win_is_preferred() {
        // X to move can win at once (cell 2) or later; it must win at once.
        let game = TicTacToe;
        let s = Ttt::from_str("XX./OO./...");
        let r = ab()
            .search(&game, &NoEval, &s, &Budget::depth(9), StopFlag::new())
            .unwrap();
        assert_eq!(r.best, 2);
        assert_eq!(r.pv, vec![2]);
    }

    #[test]
    fn paranoid_three_player_nim() {
        // Three players, one pile. The player to move wins at once with 1..=3 stones; with 4 the
        // coalition of the two others can always take the last stone.
        let nim = Nim { players: 3 };
        for stones in 1..=3 {
            let r = ab()
                .search(
                    &nim,
                    &NoEval,
                    &nim.start(stones),
                    &Budget::depth(20),
                    StopFlag::new(),
                )
                .unwrap();
            assert_eq!(r.best + 1, stones);
            assert!(r.value > 0.9);
        }
        let r = ab()
            .search(
                &nim,
                &NoEval,
                &nim.start(4),
                &Budget::depth(20),
                StopFlag::new(),
            )
            .unwrap();
        assert!(r.exact && r.value < 0.0, "{r:?}");
        // With 5, taking 1 leaves 4 for player 1, and player 2 after them: the coalition still
        // wins some line, so the root is lost under the paranoid assumption too.
        let r = ab()
            .search(
                &nim,
                &NoEval,
                &nim.start(5),
                &Budget::depth(20),
                StopFlag::new(),
            )
            .unwrap();
        assert!(r.exact && r.value < 0.0, "{r:?}");
    }

    #[test]
    fn time_limit_is_respected_and_interrupts_cleanly() {
        let nim = Nim { players: 2 };
        let big = nim.start(100_000);
        let t0 = std::time::Instant::now();
        let r = ab()
            .search(&nim, &NoEval, &big, &Budget::time(0.05), StopFlag::new())
            .unwrap();
        assert!(
            t0.elapsed() < Duration::from_millis(500),
            "took {:?}",
            t0.elapsed()
        );
        assert!(r.depth >= 1 && nim.is_legal(&big, r.best));
        // The stop flag ends an unbounded-depth search.
        let flag = StopFlag::new();
        let f2 = flag.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            f2.stop();
        });
        let r = ab()
            .search(&nim, &NoEval, &big, &Budget::depth(MAX_DEPTH), flag)
            .unwrap();
        h.join().unwrap();
        assert!(r.interrupted);
    }

    #[test]
    fn a_time_budget_is_used_to_its_end() {
        // Deepening goes on until the deadline (it stopped at half the budget), and the
        // deadline holds.
        use crate::fish::{FishGame, Rules};
        use crate::search::Knowledge;
        let game = FishGame::dealt(Rules::standard(2).unwrap(), 3);
        let eval = game.default_eval(true, Default::default());
        let s = game.initial_state();
        let r = ab()
            .search(&game, &eval, &s, &Budget::time(0.1), StopFlag::new())
            .unwrap();
        assert!(!r.exact && r.depth >= 1, "{r:?}");
        assert!(
            r.elapsed >= Duration::from_millis(90) && r.elapsed < Duration::from_millis(300),
            "{:?}",
            r.elapsed
        );
        assert!(game.is_legal(&s, r.best));
    }

    #[test]
    fn with_three_players_only_completed_iterations_count() {
        // A 3-player search on time returns the move and value of its last completed
        // iteration: those of a search to the depth it reports.
        use crate::fish::{FishGame, Rules};
        use crate::search::Knowledge;
        let game = FishGame::dealt(Rules::standard(3).unwrap(), 5);
        let eval = game.default_eval(true, Default::default());
        let s = game.initial_state();
        for time in [0.02, 0.05] {
            let r = ab()
                .search(&game, &eval, &s, &Budget::time(time), StopFlag::new())
                .unwrap();
            assert!(!r.exact && r.depth >= 1, "{r:?}");
            let d = ab()
                .search(&game, &eval, &s, &Budget::depth(r.depth), StopFlag::new())
                .unwrap();
            assert_eq!(
                (r.best, r.value, &r.pv),
                (d.best, d.value, &d.pv),
                "{time} s"
            );
        }
    }

    #[test]
    fn reduced_searches_still_prove_values() {
        // Without a depth limit late moves are reduced; deepening still ends with the proven
        // value of each position.
        let game = TicTacToe;
        for pos in ["X../.O./...", ".........", "OX./.X./...", "X.O/.X./..O"] {
            let s = Ttt::from_str(pos);
            let p = game.to_move(&s).unwrap();
            let truth = minimax(&game, &s) * if p == 0 { 1.0 } else { -1.0 };
            let r = ab()
                .search(&game, &NoEval, &s, &Budget::time(5.0), StopFlag::new())
                .unwrap();
            assert!(r.exact, "{pos}: {r:?}");
            assert_eq!(r.value.round(), truth, "{pos}: {r:?}");
        }
    }

    #[test]
    fn rejects_finished_game_and_no_budget() {
        let nim = Nim { players: 2 };
        assert!(ab()
            .search(
                &nim,
                &NoEval,
                &nim.start(0),
                &Budget::depth(3),
                StopFlag::new()
            )
            .is_err());
        assert!(ab()
            .search(
                &nim,
                &NoEval,
                &nim.start(5),
                &Budget::default(),
                StopFlag::new()
            )
            .is_err());
    }

    #[test]
    fn node_budget_bounds_the_search() {
        let nim = Nim { players: 2 };
        let r = ab()
            .search(
                &nim,
                &NoEval,
                &nim.start(10_000),
                &Budget::nodes(5000),
                StopFlag::new(),
            )
            .unwrap();
        assert!(r.nodes <= 5000, "{}", r.nodes);
    }

    #[test]
    fn node_budgets_are_exact() {
        // `nodes=1` visited 12,288 nodes: the budget was only read every 1024 nodes.
        let nim = Nim { players: 2 };
        for threads in [1, 3] {
            for n in [1, 2, 7, 100, 1025, 4096] {
                let r = AlphaBeta::new(AlphaBetaConfig {
                    tt_mb: 1,
                    threads,
                    ..Default::default()
                })
                .search(
                    &nim,
                    &NoEval,
                    &nim.start(10_000),
                    &Budget::nodes(n),
                    StopFlag::new(),
                )
                .unwrap();
                assert!(
                    r.nodes <= n,
                    "{threads} threads, nodes={n}: {} nodes",
                    r.nodes
                );
                assert!(nim.is_legal(&nim.start(10_000), r.best));
            }
        }
    }

    #[test]
    fn budgets_it_ignores_are_refused() {
        let nim = Nim { players: 2 };
        let e = ab()
            .search(
                &nim,
                &NoEval,
                &nim.start(10),
                &Budget::iterations(10),
                StopFlag::new(),
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("not iterations"), "{e}");
        let r = ab().search(
            &nim,
            &NoEval,
            &nim.start(10),
            &Budget {
                iterations: Some(10),
                depth: Some(3),
                ..Budget::default()
            },
            StopFlag::new(),
        );
        assert!(r.is_ok());
    }

    #[test]
    fn a_table_too_large_is_an_error_not_an_abort() {
        let nim = Nim { players: 2 };
        let e = AlphaBeta::new(AlphaBetaConfig {
            tt_mb: 65536,
            ..Default::default()
        })
        .search(
            &nim,
            &NoEval,
            &nim.start(10),
            &Budget::depth(3),
            StopFlag::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("at most 4096 MiB"), "{e}");
    }

    #[test]
    fn futility_cuts_searches_without_a_depth_limit_only() {
        // Fish after placement with the Fish evaluation: at the same node budget, cutting off
        // nodes whose estimate beats the window completes deeper iterations; a depth budget
        // is searched in full width, node for node as without the cut.
        use crate::fish::{FishGame, Phase, Rules};
        use crate::game::{ActionList, Game};
        use crate::rng::Rng;
        use crate::search::Knowledge;
        let (mut depth_on, mut depth_off) = (0, 0);
        for seed in 0..8 {
            let game = FishGame::dealt(Rules::standard(2).unwrap(), seed);
            let eval = game.default_eval(true, Default::default());
            let mut s = game.initial_state();
            let mut rng = Rng::new(seed);
            let mut actions = ActionList::new();
            while game.phase(&s) == Phase::Placement {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            let search = |futility, budget: Budget| {
                AlphaBeta::new(AlphaBetaConfig {
                    tt_mb: 1,
                    futility,
                    ..Default::default()
                })
                .search(&game, &eval, &s, &budget, StopFlag::new())
                .unwrap()
            };
            let (on, off) = (
                search(true, Budget::depth(4)),
                search(false, Budget::depth(4)),
            );
            assert_eq!(
                (on.best, on.nodes, on.value),
                (off.best, off.nodes, off.value)
            );
            let (on, off) = (
                search(true, Budget::nodes(60_000)),
                search(false, Budget::nodes(60_000)),
            );
            depth_on += on.depth;
            depth_off += off.depth;
        }
        assert!(depth_on > depth_off, "{depth_on} {depth_off}");
    }
}
