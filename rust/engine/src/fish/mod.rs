//! Fish ("Hey, That's My Fish!" / "Packeis am Pol"): board, rules, moves and playouts.
//!
//! The rules are generic over the bitboard word of the board ([`bitboard::Word`]); [`AnyFish`]
//! picks the narrowest word a board fits, so the standard board runs on `u64` everywhere.

pub mod any;
pub mod bitboard;
pub mod board;
pub mod eval;
mod geometry;
pub mod io;
pub mod json;
pub mod moves;
pub mod notation;
pub mod playout;
pub mod position;
pub mod rules;
mod solve_search;
pub mod solver;
pub mod state;
pub mod symmetry;
mod zobrist;

pub use any::{AnyFish, AnyFishState, Width};
pub use bitboard::{Bitboard, Cell, Wide, Word, MAX_CELLS, W1024};
pub use board::{Board, Direction};
pub use moves::FishMove;
pub use rules::{Config, Order, Placement, Policy, Rules, Scores};
pub use state::{FishGame, FishState, Phase, NOBODY};

#[cfg(test)]
mod tests;
