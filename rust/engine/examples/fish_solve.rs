//! The exact solver from the empty board, with and without symmetry reduction:
//! `cargo run --release -p pingvinas-engine --example fish_solve -- ROWS COLS SEEDS [sym]`.
//! Boards are random (seeded, 1 to 3 fish per cell), 2 players with 1 penguin each, penguins
//! placed on any floe; `sym` makes each board symmetric under the half turn (ROWS even).

use std::time::Instant;

use pingvinas_engine::fish::solver::{solve_with_options, SolveOptions};
use pingvinas_engine::fish::symmetry::fish_symmetries;
use pingvinas_engine::fish::{Board, FishGame, Order, Placement, Rules};
use pingvinas_engine::rng::Rng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (rows, cols, seeds) = (num(1, 4), num(2, 5), num(3, 5));
    let symmetric = args.get(4).is_some_and(|a| a == "sym");
    let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
    let mut totals = [(0u64, 0f64); 2];
    for seed in 0..seeds as u64 {
        let mut rng = Rng::new(seed);
        let mut grid: Vec<Vec<u8>> = (0..rows)
            .map(|_| (0..cols).map(|_| 1 + rng.below(3) as u8).collect())
            .collect();
        if symmetric {
            for r in 0..rows {
                for c in 0..cols {
                    grid[rows - 1 - r][cols - 1 - c] = grid[r][c];
                }
            }
        }
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        let s = game.initial_state();
        let mut line = format!("seed {seed}: {} symmetries;", fish_symmetries(&game).len());
        let mut values = Vec::new();
        for (k, symmetry) in [false, true].into_iter().enumerate() {
            let options = SolveOptions {
                symmetry,
                max_nodes: u64::MAX,
            };
            let t = Instant::now();
            let sol = solve_with_options(&game, &s, options, None).unwrap();
            let secs = t.elapsed().as_secs_f64();
            totals[k].0 += sol.nodes;
            totals[k].1 += secs;
            values.push(sol.value);
            let name = if symmetry { "new" } else { "old" };
            line += &format!(" {name} {} nodes {secs:.3} s;", sol.nodes);
        }
        assert_eq!(values[0], values[1], "seed {seed}");
        println!("{line} value {:?}", values[0]);
    }
    println!(
        "{rows}x{cols}{}: old {} nodes {:.2} s, new {} nodes {:.2} s (x{:.2} time)",
        if symmetric { " symmetric" } else { "" },
        totals[0].0,
        totals[0].1,
        totals[1].0,
        totals[1].1,
        totals[0].1 / totals[1].1
    );
}
