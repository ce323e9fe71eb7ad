//! The 64-bit tables of boards with at most 64 grid cells (the standard 8x8 among them), for
//! the random-playout kernels (`super::playout`): the rays as plain `u64`s, and the rays that
//! run to lower indices also bit-reversed, so that every ray is cut the cheap way.

/// The ray tables of a grid of at most 64 cells, in the unpadded layout.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Narrow {
    /// `rays[cell][dir]` as in the board's own tables, in [`super::Direction::ALL`] order.
    pub(super) rays: [[u64; 6]; 64],
    /// The same with the rays that run to lower indices bit-reversed: they then run to higher
    /// ones too, and every ray is cut the cheap way (below its lowest blocker).
    pub(super) rays_up: [[u64; 6]; 64],
    pub(super) adjacent: [u64; 64],
}

/// Directions whose rays run to higher cell indices (E, SW, SE).
pub(super) const INCREASING: [bool; 6] = [true, false, false, false, true, true];

impl Narrow {
    /// The tables of a grid of at most 64 cells from each cell's index, its six rays and its
    /// neighbours (the board's own tables, whose layout is the same).
    pub(crate) fn new(cells: impl Iterator<Item = (usize, [u64; 6], u64)>) -> Narrow {
        let mut narrow = Narrow {
            rays: [[0; 6]; 64],
            rays_up: [[0; 6]; 64],
            adjacent: [0; 64],
        };
        for (i, rays, adjacent) in cells {
            for (d, &ray) in rays.iter().enumerate() {
                narrow.rays[i][d] = ray;
                narrow.rays_up[i][d] = if INCREASING[d] {
                    ray
                } else {
                    ray.reverse_bits()
                };
            }
            narrow.adjacent[i] = adjacent;
        }
        narrow
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
