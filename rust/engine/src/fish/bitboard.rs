//! A set of cells as the bits of a `u128`, in the padded row-major layout of [`super::Board`]
//! (cell index = row * (cols + 1) + col; the extra column is always empty, so sideways shifts
//! cannot wrap into the next row).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

/// A cell index in the padded layout (`0..128`).
pub type Cell = u8;

#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u128);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    #[inline]
    pub const fn from_cell(cell: Cell) -> Self {
        Bitboard(1u128 << cell)
    }

    #[inline]
    pub const fn contains(self, cell: Cell) -> bool {
        self.0 >> cell & 1 != 0
    }

    #[inline]
    pub const fn with(self, cell: Cell) -> Self {
        Bitboard(self.0 | 1u128 << cell)
    }

    #[inline]
    pub const fn without(self, cell: Cell) -> Self {
        Bitboard(self.0 & !(1u128 << cell))
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

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

    /// The `n`-th lowest cell (`n < count()`).
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

impl Iterator for Bitboard {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        let cell = self.first()?;
        self.0 &= self.0 - 1;
        Some(cell)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

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

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#x})", self.0)
    }
}
