//! Self-play: games played by the search against itself, recorded as training samples
//! (observation, legal mask, visit-count policy, player to move) with each game's final
//! returns.
//!
//! - With an evaluator, every live game's PUCT tree adds its leaves to one shared batch per
//!   round ([`SelfPlay`] is a [`Stepped`] driven like [`crate::search::forest::Forest`]).
//!   Without one, [`play_mcts`] plays a game with plain MCTS, and [`crate::batch::run`] plays
//!   many on threads.
//! - Game `g` draws everything (its deal, its trees' seeds, its move choices) from
//!   `Rng::for_item(seed, g)`: the same game whatever other games are played beside it, on any
//!   thread or machine.
//! - Moves are drawn from the root visit counts raised to `1 / temperature` for the first
//!   `temperature_moves` plies (all of them when `None`), then the most visited. A position with
//!   one legal move is played without search and not recorded.
//! - With PUCT's Gumbel root rule ([`crate::search::puct::RootRule::Gumbel`]) the policy
//!   recorded is Gumbel's improved policy and the move played the one the search chose (its
//!   Gumbel noise explores; the temperature is not used).
//! - Resign (optional): a player whose searched root value falls below the threshold resigns
//!   (last place; the others share first), except in a fraction of games that never resign, to
//!   check the threshold.
//! - Playout-cap randomisation (optional, KataGo): each move is a full search (with noise,
//!   recorded) with probability `p`, else a fast one (fewer simulations, no noise, not
//!   recorded).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::Result;
use crate::game::{returns_from_places, Action, ActionList, Game, Returns};
use crate::io::GameIo;
use crate::rng::Rng;
use crate::search::forest::Stepped;
use crate::search::mcts::{Mcts, MctsConfig};
use crate::search::puct::{BadAnswer, PuctConfig, PuctTree, RootRule};
use crate::search::{Budget, Evaluate, Knowledge, StopFlag};
use crate::vector::Source;

/// Settings of a self-play run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// Iterations of a full search per move.
    pub simulations: u64,
    /// The temperature of move choice (0: always the most visited move).
    pub temperature: f64,
    /// Plies played with the temperature; `None`: the whole game.
    pub temperature_moves: Option<usize>,
    /// The PUCT settings (its Dirichlet noise is used in full searches only).
    pub puct: PuctConfig,
    /// Resign below this root value, if set.
    pub resign: Option<f64>,
    /// The fraction of games that never resign.
    pub no_resign_fraction: f64,
    /// `(p, fast)`: a full search with probability `p`, else `fast` simulations, unrecorded.
    pub playout_cap: Option<(f64, u64)>,
    /// The seed of the whole run.
    pub seed: u64,
    /// Games played at once with an evaluator (their trees share each batch).
    pub max_live: usize,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            simulations: 100,
            temperature: 1.0,
            temperature_moves: None,
            puct: PuctConfig {
                batch_size: 8,
                dirichlet: Some((0.3, 0.25)),
                ..PuctConfig::default()
            },
            resign: None,
            no_resign_fraction: 0.1,
            playout_cap: None,
            seed: 0,
            max_live: 256,
        }
    }
}

