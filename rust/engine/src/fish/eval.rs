//! Fish knowledge for search: region analysis, the exact *haul* of a region that one player owns
//! alone, and a heuristic evaluation (score, plus territory by breadth-first fill, plus mobility).
//!
//! As floes disappear the board splits into regions (connected groups of floes, occupied ones
//! included). A region that holds the penguins of one player only is that player's alone: nobody
//! else can ever enter it, so what that player collects there does not depend on anything else.
//! Its *haul* (the most fish, then floes, the owner's penguins there can still collect, the floes
//! they stand on included) is found by a single-agent search ([`HaulSolver`]) with memoization,
//! splitting into independent sub-regions as the penguins cut the region apart, and stopping as
//! soon as a line collects every fish of the region (the upper bound). When every region has at
//! most one owner, the final result of the game is exact.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use crate::fish::{
    Bitboard, Board, Cell, Direction, FishGame, FishMove, FishState, Phase, Policy, Word,
};
use crate::game::{returns_from_keys, Action, ActionList, Returns, MAX_PLAYERS};
use crate::rng::{splitmix64, Rng};
use crate::search::{Budget, Clock, Evaluate, SearchResult, StopFlag};

/// A haul packed as `fish << 16 | floes` (a board has at most 1024 floes and 35,000 fish), so
/// that comparing packed values compares fish first, then floes.
pub type Packed = u32;

/// Packs a haul (see [`Packed`]).
#[inline]
pub fn pack(fish: u32, floes: u32) -> Packed {
    fish << 16 | floes
}

/// The `(fish, floes)` of a packed haul.
#[inline]
pub fn unpack(h: Packed) -> (u32, u32) {
    (h >> 16, h & 0xFFFF)
}

/// A fast hasher for bitboard keys (the keys are already well mixed by the multiply).
#[derive(Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

/// The hasher of the memo tables: fast, not DoS-resistant (keys are positions).
pub type FxBuild = BuildHasherDefault<FxHasher>;

/// Fish per cell as bit planes: `planes[k]` holds the cells with more than `k` fish, so the fish
/// on a set of cells is a few popcounts.
#[derive(Clone, Debug)]
pub struct FishPlanes<W: Word = u64> {
    planes: Vec<W>,
    /// A fingerprint of the board's fish, so that memos never mix boards.
    id: u64,
}

impl<W: Word> FishPlanes<W> {
    /// The planes of `board`'s fish.
    pub fn new(board: &Board<W>) -> Self {
        let max = board
            .floes()
            .into_iter()
            .map(|c| board.fish(c))
            .max()
            .unwrap_or(0);
        let planes: Vec<W> = (0..max)
            .map(|k| {
                board
                    .floes()
                    .into_iter()
                    .filter(|&c| board.fish(c) > k)
                    .fold(W::ZERO, |m, c| m | W::bit(c as usize))
            })
            .collect();
        let id = planes.iter().fold(0x9E37_79B9u64, |h, &p| {
            Bitboard(p)
                .into_iter()
                .fold(splitmix64(h), |h, c| splitmix64(h ^ c as u64))
        });
        FishPlanes { planes, id }
    }

    /// The fish on a set of cells.
    #[inline]
    pub fn fish_on(&self, bb: Bitboard<W>) -> u32 {
        self.planes.iter().map(|&p| (p & bb.0).count()).sum()
    }
}

/// The most floes of a region [`HaulSolver::haul`] tries to solve under a finite limit.
pub const MAX_HAUL_FLOES: u32 = 64;

/// The single-agent solver for regions one player owns: the best haul of a set of penguins on a
/// set of floes. Results are memoized; the memo is bounded (cleared when full).
pub struct HaulSolver<W: Word = u64> {
    memo: HashMap<(W, W), Packed, FxBuild>,
    /// Problems that needed more than the limit they were given: not tried again with a
    /// limit as small.
    too_big: HashMap<(W, W), u64, FxBuild>,
    max_memo: usize,
    board: u64,
    /// Component searches done (not counting memo hits) since the last `reset_nodes`.
    pub nodes: u64,
    limit: u64,
    /// Set when the running search's clock expired during the last [`HaulSolver::haul`].
    interrupted: bool,
    /// Region splits (flood fills) done in the last [`HaulSolver::haul`], and the most the
    /// running search allows ([`Clock::current_solver_work`]).
    work: u64,
    work_limit: u64,
    /// Region splits done since the solver was made (its work, for callers that ration it).
    spent: u64,
}

/// Component searches between two readings of the running search's clock.
const HAUL_CLOCK_INTERVAL: u64 = 32;

/// The memory a haul solver's memo may hold (per thread and board word): at most 2^20 entries,
/// fewer for wide words, whose keys are large. Growing the memo is one step that cannot stop
/// for the clock, and it copies the whole memo: bounded so, it takes a few milliseconds.
const MEMO_BYTES: usize = 24 << 20;

impl<W: Word> Default for HaulSolver<W> {
    fn default() -> Self {
        let entry = std::mem::size_of::<((W, W), Packed)>() + 1;
        HaulSolver::new((MEMO_BYTES / entry).min(1 << 20))
    }
}

