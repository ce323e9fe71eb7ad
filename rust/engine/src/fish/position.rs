//! Building positions from user input (puzzles, tests, JSON), with every input checked.

use super::bitboard::MAX_CELLS;
use super::bitboard::{Bitboard, Cell, Word};
use super::board::Board;
use super::rules::{Rules, MAX_FISH_PLAYERS};
use super::state::{FishGame, FishState, NOBODY};
use crate::error::invalid;
use crate::error::Result;

/// The most fish a player may have in a position given by hand: with the board's own fish (at
/// most [`super::board::MAX_BOARD_FISH`]), every score stays within a `u16`.
pub const MAX_START_FISH: u16 = 30_000;

impl<W: Word> FishGame<W> {
    /// The cell at `(row, col)` if it holds a floe of this board, with errors naming the cell.
    ///
    /// # Errors
    /// `Error::Invalid` for a cell off the grid or without a floe.
    pub fn floe_at(&self, row: i64, col: i64, what: &str) -> Result<Cell> {
        let board = self.board();
        let Some(cell) = board.cell(row, col) else {
            return invalid!(
                "{what} at ({row}, {col}) is off the board ({} rows x {} columns)",
                board.rows(),
                board.cols()
            );
        };
        if !board.floes().contains(cell) {
            return invalid!("{what} at ({row}, {col}) is on a gap (no floe)");
        }
        Ok(cell)
    }

    /// A movement-phase position: the penguins of each player (any number, none for a player
    /// already lifted: the variant's penguin count governs placement only) and who is to move.
    /// Unreachable
    /// floes are removed at once, and a player to move who cannot move lifts their penguins as
    /// the rules say, so the result is a normal position of the game.
    ///
    /// # Errors
    /// `Error::Invalid` for a position the rules or the engine's limits do not allow: cells off
    /// the board or without a floe, two penguins on one floe, too many penguins, a bad player
    /// to move, scores out of range.
    pub fn position(
        &self,
        penguins: &[Vec<(i64, i64)>],
        to_move: usize,
        scores: Option<&[(u16, u16)]>,
    ) -> Result<FishState<W>> {
        let mut s = self.lay_out(penguins, to_move, scores)?;
        self.normalize(&mut s, to_move);
        Ok(s)
    }

    /// The penguins and scores laid out as given, checked, with nothing automatic applied.
    pub(crate) fn lay_out(
        &self,
        penguins: &[Vec<(i64, i64)>],
        to_move: usize,
        scores: Option<&[(u16, u16)]>,
    ) -> Result<FishState<W>> {
        let rules = self.rules();
        if penguins.len() != rules.players() {
            return invalid!(
                "penguins: {} lists given, one per player expected ({} players)",
                penguins.len(),
                rules.players()
            );
        }
        if to_move >= rules.players() {
            return invalid!(
                "to_move = {to_move}: players are numbered 0 to {}",
                rules.players() - 1
            );
        }
        let mut s = FishState {
            floes: self.board().floes(),
            penguins: [Bitboard::<W>::EMPTY; MAX_FISH_PLAYERS],
            hash: 0,
            fish: [0; MAX_FISH_PLAYERS],
            taken: [0; MAX_FISH_PLAYERS],
            to_move: to_move as u8,
            turn: rules.placement_turns() as u8,
        };
        for (p, cells) in penguins.iter().enumerate() {
            for &(r, c) in cells {
                let cell = self.floe_at(r, c, &format!("a penguin of player {p}"))?;
                if s.occupied().contains(cell) {
                    return invalid!("two penguins on one floe at ({r}, {c})");
                }
                s.penguins[p] = s.penguins[p].with(cell);
            }
        }
        if let Some(scores) = scores {
            if scores.len() != rules.players() {
                return invalid!(
                    "scores: {} given, one (fish, floes) pair per player expected",
                    scores.len()
                );
            }
            for (p, &(f, t)) in scores.iter().enumerate() {
                // Bounds that keep every later addition within the counters' range.
                if f > MAX_START_FISH || t as usize > MAX_CELLS {
                    return invalid!(
                        "scores: ({f}, {t}) for player {p}: at most {MAX_START_FISH} fish and \
                         {MAX_CELLS} floes"
                    );
                }
                s.fish[p] = f;
                s.taken[p] = t;
            }
        }
        s.hash = self.hash_from_scratch(&s);
        Ok(s)
    }

    /// Applies the automatic rules to a movement-phase state: removes unreachable floes and
    /// passes the turn on from `first`, lifting stuck players.
    pub(crate) fn normalize(&self, s: &mut FishState<W>, first: usize) {
        self.remove_unreachable(s);
        self.pass_turn(s, first, true);
    }
}

/// Checks a board grid and rules together (used by configs and JSON).
///
/// # Errors
/// `Error::Invalid` for a bad grid (see [`Board::from_grid`]).
pub fn make_game<W: Word>(rules: Rules, grid: &[Vec<u8>]) -> Result<FishGame<W>> {
    Ok(FishGame::new(rules, Board::from_grid(grid)?))
}

impl<W: Word> FishState<W> {
    /// `true` when no player is to move.
    pub fn is_over(&self) -> bool {
        self.to_move == NOBODY
    }
}
