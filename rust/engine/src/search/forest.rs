//! Many PUCT trees searched together, driven in rounds by an outside evaluator: each round
//! every tree that is not done adds its leaves to one shared batch ([`Forest`]); [`drive`] runs
//! any such [`Stepped`] work (a forest, self-play) with a [`BatchEvaluator`].
//!
//! Threads: [`drive_parallel`] drives several pieces of work at once, one thread each, with
//! copies of an evaluator that runs in Rust (a [`crate::net::Mlp`]). The pieces are separate
//! forests or self-play runs (trees of their own: each tree's result is the same as on one
//! thread), or the workers of one [`SharedTree`] (tree parallelism with virtual loss).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::game::Game;
use crate::io::GameIo;
use crate::rng::Rng;
use crate::search::budget::{Budget, Clock, StopFlag};
use crate::search::puct::{BadAnswer, Batch, PuctTree};
use crate::search::{Evaluate, SearchResult};
use crate::threads::{guided, Disjoint};

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

/// Rounds of fewer leaves than this (the trees' batch sizes together) stay on one thread.
const SHARED_LEAVES: usize = 32;

/// Many trees searched together: each round every tree that is not done gathers up to its
/// `batch_size` leaves into one shared batch (see [`PuctTree::gather`]).
pub struct Forest<G: Game, E> {
    /// The trees, in the order of their states.
    pub trees: Vec<PuctTree<G, E>>,
    rows: Vec<usize>,
    clock: Option<Clock>,
    /// Threads a round's selections, rows and backups are shared out to.
    threads: usize,
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
                    return crate::error::invalid!(
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
            threads: 1,
        })
    }

    /// Starts every tree's search (tree `i` on `states[i]`) within `budget` (iterations and
    /// nodes per tree; time for all), stopped early by `stop`.
    ///
    /// # Errors
    /// As [`PuctTree::start`], naming the state.
    pub fn start(&mut self, states: &[G::State], budget: &Budget, stop: StopFlag) -> Result<()> {
        if states.len() != self.trees.len() {
            return crate::error::invalid!(
                "{} states for {} trees",
                states.len(),
                self.trees.len()
            );
        }
        for (i, (t, s)) in self.trees.iter_mut().zip(states).enumerate() {
            t.start(s, budget).map_err(|e| match e {
                crate::error::Error::Invalid(m) if states.len() > 1 => {
                    crate::error::Error::Invalid(format!("state {i}: {m}"))
                }
                e => e,
            })?;
        }
        self.clock = Some(Clock::start(budget, stop));
        Ok(())
    }

    /// Shares each round's work on the trees (not the evaluator's) out to `threads` threads
    /// (one by default): each tree's result is the same whatever `threads` is.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The trees in pieces for the threads ([`guided`]), as the bounds of the pieces; one
    /// piece for one thread.
    fn pieces(&self) -> Vec<usize> {
        let n = self.trees.len();
        let mut bounds = Vec::new();
        // A leaf costs microseconds: a round of few leaves is over before a helper wakes.
        if self.threads <= 1 || self.capacity() < SHARED_LEAVES {
            bounds.extend([0, n]);
        } else {
            guided(n, self.threads, 1, &mut bounds);
        }
        bounds
    }

    /// Rows one round may need: the sum of the trees' batch sizes.
    pub fn capacity(&self) -> usize {
        self.trees.iter().map(|t| t.config().batch_size).sum()
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
                    if !t.is_done() && t.root_expanded() {
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
        let obs_len = first.game().observation_len();
        let a_len = first.game().num_actions();
        let room = (obs.len() / obs_len.max(1)).min(mask.len() / a_len.max(1));
        let bounds = self.pieces();
        let pieces = bounds.len() - 1;
        if pieces == 1 || room < self.capacity() {
            let mut total = 0;
            for (t, rows) in self.trees.iter_mut().zip(self.rows.iter_mut()) {
                *rows = t.gather(&mut obs[total * obs_len..], &mut mask[total * a_len..]);
                total += *rows;
            }
            return total;
        }
        // Each tree selects on its own (the buffers have room for every tree's batch), then
        // writes its rows after those of the trees before it.
        let n = self.trees.len();
        let clock = self.clock.as_ref();
        let trees = Disjoint::new(&mut self.trees);
        let rows = Disjoint::new(&mut self.rows);
        let cut = |k: usize| bounds[k]..bounds[k + 1];
        crate::threads::share(self.threads, pieces, &|k| {
            let _clock = clock.map(Clock::enter);
            // SAFETY: the pieces of one call do not overlap.
            let (trees, rows) = unsafe { (trees.range(cut(k)), rows.range(cut(k))) };
            for (t, rows) in trees.iter_mut().zip(rows) {
                *rows = t.select_rows(t.config().batch_size);
            }
        });
        let mut starts = Vec::with_capacity(n + 1);
        starts.push(0);
        for r in &self.rows {
            starts.push(starts[starts.len() - 1] + r);
        }
        let (obs, mask) = (Disjoint::new(obs), Disjoint::new(mask));
        crate::threads::share(self.threads, pieces, &|k| {
            // SAFETY: as above; tree i's rows are rows starts[i] to starts[i + 1].
            let trees = unsafe { trees.range(cut(k)) };
            for (i, t) in cut(k).zip(trees) {
                let (a, b) = (starts[i], starts[i + 1]);
                let (o, m) = unsafe {
                    (
                        obs.range(a * obs_len..b * obs_len),
                        mask.range(a * a_len..b * a_len),
                    )
                };
                t.write_rows(o, m);
            }
        });
        starts[n]
    }

    /// The positions of the rows of the last gather.
    pub fn pending_states(&self) -> Vec<G::State> {
        self.trees
            .iter()
            .flat_map(|t| t.pending_states().copied())
            .collect()
    }

    /// Hands the evaluator's answers for the last gather's rows back to the trees.
    ///
    /// # Errors
    /// The first row whose answer cannot be used ([`Batch::prepare`]); its tree is unchanged,
    /// others may have taken theirs: abort the forest ([`Forest::abort`]).
    pub fn backup(&mut self, policy: &[f32], values: &[f32]) -> std::result::Result<(), BadAnswer> {
        let Some(first) = self.trees.first() else {
            return Ok(());
        };
        let a_len = first.game().num_actions();
        let n = first.game().num_players();
        let bounds = self.pieces();
        let pieces = bounds.len() - 1;
        if pieces == 1 {
            let _clock = self.clock.as_ref().map(Clock::enter);
            let mut row = 0;
            for (t, &rows) in self.trees.iter_mut().zip(&self.rows) {
                t.backup(&policy[row * a_len..], &values[row * n..])
                    .map_err(|bad| bad.after(row))?;
                row += rows;
            }
            return Ok(());
        }
        let count = self.trees.len();
        let mut starts = Vec::with_capacity(count);
        let mut row = 0;
        for &rows in &self.rows {
            starts.push(row);
            row += rows;
        }
        let clock = self.clock.as_ref();
        let trees = Disjoint::new(&mut self.trees);
        // Each piece's first bad row: the pieces are in row order.
        let bad: Vec<OnceLock<BadAnswer>> = (0..pieces).map(|_| OnceLock::new()).collect();
        crate::threads::share(self.threads, pieces, &|k| {
            let _clock = clock.map(Clock::enter);
            let cut = bounds[k]..bounds[k + 1];
            // SAFETY: the pieces of one call do not overlap.
            let trees = unsafe { trees.range(cut.clone()) };
            for (i, t) in cut.zip(trees) {
                let row = starts[i];
                if let Err(e) = t.backup(&policy[row * a_len..], &values[row * n..]) {
                    let _ = bad[k].set(e.after(row));
                    return;
                }
            }
        });
        match bad.into_iter().find_map(OnceLock::into_inner) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Stops every tree (an error in the evaluator, an interrupt); their pending leaves are
    /// dropped.
    pub fn abort(&mut self) {
        for t in &mut self.trees {
            t.abort();
        }
    }

    /// Shares the trees of a started forest out into up to `parts` forests of consecutive
    /// trees (as even as can be), each with this forest's clock: for [`drive_parallel`]. Each
    /// tree's result is what it would be in one forest.
    pub fn split(self, parts: usize) -> Vec<Forest<G, E>> {
        let n = self.trees.len();
        let parts = parts.clamp(1, n.max(1));
        let mut trees = self.trees.into_iter();
        (0..parts)
            .map(|k| {
                let size = n / parts + usize::from(k < n % parts);
                Forest {
                    trees: trees.by_ref().take(size).collect(),
                    rows: vec![0; size],
                    clock: self.clock.clone(),
                    threads: 1,
                }
            })
            .collect()
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
    ///
    /// # Errors
    /// The first row whose answer cannot be used ([`Batch::prepare`]): abort the work then.
    fn backup(&mut self, policy: &[f32], values: &[f32]) -> std::result::Result<(), BadAnswer>;
    /// Whether the work is done.
    fn is_done(&self) -> bool;
    /// Drops the pending rows and stops (after an evaluator error).
    fn abort(&mut self);
}

impl<G: GameIo, E: Evaluate<G>> Stepped<G> for Forest<G, E> {
    fn obs_len(&self) -> usize {
        self.trees.first().map_or(0, |t| t.game().observation_len())
    }
    fn num_actions(&self) -> usize {
        self.trees.first().map_or(0, |t| t.game().num_actions())
    }
    fn num_players(&self) -> usize {
        self.trees.first().map_or(0, |t| t.game().num_players())
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
    fn backup(&mut self, policy: &[f32], values: &[f32]) -> std::result::Result<(), BadAnswer> {
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
    drive_while(work, evaluator, || true)
}

/// [`drive`], returning early (the work left as it is between two rounds, to be driven on
/// later) when `go_on()`, asked before each round, says no: a caller can then report progress.
///
/// # Errors
/// The evaluator's error (the work is aborted first).
pub fn drive_while<G: Game, W: Stepped<G>, B: BatchEvaluator<G>>(
    work: &mut W,
    evaluator: &mut B,
    mut go_on: impl FnMut() -> bool,
) -> Result<()> {
    let (obs_len, a_len, n) = (work.obs_len(), work.num_actions(), work.num_players());
    let cap = work.capacity();
    let mut obs = vec![0.0f32; cap * obs_len];
    let mut mask = vec![false; cap * a_len];
    let mut policy = vec![0.0f32; cap * a_len];
    let mut values = vec![0.0f32; cap * n];
    while !work.is_done() && go_on() {
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
        if let Err(bad) = work.backup(&policy, &values) {
            work.abort();
            return Err(bad.into());
        }
    }
    Ok(())
}

/// Drives every piece of `parts` until it is done, each on a thread of its own (the last on
/// this one) with its own copy of `evaluator`; returns early, as [`drive_while`], when
/// `go_on()` says no. One piece runs on this thread alone, exactly as [`drive_while`].
///
/// # Errors
/// The first piece's error (a piece whose evaluator fails is aborted; the others go on).
pub fn drive_parallel<G, W, B>(
    parts: &mut [W],
    evaluator: &B,
    go_on: impl Fn() -> bool + Sync,
) -> Result<()>
where
    G: Game,
    W: Stepped<G>,
    B: BatchEvaluator<G> + Clone + Send,
{
    let Some((last, others)) = parts.split_last_mut() else {
        return Ok(());
    };
    if others.is_empty() {
        return drive_while(last, &mut evaluator.clone(), go_on);
    }
    let go_on = &go_on;
    std::thread::scope(|scope| {
        let handles: Vec<_> = others
            .iter_mut()
            .map(|w| {
                let mut e = evaluator.clone();
                scope.spawn(move || drive_while(w, &mut e, go_on))
            })
            .collect();
        let mine = drive_while(last, &mut evaluator.clone(), go_on);
        let mut first = Ok(());
        for h in handles {
            // A panic in a piece is passed on (callers turn it into an error).
            let r = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            if first.is_ok() {
                first = r;
            }
        }
        first.and(mine)
    })
}

/// One PUCT tree searched by several threads at once (tree parallelism): each thread drives a
/// [`TreeWorker`] of its own ([`SharedTree::workers`], [`drive_parallel`]). The tree is locked
/// only to select a batch of leaves (the paths, [`PuctTree::select_deferred`]) and to back
/// their values up; the leaves' positions and exact values, their observations, the evaluator
/// and the priors are worked out outside the lock, and the virtual losses of every batch out
/// steer the threads' selections apart. The iteration budget is kept exactly; the result varies from run
/// to run with the threads' interleaving, unlike one thread's.
pub struct SharedTree<G: Game, E> {
    tree: Mutex<PuctTree<G, E>>,
    /// Whether the tree is done, as its lock's last holder left it: read without the lock.
    done: AtomicBool,
    clock: Clock,
}

/// How long a thread that finds the tree locked spins before it sleeps. The lock is held for
/// a batch's selection or backup (microseconds) by another thread that is running, so it is
/// soon free; a thread put to sleep instead waits for the operating system to wake it, which
/// took longer than the hold itself on the 2-core machine.
const SPIN: Duration = Duration::from_micros(50);

impl<G: GameIo, E: Evaluate<G>> SharedTree<G, E> {
    /// Starts `tree`'s search of `state` within `budget` (as [`Forest::start`]).
    ///
    /// # Errors
    /// As [`PuctTree::start`].
    pub fn start(
        mut tree: PuctTree<G, E>,
        state: &G::State,
        budget: &Budget,
        stop: StopFlag,
    ) -> Result<SharedTree<G, E>> {
        tree.start(state, budget)?;
        Ok(SharedTree {
            done: AtomicBool::new(tree.is_done()),
            tree: Mutex::new(tree),
            clock: Clock::start(budget, stop),
        })
    }

    /// `n` workers, one for each thread.
    pub fn workers(&self, n: usize) -> Vec<TreeWorker<'_, G, E>> {
        let (game, eval, mix, seed) = {
            let mut tree = self.lock();
            let mix = tree.config().playout_mix;
            (
                tree.game().clone(),
                tree.eval().clone(),
                mix,
                tree.draw_seed(),
            )
        };
        (0..n)
            .map(|k| TreeWorker {
                shared: self,
                game: game.clone(),
                eval: eval.clone(),
                playout_mix: mix,
                rng: Rng::for_item(seed, k as u64),
                batch: Batch::default(),
            })
            .collect()
    }

    fn lock(&self) -> MutexGuard<'_, PuctTree<G, E>> {
        // A worker that panicked is passed on by `drive_parallel`; the tree is not read again.
        let mut since: Option<Instant> = None;
        loop {
            match self.tree.try_lock() {
                Ok(tree) => return tree,
                Err(std::sync::TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {}
            }
            // The clock is read every 64 spins, a few hundred nanoseconds.
            for _ in 0..64 {
                std::hint::spin_loop();
            }
            if since.get_or_insert_with(Instant::now).elapsed() > SPIN {
                return self.tree.lock().unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    /// Notes whether `tree` (this tree, locked) is done, for [`SharedTree::is_done`].
    fn note_done(&self, tree: &PuctTree<G, E>) {
        if tree.is_done() {
            self.done.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the search is over, without taking the lock.
    fn is_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    /// The search's result, and the tree (to keep for the next move).
    pub fn finish(self) -> (SearchResult, PuctTree<G, E>) {
        let tree = self.tree.into_inner().unwrap_or_else(|e| e.into_inner());
        (tree.result(self.clock.elapsed()), tree)
    }
}

/// One thread's share of a [`SharedTree`]: a [`Stepped`] whose rounds are that thread's
/// batches.
pub struct TreeWorker<'a, G: Game, E> {
    shared: &'a SharedTree<G, E>,
    game: Arc<G>,
    eval: Arc<E>,
    playout_mix: f64,
    /// The random numbers of this worker's leaves (their children's order, their playouts).
    rng: Rng,
    batch: Batch<G::State>,
}

impl<G: GameIo, E: Evaluate<G>> Stepped<G> for TreeWorker<'_, G, E> {
    fn obs_len(&self) -> usize {
        self.game.observation_len()
    }
    fn num_actions(&self) -> usize {
        self.game.num_actions()
    }
    fn num_players(&self) -> usize {
        self.game.num_players()
    }
    fn capacity(&self) -> usize {
        self.shared.lock().config().batch_size
    }

    fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize {
        let clock = &self.shared.clock;
        let _clock = clock.enter();
        let mut tree = self.shared.lock();
        // A root never valued has no move to give: it is valued first.
        if clock.expired() && !tree.is_done() && tree.root_expanded() {
            tree.stop(clock.stopped());
        }
        let room = (obs.len() / self.game.observation_len().max(1))
            .min(mask.len() / self.game.num_actions().max(1));
        let claimed = tree.select_deferred(&mut self.batch, room);
        let done = tree.is_done();
        self.shared.note_done(&tree);
        drop(tree);
        let rows = self.batch.resolve(&*self.game, &*self.eval);
        self.batch.write_rows(&*self.game, obs, mask);
        if claimed == 0 && !done {
            // The other threads hold every leaf worth sending (the root, at first).
            std::thread::yield_now();
        }
        rows
    }

    fn pending_states(&self) -> Vec<G::State> {
        self.batch.states().copied().collect()
    }

    fn backup(&mut self, policy: &[f32], values: &[f32]) -> std::result::Result<(), BadAnswer> {
        let _clock = self.shared.clock.enter();
        let (game, eval) = (&*self.game, &*self.eval);
        let (mix, rng) = (self.playout_mix, &mut self.rng);
        self.batch.prepare(game, eval, policy, values, mix, rng)?;
        let mut tree = self.shared.lock();
        let done = tree.backup_from(&mut self.batch, policy, values);
        self.shared.note_done(&tree);
        done
    }

    fn is_done(&self) -> bool {
        self.shared.is_done()
    }

    fn abort(&mut self) {
        let mut tree = self.shared.lock();
        tree.abort_batch(&mut self.batch);
        self.shared.note_done(&tree);
    }
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
