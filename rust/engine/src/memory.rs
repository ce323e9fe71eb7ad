//! The memory probe on the ground floor: how much memory is available, and a check made before
//! a large allocation (a failed allocation aborts the process, so sizes are checked first), and
//! the zeroed, huge-page-aligned memory of the transposition tables ([`Zeroed`]). Used by
//! batches ([`crate::batch`], which re-exports it for self-play and the vector environment) and
//! the tables ([`crate::search::tt`], the solver's); it uses nothing of the crate but its error
//! type.

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

/// The size of a huge page, and the smallest [`Zeroed`] slice that is aligned to one.
pub const HUGE_PAGE: usize = 2 << 20;

/// `len` values of `T` in zeroed memory: the transposition tables' buckets, for which all-zero
/// bytes are an empty bucket. The system hands out zeroed pages as they are first touched, so
/// a table of any size costs no time before a search starts. (The memory is asked for with the
/// allocator's own alignment, for which `alloc_zeroed` is `calloc`, and aligned here: with a
/// larger alignment, `alloc_zeroed` writes every byte. Over-allocating costs nothing, as
/// untouched memory is never backed.)
///
/// From [`HUGE_PAGE`] bytes on, the slice is aligned to a huge page and, on Linux, advised to
/// be backed by transparent huge pages. With 4 KiB pages, each first store to a page that a
/// probe had read (and so mapped to the shared zero page) faulted and interrupted every other
/// search thread to flush its TLB (`perf`), which cost alpha-beta on 2 threads much of its
/// speed-up over one (the `alphabeta_threads` example measures it). Random probes also miss the
/// TLB less.
pub struct Zeroed<T> {
    ptr: std::ptr::NonNull<u8>,
    offset: usize,
    len: usize,
    layout: std::alloc::Layout,
    _values: std::marker::PhantomData<T>,
}

// SAFETY: the memory is owned by the slice alone, and holds `T`s.
unsafe impl<T: Send> Send for Zeroed<T> {}
// SAFETY: as above; shared access is through `&[T]`.
unsafe impl<T: Sync> Sync for Zeroed<T> {}

impl<T> Zeroed<T> {
    /// `n` values of all-zero bytes (none when `n` is 0), `None` when the allocation fails.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub unsafe fn new(n: usize) -> Option<Zeroed<T>> {
        let bytes = n.checked_mul(std::mem::size_of::<T>())?;
        let align = if bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<T>()
        };
        let layout = std::alloc::Layout::from_size_align(bytes.checked_add(align)?, 16).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = std::ptr::NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        let offset = ptr.as_ptr().align_offset(align);
        #[cfg(target_os = "linux")]
        if align == HUGE_PAGE {
            // SAFETY: the range lies in the allocation and starts on a page; the advice changes
            // how the memory is backed, not its contents. A refusal only leaves small pages.
            unsafe {
                libc::madvise(ptr.as_ptr().add(offset).cast(), bytes, libc::MADV_HUGEPAGE);
            }
        }
        Some(Zeroed {
            ptr,
            offset,
            len: n,
            layout,
            _values: std::marker::PhantomData,
        })
    }
}

impl<T> std::ops::Deref for Zeroed<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `offset + len * size_of::<T>()` bytes fit in the allocation, aligned for `T`;
        // all-zero bytes are a valid `T` (`new`'s contract).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(self.offset).cast(), self.len) }
    }
}

impl<T> std::ops::DerefMut for Zeroed<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` makes the access unique.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(self.offset).cast(), self.len)
        }
    }
}

impl<T> Drop for Zeroed<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout (the values need no dropping: tables'
        // buckets are plain integers and atomics).
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
