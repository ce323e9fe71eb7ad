//! Rule tests on hand-made positions, and random-game properties.

use super::movegen::{add_ray, PieceMoves};
use super::state::{FINISHED, UPRIGHT, WAITING};
use super::*;
use crate::error::Error;
use crate::game::{Action, ActionList, Game};
use crate::rng::Rng;

/// Builds a position from a picture: one line per row of the course's bounding box, one token
/// per column: `.` an empty cell, `-` no cell, `0M` player 0's mama upright, `1B:SE` player 1's
/// baby lying facing SE. An optional line `finished: 0M 1P` lists finished pieces; pieces not
/// shown are waiting. Blank lines are ignored.
fn pic(game: &Marathon, text: &str, to_move: usize) -> State {
    let mut pieces = Vec::new();
    let mut row = 0;
    let parse_piece = |tok: &str| -> (usize, Kind, Option<Dir>) {
        let owner = tok[..1].parse().expect("owner digit");
        let kind = Kind::parse(&tok[1..2]).expect("piece letter");
        let facing = tok
            .split_once(':')
            .map(|(_, f)| Dir::parse(f).expect("facing"));
        (owner, kind, facing)
    };
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("finished:") {
            for tok in rest.split_whitespace() {
                let (owner, kind, _) = parse_piece(tok);
                pieces.push(Piece {
                    owner,
                    kind,
                    place: Place::Finished,
                });
            }
            continue;
        }
        for (col, tok) in line.split_whitespace().enumerate() {
            if tok == "." || tok == "-" {
                continue;
            }
            let (owner, kind, facing) = parse_piece(tok);
            let cell = (row, col as i32);
            pieces.push(Piece {
                owner,
                kind,
                place: Place::OnCourse { cell, facing },
            });
        }
        row += 1;
    }
    game.position(&pieces, to_move, 0).expect("a valid picture")
}

/// The notation of the legal moves of one piece of the player to move, sorted.
fn moves_of(game: &Marathon, s: &State, kind: Kind) -> Vec<String> {
    let mut v: Vec<String> = game
        .legal_moves(s)
        .into_iter()
        .filter(|m| m.kind == kind)
        .map(|m| m.to_string())
        .collect();
    v.sort();
    v
}

