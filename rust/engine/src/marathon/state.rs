//! A Penguin Marathon position ([`MarathonState`]) and the pieces it holds ([`Kind`]).

use crate::rng::splitmix64;

/// The most players.
pub const MAX_PLAYERS: usize = 5;
/// Pieces per player.
pub const PIECES: usize = 3;
/// The default ply limit.
pub const DEFAULT_PLY_LIMIT: u32 = 500;

/// `MarathonState::cell` of a piece that has not entered yet.
pub(super) const WAITING: u8 = 0xFE;
/// `MarathonState::cell` of a piece that has finished.
pub(super) const FINISHED: u8 = 0xFF;
/// `MarathonState::facing` of an upright (or waiting, or finished) piece.
pub(super) const UPRIGHT: u8 = 8;
/// `MarathonState::to_move` / `MarathonState::winner` for none.
pub(super) const NOBODY: u8 = 0xFF;

/// A family member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// The large pyramid: slides exactly 1 cell.
    Mama = 0,
    /// The medium pyramid: slides exactly 2 cells.
    Papa = 1,
    /// The small pyramid: slides exactly 3 cells.
    Baby = 2,
}

impl Kind {
    /// The three kinds, by size: mama, papa, baby (their index order).
    pub const ALL: [Kind; 3] = [Kind::Mama, Kind::Papa, Kind::Baby];

    /// The kind's index in [`Kind::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind of an index of [`Kind::ALL`] (panics for `i >= 3`).
    pub const fn from_index(i: usize) -> Kind {
        Kind::ALL[i]
    }

    /// Cells slid: 1, 2 or 3.
    #[inline]
    pub const fn distance(self) -> u32 {
        self as u32 + 1
    }

    /// `"mama"`, `"papa"`, `"baby"`.
    pub const fn name(self) -> &'static str {
        ["mama", "papa", "baby"][self as usize]
    }

    /// `'M'`, `'P'`, `'B'`.
    pub const fn letter(self) -> char {
        ['M', 'P', 'B'][self as usize]
    }

    /// Reads `"mama"`, `"M"`, … (case-insensitive).
    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| {
            text.eq_ignore_ascii_case(k.name())
                || text.eq_ignore_ascii_case(&k.letter().to_string())
        })
    }
}

impl std::fmt::Display for Kind {
    /// `mama`, `papa`, `baby`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Kind {
    type Err = crate::error::Error;

    /// Reads `"mama"`, `"M"`, … (case-insensitive), as [`Kind::parse`].
    fn from_str(text: &str) -> crate::error::Result<Kind> {
        Kind::parse(text).ok_or_else(|| {
            crate::error::Error::Parse(format!(
                "{text:?}: expected a piece kind (mama, papa, baby, or M, P, B)"
            ))
        })
    }
}

/// A position: small and `Copy` (56 bytes).
///
/// Equality compares everything, the ply included; [`Game::hash`](crate::game::Game::hash) covers the pieces and the
/// player to move (or the game being over) but not the ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MarathonState {
    /// Cells holding a piece.
    pub(super) occupied: u64,
    /// Zobrist-style hash, maintained incrementally.
    pub(super) hash: u64,
    /// Per piece (`player * 3 + kind`): its cell index, `WAITING` or `FINISHED`.
    pub(super) cell: [u8; MAX_PLAYERS * PIECES],
    /// Per piece: facing `0..8` when lying, `UPRIGHT` otherwise.
    pub(super) facing: [u8; MAX_PLAYERS * PIECES],
    pub(super) ply: u32,
    pub(super) to_move: u8,
    pub(super) winner: u8,
}

impl MarathonState {
    /// Actions played so far.
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The player to move; `None` when the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<usize> {
        (self.to_move != NOBODY).then_some(self.to_move as usize)
    }

    /// The player whose family came home first, if any.
    #[inline]
    pub fn winner(&self) -> Option<usize> {
        (self.winner != NOBODY).then_some(self.winner as usize)
    }

    /// Occupied cells, as a bitboard over the course's cell indices.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.occupied
    }
}

/// Zobrist keys of the player to move (`NOBODY` when over).
pub(super) const TURN_KEYS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = splitmix64(0x7475_726E_0000_0000 ^ i as u64);
        i += 1;
    }
    t
};

#[inline(always)]
pub(super) fn turn_key(to_move: u8) -> u64 {
    TURN_KEYS[to_move as usize]
}
