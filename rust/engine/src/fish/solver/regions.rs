//! Regions and their exact hauls: the region solver.
//!
//! As floes disappear the board splits into regions (connected groups of floes, occupied ones
//! included). A region that holds the penguins of one player only is that player's alone: nobody
//! else can ever enter it. Its *haul* (the most fish, then floes, the owner's penguins there can
//! still collect, the floes they stand on included) is found by a single-agent search
//! ([`HaulSolver`]) with memoization, splitting into independent sub-regions as the penguins cut
//! the region apart, and stopping as soon as a line collects every fish of the region (the upper
//! bound). When every region has at most one owner, the final result of the game is exact
//! ([`exact_scores`]): the exact solver ([`super`]) ends its search there, and the evaluation
//! ([`crate::fish::eval`]) scores such regions exactly.
//!
//! The region solver's memory is bounded twice over: each memo (the hauls found, and the
//! problems found too big) never grows past a fixed size ([`MEMO_BYTES`], [`TOO_BIG_BYTES`]: a
//! full memo is cleared, also in the middle of a search), and it holds at most one entry per
//! region split, of which a search with a node limit allows
//! [`crate::search::budget::SOLVER_WORK_PER_NODE`] per node, shared by the regions of one
//! evaluation. A memo that cannot grow (the allocation fails) is cleared instead: never an abort.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::rc::Rc;

use crate::fish::{Bitboard, Board, Cell, Direction, FishGame, FishState, Phase, Word};
use crate::rng::splitmix64;
use crate::search::Clock;

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
    // The hauls of the regions share the evaluation's allowance of work.
    let mut allowance = Clock::current_solver_work();
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
                let pens = s.penguins[p] & floes;
                let haul = h.haul_within(board, planes, floes, pens, limit, allowance);
                allowance = allowance.saturating_sub(h.work());
                interrupted |= h.interrupted() || h.out_of_work();
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

/// The most floes of a region [`HaulSolver::haul`] tries to solve under a finite limit.
pub const MAX_HAUL_FLOES: u32 = 64;

/// The single-agent solver for regions one player owns: the best haul of a set of penguins on a
/// set of floes. Results are memoized; the memo is bounded (cleared when full: see the module
/// docs).
pub struct HaulSolver<W: Word = u64> {
    memo: HashMap<(W, W), Packed, FxBuild>,
    /// Problems that needed more than the limit they were given: not tried again with a
    /// limit as small.
    too_big: HashMap<(W, W), u64, FxBuild>,
    /// The most entries `memo` and `too_big` keep (see the module docs).
    max_memo: usize,
    max_too_big: usize,
    board: u64,
    /// Component searches done (not counting memo hits) since the last `reset_nodes`.
    pub nodes: u64,
    limit: u64,
    /// Set when the running search's clock expired during the last [`HaulSolver::haul`].
    interrupted: bool,
    /// Region splits (flood fills) done in the last [`HaulSolver::haul`], and the most it was
    /// allowed ([`HaulSolver::haul_within`]); set when it needed more.
    work: u64,
    work_limit: u64,
    starved: bool,
    /// Region splits done since the solver was made (its work, for callers that ration it).
    spent: u64,
}

/// Component searches between two readings of the running search's clock.
const HAUL_CLOCK_INTERVAL: u64 = 32;

/// The most memory a region solver's memo of hauls takes (per thread and board word): 2^19 to
/// 2^20 entries on the narrow words, fewer for wide words, whose keys are large (2^16 on
/// 1,024 cells). While it doubles, the old half is held too: 1.5 times this at the peak.
/// Growing the memo is one step that cannot stop for the clock, and it copies the whole memo:
/// bounded so, it takes a few milliseconds.
pub const MEMO_BYTES: usize = 32 << 20;

/// The most memory the list of problems found too big takes (per thread and board word): one
/// entry per problem given up, far fewer than hauls.
pub const TOO_BIG_BYTES: usize = 4 << 20;

/// The most entries a map of `(K, V)` keeps within `bytes`: the map's table is a power of two
/// of buckets (an entry and a control byte each), filled to 7/8 before it doubles, so that at
/// this many entries it has not grown past `bytes`.
pub fn entries_within<K, V>(bytes: usize) -> usize {
    let bucket = std::mem::size_of::<(K, V)>() + 1;
    let buckets = bytes / bucket;
    if buckets < 16 {
        return 0;
    }
    (1usize << (usize::BITS - 1 - buckets.leading_zeros())) / 8 * 7
}

/// The bytes of a map's table as allocated.
fn table_bytes<K, V>(map: &HashMap<K, V, FxBuild>) -> usize {
    // A table of `capacity` entries has 8/7 as many buckets (see `entries_within`).
    map.capacity() / 7 * 8 * (std::mem::size_of::<(K, V)>() + 1)
}

/// Inserts into a map that keeps at most `max` entries: a full map (or one whose growth
/// cannot be allocated) is cleared first (never an abort). A map that would grow, copying its
/// table, does not while the search running on this thread has too little time left for the
/// copy ([`Clock::current_affords_copy`]): the entry is dropped (a memo only saves work).
fn insert_bounded<K: Hash + Eq, V>(map: &mut HashMap<K, V, FxBuild>, max: usize, k: K, v: V) {
    if map.len() >= max {
        map.clear();
    }
    // Counted as the new table's bytes: growing allocates it and rehashes every entry into it.
    if map.len() == map.capacity() && !Clock::current_affords_copy(2 * table_bytes(map)) {
        return;
    }
    if map.try_reserve(1).is_err() {
        map.clear();
        map.shrink_to_fit();
        return;
    }
    if max > 0 {
        map.insert(k, v);
    }
}

