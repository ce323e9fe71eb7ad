//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable everywhere.

use super::bitboard::MAX_CELLS;
use crate::rng::splitmix64;

const fn table<const N: usize>(salt: u64) -> [u64; N] {
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = splitmix64(splitmix64(salt) ^ (i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        i += 1;
    }
    out
}

/// A floe is still on the board at this cell.
pub static FLOE: [u64; MAX_CELLS] = table(1);
/// A penguin of player `p` stands at this cell.
pub static PENGUIN: [[u64; MAX_CELLS]; 4] = [table(2), table(3), table(4), table(5)];
/// The player to move (index 4: nobody, the game is over).
pub const TO_MOVE: [u64; 5] = table(6);
/// Placement turns played so far.
pub const TURN: [u64; 33] = table(7);