impl<W: Word> HaulSolver<W> {
    /// A solver whose memo keeps at most `max_memo` entries.
    pub fn new(max_memo: usize) -> Self {
        HaulSolver {
            memo: HashMap::default(),
            too_big: HashMap::default(),
            max_memo,
            board: 0,
            nodes: 0,
            limit: u64::MAX,
            interrupted: false,
            work: 0,
            work_limit: u64::MAX,
            spent: 0,
        }
    }

    /// The best haul of `pens` (a set of one player's penguins, all in `floes`) on `floes`, or
    /// `None` if it needs more than `limit` component searches (at once when the region has
    /// more than [`MAX_HAUL_FLOES`] floes and `limit` is finite). Inside a search, it also
    /// gives up when the search's clock expires and does at most the work the search allows
    /// ([`Clock::current_solver_work`]).
    pub fn haul(
        &mut self,
        board: &Board<W>,
        planes: &FishPlanes<W>,
        floes: Bitboard<W>,
        pens: Bitboard<W>,
        limit: u64,
    ) -> Option<Packed> {
        if self.memo.len() > self.max_memo
            || self.too_big.len() > self.max_memo
            || self.board != planes.id
        {
            self.memo.clear();
            self.too_big.clear();
            self.board = planes.id;
        }
        // Larger regions (only on boards beyond the standard one) need far more component
        // searches than a search's limit allows, and each try would spend the whole limit.
        if limit != u64::MAX && floes.count() > MAX_HAUL_FLOES {
            return None;
        }
        if self
            .too_big
            .get(&(floes.0, pens.0))
            .is_some_and(|&l| l >= limit)
        {
            return None;
        }
        self.interrupted = Clock::current_expired();
        if self.interrupted {
            return None;
        }
        self.nodes = 0;
        self.limit = limit;
        self.work = 0;
        self.work_limit = Clock::current_solver_work();
        let r = self.split(board, planes, floes, pens);
        // Out of time or of the search's allowance is not too big: a later search tries again.
        if r.is_none() && !self.interrupted && self.work <= self.work_limit {
            self.too_big.insert((floes.0, pens.0), limit);
        }
        r
    }

    /// The work done since this solver was made (region splits), memo hits included: the
    /// difference across calls is what they cost.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Whether the running search's clock stopped the last [`HaulSolver::haul`].
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// The best first move of `pens` on `floes` (`None` when no penguin can move or over limit).
    pub fn best_move(
        &mut self,
        board: &Board<W>,
        planes: &FishPlanes<W>,
        floes: Bitboard<W>,
        pens: Bitboard<W>,
        limit: u64,
    ) -> Option<(Cell, Cell)> {
        let total = self.haul(board, planes, floes, pens, limit)?;
        let empty = floes - pens;
        for from in pens {
            for dir in Direction::ALL {
                for to in board.slide(from, dir, empty) {
                    let gain = pack(board.fish(from) as u32, 1);
                    let rest = self.split(
                        board,
                        planes,
                        floes.without(from),
                        pens.without(from).with(to),
                    )?;
                    if gain + rest == total {
                        return Some((from, to));
                    }
                }
            }
        }
        None
    }

    fn split(
        &mut self,
        board: &Board<W>,
        planes: &FishPlanes<W>,
        floes: Bitboard<W>,
        pens: Bitboard<W>,
    ) -> Option<Packed> {
        self.work += 1;
        self.spent += 1;
        if self.work > self.work_limit {
            return None;
        }
        // Floes cut off from every penguin are lost; each group with penguins is independent.
        let mut total = 0;
        let mut rest = floes;
        let mut todo = pens;
        while let Some(p) = todo.first() {
            let region = board.fill(Bitboard::from_cell(p), rest);
            rest = rest - region;
            todo = todo - region;
            total += self.component(board, planes, region, pens & region)?;
        }
        Some(total)
    }

    fn component(
        &mut self,
        board: &Board<W>,
        planes: &FishPlanes<W>,
        floes: Bitboard<W>,
        pens: Bitboard<W>,
    ) -> Option<Packed> {
        #[cfg(test)]
        let _frame = crate::fish::solver::stack_probe::enter();
        let empty = floes - pens;
        let here = pack(planes.fish_on(pens), pens.count());
        if empty.is_empty() {
            return Some(here);
        }
        // One penguin with a single floe next to it and nothing else: the common tail.
        if let Some(&v) = self.memo.get(&(floes.0, pens.0)) {
            return Some(v);
        }
        self.nodes += 1;
        if self.nodes > self.limit {
            return None;
        }
        if self.nodes % HAUL_CLOCK_INTERVAL == 0 && Clock::current_expired() {
            self.interrupted = true;
            return None;
        }
        let bound = pack(planes.fish_on(floes), floes.count());
        let mut best = here;
        'search: for from in pens {
            let gain = pack(board.fish(from) as u32, 1);
            for dir in Direction::ALL {
                for to in board.slide(from, dir, empty) {
                    let v = gain
                        + self.split(
                            board,
                            planes,
                            floes.without(from),
                            pens.without(from).with(to),
                        )?;
                    if v > best {
                        best = v;
                        if best == bound {
                            break 'search;
                        }
                    }
                }
            }
        }
        self.memo.insert((floes.0, pens.0), best);
        Some(best)
    }
}

