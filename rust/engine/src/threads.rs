//! Thread pools kept between calls: threads that stay alive keep what the engine holds per
//! thread (the Fish region solver's memo) warm, and cost no start-up per call.
//!
//! A process forked from the one that built a pool has a copy of the pool but not its threads
//! (a fork copies only the forking thread), so work sent there would wait forever: the pool is
//! built again in the new process.
//!
//! [`Team`] is for work cut into many small pieces that a call hands out and waits for (a
//! vector env's step, a round of many search trees): the calling thread takes pieces too, and
//! its helpers spin a little after each job before they sleep, so that a job that follows soon
//! finds them awake. A helper that wakes late finds the pieces taken and costs the call nothing:
//! the caller waits only for the helpers that took a piece.

use std::any::Any;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// A rayon pool of a given size, built on first use and after a fork.
pub struct KeptPool {
    name: &'static str,
    /// The pool and the process that built it.
    pool: Option<(u32, Arc<rayon::ThreadPool>)>,
}

impl KeptPool {
    /// No pool yet; its threads will be named `"{name}-{i}"`.
    pub const fn new(name: &'static str) -> KeptPool {
        KeptPool { name, pool: None }
    }

    /// The pool of `threads` threads, built if there is none of that size in this process.
    ///
    /// # Errors
    /// `Error::Invalid` when the threads cannot be started.
    pub fn get(&mut self, threads: usize) -> Result<Arc<rayon::ThreadPool>> {
        let pid = std::process::id();
        let kept = matches!(&self.pool, Some((p, pool)) if *p == pid && pool.current_num_threads() == threads);
        if !kept {
            if let Some((p, old)) = self.pool.take() {
                if p != pid {
                    // Its threads are in the parent process: nothing here may wait on them.
                    std::mem::forget(old);
                }
            }
            let name = self.name;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(move |i| format!("{name}-{i}"))
                .build()
                .map(Arc::new)
                .map_err(|e| Error::Invalid(format!("could not start {threads} threads: {e}")))?;
            self.pool = Some((pid, pool));
        }
        Ok(self.pool.as_ref().expect("set above").1.clone())
    }
}

/// How long an idle helper watches for the next job before it sleeps: a step of a vector env
/// in a learning loop follows the last one within tens of microseconds of Python.
const WATCH: Duration = Duration::from_micros(200);

/// Spins between two offers of the CPU to other threads while a thread watches or waits: an
/// offer is a system call, slow to notice the work it waits for, so it is made seldom.
const SPINS_PER_YIELD: u32 = 1024;

/// Cuts `n` items into pieces for `threads` threads of a [`Team`], their bounds into `bounds`
/// (`0`, ..., `n`): each piece is a share of the items left, one in `2 * threads`, and at
/// least `least` items (guided scheduling). The caller takes pieces from the front and the
/// helpers from the back, so the pieces are laid out from both ends, one in `threads` at the
/// front: each end starts with long runs of items, so that the threads take few pieces and
/// each keeps the same items (in its cache) from call to call; the last pieces, in the middle,
/// are short, so that a thread that starts late or is held up by another process leaves its
/// share to the others and the threads finish together. One thread gets one piece.
pub fn guided(n: usize, threads: usize, least: usize, bounds: &mut Vec<usize>) {
    bounds.clear();
    bounds.push(0);
    if threads <= 1 {
        bounds.push(n);
        return;
    }
    // The sizes taken from the back, in the order they are taken.
    let mut back = Vec::new();
    let (mut front, mut left) = (0, n);
    for k in 0.. {
        if left == 0 {
            break;
        }
        let size = (left / (2 * threads)).max(least).clamp(1, left);
        left -= size;
        if k % threads == 0 {
            front += size;
            bounds.push(front);
        } else {
            back.push(size);
        }
    }
    for size in back.into_iter().rev() {
        front += size;
        bounds.push(front);
    }
}

