//! The native net's cost: microseconds a position for the value alone (alpha-beta, MCTS
//! leaves), for policy and value (PUCT's leaves, one at a time and in batches of 16), and PUCT
//! iterations a second with it, on the standard 2-player Fish board after a seeded random
//! placement: one thread; 8 trees split between 1 and then 2 threads (batches across trees,
//! as `search_many` and self-play run them), in turns; then one tree
//! searched by 2 threads ([`SharedTree`]) and the ratio of the two rates, measured in turns
//! (`rounds` pairs, so that a change in the machine's load hits both). Last, the share of one
//! thread's time that a [`SharedTree`] spends under its lock (selection and backup), timed in
//! the worker's steps, and the speed-up on 2 threads that share allows (Amdahl's law): a
//! figure that a busy machine changes little, unlike the ratio.
//! Then the NNUE-style evaluation net ([`Nnue`], accumulator width 64, dense 32, 32): a
//! position's value with the accumulators refreshed from its features (what alpha-beta's leaves
//! cost today), and with them updated from the parent's (the incremental path), over the
//! children of the same position.
//! `cargo run --release -p pingvinas-engine --example net_speed [widths, e.g. 64,64] [seconds]
//! [--only PART] [--iterations N]`: `--only` runs one part (`value`, `policy`, `puct` or
//! `puct1`/`puct16`, `nnue` or `nnue-refresh`/`nnue-update`, `trees`, `threads`), `--iterations` gives PUCT a fixed number of iterations instead of `seconds`, so
//! that an instruction count (`valgrind --tool=cachegrind`) compares two builds on a busy
//! machine.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pingvinas_engine::fish::{Board, FishGame, Phase, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::io::GameIo;
use pingvinas_engine::net::{Accumulator, CellFeatures, Fits, Mlp, Nnue};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::forest::{drive_parallel, SharedTree};
use pingvinas_engine::search::forest::{run, BatchEvaluator, Forest};
use pingvinas_engine::search::puct::{Batch, PuctConfig, PuctTree};
use pingvinas_engine::search::{Budget, Evaluate, NoEval, StopFlag};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| {
        let at = args.iter().position(|a| a == name)?;
        let value = args.get(at + 1).cloned().expect("a value after the flag");
        args.drain(at..at + 2);
        Some(value)
    };
    let only = flag("--only");
    let iterations: Option<u64> = flag("--iterations").map(|n| n.parse().expect("a count"));
    let part = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let widths: Vec<usize> = args
        .first()
        .cloned()
        .unwrap_or_else(|| "64,64".into())
        .split(',')
        .map(|w| w.parse().expect("a width"))
        .collect();
    let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let budget = |secs: f64| match iterations {
        Some(n) => Budget::iterations(n),
        None => Budget::time(secs),
    };
    let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(7));
    // The position after a random placement from `seed`.
    let placed = |seed: u64| {
        let (mut s, mut rng) = (game.initial_state(), Rng::new(seed));
        let mut actions = ActionList::new();
        while game.phase(&s) == Phase::Placement {
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        s
    };
    let s = placed(7);
    let mut rng = Rng::new(7);
    let mut actions = ActionList::new();
    let net = Mlp::random(Fits::of(&game, "fish"), &widths, 1).unwrap();
    println!(
        "net {widths:?} on observations {:?}, {} actions",
        game.observation_shape(),
        game.num_actions()
    );

    let n = 20_000;
    if part("value") {
        let t = Instant::now();
        let mut sum = 0.0;
        for _ in 0..n {
            sum += Evaluate::evaluate(&net, &game, &s)[0];
        }
        println!(
            "value only (observation written each time): {:.2} us a position  ({sum:.1})",
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        );
    }

    let mut obs = vec![0.0; game.observation_len()];
    game.write_observation(&s, 0, &mut obs);
    game.legal_actions(&s, &mut actions);
    let mask: Vec<bool> = (0..game.num_actions() as u32)
        .map(|a| actions.contains(&a))
        .collect();
    let (mut policy, mut values) = (vec![0.0; game.num_actions()], vec![0.0; 2]);
    if part("policy") {
        let t = Instant::now();
        for _ in 0..n {
            net.forward(&obs, Some(&mask), &mut policy, &mut values);
        }
        println!(
            "policy ({} legal actions) and value: {:.2} us a position",
            actions.len(),
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        );
        // The same position 16 times in one batch, as PUCT's batches of leaves.
        let rows = 16;
        let (obs16, mask16) = (obs.repeat(rows), mask.repeat(rows));
        let (mut policy16, mut values16) = (policy.repeat(rows), values.repeat(rows));
        let t = Instant::now();
        for _ in 0..n / rows {
            net.forward_batch(&obs16, &mask16, &mut policy16, &mut values16);
        }
        println!(
            "  in batches of {rows}: {:.2} us a position",
            t.elapsed().as_secs_f64() * 1e6 / (n / rows * rows) as f64
        );
    }

    if part("nnue") || part("nnue-refresh") || part("nnue-update") {
        nnue_speed(
            &game,
            &s,
            n,
            part("nnue") || part("nnue-refresh"),
            part("nnue") || part("nnue-update"),
        );
    }

    for batch in [1, 16]
        .into_iter()
        .filter(|b| part("puct") || part(&format!("puct{b}")))
    {
        let tree = PuctTree::new(
            Arc::new(game.clone()),
            Arc::new(NoEval),
            PuctConfig {
                batch_size: batch,
                ..Default::default()
            },
            1,
        );
        let mut forest = Forest::new(vec![tree]).unwrap();
        let r = run(&mut forest, &[s], &budget(secs), StopFlag::new(), &mut &net).unwrap();
        println!(
            "PUCT with the native net, batch {batch}: {:.0} iterations/s",
            r[0].iterations as f64 / r[0].elapsed.as_secs_f64()
        );
    }

    if part("trees") {
        // Batches across trees (`search_many`): 8 positions, their trees split between the
        // threads (`Forest::split`), the same iterations each, in turns.
        let states: Vec<_> = (0..8).map(placed).collect();
        let rate = |threads: usize| {
            let trees = (0..states.len())
                .map(|i| {
                    let config = PuctConfig {
                        batch_size: 16,
                        ..Default::default()
                    };
                    PuctTree::new(Arc::new(game.clone()), Arc::new(NoEval), config, i as u64)
                })
                .collect();
            let mut forest = Forest::new(trees).unwrap();
            let budget = Budget::iterations(iterations.unwrap_or(20_000));
            forest.start(&states, &budget, StopFlag::new()).unwrap();
            let mut parts = forest.split(threads);
            let t = Instant::now();
            drive_parallel(&mut parts, &&net, || true).unwrap();
            let done: u64 = parts
                .iter()
                .flat_map(Forest::results)
                .map(|r| r.iterations)
                .sum();
            done as f64 / t.elapsed().as_secs_f64()
        };
        one_and_two_threads("8 trees, batch 16 each", rate);
    }

    if !part("threads") {
        return;
    }
    // One tree, 1 thread against 2 threads sharing it, in turns.
    let rate = |threads: usize| {
        let tree = PuctTree::new(
            Arc::new(game.clone()),
            Arc::new(NoEval),
            PuctConfig {
                batch_size: 16,
                ..Default::default()
            },
            1,
        );
        let budget = Budget::time(secs / 2.0);
        let shared = SharedTree::start(tree, &s, &budget, StopFlag::new()).unwrap();
        drive_parallel(&mut shared.workers(threads), &&net, || true).unwrap();
        let (r, _) = shared.finish();
        r.iterations as f64 / r.elapsed.as_secs_f64()
    };
    one_and_two_threads("one tree, batch 16", rate);

    // The worker's steps on one thread: under the lock (select, back up) or not (the leaves'
    // positions, rows, net, priors).
    let mut tree = PuctTree::new(
        Arc::new(game.clone()),
        Arc::new(NoEval),
        PuctConfig {
            batch_size: 16,
            ..Default::default()
        },
        1,
    );
    tree.start(&s, &Budget::iterations(20_000)).unwrap();
    let (o, a, n) = (
        game.observation_len(),
        game.num_actions(),
        game.num_players(),
    );
    let (mut obs, mut mask) = (vec![0.0; 16 * o], vec![false; 16 * a]);
    let (mut policy, mut values) = (vec![0.0; 16 * a], vec![0.0; 16 * n]);
    let mut batch = Batch::default();
    let (mut locked, mut free) = (Duration::ZERO, Duration::ZERO);
    while !tree.is_done() {
        let t = Instant::now();
        tree.select_deferred(&mut batch, 16);
        let u = Instant::now();
        let rows = batch.resolve(&game, &NoEval);
        batch.write_rows(&game, &mut obs, &mut mask);
        let states: Vec<_> = batch.states().copied().collect();
        BatchEvaluator::<FishGame>::evaluate(
            &mut &net,
            &states,
            &obs[..rows * o],
            &mask[..rows * a],
            &mut policy[..rows * a],
            &mut values[..rows * n],
        )
        .unwrap();
        batch
            .prepare(&game, &NoEval, &policy, &values, 0.0, &mut rng)
            .unwrap();
        let v = Instant::now();
        tree.backup_from(&mut batch, &policy, &values).unwrap();
        locked += (u - t) + v.elapsed();
        free += v - u;
    }
    let f = locked.as_secs_f64() / (locked + free).as_secs_f64();
    println!(
        "  under the tree's lock: {:.1}% of one thread's time; at most x{:.2} on 2 threads",
        100.0 * f,
        1.0 / (f + (1.0 - f) / 2.0)
    );
}

