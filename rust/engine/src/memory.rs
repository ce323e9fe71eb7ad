//! The memory probe on the ground floor: how much memory is available, and a check made before
//! a large allocation (a failed allocation aborts the process, so sizes are checked first). Used
//! by batches ([`crate::batch`], which re-exports it for self-play and the vector environment)
//! and the transposition table ([`crate::search::tt`]); it uses nothing of the crate but its
//! error type.

use crate::error::{Error, Result};

/// `Error::Memory` when `need` bytes (for `what`, named in the message) do not fit in the
/// memory available: checked before allocating, as a failed allocation would abort.
///
/// # Errors
/// `Error::Memory` as above.
pub fn check_memory(what: &str, need: usize) -> Result<()> {
    let available = available_bytes().unwrap_or(usize::MAX);
    if need > available || need > isize::MAX as usize {
        return Err(Error::Memory(format!(
            "{what} need about {} MiB, only {} MiB of memory are available",
            need >> 20,
            available >> 20
        )));
    }
    Ok(())
}

/// `MemAvailable` of `/proc/meminfo` in bytes (Linux), else `None`.
pub fn available_bytes() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}