thread_local! {
    /// One value per type (a haul solver per bitboard word, ...), found by `TypeId`.
    static LOCALS: RefCell<Vec<(TypeId, Rc<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

/// This thread's value of type `T` (made by `Default` on first use): thread-locals cannot be
/// generic, and the solvers and caches here exist once per bitboard word.
fn thread_value<T: Default + 'static>() -> Rc<RefCell<T>> {
    LOCALS.with(|locals| {
        let mut locals = locals.borrow_mut();
        let id = TypeId::of::<RefCell<T>>();
        let found = locals
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, v)| v.clone());
        let any = found.unwrap_or_else(|| {
            let v: Rc<dyn Any> = Rc::new(RefCell::new(T::default()));
            locals.push((id, v.clone()));
            v
        });
        any.downcast::<RefCell<T>>()
            .expect("stored under its own TypeId")
    })
}

/// Runs `f` with this thread's haul solver for the word `W` (each thread has its own memo).
pub fn with_haul_solver<W: Word, R>(f: impl FnOnce(&mut HaulSolver<W>) -> R) -> R {
    f(&mut thread_value::<HaulSolver<W>>().borrow_mut())
}

/// One region of a movement-phase position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region<W: Word = u64> {
    /// The region's floes, occupied ones included.
    pub floes: Bitboard<W>,
    /// Bit `p` set when player `p` has a penguin in the region.
    pub owners: u8,
    /// For a single-owner region, the owner's exact haul there (`None` if too large to solve).
    pub haul: Option<Packed>,
}

impl<W: Word> Region<W> {
    /// The player alone in the region, if exactly one player has penguins there.
    pub fn owner(&self) -> Option<usize> {
        (self.owners.count_ones() == 1).then(|| self.owners.trailing_zeros() as usize)
    }
}

/// Runs `f` with the regions of a position: the single-owner ones solved (within `limit`
/// component searches each), the contested ones listed. `f` must not ask for regions itself.
pub fn with_regions<W: Word, R>(
    game: &FishGame<W>,
    planes: &FishPlanes<W>,
    s: &FishState<W>,
    limit: u64,
    f: impl FnOnce(&[Region<W>]) -> R,
) -> R {
    let key = RegionKey {
        board: planes.id,
        floes: s.floes.0,
        penguins: s.penguins.map(|b| b.0),
        limit,
    };
    let last = thread_value::<LastRegions<W>>();
    let mut last = last.borrow_mut();
    if last.key != Some(key) {
        // The haul solver has a cell of its own, so this one may stay borrowed.
        let interrupted = compute_regions(game, planes, s, limit, &mut last.regions);
        // Hauls given up for lack of time or allowance are not the position's: not kept for
        // the next search.
        last.key = (!interrupted).then_some(key);
    }
    f(&last.regions)
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct RegionKey<W: Word> {
    board: u64,
    floes: W,
    penguins: [W; 4],
    limit: u64,
}

/// The regions computed last on this thread, and their key if they are the position's: search
/// asks for the same position's regions several times in a row (evaluation, exact check, move
/// pruning). One list, refilled in place: no allocation per position.
struct LastRegions<W: Word> {
    key: Option<RegionKey<W>>,
    regions: Vec<Region<W>>,
}

impl<W: Word> Default for LastRegions<W> {
    fn default() -> Self {
        LastRegions {
            key: None,
            regions: Vec::new(),
        }
    }
}

/// Fills `out` with the regions of `s`; whether a haul search was cut short.
fn compute_regions<W: Word>(
    game: &FishGame<W>,
    planes: &FishPlanes<W>,
    s: &FishState<W>,
    limit: u64,
    out: &mut Vec<Region<W>>,
) -> bool {
    let board = game.board();
    let n = game.rules().players();
    let occupied = s.occupied();
    out.clear();
    let mut interrupted = false;
    let mut rest = s.floes;
    while let Some(c) = (rest & occupied).first() {
        let floes = board.fill(Bitboard::from_cell(c), rest);
        rest = rest - floes;
        let owners = (0..n)
            .filter(|&p| s.penguins[p].intersects(floes))
            .fold(0u8, |m, p| m | 1 << p);
        let haul = if owners.count_ones() == 1 {
            let p = owners.trailing_zeros() as usize;
            with_haul_solver(|h| {
                let haul = h.haul(board, planes, floes, s.penguins[p] & floes, limit);
                interrupted |= h.interrupted() || h.work > h.work_limit;
                haul
            })
        } else {
            None
        };
        out.push(Region {
            floes,
            owners,
            haul,
        });
    }
    interrupted
}

/// The exact final `(fish, floes)` of every player when every region has at most one owner and
/// each is solved; `None` otherwise (or in the placement phase).
pub fn exact_scores<W: Word>(
    game: &FishGame<W>,
    planes: &FishPlanes<W>,
    s: &FishState<W>,
    limit: u64,
) -> Option<[(u32, u32); 4]> {
    if game.phase(s) == Phase::Placement {
        return None;
    }
    let mut scores = [(0u32, 0u32); 4];
    for (p, sc) in scores.iter_mut().enumerate().take(game.rules().players()) {
        *sc = (s.fish[p] as u32, s.taken[p] as u32);
    }
    if game.phase(s) == Phase::Over {
        return Some(scores);
    }
    with_regions(game, planes, s, limit, |regions| {
        for r in regions {
            let p = r.owner()?;
            let (f, c) = unpack(r.haul?);
            scores[p].0 += f;
            scores[p].1 += c;
        }
        Some(scores)
    })
}

/// Settings of the heuristic evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FishEvalConfig {
    /// Weight of a contested floe reached first (by breadth-first fill), in fish per fish.
    pub territory: f64,
    /// Weight of each legal move, in fish.
    pub mobility: f64,
    /// A lead of `scale` fish is worth half a win: value = lead / (|lead| + scale).
    pub scale: f64,
    /// Component searches allowed when solving one single-owner region.
    pub haul_limit: u64,
    /// Use exact results of single-owner regions (in the evaluation, as exact leaves, and to
    /// prune moves inside them).
    pub regions: bool,
}

