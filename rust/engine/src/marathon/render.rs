//! The text picture of a position: the course with its start and finish lines, each piece as
//! owner, letter and (when lying) facing, then the waiting and finished pieces.

use std::fmt::Write;

use super::{Kind, MarathonGame, MarathonState, Place};

impl MarathonGame {
    /// A picture of the position for people, e.g. (cut short)
    ///
    /// ```text
    /// Penguin Marathon "marathon", 2 players: ply 3 of 500, player 1 to move
    ///         0     1     2
    ///   -1    S     S     S
    ///    0    .     0M:S  .
    ///    1    1B:NE .     0P
    /// ```
    ///
    /// `0M:S` is player 0's mama lying facing S, `0P` player 0's papa upright; `S` marks the
    /// places in front of the start line, `F` those beyond the finish line.
    pub fn render(&self, s: &MarathonState) -> String {
        let course = self.course();
        let pieces = self.pieces(s);
        let mut marks: Vec<((i32, i32), String)> = Vec::new();
        for &o in course.start_origins() {
            marks.push((o, "S".into()));
        }
        for &o in course.finish_line() {
            marks.push((o, "F".into()));
        }
        for p in &pieces {
            if let Place::OnCourse { cell, facing } = p.place {
                let mut t = format!("{}{}", p.owner, p.kind.letter());
                if let Some(f) = facing {
                    t.push(':');
                    t.push_str(f.name());
                }
                marks.push((cell, t));
            }
        }
        let (rows, cols) = course.size();
        let (rows, cols) = (rows as i32, cols as i32);
        let r_lo = marks.iter().map(|m| m.0 .0).min().unwrap().min(0);
        let r_hi = marks.iter().map(|m| m.0 .0).max().unwrap().max(rows - 1);
        let c_lo = marks.iter().map(|m| m.0 .1).min().unwrap().min(0);
        let c_hi = marks.iter().map(|m| m.0 .1).max().unwrap().max(cols - 1);

        let mut out = String::new();
        let status = match (s.to_move(), s.winner()) {
            (Some(p), _) => format!("player {p} to move"),
            (None, Some(w)) => format!("game over, player {w} wins"),
            (None, None) if s.ply() >= self.ply_limit() => "game over, a draw (ply limit)".into(),
            (None, None) => "game over, a draw (nobody can move)".into(),
        };
        let _ = writeln!(
            out,
            "Penguin Marathon {:?}, {} players: ply {} of {}, {status}",
            self.name(),
            self.players(),
            s.ply(),
            self.ply_limit()
        );
        let mut header = String::from("     ");
        for c in c_lo..=c_hi {
            let _ = write!(header, " {c:<5}");
        }
        out.push_str(header.trim_end());
        out.push('\n');
        for r in r_lo..=r_hi {
            let mut line = format!("{r:>4} ");
            for c in c_lo..=c_hi {
                let text = match marks.iter().find(|m| m.0 == (r, c)) {
                    Some(m) => m.1.clone(),
                    None if course.cell_at(r, c).is_some() => ".".into(),
                    None => String::new(),
                };
                let _ = write!(line, " {text:<5}");
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for (label, want) in [
            ("waiting: ", Place::Waiting),
            ("finished:", Place::Finished),
        ] {
            let groups: Vec<String> = (0..self.players())
                .filter_map(|p| {
                    let kinds: Vec<&str> = Kind::ALL
                        .iter()
                        .filter(|&&k| self.place(s, p, k) == want)
                        .map(|k| k.name())
                        .collect();
                    (!kinds.is_empty()).then(|| format!("player {p}: {}", kinds.join(" ")))
                })
                .collect();
            let text = if groups.is_empty() {
                "-".to_string()
            } else {
                groups.join("; ")
            };
            let _ = writeln!(out, "{label} {text}");
        }
        out
    }
}
