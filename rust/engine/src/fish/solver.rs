//! The exact Fish solver for small positions.
//!
//! **Two players:** each player maximises their final fish minus the opponent's, floes breaking
//! ties (the value compares `(fish difference, floe difference)` lexicographically).
//! **Three or four players:** the *paranoid* reduction: the player to move at the root maximises
//! their own final fish minus the sum of the others' (floes breaking ties), and the others all
//! minimise that. It is a bound on what the root player can secure against any coalition, not
//! the outcome of selfish play.
//!
//! Values count only what is still to be collected (so the transposition table can use the
//! engine's hash, which leaves the scores out), and a search ends in every position whose
//! regions each have at most one owner (their hauls are exact: see [`super::eval`]). The search
//! is alpha-beta with null windows (PVS) on the packed `(fish, floes)` margin, the root's first
//! move by MTD(f) (null windows only, from a guess of an even margin), the table move and
//! then the history of cut-offs ordering the moves; when the table's move does not cut off,
//! the other children are looked up in the table before any is searched (enhanced
//! transposition cut-offs: a child already known to be good enough ends the node). A cheap
//! bound cuts off too: a player collects at most the floes they can still reach, not counting
//! those under the opponent's penguins, and at least the floes under their own penguins (they
//! keep those, moving off or lifted).
//!
//! The transposition table (in `table`) is keyed by the position (the engine's hash, which
//! leaves the scores out, as the values do) with a lower and an upper bound (equal when exact),
//! which each search narrows; on a board with symmetries (those that keep
//! every floe's fish: [`super::symmetry::fish_symmetries`]) the key is that of the position's
//! canonical image, the least hash over the symmetries, so symmetric positions share one entry
//! (its best move is stored in the canonical image's frame and mapped back).
//! [`SolveOptions::symmetry`] turns that off (for comparisons); values are the same either way.
//!
//! Regions are split off only when each has one owner: their hauls add. Regions that each hold
//! penguins of both players are not solved apart and added, because their values do not add:
//! the position is a sum of games in which the mover picks the region to move in, and a
//! region's value depends on who moves first in it and on how many moves each side has to
//! spare elsewhere (a player with no move left anywhere is out, and the other then moves alone
//! in every region). In positions as small as two shared regions of four floes the value is
//! none of the sums of the regions' values, whoever moves first in each (`tests/test_solver.py`
//! shows one); a sound sum needs the regions' values as combinatorial games (with tempo), not
//! as numbers.
//!
//! At the root every move is searched far enough to know whether it is optimal: the solution
//! lists every optimal move with its value ([`SolveOptions::all_values`] gives the exact value of
//! every legal move instead).
//!
//! A solve's node limit ([`SolveOptions::max_nodes`]) bounds its memory as well as its work:
//! the table grows to at most [`TABLE_BYTES_PER_NODE`] bytes a position of the limit (within
//! [`SolveOptions::tt_mb`]), and the region solver ([`regions`]) does at most
//! [`SOLVER_WORK_PER_NODE`] region splits a position, each adding at most one entry to memos of
//! a fixed size. A position far beyond the limit is refused before any search: [`estimate`].

pub mod estimate;
#[cfg(test)]
mod reference;
pub mod regions;
mod table;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::{invalid, Error, Result};
use crate::fish::any::with_fish_state;
use crate::fish::symmetry::{fish_symmetries, map_state};
use crate::fish::{AnyFish, AnyFishState, Bitboard, FishGame, FishState, Phase, Word};
use arrayvec::ArrayVec;

use crate::game::{Action, ActionList, Game, MAX_ACTIONS};
use crate::rng::splitmix64;
use crate::search::budget::SOLVER_WORK_PER_NODE;
use crate::search::{Budget, Clock, Pacer, StopFlag};
use crate::symmetry::Symmetry;
use regions::{exact_scores, with_haul_solver, FishPlanes};
use table::Table;
pub use table::{BYTES_PER_NODE as TABLE_BYTES_PER_NODE, MAX_TABLE_MB};

/// What the solver found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Final `(fish, floes)` of every player after optimal play.
    pub scores: Vec<(u32, u32)>,
    /// The best move of the player to move (`None` when the game is over).
    pub best: Option<Action>,
    /// Every optimal move of the player to move, `best` first.
    pub moves: Vec<Action>,
    /// The value of each root move searched exactly, in the order searched: the optimal moves,
    /// or every legal move with [`SolveOptions::all_values`]. A move's value is the value of
    /// the position for the player to move if they play it.
    pub values: Vec<(Action, (i32, i32))>,
    /// The optimal line, to the end of the game or to a position whose regions are all solved.
    pub pv: Vec<Action>,
    /// The value for the player to move: what they gain from here on, minus what the
    /// opponent (two players) or the others together (more) gain, as `(fish, floes)`.
    pub value: (i32, i32),
    /// Positions searched.
    pub nodes: u64,
}

const INF: i32 = i32::MAX / 2;

/// The largest search the solver allows by default.
pub const DEFAULT_MAX_NODES: u64 = 50_000_000;

/// The most memory the solver's table takes by default, in MiB (it grows only as needed).
pub const DEFAULT_TT_MB: usize = 512;

/// The most positions between two readings of the clock (time and stop flag); fewer when
/// positions are slow ([`Pacer`]: on large boards one takes up to milliseconds).
const CHECK_INTERVAL: u64 = 1024;

/// Children between two readings of the clock while a position's moves are sorted.
const CHILDREN_PER_CLOCK_READ: usize = 8;

/// The stack a solve may use on the caller's thread; a game deeper than this allows is solved
/// on a thread of its own with the stack it needs ([`stack_needed`]).
const INLINE_STACK: usize = 1 << 20;

/// How [`solve_with_options`] searches.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// Give up (with an error) after this many positions.
    pub max_nodes: u64,
    /// Give up (with an error) after this long.
    pub time: Option<Duration>,
    /// The most memory the transposition table may take, in MiB.
    pub tt_mb: usize,
    /// Fold symmetric positions into one transposition-table entry (see the module docs).
    pub symmetry: bool,
    /// Find the exact value of every root move, not only of the optimal ones.
    pub all_values: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            max_nodes: DEFAULT_MAX_NODES,
            time: None,
            tt_mb: DEFAULT_TT_MB,
            symmetry: true,
            all_values: false,
        }
    }
}

/// Packs a `(fish, floes)` difference so that comparing values compares fish first.
#[inline]
fn value_of(fish: i32, floes: i32) -> i32 {
    // Floe differences stay within ±1024 (the most cells of a board).
    fish * 4096 + floes
}

#[inline]
fn split_value(v: i32) -> (i32, i32) {
    let fish = (v + 2048).div_euclid(4096);
    (fish, v - fish * 4096)
}

/// Why a search stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Halt {
    Nodes,
    Time,
    Stopped,
}

/// What one solve leaves for the next in the same game: the transposition table and the move
/// history. Every entry is a result about a position alone (what is still to be collected from
/// it, keyed by the position, salted by the root player for the paranoid reduction of three or
/// four players), so it holds for any later root; a stopped solve stores nothing it did not
/// finish. Walking back along a game (as `fish_endgames` does), each position's solve then
/// finds the one after it already solved.
pub struct SolveCache<'a, W: Word> {
    game: &'a FishGame<W>,
    planes: FishPlanes<W>,
    /// The board's symmetries other than the identity, each with its inverse (none when the
    /// cache does not fold symmetric positions).
    syms: Vec<(Symmetry, Symmetry)>,
    tt: Table,
    /// Cut-offs per action, weighted by the floes left (the history heuristic).
    history: Vec<u32>,
}