fn strs(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// One coaster (3×3), entering at the top, finishing at the bottom.
fn coaster() -> Marathon {
    Config {
        name: "one".into(),
        description: String::new(),
        players: 2,
        ply_limit: 500,
        course: "SSS\n###\n###\n###\nFFF\n".into(),
    }
    .build()
    .unwrap()
}

const EMPTY12: &str =
    ". . .\n. . .\n. . .\n. . .\n. . .\n. . .\n. . .\n. . .\n. . .\n. . .\n. . .\n. . .\n";

/// The standard course with pieces drawn on rows given as `(row, "tokens")`.
fn std_pic(game: &Marathon, rows: &[(usize, &str)], extra: &str, to_move: usize) -> State {
    let mut lines: Vec<String> = EMPTY12.lines().map(str::to_string).collect();
    for &(r, t) in rows {
        lines[r] = t.to_string();
    }
    pic(game, &(lines.join("\n") + "\n" + extra), to_move)
}

#[test]
fn state_is_small() {
    assert!(
        std::mem::size_of::<State>() <= 64,
        "{} bytes",
        std::mem::size_of::<State>()
    );
}

#[test]
fn search_keys_tell_apart_plies_that_the_hash_does_not() {
    // The ply limit ends the game, so a position's value depends on its ply count: tables key
    // by it, although the hash leaves it out.
    let game = Marathon::variant(bundled_names()[0]).unwrap();
    let s = game.new_state();
    let mut later = s;
    later.ply += 2;
    assert_eq!(game.hash(&s), game.hash(&later));
    assert_ne!(game.search_key(&s), game.search_key(&later));
}

#[test]
fn opening_has_57_moves_on_every_course() {
    for name in bundled_names() {
        for players in 2..=5 {
            let game = Marathon::variant(name)
                .unwrap()
                .with_players(players)
                .unwrap();
            let s = game.new_state();
            let moves = game.legal_moves(&s);
            assert_eq!(moves.len(), 57, "{name}, {players} players");
            let mut list = ActionList::new();
            game.legal_actions(&s, &mut list);
            assert_eq!(list.len(), 57);
            assert_eq!(game.count_legal(&s), 57);
        }
    }
}

#[test]
fn opening_moves_by_kind_and_entries() {
    let game = Marathon::standard();
    let s = game.new_state();
    let count = |k| game.legal_moves(&s).iter().filter(|m| m.kind == k).count();
    assert_eq!(
        (count(Kind::Mama), count(Kind::Papa), count(Kind::Baby)),
        (13, 19, 25)
    );
    let baby = moves_of(&game, &s, Kind::Baby);
    // Diagonal entries whose slide leaves the side stop upright.
    for m in [
        "B -1,0 SE 1,2 up",
        "B -1,1 SE 0,2 up",
        "B -1,1 SW 0,0 up",
        "B -1,2 SW 1,0 up",
    ] {
        assert!(baby.contains(&m.to_string()), "{m} in {baby:?}");
    }
    // A diagonal entry whose first step is off the course is illegal.
    assert!(baby
        .iter()
        .all(|m| !m.starts_with("B -1,0 SW") && !m.starts_with("B -1,2 SE")));
    let papa = moves_of(&game, &s, Kind::Papa);
    assert!(papa.contains(&"P -1,0 SE 1,2 NE".to_string()));
    assert!(papa.contains(&"P -1,2 SW 1,0 NW".to_string()));
    // The same result by two entries is one move, written the straight way.
    let mama = moves_of(&game, &s, Kind::Mama);
    assert!(mama.contains(&"M -1,0 S 0,0 S".to_string()));
    assert!(!mama.contains(&"M -1,1 SW 0,0 S".to_string()));
    assert!(mama.contains(&"M -1,1 SW 0,0 W".to_string()));
}

#[test]
fn each_piece_slides_its_distance() {
    let game = Marathon::standard();
    let s = std_pic(&game, &[(5, ". 0M ."), (2, ". 0P ."), (8, ". . 0B")], "", 0);
    let mama = moves_of(&game, &s, Kind::Mama);
    assert_eq!(mama.len(), 24); // 8 directions × 3 facings
    assert!(mama.iter().all(|m| m.starts_with("M 5,1 ")));
    for m in &mama {
        let w: Vec<&str> = m.split_whitespace().collect();
        let (dr, dc) = Dir::parse(w[2]).unwrap().delta();
        assert_eq!(w[3], format!("{},{}", 5 + dr, 1 + dc), "{m}");
    }
    // Papa on (2,1): N and the diagonals leave at the side after one cell.
    let papa = moves_of(&game, &s, Kind::Papa);
    let papa_up: Vec<&String> = papa.iter().filter(|m| m.ends_with(" up")).collect();
    assert_eq!(papa_up.len(), 6, "{papa:?}"); // E, W, NE, NW, SE, SW stop after one cell
    assert!(papa.contains(&"P 2,1 N 0,1 N".to_string()));
    assert!(papa.contains(&"P 2,1 S 4,1 SW".to_string()));
    assert!(papa.contains(&"P 2,1 SE 3,2 up".to_string()));
    assert_eq!(papa.len(), 5 + 5 + 6);
    // Baby on (8,2): N and S full (7 facings each); W, NW and SW stop at the side; E, NE and
    // SE cannot move.
    let baby = moves_of(&game, &s, Kind::Baby);
    assert_eq!(baby.len(), 7 + 7 + 3, "{baby:?}");
    assert!(baby.contains(&"B 8,2 N 5,2 SE".to_string()));
    assert!(baby.contains(&"B 8,2 S 11,2 E".to_string()));
    assert!(!baby.contains(&"B 8,2 S 11,2 N".to_string()));
    assert!(baby.contains(&"B 8,2 W 8,0 up".to_string()));
    assert!(baby.contains(&"B 8,2 NW 6,0 up".to_string()));
    assert!(baby.contains(&"B 8,2 SW 10,0 up".to_string()));
}

#[test]
fn spins_are_limited_by_cells_slid() {
    let game = Marathon::standard();
    let s = std_pic(&game, &[(5, "0M 0P 0B")], "", 0);
    let facings = |kind, dir: &str| -> Vec<String> {
        moves_of(&game, &s, kind)
            .into_iter()
            .filter(|m| m.split_whitespace().nth(2) == Some(dir))
            .map(|m| m.split_whitespace().last().unwrap().to_string())
            .collect()
    };
    assert_eq!(facings(Kind::Mama, "S"), strs(&["S", "SE", "SW"]));
    assert_eq!(facings(Kind::Papa, "S"), strs(&["E", "S", "SE", "SW", "W"]));
    assert_eq!(
        facings(Kind::Baby, "N"),
        strs(&["E", "N", "NE", "NW", "SE", "SW", "W"])
    );
    // Parsing a larger spin is an illegal move with the reason.
    let err = game.parse_move(&s, "M 5,0 S 6,0 E").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("at most 1×45°")),
        "{err}"
    );
}

#[test]
fn lying_piece_slides_only_where_it_points_or_stands() {
    let game = Marathon::standard();
    let s = std_pic(
        &game,
        &[(5, ". 0B:S ."), (2, "0P:E . ."), (9, ". . 0M:NE")],
        "",
        0,
    );
    let baby = moves_of(&game, &s, Kind::Baby);
    assert_eq!(baby.len(), 7 + 1);
    assert!(baby.contains(&"B 5,1 stand".to_string()));
    assert!(baby
        .iter()
        .filter(|m| !m.ends_with("stand"))
        .all(|m| m.starts_with("B 5,1 S 8,1 ")));
    // Papa on (2,0) facing E slides (2,1), (2,2): the full distance, lying.
    let papa = moves_of(&game, &s, Kind::Papa);
    assert_eq!(papa.len(), 5 + 1);
    // Mama on (9,2) facing NE: the first step leaves the course: only the stand.
    assert_eq!(moves_of(&game, &s, Kind::Mama), strs(&["M 9,2 stand"]));
    let err = game.parse_move(&s, "B 5,1 N 2,1 N").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("can only slide S")),
        "{err}"
    );
}

