//! Perft from the files of `tests/perft/`: every count of every file is asserted first, then a
//! few positions are timed at their deepest listed depth (throughput in nodes per second), so a
//! speed change can never hide a change of move generation.
//! `cargo bench -p pingvinas-engine --bench perft`.

#[path = "../tests/common/perft.rs"]
mod perft_files;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use perft_files::{perft_files, perft_json};

/// The timed positions: `(variant, position id)`.
const TIMED: &[(&str, &str)] = &[
    ("fish", "start-board-seed-1"),
    ("fish", "midgame-board-seed-3"),
    ("marathon", "start"),
    ("marathon", "midgame-seed-42"),
];

fn perft(c: &mut Criterion) {
    let files = perft_files();
    for (variant, positions) in &files {
        for p in positions {
            for &(depth, nodes) in &p.counts {
                let got = perft_json(&p.json, depth).expect("a readable position");
                assert_eq!(got, nodes, "{variant} {}: perft {depth}", p.id);
            }
        }
    }
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for &(variant, id) in TIMED {
        let p = files
            .iter()
            .find(|(v, _)| v == variant)
            .and_then(|(_, ps)| ps.iter().find(|p| p.id == id))
            .unwrap_or_else(|| panic!("no position {id} in tests/perft/{variant}.perft"));
        let &(depth, nodes) = p.counts.last().expect("counts");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{variant} {id} perft {depth}"), |b| {
            b.iter(|| {
                let got = perft_json(black_box(&p.json), depth).unwrap();
                assert_eq!(got, nodes);
                got
            })
        });
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
