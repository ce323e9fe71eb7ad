//! Memory of searches that ended, kept for the next ones: transposition tables
//! ([`super::tt`]) and the node arenas of PUCT trees ([`super::tree`]).
//!
//! Fresh memory's pages are mapped, zeroed and charged by the system one at a time as a search
//! first touches them: in short searches (a one-shot alpha-beta, `search_many` called again and
//! again, self-play) that is a large share of the time, and the page faults of two threads
//! queue on the same locks. Kept memory's pages are ready. The spares are bounded (a count and
//! bytes in all), and never wait on a lock: a busy pool is passed by (a fork taken while
//! another thread held it leaves it busy for good, not stuck).

use std::sync::Mutex;

/// What a spare holds, counted against its pool's bytes.
pub(super) trait Spare {
    fn bytes(&self) -> usize;
}

/// An arena holds the memory it has touched: the room never used costs nothing.
impl<T: Copy> Spare for crate::memory::Arena<T> {
    fn bytes(&self) -> usize {
        self.touched() * std::mem::size_of::<T>()
    }
}

/// Spares of `T`: at most `count` of them and `bytes` in all.
pub(super) struct Spares<T> {
    kept: Mutex<Vec<T>>,
    count: usize,
    bytes: usize,
}

impl<T: Spare> Spares<T> {
    /// No spares yet; at most `count` of them and `bytes` in all kept.
    pub(super) const fn new(count: usize, bytes: usize) -> Spares<T> {
        Spares {
            kept: Mutex::new(Vec::new()),
            count,
            bytes,
        }
    }

    /// The last spare kept that `fits` (its pages were touched last), if any.
    pub(super) fn take(&self, fits: impl Fn(&T) -> bool) -> Option<T> {
        let mut kept = self.kept.try_lock().ok()?;
        let i = kept.iter().rposition(fits)?;
        Some(kept.remove(i))
    }

    /// Keeps `spare` for a later [`Spares::take`] if there is room; it is freed otherwise.
    pub(super) fn put(&self, spare: T) {
        let bytes = spare.bytes();
        if bytes == 0 || bytes > self.bytes {
            return;
        }
        let Ok(mut kept) = self.kept.try_lock() else {
            return;
        };
        let held: usize = kept.iter().map(Spare::bytes).sum();
        if kept.len() < self.count && held + bytes <= self.bytes {
            kept.push(spare);
        }
        // Else `spare` is freed once the lock is released (locals drop in reverse order).
    }

    /// The bytes of the spares kept.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.kept.lock().unwrap().iter().map(Spare::bytes).sum()
    }

    /// Frees every spare (tests that count on the room left by other tests).
    #[cfg(test)]
    pub(super) fn clear(&self) {
        self.kept.lock().unwrap().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl<T> Spare for Vec<T> {
        fn bytes(&self) -> usize {
            self.capacity() * std::mem::size_of::<T>()
        }
    }

    #[test]
    fn a_spare_put_back_is_taken_again() {
        let spares: Spares<Vec<u64>> = Spares::new(4, 1 << 20);
        assert!(spares.take(|_| true).is_none());
        let a: Vec<u64> = (0..1000).collect();
        let (cap, at) = (a.capacity(), a.as_ptr());
        spares.put(a);
        assert_eq!(spares.bytes(), cap * 8);
        // Larger than the taker may hold: not handed out.
        assert!(spares.take(|a| a.capacity() < cap).is_none());
        let b = spares.take(|a| a.capacity() <= cap).unwrap();
        assert_eq!(b.as_ptr(), at);
        assert_eq!(spares.bytes(), 0);
    }

    #[test]
    fn spares_never_hold_more_than_their_count_and_bytes() {
        let spares: Spares<Vec<u64>> = Spares::new(4, 10_000 * 8);
        for _ in 0..5 {
            spares.put(Vec::with_capacity(3_000));
            assert!(spares.bytes() <= 10_000 * 8);
        }
        assert_eq!(spares.bytes(), 9_000 * 8);
        // Too big to keep at all.
        spares.put(Vec::with_capacity(20_000));
        assert_eq!(spares.bytes(), 9_000 * 8);
        // At most `count` spares.
        spares.put(Vec::with_capacity(10));
        spares.put(Vec::with_capacity(10));
        assert_eq!(spares.bytes(), 9_010 * 8);
        // A busy pool is passed by: nothing waits, nothing is kept or handed out.
        let held = spares.kept.lock().unwrap();
        assert!(spares.take(|_| true).is_none());
        drop(held);
        assert_eq!(spares.bytes(), 9_010 * 8);
    }
}
