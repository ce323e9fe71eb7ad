//! The exact solver from the empty board:
//! `cargo run --release -p pingvinas-engine --example fish_solve -- ROWS COLS SEEDS [sym]
//! [class] [penguins=N] [nosym] [all] [time=SECS] [plies=K] [tt=MB]`.
//! Boards are random (seeded, 1 to 3 fish per cell), 2 players with 1 penguin each (or N),
//! penguins placed on any floe; `class` instead takes board `seed` of the board class of
//! `pingvinas.solved` (the standard board's fish mix, shuffled by SplitMix64 from the seed)
//! with penguins placed on 1-fish floes only, the problem docs/solved.md measures; `sym` makes
//! each board symmetric under the half turn (ROWS even), `nosym` solves without folding
//! symmetric positions, `all` finds the exact value of
//! every first move, `time=SECS` gives each solve up, with what it had searched, after SECS
//! seconds, `plies=K` solves the position after K seeded random placements or moves instead
//! of the empty board, and `tt=MB` sizes the table (default 512 MiB). Prints nodes, seconds
//! (wall and CPU: the CPU time is the steadier on a loaded machine), the value and the
//! optimal first moves per board.

use std::time::Instant;

use pingvinas_engine::fish::solver::{solve_with_options, SolveOptions};
use pingvinas_engine::fish::symmetry::fish_symmetries;
use pingvinas_engine::fish::{Board, FishGame, Order, Placement, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::rng::{splitmix64, Rng};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (rows, cols, seeds) = (num(1, 4), num(2, 5), num(3, 5));
    let flag = |f: &str| args.iter().skip(4).any(|a| a == f);
    let penguins = args
        .iter()
        .find_map(|a| a.strip_prefix("penguins=")?.parse().ok())
        .unwrap_or(1);
    let option = |name: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(name)?.parse::<f64>().ok())
    };
    let time = option("time=").map(std::time::Duration::from_secs_f64);
    let plies = option("plies=").unwrap_or(0.0) as usize;
    let tt_mb = option("tt=").map_or(SolveOptions::default().tt_mb, |mb| mb as usize);
    let symmetric = flag("sym");
    let class = flag("class");
    let placement = if class {
        Placement::OneFish
    } else {
        Placement::Any
    };
    let rules = Rules::new(2, Some(penguins), placement, Order::RoundRobin).unwrap();
    let options = SolveOptions {
        symmetry: !flag("nosym"),
        all_values: flag("all"),
        max_nodes: u64::MAX,
        time,
        tt_mb,
    };
    let (mut nodes, mut secs, mut cpus) = (0u64, 0f64, 0f64);
    for seed in 0..seeds as u64 {
        let mut rng = Rng::new(seed);
        let mut grid: Vec<Vec<u8>> = if class {
            class_board(rows, cols, seed)
        } else {
            (0..rows)
                .map(|_| (0..cols).map(|_| 1 + rng.below(3) as u8).collect())
                .collect()
        };
        if symmetric {
            for r in 0..rows {
                for c in 0..cols {
                    grid[rows - 1 - r][cols - 1 - c] = grid[r][c];
                }
            }
        }
        let game = FishGame::<u64>::new(rules, Board::from_grid(&grid).unwrap());
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        for _ in 0..plies {
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let t = Instant::now();
        let cpu0 = cpu_secs();
        let result = solve_with_options(&game, &s, options, None);
        let dt = t.elapsed().as_secs_f64();
        let cpu = cpu_secs() - cpu0;
        let sol = match result {
            Ok(sol) => sol,
            Err(e) => {
                println!("seed {seed}: not solved after {dt:.1} s, {cpu:.1} cpu s: {e}");
                continue;
            }
        };
        cpus += cpu;
        nodes += sol.nodes;
        secs += dt;
        println!(
            "seed {seed}: {} symmetries; {} nodes {dt:.3} s {cpu:.2} cpu s; value {:?}; optimal {:?}",
            fish_symmetries(&game).len(),
            sol.nodes,
            sol.value,
            sol.moves
        );
    }
    println!(
        "{rows}x{cols}{} penguins={penguins}: {nodes} nodes {secs:.2} s {cpus:.2} cpu s",
        if symmetric { " symmetric" } else { "" },
    );
}

/// Board `seed` of the `pingvinas.solved` class of this shape (`BoardClass.board`): half the
/// floes 1 fish, a sixth 3, the rest 2, shuffled by Fisher-Yates on SplitMix64 from `seed`.
fn class_board(rows: usize, cols: usize, seed: u64) -> Vec<Vec<u8>> {
    let n = rows * cols;
    let (ones, threes) = (n / 2, n / 6);
    let mut cells: Vec<u8> = (0..n)
        .map(|i| {
            if i < ones {
                1
            } else if i < n - threes {
                2
            } else {
                3
            }
        })
        .collect();
    let mut x = seed;
    for i in (1..n).rev() {
        let r = splitmix64(x);
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        cells.swap(i, (r % (i as u64 + 1)) as usize);
    }
    cells.chunks(cols).map(<[u8]>::to_vec).collect()
}

/// User plus system CPU seconds of this process (from /proc, 10 ms resolution; 0 elsewhere).
fn cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 2..]);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    f.get(11)
        .zip(f.get(12))
        .map_or(0.0, |(u, s)| (u + s) / 100.0)
}
