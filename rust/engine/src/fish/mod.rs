//! Fish ("Hey, That's My Fish!" / "Packeis am Pol"): board, rules, moves and playouts.

pub mod bitboard;
pub mod board;
pub mod io;
pub mod json;
pub mod narrow;
pub mod notation;
pub mod playout;
pub mod position;
pub mod rules;
pub mod state;
mod zobrist;

pub use bitboard::{Bitboard, Cell};
pub use board::{Board, Direction};
pub use rules::{Config, Order, Placement, Rules};
pub use state::{FishGame, FishMove, FishState, Phase, Policy, NOBODY};

#[cfg(test)]
mod tests;
