//! Every count of every perft file in `tests/perft/` (one file per bundled variant), from the
//! position's JSON. Regenerate the files with
//! `cargo run --release -p pingvinas-engine --example perft -- --regenerate` (see that example).

mod common;

use common::perft::{perft_files, perft_json};
use pingvinas_engine::variants::BUNDLED;

#[test]
fn perft_files_match_the_move_generator() {
    let files = perft_files();
    for (variant, positions) in &files {
        assert!(!positions.is_empty(), "{variant}: no positions");
        for p in positions {
            for &(depth, nodes) in &p.counts {
                let got = perft_json(&p.json, depth).unwrap_or_else(|e| panic!("{}: {e}", p.id));
                assert_eq!(got, nodes, "{variant} {}: perft {depth}", p.id);
            }
        }
    }
}

#[test]
fn every_bundled_variant_has_a_perft_file() {
    let names: Vec<String> = perft_files().into_iter().map(|(n, _)| n).collect();
    for v in BUNDLED {
        assert!(
            names.iter().any(|n| n == v.name),
            "no tests/perft/{}.perft",
            v.name
        );
    }
}
