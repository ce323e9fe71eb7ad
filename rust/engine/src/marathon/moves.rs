//! Moves described for people: the action ↔ move bijection, the text notation (see
//! [`MarathonMove`]), and positions built from a list of pieces.

use std::fmt;

use super::course::{Dir, Outcome, Ray};
use super::game::MarathonGame;
use super::movegen::FACINGS;
use super::piece::{Piece, Place};
use super::state::{Kind, MarathonState, FINISHED, PIECES, UPRIGHT, WAITING};
use crate::error::{Error, Result};
use crate::game::{Action, Game};

/// A legal move, as a person would describe it. Its `Display` is the notation.
///
/// # Notation
///
/// One line of words separated by spaces (read case-insensitively; cells may be written
/// `(r, c)`):
///
/// ```text
/// B 0,1 S 3,1 SE      Baby on (0,1) slides S to (3,1) and lies facing SE
/// B 1,1 NW 0,0 up     Baby on (1,1) slides NW, stops at the side edge on (0,0), upright
/// B 10,1 S finish     Baby on (10,1) slides S across the finish line
/// P 4,1 stand         Papa (lying) on (4,1) stands up
/// M -1,0 SE 0,1 E     Mama enters from (-1,0), the outside place before the start line,
///                     moving SE, and lies on (0,1) facing E
/// ```
///
/// The piece letter (`M`, `P`, `B`) names a piece of the player to move. The first cell is the
/// piece's cell, or for a waiting piece the outside place it enters from. When several slides
/// give the same position they are one move, written the canonical way: for an entry the first
/// of straight-in then the diagonals, along the start line; for a finish straight across the
/// finish line first. Any of the ways is read back as that same move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MarathonMove {
    /// The action of this move in the game's action space.
    pub action: Action,
    /// The player who moves.
    pub player: usize,
    /// The piece that moves (of `player`).
    pub kind: Kind,
    /// The piece's cell before the move; `None` when it enters.
    pub src: Option<(i32, i32)>,
    /// For an entry, the outside place in front of the start line it entered from.
    pub entry: Option<(i32, i32)>,
    /// The slide direction; `None` for a stand.
    pub dir: Option<Dir>,
    /// Where the piece is after the move (on the course or finished).
    pub place: Place,
}

impl MarathonMove {
    /// Whether the move stands a lying piece up (it does not slide).
    pub fn is_stand(&self) -> bool {
        self.dir.is_none()
    }

    /// Whether the move brings a waiting piece onto the course.
    pub fn is_entry(&self) -> bool {
        self.entry.is_some()
    }

    /// Whether the piece crosses the finish line.
    pub fn finishes(&self) -> bool {
        self.place == Place::Finished
    }

    /// The cell the piece ends on; `None` when it finishes.
    pub fn dst(&self) -> Option<(i32, i32)> {
        self.place.cell()
    }

    /// The facing the piece ends with; `None` when upright or finished.
    pub fn facing(&self) -> Option<Dir> {
        self.place.facing()
    }
}

fn cell_text((r, c): (i32, i32)) -> String {
    format!("{r},{c}")
}

impl fmt::Display for MarathonMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = self
            .src
            .or(self.entry)
            .expect("a move starts on a cell or an entry place");
        write!(f, "{} {}", self.kind.letter(), cell_text(from))?;
        let Some(dir) = self.dir else {
            return f.write_str(" stand");
        };
        match self.place {
            Place::Finished => write!(f, " {dir} finish"),
            Place::OnCourse { cell, facing: None } => write!(f, " {dir} {} up", cell_text(cell)),
            Place::OnCourse {
                cell,
                facing: Some(g),
            } => write!(f, " {dir} {} {g}", cell_text(cell)),
            Place::Waiting => unreachable!("no move ends waiting"),
        }
    }
}

/// Whether a free ray of `kind` in direction `d` gives `result`.
fn ray_gives(ray: &Ray, kind: usize, d: usize, result: u32, n_cells: u32) -> bool {
    match ray.outcome {
        Outcome::Full => {
            result / 9 == ray.end as u32
                && result % 9 < 8
                && (FACINGS[kind][d] >> (result % 9)) & 1 == 1
        }
        Outcome::Stop => result == ray.end as u32 * 9 + 8,
        Outcome::Finish => result == 9 * n_cells,
        Outcome::None => false,
    }
}

