//! A set of cells as the bits of a machine word, in the row-major layout of [`super::Board`]
//! (cell index = `row * cols + col`, no padding). The word is chosen per board: a `u64` for
//! boards of at most 64 cells (the standard 8x8 among them), a `u128` up to 128 cells and
//! [`Wide`] (sixteen `u64`s) up to [`MAX_CELLS`]. Everything that knows the board's shape
//! (neighbours, rays) lives in the board; a bitboard is only a set.

use std::fmt;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

/// A cell index in the layout of [`super::Board`] (`0..rows * cols`).
pub type Cell = u16;

/// The most cells a board may have: the width of the widest word.
pub const MAX_CELLS: usize = 1024;

/// The storage of a bitboard: a fixed-width set of bits. Implemented by `u64`, `u128` and
/// [`Wide`]; search and the rules are generic over it, so the standard board runs on `u64`.
pub trait Word:
    Copy
    + Eq
    + Hash
    + Default
    + fmt::Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
{
    /// The number of bits (the most cells a board on this word may have).
    const BITS: usize;
    /// No bit set.
    const ZERO: Self;
    /// A short name for messages and benchmarks.
    const NAME: &'static str;

    /// Bit `i` alone (`i < BITS`).
    fn bit(i: usize) -> Self;
    /// Whether bit `i` is set.
    fn test(self, i: usize) -> bool;
    /// The number of bits set.
    fn count(self) -> u32;
    /// The lowest bit set, `None` when none is.
    fn lowest(self) -> Option<usize>;
    /// The highest bit set, `None` when none is.
    fn highest(self) -> Option<usize>;
    /// The word without its lowest bit.
    fn clear_lowest(self) -> Self;
    /// Every bit below the lowest bit set (all bits when none is set).
    fn below_lowest(self) -> Self;
    /// Every bit above the highest bit set (all bits when none is set).
    fn above_highest(self) -> Self;
    /// Shifted towards higher bits by `n < BITS`.
    fn shl(self, n: u32) -> Self;
    /// Shifted towards lower bits by `n < BITS`.
    fn shr(self, n: u32) -> Self;
    /// Bits `0..64`.
    fn low_u64(self) -> u64;
    /// The bits in reverse order (bit `i` moves to `BITS - 1 - i`).
    fn reverse(self) -> Self;
    /// The `n`-th lowest bit set, `None` when `n >= count()`.
    fn nth(self, n: u32) -> Option<usize>;
    /// Whether no bit is set.
    #[inline]
    fn is_zero(self) -> bool {
        self == Self::ZERO
    }
}

macro_rules! primitive_word {
    ($t:ty, $name:literal) => {
        impl Word for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            const NAME: &'static str = $name;

            #[inline(always)]
            fn bit(i: usize) -> Self {
                1 << i
            }
            #[inline(always)]
            fn test(self, i: usize) -> bool {
                self >> i & 1 != 0
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(self) -> Option<usize> {
                (self != 0).then(|| self.trailing_zeros() as usize)
            }
            #[inline(always)]
            fn highest(self) -> Option<usize> {
                (self != 0).then(|| (<$t>::BITS - 1 - self.leading_zeros()) as usize)
            }
            #[inline(always)]
            fn clear_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
            #[inline(always)]
            fn below_lowest(self) -> Self {
                (self & self.wrapping_neg()).wrapping_sub(1)
            }
            #[inline(always)]
            fn above_highest(self) -> Self {
                // No bit set: `leading_zeros` is the width, and the shift gives 0.
                !<$t>::MAX.checked_shr(self.leading_zeros()).unwrap_or(0)
            }
            #[inline(always)]
            fn shl(self, n: u32) -> Self {
                self << n
            }
            #[inline(always)]
            fn shr(self, n: u32) -> Self {
                self >> n
            }
            #[inline(always)]
            fn low_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn reverse(self) -> Self {
                self.reverse_bits()
            }
            #[inline]
            fn nth(self, n: u32) -> Option<usize> {
                nth_u64_words(&word_parts(self), n)
            }
        }
    };
}

