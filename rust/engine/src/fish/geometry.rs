//! The 64-bit geometry tables of boards with at most 64 grid cells (the standard 8x8 among
//! them). Dropping the padding column of the board's layout (`cell = row * cols + col`) makes
//! such a board fit a `u64`; slides only need the ray tables, never a shift, so the padding is
//! not missed, and every operation works on half-width words. The playout kernels
//! (`super::playout`) run on these tables.

use super::bitboard::Bitboard;

/// The ray tables of a grid of at most 64 cells, in the unpadded layout.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Narrow {
    /// `rays[cell][dir]` as in the board's own tables, in [`super::Direction::ALL`] order.
    pub(super) rays: [[u64; 6]; 64],
    /// The same with the rays that run to lower indices bit-reversed: they then run to higher
    /// ones too, and every ray is cut the cheap way (below its lowest blocker).
    pub(super) rays_up: [[u64; 6]; 64],
    pub(super) adjacent: [u64; 64],
    rows: u8,
    cols: u8,
}

/// Directions whose rays run to higher cell indices (E, SW, SE).
pub(super) const INCREASING: [bool; 6] = [true, false, false, false, true, true];

impl Narrow {
    /// The tables of a `rows` x `cols` grid (at most 64 cells) from each grid cell's dense index
    /// (`row * cols + col`), its six rays and its neighbours in the padded layout.
    pub(crate) fn new(
        rows: usize,
        cols: usize,
        cells: impl Iterator<Item = (usize, [Bitboard; 6], Bitboard)>,
    ) -> Narrow {
        debug_assert!(rows * cols <= 64);
        let mut narrow = Narrow {
            rays: [[0; 6]; 64],
            rays_up: [[0; 6]; 64],
            adjacent: [0; 64],
            rows: rows as u8,
            cols: cols as u8,
        };
        for (i, rays, adjacent) in cells {
            for (d, &ray) in rays.iter().enumerate() {
                narrow.rays[i][d] = narrow.pack(ray);
                narrow.rays_up[i][d] = if INCREASING[d] {
                    narrow.rays[i][d]
                } else {
                    narrow.rays[i][d].reverse_bits()
                };
            }
            narrow.adjacent[i] = narrow.pack(adjacent);
        }
        narrow
    }

    /// A padded bitboard in the unpadded layout: one masked shift per row.
    #[inline]
    pub(crate) fn pack(&self, bb: Bitboard) -> u64 {
        if bb.is_empty() {
            return 0;
        }
        let (cols, stride) = (self.cols as u32, self.cols as u32 + 1);
        let row_mask = (1u64 << cols) - 1;
        (0..self.rows as u32).fold(0, |out, r| {
            out | ((bb.0 >> (r * stride)) as u64 & row_mask) << (r * cols)
        })
    }

    /// The cells a penguin on `from` reaches in direction `d`.
    #[inline(always)]
    pub(super) fn slide(&self, from: usize, d: usize, empty: u64) -> u64 {
        let ray = self.rays[from][d];
        let blockers = ray & !empty;
        if INCREASING[d] {
            // Everything below the lowest blocker.
            ray & (blockers & blockers.wrapping_neg()).wrapping_sub(1)
        } else if blockers == 0 {
            ray
        } else {
            // Everything above the highest blocker.
            ray & (!1u64 << (63 - blockers.leading_zeros()))
        }
    }

    /// The nearest cell of `cells` on the ray from `from` in direction `d`, when `cells` holds
    /// some cell of that ray.
    #[inline(always)]
    pub(super) fn nearest(&self, from: usize, d: usize, cells: u64) -> usize {
        let hits = self.rays[from][d] & cells;
        if INCREASING[d] {
            hits.trailing_zeros() as usize
        } else {
            63 - hits.leading_zeros() as usize
        }
    }
}
