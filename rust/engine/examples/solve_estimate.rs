//! The solver's up-front estimate against the positions solves searched:
//! `cargo run --release -p pingvinas-engine --example solve_estimate -- [NODES] [SECS]`.
//! Solves positions of several classes (small boards from the start and later, corridors,
//! standard-board endgames, three and four players) under NODES positions (default 5M) and
//! SECS seconds each (default 10), and prints, per position, the estimate's base-2 logarithm
//! next to that of the positions searched (`>` when the solve gave up, `refused` when the
//! estimate itself was more than `estimate::MARGIN` times NODES): the estimate must stay below
//! what a solve searches, by less than that margin at worst, for the solver's refusals to be
//! right. The last line gives the least slack (searched over estimated) of a solved position.

use std::time::Duration;

use pingvinas_engine::fish::solver::estimate::{estimate, MARGIN};
use pingvinas_engine::fish::solver::{solve_with_options, SolveOptions};
use pingvinas_engine::fish::symmetry::fish_symmetries;
use pingvinas_engine::fish::{Board, FishGame, FishState, Order, Placement, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::rng::Rng;

struct Row {
    class: String,
    est: f64,
    nodes: u64,
    solved: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: u64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5_000_000);
    let secs: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10.0);
    let options = SolveOptions {
        max_nodes: nodes,
        time: Some(Duration::from_secs_f64(secs)),
        tt_mb: 256,
        ..SolveOptions::default()
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut run = |class: String, game: &FishGame, s: &FishState| {
        if s.to_move().is_none() {
            return;
        }
        let syms = fish_symmetries(game).len();
        let est = estimate(game, s, syms, f64::INFINITY, || false);
        let (n, solved, refused) = match solve_with_options(game, s, options, None) {
            Ok(sol) => (sol.nodes, true, false),
            Err(e) => (nodes, false, e.to_string().contains("an estimate")),
        };
        let row = Row {
            class,
            est: est.log2,
            nodes: n,
            solved,
        };
        if refused {
            println!("{:<40} est 2^{:>6.1}  refused", row.class, row.est);
        } else {
            println!(
                "{:<40} est 2^{:>6.1}  searched {}2^{:>5.1}  slack {:>6.1}",
                row.class,
                row.est,
                if solved { " " } else { ">" },
                (n as f64).log2(),
                (n as f64).log2() - row.est
            );
        }
        rows.push(row);
    };
    let mut rng = Rng::new(1);
    let mut actions = ActionList::new();
    let mut play = |game: &FishGame, plies: usize, rng: &mut Rng| {
        let mut s = game.initial_state();
        for _ in 0..plies {
            if game.is_over(&s) {
                break;
            }
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        s
    };
    // Small random boards, 1-3 fish, placed anywhere, from the start and later.
    for &(r, c, pens, players) in &[
        (3, 4, 1, 2),
        (4, 4, 1, 2),
        (4, 4, 2, 2),
        (4, 5, 1, 2),
        (5, 5, 1, 2),
        (3, 6, 2, 2),
        (5, 6, 1, 2),
        (6, 6, 2, 2),
        (4, 4, 1, 3),
        (4, 5, 1, 3),
        (4, 4, 1, 4),
        (5, 5, 1, 4),
        (8, 8, 1, 2),
    ] {
        for seed in 0..3 {
            let grid: Vec<Vec<u8>> = (0..r)
                .map(|_| (0..c).map(|_| 1 + rng.below(3) as u8).collect())
                .collect();
            let rules = Rules::new(players, Some(pens), Placement::Any, Order::RoundRobin).unwrap();
            let game = FishGame::new(rules, Board::from_grid(&grid).unwrap());
            for plies in [
                0,
                2 * players * pens,
                2 * players * pens + 4,
                2 * players * pens + 8,
            ] {
                let s = play(&game, plies, &mut rng);
                run(
                    format!("{r}x{c} {players}x{pens} s{seed} +{plies}"),
                    &game,
                    &s,
                );
            }
        }
    }
    // Corridors: one and two rows, a penguin each.
    for &(r, c) in &[(1, 16), (1, 32), (1, 64), (2, 12), (2, 24), (2, 32)] {
        let grid = vec![vec![1u8; c]; r];
        let rules = Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap();
        let game = FishGame::new(rules, Board::from_grid(&grid).unwrap());
        for plies in [0, 2, 4] {
            let s = play(&game, plies, &mut rng);
            run(format!("corridor {r}x{c} +{plies}"), &game, &s);
        }
    }
    // Standard-board endgames: random play to a number of floes left.
    for seed in 0..12 {
        let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(seed));
        for left in [28, 32, 36, 40, 44, 60] {
            let mut s = game.initial_state();
            while !game.is_over(&s) && s.floes().count() > left {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            run(format!("standard {seed} {left} floes"), &game, &s);
        }
    }
    let worst = rows
        .iter()
        .filter(|r| r.solved)
        .map(|r| (r.nodes as f64).log2() - r.est)
        .fold(f64::INFINITY, f64::min);
    println!(
        "{} positions, {} solved; least slack of a solved one 2^{worst:.1} (the margin: 2^{:.1})",
        rows.len(),
        rows.iter().filter(|r| r.solved).count(),
        MARGIN.log2()
    );
}
