//! Courses: the cells, the start line and the finish line, read from an ASCII map, plus the
//! precomputed slides ("rays") of every piece kind from every cell in every direction.
//!
//! # The map
//!
//! One character per cell, one line per row, as the course is drawn (row 0 at the top):
//!
//! | symbol        | meaning                                                               |
//! |---------------|-----------------------------------------------------------------------|
//! | `#`           | a course cell                                                         |
//! | `.` or space  | no cell                                                               |
//! | `S`           | just outside the start line: pieces enter from here (one per cell of the start line, directly beside it) |
//! | `F`           | just beyond the finish line (one per cell of the finish line, directly beside it) |
//!
//! Course coordinates are `(row, col)` with row 0 the first map line holding a `#` and col 0 the
//! leftmost column holding a `#`; markers outside the course may so have row or col `-1`. The
//! standard course:
//!
//! ```text
//! SSS
//! ###
//! ###     (12 rows of ### in all)
//! ###
//! FFF
//! ```
//!
//! A course must be made of whole 3×3 coasters joined edge to edge, hold at most 64 cells, and
//! have one straight, unbroken start line and one finish line.
//!
//! # Limits
//!
//! A map is refused before anything is built from it if it has more than [`MAX_MAP_BYTES`]
//! bytes (128 KiB), more than [`MAX_MAP_LINES`] lines or a line of more than
//! [`MAX_MAP_COLUMNS`] characters (1,024 each), or more than [`MAX_CELLS`] cells. The cells must
//! then span at most [`MAX_CELLS`] rows and columns (more cannot be joined edge to edge), so the
//! grid of the bounding box never has more than 64 × 64 places.

use std::fmt;

use crate::error::{Error, Result};

/// The most cells a course may have: occupancy is one `u64`.
pub const MAX_CELLS: usize = 64;

/// The longest course map, in bytes (UTF-8 text, line ends included).
pub const MAX_MAP_BYTES: usize = 128 * 1024;

/// The most lines a course map may have.
pub const MAX_MAP_LINES: usize = 1024;

/// The most characters a line of a course map may have.
pub const MAX_MAP_COLUMNS: usize = 1024;

/// `Ray::end` when there is no end cell.
pub(crate) const NO_CELL: u8 = 0xFF;

/// The eight directions, clockwise from north. Facings of lying pieces use the same values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Dir {
    /// North: up.
    N = 0,
    /// North-east.
    NE = 1,
    /// East: right.
    E = 2,
    /// South-east.
    SE = 3,
    /// South: down, towards the finish on the bundled courses.
    S = 4,
    /// South-west.
    SW = 5,
    /// West: left.
    W = 6,
    /// North-west.
    NW = 7,
}

impl Dir {
    /// The eight directions, clockwise from north (their index order).
    pub const ALL: [Dir; 8] = [
        Dir::N,
        Dir::NE,
        Dir::E,
        Dir::SE,
        Dir::S,
        Dir::SW,
        Dir::W,
        Dir::NW,
    ];
    const NAMES: [&'static str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
    const DELTAS: [(i32, i32); 8] = [
        (-1, 0),
        (-1, 1),
        (0, 1),
        (1, 1),
        (1, 0),
        (1, -1),
        (0, -1),
        (-1, -1),
    ];

    /// The index of the direction in [`Dir::ALL`] (N 0, NE 1, … NW 7).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction with index `i % 8`.
    #[inline]
    pub const fn from_index(i: usize) -> Dir {
        Dir::ALL[i % 8]
    }

    /// Turned by `k` × 45°, clockwise for positive `k`.
    #[inline]
    pub const fn rotate(self, k: i32) -> Dir {
        Dir::from_index((self as i32 + k).rem_euclid(8) as usize)
    }

    /// `(d_row, d_col)` of one step.
    #[inline]
    pub const fn delta(self) -> (i32, i32) {
        Dir::DELTAS[self as usize]
    }

    /// `"N"`, `"NE"`, …
    pub const fn name(self) -> &'static str {
        Dir::NAMES[self as usize]
    }