impl MarathonGame {
    fn result_place(&self, result: u32) -> Place {
        let n = self.course.len() as u32;
        if result == 9 * n {
            Place::Finished
        } else {
            Place::OnCourse {
                cell: self.course.coord((result / 9) as u8),
                facing: (result % 9 != 8).then(|| Dir::from_index((result % 9) as usize)),
            }
        }
    }

    /// The action that moves the player to move's `kind` to `place` (legal or not).
    ///
    /// # Errors
    /// `Error::Invalid` for a place that is not on this course.
    pub fn action_of(&self, kind: Kind, place: Place) -> Result<Action> {
        let n = self.course.len() as u32;
        let result = match place {
            Place::Finished => 9 * n,
            Place::OnCourse { cell, facing } => {
                let c = self.cell_index(cell)?;
                c as u32 * 9 + facing.map_or(8, |f| f.index() as u32)
            }
            Place::Waiting => return Err(Error::Invalid("no move ends waiting".into())),
        };
        Ok(kind.index() as u32 * self.per_kind + result)
    }

    /// The cell index of `(row, col)`, or an error naming it.
    pub(crate) fn cell_index(&self, (r, c): (i32, i32)) -> Result<u8> {
        self.course.cell_at(r, c).ok_or_else(|| {
            Error::Invalid(format!(
                "({r}, {c}) is not a cell of the course {:?}",
                self.name
            ))
        })
    }

    /// The move of a legal `action`: the canonical way to play it.
    ///
    /// # Errors
    /// `Error::IllegalMove` when `action` is not legal in `s`.
    pub fn describe(&self, s: &MarathonState, action: Action) -> Result<MarathonMove> {
        if !self.is_legal(s, action) {
            return Err(Error::IllegalMove(self.why_illegal(s, action)));
        }
        Ok(self.describe_legal(s, action))
    }

    /// [`MarathonGame::describe`] for an action known to be legal.
    fn describe_legal(&self, s: &MarathonState, action: Action) -> MarathonMove {
        let p = s.to_move().expect("a legal action has a player to move");
        let kind_i = (action / self.per_kind) as usize;
        let result = action % self.per_kind;
        let kind = Kind::from_index(kind_i);
        let slot = p * PIECES + kind_i;
        let n = self.course.len() as u32;
        let occ = s.occupied;
        let place = self.result_place(result);
        let mut mv = MarathonMove {
            action,
            player: p,
            kind,
            src: None,
            entry: None,
            dir: None,
            place,
        };
        match s.cell[slot] {
            WAITING => {
                let way = self.course.entries[kind_i]
                    .iter()
                    .find(|w| {
                        w.ray.path & occ == 0 && ray_gives(&w.ray, kind_i, w.dir.index(), result, n)
                    })
                    .expect("a legal entry has a way");
                mv.entry = Some(self.course.start_origins()[way.origin as usize]);
                mv.dir = Some(way.dir);
            }
            c => {
                mv.src = Some(self.course.coord(c));
                let f = s.facing[slot];
                if f != UPRIGHT && result == c as u32 * 9 + 8 {
                    return mv; // stand
                }
                let rays = &self.course.slides[c as usize][kind_i];
                let fin = self.course.finish_dir();
                let order = [0, -1, 1, -2, 2, -3, 3, 4].map(|k| fin.rotate(k));
                let d = order
                    .into_iter()
                    .filter(|&d| f == UPRIGHT || d.index() == f as usize)
                    .find(|&d| {
                        let ray = &rays[d.index()];
                        ray.path & occ == 0 && ray_gives(ray, kind_i, d.index(), result, n)
                    })
                    .expect("a legal slide has a direction");
                mv.dir = Some(d);
            }
        }
        mv
    }

    /// All legal moves, in ascending action order.
    pub fn legal_moves(&self, s: &MarathonState) -> Vec<MarathonMove> {
        let mut list = crate::game::ActionList::new();
        self.legal_actions(s, &mut list);
        list.iter().map(|&a| self.describe_legal(s, a)).collect()
    }