impl Default for FishEvalConfig {
    fn default() -> Self {
        FishEvalConfig {
            territory: 0.8,
            mobility: 0.3,
            scale: 10.0,
            haul_limit: 20_000,
            regions: true,
        }
    }
}

/// The Fish evaluator. Build one per game (it precomputes the board's fish planes).
#[derive(Clone, Debug)]
pub struct FishEval<W: Word = u64> {
    /// The weights and switches.
    pub config: FishEvalConfig,
    planes: FishPlanes<W>,
    /// Random playouts only, no knowledge (the baseline player).
    plain: bool,
}

impl<W: Word> FishEval<W> {
    /// An evaluator for `game`'s board.
    pub fn new(game: &FishGame<W>, config: FishEvalConfig) -> Self {
        FishEval {
            config,
            planes: FishPlanes::new(game.board()),
            plain: false,
        }
    }

    /// An evaluator with no knowledge at all but fast random playouts.
    pub fn plain(game: &FishGame<W>) -> Self {
        let config = FishEvalConfig {
            regions: false,
            territory: 0.0,
            mobility: 0.0,
            ..FishEvalConfig::default()
        };
        FishEval {
            config,
            planes: FishPlanes::new(game.board()),
            plain: true,
        }
    }

    /// The board's fish planes.
    pub fn planes(&self) -> &FishPlanes<W> {
        &self.planes
    }

    /// Each player's estimated final fish: the score, the hauls of the regions the player owns
    /// alone (exact where solved, most of the region where not), the fish under the player's
    /// penguins elsewhere, `territory` times the contested fish the player reaches first and
    /// `mobility` times the player's moves ([`FishEval::terms`], weighed).
    pub fn estimate(&self, game: &FishGame<W>, s: &FishState<W>) -> [f64; 4] {
        self.weigh(game, &self.terms(game, s))
    }

    /// The evaluation ([`Evaluate::evaluate`]) of a state with these [`FishEval::terms`].
    pub fn returns_of_terms(&self, game: &FishGame<W>, terms: &[[f64; TERMS]; 4]) -> Returns {
        if self.plain {
            return [0.0; MAX_PLAYERS];
        }
        let n = game.rules().players();
        returns_of(&self.weigh(game, terms), n, self.config.scale)
    }

    /// The estimate of these terms.
    fn weigh(&self, game: &FishGame<W>, terms: &[[f64; TERMS]; 4]) -> [f64; 4] {
        let mut est = [0.0; 4];
        for (e, t) in est.iter_mut().zip(terms).take(game.rules().players()) {
            // Every term before the weighed ones is a whole number of 2048ths, so these sums
            // are exact whatever their order.
            *e = t[term::SCORE] + t[term::HAUL] + t[term::GUESS] + t[term::UNDER];
            *e += self.config.territory * (t[term::NEAR] + t[term::MID] + t[term::FAR]);
            *e += self.config.mobility * t[term::MOVES];
        }
        est
    }

