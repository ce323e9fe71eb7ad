//! Penguin Marathon (rules: `RULES.md`, game 2).
//!
//! A [`MarathonGame`] holds the rules (course, players, ply limit); a [`MarathonState`] is a
//! small `Copy` value: occupancy as a `u64` bitboard over the course's cells, each piece's cell
//! and facing, the ply, the player to move, the winner and an incremental Zobrist-style hash.
//!
//! # Action encoding
//!
//! An action names the piece (by kind; its owner is the player to move) and the piece's state
//! after the move, which identifies the move uniquely (two ways to reach the same position are the
//! same move). With `n` course cells, `R = 9 n + 1` and the cells numbered in row-major order of
//! the map:
//!
//! ```text
//! action = kind * R + result         kind: 0 mama, 1 papa, 2 baby
//! result = cell * 9 + facing         lying on `cell`, facing 0..=7 = N, NE, E, SE, S, SW, W, NW
//!        = cell * 9 + 8              upright on `cell` (a stand, or a stop at a side edge)
//!        = 9 n                       finished
//! ```
//!
//! so [`MarathonGame::num_actions`](crate::game::Game::num_actions) is `3 R` (975 on the standard
//! course).
//!
//! # Notation
//!
//! See [`MarathonMove`]: `B 0,1 S 3,1 SE`, `P 4,1 stand`, `M -1,0 SE 0,1 E`, `B 10,1 S finish`.

mod config;
mod course;
pub mod eval;
mod game;
pub mod io;
pub mod json;
mod movegen;
mod moves;
mod piece;
pub mod playout;
mod render;
mod state;
pub mod symmetry;

#[cfg(test)]
mod tests;

pub use config::{bundled_names, Config};
pub use course::{Course, Dir, MAX_CELLS, MAX_MAP_BYTES, MAX_MAP_COLUMNS, MAX_MAP_LINES};
pub use game::MarathonGame;
pub use moves::MarathonMove;
pub use piece::{Piece, Place};
pub use state::{Kind, MarathonState, DEFAULT_PLY_LIMIT, MAX_PLAYERS, PIECES};

/// The old name of [`MarathonGame`].
pub type Marathon = MarathonGame;
/// The old name of [`MarathonState`].
pub type State = MarathonState;
/// The old name of [`MarathonMove`].
pub type Move = MarathonMove;
