//! How far back from the end the exact solver reaches on the standard board:
//! `cargo run --release -p pingvinas-engine --example fish_endgames -- [GAMES] [LONG] [SHORT_S]
//! [LONG_S]` (defaults 20 games, all of them long, 1 s and 60 s).
//!
//! Each game is the standard 2-player board `Board::standard(seed)` (seeds 0, 1, ...), played to
//! the end by seeded uniformly random moves (placements included, `Rng::new(seed)`). The walk
//! then goes backwards along the game, from its last position to its first, solving each
//! position (default table, no node limit) under the short limit, in CPU seconds of the solving
//! thread (so that a shared machine does not shrink the figures); the first one that does
//! not finish within it ends the walk, and the floes of the last one solved are the game's
//! short figure. For the first LONG games the walk goes on from there under the long limit
//! (positions nearer the end were solved within the short one), giving the long figure. Floes
//! are those still on the board, unreachable ones included (a move can sink several at once,
//! so the counts along the walk may skip). Prints each game and the medians.
//!
//! `first=K` (after the numbers) takes seeds K, K + 1, ... instead; `wall=F` sets the
//! wall-clock cap of each solve to F times its CPU limit (default 10). With `keep`, each game's
//! walk keeps the solver's table from one position to the one before it (a [`SolveCache`]:
//! sound, as every entry is about a position alone), which makes the walk cheap but each solve
//! easier than from scratch; so the position the long walk ends on is then solved again with a
//! fresh table under the long limit (and if that fails, the one after it), and a game counts in
//! the confirmed median with the floes of the one solved fresh (with its short figure when both
//! fail).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pingvinas_engine::error::Error;
use pingvinas_engine::fish::solver::{solve_with_options, SolveCache, SolveOptions};
use pingvinas_engine::fish::{Board, FishGame, FishState, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::StopFlag;

/// The solver's own wall-clock limit, as a multiple of the CPU limit: a cap for a machine so
/// loaded that the CPU limit would take too long (a solve it cuts is reported). `wall=F` sets
/// it (say `wall=1000` for a run that may be paused for minutes, SIGSTOP stopping the clock
/// of CPU time but not the wall's).
const WALL_FACTOR: f64 = 10.0;

/// The last position solved within a limit, walking backwards.
#[derive(Clone, Copy)]
struct Reach {
    floes: u32,
    nodes: u64,
    secs: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let games = num(1, 20.0) as u64;
    let long_games = num(2, games as f64) as u64;
    let (short, long) = (num(3, 1.0), num(4, 60.0));
    let keep = args.iter().skip(1).any(|a| a == "keep");
    // `first=K` starts at seed K (to split a long run over processes).
    let first: u64 = args
        .iter()
        .find_map(|a| a.strip_prefix("first=")?.parse().ok())
        .unwrap_or(0);
    let wall: f64 = args
        .iter()
        .find_map(|a| a.strip_prefix("wall=")?.parse().ok())
        .unwrap_or(WALL_FACTOR);
    let options = |limit: f64| SolveOptions {
        max_nodes: u64::MAX,
        time: Some(Duration::from_secs_f64(wall * limit)),
        ..SolveOptions::default()
    };
    let mut short_floes = Vec::new();
    let mut long_floes = Vec::new();
    let mut confirmed_floes = Vec::new();
    for seed in first..first + games {
        let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(seed));
        let line = random_game(&game, seed);
        let mut cache = SolveCache::new(&game, &SolveOptions::default()).unwrap();
        // Walk back from the last position that is not over.
        let mut i = line.len();
        let mut walk = |limit: f64, i: &mut usize, from: Option<Reach>| {
            let mut reached = from;
            while *i > 0 {
                let s = &line[*i - 1];
                let (result, cpu) = within_cpu(limit, |stop| {
                    if keep {
                        cache.solve(s, options(limit), Some(stop), None)
                    } else {
                        solve_with_options(&game, s, options(limit), Some(stop))
                    }
                });
                let Ok(sol) = result else {
                    if !matches!(result, Err(Error::Interrupted(_))) {
                        println!("  (seed {seed}: cut by the wall-clock cap, {cpu:.2} cpu s)");
                    }
                    break;
                };
                reached = Some(Reach {
                    floes: s.floes().count(),
                    nodes: sol.nodes,
                    secs: cpu,
                });
                *i -= 1;
            }
            reached
        };
        let show = |r: Option<Reach>| {
            r.map_or("none".to_string(), |r| {
                format!("{} floes ({} nodes, {:.3} cpu s)", r.floes, r.nodes, r.secs)
            })
        };
        let within_short = walk(short, &mut i, None);
        short_floes.push(within_short.map_or(0, |r| r.floes));
        let mut line_out = format!(
            "seed {seed}: {} positions; within {short} s: {}",
            line.len(),
            show(within_short)
        );
        if seed - first < long_games {
            let within_long = walk(long, &mut i, within_short);
            long_floes.push(within_long.map_or(0, |r| r.floes));
            line_out += &format!("; within {long} s: {}", show(within_long));
            if keep && i < line.len() {
                // The walk's last position solved, and if need be the one after it, again from
                // a fresh table.
                let mut fresh = None;
                for s in line.iter().skip(i).take(2) {
                    let (result, cpu) = within_cpu(long, |stop| {
                        solve_with_options(&game, s, options(long), Some(stop))
                    });
                    if let Ok(sol) = result {
                        let floes = s.floes().count();
                        line_out += &format!(
                            "; fresh: {floes} floes solved ({} nodes, {cpu:.3} cpu s)",
                            sol.nodes
                        );
                        fresh = Some(floes);
                        break;
                    }
                    line_out += &format!("; fresh: {} floes not solved", s.floes().count());
                }
                confirmed_floes.push(fresh.or(within_short.map(|r| r.floes)).unwrap_or(0));
            }
        }
        if i == 0 {
            line_out += " (the whole game)";
        }
        println!("{line_out}");
    }
    println!(
        "median over {} games: {} floes within {short} s; over {} games: {} floes within {long} s",
        short_floes.len(),
        median(&mut short_floes),
        long_floes.len(),
        median(&mut long_floes)
    );
    if keep {
        println!(
            "confirmed by fresh solves: {} floes within {long} s over {} games",
            median(&mut confirmed_floes),
            confirmed_floes.len()
        );
    }
}