impl<W: Word> Default for HaulSolver<W> {
    fn default() -> Self {
        HaulSolver::new(entries_within::<(W, W), Packed>(MEMO_BYTES))
    }
}

impl<W: Word> HaulSolver<W> {
    /// A solver whose memo keeps at most `max_memo` entries (its list of problems too big: at
    /// most what [`TOO_BIG_BYTES`] holds).
    pub fn new(max_memo: usize) -> Self {
        HaulSolver {
            memo: HashMap::default(),
            too_big: HashMap::default(),
            max_memo,
            max_too_big: entries_within::<(W, W), u64>(TOO_BIG_BYTES),
            board: 0,
            nodes: 0,
            limit: u64::MAX,
            interrupted: false,
            work: 0,
            work_limit: u64::MAX,
            starved: false,
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
        self.haul_within(board, planes, floes, pens, limit, u64::MAX)
    }

    /// [`HaulSolver::haul`] doing at most `work` region splits (and at most what the search
    /// allows): the hauls of one evaluation's regions share its allowance.
    pub fn haul_within(
        &mut self,
        board: &Board<W>,
        planes: &FishPlanes<W>,
        floes: Bitboard<W>,
        pens: Bitboard<W>,
        limit: u64,
        work: u64,
    ) -> Option<Packed> {
        self.work = 0;
        self.starved = false;
        if self.board != planes.id {
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
        self.work_limit = Clock::current_solver_work().min(work);
        let r = self.split(board, planes, floes, pens);
        // Out of time or of the search's allowance is not too big: a later search tries again.
        if r.is_none() && !self.interrupted && !self.starved {
            let key = (floes.0, pens.0);
            insert_bounded(&mut self.too_big, self.max_too_big, key, limit);
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

    /// The memory its memos hold (their tables, as allocated: at most 1.5 times
    /// [`MEMO_BYTES`] and [`TOO_BIG_BYTES`] together, at the peak of a doubling).
    pub fn memory(&self) -> usize {
        table_bytes(&self.memo) + table_bytes(&self.too_big)
    }

    /// Whether the last [`HaulSolver::haul`] gave up for its allowance of work
    /// ([`HaulSolver::haul_within`], [`Clock::current_solver_work`]).
    pub fn out_of_work(&self) -> bool {
        self.starved
    }

    /// The region splits the last [`HaulSolver::haul`] did.
    pub fn work(&self) -> u64 {
        self.work
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
        if self.work >= self.work_limit {
            self.starved = true;
            return None;
        }
        self.work += 1;
        self.spent += 1;
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
        insert_bounded(&mut self.memo, self.max_memo, (floes.0, pens.0), best);
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::eval::tests::small_game;
    use crate::fish::Rules;
    use crate::game::{ActionList, Game};
    use crate::rng::Rng;

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
            assert!(!h.interrupted() && h.out_of_work());
            assert_eq!(h.work(), crate::search::budget::SOLVER_WORK_PER_NODE);
        }
        let want = brute_haul(board, floes, pens);
        assert_eq!(h.haul(board, &planes, floes, pens, u64::MAX), Some(want));
    }

    #[test]
    fn the_memos_never_grow_past_their_bytes() {
        // Filled to the most entries it keeps, a memo has not grown past its bytes; one more
        // clears it first.
        fn check<W: Word>(bytes: usize) {
            let n = entries_within::<(W, W), Packed>(bytes);
            assert!(n > 1000 && n < 1 << 20, "{n}");
            let key = |i: usize| {
                let w = (0..20)
                    .filter(|b| i >> b & 1 == 1)
                    .fold(W::ZERO, |w, b| w | W::bit(b));
                (w, W::ZERO)
            };
            let mut m: HashMap<(W, W), Packed, FxBuild> = HashMap::default();
            for i in 0..n {
                insert_bounded(&mut m, n, key(i), 0);
            }
            assert_eq!(m.len(), n);
            let held = m.capacity() / 7 * 8 * (std::mem::size_of::<((W, W), Packed)>() + 1);
            assert!(held <= bytes, "{held} > {bytes}");
            insert_bounded(&mut m, n, key(n), 0);
            assert_eq!(m.len(), 1);
        }
        check::<u64>(MEMO_BYTES);
        check::<u128>(MEMO_BYTES);
        check::<crate::fish::W1024>(MEMO_BYTES);
        check::<crate::fish::W1024>(TOO_BIG_BYTES);
    }

    #[test]
    fn a_memo_does_not_grow_near_the_deadline_of_the_search_on_its_thread() {
        use crate::search::{Budget, StopFlag};
        let mut m: HashMap<(u64, u64), Packed, FxBuild> = HashMap::default();
        let mut key = 0u64;
        let mut add = |m: &mut HashMap<(u64, u64), Packed, FxBuild>| {
            key += 1;
            insert_bounded(m, usize::MAX, (key, 0), 0);
        };
        // Outside a search it grows as needed: filled up to its table's capacity here.
        while m.len() < 100_000 || m.len() < m.capacity() {
            add(&mut m);
        }
        let full = m.capacity();
        // Past a search's deadline, growing (a copy of megabytes) would cost time it has not.
        let late = Clock::start(&Budget::time(1e-6), StopFlag::new());
        std::thread::sleep(std::time::Duration::from_millis(1));
        {
            let _in = late.enter();
            add(&mut m);
            assert_eq!(
                (m.len(), m.capacity()),
                (full, full),
                "the entry is dropped"
            );
        }
        // With an hour left it grows.
        let early = Clock::start(&Budget::time(3600.0), StopFlag::new());
        let _in = early.enter();
        add(&mut m);
        assert!(m.len() == full + 1 && m.capacity() > full);
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
}