impl<'a, W: Word> SolveCache<'a, W> {
    /// An empty cache for solves of `game`, with `options.tt_mb` and `options.symmetry` (which
    /// stay those of the cache: the table's keys depend on them).
    ///
    /// # Errors
    /// `Error::Invalid` when `tt_mb` is out of range; `Error::Memory` when `tt_mb` MiB are more
    /// than the memory available.
    pub fn new(game: &'a FishGame<W>, options: &SolveOptions) -> Result<Self> {
        let syms = if options.symmetry {
            fish_symmetries(game)
                .into_iter()
                .filter(|s| !s.is_identity())
                .map(|s| {
                    let inverse = s.inverse();
                    (s, inverse)
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(SolveCache {
            game,
            planes: FishPlanes::new(game.board()),
            syms,
            tt: Table::new(options.tt_mb)?,
            history: vec![0; game.num_actions()],
        })
    }

    /// [`solve_with_progress`] of `state` (a position of the cache's game), reusing and
    /// extending what earlier solves stored; the cache's own table size and symmetry setting
    /// apply, not `options`'.
    ///
    /// # Errors
    /// As [`solve_with_progress`].
    pub fn solve(
        &mut self,
        state: &FishState<W>,
        options: SolveOptions,
        stop: Option<&StopFlag>,
        progress: Option<&AtomicU64>,
    ) -> Result<Solution> {
        let started = Instant::now();
        self.refuse_far_beyond(started, state, &options, stop)?;
        self.solve_from(started, state, options, stop, progress)
    }

    /// An error when [`estimate`] puts the search of `state` far beyond `options.max_nodes`
    /// (more than [`estimate::MARGIN`] times): refused at once, not after the whole limit. The
    /// estimate reads the solve's clock (its time counted from `started`, and `stop`).
    ///
    /// # Errors
    /// `Error::Invalid`, the error of a search past its node limit, saying why.
    fn refuse_far_beyond(
        &self,
        started: Instant,
        state: &FishState<W>,
        options: &SolveOptions,
        stop: Option<&StopFlag>,
    ) -> Result<()> {
        let limit = (options.max_nodes as f64 * estimate::MARGIN).log2();
        let expired = || {
            stop.is_some_and(StopFlag::is_set)
                || options.time.is_some_and(|t| started.elapsed() >= t)
        };
        // Lines go on a little past the limit, so that the message's figure says how far.
        let guess =
            estimate::estimate(self.game, state, self.syms.len() + 1, limit + 16.0, expired);
        if guess.log2 <= limit {
            return Ok(());
        }
        invalid!(
            "the position is too large to solve exactly (more than {} positions): an estimate \
             from its lines of play puts its search at {:.1e} positions or more, over {} times \
             the limit ({} floes in play, {} placements to come)",
            options.max_nodes,
            guess.positions(),
            estimate::MARGIN,
            guess.contested,
            guess.placements
        )
    }

    /// [`SolveCache::solve`], its time counted from `started`.
    fn solve_from(
        &mut self,
        started: Instant,
        state: &FishState<W>,
        options: SolveOptions,
        stop: Option<&StopFlag>,
        progress: Option<&AtomicU64>,
    ) -> Result<Solution> {
        let need = stack_needed(self.game);
        if need <= INLINE_STACK {
            return solve_in(self, started, state, options, stop, progress);
        }
        // The search recurses a whole game deep (and the region solver below it): on large
        // boards (a 32x32 game is a thousand plies) more than a thread's usual stack.
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("pingvinas-solver".into())
                .stack_size(need)
                .spawn_scoped(scope, || {
                    solve_in(self, started, state, options, stop, progress)
                })
                .map_err(|e| {
                    Error::Memory(format!(
                        "the solver could not start a thread with a {} MiB stack: {e}",
                        need >> 20
                    ))
                })?
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

/// The stack one ply of the solver's recursion takes at most: a frame of `negamax` (an action
/// list and a few positions) or of the region solver's search, which goes on below it. About
/// 1.5 times what `the_stack_a_ply_takes_is_within_its_bound` measures.
fn stack_per_ply<W: Word>() -> usize {
    std::mem::size_of::<ActionList>() + 8 * std::mem::size_of::<FishState<W>>() + 2048
}

/// The stack a solve of `game` may need: a ply's worth for every ply of the longest game (each
/// move takes a floe, and so does each of the region solver's below it, so the two recursions
/// together are at most a game deep), a few more for the frames above them, and room for
/// sorting one position's moves.
fn stack_needed<W: Word>(game: &FishGame<W>) -> usize {
    let plies = game.max_game_length() + 16;
    (256 << 10) + plies * stack_per_ply::<W>()
}

struct Solver<'a, W: Word> {
    game: &'a FishGame<W>,
    planes: &'a FishPlanes<W>,
    players: usize,
    root: usize,
    salt: u64,
    tt: &'a mut Table,
    nodes: u64,
    max_nodes: u64,
    /// The time and the stop flag, read by the search and (entered on this thread) by the
    /// region solver.
    clock: Clock,
    pacer: Pacer,
    /// Work the region solver may still do in this solve ([`SOLVER_WORK_PER_NODE`] per position
    /// of the node limit, over the whole solve): a node budget also bounds its searches.
    haul_left: u64,
    halt: Option<Halt>,
    progress: Option<&'a AtomicU64>,
    /// The board's symmetries other than the identity, each with its inverse.
    syms: &'a [(Symmetry, Symmetry)],
    /// Cut-offs per action, weighted by the floes left (the history heuristic).
    history: &'a mut [u32],
}

impl<W: Word> Solver<'_, W> {
    fn same_side(&self, p: usize, q: usize) -> bool {
        if self.players == 2 {
            p == q
        } else {
            (p == self.root) == (q == self.root)
        }
    }

    /// The value for `p`'s side of the score changes from `a` to `b`.
    #[inline]
    fn delta(&self, a: &FishState<W>, b: &FishState<W>, p: usize) -> i32 {
        let d = |q: usize| {
            value_of(
                b.fish[q] as i32 - a.fish[q] as i32,
                b.taken[q] as i32 - a.taken[q] as i32,
            )
        };
        let n = self.players;
        let root_side = if n == 2 { p } else { self.root };
        let mut v = d(root_side);
        for q in 0..n {
            if q != root_side {
                v -= d(q);
            }
        }
        if self.same_side(p, root_side) {
            v
        } else {
            -v
        }
    }

    /// The packed `(fish, floes)` of a set of floes.
    #[inline]
    fn worth(&self, bb: Bitboard<W>) -> i32 {
        value_of(self.planes.fish_on(bb) as i32, bb.count() as i32)
    }

    /// Whether some region of movement-phase `s` holds penguins of two players.
    #[inline]
    fn contested(&self, s: &FishState<W>) -> bool {
        let board = self.game.board();
        let mut others = s.occupied();
        for q in 0..self.players - 1 {
            others = others - s.penguins[q];
            if s.penguins[q].any() && board.fill(s.penguins[q], s.floes).intersects(others) {
                return true;
            }
        }
        false
    }

    /// What `p`'s side still gains from `s` to the end under exact regions, if they are exact
    /// (and solved within the region solver's allowance and the clock).
    fn exact_future(&mut self, s: &FishState<W>, p: usize) -> Option<i32> {
        if self.haul_left == 0 {
            return None;
        }
        let spent = || with_haul_solver::<W, _>(|h| h.spent());
        let before = spent();
        let scores = {
            let _scope = self.clock.with_solver_work(self.haul_left).enter();
            exact_scores(self.game, self.planes, s, u64::MAX)
        };
        self.haul_left = self.haul_left.saturating_sub(spent().wrapping_sub(before));
        let scores = scores?;
        let mut end = *s;
        for (q, &(fish, floes)) in scores.iter().enumerate().take(self.players) {
            end.fish[q] = fish as u16;
            end.taken[q] = floes as u16;
        }
        Some(self.delta(s, &end, p))
    }

    /// Bounds on the value of contested movement-phase `s` for its player to move `p` (two
    /// players): see the module docs.
    #[inline]
    fn bounds(&self, s: &FishState<W>, p: usize) -> (i32, i32) {
        let board = self.game.board();
        let (mine, theirs) = (s.penguins[p], s.penguins[1 - p]);
        let reach_mine = board.fill(mine, s.floes);
        let reach_theirs = board.fill(theirs, s.floes);
        let low = self.worth(mine) - self.worth(reach_theirs - mine);
        let high = self.worth(reach_mine - theirs) - self.worth(theirs);
        (low, high)
    }

    /// The table key of `s` and the symmetry (an index into `syms`, `None` for the identity)
    /// that takes `s` to the canonical image the key belongs to.
    #[inline]
    fn key(&self, s: &FishState<W>) -> (u64, Option<usize>) {
        let mut best = (self.game.hash(s), None);
        for (i, (sym, _)) in self.syms.iter().enumerate() {
            let h = map_state(self.game, sym, s).hash();
            if h < best.0 {
                best = (h, Some(i));
            }
        }
        (best.0 ^ self.salt, best.1)
    }

    /// An action of `s` in the frame of its canonical image (`to == true`), or back.
    #[inline]
    fn frame(&self, sym: Option<usize>, a: Action, to: bool) -> Action {
        match sym {
            None => a,
            Some(i) if to => self.syms[i].0.actions[a as usize],
            Some(i) => self.syms[i].1.actions[a as usize],
        }
    }

    /// The table entry of `s` (its lower and upper bounds), its move in `s`'s own frame.
    fn probe(&self, s: &FishState<W>) -> Option<(i32, i32, Action)> {
        let (key, sym) = self.key(s);
        self.tt
            .probe(key)
            .map(|(low, high, a)| (low, high, self.frame(sym, a, false)))
    }

    /// Counts a position; false (with `halt` set) when a limit is reached.
    #[inline]
    fn count(&mut self) -> bool {
        self.nodes += 1;
        if let Some(p) = self.progress {
            p.store(self.nodes, Ordering::Relaxed);
        }
        if self.halt.is_some() {
            return false;
        }
        if self.nodes > self.max_nodes {
            self.halt = Some(Halt::Nodes);
        } else if self.pacer.expired(&self.clock) {
            self.halt = Some(self.clock_halt());
        }
        self.halt.is_none()
    }

    /// Why the clock expired: the stop flag, or the time.
    fn clock_halt(&self) -> Halt {
        if self.clock.stopped() {
            Halt::Stopped
        } else {
            Halt::Time
        }
    }

    /// The legal actions of `s` into `actions`, `first` (if legal) first, then by history.
    /// (Filled in place: an action list is 4 KiB, too much to return by value at every node.)
    fn ordered(&self, s: &FishState<W>, first: Option<Action>, actions: &mut ActionList) {
        self.game.legal_actions(s, actions);
        actions.sort_unstable_by_key(|&a| std::cmp::Reverse(self.history[a as usize]));
        if let Some(h) = first {
            if let Some(i) = actions.iter().position(|&a| a == h) {
                actions[..=i].rotate_right(1);
            }
        }
    }

    /// Sorts moves of `s`, the likeliest best first: slides that leave the opponent the fewest
    /// replies and the most fish where it lands, placements that leave the placed penguin the
    /// most slides; then by history.
    /// On the way, looks each child up in the table (enhanced transposition cut-offs): returns a
    /// move and a value at least `beta` for `s`'s player to move `p` when a child's entry (or
    /// a finished child) proves the move worth that much. Reads the clock as it goes (on a large
    /// board the children of one position take milliseconds): `halt` set, it returns `None`.
    // Never inlined: its two move-sized buffers (32 KiB) would otherwise sit in every frame of
    // `negamax`'s recursion, which a whole game deep overflowed a 2 MiB thread stack.
    #[inline(never)]
    fn sort_by_eval(
        &mut self,
        s: &FishState<W>,
        actions: &mut [Action],
        p: usize,
        beta: i32,
    ) -> Option<(i32, Action)> {
        // Each child's key, the move's gain and whether the child's mover is on `p`'s side
        // (`None` for a finished game).
        let mut children: ArrayVec<(u64, i32, Option<bool>), MAX_ACTIONS> = ArrayVec::new();
        let mut keyed: ArrayVec<(i64, Action), MAX_ACTIONS> = ArrayVec::new();
        let placing = self.game.phase(s) == Phase::Placement;
        let board = self.game.board();
        for (i, &a) in actions.iter().enumerate() {
            if i % CHILDREN_PER_CLOCK_READ == CHILDREN_PER_CLOCK_READ - 1 && self.clock.expired() {
                self.halt = Some(self.clock_halt());
                return None;
            }
            let mut c = *s;
            self.game.apply(&mut c, a);
            let gain = self.delta(s, &c, p);
            if let Some(q) = c.to_move() {
                let key = self.key(&c).0;
                self.tt.prefetch(key);
                children.push((key, gain, Some(self.same_side(p, q))));
            } else {
                children.push((0, gain, None));
            }
            if actions.len() < 2 {
                break;
            }
            let key = if placing {
                // The placed penguin's freedom, the more the better.
                let cell = (c.penguins[p] - s.penguins[p])
                    .first()
                    .expect("a placement adds a penguin");
                let empty = c.empty();
                let mut slides = 0;
                board.slide_counts(cell, empty, Bitboard(empty.0.reverse()), |_, n| slides += n);
                -(slides as i64)
            } else {
                // The opponent's replies, less the mover's own freedom after the move.
                let empty = c.empty();
                let empty_rev = Bitboard(empty.0.reverse());
                let mut mine = 0;
                for cell in c.penguins[p] {
                    board.slide_counts(cell, empty, empty_rev, |_, n| mine += n);
                }
                // and the fish of the floe moved to (collected on leaving it): on the 6x6
                // pairs class (`fish_solve 6 6 3 class penguins=2 plies=10`) 15% fewer
                // positions at weight 1, 10% at 2, twice as many at 5.
                let to = c.penguins[p] - s.penguins[p];
                3 * self.game.count_moves(&c) as i64 - mine as i64 - self.planes.fish_on(to) as i64
            };
            keyed.push((key * (1 << 32) - self.history[a as usize] as i64, a));
        }
        for (&a, &(key, gain, side)) in actions.iter().zip(&children) {
            let v = match side {
                None => gain,
                Some(same) => match (self.tt.probe(key), same) {
                    (Some((low, _, _)), true) if low > -INF => gain + low,
                    (Some((_, high, _)), false) if high < INF => gain - high,
                    _ => continue,
                },
            };
            if v >= beta {
                return Some((v, a));
            }
        }
        keyed.sort_unstable();
        for (slot, &(_, a)) in actions.iter_mut().zip(&keyed) {
            *slot = a;
        }
        None
    }

    /// The value of `s` for its player to move `p`, exact when it lies strictly between `alpha`
    /// and `beta`, else a bound on the side of the window it fell (fail-soft).
    fn negamax(&mut self, s: &FishState<W>, mut alpha: i32, beta: i32) -> i32 {
        #[cfg(test)]
        let _frame = stack_probe::enter();
        let p = s
            .to_move()
            .expect("the solver searches positions that are not over");
        if !self.count() {
            return 0;
        }
        let movement = self.game.phase(s) == Phase::Movement;
        let contested = !movement || self.contested(s);
        let (key, sym) = self.key(s);
        let mut hash_move = None;
        if let Some((low, high, best)) = self.tt.probe(key) {
            hash_move = Some(self.frame(sym, best, false));
            // Both bounds answer: one entry holds what searches in different windows found.
            // The window is not narrowed to them: that saved no positions, and the cheap bound
            // below then ends, unstored, searches whose exact value the line walk (`solve_in`)
            // reads from the table, so the line stopped short of the value's final scores. The
            // values stayed right (every bound stored, probed and returned matched brute force
            // in the kept-table test); narrowing plus storing those cut-offs passes the tests.
            if low >= beta || low == high {
                return low;
            }
            if high <= alpha {
                return high;
            }
        }
        let depth = s.floes.count();
        if !contested {
            if let Some(v) = self.exact_future(s, p) {
                self.tt.store(key, v, v, 0, 0, true);
                return v;
            }
        }
        if movement && self.players == 2 {
            let (low, high) = self.bounds(s, p);
            if high <= alpha {
                return high;
            }
            if low >= beta {
                return low;
            }
        }
        let mut actions = ActionList::new();
        self.ordered(s, hash_move, &mut actions);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_action = actions[0];
        for i in 0..actions.len() {
            if i == usize::from(hash_move.is_some()) {
                if let Some((v, a)) = self.sort_by_eval(s, &mut actions[i..], p, beta) {
                    if v > best {
                        best = v;
                        best_action = a;
                    }
                    break;
                }
                if self.halt.is_some() {
                    return 0;
                }
            }
            let a = actions[i];
            let mut c = *s;
            self.game.apply(&mut c, a);
            let gain = self.delta(s, &c, p);
            let mut v;
            if i == 0 {
                v = gain + self.child(&c, p, alpha - gain, beta - gain);
            } else {
                v = gain + self.child(&c, p, alpha - gain, alpha + 1 - gain);
                if v > alpha && v < beta && self.halt.is_none() {
                    v = gain + self.child(&c, p, alpha - gain, beta - gain);
                }
            }
            if self.halt.is_some() {
                return 0;
            }
            if v > best {
                best = v;
                best_action = a;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        let h = &mut self.history[a as usize];
                        *h = h.saturating_add(depth * depth);
                        break;
                    }
                }
            }
        }
        let (low, high) = if best >= beta {
            (best, INF)
        } else if best > alpha0 {
            (best, best)
        } else {
            (-INF, best)
        };
        let sure = best > alpha0;
        self.tt.store(
            key,
            low,
            high,
            self.frame(sym, best_action, true),
            depth,
            sure,
        );
        best
    }

    /// The future value of child `c` for `p`'s side, searched in the window (in `p`'s terms,
    /// after the move's own gain).
    #[inline]
    fn child(&mut self, c: &FishState<W>, p: usize, alpha: i32, beta: i32) -> i32 {
        let Some(q) = c.to_move() else { return 0 };
        if self.same_side(p, q) {
            self.negamax(c, alpha, beta)
        } else {
            -self.negamax(c, -beta, -alpha)
        }
    }

    /// The exact future value of child `c` for `p`'s side by MTD(f) (Plaat et al. 1996): null
    /// windows from `guess` (fail-soft, each result a bound that moves the next window) until
    /// the bounds meet. From a guess of an even final margin, this took 7-10% fewer positions
    /// than one full-window search on the 4x4, 5x5 and 6x6 classes (`fish_solve ... class`).
    fn mtdf(&mut self, c: &FishState<W>, p: usize, guess: i32) -> i32 {
        let (mut low, mut high, mut g) = (-INF, INF, guess);
        while low < high && self.halt.is_none() {
            let beta = if g == low { g + 1 } else { g };
            g = self.child(c, p, beta - 1, beta);
            if g < beta {
                high = g;
            } else {
                low = g;
            }
        }
        g
    }

    /// Searches every root move far enough to know whether it is optimal (or exactly, with
    /// `all`): returns the value and the exact values of the moves found optimal (or of all),
    /// best first.
    fn root(&mut self, s: &FishState<W>, all: bool) -> (i32, Vec<(Action, i32)>) {
        let p = s.to_move().expect("the root is not over");
        self.count();
        let mut actions = ActionList::new();
        self.ordered(s, None, &mut actions);
        let mut best = -INF;
        let mut values: Vec<(Action, i32)> = Vec::new();
        for &a in &actions {
            let mut c = *s;
            self.game.apply(&mut c, a);
            let gain = self.delta(s, &c, p);
            let v = if best == -INF {
                gain + self.mtdf(&c, p, -gain)
            } else if all {
                gain + self.child(&c, p, -INF, INF)
            } else {
                // Optimal only if worth at least `best`: a null window says, and only then is
                // the exact value needed.
                let t = gain + self.child(&c, p, best - 1 - gain, best - gain);
                if t < best || self.halt.is_some() {
                    continue;
                }
                gain + self.child(&c, p, best - 1 - gain, INF)
            };
            if self.halt.is_some() {
                break;
            }
            if v > best {
                best = v;
                if !all {
                    values.clear();
                }
            }
            if all || v == best {
                values.push((a, v));
            }
        }
        values.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        // Not when stopped: the moves not searched might be better (and a cache keeps this).
        if let (Some(&(a, v)), None) = (values.first(), self.halt) {
            let (key, sym) = self.key(s);
            let depth = s.floes.count();
            self.tt
                .store(key, v, v, self.frame(sym, a, true), depth, true);
        }
        (best, values)
    }
}

/// Solves a Fish position exactly (see the module docs for what "optimal" means with more than
/// two players). Positions with many floes can take very long: the search gives up after
/// `max_nodes` positions.
///
/// # Errors
/// `Error::Invalid` when the game is over or the search would exceed `max_nodes`.
pub fn solve<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    max_nodes: u64,
) -> Result<Solution> {
    solve_with_stop(game, state, max_nodes, None)
}

