//! Text notation of cells and moves. A cell is its column letters and its 1-based row, row 1 at
//! the top: `(0, 0)` is `a1`, `(2, 3)` is `d3`. Columns are named as in spreadsheets: `a` to
//! `z`, then `aa`, `ab`, ... (column 26 is `aa`). A placement is one cell (`d3`), a slide two
//! cells joined by a dash (`a1-c1`).

use super::bitboard::{Cell, Word};
use super::board::Board;
use super::moves::FishMove;
use crate::error::{quote, Error, Result};

/// The letters of column `col` (from 0): `a` to `z`, then `aa`, `ab`, ...
pub fn column_name(col: usize) -> String {
    let mut name = Vec::new();
    let mut c = col + 1;
    while c > 0 {
        c -= 1;
        name.push(b'a' + (c % 26) as u8);
        c /= 26;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII letters")
}

/// The name of a cell: its column letters and row counted from 1 (`(0, 0)` is `a1`).
pub fn cell_name<W: Word>(board: &Board<W>, cell: Cell) -> String {
    let (r, c) = board.coords(cell);
    format!("{}{}", column_name(c), r + 1)
}

/// The notation of a move: `d3` for a placement, `a1-c1` for a slide.
pub fn move_name<W: Word>(board: &Board<W>, mv: FishMove) -> String {
    match mv {
        FishMove::Place(cell) => cell_name(board, cell),
        FishMove::Slide(from, to) => format!("{}-{}", cell_name(board, from), cell_name(board, to)),
    }
}

/// Reads a cell name such as `c4`.
///
/// # Errors
/// `Error::Parse` for text that is not a cell name, or a cell off the board.
pub fn parse_cell<W: Word>(board: &Board<W>, text: &str) -> Result<Cell> {
    let bad = || {
        Error::Parse(format!(
            "invalid cell {}: expected column letters and a row number, like \"c4\"",
            quote(text)
        ))
    };
    let split = text
        .find(|ch: char| !ch.is_ascii_lowercase())
        .unwrap_or(text.len());
    let (letters, digits) = text.split_at(split);
    if letters.is_empty() || letters.len() > 3 {
        return Err(bad());
    }
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let row: i64 = digits.parse().map_err(|_| bad())?;
    let col = letters
        .bytes()
        .fold(0i64, |n, b| n * 26 + (b - b'a') as i64 + 1)
        - 1;
    board.cell(row - 1, col).ok_or_else(|| {
        Error::Parse(format!(
            "cell {} is off the board ({} rows, columns a-{})",
            quote(text),
            board.rows(),
            column_name(board.cols() - 1)
        ))
    })
}

/// Reads a move: a cell (a placement) or two cells joined by a dash (a slide).
///
/// # Errors
/// `Error::Parse` as [`parse_cell`], for either cell.
pub fn parse_move<W: Word>(board: &Board<W>, text: &str) -> Result<FishMove> {
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
    fn columns_past_z_have_two_letters() {
        let names: Vec<_> = [0, 25, 26, 27, 51, 52, 127]
            .map(column_name)
            .into_iter()
            .collect();
        assert_eq!(names, ["a", "z", "aa", "ab", "az", "ba", "dx"]);
        let board = Board::<u128>::from_grid(&[vec![1; 50], vec![1; 50]]).unwrap();
        for cell in board.cells() {
            assert_eq!(parse_cell(&board, &cell_name(&board, cell)).unwrap(), cell);
        }
        assert_eq!(cell_name(&board, board.cell(1, 49).unwrap()), "ax2");
        let e = parse_cell(&board, "ay1").unwrap_err().to_string();
        assert!(e.contains("columns a-ax"), "{e}");
    }

    #[test]
    fn errors_quote_little_of_a_huge_move() {
        let board = Board::standard(0);
        let huge = "x".repeat(1_400_000);
        for text in [
            huge.clone(),
            format!("a1-{huge}"),
            format!("a{}", "9".repeat(100_000)),
        ] {
            let e = parse_move(&board, &text).unwrap_err().to_string();
            assert!(e.len() < 400, "{}", e.len());
        }
    }
}
