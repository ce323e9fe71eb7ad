//! Thread pools kept between calls: threads that stay alive keep what the engine holds per
//! thread (the Fish region solver's memo) warm, and cost no start-up per call.
//!
//! A process forked from the one that built a pool has a copy of the pool but not its threads
//! (a fork copies only the forking thread), so work sent there would wait forever: the pool is
//! built again in the new process.

use std::sync::Arc;

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

#[cfg(test)]
mod tests {
    use super::*;

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
