//! Fast move generation. Per cell and piece kind, the eight slides are stored as parallel
//! arrays in *rank order*: first the slides that end on a cell, sorted by that cell (so their
//! results come in ascending action order), then those that finish, then the impossible ones.
//! A piece's free slides are then one bit mask (eight masked compares, which vectorise), its
//! number of moves a few popcounts, and its `r`-th move in ascending order a branch-free scan.
//! Entries (the only moves that can coincide) are counted from a table indexed by the
//! occupancy of the cells they cross.

use super::course::{Course, Outcome, Ray, MAX_CELLS};
use super::state::{MAX_PLAYERS, PIECES, UPRIGHT};
use crate::game::ActionList;
use crate::rng::splitmix64;

/// `FACING_NTH[kind][d][j]`: the `j`-th facing (ascending) a piece of `kind` may end with after a
/// full slide in direction `d`.
const FACING_NTH: [[[u8; 8]; 8]; 3] = {
    let mut t = [[[0u8; 8]; 8]; 3];
    let mut k = 0;
    while k < 3 {
        let mut d = 0;
        while d < 8 {
            let mut m = FACINGS[k][d];
            let mut j = 0;
            while m != 0 {
                t[k][d][j] = m.trailing_zeros() as u8;
                m &= m - 1;
                j += 1;
            }
            d += 1;
        }
        k += 1;
    }
    t
};

/// `BYTE_MASK[m]`: byte `i` all ones where bit `i` of `m` is set.
const BYTE_MASK: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            if m >> i & 1 == 1 {
                t[m] |= 0xFF << (8 * i);
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// The slides of one piece kind from one cell, in rank order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlideSet {
    /// Per rank: the cells slid over, or all ones for no slide (never free while the piece
    /// occupies its own cell).
    pub path: [u64; 8],
    /// Per rank: the number of results when free (full: `2 d + 1` facings, stop: 1, else 0).
    pub cnt: [u8; 8],
    /// Per rank: the end cell (full and stop).
    pub end: [u8; 8],
    /// Per rank: the direction.
    pub dir: [u8; 8],
    /// Per facing (8: upright): the ranks a piece may slide in (its facing's, or all).
    pub allow: [u8; 9],
    /// Ranks (bits) whose slide is full, stops at a side, finishes.
    pub full: u8,
    pub stop: u8,
    pub fin: u8,
    /// Facings after a full slide: `2 d + 1`.
    pub spins: u8,
}

impl SlideSet {
    /// No slides at all (stands in for finished pieces).
    pub const EMPTY: SlideSet = SlideSet {
        path: [u64::MAX; 8],
        cnt: [0; 8],
        end: [0; 8],
        dir: [0, 1, 2, 3, 4, 5, 6, 7],
        allow: [1, 2, 4, 8, 16, 32, 64, 128, 0xFF],
        full: 0,
        stop: 0,
        fin: 0,
        spins: 0,
    };

    fn new(rays: &[Ray; 8], kind: usize) -> SlideSet {
        let mut set = SlideSet {
            spins: 2 * kind as u8 + 3,
            ..SlideSet::EMPTY
        };
        // Sort key: cell-ending slides by end cell, then finishes, then nothing.
        let key = |d: usize| match rays[d].outcome {
            Outcome::Full | Outcome::Stop => (0, rays[d].end, d),
            Outcome::Finish => (1, 0, d),
            Outcome::None => (2, 0, d),
        };
        let mut dirs: Vec<usize> = (0..8).collect();
        dirs.sort_by_key(|&d| key(d));
        for (i, &d) in dirs.iter().enumerate() {
            let ray = &rays[d];
            set.dir[i] = d as u8;
            set.allow[d] = 1 << i;
            if ray.outcome != Outcome::None {
                set.path[i] = ray.path;
            }
            match ray.outcome {
                Outcome::Full => {
                    set.cnt[i] = set.spins;
                    set.end[i] = ray.end;
                    set.full |= 1 << i;
                }
                Outcome::Stop => {
                    set.cnt[i] = 1;
                    set.end[i] = ray.end;
                    set.stop |= 1 << i;
                }
                Outcome::Finish => set.fin |= 1 << i,
                Outcome::None => {}
            }
        }
        set
    }

