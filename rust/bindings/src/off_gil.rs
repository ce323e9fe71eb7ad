//! Long calls run with the GIL released on a worker thread (one per calling thread, kept between
//! calls) while the calling thread waits on a condition variable, waking every 50 ms to check for signals: Ctrl-C sets the call's stop flag, waits
//! for the worker to wind down and raises `KeyboardInterrupt`. Work that is all or nothing
//! commits its flag when it takes effect ([`StopFlag::commit`]): a Ctrl-C that comes after
//! that returns its result and is raised at Python's next check instead.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use pingvinas_engine::search::StopFlag;
use pingvinas_engine::threads::KeptPool;
use pyo3::prelude::*;

use crate::errors::{internal, ToPyResult};

/// How often the waiting thread checks for signals.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Runs `work(stop)` off the GIL; see the module docs. A panic in `work` becomes a
/// `RuntimeError` (it never reaches Python as a `PanicException`).
pub fn run<T: Send>(
    py: Python<'_>,
    stop: &StopFlag,
    work: impl FnOnce(&StopFlag) -> T + Send,
) -> PyResult<T> {
    run_reporting(py, stop, work, |_| Ok(()))
}

/// Engine work off the GIL: on a worker thread that Ctrl-C stops when `long` (the work is then
/// stopped by its flag and changes nothing), else on this thread (no hand-off to pay).
pub fn run_if_long<T: Send>(
    py: Python<'_>,
    long: bool,
    work: impl FnOnce(&StopFlag) -> pingvinas_engine::Result<T> + Send,
) -> PyResult<T> {
    let stop = StopFlag::new();
    if long {
        return run(py, &stop, work)?.py();
    }
    py.detach(|| catch_unwind(AssertUnwindSafe(|| work(&stop))))
        .map_err(|_| internal())?
        .py()
}

thread_local! {
    /// This thread's worker for long calls: one thread, kept, so that what the engine keeps per
    /// thread (the Fish region solver's memo) stays warm from one call, or move, to the next.
    static WORKER: RefCell<KeptPool> = const { RefCell::new(KeptPool::new("pingvinas-worker")) };
    /// Whether this thread's worker is on a call now: a call made from `report` (Python code
    /// run while the worker works) gets a thread of its own instead of waiting behind it.
    static WORKER_BUSY: Cell<bool> = const { Cell::new(false) };
}

/// [`run`], calling `report` with the GIL held at every wake-up (a progress bar): an error it
/// raises stops the work, as Ctrl-C does.
pub fn run_reporting<T: Send>(
    py: Python<'_>,
    stop: &StopFlag,
    work: impl FnOnce(&StopFlag) -> T + Send,
    report: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<T> {
    let done = Done(Mutex::new(false), Condvar::new());
    let result = Mutex::new(None);
    let flag = stop.clone();
    let job = || {
        let _mark = OnDrop(&done);
        let r = catch_unwind(AssertUnwindSafe(|| work(&flag)));
        *result.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    // Without a free worker (busy with the call this one is made from, or its thread could
    // not start), the call gets a thread of its own.
    let worker = match WORKER_BUSY.get() {
        false => WORKER.with(|w| w.borrow_mut().get(1)).ok(),
        true => None,
    };
    match worker {
        Some(pool) => {
            WORKER_BUSY.set(true);
            let waited = pool.in_place_scope(|scope| {
                scope.spawn(|_| job());
                wait(py, stop, &done, report)
            });
            WORKER_BUSY.set(false);
            waited
        }
        None => std::thread::scope(|scope| {
            scope.spawn(job);
            wait(py, stop, &done, report)
        }),
    }?;
    match result.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(Ok(t)) => Ok(t),
        _ => Err(internal()),
    }
}

/// Set by the worker when it is done (normally or by a panic).
struct Done(Mutex<bool>, Condvar);

impl Done {
    fn set(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.1.notify_all();
    }

    /// Waits (the GIL released) until the work is done, or for at most `timeout`.
    fn wait(&self, py: Python<'_>, timeout: Option<Duration>) -> bool {
        py.detach(|| {
            let guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
            let pending = |finished: &mut bool| !*finished;
            let guard = match timeout {
                Some(t) => {
                    self.1
                        .wait_timeout_while(guard, t, pending)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self
                    .1
                    .wait_while(guard, pending)
                    .unwrap_or_else(|e| e.into_inner()),
            };
            *guard
        })
    }
}

/// Marks the work done even when it panics.
struct OnDrop<'a>(&'a Done);

impl Drop for OnDrop<'_> {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// The calling thread's side of [`run_reporting`]: waits for the work, checking for signals
/// and reporting every [`SIGNAL_CHECK`]; returns once the work is done, whatever happened.
fn wait(
    py: Python<'_>,
    stop: &StopFlag,
    done: &Done,
    mut report: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<()> {
    while !done.wait(py, Some(SIGNAL_CHECK)) {
        if let Err(e) = py.check_signals() {
            if stop.stop_unless_committed() {
                done.wait(py, None);
                return Err(e);
            }
            // The work had already taken effect (it committed its flag): its result is
            // returned, and the interrupt raised at Python's next check.
            drop(e);
            // SAFETY: called with the GIL held; it only marks SIGINT as arrived.
            unsafe { pyo3::ffi::PyErr_SetInterrupt() };
            break;
        }
        if let Err(e) = report(py) {
            stop.stop();
            done.wait(py, None);
            return Err(e);
        }
    }
    done.wait(py, None);
    Ok(())
}
