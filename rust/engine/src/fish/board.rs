//! The board: geometry of a rectangular grid of hexes in the "even-r" offset layout, the fish on
//! each floe, and precomputed rays for the six directions.
//!
//! Cells are stored row-major without padding (`cell = row * cols + col`, which is also the
//! cell's index in the action space), on the narrowest bitboard word that holds them: the
//! standard 8x8 grid fits a `u64`. Slides are ray lookups cut at the first blocker; neighbours
//! (flood fills) are one masked shift per distinct step, the masks keeping steps from wrapping
//! around a row's ends.

use std::sync::{Arc, LazyLock};

use super::bitboard::{Bitboard, Cell, Word, MAX_CELLS};
use super::geometry::Narrow;
use crate::error::invalid;
use crate::error::Result;
use crate::rng::Rng;

/// The six directions a penguin can slide, in action-encoding order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Direction {
    /// East: along the row, to the right.
    E = 0,
    /// North-east: up a row, to the right.
    NE = 1,
    /// North-west: up a row, to the left.
    NW = 2,
    /// West: along the row, to the left.
    W = 3,
    /// South-west: down a row, to the left.
    SW = 4,
    /// South-east: down a row, to the right.
    SE = 5,
}

impl Direction {
    /// The six directions in action-encoding order.
    pub const ALL: [Direction; 6] = [
        Direction::E,
        Direction::NE,
        Direction::NW,
        Direction::W,
        Direction::SW,
        Direction::SE,
    ];

    /// Directions whose steps increase the cell index (their rays are scanned from the low end).
    #[inline]
    pub const fn is_increasing(self) -> bool {
        matches!(self, Direction::E | Direction::SW | Direction::SE)
    }

    /// The direction pointing the other way.
    #[inline]
    pub const fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 3) % 6]
    }

    /// `(d_row, d_col)` of one step from a cell in an even (`true`) or odd row.
    pub const fn delta(self, even_row: bool) -> (i32, i32) {
        match (self, even_row) {
            (Direction::E, _) => (0, 1),
            (Direction::W, _) => (0, -1),
            (Direction::NE, true) => (-1, 1),
            (Direction::NE, false) => (-1, 0),
            (Direction::NW, true) => (-1, 0),
            (Direction::NW, false) => (-1, -1),
            (Direction::SE, true) => (1, 1),
            (Direction::SE, false) => (1, 0),
            (Direction::SW, true) => (1, 0),
            (Direction::SW, false) => (1, -1),
        }
    }
}

/// A ray running to higher cell indices, cut before its first cell not in `empty`.
#[inline(always)]
fn cut_increasing<W: Word>(ray: Bitboard<W>, empty: Bitboard<W>) -> Bitboard<W> {
    // Everything below the lowest blocker (all of the ray when there is none).
    Bitboard(ray.0 & (ray - empty).0.below_lowest())
}

/// A ray running to lower cell indices, cut after its last cell not in `empty`.
#[inline(always)]
fn cut_decreasing<W: Word>(ray: Bitboard<W>, empty: Bitboard<W>) -> Bitboard<W> {
    Bitboard(ray.0 & (ray - empty).0.above_highest())
}

/// The most rows, and the most columns, of a board. With at most [`MAX_CELLS`] cells in all,
/// this keeps every penguin's slides within 93 (so 8 penguins' within
/// [`crate::game::MAX_ACTIONS`]) and the action space (cells x 6 directions x longest slide)
/// within 400,000 actions.
pub const MAX_SIDE: usize = 64;

/// The most fish on a whole board: with the scores a position may start from (at most
/// [`super::position::MAX_START_FISH`]), every count stays within a `u16`.
pub const MAX_BOARD_FISH: u32 = 35_000;

/// The old name of [`MAX_SIDE`] (columns were limited to 26 before boards got wider).
pub const MAX_COLS: usize = MAX_SIDE;

/// Whether `(row, col)` holds a floe on the standard 8x8 grid (even rows have 7).
const fn is_standard_floe(r: usize, c: usize) -> bool {
    r % 2 == 1 || c < 7
}

