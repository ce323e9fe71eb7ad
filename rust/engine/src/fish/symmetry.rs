//! The symmetries of a Fish board ([`crate::symmetry::Symmetry`]): the isometries of the hex
//! lattice (6 rotations, 6 reflections) that map the board's floes onto themselves, found by
//! trying each of the 12 in axial coordinates and translating the image back onto the board.
//!
//! A fixed board (a custom grid, or the standard layout with its fish given) must keep every
//! floe's fish too; a board dealt per game (the standard variant) is mapped as a shape, its fish
//! going with the cells, so that [`transform`] of a state is a state of the mirrored deal. The
//! standard board has exactly 2 (the identity and the left-right mirror: its 7-floe rows sit
//! half a hex to the right, so no rotation and no top-bottom mirror maps it onto itself); a
//! hexagon of hexes has 12; an irregular board just the identity.
//!
//! Names: `"identity"`, `"rotate-60"` ... `"rotate-300"` (counterclockwise, degrees),
//! `"mirror"` (left-right, about a vertical axis) and `"reflect-A"` (about an axis at `A`
//! degrees counterclockwise from east: 0, 30, 60, 120, 150).
//!
//! Off the map (cells that never hold a floe), and for actions that can never be legal (a slide
//! through or onto such a cell), the permutations are the identity.

use std::collections::HashSet;

use super::any::{AnyFish, AnyFishState, Width};
use super::bitboard::{Bitboard, Cell, Word};
use super::board::{Board, Direction};
use super::state::{FishGame, FishState};
use crate::error::{Error, Result};
use crate::game::{Action, Game};
use crate::io::GameIo;
use crate::symmetry::Symmetry;

/// Axial hex coordinates `(q, r)` of `(row, col)` in the even-r offset layout.
fn axial(row: i64, col: i64) -> (i64, i64) {
    (col - (row + (row & 1)) / 2, row)
}

/// `(row, col)` of axial `(q, r)`.
fn offset((q, r): (i64, i64)) -> (i64, i64) {
    (r, q + (r + (r & 1)) / 2)
}

/// The `k`-th of the 12 linear isometries: rotation by `60 * (k % 6)` degrees
/// counterclockwise, after a reflection when `k >= 6`.
fn linear(k: usize, (q, r): (i64, i64)) -> (i64, i64) {
    // Cube coordinates (x, y, z) = (q, -q - r, r).
    let (mut x, mut y, mut z) = (q, -q - r, r);
    if k >= 6 {
        // One reflection (swapping y and z); with the six rotations it gives all six.
        std::mem::swap(&mut y, &mut z);
    }
    for _ in 0..k % 6 {
        // A turn by 60 degrees (which way is read off by `name`).
        (x, y, z) = (-y, -z, -x);
    }
    (x, z)
}