/// [`solve`], giving up (with an error) as soon as `stop` is set.
///
/// # Errors
/// As [`solve`], and `Error::Interrupted` when stopped.
pub fn solve_with_stop<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    max_nodes: u64,
    stop: Option<&StopFlag>,
) -> Result<Solution> {
    let options = SolveOptions {
        max_nodes,
        ..SolveOptions::default()
    };
    solve_with_options(game, state, options, stop)
}

/// [`solve_with_stop`] with every option.
///
/// # Errors
/// As [`solve_with_progress`].
pub fn solve_with_options<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    options: SolveOptions,
    stop: Option<&StopFlag>,
) -> Result<Solution> {
    solve_with_progress(game, state, options, stop, None)
}

/// [`solve_with_progress`] on a game and state of any word, `None` when their words differ.
/// Not generic, so that the solver is compiled here, where the engine is optimised even in
/// debug builds (generic code is compiled in the crate that names its types: unoptimised
/// bindings made a solve from Python about ten times slower a node).
pub fn solve_any(
    game: &AnyFish,
    state: &AnyFishState,
    options: SolveOptions,
    stop: Option<&StopFlag>,
    progress: Option<&AtomicU64>,
) -> Option<Result<Solution>> {
    with_fish_state!(
        game,
        state,
        |g, s| Some(solve_with_progress(g, s, options, stop, progress)),
        None
    )
}