/// Deals the 30 one-fish, 20 two-fish and 10 three-fish floes of the standard board, shuffled by
/// `seed`: `put(row, col, fish)` for each floe in row-major order.
pub(crate) fn deal_standard(seed: u64, mut put: impl FnMut(usize, usize, u8)) {
    let mut fish = [1u8; 60];
    fish[30..50].fill(2);
    fish[50..].fill(3);
    Rng::new(seed).shuffle(&mut fish);
    let mut fish = fish.into_iter();
    for r in 0..8 {
        for c in (0..8).filter(|&c| is_standard_floe(r, c)) {
            put(r, c, fish.next().expect("60 floes"));
        }
    }
}

/// A step off the grid in [`Board::steps`].
pub const NO_CELL: Cell = Cell::MAX;

/// Checks the shape of a grid of fish counts: not empty, rectangular, within [`MAX_CELLS`]
/// cells and [`MAX_SIDE`] rows and columns, at most [`MAX_BOARD_FISH`] fish. Returns
/// `(rows, cols)`.
///
/// # Errors
/// `Error::Invalid` saying what is wrong.
pub fn check_grid(grid: &[Vec<u8>]) -> Result<(usize, usize)> {
    let rows = grid.len();
    if rows == 0 {
        return invalid!("board: the grid has no rows");
    }
    let cols = grid[0].len();
    if cols == 0 {
        return invalid!("board: row 0 is empty");
    }
    if let Some((r, row)) = grid.iter().enumerate().find(|(_, row)| row.len() != cols) {
        return invalid!(
            "board: row {r} has {} cells, row 0 has {cols}: the grid must be rectangular",
            row.len()
        );
    }
    if rows > MAX_SIDE || cols > MAX_SIDE || rows * cols > MAX_CELLS {
        return invalid!(
            "board: a {rows}x{cols} grid is too large: the engine supports at most {MAX_CELLS} \
             cells and at most {MAX_SIDE} rows and {MAX_SIDE} columns (32x32, 16x64 and 50x2 fit)"
        );
    }
    let fish: u32 = grid.iter().flatten().map(|&f| f as u32).sum();
    if fish > MAX_BOARD_FISH {
        return invalid!(
            "board: {fish} fish in all, at most {MAX_BOARD_FISH} (so that scores fit their counters)"
        );
    }
    Ok((rows, cols))
}

/// Tables that depend only on the grid's shape.
#[derive(Clone, PartialEq, Eq)]
struct Geometry<W: Word> {
    /// `rays[cell][dir]`: every grid cell from `cell` (exclusive) to the edge in `dir`.
    rays: Vec<[Bitboard<W>; 6]>,
    /// The same with the rays that run to lower indices bit-reversed: they then run to higher
    /// ones too, and every ray is cut the cheap way (below its lowest blocker). For counting.
    rays_up: Vec<[Bitboard<W>; 6]>,
    /// `steps[cell][dir]`: the neighbour in `dir`, or [`NO_CELL`].
    steps: Vec<[Cell; 6]>,
    adjacent: Vec<Bitboard<W>>,
    /// Neighbours by shifts: `(delta, sources)` with the cells of `sources` having a neighbour
    /// at `cell + delta` (one entry per distinct delta; even and odd rows step differently).
    shifts: Vec<(i32, Bitboard<W>)>,
    /// The rays again as `u64` tables for the playout kernels, when the grid has at most 64
    /// cells.
    narrow: Option<Narrow>,
    /// The cells of every action (see [`Board::action_cells`]).
    actions: Vec<(Cell, Cell)>,
}

/// A board: its grid and the fish on each floe, on the bitboard word `W` (see
/// [`super::bitboard::Word`]; `u64` holds the standard board). Immutable during a game; states
/// refer to it.
#[derive(Clone, PartialEq, Eq)]
pub struct Board<W: Word = u64> {
    rows: u8,
    cols: u8,
    /// Every grid cell.
    cells: Bitboard<W>,
    /// Cells that start with a floe (fish > 0).
    floes: Bitboard<W>,
    /// Fish per cell (0 for gaps), at least 64 entries.
    fish: Vec<u8>,
    /// Fish per cell for the playout kernels (unused on grids of more than 64 cells).
    narrow_fish: [u8; 64],
    /// Cells with exactly one fish (the default placement rule).
    one_fish: Bitboard<W>,
    /// Rays and steps, shared between boards of one shape: dealing a new standard board copies
    /// no table.
    geometry: Arc<Geometry<W>>,
    /// [`Board::fish_key`], kept: evaluations read it at every leaf.
    fish_key: u64,
}