#[test]
fn stand_makes_a_lying_piece_upright() {
    let game = Marathon::standard();
    let mut s = std_pic(&game, &[(5, ". 0B:S ."), (7, "1M . .")], "", 0);
    let mv = game.parse_move(&s, "B 5,1 stand").unwrap();
    assert!(mv.is_stand() && mv.dst() == Some((5, 1)) && mv.facing().is_none());
    game.play_move(&mut s, &mv).unwrap();
    assert_eq!(
        game.place(&s, 0, Kind::Baby),
        Place::OnCourse {
            cell: (5, 1),
            facing: None
        }
    );
    // An upright piece cannot stand.
    let err = game.parse_move(&s, "M 7,0 stand").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("already upright")),
        "{err}"
    );
    // Nor a waiting one.
    let err = game.parse_move(&s, "P 7,0 stand").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("waiting")),
        "{err}"
    );
}

#[test]
fn blocked_slides_are_illegal() {
    let game = Marathon::standard();
    // The baby's S slide is blocked at its last cell, its N slide at its first.
    let s = std_pic(&game, &[(4, ". 1M ."), (5, ". 0B ."), (8, ". 1P .")], "", 0);
    let baby = moves_of(&game, &s, Kind::Baby);
    assert!(
        !baby
            .iter()
            .any(|m| m.starts_with("B 5,1 S ") || m.starts_with("B 5,1 N ")),
        "{baby:?}"
    );
    let err = game.parse_move(&s, "B 5,1 S 8,1 S").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("blocked") && m.contains("(8, 1)")),
        "{err}"
    );
    // One cell further away, the slide is free.
    let s = std_pic(&game, &[(5, ". 0B ."), (9, ". 1P .")], "", 0);
    assert!(moves_of(&game, &s, Kind::Baby).contains(&"B 5,1 S 8,1 S".to_string()));
    // A stop at the side is blocked too when the cell before the edge is occupied.
    let s = std_pic(&game, &[(5, ". 0B 1M")], "", 0);
    assert!(!moves_of(&game, &s, Kind::Baby)
        .iter()
        .any(|m| m.starts_with("B 5,1 E ")));
}

#[test]
fn slides_stop_upright_at_a_side_edge() {
    let game = Marathon::standard();
    let s = std_pic(&game, &[(5, "0M 0P ."), (8, ". 0B .")], "", 0);
    // Papa on (5,1) going W reaches (5,0)... occupied by the mama: blocked. Going E: (5,2), then
    // off the side: upright on (5,2), no spin.
    let papa = moves_of(&game, &s, Kind::Papa);
    assert!(papa.contains(&"P 5,1 E 5,2 up".to_string()));
    assert_eq!(papa.iter().filter(|m| m.starts_with("P 5,1 E ")).count(), 1);
    // Mama on (5,0) going W cannot move at all: illegal. Going E: blocked.
    let mama = moves_of(&game, &s, Kind::Mama);
    assert!(!mama
        .iter()
        .any(|m| m.starts_with("M 5,0 W ") || m.starts_with("M 5,0 E ")));
    let err = game.parse_move(&s, "M 5,0 W 5,0 up").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("leave the course at once")),
        "{err}"
    );
    // Reaching the edge cell with exactly the full distance is a full slide: lying, spins.
    let s = std_pic(&game, &[(5, ". 0M .")], "", 0);
    assert_eq!(
        moves_of(&game, &s, Kind::Mama)
            .iter()
            .filter(|m| m.starts_with("M 5,1 E 5,2 "))
            .count(),
        3
    );
    // Going back over the start line counts as a side.
    let s = std_pic(&game, &[(1, ". 0B .")], "", 0);
    assert!(moves_of(&game, &s, Kind::Baby).contains(&"B 1,1 N 0,1 up".to_string()));
}

#[test]
fn entries_diagonal_and_blocked() {
    let game = Marathon::standard();
    // (0,1) occupied: every entry through it is blocked.
    let s = std_pic(&game, &[(0, ". 1M .")], "", 0);
    let mama = moves_of(&game, &s, Kind::Mama);
    // Left: (0,0) by S from (-1,0) {S, SE, SW} and SW from (-1,1) {S, SW, W}; right: (0,2)
    // by S from (-1,2) {S, SE, SW} and SE from (-1,1) {E, SE, S}.
    assert_eq!(mama.len(), 4 + 4, "{mama:?}");
    assert!(mama.contains(&"M -1,1 SW 0,0 W".to_string()));
    let papa = moves_of(&game, &s, Kind::Papa);
    // Straight in at cols 0 and 2 (5 + 5), SE from (-1,1) and SW from (-1,1) stop at the side.
    assert_eq!(papa.len(), 5 + 5 + 2, "{papa:?}");
    let err = game.parse_move(&s, "P -1,1 S 1,1 S").unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("blocked")),
        "{err}"
    );
    let err = game.parse_move(&s, "P -1,0 SW 1,0 S").unwrap_err();
    assert!(matches!(&err, Error::IllegalMove(_)), "{err}");
    // A piece further on blocks an entry slide too.
    let s = std_pic(&game, &[(2, "1M . .")], "", 0);
    let baby = moves_of(&game, &s, Kind::Baby);
    assert!(!baby.iter().any(|m| m.starts_with("B -1,0 S ")));
    assert!(baby.iter().any(|m| m.starts_with("B -1,1 S ")));
}