    /// Plays a move (checked against the position: it must be the legal move it describes).
    ///
    /// # Errors
    /// `Error::IllegalMove` when `mv` is not a legal move of `s`.
    pub fn play_move(&self, s: &mut MarathonState, mv: &MarathonMove) -> Result<()> {
        let here = self.describe(s, mv.action)?;
        if here != *mv {
            return Err(Error::IllegalMove(format!(
                "move {mv} is not legal in this position (action {} here is {here})",
                mv.action
            )));
        }
        self.apply(s, mv.action);
        Ok(())
    }

    /// Reads a move in the notation (see the module docs) and checks that it is legal.
    /// Badly formed text is an `Error::Parse`; a well-formed move the rules forbid here is an
    /// `Error::IllegalMove` with the reason.
    ///
    /// # Errors
    /// `Error::Parse` for badly formed text, `Error::IllegalMove` for a move the rules forbid here.
    pub fn parse_move(&self, s: &MarathonState, text: &str) -> Result<MarathonMove> {
        let bad = |why: &str| {
            Error::Parse(format!(
                "cannot read move {}: {why}",
                crate::error::quote(text)
            ))
        };
        // "(3, 1)" → "3,1".
        let mut clean = String::with_capacity(text.len());
        for ch in text.chars() {
            match ch {
                '(' | ')' => clean.push(' '),
                _ => clean.push(ch),
            }
        }
        let clean = clean.replace(" ,", ",").replace(", ", ",");
        let clean = clean.replace(" ,", ",").replace(", ", ",");
        let words: Vec<&str> = clean.split_whitespace().collect();
        if words.len() < 3 {
            return Err(bad("expected a piece letter, a cell, then 'stand' or a direction and where it ends, e.g. \"B 0,1 S 3,1 SE\""));
        }
        let kind = Kind::parse(words[0]).ok_or_else(|| {
            bad(&format!(
                "{} is not a piece: use M, P or B",
                crate::error::quote(words[0])
            ))
        })?;
        let parse_cell = |w: &str| -> Option<(i32, i32)> {
            let (a, b) = w.split_once(',')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        };
        let from = parse_cell(words[1]).ok_or_else(|| {
            bad(&format!(
                "{} is not a cell: write row,col as in 3,1",
                crate::error::quote(words[1])
            ))
        })?;
        let illegal = |why: String| {
            Error::IllegalMove(format!("illegal move {}: {why}", crate::error::quote(text)))
        };
        let Some(p) = s.to_move() else {
            return Err(illegal("the game is over".into()));
        };
        let slot = p * PIECES + kind.index();
        let kind_i = kind.index();
        let who = format!("player {p}'s {}", kind.name());
        let occ = s.occupied;
        let n = self.course.len() as u32;

        if words[2].eq_ignore_ascii_case("stand") {
            if words.len() != 3 {
                return Err(bad("nothing may follow 'stand'"));
            }
            let c = s.cell[slot];
            if c == WAITING || c == FINISHED {
                return Err(illegal(format!(
                    "{who} is {}, not on the course",
                    if c == WAITING { "waiting" } else { "finished" }
                )));
            }
            if self.course.coord(c) != from {
                let (r, cc) = self.course.coord(c);
                return Err(illegal(format!(
                    "{who} is on ({r}, {cc}), not ({}, {})",
                    from.0, from.1
                )));
            }
            if s.facing[slot] == UPRIGHT {
                return Err(illegal(format!(
                    "{who} is already upright: only a lying piece can stand"
                )));
            }
            return Ok(self.describe_legal(s, kind_i as u32 * self.per_kind + c as u32 * 9 + 8));
        }

        let dir = Dir::parse(words[2]).ok_or_else(|| {
            bad(&format!(
                "{} is neither 'stand' nor a direction (N, NE, E, SE, S, SW, W, NW)",
                crate::error::quote(words[2])
            ))
        })?;
        let (ray, what) = match s.cell[slot] {
            FINISHED => return Err(illegal(format!("{who} has already finished"))),
            WAITING => {
                let Some(o) = self.course.start_origins().iter().position(|&o| o == from) else {
                    return Err(illegal(format!(
                        "{who} is waiting and enters from a place just before the start line ({}), not from ({}, {})",
                        self.course.start_origins().iter().map(|&c| cell_text(c)).collect::<Vec<_>>().join(" "),
                        from.0,
                        from.1
                    )));
                };
                let way = self.course.entries[kind_i]
                    .iter()
                    .find(|w| w.origin as usize == o && w.dir == dir);
                let Some(way) = way else {
                    return Err(illegal(format!(
                        "{who} cannot enter from ({}, {}) moving {dir}: it enters moving {} or along an inward diagonal, onto a course cell",
                        from.0, from.1, self.course.start_dir()
                    )));
                };
                (way.ray, "entry")
            }
            c => {
                if self.course.coord(c) != from {
                    let (r, cc) = self.course.coord(c);
                    return Err(illegal(format!(
                        "{who} is on ({r}, {cc}), not ({}, {})",
                        from.0, from.1
                    )));
                }
                let f = s.facing[slot];
                if f != UPRIGHT && f as usize != dir.index() {
                    return Err(illegal(format!(
                        "{who} is lying facing {}: it can only slide {} or stand",
                        Dir::from_index(f as usize),
                        Dir::from_index(f as usize)
                    )));
                }
                let ray = self.course.slides[c as usize][kind_i][dir.index()];
                if ray.outcome == Outcome::None {
                    return Err(illegal(format!(
                        "{who} cannot slide {dir}: it would leave the course at once"
                    )));
                }
                (ray, "slide")
            }
        };
        if ray.path & occ != 0 {
            let (dr, dc) = dir.delta();
            let first = (1..=3)
                .filter_map(|i| self.course.cell_at(from.0 + i * dr, from.1 + i * dc))
                .find(|&x| ray.path & occ & (1 << x) != 0)
                .expect("a blocked ray has an occupied cell on it");
            let (r, cc) = self.course.coord(first);
            return Err(illegal(format!(
                "the {what} is blocked: ({r}, {cc}) is occupied"
            )));
        }
        let rest = &words[3..];
        let result = match ray.outcome {
            Outcome::Finish => {
                if rest.len() != 1 || !rest[0].eq_ignore_ascii_case("finish") {
                    return Err(illegal(format!(
                        "{who} sliding {dir} crosses the finish line: write \"{} {} {dir} finish\"",
                        kind.letter(),
                        cell_text(from)
                    )));
                }
                9 * n
            }
            Outcome::Full | Outcome::Stop => {
                let end = self.course.coord(ray.end);
                if rest.is_empty() {
                    return Err(bad("the cell the piece ends on is missing"));
                }
                let dst = if rest[0].eq_ignore_ascii_case("finish") {
                    return Err(illegal(format!(
                        "{who} sliding {dir} does not cross the finish line: it ends on ({}, {})",
                        end.0, end.1
                    )));
                } else {
                    parse_cell(rest[0]).ok_or_else(|| {
                        bad(&format!(
                            "{} is not a cell: write row,col as in 3,1",
                            crate::error::quote(rest[0])
                        ))
                    })?
                };
                if dst != end {
                    return Err(illegal(format!(
                        "{who} sliding {dir} from ({}, {}) ends on ({}, {}), not ({}, {})",
                        from.0, from.1, end.0, end.1, dst.0, dst.1
                    )));
                }
                if rest.len() != 2 {
                    return Err(bad(
                        "expected the facing it ends with (N, NE, …, or 'up') after the cell",
                    ));
                }
                let up = rest[1].eq_ignore_ascii_case("up");
                let facing = if up {
                    None
                } else {
                    Some(Dir::parse(rest[1]).ok_or_else(|| {
                        bad(&format!(
                            "{} is not a facing: use N, NE, E, SE, S, SW, W, NW or 'up'",
                            crate::error::quote(rest[1])
                        ))
                    })?)
                };
                match (ray.outcome, facing) {
                    (Outcome::Stop, Some(_)) => {
                        return Err(illegal(format!("{who} sliding {dir} stops at the side edge on ({}, {}) and stands upright: write 'up'", end.0, end.1)))
                    }
                    (Outcome::Full, None) => {
                        return Err(illegal(format!("{who} slides the full distance and ends lying: give its facing")))
                    }
                    (Outcome::Full, Some(g)) if dir.turns_between(g) > kind.distance() => {
                        return Err(illegal(format!(
                            "{who} slides {} cell{} and may spin at most {}×45°: {g} is {}×45° from {dir}",
                            kind.distance(),
                            if kind.distance() == 1 { "" } else { "s" },
                            kind.distance(),
                            dir.turns_between(g)
                        )))
                    }
                    _ => {}
                }
                ray.end as u32 * 9 + facing.map_or(8, |g| g.index() as u32)
            }
            Outcome::None => unreachable!("rays with no outcome were rejected"),
        };
        Ok(self.describe_legal(s, kind_i as u32 * self.per_kind + result))
    }

