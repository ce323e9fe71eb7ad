//! A transposition table of bounded size: buckets of four 16-byte entries (one cache line), the
//! entry to replace chosen by depth and age. Its size is set in MiB and never grows.
//!
//! A table has at most [`MAX_TT_MB`] MiB, and on Linux at most the memory available
//! (`MemAvailable` in `/proc/meminfo`); it is allocated fallibly, so a size that cannot be had
//! is an `Error::Invalid`, never an abort.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::game::Action;
use crate::memory::{available_bytes, Zeroed};

/// The largest transposition table, in MiB (4 GiB).
pub const MAX_TT_MB: usize = 4096;

/// How the stored value bounds the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    /// The true value is `value`.
    Exact = 1,
    /// The true value is at least `value` (a fail-high).
    Lower = 2,
    /// The true value is at most `value` (a fail-low).
    Upper = 3,
}

/// What a probe returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The stored value, for the player to move.
    pub value: i32,
    /// The depth of the search that found it.
    pub depth: u8,
    /// How `value` bounds the true value.
    pub bound: Bound,
    /// The best move found, if any.
    pub best: Option<Action>,
    /// True when the value came from a search that reached the end of every line (a proven
    /// value, valid at any depth).
    pub complete: bool,
}

/// An entry's fields, packed in two words: `data = best << 32 | value` and
/// `meta = check << 32 | depth << 24 | bound << 16 | age << 8 | complete`.
#[derive(Clone, Copy, Default)]
struct Entry {
    check: u32,
    best: u32,
    value: i32,
    depth: u8,
    bound: u8,
    age: u8,
    complete: u8,
}

impl Entry {
    fn words(&self) -> (u64, u64) {
        let data = (self.best as u64) << 32 | self.value as u32 as u64;
        let meta = (self.check as u64) << 32
            | (self.depth as u64) << 24
            | (self.bound as u64) << 16
            | (self.age as u64) << 8
            | self.complete as u64;
        (data, meta)
    }

    fn from_words(data: u64, meta: u64) -> Entry {
        Entry {
            check: (meta >> 32) as u32,
            best: (data >> 32) as u32,
            value: data as u32 as i32,
            depth: (meta >> 24) as u8,
            bound: (meta >> 16) as u8,
            age: (meta >> 8) as u8,
            complete: meta as u8,
        }
    }
}

/// One entry as two atomic words, so that threads share the table without locks: the first
/// word holds `meta ^ data`. A read whose words come from two different writes fails the check
/// of `meta` (except with chance 2^-32) and counts as a miss.
#[derive(Default)]
struct Slot {
    mixed: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    #[inline]
    fn load(&self) -> Entry {
        let data = self.data.load(Ordering::Relaxed);
        let meta = self.mixed.load(Ordering::Relaxed) ^ data;
        Entry::from_words(data, meta)
    }

