//! The solver's transposition table: buckets of three 20-byte entries (one cache line), each
//! holding a lower and an upper bound of one position, keyed by the whole 64-bit position key
//! (a false hit needs two positions of one hash, as with a map), the entry to replace in a full
//! bucket the one of the fewest floes (the cheapest to find again). It starts small and doubles
//! when a bucket overflows in a table a quarter full, up to the size it was given and to what
//! the solve's node limit allows ([`BYTES_PER_NODE`] a position: [`Table::allow`]), so small
//! solves stay cheap and a node limit bounds the memory as well as the work; memory is checked
//! before every allocation (never an abort). The buckets are zeroed memory (an empty entry is all zeros),
//! which the system hands out as pages are first touched; from 2 MiB on they are aligned to
//! 2 MiB and, on Linux, advised to be backed by transparent huge pages, as alpha-beta's table
//! ([`crate::search::tt`]) is: the solver's probes are random over the whole table, and with
//! 4 KiB pages nearly every one missed the TLB.

use crate::error::{Error, Result};
use crate::game::Action;
use crate::memory::{available_bytes, Zeroed};

/// The most MiB a table may be given (64 GiB).
pub const MAX_TABLE_MB: usize = 64 << 10;

/// The most bytes of table a position of a solve's node limit allows (the table is a power of
/// two of buckets: between half this and this; while it doubles, the old half is held too, so
/// at the peak 1.5 times as much). A solve stores at most one entry per position it counts,
/// and 32 bytes are 1.5 entries.
pub const BYTES_PER_NODE: usize = 32;

const BUCKET: usize = 3;
/// Buckets of a fresh table (16 KiB).
const FIRST_BUCKETS: usize = 256;

/// `meta`'s mark of an entry in use (an empty entry is all zeros).
const USED: u32 = 1 << 31;

/// One position's bounds: both a lower and an upper bound on its value (equal when exact), so
/// that searches of the position in different windows (PVS re-searches, MTD(f)'s null windows)
/// narrow one entry instead of overwriting each other's bound. 20 bytes (the key in two
/// halves, so that three entries fill one cache line).
#[derive(Clone, Copy, Default)]
struct Entry {
    key: [u32; 2],
    lower: i32,
    upper: i32,
    /// `USED | depth << 24 | action`.
    meta: u32,
}

impl Entry {
    #[inline]
    fn holds(&self, key: u64) -> bool {
        self.meta != 0 && self.key == split_key(key)
    }

    #[inline]
    fn depth(&self) -> u32 {
        (self.meta >> 24) & 63
    }
}

#[inline]
fn split_key(key: u64) -> [u32; 2] {
    [key as u32, (key >> 32) as u32]
}

#[repr(C, align(64))]
#[derive(Clone, Copy, Default)]
struct Bucket([Entry; BUCKET]);

/// What a probe finds: a lower bound, an upper bound (equal when the value is exact) and the
/// best move.
pub type Hit = (i32, i32, Action);

/// Buckets in zeroed memory, aligned to huge pages when large (see the module docs).
type Buckets = Zeroed<Bucket>;

/// `n` empty buckets, `None` when the allocation fails.
fn zeroed_buckets(n: usize) -> Option<Buckets> {
    // SAFETY: all-zero bytes are an empty bucket (plain integers).
    unsafe { Zeroed::new(n) }
}

pub struct Table {
    buckets: Buckets,
    /// The most buckets the table may grow to (a power of two).
    max_buckets: usize,
    /// The most buckets it may grow to in the running solve ([`Table::allow`]): at most
    /// `max_buckets`.
    limit: usize,
    /// Entries in use.
    used: usize,
}

impl Table {
    /// A table that may grow to `mb` MiB.
    ///
    /// # Errors
    /// `Error::Invalid` when `mb` is 0 or above [`MAX_TABLE_MB`]; `Error::Memory` when `mb` MiB
    /// are more than the memory available.
    pub fn new(mb: usize) -> Result<Table> {
        if mb == 0 || mb > MAX_TABLE_MB {
            return crate::error::invalid!(
                "tt_mb = {mb}: the solver's table takes 1 to {MAX_TABLE_MB} MiB"
            );
        }
        if let Some(available) = available_bytes() {
            if mb << 20 > available {
                return Err(Error::Memory(format!(
                    "tt_mb = {mb}: the solver's table may need {mb} MiB, only {} MiB of memory \
                     are available",
                    available >> 20
                )));
            }
        }
        let fit = (mb << 20) / std::mem::size_of::<Bucket>();
        let max_buckets = 1usize << (usize::BITS - 1 - fit.max(1).leading_zeros());
        let Some(buckets) = zeroed_buckets(FIRST_BUCKETS.min(max_buckets)) else {
            return Err(Error::Memory(
                "the solver's table could not be allocated".into(),
            ));
        };
        Ok(Table {
            buckets,
            max_buckets,
            limit: max_buckets,
            used: 0,
        })
    }