    /// A position from a list of pieces; pieces not listed are waiting. If player `to_move`
    /// has no legal action the turn passes on as in play; the game is over (and `to_move`
    /// ignored) when a family is home, when `ply` has reached the ply limit, or when nobody can
    /// move.
    ///
    /// # Errors
    /// `Error::Invalid` for pieces the rules or the course do not allow (a cell off the course,
    /// two pieces on one cell, a piece listed twice, a bad player).
    pub fn position(&self, pieces: &[Piece], to_move: usize, ply: u32) -> Result<MarathonState> {
        let mut s = self.new_state();
        let mut listed = [false; super::MAX_PLAYERS * PIECES];
        for (i, piece) in pieces.iter().enumerate() {
            if piece.owner >= self.players {
                return crate::error::invalid!(
                    "piece {i}: owner {} but the game has {} players (0 to {})",
                    piece.owner,
                    self.players,
                    self.players - 1
                );
            }
            let slot = piece.owner * PIECES + piece.kind.index();
            if std::mem::replace(&mut listed[slot], true) {
                return crate::error::invalid!(
                    "piece {i}: player {}'s {} is listed twice",
                    piece.owner,
                    piece.kind.name()
                );
            }
            let (cell, facing) = match piece.place {
                Place::Waiting => (WAITING, UPRIGHT),
                Place::Finished => (FINISHED, UPRIGHT),
                Place::OnCourse { cell, facing } => {
                    let c = self
                        .cell_index(cell)
                        .map_err(|e| Error::Invalid(format!("piece {i}: {e}")))?;
                    if s.occupied & (1 << c) != 0 {
                        return crate::error::invalid!(
                            "piece {i}: cell ({}, {}) already holds a piece (one piece per cell)",
                            cell.0,
                            cell.1
                        );
                    }
                    s.occupied |= 1 << c;
                    (c, facing.map_or(UPRIGHT, |f| f.index() as u8))
                }
            };
            s.cell[slot] = cell;
            s.facing[slot] = facing;
        }
        if to_move >= self.players {
            return crate::error::invalid!(
                "to_move {to_move} but the game has {} players",
                self.players
            );
        }
        if ply > self.ply_limit {
            return crate::error::invalid!("ply {ply} is beyond the ply limit {}", self.ply_limit);
        }
        s.ply = ply;
        let home: Vec<usize> = (0..self.players)
            .filter(|&p| {
                s.cell[p * PIECES..p * PIECES + PIECES]
                    .iter()
                    .all(|&c| c == FINISHED)
            })
            .collect();
        if home.len() > 1 {
            return crate::error::invalid!(
                "players {:?} all have their whole family home; the first one home wins and the game ends",
                home
            );
        }
        s.to_move = super::state::NOBODY;
        if let Some(&w) = home.first() {
            s.winner = w as u8;
        } else if ply < self.ply_limit {
            for i in 0..self.players {
                let q = (to_move + i) % self.players;
                if self.has_legal(&s, q) {
                    s.to_move = q as u8;
                    break;
                }
            }
        }
        s.hash = self.hash_from_scratch(&s);
        Ok(s)
    }

    /// The move for an action as text, or an error if it is not legal here.
    ///
    /// # Errors
    /// `Error::IllegalMove` when `action` is not legal in `s`.
    pub fn action_to_notation(&self, s: &MarathonState, action: Action) -> Result<String> {
        Ok(self.describe(s, action)?.to_string())
    }
}