#[test]
fn finishes_straight_diagonal_and_overshooting() {
    let game = Marathon::standard();
    let s = std_pic(&game, &[(10, "0B . ."), (11, ". . 0P")], "", 0);
    // Baby on (10,0): S crosses after one cell with two to spare; SE goes (11,1) then (12,2),
    // which is beyond the finish line: one finish move for both.
    let baby = moves_of(&game, &s, Kind::Baby);
    assert_eq!(baby.iter().filter(|m| m.ends_with("finish")).count(), 1);
    assert!(baby.contains(&"B 10,0 S finish".to_string()));
    // SW leaves at the side at once: illegal.
    assert!(!baby.iter().any(|m| m.starts_with("B 10,0 SW ")));
    // Papa on (11,2): SE crosses the corner of the finish line: a finish; so do S and SW.
    let papa = moves_of(&game, &s, Kind::Papa);
    assert!(papa.contains(&"P 11,2 S finish".to_string()));
    let mv = game.parse_move(&s, "P 11,2 SE finish").unwrap();
    assert_eq!(mv.to_string(), "P 11,2 S finish");
    assert!(mv.finishes() && mv.dst().is_none());
    // A lying piece pointed diagonally across the corner finishes too.
    let s = std_pic(&game, &[(11, "0M:SW . .")], "", 0);
    assert_eq!(
        moves_of(&game, &s, Kind::Mama),
        strs(&["M 11,0 SW finish", "M 11,0 stand"])
    );
    // … but one pointed along the last row does not.
    let s = std_pic(&game, &[(11, ". . 0M:E")], "", 0);
    assert_eq!(moves_of(&game, &s, Kind::Mama), strs(&["M 11,2 stand"]));
    // Blocked before the line: no finish.
    let s = std_pic(&game, &[(10, ". 0B ."), (11, "1M 1P 1B")], "", 0);
    assert!(!moves_of(&game, &s, Kind::Baby)
        .iter()
        .any(|m| m.ends_with("finish")));
}

#[test]
fn finishing_the_family_wins() {
    let game = Marathon::standard();
    let mut s = std_pic(
        &game,
        &[(11, ". 0B ."), (3, ". 1M .")],
        "finished: 0M 0P",
        0,
    );
    assert!(!game.is_over(&s));
    let mv = game.parse_move(&s, "B 11,1 S finish").unwrap();
    game.play_move(&mut s, &mv).unwrap();
    assert!(game.is_over(&s));
    assert_eq!(s.winner(), Some(0));
    assert_eq!(game.ranking(&s), vec![1, 2]);
    assert_eq!(&game.returns(&s)[..2], &[1.0, -1.0]);
    let mut list = ActionList::new();
    game.legal_actions(&s, &mut list);
    assert!(list.is_empty());
    // Three players: the others share second place.
    let game3 = game.with_players(3).unwrap();
    let s = pic(&game3, EMPTY12, 0);
    let s = game3
        .position(
            &[
                Piece {
                    owner: 1,
                    kind: Kind::Mama,
                    place: Place::Finished,
                },
                Piece {
                    owner: 1,
                    kind: Kind::Papa,
                    place: Place::Finished,
                },
                Piece {
                    owner: 1,
                    kind: Kind::Baby,
                    place: Place::Finished,
                },
            ],
            0,
            10,
        )
        .inspect(|t| assert_ne!(*t, s))
        .unwrap();
    assert_eq!(s.winner(), Some(1));
    assert_eq!(game3.ranking(&s), vec![2, 1, 2]);
    assert_eq!(&game3.returns(&s)[..3], &[-0.5, 1.0, -0.5]);
}

#[test]
fn a_player_without_a_legal_action_is_skipped() {
    let game = Marathon::standard().with_players(3).unwrap();
    // Player 1's mama in the corner, walled in by player 2; its papa and baby finished.
    let rows = [(0, "1M 2M ."), (1, "2P 2B ."), (6, ". 0B .")];
    let s = std_pic(&game, &rows, "finished: 1P 1B", 0);
    assert!(!game.has_legal(&s, 1));
    let mut t = s;
    let mv = game.parse_move(&t, "B 6,1 S 9,1 S").unwrap();
    game.play_move(&mut t, &mv).unwrap();
    assert_eq!(t.to_move(), Some(2));
    // A position given with player 1 to move passes to player 2.
    assert_eq!(
        std_pic(&game, &rows, "finished: 1P 1B", 1).to_move(),
        Some(2)
    );
}