impl<W: Word> Board<W> {
    /// A board from a grid of fish counts (0 = no floe). Every row must have the same length.
    ///
    /// # Errors
    /// `Error::Invalid` for an empty or ragged grid, one larger than the engine supports (see
    /// [`check_grid`]) or than this word holds (`W::BITS` cells).
    pub fn from_grid(grid: &[Vec<u8>]) -> Result<Self> {
        let (rows, cols) = check_grid(grid)?;
        if rows * cols > W::BITS {
            return invalid!(
                "board: a {rows}x{cols} grid has more cells than a {}-bit bitboard holds",
                W::BITS
            );
        }
        let n = rows * cols;
        let mut board = Board {
            rows: rows as u8,
            cols: cols as u8,
            cells: Bitboard::EMPTY,
            floes: Bitboard::EMPTY,
            fish: vec![0; n.max(64)],
            narrow_fish: [0; 64],
            one_fish: Bitboard::EMPTY,
            fish_key: 0,
            geometry: Arc::new(Geometry {
                rays: Vec::new(),
                rays_up: Vec::new(),
                steps: Vec::new(),
                adjacent: Vec::new(),
                shifts: Vec::new(),
                narrow: None,
                actions: Vec::new(),
            }),
        };
        for (r, row) in grid.iter().enumerate() {
            for (c, &f) in row.iter().enumerate() {
                let cell = (r * cols + c) as Cell;
                board.cells = board.cells.with(cell);
                board.fish[cell as usize] = f;
                if n <= 64 {
                    board.narrow_fish[cell as usize] = f;
                }
                if f > 0 {
                    board.floes = board.floes.with(cell);
                }
                if f == 1 {
                    board.one_fish = board.one_fish.with(cell);
                }
            }
        }
        let mut geometry = Geometry {
            rays: vec![[Bitboard::<W>::EMPTY; 6]; n],
            rays_up: Vec::new(),
            steps: vec![[NO_CELL; 6]; n],
            adjacent: vec![Bitboard::EMPTY; n],
            shifts: Vec::new(),
            narrow: None,
            actions: Vec::new(),
        };
        for cell in board.cells {
            let c = cell as usize;
            for dir in Direction::ALL {
                let d = dir as usize;
                if let Some(next) = board.step(cell, dir) {
                    geometry.steps[c][d] = next;
                    geometry.adjacent[c] = geometry.adjacent[c].with(next);
                    let delta = next as i32 - cell as i32;
                    match geometry.shifts.iter_mut().find(|(k, _)| *k == delta) {
                        Some((_, sources)) => *sources = sources.with(cell),
                        None => geometry.shifts.push((delta, Bitboard::from_cell(cell))),
                    }
                }
                let mut at = cell;
                while let Some(next) = board.step(at, dir) {
                    geometry.rays[c][d] = geometry.rays[c][d].with(next);
                    at = next;
                }
            }
        }
        geometry.rays_up = (geometry.rays.iter())
            .map(|rays| {
                std::array::from_fn(|d| {
                    if Direction::ALL[d].is_increasing() {
                        rays[d]
                    } else {
                        Bitboard(rays[d].0.reverse())
                    }
                })
            })
            .collect();
        geometry.narrow = (n <= 64).then(|| {
            Narrow::new((0..n).map(|c| {
                (
                    c,
                    geometry.rays[c].map(|r| r.0.low_u64()),
                    geometry.adjacent[c].0.low_u64(),
                )
            }))
        });
        board.geometry = Arc::new(geometry);
        let actions = (0..board.num_actions())
            .map(|a| board.decode_action(a))
            .collect();
        Arc::get_mut(&mut board.geometry)
            .expect("not shared yet")
            .actions = actions;
        board.fish_key = board.hash_fish();
        Ok(board)
    }