    /// Reads `"N"`, `"ne"`, … (case-insensitive).
    ///
    /// # Errors
    /// `Error::Invalid` for a map that is not a valid course.
    pub fn parse(text: &str) -> Option<Dir> {
        Dir::NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(text))
            .map(Dir::from_index)
    }

    /// Whether the direction is one of NE, SE, SW, NW.
    pub const fn is_diagonal(self) -> bool {
        (self as u8) & 1 == 1
    }

    /// The smallest number of 45° turns between two directions (0..=4).
    pub const fn turns_between(self, other: Dir) -> u32 {
        let d = (other as i32 - self as i32).rem_euclid(8);
        if d > 4 {
            (8 - d) as u32
        } else {
            d as u32
        }
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Dir {
    type Err = Error;

    /// Reads `"N"`, `"ne"`, … (case-insensitive), as [`Dir::parse`].
    fn from_str(text: &str) -> Result<Dir> {
        Dir::parse(text).ok_or_else(|| {
            Error::Parse(format!(
                "{text:?}: expected a direction (N, NE, E, SE, S, SW, W, NW)"
            ))
        })
    }
}

/// How a slide ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Outcome {
    /// Not a legal slide (cannot move even one cell, or a diagonal entry off the course).
    None = 0,
    /// The full distance: the piece lies on `end`, spins allowed.
    Full = 1,
    /// Stopped at a side edge: the piece stands upright on `end`.
    Stop = 2,
    /// Crossed the finish line.
    Finish = 3,
}

/// One slide of one piece kind from one place in one direction, on an empty course.
/// It is legal in a position iff `outcome != None` and no cell of `path` is occupied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Ray {
    /// The course cells slid over or onto (not the cell the piece starts on).
    pub path: u64,
    /// The cell the piece ends on (`NO_CELL` for `Finish` and `None`).
    pub end: u8,
    pub outcome: Outcome,
}

impl Ray {
    pub const NONE: Ray = Ray {
        path: 0,
        end: NO_CELL,
        outcome: Outcome::None,
    };
}

/// One way to enter: from a start origin (outside cell), in a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EntryWay {
    /// Index into [`Course::start_origins`].
    pub origin: u8,
    pub dir: Dir,
    pub ray: Ray,
}

/// Where a position of the map lies, for error messages: `(line, column)` of the map text,
/// 0-based, to a human-readable place.
pub(crate) type Locator<'a> = &'a dyn Fn(usize, usize) -> String;

/// A course: cells, start line, finish line and the precomputed slides.
#[derive(Clone, Debug)]
pub struct Course {
    rows: i32,
    cols: i32,
    /// `rows * cols`: the cell index at each place of the bounding box, or `NO_CELL`.
    grid: Vec<u8>,
    /// `(row, col)` of each cell, in row-major order (the cell index order).
    coords: Vec<(i32, i32)>,
    /// The direction pieces enter in (pointing into the course).
    start_dir: Dir,
    /// The outside cells directly in front of the start line, in order along it.
    start_origins: Vec<(i32, i32)>,
    /// The direction that crosses the finish line (pointing out of the course).
    finish_dir: Dir,
    /// The outside cells directly beyond the finish line, in order along it.
    finish_line: Vec<(i32, i32)>,
    /// `finish_line` plus the two cells beyond its corners.
    finish_zone: Vec<(i32, i32)>,
    /// `[cell][kind][dir]`.
    pub(crate) slides: Vec<[[Ray; 8]; 3]>,
    /// Per kind, the legal entries on an empty course: straight ones first, then diagonals.
    pub(crate) entries: [Vec<EntryWay>; 3],
}

/// Two courses are equal when their maps are: the same cells, start line and finish line (the
/// rest is computed from those).
impl PartialEq for Course {
    fn eq(&self, other: &Course) -> bool {
        (self.rows, self.cols, self.start_dir, self.finish_dir)
            == (other.rows, other.cols, other.start_dir, other.finish_dir)
            && self.grid == other.grid
            && self.start_origins == other.start_origins
            && self.finish_line == other.finish_line
    }
}

impl Eq for Course {}

impl Course {
    /// Reads a course map (see the module docs). Errors name the map line and column
    /// (1-based).
    pub fn parse(map: &str) -> Result<Course> {
        Course::parse_located(map, &|line, col| {
            format!("course map line {}, column {}", line + 1, col + 1)
        })
    }

