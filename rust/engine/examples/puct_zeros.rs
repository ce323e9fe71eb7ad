//! PUCT's own time: searches of one position driven by an evaluator that answers zeros (uniform
//! priors, values 0) and costs nothing, so the time is the tree's and the game's alone.
//! `benches/evaluator_protocol.py` takes it from a Python evaluator's time to find what the
//! evaluator protocol costs per leaf.
//! `cargo run --release -p pingvinas-engine --example puct_zeros -- TREES ITERATIONS BATCH
//! [--no-knowledge] < STATE.json`: TREES trees of the state (as `state.to_json()` writes it,
//! Fish or Marathon), ITERATIONS each, their leaves gathered BATCH a tree at a time, as
//! `pingvinas.search_many` with seed 0 runs them. Prints the CPU seconds the searches took
//! (the second time: the first warms the process up).

use std::io::Read;
use std::sync::Arc;

use pingvinas_engine::every_game::cached_eval;
use pingvinas_engine::fish::AnyFish;
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::algorithms::Settings;
use pingvinas_engine::search::forest::{Forest, Stepped};
use pingvinas_engine::search::puct::PuctTree;
use pingvinas_engine::search::{Budget, StopFlag};
use pingvinas_engine::{with_game_state, AnyGame, AnyState, Concrete, GameIo};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> u64 {
        let arg = args.get(i).map(String::as_str).unwrap_or("");
        arg.parse().unwrap_or_else(|_| {
            panic!("usage: puct_zeros TREES ITERATIONS BATCH [--no-knowledge] < STATE.json")
        })
    };
    let (trees, iterations, batch) = (num(0) as usize, num(1), num(2) as usize);
    let settings = Settings {
        batch_size: batch,
        knowledge: !args.iter().any(|a| a == "--no-knowledge"),
        reuse: false,
        ..Settings::default()
    };
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .expect("a state's JSON on stdin");
    let (game, state) = match AnyFish::from_json(&text) {
        Ok((g, s)) => (AnyGame::Fish(g), AnyState::Fish(s)),
        Err(fish) => match Marathon::from_json(&text) {
            Ok((g, s)) => (AnyGame::Marathon(Arc::new(g)), AnyState::Marathon(s)),
            Err(marathon) => panic!("not a Fish state ({fish}) nor a Marathon state ({marathon})"),
        },
    };
    let budget = Budget::iterations(iterations);
    // The first searches warm the process up as a long-lived one's earlier searches have (its
    // heap holds the trees they freed); the second are timed.
    let secs = with_game_state!(
        &game,
        &state,
        |g, s| {
            search(g, s, trees, &settings, &budget);
            search(g, s, trees, &settings, &budget)
        },
        unreachable!("a game and its own state")
    );
    println!("{secs:.6}");
}

/// The CPU seconds `trees` PUCT searches of `state` take, their leaves answered with zeros.
fn search<G: Concrete>(
    game: &Arc<G>,
    state: &G::State,
    trees: usize,
    settings: &Settings,
    budget: &Budget,
) -> f64 {
    let eval = cached_eval(game, settings.knowledge, settings.playout);
    // Timed as a call of `search_many` is, from the making of its trees (its evaluation is
    // made once per game and kept between calls).
    let start = cpu_seconds();
    // Tree `i` seeded as `search_many` seeds it.
    let trees: Vec<_> = (0..trees)
        .map(|i| {
            let seed = Rng::for_item(settings.seed, i as u64).next_u64();
            PuctTree::new(game.clone(), eval.clone(), settings.puct(), seed)
        })
        .collect();
    let states = vec![*state; trees.len()];
    let mut forest = Forest::new(trees).expect("trees for the forest");
    forest
        .start(&states, budget, StopFlag::new())
        .expect("a position to search");
    let (obs_len, actions, players) = (
        forest.obs_len(),
        Stepped::num_actions(&forest),
        Stepped::num_players(&forest),
    );
    let rows = forest.capacity();
    let mut obs = vec![0.0f32; rows * obs_len];
    let mut mask = vec![false; rows * actions];
    let (policy, values) = (vec![0.0f32; rows * actions], vec![0.0f32; rows * players]);
    while !forest.is_done() {
        forest.gather(&mut obs, &mut mask);
        forest.backup(&policy, &values).unwrap();
    }
    cpu_seconds() - start
}

/// CPU seconds of this thread, as Python's `time.thread_time` (wall seconds off Linux).
#[cfg(target_os = "linux")]
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
fn cpu_seconds() -> f64 {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}