    /// Lets the table grow to what a solve of at most `max_nodes` positions may fill
    /// ([`BYTES_PER_NODE`] each, at least the table's first size), within the size it was
    /// given; it never shrinks (a table kept from an earlier solve keeps its entries).
    pub fn allow(&mut self, max_nodes: u64) {
        let bytes = max_nodes.saturating_mul(BYTES_PER_NODE as u64);
        let fit = usize::try_from(bytes / std::mem::size_of::<Bucket>() as u64)
            .unwrap_or(usize::MAX)
            .max(FIRST_BUCKETS);
        let fit = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        self.limit = fit.max(self.buckets.len()).min(self.max_buckets);
    }

    /// The memory the table holds now, in bytes.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        // Mixed first: salted and symmetric keys are still Zobrist hashes, but cheap to mix.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & (self.buckets.len() - 1)
    }

    /// Asks the processor to load `key`'s bucket (a probe soon after then finds it in cache).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = &self.buckets[self.index(key)] as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint; `p` points into the table.
            unsafe { std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let b = &self.buckets[self.index(key)];
        b.0.iter()
            .find(|e| e.holds(key))
            .map(|e| (e.lower, e.upper, (e.meta & 0xFF_FFFF) as Action))
    }

    /// Stores bounds `lower <= value <= upper` of a position, narrowing those already held for
    /// it (both are true bounds of one value, so their intersection is too); `best` replaces
    /// the move held unless `sure` is false (a search that failed low, whose move says little)
    /// and a move is held. `depth` (the floes left, at most 63) says how
    /// much work the entry saved.
    #[inline]
    pub fn store(
        &mut self,
        key: u64,
        lower: i32,
        upper: i32,
        best: Action,
        depth: u32,
        sure: bool,
    ) {
        debug_assert!(best < 1 << 24 && lower <= upper);
        let meta = USED | depth.min(63) << 24 | best;
        let (i, j) = loop {
            let i = self.index(key);
            let b = self.buckets[i].0;
            if let Some(j) = b.iter().position(|e| e.holds(key)) {
                break (i, j);
            }
            let j = match b.iter().position(|e| e.meta == 0) {
                Some(j) => {
                    self.used += 1;
                    j
                }
                None => {
                    // A full bucket: the table doubles if it may and is a quarter full (below
                    // that, a full bucket is bad luck), else the entry of the fewest floes goes.
                    let slots = self.buckets.len() * BUCKET;
                    if self.buckets.len() < self.limit && self.used * 4 > slots && self.grow() {
                        continue;
                    }
                    (0..BUCKET).min_by_key(|&j| b[j].depth()).unwrap_or(0)
                }
            };
            self.buckets[i].0[j] = Entry {
                key: split_key(key),
                lower,
                upper,
                meta,
            };
            return;
        };
        let e = &mut self.buckets[i].0[j];
        e.lower = e.lower.max(lower);
        e.upper = e.upper.min(upper);
        debug_assert!(e.lower <= e.upper, "bounds of one position disagree");
        if sure {
            e.meta = meta;
        }
    }

    /// Doubles the table, keeping every entry; false (and no more growing) when the memory
    /// cannot be had.
    #[cold]
    fn grow(&mut self) -> bool {
        let n = self.buckets.len() * 2;
        let need = n * std::mem::size_of::<Bucket>();
        let fresh = match available_bytes() {
            Some(a) if need > a => None,
            _ => zeroed_buckets(n),
        };
        let Some(fresh) = fresh else {
            self.max_buckets = self.buckets.len();
            self.limit = self.max_buckets;
            return false;
        };
        let old = std::mem::replace(&mut self.buckets, fresh);
        self.used = 0;
        for e in old.iter().flat_map(|b| b.0) {
            if e.meta != 0 {
                let key = e.key[0] as u64 | (e.key[1] as u64) << 32;
                self.store(key, e.lower, e.upper, e.meta & 0xFF_FFFF, e.depth(), true);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HUGE_PAGE;
    use crate::rng::splitmix64;

    const INF: i32 = i32::MAX / 2;

    #[test]
    fn bounds_of_one_position_narrow_one_entry() {
        let mut t = Table::new(1).unwrap();
        let k = splitmix64(1);
        t.store(k, 5, INF, 7, 9, true);
        // A fail-low result adds an upper bound and keeps the move of the fail-high.
        t.store(k, -INF, 12, 1, 9, false);
        assert_eq!(t.probe(k), Some((5, 12, 7)));
        // Weaker bounds change nothing; stronger ones narrow, and a new move replaces.
        t.store(k, 3, 20, 8, 9, true);
        assert_eq!(t.probe(k), Some((5, 12, 8)));
        t.store(k, 9, INF, 2, 9, true);
        t.store(k, -INF, 9, 4, 9, false);
        assert_eq!(t.probe(k), Some((9, 9, 2)));
        // A new entry holds its move, sure or not.
        t.store(splitmix64(2), -INF, 4, 6, 3, false);
        assert_eq!(t.probe(splitmix64(2)), Some((-INF, 4, 6)));
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
    }

    #[test]
    fn entries_survive_growth_and_the_size_stays_bounded() {
        let mut t = Table::new(1).unwrap();
        for i in 0..1000u64 {
            t.store(splitmix64(i), i as i32 - 500, INF, i as Action, 5, true);
        }
        // A full bucket may have dropped an entry before the table grew; none is wrong.
        let mut kept = 0;
        for i in 0..1000u64 {
            if let Some(hit) = t.probe(splitmix64(i)) {
                assert_eq!(hit, (i as i32 - 500, INF, i as Action));
                kept += 1;
            }
        }
        assert!(kept > 980, "{kept}");
        assert_eq!(t.probe(splitmix64(5000)), None);
        for i in 1000..200_000u64 {
            t.store(splitmix64(i), -7, -7, 3, (i % 60) as u32, true);
        }
        assert!(t.bytes() <= 1 << 20);
        assert_eq!(t.probe(splitmix64(199_999)), Some((-7, -7, 3)));
    }

    #[test]
    fn tables_that_grow_past_a_huge_page_start_on_one_and_keep_their_entries() {
        let mut t = Table::new(64).unwrap();
        assert_eq!(t.buckets.as_ptr() as usize % 64, 0);
        for i in 0..300_000u64 {
            t.store(splitmix64(i), -INF, i as i32, 1, 9, true);
        }
        assert!(t.bytes() >= HUGE_PAGE);
        assert_eq!(t.buckets.as_ptr() as usize % HUGE_PAGE, 0);
        let kept = (0..300_000u64)
            .filter(|&i| t.probe(splitmix64(i)) == Some((-INF, i as i32, 1)))
            .count();
        assert!(kept > 290_000, "{kept}");
        // Fresh buckets are empty: no key of the table's own makes a false hit.
        assert_eq!(Table::new(64).unwrap().probe(0), None);
    }

    #[test]
    fn a_node_limit_bounds_the_table() {
        // A solve stores at most one entry a position; even four times as many stay within
        // the bytes the limit allows.
        for nodes in [100u64, 1_000, 10_000, 100_000] {
            let mut t = Table::new(512).unwrap();
            t.allow(nodes);
            for i in 0..4 * nodes {
                t.store(splitmix64(i), -INF, i as i32, 1, (i % 60) as u32, true);
            }
            let allowed = (nodes as usize * BYTES_PER_NODE).max(FIRST_BUCKETS * 64);
            assert!(t.bytes() <= allowed, "{nodes}: {} > {allowed}", t.bytes());
            assert!(2 * t.bytes() > allowed, "{nodes}: it grew to the limit");
            // A larger limit (a later solve of a kept table) lets it grow on; a smaller one
            // keeps what it holds.
            let before = t.bytes();
            t.allow(nodes / 10);
            t.store(splitmix64(u64::MAX), 0, 0, 1, 1, true);
            assert_eq!(t.bytes(), before);
            t.allow(nodes * 4);
            for i in 0..16 * nodes {
                t.store(splitmix64(i + (1 << 40)), 0, 0, 1, 1, true);
            }
            let allowed = (4 * nodes as usize * BYTES_PER_NODE).max(FIRST_BUCKETS * 64);
            assert!(t.bytes() <= allowed && t.bytes() >= before);
            assert!(
                t.bytes() > before || allowed < 2 * before,
                "{nodes}: it grew on"
            );
        }
        // The size given bounds it too.
        let mut t = Table::new(1).unwrap();
        t.allow(u64::MAX);
        for i in 0..200_000u64 {
            t.store(splitmix64(i), 0, 0, 1, 1, true);
        }
        assert_eq!(t.bytes(), 1 << 20);
    }

    #[test]
    fn sizes_out_of_range_are_errors() {
        assert!(matches!(Table::new(0), Err(Error::Invalid(_))));
        assert!(matches!(
            Table::new(MAX_TABLE_MB + 1),
            Err(Error::Invalid(_))
        ));
        if available_bytes().is_some_and(|a| a < MAX_TABLE_MB << 20) {
            assert!(matches!(Table::new(MAX_TABLE_MB), Err(Error::Memory(_))));
        }
    }
}
