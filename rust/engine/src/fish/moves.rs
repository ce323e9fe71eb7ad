//! [`FishMove`]: a move as people see it (the action space is in [`super::board`]).

use super::bitboard::Cell;

/// A move: placing a penguin, or sliding one from a cell to another.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FishMove {
    /// A penguin placed on a cell.
    Place(Cell),
    /// A penguin sliding from the first cell to the second.
    Slide(Cell, Cell),
}
