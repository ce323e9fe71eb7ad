//! Text pictures of states for `str(state)`.

use pingvinas_engine::fish::{FishGame, FishState};

/// Penguins are drawn as the player's letter (A for player 0), floes as their fish, removed
/// floes and gaps as `.`; even rows are shifted half a hex to the right.
pub fn fish_text(game: &FishGame, s: &FishState) -> String {
    let board = game.board();
    let mut out = String::from("    ");
    for c in 0..board.cols() {
        out += &format!(" {} ", (b'a' + c as u8) as char);
    }
    out = out.trim_end().to_string();
    out.push('\n');
    for r in 0..board.rows() {
        out += &format!("{:>2} {}", r + 1, if r % 2 == 0 { "  " } else { "" });
        for c in 0..board.cols() {
            let cell = board.cell(r as i64, c as i64).expect("on the grid");
            let owner = (0..game.rules().players()).find(|&p| s.penguins(p).contains(cell));
            let mark = match owner {
                Some(p) => ((b'A' + p as u8) as char).to_string(),
                None if s.floes().contains(cell) => board.fish(cell).to_string(),
                None => ".".to_string(),
            };
            out += &format!("{mark:>2} ");
        }
        out = out.trim_end().to_string();
        out.push('\n');
    }
    for p in 0..game.rules().players() {
        let (fish, floes) = s.score(p);
        out += &format!(
            "{} player {p}: {fish} fish, {floes} floes\n",
            (b'A' + p as u8) as char
        );
    }
    out += &match s.to_move() {
        Some(p) => format!(
            "{} to move ({})",
            (b'A' + p as u8) as char,
            game.phase(s).name()
        ),
        None => format!("game over, ranking {:?}", game.ranking(s)),
    };
    out
}