    /// The terms of [`FishEval::estimate`] per player, unweighed ([`term`] names them): what a
    /// learned evaluation may weigh otherwise. All zero but the score once the game is over;
    /// regions, moves and stuck penguins are counted in the movement phase only.
    pub fn terms(&self, game: &FishGame<W>, s: &FishState<W>) -> [[f64; TERMS]; 4] {
        let board = game.board();
        let n = game.rules().players();
        let phase = game.phase(s);
        let mut terms = [[0.0; TERMS]; 4];
        for (p, t) in terms.iter_mut().enumerate().take(n) {
            t[term::SCORE] = s.fish[p] as f64 + s.taken[p] as f64 / 2048.0;
            if phase == Phase::Placement {
                t[term::UNPLACED] = game.rules().penguins as f64 - s.penguins[p].count() as f64;
            }
        }
        if phase == Phase::Over {
            return terms;
        }
        // Single-owner regions: exact hauls; the rest is contested.
        let mut contested = s.floes;
        if self.config.regions && phase == Phase::Movement {
            with_regions(game, &self.planes, s, self.config.haul_limit, |regions| {
                for r in regions {
                    if let Some(p) = r.owner() {
                        let (which, (f, c)) = match r.haul {
                            Some(h) => (term::HAUL, unpack(h)),
                            // Too large to solve: most of it.
                            None => (
                                term::GUESS,
                                (
                                    (self.planes.fish_on(r.floes) * 4) / 5,
                                    r.floes.count() * 4 / 5,
                                ),
                            ),
                        };
                        terms[p][which] += f as f64 + c as f64 / 2048.0;
                        contested = contested - r.floes;
                    }
                }
            });
        }
        // Penguins in contested regions keep the floes they stand on.
        for (p, t) in terms.iter_mut().enumerate().take(n) {
            t[term::UNDER] = self.planes.fish_on(s.penguins[p] & contested) as f64;
        }
        // Territory: simultaneous breadth-first fill from each player's penguins.
        let empty = s.empty() & contested;
        let mut frontier = [Bitboard::<W>::EMPTY; 4];
        for (f, &penguins) in frontier.iter_mut().zip(&s.penguins).take(n) {
            *f = penguins & contested;
        }
        let mut unclaimed = empty;
        let mut step = 0;
        while unclaimed.any() && frontier.iter().any(|f| f.any()) {
            let mut next = [Bitboard::<W>::EMPTY; 4];
            let mut all = Bitboard::<W>::EMPTY;
            let mut twice = Bitboard::<W>::EMPTY;
            for p in 0..n {
                next[p] = board.neighbours(frontier[p]) & unclaimed;
                twice |= all & next[p];
                all |= next[p];
            }
            let which = [term::NEAR, term::MID, term::FAR][step.min(2)];
            for (p, t) in terms.iter_mut().enumerate().take(n) {
                let shared = self.planes.fish_on(next[p] & twice) as f64;
                t[which] += self.planes.fish_on(next[p] - twice) as f64 + 0.5 * shared;
                t[term::SHARED] += shared;
            }
            unclaimed = unclaimed - all;
            frontier = next;
            step += 1;
        }
        if phase == Phase::Movement {
            for (t, &penguins) in terms.iter_mut().zip(&s.penguins).take(n) {
                for from in penguins & contested {
                    let moves: u32 = Direction::ALL
                        .iter()
                        .map(|&dir| board.slide(from, dir, empty).count())
                        .sum();
                    t[term::MOVES] += moves as f64;
                    t[term::STUCK] += (moves == 0) as u32 as f64;
                }
            }
        }
        terms
    }
}

/// How many terms [`FishEval::terms`] gives a player.
pub const TERMS: usize = 11;

/// The index of each of [`FishEval::terms`]' terms.
pub mod term {
    /// Fish so far (and floes, in 2048ths).
    pub const SCORE: usize = 0;
    /// The solved hauls of the regions the player owns alone (fish, and floes in 2048ths).
    pub const HAUL: usize = 1;
    /// Four fifths of the fish and floes of the player's own regions too large to solve.
    pub const GUESS: usize = 2;
    /// The fish under the player's penguins in contested regions.
    pub const UNDER: usize = 3;
    /// Contested fish the player reaches first, one step from a penguin (half a fish for a
    /// floe reached at the same step as another player)...
    pub const NEAR: usize = 4;
    /// ... two steps ...
    pub const MID: usize = 5;
    /// ... and three or more.
    pub const FAR: usize = 6;
    /// Contested fish the player reaches at the same step as another player (counted whole).
    pub const SHARED: usize = 7;
    /// The player's legal moves in contested regions.
    pub const MOVES: usize = 8;
    /// The player's penguins in contested regions that cannot move.
    pub const STUCK: usize = 9;
    /// Penguins the player has still to place.
    pub const UNPLACED: usize = 10;
}

/// Returns from estimated final scores: the mean over opponents of `d / (|d| + scale)`, `d` the
/// lead over that opponent (zero-sum, in `(-1, 1)`).
fn returns_of(est: &[f64; 4], n: usize, scale: f64) -> Returns {
    let mut r = [0.0; MAX_PLAYERS];
    for p in 0..n {
        for q in 0..n {
            if p != q {
                let d = est[p] - est[q];
                r[p] += d / (d.abs() + scale);
            }
        }
        r[p] /= (n - 1) as f64;
    }
    r
}

impl<W: Word> Evaluate<FishGame<W>> for FishEval<W> {
    /// The exact solver ([`FishGame::solve_search`], in `perfect.rs`).
    fn solve(
        &self,
        game: &FishGame<W>,
        s: &FishState<W>,
        budget: &Budget,
        stop: &StopFlag,
    ) -> Option<crate::error::Result<SearchResult>> {
        Some(game.solve_search(s, budget, stop))
    }

    fn evaluate(&self, game: &FishGame<W>, s: &FishState<W>) -> Returns {
        if self.plain {
            return [0.0; MAX_PLAYERS];
        }
        self.returns_of_terms(game, &self.terms(game, s))
    }

    fn exact(&self, game: &FishGame<W>, s: &FishState<W>) -> Option<Returns> {
        if !self.config.regions {
            return None;
        }
        let scores = exact_scores(game, &self.planes, s, self.config.haul_limit)?;
        let n = game.rules().players();
        Some(returns_from_keys(&scores[..n]))
    }

    fn has_order_hint(&self) -> bool {
        !self.plain
    }

