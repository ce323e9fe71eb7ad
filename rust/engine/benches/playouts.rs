//! Random playouts of the standard 2-player Fish game, first placement to the end, one thread.
//! `cargo bench -p pingvinas-engine --bench playouts`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pingvinas_engine::fish::playout::{random_playouts, Start};
use pingvinas_engine::fish::{Board, FishGame, Policy, Rules};
use pingvinas_engine::rng::Rng;

fn fish_playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("fish");
    let rules = Rules::standard(2).unwrap();
    let mut seed = 0;
    for policy in [Policy::Uniform, Policy::Fast] {
        group.throughput(Throughput::Elements(1));
        group.bench_function(
            format!("random_playout {policy:?} (new board each game)"),
            |b| {
                b.iter(|| {
                    seed += 1;
                    let mut rng = Rng::new(seed);
                    let game = FishGame::new(rules, Board::standard(rng.next_u64()));
                    let mut s = game.initial_state();
                    game.random_playout_with(&mut s, &mut rng, policy);
                    black_box(s)
                })
            },
        );
        group.throughput(Throughput::Elements(1000));
        group.bench_function(
            format!("random_playouts {policy:?} batch of 1000, 1 thread"),
            |b| {
                b.iter(|| {
                    black_box(
                        random_playouts::<u64>(
                            &Start::Standard(rules),
                            1000,
                            7,
                            1,
                            policy,
                            &Default::default(),
                        )
                        .unwrap(),
                    )
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, fish_playouts);
criterion_main!(benches);