/// Prints PUCT's mean iterations a second (`rate(threads)`) on 1 and 2 threads and their ratio,
/// measured in turns (3 pairs) so that a change in the machine's load hits both.
fn one_and_two_threads(what: &str, rate: impl Fn(usize) -> f64) {
    let (mut one, mut two) = (0.0, 0.0);
    let rounds = 3;
    for _ in 0..rounds {
        one += rate(1);
        two += rate(2);
    }
    println!(
        "PUCT, {what}: {:.0} iterations/s on 1 thread, {:.0} on 2: x{:.2}",
        one / rounds as f64,
        two / rounds as f64,
        two / one
    );
}

/// The NNUE net's cost a position: refreshed from the features, and updated from the parent's
/// accumulators, over the children of `s` (each evaluated by its value head).
fn nnue_speed<G: CellFeatures>(game: &G, s: &G::State, n: usize, refresh: bool, update: bool) {
    let net = Nnue::random(Fits::of(game, "fish"), 64, &[32, 32], 1).unwrap();
    let mut actions = ActionList::new();
    game.legal_actions(s, &mut actions);
    let children: Vec<G::State> = actions
        .iter()
        .map(|&a| {
            let mut c = *s;
            game.apply(&mut c, a);
            c
        })
        .collect();
    let players = game.num_players();
    let rounds = n.div_ceil(children.len());
    let t = Instant::now();
    let mut sum = 0.0;
    for _ in 0..rounds * refresh as usize {
        for c in &children {
            sum += Evaluate::evaluate(&net, game, c)[0];
        }
    }
    let refresh = t.elapsed().as_secs_f64() * 1e6 / (rounds * children.len()) as f64;
    let mut parent = Accumulator::default();
    net.refresh(game, s, &mut parent);
    let (mut child, mut scores, mut values) = (
        Accumulator::default(),
        vec![0.0f32; players],
        vec![0.0f32; players],
    );
    let t = Instant::now();
    let mut sum2 = 0.0;
    for _ in 0..rounds * update as usize {
        for c in &children {
            net.update(game, s, &parent, c, &mut child);
            let p = game.to_move(c).unwrap_or(0);
            game.write_scores(c, p, &mut scores);
            net.evaluate_accumulator(&child, p, &scores, &mut values);
            sum2 += values[0] as f64;
        }
    }
    let update = t.elapsed().as_secs_f64() * 1e6 / (rounds * children.len()) as f64;
    println!(
        "NNUE (accumulator 64 a player, dense 32,32), value of each of {} children: {refresh:.2} \
         us refreshed, {update:.2} us updated from the parent's  ({sum:.1}, {sum2:.1})",
        children.len()
    );
}
