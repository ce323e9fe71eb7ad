//! The symmetries of a Marathon course ([`crate::symmetry::Symmetry`]): the maps of the square
//! grid (4 turns, 4 reflections) that take the course's cells onto themselves, its start places
//! onto its start places and its finish line onto its finish line. The straight courses
//! (`marathon`, `marathon-5`) have 2 (the identity and the left-right mirror); the L and the
//! zigzag have only the identity (the zigzag's half turn swaps start and finish).
//!
//! Names: `"identity"`, `"rotate-90"`, `"rotate-180"`, `"rotate-270"` (clockwise), `"mirror"`
//! (left-right), `"mirror-rotate-90"`, ... (the mirror, then the turn). A lying piece's facing
//! turns with the board, so the observation's facing planes are permuted too.

use std::collections::HashSet;

use super::game::MarathonGame;
use super::io::observation_planes;
use super::state::{MarathonState, FINISHED, UPRIGHT, WAITING};
use super::Dir;
use crate::game::{Action, Game};
use crate::symmetry::Symmetry;

/// The `k`-th of the 8 linear maps of the square grid on `(row, col)`: the left-right mirror
/// when `k >= 4`, then `k % 4` quarter turns clockwise.
fn linear(k: usize, (r, c): (i32, i32)) -> (i32, i32) {
    let (mut r, mut c) = if k >= 4 { (r, -c) } else { (r, c) };
    for _ in 0..k % 4 {
        (r, c) = (c, -r);
    }
    (r, c)
}

fn name(k: usize) -> String {
    match (k >= 4, k % 4) {
        (false, 0) => "identity".into(),
        (false, t) => format!("rotate-{}", 90 * t),
        (true, 0) => "mirror".into(),
        (true, t) => format!("mirror-rotate-{}", 90 * t),
    }
}

/// The symmetries of `game`'s course, the identity first (see the module docs).
pub fn symmetries(game: &MarathonGame) -> Vec<Symmetry> {
    let course = game.course();
    let (rows, cols) = course.size();
    let n = course.len() as u32;
    let domain: HashSet<(i32, i32)> = course.coords().iter().copied().collect();
    let first = *domain.iter().min().expect("a course has cells");
    let mut out = Vec::new();
    for k in 0..8 {
        let low = domain
            .iter()
            .map(|&p| linear(k, p))
            .min()
            .expect("not empty");
        let (tr, tc) = (first.0 - low.0, first.1 - low.1);
        let map = |p: (i32, i32)| {
            let (r, c) = linear(k, p);
            (r + tr, c + tc)
        };
        let same = |places: &[(i32, i32)]| {
            let set: HashSet<_> = places.iter().copied().collect();
            places.iter().all(|&p| set.contains(&map(p)))
        };
        if !(domain.iter().all(|&p| domain.contains(&map(p)))
            && same(course.start_origins())
            && same(course.finish_line()))
        {
            continue;
        }
        let dirs: [usize; 8] = std::array::from_fn(|d| {
            let to = linear(k, Dir::from_index(d).delta());
            (0..8)
                .find(|&e| Dir::from_index(e).delta() == to)
                .expect("a grid direction")
        });
        // Course cell index -> course cell index.
        let cell_map: Vec<u32> = (0..n)
            .map(|i| {
                let (r, c) = map(course.coord(i as u8));
                course.cell_at(r, c).expect("a course cell") as u32
            })
            .collect();
        let mut cells: Vec<u32> = (0..(rows * cols) as u32).collect();
        for (i, &(r, c)) in course.coords().iter().enumerate() {
            let (r2, c2) = course.coord(cell_map[i] as u8);
            cells[r as usize * cols + c as usize] = (r2 as usize * cols + c2 as usize) as u32;
        }
        let per_kind = 9 * n + 1;
        let actions: Vec<Action> = (0..game.num_actions() as u32)
            .map(|a| {
                let (kind, result) = (a / per_kind, a % per_kind);
                if result == 9 * n {
                    return a;
                }
                let (cell, facing) = (result / 9, result % 9);
                let facing = if facing == 8 {
                    8
                } else {
                    dirs[facing as usize] as u32
                };
                kind * per_kind + cell_map[cell as usize] * 9 + facing
            })
            .collect();
        let facing_planes = 1 + 3 * game.players() as u32;
        let planes: Vec<u32> = (0..observation_planes(game.players()) as u32)
            .map(|p| match p.checked_sub(facing_planes) {
                Some(f) if f < 8 => facing_planes + dirs[f as usize] as u32,
                _ => p,
            })
            .collect();
        out.push(Symmetry {
            name: name(k),
            actions,
            cells,
            planes,
        });
    }
    out
}

