//! Search throughput on the standard 2-player Fish board just after placement, checked as it is
//! measured: `cargo bench -p pingvinas-engine --bench search`.
//!
//! Prints MCTS playouts per second (1 and 2 threads, UCT and PUCT selection), PUCT leaves per
//! second (one tree and a forest of 8, driven by a Rust evaluator), alpha-beta nodes per second
//! (with the blind and the full Fish evaluation), the region solver's time on 15-floe
//! single-owner regions, and the exact solver's time on endgames. A word after `--` runs only
//! the parts whose name holds it: `mcts`, `puct`, `alpha-beta` (`blind`, `Fish`, `threads`),
//! `region` or `exact`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pingvinas_engine::fish::eval::{unpack, FishEval, FishEvalConfig, FishPlanes, HaulSolver};
use pingvinas_engine::fish::solver::{solve, DEFAULT_MAX_NODES};
use pingvinas_engine::fish::{Bitboard, Board, FishGame, FishState, Phase, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
use pingvinas_engine::search::forest::{self, BatchEvaluator, Forest};
use pingvinas_engine::search::mcts::{Mcts, MctsConfig, Selection};
use pingvinas_engine::search::puct::{PuctConfig, PuctTree};
use pingvinas_engine::search::{Budget, Evaluate, StopFlag};

fn after_placement(seed: u64) -> (FishGame, FishState) {
    let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(seed));
    let mut s = game.initial_state();
    let mut rng = Rng::new(seed);
    let mut actions = ActionList::new();
    while game.phase(&s) == Phase::Placement {
        game.legal_actions(&s, &mut actions);
        game.apply(&mut s, actions[rng.below(actions.len())]);
    }
    (game, s)
}

/// Zero logits and the blind Fish evaluation's values: the time goes to the tree (selection,
/// virtual losses, expansion, backup) and the game, as little as can be to the evaluator.
struct FishValues<'a>(&'a FishGame, &'a FishEval);

impl BatchEvaluator<FishGame> for FishValues<'_> {
    fn evaluate(
        &mut self,
        states: &[FishState],
        _obs: &[f32],
        _mask: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) -> pingvinas_engine::error::Result<()> {
        policy.fill(0.0);
        let n = self.0.num_players();
        for (row, state) in states.iter().enumerate() {
            let r = self.1.evaluate(self.0, state);
            let p = self.0.to_move(state).unwrap_or(0);
            for k in 0..n {
                values[row * n + k] = r[(p + k) % n] as f32;
            }
        }
        Ok(())
    }
}