impl SelfPlayConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// `Error::Invalid` naming the bad setting.
    pub fn check(&self) -> Result<()> {
        self.puct.check()?;
        if !(1..=crate::search::budget::MAX_ITERATIONS).contains(&self.simulations) {
            return crate::error::invalid!(
                "simulations = {}: expected 1 or more",
                self.simulations
            );
        }
        if !self.temperature.is_finite() || !(0.0..=100.0).contains(&self.temperature) {
            return crate::error::invalid!("temperature = {}: expected 0 to 100", self.temperature);
        }
        if let Some(r) = self.resign {
            if !r.is_finite() || !(-1.0..=1.0).contains(&r) {
                return crate::error::invalid!("resign = {r}: expected a root value from -1 to 1");
            }
        }
        if !(0.0..=1.0).contains(&self.no_resign_fraction) {
            return crate::error::invalid!(
                "the fraction of games that never resign must be from 0 to 1, got {}",
                self.no_resign_fraction
            );
        }
        if let Some((p, fast)) = self.playout_cap {
            if !p.is_finite() || !(0.0..=1.0).contains(&p) {
                return crate::error::invalid!("playout_cap probability = {p}: expected 0 to 1");
            }
            if fast == 0 || fast > self.simulations {
                return crate::error::invalid!(
                    "playout_cap fast simulations = {fast}: expected 1 to simulations ({})",
                    self.simulations
                );
            }
        }
        if self.max_live == 0 {
            return crate::error::invalid!("max_live must be positive");
        }
        Ok(())
    }
}

/// The most games one self-play call plays.
pub const MAX_GAMES: usize = 1 << 24;

/// Refuses more than [`MAX_GAMES`] games, and more games than the memory their bookkeeping
/// takes before the first move (a record and a slot each).
fn check_games(n: usize) -> Result<()> {
    if n > MAX_GAMES {
        return crate::error::invalid!(
            "games: {n} games asked for, at most {MAX_GAMES} in one call"
        );
    }
    let per_game = 2 * std::mem::size_of::<GameRecord>() + 32;
    crate::batch::check_memory(&format!("{n} self-play games"), n.saturating_mul(per_game))
}

/// The samples of one game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRecord {
    /// The game's index.
    pub game_id: u64,
    /// Observations, one row of [`GameIo::observation_len`] per sample.
    pub observations: Vec<f32>,
    /// Legal masks, one row of [`Game::num_actions`] per sample.
    pub masks: Vec<bool>,
    /// Root visit distributions, one row of [`Game::num_actions`] per sample.
    pub policies: Vec<f32>,
    /// The player to move of each sample.
    pub to_move: Vec<i8>,
    /// The ply of each sample (0 = the opening position).
    pub move_numbers: Vec<i32>,
    /// The final returns (absolute player order).
    pub returns: Returns,
    /// Plies played.
    pub length: usize,
    /// The player who resigned, if one did.
    pub resigned: Option<usize>,
}

impl GameRecord {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.to_move.len()
    }

    /// Whether the game recorded nothing.
    pub fn is_empty(&self) -> bool {
        self.to_move.is_empty()
    }
}

/// Makes game `g`'s game and evaluation from its deal seed (Fish deals a board from it).
pub type Maker<G, E> = Arc<dyn Fn(u64) -> (Arc<G>, Arc<E>) + Send + Sync>;

/// The maker of the games of `source`, each with its [`Knowledge::default_eval`].
pub fn default_maker<G: Knowledge + 'static>(
    source: &Source<G>,
    knowledge: bool,
) -> Maker<G, G::Eval> {
    let (source, evals) = (source.clone(), source.default_evals(knowledge));
    Arc::new(move |seed| {
        let game = source.game(seed);
        let eval = evals(&game);
        (game, eval)
    })
}

/// The seeds of game `g`: (deal, tree, moves).
pub fn game_seeds(seed: u64, g: u64) -> (u64, u64, u64) {
    let mut rng = Rng::for_item(seed, g);
    (rng.next_u64(), rng.next_u64(), rng.next_u64())
}

/// What each move of a game needs, whichever search plays it.
struct Moves {
    rng: Rng,
    no_resign: bool,
    record: GameRecord,
    plies: usize,
    full: bool,
}

impl Moves {
    fn new(config: &SelfPlayConfig, id: u64, move_seed: u64) -> Moves {
        let mut rng = Rng::new(move_seed);
        let no_resign = rng.unit() < config.no_resign_fraction;
        Moves {
            rng,
            no_resign,
            record: GameRecord {
                game_id: id,
                ..GameRecord::default()
            },
            plies: 0,
            full: true,
        }
    }

