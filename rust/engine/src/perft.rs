//! Perft: the number of action sequences of a given length from a position, the standard check
//! of a move generator (after shakmaty's `perft` and its `tests/perft.rs`), and the reader of
//! the perft files in `tests/perft/` that `cargo test`, pytest and the criterion benches share.
//!
//! # What perft counts
//!
//! `perft(s, 0) = 1`, and `perft(s, d)` is the sum of `perft(apply(s, a), d - 1)` over the
//! legal actions `a` of `s` (every action is one ply: a Fish placement, a Fish slide, a Marathon
//! slide, entry or stand). The automatic steps that [`Game::apply`] runs after an action
//! (removing unreachable floes, lifting a stuck player's penguins, skipping a player with no
//! legal placement or action) belong to that action and are no ply of their own, so a player
//! who cannot move never adds a "pass" node. A finished game has no legal action: a game that
//! ends before depth `d` adds nothing to `perft(s, d)` (as checkmate does in chess). Marathon
//! lists each move once however many ways lead to it (RULES.md: two actions that lead to the
//! same position are the same move).
//!
//! # The file format
//!
//! Plain text, one block per position, blocks separated by blank lines; a line starting with
//! `#` is a comment. A block is
//!
//! ```text
//! id fish-start-seed-1
//! json {"game":"fish", ...}
//! perft 1 30
//! perft 2 870
//! ```
//!
//! `id` names the position (unique within its file), `json` is the position in the engine's own
//! JSON ([`crate::io::GameIo::to_json`], one line: the game, board or course included) and each
//! `perft DEPTH NODES` line gives one count, depths ascending.

use crate::game::{ActionList, Game};

/// `perft(state, depth)` as the module docs define it. Counts the legal actions at depth 1
/// without playing them ("bulk counting").
pub fn perft<G: Game>(game: &G, state: &G::State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = ActionList::new();
    game.legal_actions(state, &mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|&a| {
            let mut child = *state;
            game.apply(&mut child, a);
            perft(game, &child, depth - 1)
        })
        .sum()
}

/// One position of a perft file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftPosition {
    /// Its name (`id` line).
    pub id: String,
    /// The position in the engine's JSON (`json` line).
    pub json: String,
    /// `(depth, nodes)` per `perft` line, depths ascending.
    pub counts: Vec<(u32, u64)>,
}

impl PerftPosition {
    /// The game the JSON names (`"fish"` or `"marathon"`), if it names one.
    pub fn game(&self) -> Option<&str> {
        ["fish", "marathon"]
            .into_iter()
            .find(|g| self.json.contains(&format!("\"game\":\"{g}\"")))
    }

    /// The block of this position in the file format.
    pub fn to_text(&self) -> String {
        let mut out = format!("id {}\njson {}\n", self.id, self.json);
        for (d, n) in &self.counts {
            out += &format!("perft {d} {n}\n");
        }
        out
    }
}

/// The positions of a perft file (see the module docs for the format).
///
/// # Errors
/// A message naming the line for a line of no known kind, a block without `id` or `json`, a
/// repeated `id`, or `perft` depths that are not ascending.
pub fn parse_perft_file(text: &str) -> Result<Vec<PerftPosition>, String> {
    let mut out: Vec<PerftPosition> = Vec::new();
    let mut current: Option<PerftPosition> = None;
    let finish = |current: &mut Option<PerftPosition>, out: &mut Vec<PerftPosition>| {
        if let Some(p) = current.take() {
            if p.json.is_empty() {
                return Err(format!("position {:?} has no json line", p.id));
            }
            if out.iter().any(|q| q.id == p.id) {
                return Err(format!("position id {:?} appears twice", p.id));
            }
            out.push(p);
        }
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        let at = || format!("line {}", i + 1);
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            finish(&mut current, &mut out)?;
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => {
                finish(&mut current, &mut out)?;
                current = Some(PerftPosition {
                    id: rest.trim().to_string(),
                    json: String::new(),
                    counts: Vec::new(),
                });
            }
            "json" | "perft" => {
                let Some(p) = current.as_mut() else {
                    return Err(format!("{}: {key} before any id line", at()));
                };
                if key == "json" {
                    p.json = rest.trim().to_string();
                    continue;
                }
                let mut parts = rest.split_whitespace().map(str::parse::<u64>);
                let (Some(Ok(d)), Some(Ok(n)), None) = (parts.next(), parts.next(), parts.next())
                else {
                    return Err(format!("{}: expected `perft DEPTH NODES`: {line:?}", at()));
                };
                let d = u32::try_from(d).map_err(|_| format!("{}: depth {d} too large", at()))?;
                if p.counts.last().is_some_and(|&(last, _)| last >= d) {
                    return Err(format!("{}: perft depths must ascend", at()));
                }
                p.counts.push((d, n));
            }
            _ => return Err(format!("{}: unknown line {line:?}", at())),
        }
    }
    finish(&mut current, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::toys::{Nim, TicTacToe, Ttt};

    #[test]
    fn perft_counts_sequences() {
        // Nim from 3 stones, take 1, 2 or 3: 3 sequences of length 1; 3 of length 2 (1-1, 1-2,
        // 2-1); 1 of length 3 (1-1-1): the games that ended sooner add nothing.
        let game = Nim { players: 2 };
        let s = game.start(3);
        let counts: Vec<u64> = (0..5).map(|d| perft(&game, &s, d)).collect();
        assert_eq!(counts, vec![1, 3, 3, 1, 0]);
        // Tic-tac-toe's well-known counts: 1,440 games end with X's fifth mark, so depth 6 has
        // 15,120 x 4 - 1,440 x 4 sequences.
        let counts: Vec<u64> = (1..=6)
            .map(|d| perft(&TicTacToe, &Ttt::default(), d))
            .collect();
        assert_eq!(counts, vec![9, 72, 504, 3024, 15120, 54720]);
    }

    #[test]
    fn files_parse_and_reject_nonsense() {
        let text = "# a comment\nid a\njson {\"game\":\"fish\"}\nperft 1 3\nperft 2 9\n\nid b\n\
                    json {\"game\":\"marathon\"}\n";
        let ps = parse_perft_file(text).unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].counts, vec![(1, 3), (2, 9)]);
        assert_eq!(ps[0].game(), Some("fish"));
        assert_eq!(ps[1].game(), Some("marathon"));
        assert_eq!(
            parse_perft_file(&ps[0].to_text()).unwrap(),
            vec![ps[0].clone()]
        );
        for bad in [
            "perft 1 2\n",
            "id a\nperft 1 x\njson {}\n",
            "id a\njson {}\nperft 2 1\nperft 1 1\n",
            "id a\njson {}\n\nid a\njson {}\n",
            "id a\n",
            "id a\njson {}\nnodes 3\n",
        ] {
            assert!(parse_perft_file(bad).is_err(), "{bad:?}");
        }
    }
}