/// One call's pieces, on the calling thread's stack while helpers may read it.
struct Job<'a> {
    work: &'a (dyn Fn(usize) + Sync),
    /// The pieces not taken yet, `front..back`, as `back << 32 | front`: the caller takes
    /// them from the front and the helpers from the back, so that each thread runs about the
    /// same pieces from call to call (a vector env's envs, a round's trees), whose memory is
    /// then in its own cache.
    left: AtomicU64,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl<'a> Job<'a> {
    /// Pieces `0..pieces` (at most `u32::MAX`).
    fn new(work: &'a (dyn Fn(usize) + Sync), pieces: u32) -> Job<'a> {
        Job {
            work,
            left: AtomicU64::new(u64::from(pieces) << 32),
            panic: Mutex::new(None),
        }
    }

    /// The next piece from the front or the back, if any.
    fn next(&self, back: bool) -> Option<usize> {
        let mut left = self.left.load(Ordering::Relaxed);
        loop {
            let (front, end) = (left & u64::from(u32::MAX), left >> 32);
            if front >= end {
                return None;
            }
            let (taken, i) = if back {
                (left - (1 << 32), end - 1)
            } else {
                (left + 1, front)
            };
            match self
                .left
                .compare_exchange_weak(left, taken, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(i as usize),
                Err(now) => left = now,
            }
        }
    }

    /// Takes pieces until none is left, from the back when `back`; returns how many this
    /// thread ran.
    fn take(&self, back: bool) -> usize {
        let mut ran = 0;
        loop {
            let Some(i) = self.next(back) else {
                return ran;
            };
            ran += 1;
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| (self.work)(i))) {
                // The other pieces are skipped; the caller passes the panic on.
                self.left.store(0, Ordering::Relaxed);
                self.panic
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(p);
            }
        }
    }
}

/// What the helpers share with the caller.
struct Crew {
    /// The job on offer (null when none): set and cleared under `door`.
    job: AtomicPtr<Job<'static>>,
    /// Counts the jobs offered, for the helpers that watch without the lock.
    offered: AtomicU64,
    /// Helpers inside the job on offer: the caller returns when none is left.
    inside: AtomicUsize,
    door: Mutex<Door>,
    bell: Condvar,
}

#[derive(Default)]
struct Door {
    sleepers: usize,
    closed: bool,
}