/// The image of `s` under `sym` (one of [`symmetries`] of `game`): the same game, every piece
/// on the cell and facing the symmetry takes it to.
pub fn transform(game: &MarathonGame, sym: &Symmetry, s: &MarathonState) -> MarathonState {
    let course = game.course();
    let cols = course.size().1;
    // The course cell index of the image of course cell `i`.
    let image = |i: u8| {
        let (r, c) = course.coord(i);
        let to = sym.cells[r as usize * cols + c as usize] as usize;
        course
            .cell_at((to / cols) as i32, (to % cols) as i32)
            .expect("a course cell")
    };
    // A facing's image, read off the action map of a lying mama on cell 0.
    let facing = |f: u8| {
        let a = sym.actions[f as usize] as usize;
        (a % 9) as u8
    };
    let mut out = *s;
    out.occupied = 0;
    for slot in 0..out.cell.len() {
        let c = s.cell[slot];
        if c == WAITING || c == FINISHED {
            continue;
        }
        out.cell[slot] = image(c);
        out.occupied |= 1 << out.cell[slot];
        if s.facing[slot] != UPRIGHT {
            out.facing[slot] = facing(s.facing[slot]);
        }
    }
    out.hash = game.hash_from_scratch(&out);
    out
}

/// [`transform`], checked.
///
/// # Errors
/// `Error::Invalid` when `sym` is none of the symmetries of `game`'s course.
pub fn checked_transform(
    game: &MarathonGame,
    sym: &Symmetry,
    s: &MarathonState,
) -> crate::error::Result<MarathonState> {
    let syms = symmetries(game);
    match syms.iter().find(|t| t.same_map(sym)) {
        Some(sym) => Ok(transform(game, sym, s)),
        None => Err(crate::error::Error::Invalid(format!(
            "the symmetry {:?} is not a symmetry of this state's course (take it from \
             game.symmetries() of the same course)",
            sym.name
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ActionList;
    use crate::io::GameIo;
    use crate::rng::Rng;
    use crate::symmetry::check_group;

    #[test]
    fn bundled_courses() {
        for (name, want) in [
            ("marathon", vec!["identity", "mirror"]),
            ("marathon-5", vec!["identity", "mirror"]),
            ("marathon-l", vec!["identity"]),
            ("marathon-zigzag", vec!["identity"]),
        ] {
            let game = MarathonGame::variant(name).unwrap();
            let syms = symmetries(&game);
            let names: Vec<&str> = syms.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, want, "{name}");
            check_group(&syms).unwrap();
            let (mut list, mut image) = (ActionList::new(), ActionList::new());
            for seed in 0..4 {
                let mut rng = Rng::new(seed);
                let mut s = game.new_state();
                for _ in 0..200 {
                    if game.is_over(&s) {
                        break;
                    }
                    game.legal_actions(&s, &mut list);
                    for sym in &syms {
                        let t = transform(&game, sym, &s);
                        game.legal_actions(&t, &mut image);
                        let mut mapped: Vec<Action> =
                            list.iter().map(|&a| sym.actions[a as usize]).collect();
                        mapped.sort_unstable();
                        assert_eq!(mapped, image.to_vec(), "{name} {}", sym.name);
                        let mut obs = vec![0.0; game.observation_len()];
                        let (mut got, mut want) = (obs.clone(), obs.clone());
                        game.write_observation(&s, 0, &mut obs);
                        game.write_observation(&t, 0, &mut got);
                        sym.transform_observation(&obs, &mut want);
                        assert_eq!(want, got, "{name} {}", sym.name);
                        let mut child = s;
                        let a = list[0];
                        game.apply(&mut child, a);
                        let mut t_child = t;
                        game.apply(&mut t_child, sym.actions[a as usize]);
                        assert_eq!(
                            transform(&game, sym, &child),
                            t_child,
                            "{name} {}",
                            sym.name
                        );
                    }
                    game.apply(&mut s, list[rng.below(list.len())]);
                }
            }
        }
    }
}