/// The `u64` words of a primitive word, lowest first.
#[inline(always)]
fn word_parts<T: Into<u128>>(w: T) -> [u64; 2] {
    let w: u128 = w.into();
    [w as u64, (w >> 64) as u64]
}

/// The `n`-th lowest bit set across `words` (lowest word first).
#[inline]
fn nth_u64_words(words: &[u64], mut n: u32) -> Option<usize> {
    for (i, &w) in words.iter().enumerate() {
        let c = w.count_ones();
        if n < c {
            let mut w = w;
            for _ in 0..n {
                w &= w - 1;
            }
            return Some(i * 64 + w.trailing_zeros() as usize);
        }
        n -= c;
    }
    None
}

primitive_word!(u64, "u64");
primitive_word!(u128, "u128");

/// `N` 64-bit words as one word of `64 N` bits, lowest word first: the storage of boards with
/// more than 128 cells. Plain loops: these boards are rare and large.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Wide([0; N])
    }
}

impl<const N: usize> fmt::Debug for Wide<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Wide(")?;
        for w in self.0.iter().rev() {
            write!(f, "{w:016x}")?;
        }
        write!(f, ")")
    }
}

macro_rules! wide_op {
    ($trait:ident, $fn:ident, $op:tt) => {
        impl<const N: usize> $trait for Wide<N> {
            type Output = Self;
            #[inline]
            fn $fn(self, rhs: Self) -> Self {
                Wide(std::array::from_fn(|i| self.0[i] $op rhs.0[i]))
            }
        }
    };
}

wide_op!(BitAnd, bitand, &);
wide_op!(BitOr, bitor, |);
wide_op!(BitXor, bitxor, ^);

impl<const N: usize> Not for Wide<N> {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        Wide(self.0.map(|w| !w))
    }
}

impl<const N: usize> Word for Wide<N> {
    const BITS: usize = 64 * N;
    const ZERO: Self = Wide([0; N]);
    const NAME: &'static str = "wide";

    #[inline]
    fn bit(i: usize) -> Self {
        let mut w = Self::ZERO;
        w.0[i / 64] = 1 << (i % 64);
        w
    }
    #[inline]
    fn test(self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
    #[inline]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn lowest(self) -> Option<usize> {
        let i = self.0.iter().position(|&w| w != 0)?;
        Some(i * 64 + self.0[i].trailing_zeros() as usize)
    }
    #[inline]
    fn highest(self) -> Option<usize> {
        let i = self.0.iter().rposition(|&w| w != 0)?;
        Some(i * 64 + 63 - self.0[i].leading_zeros() as usize)
    }
    #[inline]
    fn clear_lowest(self) -> Self {
        let mut w = self;
        if let Some(i) = w.0.iter().position(|&x| x != 0) {
            w.0[i] &= w.0[i] - 1;
        }
        w
    }
    #[inline]
    fn below_lowest(self) -> Self {
        match self.lowest() {
            None => !Self::ZERO,
            Some(b) => Wide(std::array::from_fn(|i| {
                if i * 64 + 63 < b {
                    !0
                } else if i * 64 > b {
                    0
                } else {
                    (1u64 << (b - i * 64)) - 1
                }
            })),
        }
    }
    #[inline]
    fn above_highest(self) -> Self {
        match self.highest() {
            None => !Self::ZERO,
            Some(b) => Wide(std::array::from_fn(|i| {
                if i * 64 > b {
                    !0
                } else if i * 64 + 63 <= b {
                    0
                } else {
                    !0u64 << (b - i * 64) << 1
                }
            })),
        }
    }
    #[inline]
    fn shl(self, n: u32) -> Self {
        let (words, bits) = ((n / 64) as usize, n % 64);
        Wide(std::array::from_fn(|i| {
            if i < words {
                return 0;
            }
            let lo = self.0[i - words];
            let carry = if bits == 0 || i == words {
                0
            } else {
                self.0[i - words - 1] >> (64 - bits)
            };
            lo << bits | carry
        }))
    }
    #[inline]
    fn shr(self, n: u32) -> Self {
        let (words, bits) = ((n / 64) as usize, n % 64);
        Wide(std::array::from_fn(|i| {
            if i + words >= N {
                return 0;
            }
            let hi = self.0[i + words];
            let carry = if bits == 0 || i + words + 1 >= N {
                0
            } else {
                self.0[i + words + 1] << (64 - bits)
            };
            hi >> bits | carry
        }))
    }
    #[inline]
    fn low_u64(self) -> u64 {
        self.0[0]
    }
    #[inline]
    fn reverse(self) -> Self {
        Wide(std::array::from_fn(|i| self.0[N - 1 - i].reverse_bits()))
    }
    #[inline]
    fn nth(self, n: u32) -> Option<usize> {
        nth_u64_words(&self.0, n)
    }
}