/// Runs `f` on this thread, setting its stop flag once this thread has used `limit` CPU
/// seconds (the limits are CPU time, not wall-clock, which a shared machine stretches); returns
/// its result and the CPU seconds it took.
fn within_cpu<T>(limit: f64, f: impl FnOnce(&StopFlag) -> T) -> (T, f64) {
    let stop = StopFlag::new();
    let done = AtomicBool::new(false);
    let tid = std::process::id(); // The main thread's id is the process's.
    let cpu0 = thread_cpu_secs(tid);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if thread_cpu_secs(tid) - cpu0 >= limit {
                    stop.stop();
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let result = f(&stop);
        done.store(true, Ordering::Relaxed);
        result
    });
    (result, thread_cpu_secs(tid) - cpu0)
}

/// User plus system CPU seconds of thread `tid` of this process (from /proc, 10 ms resolution).
fn thread_cpu_secs(tid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"))
        .expect("the limits are CPU time read from /proc (Linux)");
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 2..]);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    (f[11] + f[12]) / 100.0
}

/// The positions of one seeded random game with a player to move, first to last.
fn random_game(game: &FishGame, seed: u64) -> Vec<FishState> {
    let mut rng = Rng::new(seed);
    let mut s = game.initial_state();
    let mut line = Vec::new();
    let mut actions = ActionList::new();
    while !game.is_over(&s) {
        line.push(s);
        game.legal_actions(&s, &mut actions);
        game.apply(&mut s, actions[rng.below(actions.len())]);
    }
    line
}

/// The median (the mean of the middle two for an even count; 0 for none).
fn median(v: &mut [u32]) -> f64 {
    v.sort_unstable();
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2] as f64,
        n => (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0,
    }
}
