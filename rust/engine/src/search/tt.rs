//! A transposition table of bounded size: buckets of four 16-byte entries (one cache line), the
//! entry to replace chosen by depth and age. Its size is set in MiB and never grows.
//!
//! A table has at most [`MAX_TT_MB`] MiB, and on Linux at most the memory available
//! (`MemAvailable` in `/proc/meminfo`); it is allocated fallibly, so a size that cannot be had
//! is an `Error::Invalid`, never an abort.
//!
//! Every entry carries the table's generation: [`Tt::clear`] starts a new one, and entries of
//! older ones read as empty (a full clear only when the 7-bit generation wraps). A searcher
//! dropped gives its table back ([`Tt::give_back`]) and the next one of the same size takes it
//! ([`Tt::take`]): a one-shot search then touches memory already backed, where a fresh table
//! made the system zero every page the search touched for the first time (a 64 MiB table cost
//! a depth-4 search about as much again). A table renewed so behaves exactly as a fresh one:
//! the same probes find the same entries and stores pick the same slots.

use std::sync::atomic::{AtomicU64, Ordering};

use super::arenas::{Spare, Spares};
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
/// `meta = check << 32 | depth << 24 | bound << 16 | age << 8 | generation << 1 | complete`.
#[derive(Clone, Copy, Default)]
struct Entry {
    check: u32,
    best: u32,
    value: i32,
    depth: u8,
    bound: u8,
    age: u8,
    /// The table's generation when stored (7 bits).
    generation: u8,
    complete: u8,
}

impl Entry {
    fn words(&self) -> (u64, u64) {
        let data = (self.best as u64) << 32 | self.value as u32 as u64;
        let meta = (self.check as u64) << 32
            | (self.depth as u64) << 24
            | (self.bound as u64) << 16
            | (self.age as u64) << 8
            | (self.generation as u64) << 1
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
            generation: (meta as u8) >> 1,
            complete: meta as u8 & 1,
        }
    }

    /// Whether it holds a position of generation `generation` (else it reads as empty).
    #[inline]
    fn live(&self, generation: u8) -> bool {
        self.check != 0 && self.generation == generation
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
/// Generations before one repeats (7 bits of an entry).
const GENERATIONS: u8 = 128;

/// Tables given back by searchers that were dropped, for the next ones ([`Tt::take`]): at most
/// four, and 256 MiB in all (a searcher of a larger table frees it when dropped).
static SPARE: Spares<Tt> = Spares::new(4, SPARE_BYTES);
const SPARE_BYTES: usize = 256 << 20;

impl Spare for Tt {
    fn bytes(&self) -> usize {
        Tt::bytes(self)
    }
}

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
    /// Entries of other generations read as empty.
    generation: u8,
}

