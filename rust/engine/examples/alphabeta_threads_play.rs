//! Alpha-beta on 1 and on `threads` threads as they are used in a game: each side keeps its
//! searcher (table, history, helper threads) and its own calling thread from move to move, so
//! what the Fish evaluation keeps per thread (the region solver's memo) is warm, as in a match.
//!
//! Standard 2-player Fish after a seeded random placement; along each game (moves chosen by the
//! 1-thread search), both sides search every position to a fixed depth, in turns, and the
//! times are compared: the median over positions of the per-position ratio, and the ratio of
//! the total times. Run it alone on a quiet machine:
//! `cargo run --release -p pingvinas-engine --example alphabeta_threads_play [games] [depth] [moves] [threads]`

use std::sync::mpsc;
use std::thread;

use pingvinas_engine::fish::eval::{FishEval, FishEvalConfig};
use pingvinas_engine::fish::{Board, FishGame, FishState, Phase, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
use pingvinas_engine::search::{Budget, SearchResult, StopFlag};

/// A searcher on a thread of its own, kept for a whole game.
struct Side {
    ask: mpsc::Sender<(FishState, u32)>,
    answer: mpsc::Receiver<SearchResult>,
}

impl Side {
    fn start(game: FishGame, threads: usize) -> Side {
        let (ask, positions) = mpsc::channel::<(FishState, u32)>();
        let (results, answer) = mpsc::channel();
        thread::spawn(move || {
            let eval = FishEval::new(&game, FishEvalConfig::default());
            let mut ab = AlphaBeta::new(AlphaBetaConfig {
                threads,
                ..Default::default()
            });
            for (s, depth) in positions {
                let r = ab.search(&game, &eval, &s, &Budget::depth(depth), StopFlag::new());
                results.send(r.unwrap()).unwrap();
            }
        });
        Side { ask, answer }
    }

    fn search(&self, s: FishState, depth: u32) -> SearchResult {
        self.ask.send((s, depth)).unwrap();
        self.answer.recv().unwrap()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn main() {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (games, depth, moves, threads) = (arg(1, 4), arg(2, 7) as u32, arg(3, 10), arg(4, 2));
    let (mut ratios, mut total_one, mut total_many) = (Vec::new(), 0.0, 0.0);
    for seed in 0..games {
        let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(1000 + seed));
        let mut s = game.initial_state();
        let mut rng = Rng::new(1000 + seed);
        let mut actions = ActionList::new();
        while game.phase(&s) == Phase::Placement {
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let (one, many) = (
            Side::start(game.clone(), 1),
            Side::start(game.clone(), threads as usize),
        );
        for m in 0..moves {
            if game.to_move(&s).is_none() {
                break;
            }
            let a = one.search(s, depth);
            let b = many.search(s, depth);
            let (t1, tn) = (a.elapsed.as_secs_f64(), b.elapsed.as_secs_f64().max(1e-6));
            println!(
                "game {seed} move {m:>2}: 1 thread {t1:.3} s ({} nodes), {threads} threads {tn:.3} s ({} nodes): x{:.2}",
                a.nodes,
                b.nodes,
                t1 / tn
            );
            ratios.push(t1 / tn);
            total_one += t1;
            total_many += tn;
            game.apply(&mut s, a.best);
        }
    }
    println!(
        "depth {depth}, {threads} threads against 1 over {} positions: median x{:.2}, total time x{:.2}",
        ratios.len(),
        median(ratios),
        total_one / total_many
    );
}