    /// Draws whether the next search is full; returns its budget.
    fn next_search(&mut self, config: &SelfPlayConfig) -> Budget {
        self.full = match config.playout_cap {
            Some((p, _)) => self.rng.unit() < p,
            None => true,
        };
        match (self.full, config.playout_cap) {
            (false, Some((_, fast))) => Budget::iterations(fast),
            _ => Budget::iterations(config.simulations),
        }
    }

    /// Records the searched position (full searches), picks the move; `None` when the player
    /// to move resigns. With an `improved` policy (Gumbel), records it and plays `best`.
    #[allow(clippy::too_many_arguments)]
    fn choose<G: GameIo>(
        &mut self,
        config: &SelfPlayConfig,
        game: &G,
        state: &G::State,
        visits: &[(Action, u64)],
        improved: Option<&[(Action, f32)]>,
        best: Action,
        value: f64,
    ) -> Option<Action> {
        let player = game
            .to_move(state)
            .expect("searched positions are not over");
        if self.full {
            let a_len = game.num_actions();
            let r = &mut self.record;
            let start = r.observations.len();
            r.observations.resize(start + game.observation_len(), 0.0);
            game.write_observation(state, player, &mut r.observations[start..]);
            let m = r.masks.len();
            r.masks.resize(m + a_len, false);
            let mut legal = ActionList::new();
            game.legal_actions(state, &mut legal);
            for &a in &legal {
                r.masks[m + a as usize] = true;
            }
            let p = r.policies.len();
            r.policies.resize(p + a_len, 0.0);
            match improved {
                Some(policy) => {
                    for &(a, x) in policy {
                        r.policies[p + a as usize] = x;
                    }
                }
                None => {
                    let total: u64 = visits.iter().map(|v| v.1).sum();
                    for &(a, n) in visits {
                        r.policies[p + a as usize] = n as f32 / total.max(1) as f32;
                    }
                }
            }
            r.to_move.push(player as i8);
            r.move_numbers.push(self.plies as i32);
        }
        if let Some(threshold) = config.resign {
            if !self.no_resign && value < threshold {
                return None;
            }
        }
        let hot = improved.is_none()
            && config.temperature > 0.0
            && config.temperature_moves.is_none_or(|k| self.plies < k)
            && visits.iter().any(|v| v.1 > 0);
        if !hot {
            return Some(best);
        }
        let weights: Vec<f64> = visits
            .iter()
            .map(|&(_, n)| (n as f64).powf(1.0 / config.temperature))
            .collect();
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Some(best);
        }
        let mut x = self.rng.unit() * total;
        for (k, w) in weights.iter().enumerate() {
            if x < *w {
                return Some(visits[k].0);
            }
            x -= w;
        }
        visits.iter().rev().find(|v| v.1 > 0).map(|v| v.0)
    }

    /// Ends the game: `player` resigned (`Some`) or the game is over.
    fn finish<G: Game>(&mut self, game: &G, state: &G::State, resigned: Option<usize>) {
        let n = game.num_players();
        self.record.returns = match resigned {
            Some(p) => {
                let places: Vec<usize> = (0..n).map(|q| if q == p { 2 } else { 1 }).collect();
                returns_from_places(&places)
            }
            None => game.returns(state),
        };
        self.record.resigned = resigned;
        self.record.length = self.plies;
    }
}

/// Plays the forced moves (one legal action) from `state`; returns whether the game is over.
fn play_forced<G: Game>(game: &G, state: &mut G::State, moves: &mut Moves) -> bool {
    let mut legal = ActionList::new();
    loop {
        if game.is_over(state) {
            return true;
        }
        game.legal_actions(state, &mut legal);
        if legal.len() != 1 {
            return false;
        }
        game.apply(state, legal[0]);
        moves.plies += 1;
    }
}

