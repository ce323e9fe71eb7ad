//! The text picture of a position: the course with its start and finish lines, each piece as
//! its player's letter, its kind and (when lying) facing, then each player's waiting and
//! finished pieces.

use std::fmt::Write;

use super::{Kind, MarathonGame, MarathonState, Place};

/// A player's letter, as everywhere players are named for people (the Fish board, the command
/// line, the pictures): A for player 0, B for player 1, ...
fn letter(player: usize) -> char {
    (b'A' + (player % 26) as u8) as char
}

impl MarathonGame {
    /// A picture of the position for people, e.g. (cut short)
    ///
    /// ```text
    /// Penguin Marathon "marathon", 2 players, ply 3 of 500
    ///         0     1     2
    ///   -1    S     S     S
    ///    0    .     Am:S  .
    ///    1    Bb:NE .     Ap
    /// A player 0: waiting baby
    /// B player 1: waiting mama papa
    /// Am Ap Ab: A's mama, papa, baby; :S lying facing S (none: upright); S start, F finish
    /// B to move
    /// ```
    ///
    /// `Am:S` is player A's (player 0's) mama lying facing S, `Ap` A's papa upright: the player
    /// in capitals as on the Fish board, the kind in small letters; `S` marks the places in
    /// front of the start line, `F` those beyond the finish line.
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
                let mut t = format!(
                    "{}{}",
                    letter(p.owner),
                    p.kind.letter().to_ascii_lowercase()
                );
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
        let _ = writeln!(
            out,
            "Penguin Marathon {:?}, {} players, ply {} of {}",
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
        for p in 0..self.players() {
            let parts: Vec<String> = [("waiting", Place::Waiting), ("finished", Place::Finished)]
                .iter()
                .filter_map(|(label, want)| {
                    let kinds: Vec<&str> = Kind::ALL
                        .iter()
                        .filter(|&&k| self.place(s, p, k) == *want)
                        .map(|k| k.name())
                        .collect();
                    (!kinds.is_empty()).then(|| format!("{label} {}", kinds.join(" ")))
                })
                .collect();
            let text = if parts.is_empty() {
                "all on the course".to_string()
            } else {
                parts.join("; ")
            };
            let _ = writeln!(out, "{} player {p}: {text}", letter(p));
        }
        out.push_str(
            "Am Ap Ab: A's mama, papa, baby; :S lying facing S (none: upright); \
             S start, F finish\n",
        );
        match (s.to_move(), s.winner()) {
            (Some(p), _) => {
                let _ = write!(out, "{} to move", letter(p));
            }
            (None, Some(w)) => {
                let _ = write!(out, "game over, {} (player {w}) wins", letter(w));
            }
            (None, None) if s.ply() >= self.ply_limit() => {
                out.push_str("game over, a draw (ply limit)");
            }
            (None, None) => out.push_str("game over, a draw (nobody can move)"),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::MarathonGame;
    use crate::game::{ActionList, Game};

    #[test]
    fn players_are_named_by_letter_as_on_the_fish_board() {
        let game = MarathonGame::standard();
        let mut s = game.new_state();
        for _ in 0..2 {
            let mut actions = ActionList::new();
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[0]);
        }
        let text = game.render(&s);
        assert!(text.contains("\nA player 0: waiting "), "{text}");
        assert!(text.contains("\nB player 1: waiting "), "{text}");
        assert!(text.ends_with("\nA to move"), "{text}");
        assert!(text.contains(" Am") && text.contains(" Bm"), "{text}");
        assert!(
            !text.contains(" 0M") && !text.contains("player 0 to move"),
            "{text}"
        );
    }
}
