//! A set of cells as the bits of a `u128`, in the padded row-major layout of [`super::Board`]
//! (cell index = row * (cols + 1) + col; the extra column is always empty, so sideways shifts
//! cannot wrap into the next row).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

/// A cell index in the padded layout (`0..128`).
pub type Cell = u8;

/// A set of cells: bit `cell` of the `u128` is set when the cell is in the set. Set operations
/// are the bit operators (`-` is the set difference); `for cell in bitboard` walks the cells,
/// lowest first.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u128);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set of one cell.
    #[inline]
    pub const fn from_cell(cell: Cell) -> Self {
        Bitboard(1u128 << cell)
    }

    /// Whether `cell` is in the set.
    #[inline]
    pub const fn contains(self, cell: Cell) -> bool {
        self.0 >> cell & 1 != 0
    }

    /// The set with `cell` added.
    #[inline]
    pub const fn with(self, cell: Cell) -> Self {
        Bitboard(self.0 | 1u128 << cell)
    }

    /// The set with `cell` removed.
    #[inline]
    pub const fn without(self, cell: Cell) -> Self {
        Bitboard(self.0 & !(1u128 << cell))
    }

    /// Whether the set has no cell.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has a cell.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// The number of cells in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the two sets share a cell.
    #[inline]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every cell of the set is in `other`.
    #[inline]
    pub const fn is_subset(self, other: Bitboard) -> bool {
        self.0 & !other.0 == 0
    }

    /// The lowest cell, if any.
    #[inline]
    pub const fn first(self) -> Option<Cell> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros() as Cell)
        }
    }

    /// The highest cell, if any.
    #[inline]
    pub const fn last(self) -> Option<Cell> {
        if self.0 == 0 {
            None
        } else {
            Some(127 - self.0.leading_zeros() as Cell)
        }
    }

    /// The `n`-th lowest cell, counting from 0; `None` when `n >= count()`.
    #[inline]
    pub fn nth(self, mut n: u32) -> Option<Cell> {
        let (lo, hi) = (self.0 as u64, (self.0 >> 64) as u64);
        let (mut word, base) = if n < lo.count_ones() {
            (lo, 0)
        } else {
            n -= lo.count_ones();
            (hi, 64)
        };
        if n >= word.count_ones() {
            return None;
        }
        for _ in 0..n {
            word &= word - 1;
        }
        Some(base + word.trailing_zeros() as Cell)
    }
}

/// The cells of a [`Bitboard`], lowest first: what `for cell in bitboard` walks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cells(u128);

impl Iterator for Cells {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        if self.0 == 0 {
            return None;
        }
        let cell = self.0.trailing_zeros() as Cell;
        self.0 &= self.0 - 1;
        Some(cell)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }

    #[inline]
    fn count(self) -> usize {
        self.0.count_ones() as usize
    }
}

impl ExactSizeIterator for Cells {}

impl std::iter::FusedIterator for Cells {}

impl IntoIterator for Bitboard {
    type Item = Cell;
    type IntoIter = Cells;

    #[inline]
    fn into_iter(self) -> Cells {
        Cells(self.0)
    }
}

impl IntoIterator for &Bitboard {
    type Item = Cell;
    type IntoIter = Cells;

    #[inline]
    fn into_iter(self) -> Cells {
        Cells(self.0)
    }
}

impl FromIterator<Cell> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> Self {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// Draws the set as a grid of `x` (in the set) and `.` in the layout of the standard board
/// (8 columns and a padding column, even rows shifted half a hex to the right), one line per row
/// up to the last row with a cell in the set (8 at least); cells beyond the standard grid show
/// on the padding column and the extra rows. [`super::Board::picture`] draws a set in the shape
/// of any board.
///
/// ```
/// use pingvinas_engine::fish::Bitboard;
/// let bb = Bitboard::from_cell(0).with(10);
/// assert!(format!("{bb:?}").starts_with("Bitboard(\n   x . . . . . . . .\n  . x . . ."));
/// ```
impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const STRIDE: u32 = 9;
        let last_row = self.last().map_or(0, |c| c as u32 / STRIDE);
        f.write_str("Bitboard(\n")?;
        for row in 0..(last_row + 1).max(8) {
            f.write_str(if row % 2 == 0 { "   " } else { "  " })?;
            for col in 0..STRIDE {
                let cell = row * STRIDE + col;
                let mark = if cell < 128 && self.contains(cell as Cell) {
                    'x'
                } else {
                    '.'
                };
                write!(f, "{}{mark}", if col == 0 { "" } else { " " })?;
            }
            f.write_str("\n")?;
        }
        f.write_str(")")
    }
}