    /// The number of rows of the grid.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    /// The number of columns of the grid.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols as usize
    }

    /// The number of grid cells, `rows * cols`.
    #[inline]
    pub fn num_cells(&self) -> usize {
        self.rows() * self.cols()
    }

    /// Every grid cell.
    #[inline]
    pub fn cells(&self) -> Bitboard<W> {
        self.cells
    }

    /// The cells that hold a floe at the start of the game.
    #[inline]
    pub fn floes(&self) -> Bitboard<W> {
        self.floes
    }

    /// The cells whose floe carries exactly one fish.
    #[inline]
    pub fn one_fish(&self) -> Bitboard<W> {
        self.one_fish
    }

    /// Fish on the floe at `cell` (0 for a gap).
    #[inline]
    pub fn fish(&self, cell: Cell) -> u8 {
        self.fish[cell as usize]
    }

    /// A hash of the fish on every cell (FNV-1a over the cells in order): boards with the same
    /// grid size and key have, but for a collision, the same fish everywhere.
    #[inline]
    pub fn fish_key(&self) -> u64 {
        self.fish_key
    }

    fn hash_fish(&self) -> u64 {
        self.fish[..self.num_cells()]
            .iter()
            .fold(0x9E37_79B9_7F4A_7C15, |h: u64, &f| {
                (h ^ f as u64).wrapping_mul(0x0100_0000_01B3)
            })
    }

    /// Total fish on a set of cells.
    pub fn fish_on(&self, cells: Bitboard<W>) -> u32 {
        cells.into_iter().map(|c| self.fish(c) as u32).sum()
    }

    /// Total fish on the board as dealt.
    pub fn total_fish(&self) -> u32 {
        self.fish.iter().map(|&f| f as u32).sum()
    }

    /// The grid of fish counts this board was made from.
    pub fn grid(&self) -> Vec<Vec<u8>> {
        (0..self.rows())
            .map(|r| {
                (0..self.cols())
                    .map(|c| self.fish(self.cell_unchecked(r, c)))
                    .collect()
            })
            .collect()
    }

    /// The cell at `(row, col)`, if it is on the grid.
    #[inline]
    pub fn cell(&self, row: i64, col: i64) -> Option<Cell> {
        if (0..self.rows as i64).contains(&row) && (0..self.cols as i64).contains(&col) {
            Some(self.cell_unchecked(row as usize, col as usize))
        } else {
            None
        }
    }

    #[inline]
    fn cell_unchecked(&self, row: usize, col: usize) -> Cell {
        (row * self.cols as usize + col) as Cell
    }

    /// `(row, col)` of a cell.
    #[inline]
    pub fn coords(&self, cell: Cell) -> (usize, usize) {
        (
            cell as usize / self.cols as usize,
            cell as usize % self.cols as usize,
        )
    }

    /// Dense index `row * cols + col` of a cell (`0..rows * cols`), used by the action space:
    /// the cell index itself, as the layout has no padding.
    #[inline]
    pub fn dense(&self, cell: Cell) -> usize {
        cell as usize
    }

    /// The cell of a dense index.
    #[inline]
    pub fn from_dense(&self, index: usize) -> Cell {
        index as Cell
    }

    /// The neighbour of `cell` in `dir`, if it is on the grid.
    pub fn step(&self, cell: Cell, dir: Direction) -> Option<Cell> {
        let (r, c) = self.coords(cell);
        let (dr, dc) = dir.delta(r % 2 == 0);
        self.cell(r as i64 + dr as i64, c as i64 + dc as i64)
    }

    /// Every grid cell from `cell` (exclusive) to the edge in `dir`.
    #[inline]
    pub fn ray(&self, cell: Cell, dir: Direction) -> Bitboard<W> {
        self.geometry.rays[cell as usize][dir as usize]
    }

    /// The 64-bit tables of the playout kernels, when the grid has at most 64 cells.
    #[inline]
    pub(crate) fn narrow(&self) -> Option<&Narrow> {
        self.geometry.narrow.as_ref()
    }

    /// Fish per cell for the playout kernels (grids of at most 64 cells).
    #[inline]
    pub(crate) fn narrow_fish(&self) -> &[u8; 64] {
        &self.narrow_fish
    }

    /// The neighbour of `cell` in each direction, [`NO_CELL`] off the grid.
    #[inline]
    pub fn steps(&self, cell: Cell) -> &[Cell; 6] {
        &self.geometry.steps[cell as usize]
    }

    /// The grid cells adjacent to `cell`.
    #[inline]
    pub fn adjacent(&self, cell: Cell) -> Bitboard<W> {
        self.geometry.adjacent[cell as usize]
    }

    /// The rays of `cell` in all six directions, in [`Direction::ALL`] order.
    #[inline]
    pub fn rays(&self, cell: Cell) -> &[Bitboard<W>; 6] {
        &self.geometry.rays[cell as usize]
    }

    /// The cells a penguin on `cell` can reach in `dir` when `empty` holds the free floes:
    /// the ray cut at its first blocker.
    #[inline]
    pub fn slide(&self, cell: Cell, dir: Direction, empty: Bitboard<W>) -> Bitboard<W> {
        let ray = self.ray(cell, dir);
        if dir.is_increasing() {
            cut_increasing(ray, empty)
        } else {
            cut_decreasing(ray, empty)
        }
    }

    /// The penguin whose slide in `dir` ends on `to`: the nearest cell not in `empty` behind `to`
    /// (the cells between are the slide's path, all empty).
    #[inline]
    pub fn slide_source(&self, to: Cell, dir: Direction, empty: Bitboard<W>) -> Option<Cell> {
        let back = dir.opposite();
        let behind = self.ray(to, back) - empty;
        if back.is_increasing() {
            behind.first()
        } else {
            behind.last()
        }
    }

    /// `f(dir, destinations)` for each of the six directions from `cell`.
    #[inline(always)]
    pub fn slides(
        &self,
        cell: Cell,
        empty: Bitboard<W>,
        mut f: impl FnMut(Direction, Bitboard<W>),
    ) {
        let rays = self.rays(cell);
        f(Direction::E, cut_increasing(rays[0], empty));
        f(Direction::NE, cut_decreasing(rays[1], empty));
        f(Direction::NW, cut_decreasing(rays[2], empty));
        f(Direction::W, cut_decreasing(rays[3], empty));
        f(Direction::SW, cut_increasing(rays[4], empty));
        f(Direction::SE, cut_increasing(rays[5], empty));
    }

    /// `f(dir, count)` for each of the six directions from `cell`: how many cells a penguin
    /// there can reach, when `empty` holds the free floes and `empty_rev` is `empty` reversed
    /// (computed once for all penguins). Every ray is cut below its lowest blocker, the rays
    /// that run to lower indices in reversed bit order: no direction costs more than another.
    #[inline(always)]
    pub fn slide_counts(
        &self,
        cell: Cell,
        empty: Bitboard<W>,
        empty_rev: Bitboard<W>,
        mut f: impl FnMut(Direction, u32),
    ) {
        let rays = &self.geometry.rays_up[cell as usize];
        for (d, dir) in Direction::ALL.into_iter().enumerate() {
            let free = if dir.is_increasing() {
                empty
            } else {
                empty_rev
            };
            f(dir, cut_increasing(rays[d], free).count());
        }
    }

    /// Every grid cell adjacent to some cell of `bb`: one masked shift per distinct step.
    #[inline]
    pub fn neighbours(&self, bb: Bitboard<W>) -> Bitboard<W> {
        let mut out = W::ZERO;
        for &(delta, sources) in &self.geometry.shifts {
            let from = bb.0 & sources.0;
            out = out
                | if delta > 0 {
                    from.shl(delta as u32)
                } else {
                    from.shr(delta.unsigned_abs())
                };
        }
        Bitboard(out)
    }

    /// The cells of `within` connected to `seeds` (which must lie in `within`) by flood fill.
    #[inline]
    pub fn fill(&self, seeds: Bitboard<W>, within: Bitboard<W>) -> Bitboard<W> {
        let mut reached = seeds & within;
        loop {
            let next = (reached | self.neighbours(reached)) & within;
            // Stop as soon as nothing grows, or nothing is left to reach.
            if next == reached || next == within {
                return next;
            }
            reached = next;
        }
    }

    /// The connected groups of `cells`, each as a bitboard.
    pub fn regions(&self, mut cells: Bitboard<W>) -> impl Iterator<Item = Bitboard<W>> + '_ {
        std::iter::from_fn(move || {
            let first = cells.first()?;
            let region = self.fill(Bitboard::from_cell(first), cells);
            cells = cells - region;
            Some(region)
        })
    }

    // --- The action space: a placement per cell, then a slide per cell, direction and
    // distance (`cells + (dense(from) * 6 + dir) * max_distance + distance - 1`). ---

    /// The size of the action space.
    #[inline]
    pub fn num_actions(&self) -> usize {
        self.num_cells() * (1 + 6 * self.max_distance())
    }

    /// The action of a slide from `from` by `distance` cells in `dir`.
    #[inline]
    pub fn slide_action(&self, from: Cell, dir: Direction, distance: usize) -> usize {
        self.num_cells() + (self.dense(from) * 6 + dir as usize) * self.max_distance() + distance
            - 1
    }

    /// The cells of an action: `(cell, cell)` for a placement on `cell`, `(from, to)` for a
    /// slide; `None` when it is out of range or its slide runs off the grid. A table lookup.
    #[inline]
    pub fn action_cells(&self, action: usize) -> Option<(Cell, Cell)> {
        self.geometry
            .actions
            .get(action)
            .copied()
            .filter(|&(from, _)| from != NO_CELL)
    }

    fn decode_action(&self, action: usize) -> (Cell, Cell) {
        let cells = self.num_cells();
        if action < cells {
            let cell = self.from_dense(action);
            return (cell, cell);
        }
        let md = self.max_distance();
        let (rest, distance) = ((action - cells) / md, (action - cells) % md + 1);
        let (from, dir) = (self.from_dense(rest / 6), Direction::ALL[rest % 6]);
        // The ray's cells nearest first: ascending for increasing directions.
        let ray = self.ray(from, dir);
        let count = ray.count() as usize;
        if distance > count {
            return (NO_CELL, NO_CELL);
        }
        let k = if dir.is_increasing() {
            distance - 1
        } else {
            count - distance
        };
        (from, ray.nth(k as u32).expect("k < count"))
    }

    /// Whether taking `cell` out of `floes` may split its group of floes: false when the floes
    /// around it form one unbroken arc of its ring of six neighbours (they stay connected around
    /// it). Removal of unreachable floes after a slide needs a flood fill only when this holds.
    /// (Finishing the check with a local fill costs more than the removal's own fill.)
    #[inline]
    pub fn may_split(&self, cell: Cell, floes: Bitboard<W>) -> bool {
        let mut ring = 0usize;
        for (d, &step) in self.geometry.steps[cell as usize].iter().enumerate() {
            ring |= usize::from(step != NO_CELL && floes.0.test(step as usize)) << d;
        }
        // An arc starts at each neighbour whose predecessor in the ring is missing.
        let starts = ring & !(ring << 1 | ring >> 5) & 0x3F;
        starts.count_ones() > 1
    }

    /// Maximum slide distance on this grid, the width of the action space per direction.
    #[inline]
    pub fn max_distance(&self) -> usize {
        (self.rows.max(self.cols) as usize - 1).max(1)
    }

    /// Draws `cells` in the shape of this board: one line per row, `x` for a cell in the set,
    /// `.` for another grid cell, even rows shifted half a hex to the right.
    pub fn picture(&self, cells: Bitboard<W>) -> String {
        let mut out = String::new();
        for r in 0..self.rows() {
            out += if r % 2 == 0 { " " } else { "" };
            for c in 0..self.cols() {
                let mark = if cells.contains(self.cell_unchecked(r, c)) {
                    'x'
                } else {
                    '.'
                };
                out.push(mark);
                out.push(if c + 1 == self.cols() { '\n' } else { ' ' });
            }
        }
        out
    }
}