/// Plays game `id` with plain MCTS (`eval`'s playouts), `config.simulations` iterations a
/// move; `None` when `stop` was raised.
pub fn play_mcts<G: GameIo + 'static, E: Evaluate<G>>(
    game: &G,
    eval: &E,
    config: &SelfPlayConfig,
    id: u64,
    tree_seed: u64,
    move_seed: u64,
    stop: &StopFlag,
) -> Option<GameRecord> {
    let mut mcts = Mcts::new(MctsConfig {
        seed: tree_seed,
        memory_mb: config.puct.memory_mb,
        ..MctsConfig::default()
    });
    let mut moves = Moves::new(config, id, move_seed);
    let mut state = game.initial_state();
    loop {
        if play_forced(game, &mut state, &mut moves) {
            moves.finish(game, &state, None);
            return Some(moves.record);
        }
        let budget = moves.next_search(config);
        let r = mcts
            .search(game, eval, &state, &budget, stop.clone())
            .ok()?;
        if r.interrupted || stop.is_set() {
            return None;
        }
        let player = game.to_move(&state).expect("not over");
        match moves.choose(config, game, &state, &r.visits, None, r.best, r.value) {
            Some(a) => {
                game.apply(&mut state, a);
                moves.plies += 1;
            }
            None => {
                moves.finish(game, &state, Some(player));
                return Some(moves.record);
            }
        }
    }
}

/// One live game of [`SelfPlay`].
struct Live<G: Game, E> {
    tree: PuctTree<G, E>,
    state: G::State,
    moves: Moves,
}

/// Self-play with an evaluator: up to `max_live` games at once, their trees' leaves batched
/// together; a [`Stepped`] to drive with [`crate::search::forest::drive`] (or from Python).
pub struct SelfPlay<G: Game, E> {
    config: SelfPlayConfig,
    maker: Maker<G, E>,
    queue: VecDeque<u64>,
    live: Vec<Option<Live<G, E>>>,
    rows: Vec<usize>,
    finished: Vec<GameRecord>,
    shape: (usize, usize, usize),
}

impl<G: GameIo + 'static, E: Evaluate<G>> SelfPlay<G, E> {
    /// Self-play of the games `ids`; `maker` makes each game from its deal seed.
    ///
    /// # Errors
    /// `Error::Invalid` for bad settings.
    pub fn new(config: SelfPlayConfig, maker: Maker<G, E>, ids: &[u64]) -> Result<Self> {
        config.check()?;
        check_games(ids.len())?;
        let (g, _) = maker(game_seeds(config.seed, ids.first().copied().unwrap_or(0)).0);
        let shape = (g.observation_len(), g.num_actions(), g.num_players());
        let live_n = config.max_live.min(ids.len());
        Ok(SelfPlay {
            config,
            maker,
            queue: ids.iter().copied().collect(),
            live: (0..live_n).map(|_| None).collect(),
            rows: vec![0; live_n],
            finished: Vec::new(),
            shape,
        })
    }

    /// The games played, ordered by id.
    pub fn into_records(mut self) -> Vec<GameRecord> {
        self.finished.sort_by_key(|r| r.game_id);
        self.finished
    }

    /// Starts the next game of the queue in an empty slot.
    fn start_next(&mut self) -> Option<Live<G, E>> {
        while let Some(id) = self.queue.pop_front() {
            let (deal, tree_seed, move_seed) = game_seeds(self.config.seed, id);
            let (game, eval) = (self.maker)(deal);
            let state = game.initial_state();
            let tree = PuctTree::new(game, eval, self.config.puct, tree_seed);
            let mut live = Live {
                tree,
                state,
                moves: Moves::new(&self.config, id, move_seed),
            };
            if self.prepare(&mut live) {
                return Some(live);
            }
        }
        None
    }

    /// Plays forced moves and starts the next search; false when the game ended (it is then
    /// recorded).
    fn prepare(&mut self, live: &mut Live<G, E>) -> bool {
        let game = live.tree.game().clone();
        let before = live.moves.plies;
        if play_forced(&*game, &mut live.state, &mut live.moves) {
            live.moves.finish(&*game, &live.state, None);
            self.finished.push(std::mem::take(&mut live.moves.record));
            return false;
        }
        if live.moves.plies != before {
            live.tree.clear();
        }
        let budget = live.moves.next_search(&self.config);
        let noise = if live.moves.full {
            self.config.puct.dirichlet
        } else {
            None
        };
        live.tree.set_dirichlet(noise);
        live.tree
            .start(&live.state, &budget)
            .expect("a position that is not over, a checked budget");
        true
    }

    /// Ends the search of a live game: chooses and plays the move; false when the game ended.
    fn play_move(&mut self, live: &mut Live<G, E>) -> bool {
        let game = live.tree.game().clone();
        let r = live.tree.result(Default::default());
        let player = game.to_move(&live.state).expect("not over");
        let improved = match self.config.puct.root {
            RootRule::Gumbel(_) => Some(live.tree.improved_policy()),
            RootRule::Puct => None,
        };
        match live.moves.choose(
            &self.config,
            &*game,
            &live.state,
            &r.visits,
            improved.as_deref(),
            r.best,
            r.value,
        ) {
            Some(a) => {
                game.apply(&mut live.state, a);
                live.moves.plies += 1;
                live.tree.advance(a, &live.state);
                if game.is_over(&live.state) {
                    live.moves.finish(&*game, &live.state, None);
                    self.finished.push(std::mem::take(&mut live.moves.record));
                    return false;
                }
                self.prepare(live)
            }
            None => {
                live.moves.finish(&*game, &live.state, Some(player));
                self.finished.push(std::mem::take(&mut live.moves.record));
                false
            }
        }
    }
}

