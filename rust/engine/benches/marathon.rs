//! Penguin Marathon random playouts on the standard course, 2 players, one thread.
//! `cargo bench -p pingvinas-engine --bench marathon` (throughput in plies per second).
//! For a quick number without criterion:
//! `cargo run --release -p pingvinas-engine --example marathon_playouts`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pingvinas_engine::marathon::playout::random_playouts;
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::{ActionList, Game};

fn marathon_playouts(c: &mut Criterion) {
    let game = Marathon::standard();
    // Plies per game, to report plies per second (the games are the same each run: fixed seed).
    let plies: u64 = random_playouts(&game, None, 1000, 7, 1, &Default::default())
        .unwrap()
        .plies
        .iter()
        .map(|&p| p as u64)
        .sum();
    let mut group = c.benchmark_group("marathon");
    group.throughput(Throughput::Elements(plies));
    group.bench_function(
        "random_playouts 1000 games (elements = plies), 1 thread",
        |b| b.iter(|| black_box(random_playouts(&game, None, 1000, 7, 1, &Default::default()).unwrap())),
    );
    // Through the generic `Game` interface: legal_actions + apply, as search code uses it.
    let mut seed = 0;
    let mut list = ActionList::new();
    group.throughput(Throughput::Elements(1));
    group.bench_function("legal_actions + apply per ply (elements = plies)", |b| {
        let mut s = game.new_state();
        let mut rng = Rng::new(seed);
        b.iter(|| {
            if game.is_over(&s) {
                seed += 1;
                s = game.new_state();
                rng = Rng::new(seed);
            }
            game.legal_actions(&s, &mut list);
            let a = list[rng.below(list.len())];
            game.apply(&mut s, a);
            black_box(s.ply())
        })
    });
    group.finish();
}

criterion_group!(benches, marathon_playouts);
criterion_main!(benches);