    #[inline]
    fn save(&self, e: &Entry) {
        let (data, meta) = e.words();
        self.mixed.store(meta ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
}

const BUCKET: usize = 4;
const NO_MOVE: u32 = u32::MAX;
/// Tables of at least this many buckets (1 MiB) are cleared by allocating them again.
const LAZY_BUCKETS: usize = 1 << 14;

/// Empty buckets in zeroed memory, aligned to huge pages when large ([`Zeroed`] says why):
/// an empty entry is all zeros.
type Buckets = Zeroed<Bucket>;

/// `n` empty buckets (none when `n` is 0), `None` when the allocation fails.
fn zeroed_buckets(n: usize) -> Option<Buckets> {
    // SAFETY: all-zero bytes are an empty bucket (atomics only).
    unsafe { Zeroed::new(n) }
}

#[repr(C, align(64))]
#[derive(Default)]
struct Bucket([Slot; BUCKET]);

/// The table. `new(mb)` allocates the largest power-of-two number of buckets that fits in `mb`
/// MiB (at least one bucket). Probes and stores take `&self`: threads of one search share it.
pub struct Tt {
    buckets: Buckets,
    mask: u64,
    age: u8,
}

impl Tt {
    ///
    /// # Errors
    /// `Error::Invalid` when `mb` is above [`MAX_TT_MB`], above the memory available, or the
    /// allocation fails.
    pub fn new(mb: usize) -> Result<Tt> {
        if mb > MAX_TT_MB {
            return crate::error::invalid!(
                "tt_mb = {mb}: the transposition table may have at most {MAX_TT_MB} MiB"
            );
        }
        let bytes = mb.max(1) << 20;
        let mut n = 1usize;
        while n * 2 * std::mem::size_of::<Bucket>() <= bytes {
            n *= 2;
        }
        let want_mib = (n * std::mem::size_of::<Bucket>()) >> 20;
        if let Some(available) = available_bytes() {
            if n * std::mem::size_of::<Bucket>() > available {
                return crate::error::invalid!(
                    "tt_mb = {mb}: the transposition table cannot allocate {want_mib} MiB: only \
                     {} MiB of memory are available",
                    available >> 20
                );
            }
        }
        let buckets = zeroed_buckets(n).ok_or_else(|| {
            Error::Invalid(format!(
                "tt_mb = {mb}: the transposition table cannot allocate {want_mib} MiB"
            ))
        })?;
        Ok(Tt {
            buckets,
            mask: (n - 1) as u64,
            age: 0,
        })
    }

    /// A table of no entries, to be replaced by [`Tt::new`] before use (probing it panics).
    pub(crate) fn unallocated() -> Tt {
        Tt {
            buckets: zeroed_buckets(0).expect("an allocation of one cache line"),
            mask: 0,
            age: 0,
        }
    }

    /// Whether this is [`Tt::unallocated`].
    pub(crate) fn is_unallocated(&self) -> bool {
        self.buckets.is_empty()
    }

    /// The memory the table holds, in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// The number of entries it can hold.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET
    }

    /// Starts a new search: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// Forgets every entry. A large table is replaced by fresh zeroed memory (as fast as
    /// allocating it), a small one overwritten.
    pub fn clear(&mut self) {
        let n = self.buckets.len();
        match (n >= LAZY_BUCKETS).then(|| zeroed_buckets(n)).flatten() {
            Some(fresh) => self.buckets = fresh,
            None => self
                .buckets
                .iter()
                .flat_map(|b| &b.0)
                .for_each(|slot| slot.save(&Entry::default())),
        }
        self.age = 0;
    }

    #[inline]
    fn split(&self, hash: u64) -> (usize, u32) {
        // The index uses the low bits, the check the high 32: independent for tables < 2^32.
        ((hash & self.mask) as usize, (hash >> 32) as u32 | 1)
    }

    /// The entry stored for `hash`, if its bucket still holds one.
    pub fn probe(&self, hash: u64) -> Option<Hit> {
        let (i, check) = self.split(hash);
        self.buckets[i]
            .0
            .iter()
            .map(Slot::load)
            .find(|e| e.check == check)
            .map(|e| Hit {
                value: e.value,
                depth: e.depth,
                bound: match e.bound {
                    1 => Bound::Exact,
                    2 => Bound::Lower,
                    _ => Bound::Upper,
                },
                best: (e.best != NO_MOVE).then_some(e.best),
                complete: e.complete != 0,
            })
    }

    /// Stores a search result for `hash`, replacing the entry of the same position or the least
    /// valuable one of its bucket (older searches and shallower depths go first).
    pub fn store(
        &self,
        hash: u64,
        value: i32,
        depth: u8,
        bound: Bound,
        best: Option<Action>,
        complete: bool,
    ) {
        let (i, check) = self.split(hash);
        let age = self.age;
        let bucket: [Entry; BUCKET] = std::array::from_fn(|j| self.buckets[i].0[j].load());
        let slot = match bucket.iter().position(|e| e.check == check) {
            Some(j) => {
                // Same position: keep a deeper result from this search unless this one is exact.
                let e = bucket[j];
                if e.age == age && e.depth > depth && bound != Bound::Exact && !complete {
                    return;
                }
                j
            }
            None => {
                // Replace the least valuable: empty first, then old, then shallow.
                let score = |e: &Entry| {
                    if e.check == 0 {
                        i32::MIN
                    } else {
                        e.depth as i32 - 8 * (age.wrapping_sub(e.age) as i32)
                    }
                };
                (0..BUCKET).min_by_key(|&j| score(&bucket[j])).unwrap_or(0)
            }
        };
        let keep_best = if best.is_none() && bucket[slot].check == check {
            bucket[slot].best
        } else {
            NO_MOVE
        };
        self.buckets[i].0[slot].save(&Entry {
            check,
            best: best.unwrap_or(keep_best),
            value,
            depth,
            bound: bound as u8,
            age,
            complete: complete as u8,
        });
    }

    /// How many entries are in use, per mille, estimated from the first 1000 buckets.
    pub fn hashfull(&self) -> u32 {
        let n = self.buckets.len().min(1000);
        let used: usize = self.buckets[..n]
            .iter()
            .map(|b| b.0.iter().filter(|slot| slot.load().check != 0).count())
            .sum();
        (used * 1000 / (n * BUCKET)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HUGE_PAGE;
    use crate::rng::splitmix64;

    #[test]
    fn size_is_bounded() {
        for mb in [1, 2, 3, 16] {
            let tt = Tt::new(mb).unwrap();
            assert!(
                tt.bytes() <= mb << 20,
                "{mb} MiB table holds {} bytes",
                tt.bytes()
            );
            assert!(
                tt.bytes() * 2 > mb << 20,
                "{mb} MiB table holds only {} bytes",
                tt.bytes()
            );
        }
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
    }

    #[test]
    fn large_tables_start_on_a_huge_page_and_empty() {
        for mb in [2, 4, 64] {
            let mut tt = Tt::new(mb).unwrap();
            for _ in 0..2 {
                let start = tt.buckets.as_ptr() as usize;
                assert_eq!(start % HUGE_PAGE, 0, "{mb} MiB table at {start:#x}");
                assert_eq!(tt.bytes(), mb << 20);
                for key in (0..1000u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)) {
                    assert!(tt.probe(key).is_none());
                }
                tt.store(7, 1, 1, Bound::Exact, None, true);
                assert!(tt.probe(7).is_some());
                tt.clear();
            }
        }
        let small = Tt::new(1).unwrap();
        assert_eq!(small.buckets.as_ptr() as usize % 64, 0);
    }

    #[test]
    fn sizes_beyond_the_limits_are_refused_not_aborted() {
        // 64 GiB aborted the process ("memory allocation of 68719476736 bytes failed").
        for mb in [65536, MAX_TT_MB + 1, usize::MAX >> 20, usize::MAX] {
            let e = Tt::new(mb).map(|_| ()).unwrap_err().to_string();
            assert!(e.contains("at most 4096 MiB"), "{e}");
        }
        if let Some(available) = available_bytes() {
            if available < (MAX_TT_MB << 20) {
                let e = Tt::new(MAX_TT_MB).map(|_| ()).unwrap_err().to_string();
                assert!(e.contains("cannot allocate 4096 MiB"), "{e}");
            }
        }
    }

    #[test]
    fn store_probe_and_replace() {
        let tt = Tt::new(1).unwrap();
        let cap = tt.capacity();
        tt.store(12345, -7, 3, Bound::Lower, Some(9), false);
        assert_eq!(
            tt.probe(12345),
            Some(Hit {
                value: -7,
                depth: 3,
                bound: Bound::Lower,
                best: Some(9),
                complete: false
            })
        );
        assert_eq!(tt.probe(54321), None);
        // A shallower non-exact result from the same search does not overwrite a deeper one.
        tt.store(12345, 1, 2, Bound::Upper, None, false);
        assert_eq!(tt.probe(12345).unwrap().depth, 3);
        // An exact one does, and keeps the known best move.
        tt.store(12345, 4, 1, Bound::Exact, None, true);
        assert_eq!(
            tt.probe(12345),
            Some(Hit {
                value: 4,
                depth: 1,
                bound: Bound::Exact,
                best: Some(9),
                complete: true
            })
        );
        // Filling far beyond capacity keeps the table's size and most recent entries.
        for i in 0..(4 * cap as u64) {
            tt.store(splitmix64(i), i as i32, 1, Bound::Exact, None, false);
        }
        assert_eq!(tt.capacity(), cap);
        assert!(tt.hashfull() >= 990);
        let last = splitmix64(4 * cap as u64 - 1);
        assert_eq!(tt.probe(last).map(|h| h.value), Some(4 * cap as i32 - 1));
    }
}