impl<G: GameIo + 'static, E: Evaluate<G>> Stepped<G> for SelfPlay<G, E> {
    fn obs_len(&self) -> usize {
        self.shape.0
    }
    fn num_actions(&self) -> usize {
        self.shape.1
    }
    fn num_players(&self) -> usize {
        self.shape.2
    }
    fn capacity(&self) -> usize {
        self.live.len() * self.config.puct.batch_size
    }

    fn gather(&mut self, obs: &mut [f32], mask: &mut [bool]) -> usize {
        let (obs_len, a_len) = (self.shape.0, self.shape.1);
        let mut total = 0;
        for k in 0..self.live.len() {
            self.rows[k] = 0;
            let mut slot = self.live[k].take();
            loop {
                match slot.as_mut() {
                    None => {
                        slot = self.start_next();
                        if slot.is_none() {
                            break;
                        }
                    }
                    Some(live) if live.tree.is_done() => {
                        if !self.play_move(live) {
                            slot = None;
                        }
                    }
                    Some(live) => {
                        let rows = live
                            .tree
                            .gather(&mut obs[total * obs_len..], &mut mask[total * a_len..]);
                        self.rows[k] = rows;
                        total += rows;
                        break;
                    }
                }
            }
            self.live[k] = slot;
        }
        total
    }

    fn pending_states(&self) -> Vec<G::State> {
        self.live
            .iter()
            .flatten()
            .flat_map(|l| l.tree.pending_states().copied().collect::<Vec<_>>())
            .collect()
    }

    fn backup(&mut self, policy: &[f32], values: &[f32]) -> std::result::Result<(), BadAnswer> {
        let (a_len, n) = (self.shape.1, self.shape.2);
        let mut row = 0;
        for (slot, &rows) in self.live.iter_mut().zip(&self.rows) {
            if let Some(live) = slot {
                live.tree
                    .backup(&policy[row * a_len..], &values[row * n..])
                    .map_err(|bad| bad.after(row))?;
            }
            row += rows;
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.queue.is_empty() && self.live.iter().all(Option::is_none)
    }

    fn abort(&mut self) {
        self.queue.clear();
        for slot in &mut self.live {
            *slot = None;
        }
    }
}

