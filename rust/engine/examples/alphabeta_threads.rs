//! Alpha-beta's time to depth on 1 and 2 threads, on the standard
//! 2-player Fish board after a seeded random placement, with the full Fish evaluation.
//!
//! For each position: the depth that one thread completes in `secs` seconds, then the time one
//! thread and `threads` threads take to complete that depth (fresh tables), and their ratio.
//! Every search runs in full width (no late-move reductions or futility pruning), as a depth
//! budget is searched, so the depth found in `secs` and the searches to it are the same search.
//! With `repeats` above 1 the two searches run in turns that many times and each side's median
//! time counts: the same search varies by tens of percent from run to run on a shared machine.
//! Run it alone on a quiet machine:
//! `cargo run --release -p pingvinas-engine --example alphabeta_threads [positions] [secs] [threads] [first] [repeats]`
//! (positions `first`, `first + 1`, ...; 0 and 1 by default)

use std::time::Duration;

use pingvinas_engine::fish::eval::{FishEval, FishEvalConfig};
use pingvinas_engine::fish::{Board, FishGame, FishState, Phase, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
use pingvinas_engine::search::{Budget, SearchResult, StopFlag};

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

/// One search from nothing: a new searcher on a new thread, so that no thread starts with the
/// Fish evaluation's per-thread memory of earlier searches (the region solver's memo).
fn search(game: &FishGame, s: &FishState, threads: usize, budget: Budget) -> SearchResult {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let eval = FishEval::new(game, FishEvalConfig::default());
                let mut ab = AlphaBeta::new(AlphaBetaConfig {
                    threads,
                    reductions: false,
                    futility: false,
                    ..Default::default()
                });
                ab.search(game, &eval, s, &budget, StopFlag::new()).unwrap()
            })
            .join()
            .unwrap()
    })
}

fn main() {
    let arg = |i: usize, default: f64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let positions = arg(1, 20.0) as u64;
    let secs = arg(2, 2.0);
    let threads = arg(3, 2.0) as usize;
    let first = arg(4, 0.0) as u64;
    let repeats = (arg(5, 1.0) as usize).max(1);
    let mut ratios = Vec::new();
    for seed in first..first + positions {
        let (game, s) = after_placement(1000 + seed);
        let depth = search(&game, &s, 1, Budget::time(secs)).depth;
        let budget = Budget::depth(depth);
        let (mut one_times, mut many_times) = (Vec::new(), Vec::new());
        let (mut one, mut many) = (None, None);
        for _ in 0..repeats {
            let r = search(&game, &s, 1, budget);
            one_times.push(r.elapsed.as_secs_f64());
            one = Some(r);
            let r = search(&game, &s, threads, budget);
            many_times.push(r.elapsed.as_secs_f64());
            many = Some(r);
        }
        let (one, many) = (one.unwrap(), many.unwrap());
        let t1 = Duration::from_secs_f64(median(&mut one_times));
        let tn = Duration::from_secs_f64(median(&mut many_times)).max(Duration::from_micros(1));
        let ratio = t1.as_secs_f64() / tn.as_secs_f64();
        println!(
            "position {seed:>2}: depth {depth}, 1 thread {:.3} s ({} nodes), {threads} threads {:.3} s ({} nodes): x{ratio:.2}{}",
            t1.as_secs_f64(),
            one.nodes,
            tn.as_secs_f64(),
            many.nodes,
            if one.best == many.best && one.value == many.value { "" } else { "  (another move or value)" },
        );
        ratios.push(ratio);
    }
    let median = median(&mut ratios);
    println!(
        "time to depth, {threads} threads against 1: median x{median:.2} (min x{:.2}, max x{:.2}) over {} positions",
        ratios[0],
        ratios[ratios.len() - 1],
        ratios.len()
    );
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}
