//! One driver for batches of independent games (both games' `random_playouts`).
//!
//! - `n` is checked before anything is allocated: at most [`MAX_GAMES`] games, and the results
//!   must fit in the memory available (Linux: `MemAvailable`); the result vector is reserved
//!   fallibly, so a batch too large is an `Error::Invalid`, never an abort.
//! - `threads`: `0` means every core (`std::thread::available_parallelism`), `1` runs on the
//!   calling thread, and at most [`MAX_THREADS`] are allowed. Thread pools are built once per
//!   thread count and kept (the last one used), not once per call.
//! - The games run in chunks of [`CHUNK`]; the stop flag is read between chunks, and a raised
//!   flag ends the batch with `Error::Interrupted`.
//! - Game `i` is computed by `one(i)` whatever the thread count, so seeding it from
//!   `(seed, i)` makes the results independent of `threads`.

use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::threads::KeptPool;

use crate::error::{Error, Result};
pub use crate::memory::{available_bytes, check_memory};
use crate::search::budget::StopFlag;

/// The most games one batch may have: 2^32.
pub const MAX_GAMES: usize = 1 << 32;

/// The most threads a batch may use.
pub const MAX_THREADS: usize = 256;

/// Games per chunk: the stop flag is read between chunks. A chunk of random Marathon games
/// (about 330 plies each) takes some 15 ms on one core, so Ctrl-C is answered well within
/// 200 ms; Fish games are shorter.
pub const CHUNK: usize = 1024;

/// Batches smaller than this run on the calling thread whatever `threads` says.
const SMALL: usize = 128;

/// The thread count `threads` stands for: `0` is every core; above [`MAX_THREADS`] is an error.
pub fn resolve_threads(threads: usize) -> Result<usize> {
    match threads {
        0 => Ok(std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)),
        t if t > MAX_THREADS => {
            crate::error::invalid!(
                "threads = {t}: at most {MAX_THREADS} threads (0 uses every core)"
            )
        }
        t => Ok(t),
    }
}

/// The kept pool for `threads` threads (built if the last one had another size).
fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<KeptPool> = Mutex::new(KeptPool::new("pingvinas-batch"));
    POOL.lock().unwrap_or_else(|e| e.into_inner()).get(threads)
}

/// `[one(0), one(1), …, one(n - 1)]`, computed on `threads` threads (see the module docs).
///
/// # Errors
/// `Error::Invalid` for `n` above [`MAX_GAMES`] or beyond the memory available, `threads` above
/// [`MAX_THREADS`] or a pool that cannot start; `Error::Interrupted` when `stop` is raised.
pub fn run<T, F>(n: usize, threads: usize, stop: &StopFlag, one: F) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(usize) -> T + Sync,
{
    if n > MAX_GAMES {
        return crate::error::invalid!("n = {n}: at most {MAX_GAMES} (2^32) games in one batch");
    }
    let threads = resolve_threads(threads)?;
    let bytes = n.saturating_mul(std::mem::size_of::<T>().max(1));
    let too_big = || {
        Error::Invalid(format!(
            "n = {n}: the results of {n} games need {} MiB, more than the memory available",
            bytes >> 20
        ))
    };
    if available_bytes().is_some_and(|available| bytes > available) {
        return Err(too_big());
    }
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(n).map_err(|_| too_big())?;
    let interrupted =
        |done: usize| Error::Interrupted(format!("interrupted after {done} of {n} games"));
    if threads == 1 || n < SMALL {
        for start in (0..n).step_by(CHUNK) {
            if stop.is_set() {
                return Err(interrupted(start));
            }
            out.extend((start..(start + CHUNK).min(n)).map(&one));
        }
        return Ok(out);
    }
    let pool = pool(threads)?;
    pool.install(|| {
        for start in (0..n).step_by(CHUNK) {
            if stop.is_set() {
                return Err(interrupted(start));
            }
            out.par_extend(
                (start..(start + CHUNK).min(n))
                    .into_par_iter()
                    .with_min_len(64)
                    .map(&one),
            );
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_in_order_whatever_the_threads() {
        let f = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let want: Vec<u64> = (0..10_000).map(f).collect();
        for threads in [0, 1, 2, 3, 7] {
            assert_eq!(run(10_000, threads, &StopFlag::new(), f).unwrap(), want);
        }
        assert!(run(0, 2, &StopFlag::new(), f).unwrap().is_empty());
    }

    #[test]
    fn sizes_and_threads_are_checked_before_allocating() {
        let f = |i: usize| i;
        let stop = StopFlag::new();
        // These aborted ("memory allocation failed") or panicked ("capacity overflow").
        for n in [usize::MAX, MAX_GAMES + 1, 1 << 40] {
            let e = run(n, 1, &stop, f).unwrap_err().to_string();
            assert!(e.contains("at most 4294967296"), "{e}");
        }
        if available_bytes().is_some() {
            let e = run(MAX_GAMES, 1, &stop, |_| [0u64; 64])
                .unwrap_err()
                .to_string();
            assert!(e.contains("memory available"), "{e}");
        }
        for threads in [257, 5000, usize::MAX] {
            let e = run(10, threads, &stop, f).unwrap_err().to_string();
            assert!(e.contains("at most 256 threads"), "{e}");
        }
        assert!(run(10, 256, &stop, f).is_ok());
        assert!(resolve_threads(0).unwrap() >= 1);
    }

    #[test]
    fn a_raised_stop_flag_interrupts_between_chunks() {
        for threads in [1, 2] {
            let stop = StopFlag::new();
            let count = std::sync::atomic::AtomicUsize::new(0);
            let e = run(100 * CHUNK, threads, &stop, |i| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i == CHUNK + 5 {
                    stop.stop();
                }
                i
            })
            .unwrap_err();
            assert!(matches!(e, Error::Interrupted(_)), "{e:?}");
            assert!(count.into_inner() <= 3 * CHUNK);
        }
    }
}