#[test]
fn ply_limit_is_a_draw_but_a_win_on_the_last_ply_counts() {
    let game = Marathon::standard().with_ply_limit(3).unwrap();
    let mut s = game.new_state();
    let mut rng = Rng::new(1);
    for _ in 0..3 {
        let a = game.random_action(&s, &mut rng).unwrap();
        game.play(&mut s, a).unwrap();
    }
    assert!(game.is_over(&s));
    assert_eq!(s.winner(), None);
    assert_eq!(game.ranking(&s), vec![1, 1]);
    assert_eq!(&game.returns(&s)[..2], &[0.0, 0.0]);
    assert!(matches!(
        game.play(&mut s.clone(), 0),
        Err(Error::IllegalMove(_))
    ));

    let game = Marathon::standard().with_ply_limit(7).unwrap();
    let pieces = [
        Piece {
            owner: 0,
            kind: Kind::Mama,
            place: Place::Finished,
        },
        Piece {
            owner: 0,
            kind: Kind::Papa,
            place: Place::Finished,
        },
        Piece {
            owner: 0,
            kind: Kind::Baby,
            place: Place::OnCourse {
                cell: (11, 1),
                facing: None,
            },
        },
    ];
    let mut s = game.position(&pieces, 0, 6).unwrap();
    let mv = game.parse_move(&s, "B 11,1 S finish").unwrap();
    game.play_move(&mut s, &mv).unwrap();
    assert_eq!((s.ply(), s.winner()), (7, Some(0)));
    // At the limit already: over, a draw.
    let s = game.position(&pieces, 0, 7).unwrap();
    assert!(game.is_over(&s) && s.winner().is_none());
}

#[test]
fn nobody_able_to_move_is_a_draw() {
    // No such position is reachable on the bundled courses (the piece furthest toward the finish
    // can always slide on toward it), so this checks the rule on a doctored state: every cell
    // marked occupied, so nothing can slide but the baby on the last row, across the line.
    let game = Marathon::standard();
    let s = std_pic(
        &game,
        &[(11, ". 0B ."), (5, "1M 1P 1B"), (4, "0M 0P .")],
        "",
        0,
    );
    let mut s = State {
        occupied: u64::MAX >> (64 - game.course().len()),
        ..s
    };
    s.hash = game.hash_from_scratch(&s);
    assert!(!game.has_legal(&s, 1));
    let mv = game.parse_move(&s, "B 11,1 S finish").unwrap();
    game.apply(&mut s, mv.action);
    assert!(game.is_over(&s));
    assert_eq!((s.winner(), s.to_move()), (None, None));
    assert_eq!(&game.returns(&s)[..2], &[0.0, 0.0]);
    assert_eq!(game.hash(&s), game.hash_from_scratch(&s));
    assert!(game.render(&s).contains("nobody can move"));
}

#[test]
fn action_move_bijection_and_notation_round_trip_in_random_games() {
    for name in bundled_names() {
        for players in [2, 3, 5] {
            let game = Marathon::variant(name)
                .unwrap()
                .with_players(players)
                .unwrap();
            let mut rng = Rng::new(players as u64 * 77 + name.len() as u64);
            for _ in 0..6 {
                let mut s = game.new_state();
                let mut list = ActionList::new();
                while !game.is_over(&s) {
                    game.legal_actions(&s, &mut list);
                    assert!(!list.is_empty());
                    assert!(list.windows(2).all(|w| w[0] < w[1]), "ascending");
                    assert!(list.iter().all(|&a| (a as usize) < game.num_actions()));
                    let moves = game.legal_moves(&s);
                    assert_eq!(moves.len(), list.len());
                    let mut results = std::collections::HashSet::new();
                    for (mv, &a) in moves.iter().zip(list.iter()) {
                        assert_eq!(mv.action, a);
                        assert_eq!(mv.player, s.to_move().unwrap());
                        let text = mv.to_string();
                        let back = game.parse_move(&s, &text).unwrap();
                        assert_eq!(&back, mv, "{text}");
                        assert_eq!(game.describe(&s, a).unwrap(), *mv);
                        assert_eq!(game.action_of(mv.kind, mv.place).unwrap(), a);
                        // Distinct moves give distinct positions.
                        let mut t = s;
                        game.apply(&mut t, a);
                        assert!(
                            results.insert((t.cell, t.facing)),
                            "{text} repeats a position"
                        );
                    }
                    let a = list[rng.below(list.len())];
                    game.apply(&mut s, a);
                }
            }
        }
    }
}

#[test]
fn is_legal_agrees_with_the_legal_actions_for_every_action() {
    for name in bundled_names() {
        for players in [2, 4] {
            let game = Marathon::variant(name)
                .unwrap()
                .with_players(players)
                .unwrap();
            let mut rng = Rng::new(players as u64 * 31 + name.len() as u64);
            for _ in 0..3 {
                let mut s = game.new_state();
                let mut list = ActionList::new();
                loop {
                    game.legal_actions(&s, &mut list);
                    for a in 0..game.num_actions() as Action + 2 {
                        assert_eq!(game.is_legal(&s, a), list.contains(&a), "{name}: {a}");
                    }
                    if list.is_empty() {
                        break;
                    }
                    game.apply(&mut s, list[rng.below(list.len())]);
                }
            }
        }
    }
}