    /// The ranks (bits) whose path is free.
    #[inline(always)]
    pub fn free(&self, occ: u64) -> u8 {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        // SAFETY: SSE4.1 is enabled at compile time; the four unaligned 16-byte loads read
        // exactly the 64 bytes of `self.path`.
        unsafe {
            use std::arch::x86_64::*;
            let o = _mm_set1_epi64x(occ as i64);
            let z = _mm_setzero_si128();
            let p = self.path.as_ptr() as *const __m128i;
            let pair = |i: usize| {
                let blocked = _mm_and_si128(_mm_loadu_si128(p.add(i)), o);
                _mm_movemask_pd(_mm_castsi128_pd(_mm_cmpeq_epi64(blocked, z)))
            };
            (pair(0) | pair(1) << 2 | pair(2) << 4 | pair(3) << 6) as u8
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
        {
            let mut f = 0u8;
            for i in 0..8 {
                f |= ((self.path[i] & occ == 0) as u8) << i;
            }
            f
        }
    }

    /// The free ranks a piece may slide in: all free ones when upright (`facing == 8`), else
    /// its facing's if free.
    #[inline(always)]
    pub fn free_for(&self, occ: u64, facing: u8) -> u8 {
        self.free(occ) & self.allow[(facing as usize).min(8)]
    }

    /// Number of distinct slides among the free ranks `f`.
    #[inline(always)]
    pub fn count(&self, f: u8) -> u32 {
        (f & self.full).count_ones() * self.spins as u32
            + (f & self.stop).count_ones()
            + (f & self.fin != 0) as u32
    }

    /// Whether an upright piece has any move.
    #[inline(always)]
    pub fn any_upright(&self, occ: u64) -> bool {
        self.free(occ) != 0
    }

    /// The `r`-th (ascending) result among the free ranks `f`, `r < count(f)`: branch-free,
    /// with byte-wise prefix sums of the per-rank counts in one `u64`.
    #[inline(always)]
    pub fn nth(&self, f: u8, kind: usize, r: u32, finish: u32) -> u32 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        let c = u64::from_le_bytes(self.cnt) & BYTE_MASK[f as usize];
        let incl = c.wrapping_mul(ONES); // byte i: counts of ranks 0..=i (at most 56)
        let ge = (incl + ONES * (127 - r as u64)) & (ONES << 7); // bytes with incl > r
        if ge == 0 {
            return finish;
        }
        let sel = (ge.trailing_zeros() / 8) as usize;
        let j = r - ((incl - c) >> (8 * sel) & 0xFF) as u32;
        let at = self.end[sel & 7] as u32 * 9;
        if self.cnt[sel & 7] == 1 {
            at + 8
        } else {
            at + FACING_NTH[kind][self.dir[sel & 7] as usize & 7][j as usize & 7] as u32
        }
    }

    /// The results among the free ranks `f` in ascending order, to `out` (offset by `base`).
    #[inline]
    pub fn emit(&self, f: u8, kind: usize, base: u32, finish: u32, out: &mut ActionList) {
        let mut m = f & (self.full | self.stop);
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            let at = base + self.end[i] as u32 * 9;
            if self.cnt[i] == 1 {
                out.push(at + 8);
            } else {
                let mut fm = FACINGS[kind][self.dir[i] as usize];
                while fm != 0 {
                    out.push(at + fm.trailing_zeros());
                    fm &= fm - 1;
                }
            }
            m &= m - 1;
        }
        if f & self.fin != 0 {
            out.push(base + finish);
        }
    }
}