impl Tt {
    ///
    /// # Errors
    /// `Error::Invalid` when `mb` is above [`MAX_TT_MB`], above the memory available, or the
    /// allocation fails.
    pub fn new(mb: usize) -> Result<Tt> {
        let n = Tt::buckets_for(mb)?;
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
            generation: 0,
        })
    }

    /// The buckets of a table of `mb` MiB: the largest power of two that fits (at least one).
    fn buckets_for(mb: usize) -> Result<usize> {
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
        Ok(n)
    }

    /// An empty table of `mb` MiB, as [`Tt::new`]: a spare one of that size if one was given
    /// back (cleared: it behaves as a fresh one), else a new one.
    ///
    /// # Errors
    /// As [`Tt::new`].
    pub fn take(mb: usize) -> Result<Tt> {
        let n = Tt::buckets_for(mb)?;
        match SPARE.take(|t| t.buckets.len() == n) {
            Some(mut tt) => {
                tt.clear();
                Ok(tt)
            }
            None => Tt::new(mb),
        }
    }

    /// Keeps this table for a later [`Tt::take`], if there is room among the spare ones (it is
    /// freed otherwise).
    pub fn give_back(self) {
        if !self.is_unallocated() {
            SPARE.put(self);
        }
    }

    /// A table of no entries, to be replaced by [`Tt::new`] before use (probing it panics).
    pub(crate) fn unallocated() -> Tt {
        Tt {
            buckets: zeroed_buckets(0).expect("an allocation of one cache line"),
            mask: 0,
            age: 0,
            generation: 0,
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

    /// Forgets every entry: a new generation, whose searches read the older entries as empty.
    /// Once in `GENERATIONS` clears the entries are erased: a large table is replaced by fresh
    /// zeroed memory (as fast as allocating it), a small one overwritten.
    pub fn clear(&mut self) {
        self.generation = (self.generation + 1) % GENERATIONS;
        self.age = 0;
        if self.generation != 0 {
            return;
        }
        let n = self.buckets.len();
        match (n >= LAZY_BUCKETS).then(|| zeroed_buckets(n)).flatten() {
            Some(fresh) => self.buckets = fresh,
            None => self
                .buckets
                .iter()
                .flat_map(|b| &b.0)
                .for_each(|slot| slot.save(&Entry::default())),
        }
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
            .find(|e| e.check == check && e.generation == self.generation)
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
        let (age, generation) = (self.age, self.generation);
        let bucket: [Entry; BUCKET] = std::array::from_fn(|j| self.buckets[i].0[j].load());
        let same = |e: &Entry| e.check == check && e.generation == generation;
        let slot = match bucket.iter().position(same) {
            Some(j) => {
                // Same position: keep a deeper result from this search unless this one is exact.
                let e = bucket[j];
                if e.age == age && e.depth > depth && bound != Bound::Exact && !complete {
                    return;
                }
                j
            }
            None => {
                // Replace the least valuable: empty (or of an older generation) first, then
                // old, then shallow.
                let score = |e: &Entry| {
                    if !e.live(generation) {
                        i32::MIN
                    } else {
                        e.depth as i32 - 8 * (age.wrapping_sub(e.age) as i32)
                    }
                };
                (0..BUCKET).min_by_key(|&j| score(&bucket[j])).unwrap_or(0)
            }
        };
        let keep_best = if best.is_none() && same(&bucket[slot]) {
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
            generation,
            complete: complete as u8,
        });
    }

    /// How many entries are in use, per mille, estimated from the first 1000 buckets.
    pub fn hashfull(&self) -> u32 {
        let n = self.buckets.len().min(1000);
        let used: usize = self.buckets[..n]
            .iter()
            .map(|b| {
                b.0.iter()
                    .filter(|slot| slot.load().live(self.generation))
                    .count()
            })
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

    /// Random stores and probes, the same on `a` and `b`: every probe finds the same on both.
    fn same_answers(a: &Tt, b: &Tt, seed: u64, ops: u64) {
        // Few distinct keys over few buckets: hits, updates and full buckets all happen.
        let keys = 8 * a.capacity() as u64;
        for i in 0..ops {
            let r = splitmix64(seed ^ i);
            let key = splitmix64(r % keys);
            if r >> 60 < 10 {
                let bound = [Bound::Exact, Bound::Lower, Bound::Upper][(r >> 8) as usize % 3];
                let best = (r >> 12 & 1 == 0).then_some((r >> 16) as u32 % 500);
                let (value, depth, complete) = (
                    (r >> 24) as i32 % 1000,
                    (r >> 40) as u8 % 9,
                    r >> 50 & 1 == 0,
                );
                a.store(key, value, depth, bound, best, complete);
                b.store(key, value, depth, bound, best, complete);
            } else {
                assert_eq!(a.probe(key), b.probe(key), "operation {i}");
            }
        }
        assert_eq!(a.hashfull(), b.hashfull());
    }

    #[test]
    fn a_cleared_table_behaves_exactly_as_a_fresh_one() {
        let mut used = Tt::new(1).unwrap();
        for round in 0..3u64 {
            // Dirty it (new searches, many entries), then clear it: its old entries read as
            // empty, and every store lands where it would in a fresh table.
            for i in 0..50_000u64 {
                if i % 10_000 == 0 {
                    used.new_search();
                }
                used.store(
                    splitmix64(i ^ round << 40),
                    i as i32,
                    (i % 7) as u8,
                    Bound::Exact,
                    Some(1),
                    false,
                );
            }
            used.clear();
            let mut fresh = Tt::new(1).unwrap();
            assert_eq!(used.hashfull(), 0);
            for search in 0..3 {
                used.new_search();
                fresh.new_search();
                same_answers(&used, &fresh, round * 10 + search, 40_000);
            }
        }
    }

    #[test]
    fn no_entry_outlives_its_generation_when_the_generations_wrap() {
        let mut tt = Tt::new(1).unwrap();
        let key = |g: u64| splitmix64(g + 1);
        for g in 0..3 * GENERATIONS as u64 {
            assert_eq!(tt.probe(key(g)), None, "generation {g}");
            // Entries of every earlier generation are gone, whichever generation this is.
            for old in g.saturating_sub(200)..g {
                assert_eq!(tt.probe(key(old)), None, "{old} seen in {g}");
            }
            tt.store(key(g), g as i32, 3, Bound::Exact, None, true);
            assert_eq!(tt.probe(key(g)).map(|h| h.value), Some(g as i32));
            tt.clear();
        }
    }

    #[test]
    fn a_table_given_back_is_taken_again_empty() {
        // A size no other test uses: the spare table found is this one. Tables that other
        // tests gave back may fill the spares: emptied first.
        SPARE.clear();
        let tt = Tt::take(3).unwrap();
        tt.store(99, 5, 2, Bound::Exact, None, true);
        let at = tt.buckets.as_ptr();
        tt.give_back();
        let again = Tt::take(3).unwrap();
        assert_eq!(again.buckets.as_ptr(), at);
        assert_eq!(again.probe(99), None);
        assert_eq!(again.bytes(), 2 << 20);
        // Too large to keep: freed.
        Tt::new(SPARE_BYTES >> 19).unwrap().give_back();
        assert!(SPARE.bytes() <= SPARE_BYTES);
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