impl Crew {
    fn lock(&self) -> MutexGuard<'_, Door> {
        self.door.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A helper's life: wait for a job, take pieces of it, again until the team is dropped.
    fn serve(&self) {
        let mut seen = self.offered.load(Ordering::Acquire);
        loop {
            let start = Instant::now();
            let mut spins = 0u32;
            while self.offered.load(Ordering::Acquire) == seen {
                spins += 1;
                if spins % 64 == 0 {
                    if start.elapsed() > WATCH {
                        let mut door = self.lock();
                        while self.offered.load(Ordering::Acquire) == seen && !door.closed {
                            door.sleepers += 1;
                            door = self.bell.wait(door).unwrap_or_else(|e| e.into_inner());
                            door.sleepers -= 1;
                        }
                        if door.closed {
                            return;
                        }
                        break;
                    }
                    if spins % SPINS_PER_YIELD == 0 {
                        std::thread::yield_now();
                    }
                } else {
                    std::hint::spin_loop();
                }
            }
            seen = self.offered.load(Ordering::Acquire);
            let job = {
                let door = self.lock();
                if door.closed {
                    return;
                }
                let job = self.job.load(Ordering::Acquire);
                if !job.is_null() {
                    self.inside.fetch_add(1, Ordering::AcqRel);
                }
                job
            };
            if !job.is_null() {
                // SAFETY: the caller keeps the job alive until `inside` is back to 0.
                unsafe { &*job }.take(true);
                self.inside.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// Threads kept between calls that share pieces of work with the calling thread (see the
/// module docs). Results are those of the pieces, whoever runs them.
pub struct Team {
    name: &'static str,
    /// The crew, the process that started it and its helpers' count.
    crew: Option<(u32, usize, Arc<Crew>)>,
}

impl Team {
    /// No helpers yet; their threads will be named `"{name}-{i}"`.
    pub const fn new(name: &'static str) -> Team {
        Team { name, crew: None }
    }

    /// The crew of `helpers` threads, started if there is none of that size in this process;
    /// none when threads cannot be started.
    fn crew(&mut self, helpers: usize) -> Option<Arc<Crew>> {
        let pid = std::process::id();
        let kept = matches!(&self.crew, Some((p, h, _)) if *p == pid && *h == helpers);
        if !kept {
            self.stop();
            let crew = Arc::new(Crew {
                job: AtomicPtr::new(std::ptr::null_mut()),
                offered: AtomicU64::new(0),
                inside: AtomicUsize::new(0),
                door: Mutex::new(Door::default()),
                bell: Condvar::new(),
            });
            for i in 0..helpers {
                let c = crew.clone();
                let started = std::thread::Builder::new()
                    .name(format!("{}-{i}", self.name))
                    .spawn(move || c.serve());
                if started.is_err() {
                    self.crew = Some((pid, helpers, crew));
                    self.stop();
                    return None;
                }
            }
            self.crew = Some((pid, helpers, crew));
        }
        self.crew.as_ref().map(|(_, _, c)| c.clone())
    }

    /// Sends the helpers away (a copy made by a fork has none: it is only forgotten).
    fn stop(&mut self) {
        if let Some((pid, _, crew)) = self.crew.take() {
            if pid == std::process::id() {
                crew.lock().closed = true;
                crew.bell.notify_all();
            } else {
                // Its lock may have been held by a thread that is not in this process.
                std::mem::forget(crew);
            }
        }
    }

    /// Runs `work(i)` for every piece `i` in `0..pieces` on this thread and up to
    /// `threads - 1` helpers, and returns when every piece is done: the number of pieces this
    /// thread ran, and how long it took. This thread takes the pieces from the first on, the
    /// helpers from the last back. One thread or one piece runs here alone; so does
    /// everything when helpers cannot be started.
    ///
    /// # Panics
    /// Passes on a panic of `work` (after every helper has left the job).
    pub fn run(
        &mut self,
        threads: usize,
        pieces: usize,
        work: &(dyn Fn(usize) + Sync),
    ) -> (usize, Duration) {
        let start = Instant::now();
        let crew = match u32::try_from(pieces) {
            Ok(p) if threads > 1 && p > 1 => self.crew(threads - 1).map(|c| (c, p)),
            _ => None,
        };
        let Some((crew, pieces)) = crew else {
            (0..pieces).for_each(work);
            return (pieces, start.elapsed());
        };
        let job = Job::new(work, pieces);
        {
            let door = crew.lock();
            // SAFETY: the job outlives its offer: `Offer` withdraws it and waits for the
            // helpers inside before `job` goes out of scope, even when `work` panics here.
            let ptr = &job as *const Job<'_> as *mut Job<'static>;
            crew.job.store(ptr, Ordering::Release);
            crew.offered.fetch_add(1, Ordering::AcqRel);
            if door.sleepers > 0 {
                crew.bell.notify_all();
            }
        }
        struct Offer<'c>(&'c Crew);
        impl Drop for Offer<'_> {
            fn drop(&mut self) {
                let crew = self.0;
                // Under the lock: a helper then either is inside already or finds no job.
                let door = crew.lock();
                crew.job.store(std::ptr::null_mut(), Ordering::Release);
                drop(door);
                let mut spins = 0u32;
                while crew.inside.load(Ordering::Acquire) > 0 {
                    spins += 1;
                    if spins % SPINS_PER_YIELD == 0 {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
            }
        }
        let offer = Offer(&crew);
        let ran = job.take(false);
        let busy = start.elapsed();
        drop(offer);
        if let Some(p) = job.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            resume_unwind(p);
        }
        (ran, busy)
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.stop();
    }
}

/// [`Team::run`] on a team the process keeps for short calls that come in rounds (the
/// rounds of many search trees, the checks of their evaluations); on this thread alone while
/// another call holds it.
pub fn share(threads: usize, pieces: usize, work: &(dyn Fn(usize) + Sync)) {
    static TEAM: Mutex<Team> = Mutex::new(Team::new("pingvinas-rounds"));
    match TEAM.try_lock() {
        Ok(mut team) => {
            team.run(threads, pieces, work);
        }
        Err(std::sync::TryLockError::Poisoned(e)) => {
            e.into_inner().run(threads, pieces, work);
        }
        Err(std::sync::TryLockError::WouldBlock) => (0..pieces).for_each(work),
    }
}

/// A slice handed out in ranges that do not overlap, one to each piece of a [`Team`] job.
pub struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: it gives out `&mut` to ranges of `T`s, which may go to other threads when `T: Send`.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}
unsafe impl<T: Send> Send for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    /// Hands out `slice`.
    pub fn new(slice: &'a mut [T]) -> Self {
        Disjoint {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: PhantomData,
        }
    }

    /// The elements in `range`.
    ///
    /// # Safety
    /// No two ranges taken from one `Disjoint` and alive at once may overlap.
    ///
    /// # Panics
    /// When `range` is not within the slice.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, range: Range<usize>) -> &'a mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "range out of the slice"
        );
        // SAFETY: within the slice (checked), and not aliased (the caller's promise).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_runs_every_piece_once_and_passes_panics_on() {
        let mut team = Team::new("test");
        for threads in [1, 2, 3] {
            for pieces in [0, 1, 2, 7, 100] {
                let done: Vec<AtomicUsize> = (0..pieces).map(|_| AtomicUsize::new(0)).collect();
                let (ran, _) = team.run(threads, pieces, &|i| {
                    done[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(ran <= pieces);
                assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 1));
            }
        }
        // Helpers asleep are woken for the next job.
        std::thread::sleep(WATCH * 3);
        let sum = AtomicUsize::new(0);
        team.run(2, 50, &|i| {
            sum.fetch_add(i, Ordering::Relaxed);
        });
        assert_eq!(sum.into_inner(), 49 * 50 / 2);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.run(2, 10, &|i| assert!(i != 3, "piece 3"));
        }));
        assert!(caught.is_err());
        let mut data = vec![0usize; 40];
        let parts = Disjoint::new(&mut data);
        team.run(2, 4, &|k| {
            // SAFETY: piece k takes rows 10k to 10k + 9 alone.
            for (j, x) in unsafe { parts.range(10 * k..10 * k + 10) }
                .iter_mut()
                .enumerate()
            {
                *x = 10 * k + j;
            }
        });
        assert!(data.iter().enumerate().all(|(i, &x)| i == x));
    }

    #[test]
    fn guided_pieces_cover_every_item_once_long_ones_at_both_ends() {
        let mut bounds = Vec::new();
        guided(1_024, 1, 1, &mut bounds);
        assert_eq!(bounds, [0, 1_024]);
        guided(0, 2, 1, &mut bounds);
        assert_eq!(bounds, [0]);
        for (n, threads, least) in [
            (1_024, 2, 1),
            (1_031, 3, 1),
            (100, 2, 1),
            (37, 8, 1),
            (1_024, 2, 4),
        ] {
            guided(n, threads, least, &mut bounds);
            assert_eq!((bounds[0], bounds[bounds.len() - 1]), (0, n));
            let sizes: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(sizes.iter().all(|&s| s > 0), "{sizes:?}");
            assert_eq!(sizes[0], (n / (2 * threads)).max(least), "{n} {threads}");
            // Longest at both ends, shortest in the middle: sizes fall to a least one and
            // rise from there.
            let low = sizes
                .iter()
                .position(|&s| s == *sizes.iter().min().unwrap())
                .unwrap();
            assert!(sizes[..=low].windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
            assert!(sizes[low..].windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
            // Every piece holds at least `least` items, but the last taken (what was left).
            assert!(
                sizes.iter().filter(|&&s| s < least).count() <= 1,
                "{sizes:?}"
            );
        }
    }

    #[test]
    fn the_caller_takes_pieces_from_the_front_and_helpers_from_the_back() {
        let mut team = Team::new("test");
        let me = std::thread::current().id();
        for _ in 0..20 {
            let mine: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
            let (ran, _) = team.run(3, 64, &|i| {
                if std::thread::current().id() == me {
                    mine[i].store(1, Ordering::Relaxed);
                }
                // Long enough for the helpers to wake and take some.
                std::thread::sleep(Duration::from_micros(50));
            });
            let mine: Vec<usize> = mine.iter().map(|m| m.load(Ordering::Relaxed)).collect();
            assert_eq!(mine.iter().sum::<usize>(), ran);
            assert!(mine[..ran].iter().all(|&m| m == 1), "{mine:?}");
        }
    }

    #[test]
    fn a_pool_is_kept_until_its_size_changes() {
        let mut kept = KeptPool::new("test");
        let id = |k: &mut KeptPool, n| k.get(n).unwrap().install(|| std::thread::current().id());
        let first = id(&mut kept, 1);
        assert_eq!(
            id(&mut kept, 1),
            first,
            "the same thread serves the next call"
        );
        assert_eq!(kept.get(3).unwrap().current_num_threads(), 3);
    }
}