/// [`solve_with_options`], storing the positions searched so far in `progress` every
/// thousand or so (for a progress report from another thread).
///
/// # Errors
/// `Error::Invalid` when the game is over, the search would exceed `max_nodes` or the time,
/// or `tt_mb` is out of range; `Error::Memory` when `tt_mb` MiB are more than the memory
/// available; `Error::Interrupted` when stopped.
pub fn solve_with_progress<W: Word>(
    game: &FishGame<W>,
    state: &FishState<W>,
    options: SolveOptions,
    stop: Option<&StopFlag>,
    progress: Option<&AtomicU64>,
) -> Result<Solution> {
    if state.to_move().is_none() {
        return invalid!("cannot solve a finished game");
    }
    // The time is the call's: what building the cache takes (the symmetries of a large board)
    // is spent.
    let started = Instant::now();
    let mut cache = SolveCache::new(game, &options)?;
    cache.refuse_far_beyond(started, state, &options, stop)?;
    cache.solve_from(started, state, options, stop, progress)
}

/// [`SolveCache::solve`], its time counted from `started`.
fn solve_in<W: Word>(
    cache: &mut SolveCache<'_, W>,
    started: Instant,
    state: &FishState<W>,
    options: SolveOptions,
    stop: Option<&StopFlag>,
    progress: Option<&AtomicU64>,
) -> Result<Solution> {
    let game = cache.game;
    let Some(root) = state.to_move() else {
        return invalid!("cannot solve a finished game");
    };
    let budget = Budget {
        time: options.time.map(|t| t.saturating_sub(started.elapsed())),
        ..Budget::default()
    };
    let clock = Clock::start(&budget, stop.cloned().unwrap_or_default());
    // The region solver reads it too: a region too large to solve gives up with the solve.
    let _scope = clock.enter();
    // The node limit bounds the table as well as the work.
    cache.tt.allow(options.max_nodes);
    let players = game.rules().players();
    let mut solver = Solver {
        game,
        planes: &cache.planes,
        players,
        root,
        salt: if players > 2 {
            splitmix64(root as u64 + 77)
        } else {
            0
        },
        tt: &mut cache.tt,
        nodes: 0,
        max_nodes: options.max_nodes,
        clock,
        pacer: Pacer::new(CHECK_INTERVAL),
        haul_left: options.max_nodes.saturating_mul(SOLVER_WORK_PER_NODE),
        halt: None,
        progress,
        syms: &cache.syms,
        history: &mut cache.history,
    };
    let (value, values) = solver.root(state, options.all_values);
    // Walk the optimal line to the end, or to a position whose regions are all solved.
    let mut s = *state;
    let mut pv = Vec::new();
    while solver.halt.is_none() {
        let Some(p) = s.to_move() else { break };
        if !pv.is_empty() && solver.exact_future(&s, p).is_some() {
            break;
        }
        if !matches!(solver.probe(&s), Some((low, high, _)) if low == high) {
            solver.negamax(&s, -INF, INF);
        }
        let Some((_, _, a)) = solver.probe(&s).filter(|&(low, high, _)| low == high) else {
            break;
        };
        pv.push(a);
        game.apply(&mut s, a);
        if pv.len() > game.max_game_length() {
            break;
        }
    }
    // The line's final scores: exact regions (found above, unless the clock stops their solve
    // now), or the scores of the game's end.
    let final_exact = match solver.halt {
        None => {
            // Within what is left of the region solver's allowance, as every solve of it here.
            let _scope = solver.clock.with_solver_work(solver.haul_left).enter();
            exact_scores(game, solver.planes, &s, u64::MAX)
        }
        Some(_) => None,
    };
    if final_exact.is_none() && s.to_move().is_some() && solver.clock.expired() {
        solver.halt = Some(solver.clock_halt());
    }
    match solver.halt {
        Some(Halt::Stopped) => {
            return Err(Error::Interrupted("the solver was stopped".into()));
        }
        Some(Halt::Nodes) => {
            return invalid!(
                "the position is too large to solve exactly (more than {} positions)",
                options.max_nodes
            );
        }
        Some(Halt::Time) => {
            return invalid!(
                "the position was not solved within {:.3} s ({} positions searched)",
                options.time.unwrap_or_default().as_secs_f64(),
                solver.nodes
            );
        }
        None => {}
    }
    if let Some(p) = progress {
        p.store(solver.nodes, Ordering::Relaxed);
    }
    let final_scores = final_exact.unwrap_or_else(|| {
        let mut sc = [(0, 0); 4];
        for (q, x) in sc.iter_mut().enumerate().take(players) {
            *x = (s.fish[q] as u32, s.taken[q] as u32);
        }
        sc
    });
    let best = pv.first().copied();
    let mut moves: Vec<Action> = values
        .iter()
        .filter(|&&(_, v)| v == value)
        .map(|&(a, _)| a)
        .collect();
    // The line's first move first (the table may have stored another optimal one).
    if let Some(b) = best {
        if let Some(i) = moves.iter().position(|&a| a == b) {
            moves[..=i].rotate_right(1);
        }
    }
    Ok(Solution {
        scores: final_scores[..players].to_vec(),
        best,
        moves,
        values: values.iter().map(|&(a, v)| (a, split_value(v))).collect(),
        pv,
        value: split_value(value),
        nodes: solver.nodes,
    })
}