#[test]
fn hash_incremental_equals_from_scratch() {
    for name in bundled_names() {
        let game = Marathon::variant(name).unwrap().with_players(4).unwrap();
        let mut rng = Rng::new(9);
        for _ in 0..20 {
            let mut s = game.new_state();
            let mut seen = std::collections::HashMap::new();
            while let Some(a) = game.random_action(&s, &mut rng) {
                game.apply(&mut s, a);
                assert_eq!(game.hash(&s), game.hash_from_scratch(&s));
                // Same hash, same position (up to the ply): no collisions in practice.
                let key = (s.cell, s.facing, s.to_move);
                if let Some(old) = seen.insert(game.hash(&s), key) {
                    assert_eq!(old, key);
                }
            }
        }
    }
}

#[test]
fn random_action_matches_the_legal_list() {
    let game = Marathon::standard().with_players(3).unwrap();
    let mut r1 = Rng::new(5);
    let mut r2 = Rng::new(5);
    let mut s = game.new_state();
    let mut list = ActionList::new();
    while !game.is_over(&s) {
        game.legal_actions(&s, &mut list);
        let a = game.random_action(&s, &mut r1).unwrap();
        assert_eq!(a, list[r2.below(list.len())]);
        game.apply(&mut s, a);
    }
}

#[test]
fn random_games_end_and_respect_the_rules() {
    let game = Marathon::standard();
    let mut rng = Rng::new(3);
    let (mut wins, mut draws) = (0, 0);
    for _ in 0..200 {
        let mut s = game.new_state();
        let mut last = s;
        while let Some(a) = game.random_action(&s, &mut rng) {
            last = s;
            game.apply(&mut s, a);
            assert_eq!(s.ply(), last.ply() + 1);
            assert_eq!(
                s.occupied().count_ones() as usize,
                s.cell.iter().filter(|&&c| (c as usize) < MAX_CELLS).count()
            );
        }
        assert!(s.ply() <= game.ply_limit());
        match s.winner() {
            Some(w) => {
                wins += 1;
                assert_eq!(last.to_move(), Some(w));
            }
            None => draws += 1,
        }
    }
    assert!(wins > 0, "{wins} wins, {draws} draws");
}

#[test]
fn illegal_actions_leave_the_state_unchanged() {
    let game = Marathon::standard();
    let mut s = game.new_state();
    let before = s;
    // Mama straight onto (0,1) facing N: a spin of 4 is not allowed.
    let a = game
        .action_of(
            Kind::Mama,
            Place::OnCourse {
                cell: (0, 1),
                facing: Some(Dir::N),
            },
        )
        .unwrap();
    let err = game.play(&mut s, a).unwrap_err();
    assert!(
        matches!(&err, Error::IllegalMove(m) if m.contains("mama")),
        "{err}"
    );
    assert!(game.play(&mut s, 100_000).is_err());
    assert!(game.parse_move(&s, "X 0,0 S").is_err());
    assert!(matches!(game.parse_move(&s, "M 0,0"), Err(Error::Parse(_))));
    assert!(matches!(
        game.parse_move(&s, "M zz S 0,0 S"),
        Err(Error::Parse(_))
    ));
    assert_eq!(s, before);
}

#[test]
fn positions_are_validated() {
    let game = Marathon::standard();
    let on = |owner, kind, r, c| Piece {
        owner,
        kind,
        place: Place::OnCourse {
            cell: (r, c),
            facing: None,
        },
    };
    let err = game
        .position(&[on(0, Kind::Mama, 0, 0), on(1, Kind::Mama, 0, 0)], 0, 0)
        .unwrap_err();
    assert!(err.to_string().contains("already holds"), "{err}");
    let err = game.position(&[on(0, Kind::Mama, 0, 5)], 0, 0).unwrap_err();
    assert!(err.to_string().contains("not a cell"), "{err}");
    let err = game.position(&[on(2, Kind::Mama, 0, 0)], 0, 0).unwrap_err();
    assert!(err.to_string().contains("owner 2"), "{err}");
    let err = game
        .position(&[on(0, Kind::Mama, 0, 0), on(0, Kind::Mama, 1, 0)], 0, 0)
        .unwrap_err();
    assert!(err.to_string().contains("twice"), "{err}");
    assert!(game.position(&[], 2, 0).is_err());
    assert!(game.position(&[], 0, 501).is_err());
}

