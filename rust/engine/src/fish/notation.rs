//! Text notation of cells and moves. A cell is its column letter and its 1-based row, row 1 at
//! the top: `(0, 0)` is `a1`, `(2, 3)` is `d3`. A placement is one cell (`d3`), a slide two
//! cells joined by a dash (`a1-c1`).

use super::bitboard::Cell;
use super::board::Board;
use super::moves::FishMove;
use crate::error::{quote, Error, Result};

/// The name of a cell: its column letter and row counted from 1 (`(0, 0)` is `a1`).
pub fn cell_name(board: &Board, cell: Cell) -> String {
    let (r, c) = board.coords(cell);
    format!("{}{}", (b'a' + c as u8) as char, r + 1)
}

/// The notation of a move: `d3` for a placement, `a1-c1` for a slide.
pub fn move_name(board: &Board, mv: FishMove) -> String {
    match mv {
        FishMove::Place(cell) => cell_name(board, cell),
        FishMove::Slide(from, to) => format!("{}-{}", cell_name(board, from), cell_name(board, to)),
    }
}

/// Reads a cell name such as `c4`.
///
/// # Errors
/// `Error::Parse` for text that is not a cell name, or a cell off the board.
pub fn parse_cell(board: &Board, text: &str) -> Result<Cell> {
    let bad = || {
        Error::Parse(format!(
            "invalid cell {}: expected a column letter and a row number, like \"c4\"",
            quote(text)
        ))
    };
    let mut chars = text.chars();
    let letter = chars
        .next()
        .filter(char::is_ascii_lowercase)
        .ok_or_else(bad)?;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let row: i64 = digits.parse().map_err(|_| bad())?;
    let col = (letter as u8 - b'a') as i64;
    board.cell(row - 1, col).ok_or_else(|| {
        Error::Parse(format!(
            "cell {} is off the board ({} rows, columns a-{})",
            quote(text),
            board.rows(),
            (b'a' + board.cols() as u8 - 1) as char
        ))
    })
}

/// Reads a move: a cell (a placement) or two cells joined by a dash (a slide).
///
/// # Errors
/// `Error::Parse` as [`parse_cell`], for either cell.
pub fn parse_move(board: &Board, text: &str) -> Result<FishMove> {
    let text = text.trim();
    match text.split_once('-') {
        None => Ok(FishMove::Place(parse_cell(board, text)?)),
        Some((from, to)) => Ok(FishMove::Slide(
            parse_cell(board, from)?,
            parse_cell(board, to)?,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip() {
        let board = Board::standard(0);
        for cell in board.cells() {
            assert_eq!(parse_cell(&board, &cell_name(&board, cell)).unwrap(), cell);
        }
        assert_eq!(cell_name(&board, board.cell(2, 3).unwrap()), "d3");
        assert!(parse_cell(&board, "i1").is_err());
        assert!(parse_cell(&board, "a0").is_err());
        assert!(parse_cell(&board, "a9").is_err());
        assert!(parse_cell(&board, "A1").is_err());
        assert!(parse_cell(&board, "a").is_err());
        assert!(parse_cell(&board, "a-1").is_err());
    }

    #[test]
    fn errors_quote_little_of_a_huge_move() {
        let board = Board::standard(0);
        let huge = "x".repeat(1_400_000);
        for text in [huge.clone(), format!("a1-{huge}"), format!("a{}", "9".repeat(100_000))] {
            let e = parse_move(&board, &text).unwrap_err().to_string();
            assert!(e.len() < 400, "{}", e.len());
        }
    }
}
