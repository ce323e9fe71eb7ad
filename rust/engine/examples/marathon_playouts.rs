//! Prints random-playout throughput (plies per second) of Penguin Marathon.
//! `cargo run --release -p pingvinas-engine --example marathon_playouts [games] [threads] [course] [players]`
//! (defaults: 200000 games, 1 and 2 threads, the standard course, 2 players).

use std::time::Instant;

use pingvinas_engine::marathon::playout::random_playouts;
use pingvinas_engine::marathon::Marathon;

fn main() {
    let arg = |i: usize| std::env::args().nth(i);
    let n: usize = arg(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let threads: Vec<usize> = match arg(2) {
        Some(t) => vec![t.parse().expect("threads")],
        None => vec![1, 2],
    };
    let course = arg(3).unwrap_or_else(|| "marathon".into());
    let players: usize = arg(4).and_then(|a| a.parse().ok()).unwrap_or(2);
    let game = Marathon::variant(&course)
        .unwrap()
        .with_players(players)
        .unwrap();
    for threads in threads {
        let t = Instant::now();
        let out = random_playouts(&game, None, n, 1, threads, &Default::default()).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let plies: u64 = out.plies.iter().map(|&p| p as u64).sum();
        let draws = out.winners.iter().filter(|&&w| w < 0).count();
        println!(
            "{course}, {players} players, {threads} thread(s): {n} games, {plies} plies in {secs:.3} s = \
             {:.2} M plies/s, {:.0} games/s (mean {:.1} plies, {:.1}% draws)",
            plies as f64 / secs / 1e6,
            n as f64 / secs,
            plies as f64 / n as f64,
            100.0 * draws as f64 / n as f64
        );
    }
}
