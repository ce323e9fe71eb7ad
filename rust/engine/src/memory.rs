//! The memory probe on the ground floor: how much memory is available, and a check made before
//! a large allocation (a failed allocation aborts the process, so sizes are checked first), and
//! the zeroed, huge-page-aligned memory of the transposition tables ([`Zeroed`]) and the growing
//! node arenas of search trees ([`Arena`]). Used by batches ([`crate::batch`], which re-exports
//! it for self-play and the vector environment), the tables ([`crate::search::tt`], the
//! solver's) and the trees ([`crate::search`]); it uses nothing of the crate but its error
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

/// A growable array of plain values, as `Vec<T>` but for arrays that only grow, to hundreds
/// of MiB: the node arenas of search trees. On Linux, from [`MAPPED_FROM`] bytes on, the array
/// has a mapping of its own, which grows by moving its pages (`mremap`) rather than copying
/// them. A copy writes as many fresh pages as the array held, each zeroed by the system as it
/// is first touched, and the allocator gives the old block back to the system (a flush of
/// every search thread's TLB) or keeps it for nothing: for `search_many` on two threads, whose
/// hundreds of trees grow side by side, the copies and their fresh pages took a sixth of the
/// time (`perf`). Elsewhere, and below that size, the allocator's `realloc`. It counts the
/// most values it has held ([`Arena::touched`]): the memory it holds.
pub struct Arena<T: Copy> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    cap: usize,
    /// The most values it has held: its pages touched.
    touched: usize,
    /// The length of its own mapping, 0 when the values are in the allocator's memory (or
    /// nowhere, when `cap` is 0).
    mapping: usize,
}

// SAFETY: the memory is owned by the array alone, as a `Vec<T>`'s is.
unsafe impl<T: Copy + Send> Send for Arena<T> {}
// SAFETY: as above; shared access is through `&[T]`.
unsafe impl<T: Copy + Sync> Sync for Arena<T> {}

/// The size from which an [`Arena`] has a mapping of its own, on Linux.
pub const MAPPED_FROM: usize = 256 << 10;

/// What mappings are rounded up to: a multiple of every page size of Linux's targets.
#[cfg(target_os = "linux")]
const MAPPING_UNIT: usize = 64 << 10;

impl<T: Copy> Default for Arena<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Arena<T> {
    const SIZE: usize = {
        assert!(
            std::mem::size_of::<T>() > 0,
            "an arena of values of no size"
        );
        // Mappings are aligned to pages (4 KiB at least).
        assert!(
            std::mem::align_of::<T>() <= 4096,
            "an arena of values aligned beyond a page"
        );
        std::mem::size_of::<T>()
    };

    /// An empty array, with no memory.
    pub const fn new() -> Arena<T> {
        Arena {
            ptr: std::ptr::NonNull::dangling(),
            len: 0,
            cap: 0,
            touched: 0,
            mapping: 0,
        }
    }

    /// An empty array with room for `n` values.
    ///
    /// # Panics
    /// When the memory cannot be had (as `Vec::with_capacity` aborts).
    pub fn with_capacity(n: usize) -> Arena<T> {
        let mut a = Arena::new();
        a.reserve_exact(n);
        a
    }

    /// The values it has room for without growing.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The most values it has held since it was made: what of its memory has been touched
    /// (memory never touched costs nothing).
    pub fn touched(&self) -> usize {
        self.touched.max(self.len)
    }

    /// Makes room for `additional` more values than it holds, exactly; false (and nothing
    /// changed) when the memory cannot be had.
    pub fn try_reserve_exact(&mut self, additional: usize) -> bool {
        match self.len.checked_add(additional) {
            Some(n) if n <= self.cap => true,
            Some(n) => self.grow(n),
            None => false,
        }
    }

    /// As [`Arena::try_reserve_exact`].
    ///
    /// # Panics
    /// When the memory cannot be had.
    pub fn reserve_exact(&mut self, additional: usize) {
        assert!(
            self.try_reserve_exact(additional),
            "out of memory for an arena of {} values",
            self.len.saturating_add(additional)
        );
    }

