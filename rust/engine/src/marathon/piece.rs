//! Pieces described for people: a [`Piece`] (owner, kind) and its [`Place`] (waiting, on a
//! cell upright or lying, finished). Below both the game ([`super::MarathonGame`] lists the pieces
//! of a state) and the moves (a move names the place a piece goes to): a type of its own, so that
//! `game.rs` and `moves.rs` do not use each other.

use super::course::Dir;
use super::state::Kind;

/// Where a piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Not entered yet.
    Waiting,
    /// On `cell` (`(row, col)`), lying pointed at `facing`, or upright when `None`.
    OnCourse {
        /// `(row, col)` of the cell.
        cell: (i32, i32),
        /// Where a lying piece points; `None` when upright.
        facing: Option<Dir>,
    },
    /// Across the finish line.
    Finished,
}

impl Place {
    /// `"waiting"`, `"on course"`, `"finished"`.
    pub fn status(&self) -> &'static str {
        match self {
            Place::Waiting => "waiting",
            Place::OnCourse { .. } => "on course",
            Place::Finished => "finished",
        }
    }

    /// The cell of a piece on the course.
    pub fn cell(&self) -> Option<(i32, i32)> {
        match *self {
            Place::OnCourse { cell, .. } => Some(cell),
            _ => None,
        }
    }

    /// The facing of a piece lying on the course (`None` when upright or off the course).
    pub fn facing(&self) -> Option<Dir> {
        match *self {
            Place::OnCourse { facing, .. } => facing,
            _ => None,
        }
    }
}

/// A piece and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The player who owns the piece.
    pub owner: usize,
    /// Mama, papa or baby.
    pub kind: Kind,
    /// Where it is.
    pub place: Place,
}