/// The word of boards with more than 128 cells: [`MAX_CELLS`] bits.
pub type W1024 = Wide<16>;

/// A set of cells: bit `cell` of the word is set when the cell is in the set. Set operations
/// are the bit operators (`-` is the set difference); `for cell in bitboard` walks the cells,
/// lowest first.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Bitboard<W: Word = u64>(pub W);

impl<W: Word> Bitboard<W> {
    /// The empty set.
    pub const EMPTY: Self = Bitboard(W::ZERO);

    /// The set of one cell.
    #[inline]
    pub fn from_cell(cell: Cell) -> Self {
        Bitboard(W::bit(cell as usize))
    }

    /// Whether `cell` is in the set (false for a cell beyond the word).
    #[inline]
    pub fn contains(self, cell: Cell) -> bool {
        (cell as usize) < W::BITS && self.0.test(cell as usize)
    }

    /// The set with `cell` added.
    #[inline]
    pub fn with(self, cell: Cell) -> Self {
        Bitboard(self.0 | W::bit(cell as usize))
    }

    /// The set with `cell` removed.
    #[inline]
    pub fn without(self, cell: Cell) -> Self {
        Bitboard(self.0 & !W::bit(cell as usize))
    }

    /// Whether the set has no cell.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0.is_zero()
    }

    /// Whether the set has a cell.
    #[inline]
    pub fn any(self) -> bool {
        !self.0.is_zero()
    }

    /// The number of cells in the set.
    #[inline]
    pub fn count(self) -> u32 {
        self.0.count()
    }

    /// Whether the two sets share a cell.
    #[inline]
    pub fn intersects(self, other: Self) -> bool {
        !(self.0 & other.0).is_zero()
    }

    /// Whether every cell of the set is in `other`.
    #[inline]
    pub fn is_subset(self, other: Self) -> bool {
        (self.0 & !other.0).is_zero()
    }

    /// The lowest cell, if any.
    #[inline]
    pub fn first(self) -> Option<Cell> {
        self.0.lowest().map(|c| c as Cell)
    }

    /// The highest cell, if any.
    #[inline]
    pub fn last(self) -> Option<Cell> {
        self.0.highest().map(|c| c as Cell)
    }

    /// The `n`-th lowest cell, counting from 0; `None` when `n >= count()`.
    #[inline]
    pub fn nth(self, n: u32) -> Option<Cell> {
        self.0.nth(n).map(|c| c as Cell)
    }
}

/// The cells of a [`Bitboard`], lowest first: what `for cell in bitboard` walks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cells<W: Word>(W);

impl<W: Word> Iterator for Cells<W> {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        let cell = self.0.lowest()?;
        self.0 = self.0.clear_lowest();
        Some(cell as Cell)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }

    #[inline]
    fn count(self) -> usize {
        self.0.count() as usize
    }
}