impl Board<u64> {
    /// The standard board: 8 rows of 7 and 8 floes (even rows have 7), 30 one-fish, 20 two-fish
    /// and 10 three-fish floes shuffled by `seed`.
    pub fn standard(seed: u64) -> Board {
        let mut board = Board::standard_shape().clone();
        board.one_fish = Bitboard::EMPTY;
        deal_standard(seed, |r, c, f| {
            let cell = board.cell_unchecked(r, c);
            board.fish[cell as usize] = f;
            board.narrow_fish[cell as usize] = f;
            if f == 1 {
                board.one_fish = board.one_fish.with(cell);
            }
        });
        board.fish_key = board.hash_fish();
        board
    }

    /// The standard grid with one fish on every floe; [`Board::standard`] deals the fish.
    pub(crate) fn standard_shape() -> &'static Board {
        static SHAPE: LazyLock<Board> = LazyLock::new(|| {
            let grid: Vec<Vec<u8>> = (0..8)
                .map(|r| (0..8).map(|c| u8::from(is_standard_floe(r, c))).collect())
                .collect();
            Board::from_grid(&grid).expect("the standard board fits")
        });
        &SHAPE
    }
}

impl<W: Word> std::fmt::Debug for Board<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board").field("grid", &self.grid()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fish_key_follows_the_fish_however_the_board_was_made() {
        let dealt = Board::standard(4);
        let given = Board::<u64>::from_grid(&dealt.grid()).unwrap();
        assert_eq!(dealt.fish_key(), given.fish_key());
        assert_eq!(dealt.fish_key(), dealt.hash_fish());
        assert_ne!(dealt.fish_key(), Board::standard(5).fish_key());
        let mut grid = dealt.grid();
        grid[0][0] = if grid[0][0] == 1 { 2 } else { 1 };
        assert_ne!(
            Board::<u64>::from_grid(&grid).unwrap().fish_key(),
            dealt.fish_key()
        );
    }

    /// A plain per-cell walker: the slide computed one step at a time.
    fn walk<W: Word>(
        board: &Board<W>,
        cell: Cell,
        dir: Direction,
        empty: Bitboard<W>,
    ) -> Bitboard<W> {
        let mut out = Bitboard::EMPTY;
        let mut at = cell;
        while let Some(next) = board.step(at, dir) {
            if !empty.contains(next) {
                break;
            }
            out = out.with(next);
            at = next;
        }
        out
    }

    /// A random board on the word `W`, with shapes up to the word's size: square-ish ones and
    /// long thin ones.
    fn random_board<W: Word>(rng: &mut Rng) -> Board<W> {
        let cells = W::BITS.min(MAX_CELLS);
        let (rows, cols) = loop {
            let rows = 1 + rng.below(cells.min(MAX_SIDE));
            let cols = 1 + rng.below((cells / rows).min(MAX_SIDE));
            // Mostly large boards, which the smaller words do not hold.
            if rng.below(4) == 0 || rows * cols > cells / 2 {
                break (rows, cols);
            }
        };
        let grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| {
                        if rng.below(5) == 0 {
                            0
                        } else {
                            1 + rng.below(3) as u8
                        }
                    })
                    .collect()
            })
            .collect();
        Board::from_grid(&grid).unwrap()
    }

    /// Runs a check generic over the word on each word, `n` random boards each (fewer on the
    /// largest).
    macro_rules! on_every_word {
        ($check:ident, $n:expr) => {
            $check::<u64>($n);
            $check::<u128>($n);
            $check::<crate::fish::W1024>($n / 10);
        };
    }

    #[test]
    fn slides_match_a_per_cell_walker_on_random_positions() {
        on_every_word!(slides_match_a_walker, 1000);
    }

    fn slides_match_a_walker<W: Word>(n: usize) {
        let mut rng = Rng::new(1);
        for _ in 0..n {
            let board = random_board::<W>(&mut rng);
            let empty: Bitboard<W> = board
                .floes()
                .into_iter()
                .filter(|_| rng.below(4) != 0)
                .collect();
            for cell in board.cells() {
                for dir in Direction::ALL {
                    assert_eq!(
                        board.slide(cell, dir, empty),
                        walk(&board, cell, dir, empty),
                        "{cell} {dir:?} on {board:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn taking_a_floe_that_may_not_split_keeps_its_group_whole() {
        on_every_word!(may_split_is_sound, 3000);
    }

    fn may_split_is_sound<W: Word>(n: usize) {
        let mut rng = Rng::new(4);
        let (mut splits, mut whole) = (0, 0);
        for _ in 0..n {
            let board = random_board::<W>(&mut rng);
            let floes: Bitboard<W> = board
                .floes()
                .into_iter()
                .filter(|_| rng.below(5) != 0)
                .collect();
            let Some(cell) = floes.nth(rng.below(floes.count().max(1) as usize) as u32) else {
                continue;
            };
            let rest = board.fill(Bitboard::from_cell(cell), floes).without(cell);
            let Some(first) = rest.first() else { continue };
            let connected = board.fill(Bitboard::from_cell(first), rest) == rest;
            if board.may_split(cell, floes.without(cell)) {
                splits += usize::from(!connected);
            } else {
                assert!(connected, "{cell} on {board:?} with floes {floes:?}");
                whole += 1;
            }
        }
        // Both answers occur, and "may split" sometimes really splits.
        assert!(splits > n / 60 && whole > n / 60, "{splits} {whole}");
    }

    #[test]
    fn neighbours_match_single_steps() {
        on_every_word!(neighbours_match_steps, 500);
    }

    fn neighbours_match_steps<W: Word>(n: usize) {
        let mut rng = Rng::new(2);
        for _ in 0..n {
            let board = random_board::<W>(&mut rng);
            let set: Bitboard<W> = board
                .cells()
                .into_iter()
                .filter(|_| rng.below(3) == 0)
                .collect();
            let expected: Bitboard<W> = {
                let board = &board;
                set.into_iter()
                    .flat_map(|c| {
                        Direction::ALL
                            .into_iter()
                            .filter_map(move |d| board.step(c, d))
                    })
                    .collect()
            };
            assert_eq!(board.neighbours(set), expected);
        }
    }

    #[test]
    fn even_rows_are_shifted_right() {
        let board = Board::standard(0);
        let c = board.cell(2, 3).unwrap();
        let n: Vec<_> = Direction::ALL
            .iter()
            .map(|&d| board.coords(board.step(c, d).unwrap()))
            .collect();
        assert_eq!(n, vec![(2, 4), (1, 4), (1, 3), (2, 2), (3, 3), (3, 4)]);
        let c = board.cell(3, 3).unwrap();
        let n: Vec<_> = Direction::ALL
            .iter()
            .map(|&d| board.coords(board.step(c, d).unwrap()))
            .collect();
        assert_eq!(n, vec![(3, 4), (2, 3), (2, 2), (3, 2), (4, 2), (4, 3)]);
    }

    #[test]
    fn standard_board_has_the_right_fish() {
        let board = Board::standard(42);
        assert_eq!(board.floes().count(), 60);
        let counts: Vec<usize> = (1..=3)
            .map(|f| {
                board
                    .floes()
                    .into_iter()
                    .filter(|&c| board.fish(c) == f)
                    .count()
            })
            .collect();
        assert_eq!(counts, vec![30, 20, 10]);
        for r in (0..8).step_by(2) {
            assert!(!board.floes().contains(board.cell(r, 7).unwrap()));
        }
        assert_ne!(Board::standard(1).grid(), Board::standard(2).grid());
        assert_eq!(Board::standard(3).grid(), Board::standard(3).grid());
    }

    #[test]
    fn oversized_boards_are_rejected() {
        type Big = crate::fish::W1024;
        assert!(Board::<Big>::from_grid(&vec![vec![1; 32]; 32]).is_ok());
        assert!(Board::<Big>::from_grid(&vec![vec![1; 64]; 16]).is_ok());
        for (rows, cols) in [(33, 32), (65, 1), (1, 65), (8, 128)] {
            let err = Board::<Big>::from_grid(&vec![vec![1; cols]; rows]).unwrap_err();
            assert!(err.to_string().contains("too large"), "{err}");
        }
        let err = Board::<u64>::from_grid(&vec![vec![1; 10]; 10]).unwrap_err();
        assert!(err.to_string().contains("64-bit"), "{err}");
        assert!(Board::<u64>::from_grid(&[vec![1, 2], vec![1]]).is_err());
        let err = Board::<Big>::from_grid(&vec![vec![200; 30]; 30]).unwrap_err();
        assert!(err.to_string().contains("at most 35000"), "{err}");
    }

    /// The bound behind `MAX_SIDE`: 8 penguins of one player never have more slides than an
    /// action list holds, on the extreme shapes of the limits.
    #[test]
    fn slides_of_eight_penguins_fit_an_action_list() {
        type Big = crate::fish::W1024;
        for (rows, cols) in [
            (32, 32),
            (16, 64),
            (64, 16),
            (1, 64),
            (64, 1),
            (11, 64),
            (64, 11),
        ] {
            let board = Board::<Big>::from_grid(&vec![vec![1; cols]; rows]).unwrap();
            let most = board
                .cells()
                .into_iter()
                .map(|c| board.rays(c).iter().map(|r| r.count()).sum::<u32>())
                .max()
                .unwrap();
            assert!(most <= 93 && 8 * most as usize + 8 <= crate::game::MAX_ACTIONS);
        }
    }

    #[test]
    fn regions_split_the_floes() {
        let board: Board =
            Board::from_grid(&[vec![1, 1, 0, 1], vec![0, 0, 0, 1], vec![2, 0, 0, 0]]).unwrap();
        let regions: Vec<_> = board.regions(board.floes()).map(|r| r.count()).collect();
        assert_eq!(regions, vec![2, 2, 1]);
    }
}