    /// Appends `value`, doubling the room when full.
    ///
    /// # Panics
    /// When the memory cannot be had.
    #[inline]
    pub fn push(&mut self, value: T) {
        if self.len == self.cap {
            self.grow_for(1);
        }
        // SAFETY: `len < cap`, and the memory holds `cap` values.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        self.len += 1;
    }

    /// Appends `values`.
    ///
    /// # Panics
    /// When the memory cannot be had.
    pub fn extend_from_slice(&mut self, values: &[T]) {
        if self.cap - self.len < values.len() {
            self.grow_for(values.len());
        }
        // SAFETY: there is room for `values` after the first `len`; they cannot overlap, as
        // `values` is borrowed while `self` is borrowed mutably.
        unsafe {
            std::ptr::copy_nonoverlapping(
                values.as_ptr(),
                self.ptr.as_ptr().add(self.len),
                values.len(),
            );
        }
        self.len += values.len();
    }

    /// Sets the length to `n`, new places filled with `value`.
    ///
    /// # Panics
    /// When the memory cannot be had.
    pub fn resize(&mut self, n: usize, value: T) {
        if n <= self.len {
            self.truncate(n);
            return;
        }
        self.reserve_exact(n - self.len);
        for i in self.len..n {
            // SAFETY: `i < n <= cap`.
            unsafe { self.ptr.as_ptr().add(i).write(value) };
        }
        self.len = n;
    }

    /// Keeps the first `n` values (all when it holds fewer); the room stays.
    pub fn truncate(&mut self, n: usize) {
        self.touched = self.touched();
        self.len = self.len.min(n);
    }

    /// Forgets every value; the room stays.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Room for `more` values past those it holds, at least doubling the room.
    ///
    /// # Panics
    /// When the memory cannot be had.
    #[cold]
    fn grow_for(&mut self, more: usize) {
        let n = self.cap.saturating_mul(2).max(self.len + more).max(4);
        assert!(self.grow(n), "out of memory for an arena of {n} values");
    }

    /// Room for `cap` values (more than now), the values kept; false when the memory cannot be
    /// had, and then nothing changed.
    fn grow(&mut self, cap: usize) -> bool {
        let Some(bytes) = cap
            .checked_mul(Self::SIZE)
            .filter(|&b| b <= isize::MAX as usize / 2)
        else {
            return false;
        };
        #[cfg(target_os = "linux")]
        if bytes >= MAPPED_FROM {
            return self.grow_mapped(bytes);
        }
        let Ok(layout) = std::alloc::Layout::array::<T>(cap) else {
            return false;
        };
        // SAFETY: the layout has a non-zero size; an old block was allocated with the layout of
        // `self.cap` values (a mapped array is never moved back to the allocator: it only grows,
        // and grows mapped).
        let ptr = unsafe {
            if self.cap == 0 {
                std::alloc::alloc(layout)
            } else {
                std::alloc::realloc(self.ptr.as_ptr().cast(), Self::layout(self.cap), bytes)
            }
        };
        let Some(ptr) = std::ptr::NonNull::new(ptr) else {
            return false;
        };
        self.ptr = ptr.cast();
        self.cap = cap;
        true
    }

