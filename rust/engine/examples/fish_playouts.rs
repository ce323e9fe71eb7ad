//! Prints random-playout throughput of the standard 2-player game, for both playout policies,
//! on 1 and 2 threads (or the count given as the second argument), for both policies (or the
//! one named third).
//! `cargo run --release -p pingvinas-engine --example fish_playouts [games] [threads] [uniform|fast]`

use std::time::Instant;

use pingvinas_engine::fish::playout::{random_playouts, Start};
use pingvinas_engine::fish::{Policy, Rules};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let start: Start = Start::Standard(Rules::standard(2).unwrap());
    let threads: Vec<usize> = match std::env::args().nth(2) {
        Some(t) => vec![t.parse().expect("threads")],
        None => vec![1, 2],
    };
    let policies = match std::env::args().nth(3).as_deref() {
        Some("uniform") => vec![Policy::Uniform],
        Some("fast") => vec![Policy::Fast],
        _ => vec![Policy::Uniform, Policy::Fast],
    };
    for policy in policies {
        for &threads in &threads {
            let t = Instant::now();
            let scores =
                random_playouts(&start, n, 1, threads, policy, &Default::default()).unwrap();
            let secs = t.elapsed().as_secs_f64();
            let fish: u64 = scores.iter().map(|s| (s[0].0 + s[1].0) as u64).sum();
            println!(
                "{policy:?} policy, {threads} thread(s): {n} games in {secs:.3} s = {:.0} games/s (mean fish taken {:.1})",
                n as f64 / secs,
                fish as f64 / n as f64
            );
        }
    }
}