#[test]
fn course_configs_are_checked_with_places() {
    let parse = |map: &str| Course::parse(map).map(|_| ()).unwrap_err().to_string();
    let e = parse("SSS\n###\n#x#\n###\nFFF");
    assert!(
        e.contains("line 3, column 2") && e.contains("unknown symbol 'x'"),
        "{e}"
    );
    let e = parse("SSS\n###\n###\n###\n\n###\n###\n###\nFFF");
    assert!(
        e.contains("not connected") && e.contains("cell (4, 0)"),
        "{e}"
    );
    let e = parse("###\n###\n###\nFFF");
    assert!(e.contains("no start line"), "{e}");
    let e = parse("SSS\n###\n###\n###");
    assert!(e.contains("no finish line"), "{e}");
    let e = parse("SSS\n####\n###\n###\nFFF");
    assert!(e.contains("3×3 coaster"), "{e}");
    let e = parse("S.S\n###\n###\n###\nFFF");
    assert!(e.contains("gap"), "{e}");
    let e = parse("SS.\n###S\n###\n###\nFFF");
    assert!(e.contains("straight edge"), "{e}");
    let e = parse("SSS\n###\n###\n###\n.F.\n.F.");
    assert!(e.contains("not directly beside"), "{e}");
    // In a TOML file, places are lines of the file.
    let toml =
        "game = \"marathon\"\nname = \"bad\"\ncourse = \"\"\"\nSSS\n###\n#?#\n###\nFFF\n\"\"\"\n";
    let e = Config::from_toml(toml, "bad.toml").unwrap_err().to_string();
    assert!(e.starts_with("bad.toml: line 6, column 2:"), "{e}");
    let e = Config::from_toml(
        "game = \"marathon\"\ncourse = \"SSS\"\nplayerz = 3\n",
        "x.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("playerz") && e.contains("line 3"), "{e}");
    let e = Config::from_toml(
        "game = \"fish\"\ncourse = \"SSS\\n###\\n###\\n###\\nFFF\"\n",
        "x.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("fish"), "{e}");
    let e = Config::from_toml(
        "course = \"SSS\\n###\\n###\\n###\\nFFF\"\nplayers = 6\n",
        "x.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("2 to 5"), "{e}");
    let e = Config::from_json("{\"course\": \"SSS\\n#q#\"}", "dict")
        .unwrap_err()
        .to_string();
    assert!(e.contains("course map line 2, column 2"), "{e}");
}

#[test]
fn bundled_courses_have_the_documented_shapes() {
    let std = Marathon::variant("standard").unwrap();
    assert_eq!((std.course().size(), std.course().len()), ((12, 3), 36));
    assert_eq!(std.course().start_dir(), Dir::S);
    assert_eq!(std.course().start_origins(), &[(-1, 0), (-1, 1), (-1, 2)]);
    assert_eq!(std.course().finish_line(), &[(12, 0), (12, 1), (12, 2)]);
    assert_eq!(crate::game::Game::num_actions(&std), 975);
    let five = Marathon::variant("5").unwrap();
    assert_eq!((five.course().size(), five.course().len()), ((15, 3), 45));
    let l = Marathon::variant("L").unwrap();
    assert_eq!((l.course().size(), l.course().len()), ((9, 6), 36));
    assert_eq!(l.course().start_dir(), Dir::N);
    assert_eq!(l.course().start_origins(), &[(9, 0), (9, 1), (9, 2)]);
    assert_eq!(l.course().finish_dir(), Dir::E);
    assert_eq!(l.course().finish_line(), &[(0, 6), (1, 6), (2, 6)]);
    assert!(l.course().cell_at(3, 3).is_none() && l.course().cell_at(2, 5).is_some());
    let z = Marathon::variant("zigzag").unwrap();
    assert_eq!(z.course().finish_line(), &[(9, 3), (9, 4), (9, 5)]);
    assert!(z.course().cell_at(0, 3).is_none() && z.course().cell_at(8, 5).is_some());
    // The map and the config round-trip.
    for name in bundled_names() {
        let g = Marathon::variant(name).unwrap();
        let again = Config::from_toml(&g.config().to_toml(), "again")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(again.course().to_map(), g.course().to_map());
        assert_eq!(again.name(), g.name());
        assert_eq!(again.description(), g.description());
    }
    assert!(Marathon::variant("nope").is_err());
}

#[test]
fn finishing_on_the_l_course_goes_east() {
    let game = Marathon::variant("l").unwrap();
    let pieces = [Piece {
        owner: 0,
        kind: Kind::Papa,
        place: Place::OnCourse {
            cell: (2, 5),
            facing: None,
        },
    }];
    let s = game.position(&pieces, 0, 0).unwrap();
    let papa = moves_of(&game, &s, Kind::Papa);
    assert!(papa.contains(&"P 2,5 E finish".to_string()), "{papa:?}");
    // SE: across the corner of the finish line; S: off the side (the bar's bottom edge).
    assert!(!papa.iter().any(|m| m.starts_with("P 2,5 S ")));
    // Entering moves north from below row 8.
    let s = game.new_state();
    assert!(moves_of(&game, &s, Kind::Mama).contains(&"M 9,1 N 8,1 N".to_string()));
}

#[test]
fn render_shows_the_course_and_pieces() {
    let game = Marathon::standard();
    let s = std_pic(
        &game,
        &[(0, ". 0M:S ."), (1, "1B:NE . 0P")],
        "finished: 1M",
        1,
    );
    let text = game.render(&s);
    assert!(text.ends_with("\nB to move"), "{text}");
    assert!(
        text.contains("Am:S") && text.contains("Bb:NE") && text.contains("Ap"),
        "{text}"
    );
    assert!(text.contains("\nA player 0: waiting baby\n"), "{text}");
    assert!(
        text.contains("\nB player 1: waiting papa; finished mama\n"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[2].trim_start().starts_with("-1") && lines[2].contains('S'),
        "{text}"
    );
    assert!(
        lines[15].trim_start().starts_with("12") && lines[15].contains('F'),
        "{text}"
    );
}

#[test]
fn custom_courses_small_and_sideways() {
    // One coaster: a baby entering straight lies on the last row, its slide used up.
    let game = coaster();
    let s = game.new_state();
    let baby = moves_of(&game, &s, Kind::Baby);
    assert!(!baby.contains(&"B -1,1 S 2,1 N".to_string()));
    assert!(baby.contains(&"B -1,1 S 2,1 W".to_string()));
    assert_eq!(baby.len(), 25);
    // Entering from the left side, finishing at the bottom: a diagonal entry can finish.
    let game = Config {
        course: "S###\nS###\nS###\n.FFF\n".into(),
        ..game.config()
    }
    .build()
    .unwrap();
    assert_eq!(game.course().start_dir(), Dir::E);
    let s = game.new_state();
    let papa = moves_of(&game, &s, Kind::Papa);
    assert!(papa.contains(&"P 1,-1 SE finish".to_string()), "{papa:?}");
    assert!(!papa.iter().any(|m| m.starts_with("P 2,-1 SE")));
    let mut t = s;
    game.play_move(&mut t, &game.parse_move(&s, "P 1,-1 SE finish").unwrap())
        .unwrap();
    assert_eq!(game.place(&t, 0, Kind::Papa), Place::Finished);
    assert_eq!(t.to_move(), Some(1));
}

/// Legal actions straight from the rules' rays (slow, simple), for checking the fast tables.
fn reference_actions(game: &Marathon, s: &State) -> Vec<Action> {
    let Some(p) = s.to_move() else {
        return Vec::new();
    };
    let n = game.course().len() as u32;
    let mut out = Vec::new();
    for kind in 0..PIECES {
        let slot = p * PIECES + kind;
        let mut pm = PieceMoves::new();
        match s.cell[slot] {
            FINISHED => {}
            WAITING => movegen::entry_moves(game.course(), kind, s.occupied, &mut pm),
            c => {
                let f = s.facing[slot];
                for d in 0..8 {
                    let ray = &game.course().slides[c as usize][kind][d];
                    if (f == UPRIGHT || f as usize == d) && ray.path & s.occupied == 0 {
                        add_ray(&mut pm, ray, kind, d);
                    }
                }
                if f != UPRIGHT {
                    pm.add(c, 1 << UPRIGHT);
                }
            }
        }
        for r in 0..pm.count() {
            out.push(kind as u32 * (9 * n + 1) + pm.nth(r, n));
        }
    }
    out
}

#[test]
fn fast_generation_matches_the_reference() {
    for name in bundled_names() {
        let game = Marathon::variant(name).unwrap().with_players(3).unwrap();
        let mut rng = Rng::new(11);
        let mut list = ActionList::new();
        for _ in 0..30 {
            let mut s = game.new_state();
            while !game.is_over(&s) {
                game.legal_actions(&s, &mut list);
                assert_eq!(
                    list.to_vec(),
                    reference_actions(&game, &s),
                    "{name}\n{}",
                    game.render(&s)
                );
                assert_eq!(game.count_legal(&s), list.len());
                let a = game.random_action(&s, &mut rng).unwrap();
                game.apply(&mut s, a);
            }
        }
    }
}

#[test]
fn random_playout_matches_step_by_step_play() {
    for players in [2, 4] {
        let game = Marathon::standard().with_players(players).unwrap();
        for seed in 0..20 {
            let mut fast = game.new_state();
            let winner = game.random_playout(&mut fast, &mut Rng::new(seed));
            let mut slow = game.new_state();
            let mut rng = Rng::new(seed);
            while let Some(a) = game.random_action(&slow, &mut rng) {
                game.apply(&mut slow, a);
            }
            assert_eq!(fast, slow);
            assert_eq!(winner, slow.winner());
        }
    }
}

#[test]
fn json_round_trips_and_rejects_nonsense() {
    for name in bundled_names() {
        let game = Marathon::variant(name).unwrap().with_players(3).unwrap();
        let mut rng = Rng::new(4);
        let mut s = game.new_state();
        for _ in 0..400 {
            let text = json::to_json(&game, &s);
            let (g2, s2) = json::from_json(&text).unwrap();
            assert_eq!(s2, s);
            assert_eq!(g2.config(), game.config());
            let Some(a) = game.random_action(&s, &mut rng) else {
                break;
            };
            game.apply(&mut s, a);
        }
    }
    let game = Marathon::standard();
    let text = json::to_json(&game, &game.new_state());
    assert_eq!(
        json::from_json(&text.replace("\"to_move\":0", "\"to_move\":1"))
            .unwrap()
            .1
            .to_move(),
        Some(1)
    );
    assert!(json::from_json(&text.replace("\"to_move\":0", "\"to_move\":7")).is_err());
    assert!(json::from_json(&text.replace("\"to_move\":0", "\"to_move\":null")).is_err());
    assert!(json::from_json(&text.replace("mama", "granny")).is_err());
    assert!(json::from_json(&text.replace("\"ply\":0", "\"ply\":501")).is_err());
    assert!(json::from_json(&text.replace("\"winner\":null", "\"winner\":1")).is_err());
    assert!(json::from_json(&text[..text.len() / 2]).is_err());
    assert!(json::from_json("[]").is_err());
}