/// The `r`-th result (ascending) of a lying piece on `cell`: its slide's results (free ranks
/// `f`, at most one rank) and the stand, merged in order.
#[inline]
pub(crate) fn lying_nth(set: &SlideSet, f: u8, kind: usize, cell: u8, r: u32, finish: u32) -> u32 {
    let stand = cell as u32 * 9 + 8;
    let rc = set.count(f);
    // The slide's results come before the stand when it ends on a lower cell.
    let on_cell = f & (set.full | set.stop);
    let slide_first = on_cell != 0 && set.end[on_cell.trailing_zeros() as usize] < cell;
    let stand_at = if slide_first { rc } else { 0 };
    if r == stand_at {
        stand
    } else {
        set.nth(f, kind, if r > stand_at { r - 1 } else { r }, finish)
    }
}

/// The results (ascending) of a lying piece on `cell` with free ranks `f`.
#[inline]
pub(crate) fn lying_emit(
    set: &SlideSet,
    f: u8,
    kind: usize,
    cell: u8,
    base: u32,
    finish: u32,
    out: &mut ActionList,
) {
    let stand = base + cell as u32 * 9 + 8;
    let on_cell = f & (set.full | set.stop);
    let slide_first = on_cell != 0 && set.end[on_cell.trailing_zeros() as usize] < cell;
    if slide_first {
        set.emit(f, kind, base, finish, out);
        out.push(stand);
    } else {
        out.push(stand);
        set.emit(f, kind, base, finish, out);
    }
}

/// Entry counts by the occupancy of the cells entries cross, when those are a run of at most
/// `MAX_TABLE_BITS` consecutive cell indices (true of every bundled course).
#[derive(Clone, Debug)]
pub(crate) struct EntryTable {
    pub shift: u32,
    pub mask: u64,
    /// `[kind][pattern]`: the number of distinct entry moves.
    pub count: [Vec<u8>; 3],
}

const MAX_TABLE_BITS: u32 = 14;

/// The moves of a waiting piece of `kind` with occupancy `occ`, computed from the entry ways.
#[inline]
pub(crate) fn entry_moves(course: &Course, kind: usize, occ: u64, out: &mut PieceMoves) {
    for way in &course.entries[kind] {
        if way.ray.path & occ == 0 {
            add_ray(out, &way.ray, kind, way.dir.index());
        }
    }
}

impl EntryTable {
    pub fn build(course: &Course) -> Option<EntryTable> {
        let all = course
            .entries
            .iter()
            .flatten()
            .fold(0u64, |m, w| m | w.ray.path);
        if all == 0 {
            return None;
        }
        let shift = all.trailing_zeros();
        let bits = 64 - (all >> shift).leading_zeros();
        if bits > MAX_TABLE_BITS {
            return None;
        }
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let count = std::array::from_fn(|kind| {
            (0..=mask)
                .map(|p| {
                    let mut pm = PieceMoves::new();
                    entry_moves(course, kind, p << shift, &mut pm);
                    pm.count() as u8
                })
                .collect()
        });
        Some(EntryTable { shift, mask, count })
    }

    #[inline(always)]
    pub fn count(&self, kind: usize, occ: u64) -> u32 {
        self.count[kind][((occ >> self.shift) & self.mask) as usize] as u32
    }
}

/// Fast-path tables of a game.
#[derive(Clone, Debug)]
pub(crate) struct Tables {
    /// `[cell][kind]`, indexed by the state's cell byte: entries past the course's cells
    /// (finished pieces are cell `0xFF`) have no slides.
    pub sets: Box<[[SlideSet; 3]; 256]>,
    pub entries: Option<EntryTable>,
    /// Zobrist keys `[slot * stride + code]`, `code` = `cell * 9 + facing` on the course,
    /// `9 n` finished, `9 n + 1` waiting.
    pub zobrist: Vec<u64>,
    pub stride: usize,
}

