//! The solver's transposition table: buckets of four 16-byte entries (one cache line), each
//! keyed by the whole 64-bit position key (a false hit needs two positions of one hash, as with
//! a map), the entry to replace in a full bucket the one of the fewest floes (the cheapest to
//! find again). It starts small and doubles when a bucket overflows in a table a quarter full,
//! up to the size it was given, so small solves stay cheap; memory is checked before every
//! allocation (never an abort). The buckets are zeroed memory (an empty entry is all zeros),
//! which the system hands out as pages are first touched; from 2 MiB on they are aligned to
//! 2 MiB and, on Linux, advised to be backed by transparent huge pages, as alpha-beta's table
//! ([`crate::search::tt`]) is: the solver's probes are random over the whole table, and with
//! 4 KiB pages nearly every one missed the TLB.

use crate::error::{Error, Result};
use crate::game::Action;
use crate::memory::{available_bytes, Zeroed};
use crate::search::tt::Bound;

/// The most MiB a table may be given (64 GiB).
pub const MAX_TABLE_MB: usize = 64 << 10;

const BUCKET: usize = 4;
/// Buckets of a fresh table (16 KiB).
const FIRST_BUCKETS: usize = 256;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// `depth << 58 | bound << 56 | action << 32 | value as u32`; 0 for an empty entry (a
    /// used one has a nonzero bound).
    data: u64,
}

#[repr(C, align(64))]
#[derive(Clone, Copy, Default)]
struct Bucket([Entry; BUCKET]);

/// What a probe finds: value, bound and best move.
pub type Hit = (i32, Bound, Action);

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
            used: 0,
        })
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
            .find(|e| e.key == key && e.data != 0)
            .map(|e| unpack(e.data))
    }

    /// Stores a result; `depth` (the floes left, at most 63) says how much work it saved.
    #[inline]
    pub fn store(&mut self, key: u64, value: i32, bound: Bound, best: Action, depth: u32) {
        let data = pack(value, bound, best, depth);
        let slot = loop {
            let i = self.index(key);
            let b = self.buckets[i].0;
            if let Some(j) = b.iter().position(|e| e.key == key && e.data != 0) {
                break (i, j);
            }
            if let Some(j) = b.iter().position(|e| e.data == 0) {
                self.used += 1;
                break (i, j);
            }
            // A full bucket: the table doubles if it may and is a quarter full (below that, a
            // full bucket is bad luck), else the entry of the fewest floes goes.
            let slots = self.buckets.len() * BUCKET;
            if self.buckets.len() < self.max_buckets && self.used * 4 > slots && self.grow() {
                continue;
            }
            let j = (0..BUCKET).min_by_key(|&j| b[j].data >> 58).unwrap_or(0);
            break (i, j);
        };
        self.buckets[slot.0].0[slot.1] = Entry { key, data };
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
            return false;
        };
        let old = std::mem::replace(&mut self.buckets, fresh);
        self.used = 0;
        for e in old.iter().flat_map(|b| b.0) {
            if e.data != 0 {
                let (v, bound, a) = unpack(e.data);
                self.store(e.key, v, bound, a, (e.data >> 58) as u32);
            }
        }
        true
    }
}

#[inline]
fn pack(value: i32, bound: Bound, best: Action, depth: u32) -> u64 {
    debug_assert!(best < 1 << 24);
    (depth.min(63) as u64) << 58
        | (bound as u64) << 56
        | (best as u64 & 0xFF_FFFF) << 32
        | value as u32 as u64
}

#[inline]
fn unpack(data: u64) -> Hit {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        _ => Bound::Upper,
    };
    (
        data as u32 as i32,
        bound,
        ((data >> 32) & 0xFF_FFFF) as Action,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HUGE_PAGE;
    use crate::rng::splitmix64;

    #[test]
    fn entries_survive_growth_and_the_size_stays_bounded() {
        let mut t = Table::new(1).unwrap();
        for i in 0..1000u64 {
            t.store(splitmix64(i), i as i32 - 500, Bound::Lower, i as Action, 5);
        }
        // A full bucket may have dropped an entry before the table grew; none is wrong.
        let mut kept = 0;
        for i in 0..1000u64 {
            if let Some(hit) = t.probe(splitmix64(i)) {
                assert_eq!(hit, (i as i32 - 500, Bound::Lower, i as Action));
                kept += 1;
            }
        }
        assert!(kept > 980, "{kept}");
        assert_eq!(t.probe(splitmix64(5000)), None);
        for i in 0..200_000u64 {
            t.store(splitmix64(i), -7, Bound::Exact, 3, (i % 60) as u32);
        }
        assert!(t.bytes() <= 1 << 20);
        assert_eq!(t.probe(splitmix64(199_999)), Some((-7, Bound::Exact, 3)));
    }

    #[test]
    fn tables_that_grow_past_a_huge_page_start_on_one_and_keep_their_entries() {
        let mut t = Table::new(64).unwrap();
        assert_eq!(t.buckets.as_ptr() as usize % 64, 0);
        for i in 0..300_000u64 {
            t.store(splitmix64(i), i as i32, Bound::Upper, 1, 9);
        }
        assert!(t.bytes() >= HUGE_PAGE);
        assert_eq!(t.buckets.as_ptr() as usize % HUGE_PAGE, 0);
        let kept = (0..300_000u64)
            .filter(|&i| t.probe(splitmix64(i)) == Some((i as i32, Bound::Upper, 1)))
            .count();
        assert!(kept > 290_000, "{kept}");
        // Fresh buckets are empty: no key of the table's own makes a false hit.
        assert_eq!(Table::new(64).unwrap().probe(0), None);
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