    /// [`Arena::grow`] into a mapping of at least `bytes`.
    #[cfg(target_os = "linux")]
    fn grow_mapped(&mut self, bytes: usize) -> bool {
        let len = bytes.next_multiple_of(MAPPING_UNIT);
        // SAFETY: `mapping` is the length of a mapped array's mapping; the flags ask for fresh
        // private memory or a move of the whole mapping, and a failure changes nothing.
        let ptr = unsafe {
            if self.mapping > 0 {
                libc::mremap(
                    self.ptr.as_ptr().cast(),
                    self.mapping,
                    len,
                    libc::MREMAP_MAYMOVE,
                )
            } else {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            }
        };
        if ptr == libc::MAP_FAILED {
            return false;
        }
        let ptr = ptr.cast::<T>();
        if self.mapping == 0 {
            // SAFETY: the new mapping holds `len` bytes, more than the `self.len` values; the
            // old block was allocated with the layout of `self.cap` values.
            unsafe {
                std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), ptr, self.len);
                if self.cap > 0 {
                    std::alloc::dealloc(self.ptr.as_ptr().cast(), Self::layout(self.cap));
                }
            }
        }
        // SAFETY: `mmap` and `mremap` never return null on success.
        self.ptr = unsafe { std::ptr::NonNull::new_unchecked(ptr) };
        self.cap = len / Self::SIZE;
        self.mapping = len;
        true
    }

    fn layout(cap: usize) -> std::alloc::Layout {
        std::alloc::Layout::array::<T>(cap).expect("the layout of a block allocated before")
    }
}

impl<T: Copy> std::ops::Deref for Arena<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` values are written; the pointer is dangling only when `len`
        // is 0, which a slice allows (aligned and non-null).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> std::ops::DerefMut for Arena<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for Arena<T> {
    fn drop(&mut self) {
        if self.mapping > 0 {
            // SAFETY: the mapping is this array's alone, `mapping` long.
            #[cfg(target_os = "linux")]
            unsafe {
                libc::munmap(self.ptr.as_ptr().cast(), self.mapping)
            };
        } else if self.cap > 0 {
            // SAFETY: allocated by the allocator with the layout of `cap` values.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), Self::layout(self.cap)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_keeps_its_values_as_it_grows_past_the_mapped_size() {
        let mut a: Arena<u64> = Arena::new();
        assert_eq!((a.len(), a.capacity()), (0, 0));
        let n = 3 * MAPPED_FROM / 8;
        for i in 0..n as u64 {
            a.push(i * 7);
        }
        assert!(a.capacity() >= n);
        assert!(a.iter().enumerate().all(|(i, &v)| v == i as u64 * 7));
        // Room reserved is room kept: pushes into it do not move the values.
        assert!(a.try_reserve_exact(5 * n));
        let (cap, at) = (a.capacity(), a.as_ptr());
        for i in 0..5 * n as u64 {
            a.push(i);
        }
        assert_eq!((a.capacity(), a.as_ptr()), (cap, at));
        assert_eq!(a[n - 1], (n as u64 - 1) * 7);
        assert_eq!(a[6 * n - 1], 5 * n as u64 - 1);
        a.truncate(10);
        a.extend_from_slice(&[1, 2, 3]);
        assert_eq!(a[..], [0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 1, 2, 3]);
        a.resize(15, 9);
        assert_eq!(a[13..], [9, 9]);
        a.resize(2, 9);
        assert_eq!(a[..], [0, 7]);
        a.clear();
        assert!(a.is_empty());
        assert_eq!((a.capacity(), a.touched()), (cap, 6 * n));
        // Values given up by any call still count as touched.
        let mut b: Arena<u8> = Arena::new();
        b.resize(5, 1);
        b.resize(2, 1);
        assert_eq!((b.len(), b.touched()), (2, 5));
    }

    #[test]
    fn room_that_cannot_be_had_is_refused_and_changes_nothing() {
        let mut small: Arena<[u8; 32]> = Arena::with_capacity(3);
        small.push([1; 32]);
        let mut large: Arena<[u8; 32]> = Arena::with_capacity(MAPPED_FROM / 32 + 1);
        large.push([2; 32]);
        for a in [&mut small, &mut large] {
            let cap = a.capacity();
            assert!(!a.try_reserve_exact(usize::MAX));
            assert!(!a.try_reserve_exact(isize::MAX as usize / 32));
            assert_eq!((a.len(), a.capacity()), (1, cap));
        }
        assert_eq!((small[0], large[0]), ([1; 32], [2; 32]));
    }
}