fn main() {
    let secs = std::env::var("SEARCH_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    // `cargo bench` passes `--bench`; any other word selects parts.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |part: &str| only.is_empty() || only.iter().any(|o| part.contains(o.as_str()));
    let (game, s) = after_placement(7);
    let plain = FishEval::plain(&game);
    let full = FishEval::new(&game, FishEvalConfig::default());

    let mut one = 0.0;
    for threads in [1, 2].into_iter().filter(|_| wanted("mcts")) {
        let mut m = Mcts::new(MctsConfig {
            threads,
            reuse: false,
            ..Default::default()
        });
        let r = m
            .search(&game, &plain, &s, &Budget::time(secs), StopFlag::new())
            .unwrap();
        assert!(game.is_legal(&s, r.best));
        let rate = r.iterations as f64 / r.elapsed.as_secs_f64();
        if threads == 1 {
            one = rate;
        }
        println!(
            "mcts random playouts, {threads} thread(s): {rate:>12.0} playouts/s  (x{:.2})",
            rate / one
        );
    }
    if wanted("mcts") {
        let mut m = Mcts::new(MctsConfig {
            reuse: false,
            ..Default::default()
        });
        let r = m
            .search(&game, &full, &s, &Budget::time(secs), StopFlag::new())
            .unwrap();
        println!(
            "mcts with Fish knowledge, 1 thread: {:>10.0} playouts/s",
            r.iterations as f64 / r.elapsed.as_secs_f64()
        );
        let mut m = Mcts::new(MctsConfig {
            selection: Selection::Puct,
            reuse: false,
            ..Default::default()
        });
        let r = m
            .search(&game, &full, &s, &Budget::time(secs), StopFlag::new())
            .unwrap();
        assert!(game.is_legal(&s, r.best));
        println!(
            "mcts puct selection, Fish knowledge: {:>9.0} playouts/s",
            r.iterations as f64 / r.elapsed.as_secs_f64()
        );
    }

    for trees in [1, 8].into_iter().filter(|_| wanted("puct")) {
        let (g, e) = (Arc::new(game.clone()), Arc::new(plain.clone()));
        let forest: Vec<_> = (0..trees)
            .map(|t| PuctTree::new(g.clone(), e.clone(), PuctConfig::default(), t))
            .collect();
        let mut forest = Forest::new(forest).unwrap();
        let states = vec![s; trees as usize];
        let mut values = FishValues(&game, &plain);
        let t0 = Instant::now();
        let rs = forest::run(
            &mut forest,
            &states,
            &Budget::time(secs),
            StopFlag::new(),
            &mut values,
        )
        .unwrap();
        assert!(rs.iter().all(|r| game.is_legal(&s, r.best)));
        let leaves: u64 = rs.iter().map(|r| r.iterations).sum();
        println!(
            "puct, {trees} tree(s) in batches of 16: {:>11.0} leaves/s",
            leaves as f64 / t0.elapsed().as_secs_f64()
        );
    }

    // A fixed depth, so that every run does the same work (a time budget stops between
    // iterations, whose nodes differ in cost).
    for (name, eval, depth) in [("blind", &plain, 8), ("Fish", &full, 7)] {
        if !wanted(&format!("alpha-beta {name}")) {
            continue;
        }
        let mut ab = AlphaBeta::new(AlphaBetaConfig::default());
        let r = ab
            .search(&game, eval, &s, &Budget::depth(depth), StopFlag::new())
            .unwrap();
        assert!(game.is_legal(&s, r.best) && r.depth == depth);
        println!(
            "alpha-beta, {name} evaluation: {:>14.0} nodes/s  (depth {depth}: {} nodes in {:.2} s)",
            r.nodes as f64 / r.elapsed.as_secs_f64(),
            r.nodes,
            r.elapsed.as_secs_f64()
        );
    }

    // Lazy SMP: the time to finish depth 7 with the Fish evaluation, on 1 and 2 threads.
    let mut one = 0.0;
    for threads in [1, 2].into_iter().filter(|_| wanted("alpha-beta threads")) {
        let mut ab = AlphaBeta::new(AlphaBetaConfig {
            threads,
            ..Default::default()
        });
        let r = ab
            .search(&game, &full, &s, &Budget::depth(7), StopFlag::new())
            .unwrap();
        let secs = r.elapsed.as_secs_f64();
        if threads == 1 {
            one = secs;
        }
        println!(
            "alpha-beta, Fish evaluation, depth 7, {threads} thread(s): {secs:.2} s, {:.0} nodes/s in all (x{:.2} faster)",
            r.nodes as f64 / secs,
            one / secs
        );
    }

    // The region solver on random single-owner regions of 15 floes (a 4x6 grid with gaps), one
    // and two penguins, each solved from an empty memo; checked against the fish in the region.
    let mut rng = Rng::new(11);
    for penguins in [1, 2].into_iter().filter(|_| wanted("region")) {
        let (mut worst, mut sum, mut count) = (Duration::ZERO, Duration::ZERO, 0);
        while count < 50 {
            let grid: Vec<Vec<u8>> = (0..4)
                .map(|_| (0..6).map(|_| 1 + rng.below(3) as u8).collect())
                .collect();
            let g: FishGame = FishGame::new(
                Rules::standard(2).unwrap(),
                Board::from_grid(&grid).unwrap(),
            );
            let board = g.board();
            // Remove random floes until a connected region of exactly 15 remains.
            let mut floes = board.floes();
            while floes.count() > 15 {
                let c = floes.nth(rng.below(floes.count() as usize) as u32).unwrap();
                floes = floes.without(c);
            }
            let start = floes.first().unwrap();
            if board.fill(Bitboard::from_cell(start), floes) != floes {
                continue;
            }
            let mut pens = Bitboard::EMPTY;
            while pens.count() < penguins {
                pens = pens.with(floes.nth(rng.below(15) as u32).unwrap());
            }
            let planes = FishPlanes::new(board);
            let t0 = Instant::now();
            let h = HaulSolver::default()
                .haul(board, &planes, floes, pens, u64::MAX)
                .unwrap();
            let took = t0.elapsed();
            assert!(unpack(h).0 <= planes.fish_on(floes));
            worst = worst.max(took);
            sum += took;
            count += 1;
        }
        println!(
            "region solver, 15-floe regions, {penguins} penguin(s): {:>7.3} ms mean, {:.3} ms worst (50 regions)",
            sum.as_secs_f64() * 1e3 / count as f64,
            worst.as_secs_f64() * 1e3
        );
    }

    if !wanted("exact") {
        return;
    }
    // The exact solver on endgames of the standard board: random play until 24 floes are left.
    let mut rng = Rng::new(3);
    let mut total = Duration::ZERO;
    let mut nodes = 0;
    let mut solved = 0;
    for seed in 0..5 {
        let (g, mut s) = after_placement(100 + seed);
        let mut actions = ActionList::new();
        while !g.is_over(&s) && s.floes().count() > 24 {
            g.legal_actions(&s, &mut actions);
            g.apply(&mut s, actions[rng.below(actions.len())]);
        }
        if g.is_over(&s) {
            continue;
        }
        let t0 = Instant::now();
        let sol = solve(&g, &s, DEFAULT_MAX_NODES).unwrap();
        total += t0.elapsed();
        nodes += sol.nodes;
        solved += 1;
    }
    println!(
        "exact solver, {solved} endgames of 24 floes: {:>8.1} ms each, {} nodes each",
        total.as_secs_f64() * 1e3 / solved.max(1) as f64,
        nodes / solved.max(1) as u64
    );
}