impl<W: Word> ExactSizeIterator for Cells<W> {}

impl<W: Word> std::iter::FusedIterator for Cells<W> {}

impl<W: Word> IntoIterator for Bitboard<W> {
    type Item = Cell;
    type IntoIter = Cells<W>;

    #[inline]
    fn into_iter(self) -> Cells<W> {
        Cells(self.0)
    }
}

impl<W: Word> IntoIterator for &Bitboard<W> {
    type Item = Cell;
    type IntoIter = Cells<W>;

    #[inline]
    fn into_iter(self) -> Cells<W> {
        Cells(self.0)
    }
}

impl<W: Word> FromIterator<Cell> for Bitboard<W> {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> Self {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl<W: Word> $trait for Bitboard<W> {
            type Output = Self;
            #[inline]
            fn $fn(self, rhs: Self) -> Self {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl<W: Word> $assign_trait for Bitboard<W> {
            #[inline]
            fn $assign_fn(&mut self, rhs: Self) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl<W: Word> Sub for Bitboard<W> {
    type Output = Self;
    /// Set difference.
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Bitboard(self.0 & !rhs.0)
    }
}

impl<W: Word> Not for Bitboard<W> {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        Bitboard(!self.0)
    }
}

/// Draws the set as a grid of `x` (in the set) and `.` in the layout of the standard board
/// (8 columns, even rows shifted half a hex to the right), one line per row up to the last row
/// with a cell in the set (8 at least). [`super::Board::picture`] draws a set in the shape of
/// any board.
///
/// ```
/// use pingvinas_engine::fish::Bitboard;
/// let bb = Bitboard::<u64>::from_cell(0).with(9);
/// assert!(format!("{bb:?}").starts_with("Bitboard(\n   x . . . . . . .\n  . x . . ."));
/// ```
impl<W: Word> fmt::Debug for Bitboard<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const COLS: usize = 8;
        let last_row = self.last().map_or(0, |c| c as usize / COLS);
        f.write_str("Bitboard(\n")?;
        for row in 0..(last_row + 1).max(8) {
            f.write_str(if row % 2 == 0 { "   " } else { "  " })?;
            for col in 0..COLS {
                let cell = row * COLS + col;
                let mark = if cell < W::BITS && self.contains(cell as Cell) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation of [`Wide`] against the same on `u128` (two words).
    #[test]
    fn wide_words_match_u128() {
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..5000 {
            let a = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            // Sparse words too, so that the empty and single-bit cases occur.
            let a = match rng.below(4) {
                0 => 0,
                1 => 1 << rng.below(128),
                2 => a & (rng.next_u64() as u128) << 64,
                _ => a,
            };
            let w = Wide::<2>([a as u64, (a >> 64) as u64]);
            let back = |w: Wide<2>| w.0[0] as u128 | (w.0[1] as u128) << 64;
            let n = rng.below(128) as u32;
            assert_eq!(back(w.shl(n)), a.shl(n));
            assert_eq!(back(w.shr(n)), a.shr(n));
            assert_eq!(back(w.below_lowest()), a.below_lowest());
            assert_eq!(back(w.above_highest()), a.above_highest(), "{a:x}");
            assert_eq!(back(w.clear_lowest()), a.clear_lowest());
            assert_eq!(w.lowest(), a.lowest());
            assert_eq!(w.highest(), a.highest());
            assert_eq!(w.count(), a.count());
            assert_eq!(w.nth(n % 8), a.nth(n % 8));
            assert_eq!(w.test(n as usize), a.test(n as usize));
            assert_eq!(back(w.reverse()), a.reverse());
        }
        assert_eq!(0u64.above_highest(), !0);
        assert_eq!(0b100u64.above_highest(), !0b111);
        assert_eq!(0b100u64.below_lowest(), 0b11);
    }
}