impl Tables {
    pub fn build(course: &Course) -> Tables {
        let mut sets = vec![[SlideSet::EMPTY; 3]; 256];
        for (cell, per_kind) in course.slides.iter().enumerate() {
            sets[cell] = std::array::from_fn(|k| SlideSet::new(&per_kind[k], k));
        }
        let sets: Box<[[SlideSet; 3]; 256]> = sets.into_boxed_slice().try_into().expect("256 sets");
        let stride = 9 * course.len() + 2;
        let zobrist = (0..MAX_PLAYERS * PIECES * stride)
            .map(|i| {
                splitmix64(
                    0x6D61_7261_7468_6F6E ^ ((i / stride) as u64) << 16 ^ (i % stride) as u64,
                )
            })
            .collect();
        Tables {
            sets,
            entries: EntryTable::build(course),
            zobrist,
            stride,
        }
    }

    /// The slides of a piece of `kind` on `cell` (none for a finished piece, cell `0xFF`).
    #[inline(always)]
    pub fn set(&self, cell: u8, kind: usize) -> &SlideSet {
        &self.sets[cell as usize][kind.min(2)]
    }
}

/// The moves of one piece, as results: for each cell a 9-bit mask (bits 0..8 lying facings,
/// bit 8 upright), plus finishing. Iterating cells upward then bits upward gives ascending
/// actions.
#[derive(Clone, Copy)]
pub(crate) struct PieceMoves {
    pub cells: u64,
    pub masks: [u16; MAX_CELLS],
    pub finish: bool,
}

impl PieceMoves {
    #[inline]
    pub(crate) fn new() -> Self {
        PieceMoves {
            cells: 0,
            masks: [0; MAX_CELLS],
            finish: false,
        }
    }

    #[inline]
    pub(super) fn add(&mut self, cell: u8, mask: u16) {
        let bit = 1u64 << cell;
        if self.cells & bit == 0 {
            self.cells |= bit;
            self.masks[cell as usize] = mask;
        } else {
            self.masks[cell as usize] |= mask;
        }
    }

    #[inline]
    pub fn count(&self) -> u32 {
        let mut n = self.finish as u32;
        let mut cells = self.cells;
        while cells != 0 {
            n += self.masks[cells.trailing_zeros() as usize].count_ones();
            cells &= cells - 1;
        }
        n
    }

    /// The `index`-th result in ascending order (`index < count()`).
    #[inline]
    pub(crate) fn nth(&self, mut index: u32, n_cells: u32) -> u32 {
        let mut cells = self.cells;
        while cells != 0 {
            let c = cells.trailing_zeros();
            let mut m = self.masks[c as usize];
            let k = m.count_ones();
            if index < k {
                for _ in 0..index {
                    m &= m - 1;
                }
                return c * 9 + m.trailing_zeros();
            }
            index -= k;
            cells &= cells - 1;
        }
        debug_assert!(self.finish && index == 0);
        9 * n_cells
    }
}

/// The facings a piece may end with after a full slide of its distance in direction `d`:
/// `FACINGS[kind][d]`, bits 0..8.
pub(crate) const FACINGS: [[u16; 8]; 3] = {
    let mut t = [[0u16; 8]; 3];
    let mut k = 0;
    while k < 3 {
        let mut d = 0;
        while d < 8 {
            let mut m = 0u16;
            let mut s = -(k as i32 + 1);
            while s <= k as i32 + 1 {
                m |= 1 << ((d as i32 + s).rem_euclid(8));
                s += 1;
            }
            t[k][d] = m;
            d += 1;
        }
        k += 1;
    }
    t
};

/// Adds the results of a free ray in direction `d` to `out`.
#[inline]
pub(crate) fn add_ray(out: &mut PieceMoves, ray: &Ray, kind: usize, d: usize) {
    match ray.outcome {
        Outcome::Full => out.add(ray.end, FACINGS[kind][d]),
        Outcome::Stop => out.add(ray.end, 1 << UPRIGHT),
        Outcome::Finish => out.finish = true,
        Outcome::None => {}
    }
}
