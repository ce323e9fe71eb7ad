//! Rules engines and search for two penguin board games: **Fish** ("Hey, That's My Fish!") and
//! **Penguin Marathon**. Pure Rust, no Python: the `pingvinas-bindings` crate binds it.
//!
//! Both games implement [`game::Game`]: a game value (rules, board, course) plus a small `Copy`
//! state, so search copies states freely and is written once for both games.

#![warn(missing_docs)]

pub mod batch;
pub mod config;
pub mod error;
pub mod every_game;
pub mod fish;
pub mod game;
pub mod io;
pub mod marathon;
pub mod memory;
mod names;
pub mod net;
pub mod perft;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod symmetry;
pub mod threads;
pub mod variants;
pub mod vector;

pub use error::{Error, Result};
pub use every_game::{AnyGame, AnySource, AnyState, Concrete};
pub use game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
pub use io::GameIo;
