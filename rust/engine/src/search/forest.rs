//! Many PUCT trees searched together, driven in rounds by an outside evaluator: each round
//! every tree that is not done adds its leaves to one shared batch ([`Forest`]); [`drive`] runs
//! any such [`Stepped`] work (a forest, self-play) with a [`BatchEvaluator`].

use crate::error::Result;
use crate::game::Game;
use crate::io::GameIo;
use crate::search::budget::{Budget, Clock, StopFlag};
use crate::search::puct::PuctTree;
use crate::search::{Evaluate, SearchResult};

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
        let a_len = first.game().num_actions();
        let n = first.game().num_players();
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
            t.abort();
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