/// Plays the games `ids` with plain MCTS on `threads` threads (`0`: every core), each
/// thread taking the next game as it finishes one; `finished` counts the games done (for a
/// progress display).
///
/// # Errors
/// `Error::Invalid` for bad settings or threads; `Error::Interrupted` when `stop` is raised.
pub fn play_many_mcts<G: GameIo + 'static, E: Evaluate<G>>(
    config: &SelfPlayConfig,
    maker: &Maker<G, E>,
    ids: &[u64],
    threads: usize,
    stop: &StopFlag,
    finished: &AtomicUsize,
) -> Result<Vec<GameRecord>> {
    config.check()?;
    check_games(ids.len())?;
    let threads = crate::batch::resolve_threads(threads)?
        .min(ids.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<GameRecord>>> = ids.iter().map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= ids.len() || stop.is_set() {
            return;
        }
        let id = ids[i];
        let (deal, tree_seed, move_seed) = game_seeds(config.seed, id);
        let (game, eval) = maker(deal);
        match play_mcts(&*game, &*eval, config, id, tree_seed, move_seed, stop) {
            Some(r) => {
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                finished.fetch_add(1, Ordering::Relaxed);
            }
            None => return,
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    let mut out = Vec::with_capacity(ids.len());
    for slot in slots {
        match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(r) => out.push(r),
            None => {
                return Err(crate::error::Error::Interrupted(format!(
                    "self-play interrupted after {} of {} games",
                    finished.load(Ordering::Relaxed),
                    ids.len()
                )))
            }
        }
    }
    Ok(out)
}

/// Games played so far by a [`SelfPlay`].
impl<G: Game, E> SelfPlay<G, E> {
    /// The number of games finished.
    pub fn finished(&self) -> usize {
        self.finished.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::eval::FishEval;
    use crate::fish::{FishGame, Rules};
    use crate::marathon::eval::{MarathonEval, MarathonEvalConfig};
    use crate::marathon::Marathon;
    use crate::search::forest::{drive, BatchEvaluator};

    struct Zero;
    impl<G: Game> BatchEvaluator<G> for Zero {
        fn evaluate(
            &mut self,
            _s: &[G::State],
            _o: &[f32],
            _m: &[bool],
            policy: &mut [f32],
            values: &mut [f32],
        ) -> Result<()> {
            policy.fill(0.0);
            values.fill(0.0);
            Ok(())
        }
    }

    fn fish_maker(players: usize) -> Maker<FishGame, FishEval> {
        let rules = Rules::standard(players).unwrap();
        Arc::new(move |seed| {
            let g = Arc::new(FishGame::dealt(rules, seed));
            let e = Arc::new(FishEval::plain(&g));
            (g, e)
        })
    }

    fn config() -> SelfPlayConfig {
        SelfPlayConfig {
            simulations: 16,
            seed: 5,
            ..SelfPlayConfig::default()
        }
    }

    fn puct_games(config: SelfPlayConfig, ids: &[u64]) -> Vec<GameRecord> {
        let mut sp = SelfPlay::new(config, fish_maker(2), ids).unwrap();
        drive(&mut sp, &mut Zero).unwrap();
        sp.into_records()
    }

    #[test]
    fn puct_games_are_whole_and_independent_of_their_company() {
        let all = puct_games(config(), &[0, 1, 2, 3]);
        assert_eq!(all.len(), 4);
        for r in &all {
            assert!(r.len() > 10 && r.length >= r.len());
            assert!((r.returns[0] + r.returns[1]).abs() < 1e-9);
            for row in r.policies.chunks(r.policies.len() / r.len()) {
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            }
        }
        let some = puct_games(config(), &[2, 3]);
        assert_eq!(&all[2..], &some[..]);
        let one_at_a_time = puct_games(
            SelfPlayConfig {
                max_live: 1,
                ..config()
            },
            &[3, 1],
        );
        assert_eq!(one_at_a_time[0], all[1]);
        assert_eq!(one_at_a_time[1], all[3]);
        assert_ne!(all[0].to_move.len(), 0);
        assert_ne!(all[0], all[1]);
    }

    #[test]
    fn gumbel_games_record_the_improved_policy() {
        let gumbel = SelfPlayConfig {
            puct: PuctConfig {
                root: RootRule::Gumbel(Default::default()),
                ..config().puct
            },
            ..config()
        };
        let all = puct_games(gumbel, &[0, 1, 2]);
        let plain = puct_games(config(), &[0, 1, 2]);
        for (r, p) in all.iter().zip(&plain) {
            assert!(r.len() > 10 && r.length >= r.len());
            let a_len = r.policies.len() / r.len();
            for (row, mask) in r.policies.chunks(a_len).zip(r.masks.chunks(a_len)) {
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                // Softmax weights: every legal move keeps some, illegal ones none.
                assert!(row.iter().zip(mask).all(|(&x, &m)| (x > 0.0) == m));
            }
            assert_ne!(r.policies, p.policies);
        }
        assert_eq!(&all[1..], &puct_games(gumbel, &[1, 2])[..]);
    }

    #[test]
    fn mcts_games_do_not_depend_on_threads() {
        let maker = fish_maker(3);
        let stop = StopFlag::new();
        let a = play_many_mcts(
            &config(),
            &maker,
            &[0, 1, 2],
            1,
            &stop,
            &AtomicUsize::new(0),
        )
        .unwrap();
        let b = play_many_mcts(&config(), &maker, &[2, 0], 2, &stop, &AtomicUsize::new(0)).unwrap();
        assert_eq!(a[2], b[0]);
        assert!(a.iter().all(|r| r.len() > 5));
        let m = Arc::new(Marathon::standard().with_players(3).unwrap());
        let e = Arc::new(MarathonEval::new(&m, MarathonEvalConfig::default()));
        let maker: Maker<Marathon, MarathonEval> = Arc::new(move |_| (m.clone(), e.clone()));
        let cfg = SelfPlayConfig {
            simulations: 8,
            temperature_moves: Some(4),
            ..config()
        };
        let r = play_many_mcts(&cfg, &maker, &[0], 1, &stop, &AtomicUsize::new(0)).unwrap();
        assert!(r[0].len() > 10);
    }

    #[test]
    fn resign_and_playout_cap() {
        // Every value is 0: below a threshold of 0.5 every player resigns at once, but in
        // the games that never resign.
        let cfg = SelfPlayConfig {
            resign: Some(0.5),
            no_resign_fraction: 0.0,
            ..config()
        };
        let mut sp = SelfPlay::new(cfg, fish_maker(2), &[0, 1]).unwrap();
        drive(&mut sp, &mut Zero).unwrap();
        for g in &sp.into_records() {
            assert_eq!(g.resigned, Some(0));
            assert_eq!((g.returns[0], g.returns[1]), (-1.0, 1.0));
            assert_eq!(g.len(), 1);
        }
        let cfg = SelfPlayConfig {
            no_resign_fraction: 1.0,
            ..cfg
        };
        let mut sp = SelfPlay::new(cfg, fish_maker(2), &[0, 1]).unwrap();
        drive(&mut sp, &mut Zero).unwrap();
        assert!(sp.into_records().iter().all(|g| g.resigned.is_none()));
        // Playout cap: only full searches are recorded.
        let cfg = SelfPlayConfig {
            playout_cap: Some((0.25, 4)),
            ..config()
        };
        let capped = puct_games(cfg, &[0, 1]);
        for g in &capped {
            assert!(g.len() * 2 < g.length, "{} of {}", g.len(), g.length);
        }
        assert!(SelfPlayConfig {
            playout_cap: Some((0.5, 0)),
            ..config()
        }
        .check()
        .is_err());
    }
}
