//! Alpha-beta's speed with the NNUE evaluation ([`Nnue`], accumulator width 64, dense 32, 32)
//! against the hand-written one: nodes a second at a fixed depth over seeded standard 2-player
//! positions (after a random placement and a few random moves), for
//! - `fisheval`: the hand-written evaluation;
//! - `nnue`: the net as the estimate beside the game's knowledge ([`WithNet`]), its
//!   accumulators updated from each thread's last leaf (the incremental path);
//! - `nnue-refresh`: the same net, the accumulators summed afresh at every leaf;
//! - `residual`: the net with a `base` layer (the hand-written estimate plus the net's);
//! - `learned`: the net that ships ([`pingvinas_engine::net::learned`], what `auto` plays on
//!   standard 2-player Fish: no accumulators, a dense layer over the hand-written evaluation's
//!   terms, and a `base` layer).
//!
//! Each is run `rounds` times in turn, so that a change in the machine's load hits all; the
//! median of each is printed, with its ratio to `fisheval`.
//! `cargo run --release -p pingvinas-engine --example nnue_alphabeta [depth 5] [rounds 3]`

use std::sync::Arc;
use std::time::Instant;

use pingvinas_engine::fish::eval::FishEval;
use pingvinas_engine::fish::{Board, FishGame, FishState, Phase, Rules};
use pingvinas_engine::game::{ActionList, Game, Returns};
use pingvinas_engine::net::{Dense, Fits, Nnue, WithNet};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
use pingvinas_engine::search::{Budget, Evaluate, StopFlag};

/// The net refreshed at every leaf, for comparison.
struct Refreshed(Nnue);

impl Evaluate<FishGame> for Refreshed {
    fn evaluate(&self, game: &FishGame, s: &FishState) -> Returns {
        self.0.values(game, s)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.first().map_or(5, |d| d.parse().expect("a depth"));
    let rounds: usize = args.get(1).map_or(3, |r| r.parse().expect("a count"));
    let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(7));
    let mut rng = Rng::new(11);
    let mut actions = ActionList::new();
    let positions: Vec<FishState> = (0..6)
        .map(|k| {
            let mut s = game.initial_state();
            let mut moves = 0;
            while game.phase(&s) == Phase::Placement || moves < 4 + 2 * k {
                moves += (game.phase(&s) == Phase::Movement) as usize;
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            s
        })
        .collect();
    let fits = Fits::of(&game, "fish");
    let net = Nnue::random(fits.clone(), 64, &[32, 32], 1).unwrap();
    let (features, dense, value) = net.layers();
    let base = Dense::new("base", &[1, 1], vec![1.0], vec![0.0]).unwrap();
    let residual =
        Nnue::with_base(fits, features, dense.to_vec(), value.clone(), Some(base)).unwrap();
    let fish = Arc::new(FishEval::new(&game, Default::default()));
    let with = |n: Nnue| WithNet {
        base: fish.clone(),
        net: Arc::new(n),
    };
    let learned = WithNet {
        base: fish.clone(),
        net: pingvinas_engine::net::learned(),
    };
    let (nnue, res) = (with(net.clone()), with(residual));
    let refreshed = WithNet {
        base: fish.clone(),
        net: Arc::new(Refreshed(net)),
    };
    let names = ["fisheval", "nnue", "nnue-refresh", "residual", "learned"];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        for (k, rate) in rates.iter_mut().enumerate() {
            let (mut nodes, start) = (0, Instant::now());
            for s in &positions {
                let mut ab = AlphaBeta::new(AlphaBetaConfig::default());
                let budget = Budget::depth(depth);
                let r = match k {
                    0 => ab.search(&game, &*fish, s, &budget, StopFlag::new()),
                    1 => ab.search(&game, &nnue, s, &budget, StopFlag::new()),
                    2 => ab.search(&game, &refreshed, s, &budget, StopFlag::new()),
                    3 => ab.search(&game, &res, s, &budget, StopFlag::new()),
                    _ => ab.search(&game, &learned, s, &budget, StopFlag::new()),
                };
                nodes += r.unwrap().nodes;
            }
            rate.push(nodes as f64 / start.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base_rate = median(&mut rates[0].clone());
    for (name, rate) in names.iter().zip(&mut rates) {
        let r = median(rate);
        println!(
            "{name:>13}: {:>9.0} nodes/s, {:>5.2} us a node, x{:.2} of fisheval",
            r,
            1e6 / r,
            r / base_rate
        );
    }
}