/// How deep the solver's recursions go on the stack, for the test of [`stack_per_ply`]: every
/// frame of `negamax` and of the region solver's search notes the stack address it runs at.
#[cfg(test)]
pub(crate) mod stack_probe {
    use std::cell::Cell;

    thread_local! {
        static DEPTH: Cell<usize> = const { Cell::new(0) };
        /// The lowest address noted, and the frames deep it was.
        static LOWEST: Cell<(usize, usize)> = const { Cell::new((usize::MAX, 0)) };
    }

    /// A frame of a measured recursion, until it returns.
    pub(crate) struct Frame;

    #[inline(always)]
    pub(crate) fn enter() -> Frame {
        let here = 0u8;
        let at = std::hint::black_box(&here) as *const u8 as usize;
        let depth = DEPTH.get() + 1;
        DEPTH.set(depth);
        if at < LOWEST.get().0 {
            LOWEST.set((at, depth));
        }
        Frame
    }

    impl Drop for Frame {
        fn drop(&mut self) {
            DEPTH.set(DEPTH.get() - 1);
        }
    }

    /// The lowest address noted on this thread since the last call, and the depth there.
    pub(crate) fn take() -> (usize, usize) {
        LOWEST.replace((usize::MAX, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::{Board, Order, Placement, Rules};
    use crate::rng::Rng;

    /// Brute force: the same objective by plain minimax over every move, no pruning, no regions.
    fn brute(game: &FishGame, s: &FishState, root: usize) -> i32 {
        brute_moves(game, s, root)
            .into_iter()
            .map(|(_, v)| v)
            .max()
            .unwrap_or(0)
    }

    /// The brute-force value of each move of `s` for its player to move.
    fn brute_moves(game: &FishGame, s: &FishState, root: usize) -> Vec<(Action, i32)> {
        let n = game.rules().players();
        let Some(p) = s.to_move() else {
            return Vec::new();
        };
        let solver_like = |a: &FishState, b: &FishState| -> i32 {
            // Value for the root side (two players: for `p`).
            let side = if n == 2 { p } else { root };
            let d = |q: usize| {
                value_of(
                    b.fish[q] as i32 - a.fish[q] as i32,
                    b.taken[q] as i32 - a.taken[q] as i32,
                )
            };
            let mut v = d(side);
            for q in 0..n {
                if q != side {
                    v -= d(q);
                }
            }
            v
        };
        let mut actions = ActionList::new();
        game.legal_actions(s, &mut actions);
        let mut out = Vec::new();
        for &a in &actions {
            let mut c = *s;
            game.apply(&mut c, a);
            // In `p`'s side's terms.
            let mut v = solver_like(s, &c);
            if n > 2 && p != root {
                v = -v;
            }
            let rest = match c.to_move() {
                None => 0,
                Some(q) => {
                    let same = if n == 2 {
                        p == q
                    } else {
                        (p == root) == (q == root)
                    };
                    let r = brute(game, &c, root);
                    if same {
                        r
                    } else {
                        -r
                    }
                }
            };
            out.push((a, v + rest));
        }
        out
    }

    fn random_position(rng: &mut Rng, players: usize) -> (FishGame, FishState) {
        let rows = 2 + rng.below(2);
        let cols = 3 + rng.below(2);
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| {
                        if rng.below(6) == 0 {
                            0
                        } else {
                            1 + rng.below(3) as u8
                        }
                    })
                    .collect()
            })
            .collect();
        let penguins = if players == 2 { 1 + rng.below(2) } else { 1 };
        let rules = Rules::new(players, Some(penguins), Placement::Any, Order::RoundRobin).unwrap();
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        // Random placement, then a few random moves.
        let extra = rng.below(3);
        let mut moves = 0;
        while !game.is_over(&s) {
            if game.phase(&s) == crate::fish::Phase::Movement {
                if moves == extra {
                    break;
                }
                moves += 1;
            }
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        (game, s)
    }

    #[test]
    fn solver_agrees_with_brute_force() {
        let mut rng = Rng::new(2024);
        let mut done = 0;
        while done < 500 {
            let players = if done % 5 == 4 { 3 } else { 2 };
            let (game, s) = random_position(&mut rng, players);
            let Some(root) = s.to_move() else { continue };
            let all = SolveOptions {
                all_values: done % 2 == 1,
                ..SolveOptions::default()
            };
            let sol = solve_with_options(&game, &s, all, None).unwrap();
            let by_move = brute_moves(&game, &s, root);
            let truth = brute(&game, &s, root);
            assert_eq!(sol.value, split_value(truth), "{:?} {:?}", game.board(), s);
            // Every optimal move is listed, nothing else, each with its value (every move's
            // value with `all_values`).
            let mut optimal: Vec<Action> = by_move
                .iter()
                .filter(|&&(_, v)| v == truth)
                .map(|&(a, _)| a)
                .collect();
            let mut listed = sol.moves.clone();
            optimal.sort_unstable();
            listed.sort_unstable();
            assert_eq!(listed, optimal, "{:?} {:?}", game.board(), s);
            assert_eq!(sol.best, sol.moves.first().copied());
            assert_eq!(sol.pv.first(), sol.moves.first());
            let mut expect: Vec<(Action, (i32, i32))> = by_move
                .iter()
                .filter(|&&(_, v)| all.all_values || v == truth)
                .map(|&(a, v)| (a, split_value(v)))
                .collect();
            let mut got = sol.values.clone();
            expect.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, expect);
            // Playing the solution's line reaches its final scores, worth the value.
            let mut c = s;
            for &a in &sol.pv {
                assert!(game.is_legal(&c, a));
                game.apply(&mut c, a);
            }
            let me = sol.scores[root];
            let mine = value_of(
                me.0 as i32 - s.fish[root] as i32,
                me.1 as i32 - s.taken[root] as i32,
            );
            let others: i32 = (0..players)
                .filter(|&q| q != root)
                .map(|q| {
                    value_of(
                        sol.scores[q].0 as i32 - s.fish[q] as i32,
                        sol.scores[q].1 as i32 - s.taken[q] as i32,
                    )
                })
                .sum();
            assert_eq!(mine - others, truth);
            done += 1;
        }
    }