/// The axial step of each direction, in [`Direction::ALL`] order.
const STEPS: [(i64, i64); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// The angle of an axial vector on the screen, in degrees counterclockwise from east.
fn angle((q, r): (i64, i64)) -> f64 {
    let (x, y) = (q as f64 + r as f64 / 2.0, -(r as f64) * 3f64.sqrt() / 2.0);
    y.atan2(x).to_degrees().rem_euclid(360.0)
}

/// The name of linear isometry `k` (see the module docs).
fn name(k: usize) -> String {
    let east = angle(linear(k, STEPS[0])).round() as i64 % 360;
    if k < 6 {
        return match east {
            0 => "identity".into(),
            a => format!("rotate-{a}"),
        };
    }
    match (east / 2) % 180 {
        90 => "mirror".into(),
        a => format!("reflect-{a}"),
    }
}

/// The symmetries of `game`'s board, the identity first (see the module docs).
pub fn symmetries<W: Word>(game: &FishGame<W>) -> Vec<Symmetry> {
    symmetries_keeping(game, !game.is_dealt())
}

/// The symmetries of `game`'s board that keep every floe's fish, dealt or not: those under
/// which positions of this very game have equal values (what the solver folds together).
pub fn fish_symmetries<W: Word>(game: &FishGame<W>) -> Vec<Symmetry> {
    symmetries_keeping(game, true)
}

fn symmetries_keeping<W: Word>(game: &FishGame<W>, keep_fish: bool) -> Vec<Symmetry> {
    let board = game.board();
    let floes = board.floes();
    let at = |c: Cell| {
        let (r, col) = board.coords(c);
        axial(r as i64, col as i64)
    };
    let domain: HashSet<(i64, i64)> = floes.into_iter().map(at).collect();
    let Some(&first) = domain.iter().min_by_key(|&&(q, r)| (r, q)) else {
        return vec![Symmetry::identity(
            game.num_actions(),
            board.num_cells(),
            game.observation_shape()[0],
        )];
    };
    let mut out: Vec<Symmetry> = Vec::new();
    for k in 0..12 {
        let image: Vec<(i64, i64)> = domain.iter().map(|&p| linear(k, p)).collect();
        let low = *image
            .iter()
            .min_by_key(|&&(q, r)| (r, q))
            .expect("not empty");
        let (tq, tr) = (first.0 - low.0, first.1 - low.1);
        let map = |p: (i64, i64)| {
            let (q, r) = linear(k, p);
            (q + tq, r + tr)
        };
        if !domain.iter().all(|&p| domain.contains(&map(p))) {
            continue;
        }
        let cell_of = |p: (i64, i64)| {
            let (r, c) = offset(p);
            board.cell(r, c).expect("a floe of the board")
        };
        let mut cells: Vec<u32> = (0..board.num_cells() as u32).collect();
        for c in floes {
            cells[c as usize] = cell_of(map(at(c))) as u32;
        }
        if keep_fish
            && floes
                .into_iter()
                .any(|c| board.fish(c) != board.fish(cells[c as usize] as Cell))
        {
            continue;
        }
        let dirs: [usize; 6] = std::array::from_fn(|d| {
            let to = linear(k, STEPS[d]);
            STEPS
                .iter()
                .position(|&s| s == to)
                .expect("a lattice direction")
        });
        let sym = Symmetry {
            name: name(k),
            actions: actions(board, floes, &cells, &dirs),
            cells,
            planes: (0..game.observation_shape()[0] as u32).collect(),
        };
        if !out.iter().any(|s| s.same_map(&sym)) {
            out.push(sym);
        }
    }
    out
}

/// The action permutation of a cell map `cells` (on `floes`) with direction map `dirs`.
fn actions<W: Word>(
    board: &Board<W>,
    floes: Bitboard<W>,
    cells: &[u32],
    dirs: &[usize; 6],
) -> Vec<Action> {
    let n = board.num_cells();
    let md = board.max_distance();
    let mut out: Vec<Action> = (0..board.num_actions() as Action).collect();
    for (a, image) in out.iter_mut().enumerate().take(n) {
        let c = board.from_dense(a);
        if floes.contains(c) {
            *image = board.dense(cells[c as usize] as Cell) as Action;
        }
    }
    // A slide is live when its start and every cell slid over are floes of the map: walked
    // once per start and direction, each distance one step further (not from the start again,
    // which made this quadratic in the board's width).
    for rest in 0..n * 6 {
        let (from, dir) = (board.from_dense(rest / 6), Direction::ALL[rest % 6]);
        if !floes.contains(from) {
            continue;
        }
        let to_dir = Direction::ALL[dirs[dir as usize]];
        let mut at = from;
        for distance in 1..=md {
            match board.step(at, dir) {
                Some(next) if floes.contains(next) => at = next,
                _ => break,
            }
            out[n + rest * md + distance - 1] =
                board.slide_action(cells[from as usize] as Cell, to_dir, distance) as Action;
        }
    }
    out
}

/// The image of `s` under `sym` (one of [`symmetries`] of `game`), with its game: `game`
/// itself for a fixed board (whose fish the symmetry keeps), the mirrored deal for a board
/// dealt per game.
pub fn transform<W: Word>(
    game: &FishGame<W>,
    sym: &Symmetry,
    s: &FishState<W>,
) -> (FishGame<W>, FishState<W>) {
    let image_game = if game.is_dealt() {
        let board = game.board();
        let mut grid = board.grid();
        let cols = board.cols();
        for c in board.cells() {
            let to = sym.cells[c as usize] as usize;
            grid[to / cols][to % cols] = board.fish(c);
        }
        let mirrored = Board::from_grid(&grid).expect("the same shape");
        FishGame::new(*game.rules(), mirrored)
            .as_dealt()
            .expect("a deal of the standard layout")
    } else {
        game.clone()
    };
    let out = map_state(&image_game, sym, s);
    (image_game, out)
}

/// The image of `s` under `sym` as a state of `game` (whose board `sym` must keep, fish
/// included: one of [`fish_symmetries`]).
pub fn map_state<W: Word>(game: &FishGame<W>, sym: &Symmetry, s: &FishState<W>) -> FishState<W> {
    let map = |bb: Bitboard<W>| {
        bb.into_iter().fold(Bitboard::EMPTY, |out, c| {
            out.with(sym.cells[c as usize] as Cell)
        })
    };
    let mut out = *s;
    out.floes = map(s.floes);
    for (to, from) in out.penguins.iter_mut().zip(s.penguins) {
        *to = map(from);
    }
    out.hash = game.hash_from_scratch(&out);
    out
}

/// [`symmetries`] of an [`AnyFish`] game (compiled here, once per width).
pub fn any_symmetries(game: &AnyFish) -> Vec<Symmetry> {
    crate::fish::any::with_fish!(game, |g| symmetries(&**g))
}

/// [`transform`] on an [`AnyFish`] game, checked: the image state, with its game when that is
/// another one (the mirrored deal of a board dealt per game; `None` for a fixed board, whose
/// game is the same).
///
/// # Errors
/// `Error::Invalid` when `sym` is none of the symmetries of `game`'s board, or the state is of
/// another board.
pub fn any_transform(
    game: &AnyFish,
    sym: &Symmetry,
    s: &AnyFishState,
) -> Result<(Option<AnyFish>, AnyFishState)> {
    fn image<W: Width>(
        g: &FishGame<W>,
        given: &Symmetry,
        s: &FishState<W>,
    ) -> Result<(Option<AnyFish>, AnyFishState)> {
        let syms = symmetries(g);
        let Some(sym) = syms.iter().find(|t| t.same_map(given)) else {
            return Err(Error::Invalid(format!(
                "the symmetry {:?} is not a symmetry of this state's board (take it from \
                 game.symmetries() of the same board)",
                given.name
            )));
        };
        let (g2, s2) = transform(g, sym, s);
        let game = g.is_dealt().then(|| AnyFish::from(g2));
        Ok((game, W::any_state(s2)))
    }
    crate::fish::any::with_fish_state!(
        game,
        s,
        |g, s| image(&**g, sym, s),
        Err(Error::Invalid("a Fish state of another board".into()))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::{Order, Placement, Rules};
    use crate::game::ActionList;
    use crate::rng::Rng;
    use crate::symmetry::check_group;

    fn hexagon(radius: i64) -> Vec<Vec<u8>> {
        // A hexagon of hexes around the centre of a (2r+1) x (2r+1) grid; the centre row is
        // even, so offsets line up.
        let n = 2 * radius + 1;
        let centre = axial(radius, radius);
        (0..n)
            .map(|row| {
                (0..n)
                    .map(|col| {
                        let (q, r) = axial(row, col);
                        let (dq, dr) = (q - centre.0, r - centre.1);
                        u8::from((dq.abs() + dr.abs() + (dq + dr).abs()) / 2 <= radius)
                    })
                    .collect()
            })
            .collect()
    }

    fn check_moves<W: Word>(game: &FishGame<W>, seed: u64) {
        let syms = symmetries(game);
        check_group(&syms).unwrap();
        let mut rng = Rng::new(seed);
        let mut s = game.initial_state();
        let (mut list, mut image) = (ActionList::new(), ActionList::new());
        while !game.is_over(&s) {
            for sym in &syms {
                let (g2, s2) = transform(game, sym, &s);
                game.legal_actions(&s, &mut list);
                g2.legal_actions(&s2, &mut image);
                let mut mapped: Vec<Action> =
                    list.iter().map(|&a| sym.actions[a as usize]).collect();
                mapped.sort_unstable();
                assert_eq!(mapped, image.to_vec(), "{}", sym.name);
                assert_eq!(g2.to_move(&s2), game.to_move(&s));
                let mut obs = vec![0.0; game.observation_len()];
                let mut obs2 = obs.clone();
                let mut want = obs.clone();
                game.write_observation(&s, 0, &mut obs);
                g2.write_observation(&s2, 0, &mut obs2);
                sym.transform_observation(&obs, &mut want);
                assert_eq!(want, obs2, "{}", sym.name);
            }
            game.legal_actions(&s, &mut list);
            game.apply(&mut s, list[rng.below(list.len())]);
        }
    }

    /// The solver's value at positions along seeded random games, from `after` plies on,
    /// equals the value of every transformed position.
    fn check_values<W: Word>(game: &FishGame<W>, seed: u64, after: usize) {
        let syms = symmetries(game);
        let mut rng = Rng::new(seed);
        let mut s = game.initial_state();
        let mut list = ActionList::new();
        let mut ply = 0;
        while !game.is_over(&s) {
            if ply >= after {
                let value = crate::fish::solver::solve(game, &s, 5_000_000)
                    .unwrap()
                    .value;
                for sym in &syms {
                    let (g2, s2) = transform(game, sym, &s);
                    let v2 = crate::fish::solver::solve(&g2, &s2, 5_000_000)
                        .unwrap()
                        .value;
                    assert_eq!(v2, value, "{} at ply {ply}", sym.name);
                }
            }
            game.legal_actions(&s, &mut list);
            game.apply(&mut s, list[rng.below(list.len())]);
            ply += 1;
        }
    }

    #[test]
    fn values_are_equal_under_symmetry() {
        // A hexagon of 19 floes, fish by ring (3 in the centre, then 2, then 1), 1 penguin
        // each: solved from the third slide on.
        let mut grid = hexagon(2);
        for (r, row) in grid.iter_mut().enumerate() {
            for (c, f) in row.iter_mut().enumerate() {
                let (q, rr) = axial(r as i64, c as i64);
                let (dq, dr) = (q - axial(2, 2).0, rr - 2);
                let ring = (dq.abs() + dr.abs() + (dq + dr).abs()) / 2;
                if *f > 0 {
                    *f = 3 - ring as u8;
                }
            }
        }
        let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        assert_eq!(symmetries(&game).len(), 12);
        for seed in 0..2 {
            check_values(&game, seed, 4);
        }
        // The standard board (its mirror maps a deal to the mirrored deal): late positions.
        for seed in 0..2 {
            let game = FishGame::dealt(Rules::standard(2).unwrap(), seed);
            check_values(&game, seed, 44);
        }
    }

    #[test]
    fn every_action_maps_as_its_slide_walked_cell_by_cell() {
        // The whole permutation, dead slides included, against its definition: a slide is live
        // when its start and each cell slid over, walked from the start, are floes.
        let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
        let mut holed = hexagon(3);
        holed[3][3] = 0;
        for grid in [hexagon(2), holed, vec![vec![1; 9]; 4]] {
            let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
            let board = game.board();
            let (n, md) = (board.num_cells(), board.max_distance());
            let syms = symmetries(&game);
            assert!(syms.len() > 1);
            for sym in &syms {
                for a in n..board.num_actions() {
                    let (rest, distance) = ((a - n) / md, (a - n) % md + 1);
                    let (from, dir) = (board.from_dense(rest / 6), Direction::ALL[rest % 6]);
                    let mut at = Some(from).filter(|&c| board.floes().contains(c));
                    for _ in 0..distance {
                        at = at
                            .and_then(|c| board.step(c, dir))
                            .filter(|&c| board.floes().contains(c));
                    }
                    let want = match at {
                        None => a as Action,
                        Some(_) => {
                            // The image slides from the start's image towards its first step's.
                            let start = sym.cells[from as usize] as Cell;
                            let first = board.step(from, dir).expect("a live slide");
                            let image_dir = Direction::ALL
                                .into_iter()
                                .find(|&d| {
                                    board.step(start, d) == Some(sym.cells[first as usize] as Cell)
                                })
                                .expect("neighbours map to neighbours");
                            board.slide_action(start, image_dir, distance) as Action
                        }
                    };
                    assert_eq!(sym.actions[a], want, "{} action {a}", sym.name);
                }
            }
        }
    }

    #[test]
    fn the_standard_board_has_its_mirror_only() {
        let game = FishGame::dealt(Rules::standard(2).unwrap(), 5);
        let names: Vec<String> = symmetries(&game).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["identity", "mirror"]);
        for seed in 0..5 {
            check_moves(&FishGame::dealt(Rules::standard(2).unwrap(), seed), seed);
        }
        // The same board, fixed: its fish are not symmetric, so only the identity is left.
        let fixed = FishGame::new(*game.rules(), game.board().clone());
        assert_eq!(symmetries(&fixed).len(), 1);
    }

    #[test]
    fn a_hexagon_has_twelve() {
        for radius in [1, 2, 3] {
            let grid = hexagon(radius);
            let rules = Rules::new(2, Some(2), Placement::Any, Order::RoundRobin).unwrap();
            let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
            let syms = symmetries(&game);
            assert_eq!(syms.len(), 12, "radius {radius}");
            for seed in 0..3 {
                check_moves(&game, seed);
            }
        }
    }

    #[test]
    fn fish_break_symmetry_and_irregular_boards_have_none() {
        let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
        let mut grid = hexagon(2);
        grid[2][2] = 3;
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        assert_eq!(symmetries(&game).len(), 12, "the centre is fixed by all");
        grid[0][1] = 2;
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        assert!(symmetries(&game).len() < 12);
        check_moves(&game, 1);
        // Rows at x = 0.5, 1.5 and 0, 1, 2: the 2-fish floe sits on the mirror axis.
        let grid = vec![vec![1, 1, 0], vec![1, 2, 1]];
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        let names: Vec<String> = symmetries(&game).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["identity", "mirror"]);
        let grid = vec![vec![1, 1, 1], vec![2, 1, 0]];
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        let names: Vec<String> = symmetries(&game).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["identity"]);
        // A plain 4 x 4 rectangle: the even-r offset makes it lopsided, but a half turn maps
        // it onto itself.
        let game = FishGame::<u64>::new(rules, Board::from_grid(&vec![vec![1; 4]; 4]).unwrap());
        let names: Vec<String> = symmetries(&game).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["identity", "rotate-180"]);
        check_moves(&game, 2);
    }
}