    fn order_hint(&self, game: &FishGame<W>, s: &FishState<W>, action: Action) -> i32 {
        let board = game.board();
        match game.move_of(action) {
            None => 0,
            Some(FishMove::Place(cell)) => {
                let room = board.adjacent(cell) & s.empty();
                20 * self.planes.fish_on(room) as i32
            }
            Some(FishMove::Slide(_, to)) => {
                // Fish on the landing floe, and room around it.
                let room = board.adjacent(to) & s.empty();
                100 * board.fish(to) as i32 + 10 * self.planes.fish_on(room) as i32
            }
        }
    }

    fn prune_actions(&self, game: &FishGame<W>, s: &FishState<W>, actions: &mut ActionList) {
        if !self.config.regions || game.phase(s) != Phase::Movement || actions.len() < 2 {
            return;
        }
        let Some(p) = s.to_move() else { return };
        let board = game.board();
        // The player's own regions: keep one optimal move from one of them (all their moves
        // there are independent of everything else), and every move elsewhere.
        let others = s.occupied() - s.penguins[p];
        let mut own = Bitboard::<W>::EMPTY;
        let mut rest = s.penguins[p];
        while let Some(c) = rest.first() {
            let region = board.fill(Bitboard::from_cell(c), s.floes);
            rest = rest - region;
            if !region.intersects(others) {
                own |= region;
            }
        }
        if own.is_empty() {
            return;
        }
        let mut keep = None;
        let mut rest = s.penguins[p] & own;
        while let Some(c) = rest.first() {
            let region = board.fill(Bitboard::from_cell(c), s.floes);
            rest = rest - region;
            let pens = s.penguins[p] & region;
            if let Some((from, to)) = with_haul_solver(|h| {
                h.best_move(board, &self.planes, region, pens, self.config.haul_limit)
            }) {
                keep = game.action_of(FishMove::Slide(from, to));
                break;
            }
            // Unsolved or stuck: keep its moves as they are.
            own = own - region;
        }
        let Some(keep) = keep else { return };
        actions.retain(|a| match game.move_of(*a) {
            Some(FishMove::Slide(from, _)) => !own.contains(from) || *a == keep,
            _ => true,
        });
        if actions.is_empty() {
            actions.push(keep);
        }
    }

    fn playout(&self, game: &FishGame<W>, s: &FishState<W>, rng: &mut Rng) -> Returns {
        game.returns_of(&game.playout_scores(s, rng, Policy::Fast))
    }
}

impl<W: Word> crate::search::Knowledge for FishGame<W> {
    type Eval = FishEval<W>;

    /// [`FishEval::new`] with its defaults, or [`FishEval::plain`]. Fish playouts use the
    /// fast policy whatever `playout` asks.
    fn default_eval(&self, knowledge: bool, _playout: crate::search::Playout) -> FishEval<W> {
        if knowledge {
            FishEval::new(self, FishEvalConfig::default())
        } else {
            FishEval::plain(self)
        }
    }

