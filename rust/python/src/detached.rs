//! Long calls run with the GIL released on a worker thread while the calling thread waits on a
//! condition variable, waking every 50 ms to check for signals: Ctrl-C sets the call's stop flag, waits
//! for the worker to wind down and raises `KeyboardInterrupt`. Work that is all or nothing
//! commits its flag when it takes effect ([`StopFlag::commit`]): a Ctrl-C that comes after
//! that returns its result and is raised at Python's next check instead.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use pingvinas_engine::search::StopFlag;
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

/// [`run`], calling `report` with the GIL held at every wake-up (a progress bar): an error it
/// raises stops the work, as Ctrl-C does.
pub fn run_reporting<T: Send>(
    py: Python<'_>,
    stop: &StopFlag,
    work: impl FnOnce(&StopFlag) -> T + Send,
    mut report: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<T> {
    /// Set by the worker when it is done (normally or by a panic).
    struct Done(Mutex<bool>, Condvar);
    impl Done {
        fn set(&self) {
            *self.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            self.1.notify_all();
        }
    }
    /// Marks the work done even when it panics.
    struct OnDrop<'a>(&'a Done);
    impl Drop for OnDrop<'_> {
        fn drop(&mut self) {
            self.0.set();
        }
    }

    let done = Done(Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        let flag = stop.clone();
        let done = &done;
        let handle = scope.spawn(move || {
            let _mark = OnDrop(done);
            work(&flag)
        });
        loop {
            let finished = py.detach(|| {
                let guard = done.0.lock().unwrap_or_else(|e| e.into_inner());
                let (guard, _) = done
                    .1
                    .wait_timeout_while(guard, SIGNAL_CHECK, |finished| !*finished)
                    .unwrap_or_else(|e| e.into_inner());
                *guard
            });
            if finished {
                return py.detach(|| handle.join()).map_err(|_| internal());
            }
            if let Err(e) = py.check_signals() {
                if stop.stop_unless_committed() {
                    let _ = py.detach(|| handle.join());
                    return Err(e);
                }
                // The work had already taken effect (it committed its flag): its result is
                // returned, and the interrupt raised at Python's next check.
                drop(e);
                // SAFETY: called with the GIL held; it only marks SIGINT as arrived.
                unsafe { pyo3::ffi::PyErr_SetInterrupt() };
                return py.detach(|| handle.join()).map_err(|_| internal());
            }
            if let Err(e) = report(py) {
                stop.stop();
                let _ = py.detach(|| handle.join());
                return Err(e);
            }
        }
    })
}