    /// A random board with the half turn's symmetry (rows even, fish equal on `(r, c)` and
    /// `(rows - 1 - r, cols - 1 - c)`).
    fn half_turn_board(rng: &mut Rng, rows: usize, cols: usize) -> Vec<Vec<u8>> {
        let mut grid = vec![vec![0u8; cols]; rows];
        for r in 0..rows {
            for c in 0..cols {
                let (r2, c2) = (rows - 1 - r, cols - 1 - c);
                if (r, c) <= (r2, c2) {
                    let f = if rng.below(8) == 0 {
                        0
                    } else {
                        1 + rng.below(3) as u8
                    };
                    grid[r][c] = f;
                    grid[r2][c2] = f;
                }
            }
        }
        grid
    }

    #[test]
    fn symmetry_reduction_keeps_every_value() {
        let plain = SolveOptions {
            symmetry: false,
            ..SolveOptions::default()
        };
        let mut rng = Rng::new(77);
        let mut folded = 0;
        for i in 0..60 {
            let (rows, cols) = [(2, 4), (4, 3), (2, 5), (4, 3), (2, 4), (4, 4)][i % 6];
            let grid = if i % 3 == 2 {
                (0..rows)
                    .map(|_| (0..cols).map(|_| 1 + rng.below(3) as u8).collect())
                    .collect()
            } else {
                half_turn_board(&mut rng, rows, cols)
            };
            let players = if i % 10 == 9 { 3 } else { 2 };
            let penguins = if rows * cols <= 10 && players == 2 {
                2
            } else {
                1
            };
            let rules =
                Rules::new(players, Some(penguins), Placement::Any, Order::RoundRobin).unwrap();
            let Ok(board) = Board::from_grid(&grid) else {
                continue;
            };
            let game: FishGame = FishGame::new(rules, board);
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            for _ in 0..rng.below(3) {
                if game.is_over(&s) {
                    break;
                }
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            if game.is_over(&s) {
                continue;
            }
            let a = solve_with_options(&game, &s, SolveOptions::default(), None).unwrap();
            let b = solve_with_options(&game, &s, plain, None).unwrap();
            // The value is the same (the final scores may differ: several lines can be optimal).
            assert_eq!(a.value, b.value, "{grid:?} {s:?}");
            // The line, its moves mapped back from the canonical images, is legal.
            let mut c = s;
            for &m in &a.pv {
                assert!(game.is_legal(&c, m), "{grid:?}");
                game.apply(&mut c, m);
            }
            folded += usize::from(fish_symmetries(&game).len() > 1);
        }
        assert!(folded > 20, "{folded} boards had a symmetry");
    }

    #[test]
    fn solver_rejects_finished_and_oversized() {
        let game: FishGame = FishGame::new(Rules::standard(2).unwrap(), Board::standard(3));
        let mut s = game.initial_state();
        assert!(solve(&game, &s, 1000).is_err());
        let mut rng = Rng::new(1);
        game.random_playout(&mut s, &mut rng);
        assert!(solve(&game, &s, DEFAULT_MAX_NODES).is_err());
    }

    /// A random board of `rows` x `cols` with 1 to 3 fish a floe and a hole now and then, and
    /// a position on it: a few random placements or moves from the start.
    fn random_game(
        rng: &mut Rng,
        rows: usize,
        cols: usize,
        players: usize,
        penguins: usize,
        plies: usize,
    ) -> Option<(FishGame, FishState)> {
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| (rng.below(10) != 0) as u8 * (1 + rng.below(3) as u8))
                    .collect()
            })
            .collect();
        let rules = Rules::new(players, Some(penguins), Placement::Any, Order::RoundRobin).unwrap();
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).ok()?);
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        for _ in 0..plies {
            if game.is_over(&s) {
                break;
            }
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        (!game.is_over(&s)).then_some((game, s))
    }

    #[test]
    fn a_kept_cache_gives_the_fresh_values_walking_back_along_a_game() {
        let mut rng = Rng::new(2122);
        let mut walked = 0;
        for i in 0..12 {
            let players = if i % 4 == 3 { 3 } else { 2 };
            let Some((game, first)) = random_game(&mut rng, 4, 4, players, 1, 0) else {
                continue;
            };
            // A random game, its positions solved last to first with one cache.
            let mut line = vec![first];
            let mut actions = ActionList::new();
            let mut s = first;
            while !game.is_over(&s) {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
                if !game.is_over(&s) {
                    line.push(s);
                }
            }
            let options = SolveOptions {
                symmetry: i % 2 == 0,
                all_values: i % 3 == 0,
                ..SolveOptions::default()
            };
            let mut cache = SolveCache::new(&game, &options).unwrap();
            for (k, s) in line.iter().enumerate().rev() {
                if k % 5 == 2 {
                    // A solve stopped part-way stores nothing unfinished.
                    let tiny = SolveOptions {
                        max_nodes: 40,
                        ..options
                    };
                    let _ = cache.solve(s, tiny, None, None);
                }
                let kept = cache.solve(s, options, None, None).unwrap();
                let fresh = solve_with_options(&game, s, options, None).unwrap();
                assert_eq!(kept.value, fresh.value, "game {i}, position {k}");
                // Optimal lines may end on different scores of one margin (and, with three
                // players, split the others' part differently): each line's margin is the value.
                let root = s.to_move().unwrap();
                let margin = |scores: &[(u32, u32)]| {
                    let mut m = (0, 0);
                    for (q, &(fish, floes)) in scores.iter().enumerate() {
                        let d = (
                            fish as i32 - s.fish[q] as i32,
                            floes as i32 - s.taken[q] as i32,
                        );
                        let sign = if q == root { 1 } else { -1 };
                        m = (m.0 + sign * d.0, m.1 + sign * d.1);
                    }
                    m
                };
                assert_eq!(margin(&kept.scores), kept.value, "game {i}, position {k}");
                assert_eq!(margin(&fresh.scores), fresh.value, "game {i}, position {k}");
                let sorted = |v: &[(Action, (i32, i32))]| {
                    let mut v = v.to_vec();
                    v.sort();
                    v
                };
                assert_eq!(sorted(&kept.values), sorted(&fresh.values));
                let mut moves = kept.moves.clone();
                moves.sort();
                let mut fresh_moves = fresh.moves.clone();
                fresh_moves.sort();
                assert_eq!(moves, fresh_moves);
                walked += 1;
            }
        }
        assert!(walked > 60, "{walked}");
    }

    #[test]
    fn solver_agrees_with_the_old_solver() {
        // Boards larger than brute force can do, placement included, 2 to 4 players, with and
        // without symmetry, and a table small enough to overflow (replacement must stay exact).
        let mut rng = Rng::new(31);
        let mut done = 0;
        let mut fewer = 0;
        while done < 120 {
            let players = [2, 2, 2, 3, 4][done % 5];
            let (rows, cols) = [(3, 4), (4, 4), (3, 5), (4, 3)][done % 4];
            let penguins = if players == 2 && done % 3 == 0 { 2 } else { 1 };
            let plies = rng.below(4) + if penguins == 2 { 3 } else { 0 };
            let Some((game, s)) = random_game(&mut rng, rows, cols, players, penguins, plies)
            else {
                continue;
            };
            let symmetry = done % 2 == 0;
            let old = reference::solve(
                &game,
                &s,
                SolveOptions {
                    symmetry,
                    ..SolveOptions::default()
                },
                None,
            )
            .unwrap();
            let options = SolveOptions {
                symmetry,
                tt_mb: if done % 4 == 1 { 1 } else { 64 },
                ..SolveOptions::default()
            };
            let new = solve_with_options(&game, &s, options, None).unwrap();
            assert_eq!(new.value, old.0, "{:?} {s:?}", game.board());
            // Each listed move is worth the value: the old solver agrees on the position after it.
            let p = s.to_move().unwrap();
            for &a in &new.moves {
                let mut c = s;
                game.apply(&mut c, a);
                let gain = split_value(delta_for(&game, &s, &c, p, p));
                let rest = match c.to_move() {
                    None => (0, 0),
                    Some(q) => {
                        let v = reference::solve(&game, &c, SolveOptions::default(), None)
                            .unwrap()
                            .0;
                        // The old solver's value of `c` is for `q`; paranoid keeps root `p`'s
                        // side only when `q` is `p`, so compare only those (and two players).
                        if players > 2 && q != p {
                            continue;
                        }
                        if players == 2 && q != p {
                            (-v.0, -v.1)
                        } else {
                            v
                        }
                    }
                };
                assert_eq!(
                    (gain.0 + rest.0, gain.1 + rest.1),
                    new.value,
                    "{:?} {s:?} {a}",
                    game.board()
                );
            }
            fewer += usize::from(new.nodes < old.1);
            done += 1;
        }
        // Not a speed test (that is the example's): the pruning is at work.
        assert!(fewer > 60, "{fewer} of 120 searches were smaller");
    }

    /// Full-depth alpha-beta on `s`: its exact value for the player to move (the returns of
    /// win, draw and loss, by final `(fish, floes)`), or `None` when it has a single move
    /// left after the evaluator's pruning (a search plays a forced move at once, unproven).
    fn alphabeta_value<E: crate::search::Evaluate<FishGame>>(
        game: &FishGame,
        eval: &E,
        s: &FishState,
    ) -> Option<f64> {
        use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
        use crate::search::Budget;
        let mut actions = ActionList::new();
        game.legal_actions(s, &mut actions);
        eval.prune_actions(game, s, &mut actions);
        if actions.len() < 2 {
            return None;
        }
        let config = AlphaBetaConfig {
            tt_mb: 4,
            ..Default::default()
        };
        let r = AlphaBeta::new(config)
            .search(game, eval, s, &Budget::depth(200), StopFlag::new())
            .unwrap();
        assert!(r.exact, "{r:?} {s:?}");
        Some(r.value)
    }

    /// No knowledge at all (no estimate, no exact regions, no pruning), the table keyed by the
    /// scores too: the engine's hash leaves them out, and a result depends on them (so
    /// `search::NoEval`, keyed by the hash alone, would mix positions that differ only in who
    /// took which floes).
    struct ScoredKey;

    impl crate::search::Evaluate<FishGame> for ScoredKey {
        fn key(&self, game: &FishGame, s: &FishState) -> u64 {
            (0..game.rules().players()).fold(game.hash(s), |k, p| {
                k ^ splitmix64((p as u64) << 32 ^ (s.fish[p] as u64) << 8 ^ s.taken[p] as u64)
            })
        }
    }

    /// The root player's final margin under the solver's value: `(fish, floes)` so far plus
    /// the value (two players: against the opponent; more: against the others together).
    fn final_margin(s: &FishState, players: usize, value: (i32, i32)) -> (i32, i32) {
        let p = s.to_move().unwrap();
        let mut m = (s.fish[p] as i32 + value.0, s.taken[p] as i32 + value.1);
        for q in (0..players).filter(|&q| q != p) {
            m.0 -= s.fish[q] as i32;
            m.1 -= s.taken[q] as i32;
        }
        m
    }

    #[test]
    fn solver_agrees_with_full_depth_alphabeta() {
        // Alpha-beta plays for the result (its exact value is the player to move's return:
        // win 1, draw 0, loss -1 by final (fish, floes)), the solver for the margin, so with
        // two players the sign of the solver's final margin is alpha-beta's value. Small boards
        // are searched by alpha-beta with no knowledge (to the end of the game, sharing no code
        // with the solver); standard-board endgames with the Fish evaluator, whose exact
        // single-owner regions end the search sooner.
        use crate::fish::eval::{FishEval, FishEvalConfig};
        let mut rng = Rng::new(57);
        let (mut small, mut endgames) = (0, 0);
        while small < 300 {
            let (rows, cols) = [(3, 4), (4, 4), (3, 5), (4, 3)][small % 4];
            let penguins = 1 + usize::from(small % 3 == 0);
            let plies = 2 * penguins + rng.below(4);
            let Some((game, s)) = random_game(&mut rng, rows, cols, 2, penguins, plies) else {
                continue;
            };
            let Some(ab) = alphabeta_value(&game, &ScoredKey, &s) else {
                continue;
            };
            let sol = solve(&game, &s, DEFAULT_MAX_NODES).unwrap();
            let m = final_margin(&s, 2, sol.value);
            let sign = f64::from(i8::from(m > (0, 0)) - i8::from(m < (0, 0)));
            assert_eq!(ab, sign, "{:?} {s:?} {:?}", game.board(), sol.value);
            small += 1;
        }
        let mut seed = 0;
        while endgames < 60 {
            seed += 1;
            let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(seed));
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            let left = 12 + rng.below(6) as u32;
            while !game.is_over(&s) && s.floes().count() > left {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            if game.is_over(&s) {
                continue;
            }
            let eval = FishEval::new(&game, FishEvalConfig::default());
            let Some(ab) = alphabeta_value(&game, &eval, &s) else {
                continue;
            };
            let sol = solve(&game, &s, DEFAULT_MAX_NODES).unwrap();
            let m = final_margin(&s, 2, sol.value);
            let sign = f64::from(i8::from(m > (0, 0)) - i8::from(m < (0, 0)));
            assert_eq!(ab, sign, "seed {seed} {s:?} {:?}", sol.value);
            endgames += 1;
        }
    }

    #[test]
    fn paranoid_solver_bounds_paranoid_alphabeta() {
        // Three and four players: both are paranoid (the others minimise the root player's
        // return), but alpha-beta's return is the root's place and the solver's value is its
        // fish less the others' together, so only implications compare: a positive paranoid
        // margin beats every other player whatever they do (alpha-beta: a sure win, 1), and
        // when the others can put every one of them ahead (alpha-beta: -1), they can make the
        // margin negative.
        let mut rng = Rng::new(58);
        let (mut done, mut wins, mut losses) = (0, 0, 0);
        while done < 200 {
            let players = 3 + done % 2;
            let (rows, cols) = [(3, 4), (4, 4), (4, 3)][done % 3];
            let plies = players + rng.below(3);
            let Some((game, s)) = random_game(&mut rng, rows, cols, players, 1, plies) else {
                continue;
            };
            let Some(ab) = alphabeta_value(&game, &ScoredKey, &s) else {
                continue;
            };
            let sol = solve(&game, &s, DEFAULT_MAX_NODES).unwrap();
            let m = final_margin(&s, players, sol.value);
            if m > (0, 0) {
                assert_eq!(ab, 1.0, "{:?} {s:?} {:?}", game.board(), sol.value);
                wins += 1;
            }
            if ab == -1.0 {
                assert!(m < (0, 0), "{:?} {s:?} {:?}", game.board(), sol.value);
                losses += 1;
            }
            done += 1;
        }
        // Both implications were put to the test.
        assert!(
            wins >= 5 && losses >= 5,
            "{wins} sure wins, {losses} sure losses"
        );
    }

    /// The solver's `delta` for the side of `p`, root `root`.
    fn delta_for(game: &FishGame, a: &FishState, b: &FishState, p: usize, root: usize) -> i32 {
        let players = game.rules().players();
        let planes = FishPlanes::new(game.board());
        let mut tt = Table::new(1).unwrap();
        let solver = Solver {
            game,
            planes: &planes,
            players,
            root,
            salt: 0,
            tt: &mut tt,
            nodes: 0,
            max_nodes: 0,
            clock: Clock::start(&Budget::default(), StopFlag::new()),
            pacer: Pacer::new(CHECK_INTERVAL),
            haul_left: 0,
            halt: None,
            progress: None,
            syms: &[],
            history: &mut [],
        };
        solver.delta(a, b, p)
    }

    #[test]
    fn limits_stop_the_search_with_clear_errors() {
        let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
        let grid = vec![
            vec![1, 2, 3, 1, 2],
            vec![3, 1, 2, 3, 1],
            vec![2, 3, 1, 2, 3],
            vec![1, 1, 2, 2, 3],
        ];
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let s = game.initial_state();
        let run = |options: SolveOptions, stop: Option<&StopFlag>| {
            solve_with_options(&game, &s, options, stop).unwrap_err()
        };
        let nodes = SolveOptions {
            max_nodes: 10_000,
            ..SolveOptions::default()
        };
        assert!(matches!(run(nodes, None), Error::Invalid(m) if m.contains("10000 positions")));
        let time = SolveOptions {
            time: Some(Duration::from_micros(1)),
            ..SolveOptions::default()
        };
        assert!(matches!(run(time, None), Error::Invalid(m) if m.contains("within")));
        let stop = StopFlag::new();
        stop.stop();
        assert!(matches!(
            run(SolveOptions::default(), Some(&stop)),
            Error::Interrupted(_)
        ));
        for tt_mb in [0, MAX_TABLE_MB + 1] {
            let bad = SolveOptions {
                tt_mb,
                ..SolveOptions::default()
            };
            assert!(matches!(run(bad, None), Error::Invalid(m) if m.contains("tt_mb")));
        }
        // Progress: the count seen from outside is the count the solution reports.
        let seen = AtomicU64::new(0);
        let sol =
            solve_with_progress(&game, &s, SolveOptions::default(), None, Some(&seen)).unwrap();
        assert_eq!(seen.load(Ordering::Relaxed), sol.nodes);
        assert!(sol.nodes > CHECK_INTERVAL);
    }

    /// [`solve`] without the estimate that refuses a position far beyond `max_nodes` at once:
    /// the search itself, as [`solve`] runs it otherwise.
    fn search_past_estimate<W: Word>(
        game: &FishGame<W>,
        s: &FishState<W>,
        max_nodes: u64,
    ) -> Result<Solution> {
        let options = SolveOptions {
            max_nodes,
            ..SolveOptions::default()
        };
        SolveCache::new(game, &options)?.solve_from(Instant::now(), s, options, None, None)
    }

    #[test]
    fn a_node_limit_bounds_the_solvers_memory() {
        // The largest board (the widest word), cut in two: each player's region is the region
        // solver's, which searches as far as the node limit lets it. Its memos before: one
        // search of a region filled them without bound (4.4 GB asked for on 32x32, an abort).
        use crate::fish::bitboard::W1024;
        use crate::search::budget::SOLVER_WORK_PER_NODE;
        let big = std::thread::Builder::new().stack_size(256 << 20);
        big.spawn(|| {
            let (game, s) = placed::<W1024>(32, 32, true);
            let entry = std::mem::size_of::<((W1024, W1024), u32)>() + 1;
            for nodes in [500u64, 50_000] {
                let options = SolveOptions {
                    max_nodes: nodes,
                    ..SolveOptions::default()
                };
                let mut cache = SolveCache::new(&game, &options).unwrap();
                let before = with_haul_solver::<W1024, _>(|h| h.spent());
                let e = solve_in(&mut cache, Instant::now(), &s, options, None, None);
                assert!(e.is_err());
                let table = cache.tt.bytes();
                assert!(table <= (nodes as usize * TABLE_BYTES_PER_NODE).max(16 << 10));
                let (memos, work) =
                    with_haul_solver::<W1024, _>(|h| (h.memory(), h.spent() - before));
                assert!(work <= nodes * SOLVER_WORK_PER_NODE, "{work}");
                // At most an entry a region split, in maps at most half full.
                let by_work = (2 * work as usize + 64) * entry * 8 / 7;
                assert!(memos <= by_work, "{nodes}: {memos} > {by_work}");
                let most = regions::MEMO_BYTES + regions::TOO_BIG_BYTES;
                assert!(memos <= most, "{nodes}: {memos} > {most}");
                eprintln!("{nodes} positions: table {table} B, memos {memos} B, {work} splits");
            }
        })
        .unwrap()
        .join()
        .unwrap();
    }

    /// The deepest the solver's recursions went on the stack in a solve of `s` within `nodes`
    /// positions (on this thread): bytes below the solve's start, and frames deep.
    fn stack_reach<W: Word>(game: &FishGame<W>, s: &FishState<W>, nodes: u64) -> (usize, usize) {
        let options = SolveOptions {
            max_nodes: nodes,
            tt_mb: 16,
            ..SolveOptions::default()
        };
        let mut cache = SolveCache::new(game, &options).unwrap();
        let base = 0u8;
        let base = std::hint::black_box(&base) as *const u8 as usize;
        stack_probe::take();
        let _ = solve_in(&mut cache, Instant::now(), s, options, None, None);
        let (lowest, depth) = stack_probe::take();
        (base.saturating_sub(lowest), depth)
    }

    /// A `rows` x `cols` board of one fish a floe, cut in two by an empty column (if `split`),
    /// and the position after each player's one penguin is placed in a corner.
    fn placed<W: Word>(rows: usize, cols: usize, split: bool) -> (FishGame<W>, FishState<W>) {
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|c| u8::from(!(split && c == cols / 2)))
                    .collect()
            })
            .collect();
        let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
        let game = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let mut s = game.initial_state();
        let board = game.board();
        for (r, c) in [(0, 0), (rows - 1, cols - 1)] {
            let cell = board.cell(r as i64, c as i64).unwrap();
            game.apply(&mut s, board.dense(cell) as Action);
        }
        (game, s)
    }

    #[test]
    fn the_stack_a_ply_takes_is_within_its_bound() {
        // Each word's deepest searches: `negamax` a game deep on an open board, and the region
        // solver deep in a region of its own on a split one. The bound a ply is given (which
        // sizes the solver's thread) holds what a frame took, and the lines went deep.
        fn check<W: Word>(rows: usize, cols: usize, nodes: u64) {
            for split in [false, true] {
                let (game, s) = placed::<W>(rows, cols, split);
                let (bytes, depth) = stack_reach(&game, &s, nodes);
                let per_ply = bytes / depth.max(1);
                eprintln!("{rows}x{cols} split {split}: {depth} frames, {per_ply} bytes each");
                assert!(
                    depth >= (rows * cols / 4).min(200),
                    "{rows}x{cols}: {depth}"
                );
                assert!(per_ply <= stack_per_ply::<W>(), "{rows}x{cols}: {per_ply}");
            }
        }
        let big = std::thread::Builder::new().stack_size(256 << 20);
        big.spawn(|| {
            check::<u64>(8, 8, 20_000);
            check::<u128>(11, 11, 20_000);
            check::<crate::fish::bitboard::W1024>(32, 32, 3_000);
        })
        .unwrap()
        .join()
        .unwrap();
    }

    #[test]
    fn a_solve_on_the_largest_board_runs_from_a_small_thread_stack() {
        // A thousand plies deep (a 32x32 board) overflowed a worker thread's stack: the solve
        // takes a thread of the stack it needs; the standard board's stays on the caller's.
        use crate::fish::bitboard::W1024;
        let (game, s) = placed::<W1024>(32, 32, false);
        assert!(stack_needed(&game) > INLINE_STACK);
        let standard = FishGame::dealt(Rules::standard(2).unwrap(), 3);
        assert!(stack_needed(&standard) <= INLINE_STACK);
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                // The search itself (`solve` refuses the position at once: `estimate`).
                let e = search_past_estimate(&game, &s, 3_000).unwrap_err();
                assert!(e.to_string().contains("3000 positions"), "{e}");
                let e = solve(&game, &s, 3_000).unwrap_err();
                assert!(e.to_string().contains("an estimate"), "{e}");
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn a_whole_game_deep_search_fits_a_small_thread_stack() {
        // The first line searched runs from the placements to the end of the game: ~60 frames
        // of `negamax` deep on a standard board. Half a default thread stack must hold them
        // (rayon's and the test harness's threads have 2 MiB; an overflow aborts the process).
        let game = FishGame::dealt(Rules::standard(2).unwrap(), 3);
        let s = game.initial_state();
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let e = search_past_estimate(&game, &s, 5_000).unwrap_err();
                assert!(e.to_string().contains("5000 positions"), "{e}");
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