    /// Alpha-beta with the Fish evaluation at every player count (paranoid with 3 or 4
    /// players, where it also beats MCTS: README, "Strength").
    fn auto_choice(&self) -> crate::search::Choice {
        crate::search::Choice::AlphaBeta
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::{Board, Rules};
    use crate::game::Game;

    fn small_game(
        rng: &mut Rng,
        rows: usize,
        cols: usize,
        players: usize,
        penguins: usize,
    ) -> (FishGame, FishState) {
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| {
                        if rng.below(5) == 0 {
                            0
                        } else {
                            1 + rng.below(3) as u8
                        }
                    })
                    .collect()
            })
            .collect();
        let rules = Rules::new(
            players,
            Some(penguins),
            crate::fish::Placement::Any,
            crate::fish::Order::RoundRobin,
        )
        .unwrap();
        let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        while game.phase(&s) == Phase::Placement {
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        (game, s)
    }

    /// Brute force: the best haul by plain recursion over all move sequences.
    fn brute_haul(board: &Board, floes: Bitboard, pens: Bitboard) -> Packed {
        let empty = floes - pens;
        let mut best: Packed = pens
            .into_iter()
            .map(|c| pack(board.fish(c) as u32, 1))
            .sum();
        for from in pens {
            for dir in Direction::ALL {
                for to in board.slide(from, dir, empty) {
                    let v = pack(board.fish(from) as u32, 1)
                        + brute_haul(board, floes.without(from), pens.without(from).with(to));
                    best = best.max(v);
                }
            }
        }
        best
    }

    #[test]
    fn haul_solver_agrees_with_brute_force() {
        let mut rng = Rng::new(11);
        let mut checked = 0;
        while checked < 500 {
            let (rows, cols) = (2 + rng.below(3), 2 + rng.below(4));
            let penguins = 1 + rng.below(2);
            let (game, s) = small_game(&mut rng, rows, cols, 2, penguins);
            let board = game.board();
            let planes = FishPlanes::new(board);
            if s.floes.count() > 14 {
                continue;
            }
            // Each player's penguins on every floe, alone: a single-owner problem.
            for p in 0..2 {
                let floes = s.floes - (s.occupied() - s.penguins[p]);
                let pens = s.penguins[p] & floes;
                let reach = board.fill(pens, floes);
                let truth = brute_haul(board, reach, pens);
                let got = HaulSolver::default()
                    .haul(board, &planes, reach, pens, u64::MAX)
                    .unwrap();
                assert_eq!(
                    unpack(got),
                    unpack(truth),
                    "board {:?} floes {:?} pens {:?}",
                    board,
                    reach,
                    pens
                );
                if let Some((from, to)) =
                    HaulSolver::default().best_move(board, &planes, reach, pens, u64::MAX)
                {
                    let after = pack(board.fish(from) as u32, 1)
                        + brute_haul(board, reach.without(from), pens.without(from).with(to));
                    assert_eq!(after, truth);
                }
                checked += 1;
            }
        }
    }

    /// A 3x5 board, every cell a floe: one region of fifteen.
    fn fifteen_floes() -> FishGame {
        let grid = vec![
            vec![3, 1, 2, 3, 1],
            vec![2, 2, 3, 1, 2],
            vec![1, 3, 2, 2, 3],
        ];
        FishGame::new(
            Rules::standard(2).unwrap(),
            Board::from_grid(&grid).unwrap(),
        )
    }

    #[test]
    fn region_solver_is_fast_on_fifteen_floes() {
        // A 3x5 single-owner region, one penguin in a corner: well under 10 ms (release build).
        let game = fifteen_floes();
        let board = game.board();
        let planes = FishPlanes::new(board);
        let floes = board.floes();
        let pens = Bitboard::from_cell(board.cell(0, 0).unwrap());
        let t0 = std::time::Instant::now();
        let h = HaulSolver::default()
            .haul(board, &planes, floes, pens, u64::MAX)
            .unwrap();
        let took = t0.elapsed();
        assert_eq!(unpack(h), unpack(brute_haul(board, floes, pens)));
        assert!(
            took < std::time::Duration::from_millis(200),
            "took {took:?}"
        );
    }

    #[test]
    fn the_region_solver_gives_up_with_the_search_and_tries_again_later() {
        use crate::search::{Budget, StopFlag};
        let game = fifteen_floes();
        let board = game.board();
        let planes = FishPlanes::new(board);
        let (floes, pens) = (board.floes(), Bitboard::from_cell(0));
        let mut h = HaulSolver::default();
        let stopped = StopFlag::new();
        stopped.stop();
        {
            // An expired search: no haul, and not remembered as too big.
            let _scope = Clock::start(&Budget::time(60.0), stopped).enter();
            assert_eq!(h.haul(board, &planes, floes, pens, u64::MAX), None);
            assert!(h.interrupted());
        }
        {
            // A search of one node allows a few region splits only.
            let _scope = Clock::start(&Budget::nodes(1), StopFlag::new()).enter();
            assert_eq!(h.haul(board, &planes, floes, pens, u64::MAX), None);
            assert!(!h.interrupted() && h.work > h.work_limit);
        }
        let want = brute_haul(board, floes, pens);
        assert_eq!(h.haul(board, &planes, floes, pens, u64::MAX), Some(want));
    }

    #[test]
    fn exact_scores_match_random_play_when_regions_are_split() {
        // Positions where every region is single-owner: the exact scores equal the result of
        // optimal (here: haul-optimal) play, and every playout scores at most that.
        let mut rng = Rng::new(5);
        let mut found = 0;
        for _ in 0..3000 {
            let (game, mut s) = small_game(&mut rng, 3, 5, 2, 1);
            let planes = FishPlanes::new(game.board());
            let mut actions = ActionList::new();
            while !game.is_over(&s) {
                if let Some(exact) = exact_scores(&game, &planes, &s, u64::MAX) {
                    found += 1;
                    for _ in 0..20 {
                        let mut c = s;
                        game.random_playout(&mut c, &mut rng);
                        for p in 0..2 {
                            assert!(
                                pack(c.fish[p] as u32, c.taken[p] as u32)
                                    <= pack(exact[p].0, exact[p].1),
                                "{:?} {:?} exact {:?} got {:?}",
                                game.board(),
                                s,
                                exact,
                                c
                            );
                        }
                    }
                    break;
                }
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
        }
        assert!(found > 100, "{found}");
    }

    #[test]
    fn solved_positions_play_the_best_haul() {
        // Player 0 alone on [1, 2, 3]: sliding east collects 2 + 3, west only 2 + 1; player 1 has
        // its own two floes. Both moves win, but the searches must take the larger haul.
        let grid = vec![vec![1, 2, 3, 0, 1, 1]];
        let game: FishGame = FishGame::new(
            Rules::standard(2).unwrap(),
            Board::from_grid(&grid).unwrap(),
        );
        let s = game
            .position(&[vec![(0, 1)], vec![(0, 4)]], 0, None)
            .unwrap();
        let eval = FishEval::new(&game, FishEvalConfig::default());
        let east = game
            .action_of(FishMove::Slide(
                game.board().cell(0, 1).unwrap(),
                game.board().cell(0, 2).unwrap(),
            ))
            .unwrap();
        let budget = crate::search::Budget::iterations(100);
        let r = crate::search::mcts::Mcts::new(Default::default())
            .search(&game, &eval, &s, &budget, Default::default())
            .unwrap();
        assert!(r.exact && r.value == 1.0 && r.best == east, "{r:?}");
        let r = crate::search::alphabeta::AlphaBeta::new(Default::default())
            .search(
                &game,
                &eval,
                &s,
                &crate::search::Budget::depth(4),
                Default::default(),
            )
            .unwrap();
        assert!(r.exact && r.value == 1.0 && r.best == east, "{r:?}");
        let mut pruned = ActionList::new();
        game.legal_actions(&s, &mut pruned);
        assert_eq!(pruned.len(), 2);
        eval.prune_actions(&game, &s, &mut pruned);
        assert_eq!(pruned.as_slice(), &[east]);
    }

    #[test]
    fn fast_playouts_end_games_legally() {
        // The final scores of a fast playout are those of a game that the engine can play:
        // replaying the same random choices is not possible, so check invariants instead: the
        // game is over, every player's fish and floes only grew, the floes taken never exceed
        // the floes in play, and no more fish were taken than the board held.
        let mut rng = Rng::new(9);
        for seed in 0..200 {
            let game: FishGame = FishGame::new(
                Rules::standard(2 + seed as usize % 3).unwrap(),
                Board::standard(seed),
            );
            let mut s = game.initial_state();
            let mut actions = ActionList::new();
            for _ in 0..rng.below(40) {
                if game.is_over(&s) {
                    break;
                }
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            let before = s;
            let mut c = s;
            game.random_playout_with(&mut c, &mut rng, Policy::Fast);
            assert_eq!(c.to_move(), None);
            assert!(
                game.returns(&c)[..game.num_players()]
                    .iter()
                    .sum::<f64>()
                    .abs()
                    < 1e-9
            );
            let n = game.num_players();
            let taken: u32 = (0..n).map(|p| (c.taken[p] - before.taken[p]) as u32).sum();
            let fish: u32 = (0..n).map(|p| (c.fish[p] - before.fish[p]) as u32).sum();
            assert!(taken <= before.floes.count());
            assert!(fish <= FishPlanes::new(game.board()).fish_on(before.floes));
            if !game.is_over(&before) && game.phase(&before) == Phase::Movement {
                // Every penguin's floe is kept in the end.
                assert!(taken >= before.occupied().count());
            }
        }
    }

    #[test]
    fn evaluation_is_zero_sum_and_prefers_the_leader() {
        let mut rng = Rng::new(3);
        let game: FishGame = FishGame::new(Rules::standard(2).unwrap(), Board::standard(1));
        let eval = FishEval::new(&game, FishEvalConfig::default());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        while !game.is_over(&s) {
            let r = eval.evaluate(&game, &s);
            assert!((r[0] + r[1]).abs() < 1e-9 && r[0].abs() < 1.0);
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let mut t = game.initial_state();
        while game.phase(&t) == Phase::Placement {
            game.legal_actions(&t, &mut actions);
            game.apply(&mut t, actions[0]);
        }
        let mut lead = t;
        lead.fish[0] += 10;
        assert!(eval.evaluate(&game, &lead)[0] > eval.evaluate(&game, &t)[0] + 0.1);
    }

    #[test]
    fn threads_agree_on_solved_fish_endgames() {
        use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
        use crate::search::{Budget, NoEval, StopFlag};
        let mut rng = Rng::new(8);
        let mut solved = 0;
        while solved < 20 {
            let (game, s) = small_game(&mut rng, 3, 4, 2, 2);
            let mut actions = ActionList::new();
            // A lone move is played without search (and without proof).
            game.legal_actions(&s, &mut actions);
            if actions.len() < 2 {
                continue;
            }
            let value = |threads| {
                let mut searcher = AlphaBeta::new(AlphaBetaConfig {
                    tt_mb: 1,
                    threads,
                    ..Default::default()
                });
                let r = searcher
                    .search(&game, &NoEval, &s, &Budget::depth(40), StopFlag::new())
                    .unwrap();
                assert!(r.exact && game.is_legal(&s, r.best), "{r:?}");
                r.value
            };
            assert_eq!(value(1), value(2), "{:?} {s:?}", game.board());
            solved += 1;
        }
    }

    #[test]
    fn a_full_search_without_evaluation_keys_positions_by_their_scores() {
        // The Fish hash leaves the scores out: a table keyed by it alone gave positions reached
        // with other scores each other's values. Both searches below are exact.
        use crate::search::alphabeta::AlphaBeta;
        use crate::search::{Budget, NoEval, StopFlag};
        let mut rng = Rng::new(21);
        for _ in 0..60 {
            let (game, s) = small_game(&mut rng, 3, 5, 2, 1);
            let mut actions = ActionList::new();
            game.legal_actions(&s, &mut actions);
            // A lone move is played without search (and without proof).
            if actions.len() < 2 {
                continue;
            }
            let value = |eval: &dyn Fn(&mut AlphaBeta) -> crate::search::SearchResult| {
                let mut searcher = AlphaBeta::new(Default::default());
                let r = eval(&mut searcher);
                assert!(r.exact, "{r:?}");
                r.value
            };
            let budget = Budget::depth(40);
            let plain = value(&|ab| {
                ab.search(&game, &NoEval, &s, &budget, StopFlag::new())
                    .unwrap()
            });
            let eval = FishEval::new(&game, FishEvalConfig::default());
            let full = value(&|ab| {
                ab.search(&game, &eval, &s, &budget, StopFlag::new())
                    .unwrap()
            });
            assert_eq!(plain, full, "{:?} {s:?}", game.board());
        }
    }
}