    /// As [`Course::parse`], with `locate` turning a 0-based `(line, column)` of the map into a
    /// place for error messages (so that a config file can report its own line numbers).
    pub(crate) fn parse_located(map: &str, locate: Locator<'_>) -> Result<Course> {
        if map.len() > MAX_MAP_BYTES {
            return Err(Error::Invalid(format!(
                "the course map has {} bytes; at most {MAX_MAP_BYTES} (128 KiB) are supported",
                map.len()
            )));
        }
        let lines = map.split('\n').count();
        if lines > MAX_MAP_LINES {
            return Err(Error::Invalid(format!(
                "the course map has {lines} lines; at most {MAX_MAP_LINES} are supported"
            )));
        }
        let mut cells: Vec<(usize, usize)> = Vec::new();
        let mut starts: Vec<(usize, usize)> = Vec::new();
        let mut finishes: Vec<(usize, usize)> = Vec::new();
        for (line, text) in map.split('\n').enumerate() {
            let text = text.strip_suffix('\r').unwrap_or(text);
            for (col, ch) in text.chars().enumerate() {
                if col >= MAX_MAP_COLUMNS {
                    return Err(Error::Invalid(format!(
                        "{}: course map line {} is longer than {MAX_MAP_COLUMNS} characters",
                        locate(line, col),
                        line + 1
                    )));
                }
                match ch {
                    '#' if cells.len() == MAX_CELLS => {
                        return Err(Error::Invalid(format!(
                            "{}: the course has more than {MAX_CELLS} cells; at most \
                             {MAX_CELLS} (7 coasters) are supported",
                            locate(line, col)
                        )))
                    }
                    '#' => cells.push((line, col)),
                    'S' => starts.push((line, col)),
                    'F' => finishes.push((line, col)),
                    '.' | ' ' => {}
                    '\t' => {
                        return Err(Error::Invalid(format!(
                            "{}: a tab in the course map; use spaces or '.' for no cell",
                            locate(line, col)
                        )))
                    }
                    other => {
                        return Err(Error::Invalid(format!(
                            "{}: unknown symbol {:?} in the course map (expected '#' for a cell, \
                             '.' or a space for no cell, 'S' before the start line, 'F' beyond the \
                             finish line)",
                            locate(line, col),
                            other
                        )))
                    }
                }
            }
        }
        if cells.is_empty() {
            return Err(Error::Invalid(
                "the course map has no cells (mark cells with '#')".into(),
            ));
        }
        if cells.len() > MAX_CELLS {
            return Err(Error::Invalid(format!(
                "the course has {} cells; at most {} (7 coasters) are supported",
                cells.len(),
                MAX_CELLS
            )));
        }
        // Every place is within MAX_MAP_LINES × MAX_MAP_COLUMNS, so `i32` holds each coordinate.
        let row0 = cells.iter().map(|&(l, _)| l).min().unwrap();
        let col0 = cells.iter().map(|&(_, c)| c).min().unwrap();
        let rows = cells.iter().map(|&(l, _)| l).max().unwrap() - row0 + 1;
        let cols = cells.iter().map(|&(_, c)| c).max().unwrap() - col0 + 1;
        if rows > cells.len() || cols > cells.len() {
            // n cells joined edge to edge span at most n rows and n columns.
            return Err(Error::Invalid(format!(
                "the course cells are not connected: {} cells span {rows} rows and {cols} \
                 columns, so they cannot all be joined edge to edge",
                cells.len()
            )));
        }
        let places = rows
            .checked_mul(cols)
            .filter(|&n| n <= MAX_CELLS * MAX_CELLS)
            .expect("at most MAX_CELLS rows and columns");
        let (rows, cols) = (rows as i32, cols as i32);
        let to_course = |(l, c): (usize, usize)| (l as i32 - row0 as i32, c as i32 - col0 as i32);
        let to_map = |(r, c): (i32, i32)| ((r + row0 as i32) as usize, (c + col0 as i32) as usize);
        let place = |rc: (i32, i32)| {
            let (l, c) = to_map(rc);
            format!("{} (cell ({}, {}))", locate(l, c), rc.0, rc.1)
        };

        // Cells are pushed in map order, which is row-major: that is the cell index order.
        let coords: Vec<(i32, i32)> = cells.iter().map(|&p| to_course(p)).collect();
        let mut grid = vec![NO_CELL; places];
        for (i, &(r, c)) in coords.iter().enumerate() {
            grid[(r * cols + c) as usize] = i as u8;
        }
        let at = |r: i32, c: i32| -> Option<usize> {
            if r < 0 || c < 0 || r >= rows || c >= cols {
                return None;
            }
            let x = grid[(r * cols + c) as usize];
            (x != NO_CELL).then_some(x as usize)
        };

        // Connected edge to edge.
        let mut seen = vec![false; coords.len()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            let (r, c) = coords[i];
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                if let Some(j) = at(r + dr, c + dc) {
                    if !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        if let Some(j) = seen.iter().position(|s| !s) {
            return Err(Error::Invalid(format!(
                "the course cells are not connected: {} is not joined edge to edge to {}",
                place(coords[j]),
                place(coords[0])
            )));
        }

        // Whole 3×3 coasters: the first uncovered cell in row-major order must be the top-left
        // corner of a coaster (any other coaster covering it would overlap a covered cell).
        let mut covered = vec![false; coords.len()];
        for i in 0..coords.len() {
            if covered[i] {
                continue;
            }
            let (r, c) = coords[i];
            for dr in 0..3 {
                for dc in 0..3 {
                    match at(r + dr, c + dc) {
                        Some(j) if !covered[j] => covered[j] = true,
                        _ => {
                            return Err(Error::Invalid(format!(
                                "{} is not part of a whole 3×3 coaster: a course is made of 3×3 \
                                 coasters, and the 3×3 block whose top-left cell this is has a \
                                 missing or shared cell at ({}, {})",
                                place((r, c)),
                                r + dr,
                                c + dc
                            )))
                        }
                    }
                }
            }
        }

        let start = read_line(&starts, 'S', "start", &to_course, &at, &place)?;
        let finish = read_line(&finishes, 'F', "finish", &to_course, &at, &place)?;
        // Pieces enter moving from the marker onto the cell; they finish moving from the cell
        // onto the marker.
        let start_dir = start.toward_cell;
        let finish_dir = finish.toward_cell.rotate(4);
        let (first, last) = (finish.outside[0], *finish.outside.last().unwrap());
        // `outside` is sorted along the line: by column for a horizontal line, else by row.
        let along = if matches!(finish_dir, Dir::N | Dir::S) {
            (0, 1)
        } else {
            (1, 0)
        };
        let mut finish_zone = finish.outside.clone();
        finish_zone.insert(0, (first.0 - along.0, first.1 - along.1));
        finish_zone.push((last.0 + along.0, last.1 + along.1));
        if let Some(&o) = start.outside.iter().find(|o| finish_zone.contains(o)) {
            let (l, c) = to_map(o);
            return Err(Error::Invalid(format!(
                "{}: the start line and the finish line touch here; keep them apart",
                locate(l, c)
            )));
        }

        let mut course = Course {
            rows,
            cols,
            grid,
            coords,
            start_dir,
            start_origins: start.outside,
            finish_dir,
            finish_line: finish.outside,
            finish_zone,
            slides: Vec::new(),
            entries: [Vec::new(), Vec::new(), Vec::new()],
        };
        course.precompute();
        Ok(course)
    }

    fn precompute(&mut self) {
        let mut slides = Vec::with_capacity(self.coords.len());
        for &from in &self.coords {
            let mut per_kind = [[Ray::NONE; 8]; 3];
            for (k, rays) in per_kind.iter_mut().enumerate() {
                for d in Dir::ALL {
                    rays[d.index()] = self.trace(from, true, d, k + 1);
                }
            }
            slides.push(per_kind);
        }
        self.slides = slides;
        for k in 0..3 {
            let mut ways = Vec::new();
            for turn in [0, -1, 1] {
                let dir = self.start_dir.rotate(turn);
                for (o, &origin) in self.start_origins.iter().enumerate() {
                    let ray = self.trace(origin, false, dir, k + 1);
                    if ray.outcome != Outcome::None {
                        ways.push(EntryWay {
                            origin: o as u8,
                            dir,
                            ray,
                        });
                    }
                }
            }
            self.entries[k] = ways;
        }
    }

    /// The slide of `dist` cells from `from` (a course cell if `from_cell`, else an entry
    /// origin) in direction `d`, on an empty course.
    fn trace(&self, from: (i32, i32), from_cell: bool, d: Dir, dist: usize) -> Ray {
        let (dr, dc) = d.delta();
        let (mut r, mut c) = from;
        let mut on_course = from_cell;
        let mut path = 0u64;
        let mut last = NO_CELL;
        for _ in 0..dist {
            let (nr, nc) = (r + dr, c + dc);
            if let Some(x) = self.cell_at(nr, nc) {
                path |= 1 << x;
                last = x;
                (r, c) = (nr, nc);
                on_course = true;
                continue;
            }
            if on_course && self.crosses_finish((nr, nc), d) {
                return Ray {
                    path,
                    end: NO_CELL,
                    outcome: Outcome::Finish,
                };
            }
            return if last == NO_CELL {
                Ray::NONE
            } else {
                Ray {
                    path,
                    end: last,
                    outcome: Outcome::Stop,
                }
            };
        }
        Ray {
            path,
            end: last,
            outcome: Outcome::Full,
        }
    }

    /// Whether a step in direction `d` from a course cell onto the outside place `to` crosses
    /// the finish line (straight, or diagonally including the corners).
    fn crosses_finish(&self, to: (i32, i32), d: Dir) -> bool {
        d.turns_between(self.finish_dir) <= 1 && self.finish_zone.contains(&to)
    }

    // --- Queries. ---

    /// Number of cells.
    #[inline]
    pub fn len(&self) -> usize {
        self.coords.len()
    }

    /// Never true: a course has at least one coaster.
    pub fn is_empty(&self) -> bool {
        self.coords.is_empty()
    }

    /// Rows and columns of the bounding box.
    pub fn size(&self) -> (usize, usize) {
        (self.rows as usize, self.cols as usize)
    }

    /// The cell index at `(row, col)`, if that is a course cell.
    #[inline]
    pub fn cell_at(&self, r: i32, c: i32) -> Option<u8> {
        if r < 0 || c < 0 || r >= self.rows || c >= self.cols {
            return None;
        }
        let x = self.grid[(r * self.cols + c) as usize];
        (x != NO_CELL).then_some(x)
    }

    /// `(row, col)` of a cell index.
    #[inline]
    pub fn coord(&self, cell: u8) -> (i32, i32) {
        self.coords[cell as usize]
    }

    /// All cells' `(row, col)`, by cell index (row-major).
    pub fn coords(&self) -> &[(i32, i32)] {
        &self.coords
    }

    /// The direction pieces enter in.
    pub fn start_dir(&self) -> Dir {
        self.start_dir
    }

    /// The outside places pieces enter from, in order along the start line.
    pub fn start_origins(&self) -> &[(i32, i32)] {
        &self.start_origins
    }

    /// The direction that crosses the finish line.
    pub fn finish_dir(&self) -> Dir {
        self.finish_dir
    }

    /// The outside places directly beyond the finish line, in order along it.
    pub fn finish_line(&self) -> &[(i32, i32)] {
        &self.finish_line
    }

    /// The map, normalised: rows and columns trimmed to the course and its markers.
    pub fn to_map(&self) -> String {
        let marks: Vec<((i32, i32), char)> = self
            .start_origins
            .iter()
            .map(|&p| (p, 'S'))
            .chain(self.finish_line.iter().map(|&p| (p, 'F')))
            .collect();
        let r_min = marks.iter().map(|m| m.0 .0).min().unwrap().min(0);
        let r_max = marks
            .iter()
            .map(|m| m.0 .0)
            .max()
            .unwrap()
            .max(self.rows - 1);
        let c_min = marks.iter().map(|m| m.0 .1).min().unwrap().min(0);
        let c_max = marks
            .iter()
            .map(|m| m.0 .1)
            .max()
            .unwrap()
            .max(self.cols - 1);
        let mut out = String::new();
        for r in r_min..=r_max {
            let mut line = String::new();
            for c in c_min..=c_max {
                let ch = if self.cell_at(r, c).is_some() {
                    '#'
                } else {
                    marks.iter().find(|m| m.0 == (r, c)).map_or('.', |m| m.1)
                };
                line.push(ch);
            }
            out.push_str(line.trim_end_matches('.'));
            out.push('\n');
        }
        out
    }
}

/// A start or finish line read from its markers.
struct Line {
    /// The marker places (outside the course), sorted along the line.
    outside: Vec<(i32, i32)>,
    /// The direction from a marker onto its course cell.
    toward_cell: Dir,
}

fn read_line(
    marks: &[(usize, usize)],
    symbol: char,
    what: &str,
    to_course: &dyn Fn((usize, usize)) -> (i32, i32),
    at: &dyn Fn(i32, i32) -> Option<usize>,
    place: &dyn Fn((i32, i32)) -> String,
) -> Result<Line> {
    if marks.is_empty() {
        return Err(Error::Invalid(format!(
            "the course has no {what} line: mark each place directly outside it with '{symbol}'"
        )));
    }
    let mut outside: Vec<(i32, i32)> = Vec::new();
    let mut toward: Option<(Dir, (i32, i32))> = None;
    for &m in marks {
        let p = to_course(m);
        let beside: Vec<Dir> = [Dir::N, Dir::E, Dir::S, Dir::W]
            .into_iter()
            .filter(|d| at(p.0 + d.delta().0, p.1 + d.delta().1).is_some())
            .collect();
        let d = match beside.len() {
            1 => beside[0],
            0 => {
                return Err(Error::Invalid(format!(
                    "{}: this '{symbol}' is not directly beside a course cell; '{symbol}' marks \
                     the places just outside the {what} line",
                    place(p)
                )))
            }
            n => {
                return Err(Error::Invalid(format!(
                    "{}: this '{symbol}' is beside {n} course cells; it must be directly outside \
                     exactly one cell of the {what} line",
                    place(p)
                )))
            }
        };
        match toward {
            None => toward = Some((d, p)),
            Some((d0, p0)) if d0 != d => {
                return Err(Error::Invalid(format!(
                    "{}: this '{symbol}' is on the {} side of the course but the one at {} is on \
                     the {} side: the {what} line must be one straight edge",
                    place(p),
                    d.rotate(4),
                    place(p0),
                    d0.rotate(4)
                )))
            }
            Some(_) => {}
        }
        outside.push(p);
    }
    let (d, p0) = toward.unwrap();
    // Along the line: vertical lines (entering E/W) sort by row, horizontal ones by column.
    let horizontal = matches!(d, Dir::N | Dir::S);
    let key = |p: &(i32, i32)| if horizontal { (p.1, p.0) } else { (p.0, p.1) };
    outside.sort_by_key(key);
    for w in outside.windows(2) {
        let same_line = if horizontal {
            w[0].0 == w[1].0
        } else {
            w[0].1 == w[1].1
        };
        if !same_line {
            return Err(Error::Invalid(format!(
                "{}: this '{symbol}' is not in line with the one at {}: the {what} line must be \
                 one straight edge",
                place(w[1]),
                place(p0)
            )));
        }
        let gap = if horizontal {
            w[1].1 - w[0].1
        } else {
            w[1].0 - w[0].0
        };
        if gap != 1 {
            return Err(Error::Invalid(format!(
                "{}: the {what} line has a gap before this '{symbol}': it must be one unbroken edge",
                place(w[1])
            )));
        }
    }
    Ok(Line {
        outside,
        toward_cell: d,
    })
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    fn err(map: &str) -> String {
        Course::parse(map).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn huge_maps_are_refused_before_allocating() {
        // rows * cols overflowed an i32 here (a capacity-overflow panic).
        let map = format!("SSS\n#{}{}#\nFFF\n", "\n".repeat(46341), " ".repeat(46341));
        let e = err(&map);
        assert!(e.contains("46345 lines"), "{e}");
        let e = err(&format!("SSS\n{}\nFFF", " ".repeat(200_000)));
        assert!(e.contains("200008 bytes") && e.contains("128 KiB"), "{e}");
        // Within the byte limit but too many lines.
        let map = format!("SSS\n#{}#\nFFF\n", "\n".repeat(20_000));
        assert!(
            err(&map).contains("at most 1024 are supported"),
            "{}",
            err(&map)
        );
        // A line too long.
        let map = format!("SSS\n#{}#\nFFF\n", " ".repeat(20_000));
        assert!(err(&map).contains("longer than 1024"), "{}", err(&map));
        // 1000 x 1000 bounding box from two cells: refused before the grid is built.
        let map = format!("#{}\n{}#\n", "\n".repeat(998), " ".repeat(999));
        let e = err(&map);
        assert!(
            e.contains("not connected") && e.contains("1000 rows"),
            "{e}"
        );
        // More than 64 cells: refused as soon as the 65th is read.
        let e = err(&"#".repeat(100_000));
        assert!(e.contains("more than 64 cells"), "{e}");
    }

    #[test]
    fn maps_at_the_limits_still_read() {
        // The standard course padded with blank lines and spaces up to the limits.
        let mut map = String::from("SSS\n");
        for _ in 0..12 {
            map.push_str("###\n");
        }
        map.push_str("FFF");
        let padded = format!("{}\n{map}\n{}", "\n".repeat(500), " ".repeat(1000));
        assert!(padded.split('\n').count() <= MAX_MAP_LINES);
        let a = Course::parse(&map).unwrap();
        let b = Course::parse(&padded).unwrap();
        assert_eq!(a.to_map(), b.to_map());
    }
}
