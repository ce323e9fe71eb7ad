//! Perft files: check them, or write them again.
//!
//! ```sh
//! cargo run --release -p pingvinas-engine --example perft              # check every file
//! cargo run --release -p pingvinas-engine --example perft -- --regenerate
//! ```
//!
//! `--regenerate` writes `tests/perft/<variant>.perft` for every bundled variant: the positions
//! (the opening, one after placement (Fish) or a few plies (Marathon), and a mid-game one, each
//! made by a seeded random game and stored in the engine's JSON) and their counts at every depth
//! up to the last one within [`NODE_BUDGET`] nodes (at most [`MAX_DEPTH`]), so that the whole
//! `cargo test` perft run stays at a few seconds in a debug build. The positions depend only on
//! the seeds below and the rules; a change of the counts is a change of move generation, and
//! `tests/test_perft.py` checks the small depths against the pure-Python reference models.

#[path = "../tests/common/perft.rs"]
mod perft_files;

use std::time::Instant;

use perft_files::{perft_dir, perft_files, perft_json};
use pingvinas_engine::fish::{AnyFish, Config, FishGame, Phase};
use pingvinas_engine::marathon::MarathonGame;
use pingvinas_engine::perft::PerftPosition;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::variants::BUNDLED;
use pingvinas_engine::{ActionList, Game, GameIo};

/// The deepest count of a position stays at or below this many nodes.
const NODE_BUDGET: u64 = 1_000_000;
/// And its depth at or below this.
const MAX_DEPTH: u32 = 8;

const HEADER: &str = "\
# Perft counts of the bundled variant {variant} (format and meaning: the docs of the Rust module
# pingvinas_engine::perft, rust/engine/src/perft.rs). In short: perft 0 = 1 and perft d is the sum
# over the legal actions of perft d-1 of the position after it; each action (a placement, a slide,
# an entry, a stand) is one ply; the automatic steps after an action (unreachable floes removed, a
# stuck player's penguins lifted, a player without a legal action skipped) are part of it and never
# a ply of their own; a game that ends before depth d adds nothing (so `perft d` counts the
# sequences of exactly d actions). Marathon lists each move once however many ways reach it.
#
# Read by `cargo test` (rust/engine/tests/perft.rs), pytest (tests/test_perft.py, which also checks
# the small depths against the pure-Python reference models) and the criterion bench
# (rust/engine/benches/perft.rs). Made by
#   cargo run --release -p pingvinas-engine --example perft -- --regenerate
# from seeded random games: do not edit by hand.
";

/// Plays `plies` random legal actions (seeded), stopping early where `stop` says so.
fn random_plies<G: Game>(
    game: &G,
    s: &mut G::State,
    rng: &mut Rng,
    plies: usize,
    stop: impl Fn(&G::State) -> bool,
) {
    let mut list = ActionList::new();
    for _ in 0..plies {
        if game.is_over(s) || stop(s) {
            return;
        }
        game.legal_actions(s, &mut list);
        game.apply(s, list[rng.below(list.len())]);
    }
}

/// The positions of a Fish variant: `(id, json)`.
fn fish_positions(toml: &str, base: u64) -> Vec<(String, String)> {
    let config = Config::from_toml(toml).expect("a bundled config");
    let rules = config.rules().expect("bundled rules");
    let grid = config.grid().expect("a bundled board");
    let game_for = |seed: u64| -> AnyFish {
        match &grid {
            Some(grid) => AnyFish::new(rules, grid).expect("a bundled board"),
            None => FishGame::dealt(rules, seed).into(),
        }
    };
    let mut out = Vec::new();
    for (id, k, moving_plies) in [
        ("start", 1, None),
        ("placed", 2, Some(0)),
        ("midgame", 3, Some(12)),
    ] {
        let seed = base + k;
        let game = game_for(seed);
        let AnyFish::Narrow(g) = &game else {
            panic!("bundled Fish boards fit 64 cells")
        };
        let mut s = g.initial_state();
        let mut rng = Rng::new(seed);
        if let Some(k) = moving_plies {
            random_plies(&**g, &mut s, &mut rng, 1000, |s| {
                g.phase(s) != Phase::Placement
            });
            // Small boards end sooner: at most a quarter of the floes' plies (the standard
            // board's 60 floes keep all 12).
            let k = k.min(s.floes().count() as usize / 4);
            random_plies(&**g, &mut s, &mut rng, k, |_| false);
        }
        assert!(!g.is_over(&s), "{id}: the game is over");
        let label = match (id, &grid) {
            (_, None) => format!("{id}-board-seed-{seed}"),
            _ => id.to_string(),
        };
        out.push((label, g.to_json(&s)));
    }
    out
}

/// The positions of a Marathon variant: `(id, json)`.
fn marathon_positions(name: &str, base: u64) -> Vec<(String, String)> {
    let game = MarathonGame::variant(name).expect("a bundled course");
    let mut out = Vec::new();
    for (id, k, plies) in [("start", 0, 0), ("early", 1, 6), ("midgame", 2, 40)] {
        let seed = base + k;
        let mut s = game.new_state();
        random_plies(&game, &mut s, &mut Rng::new(seed), plies, |_| false);
        assert!(!game.is_over(&s), "{id}: the game is over");
        let id = if plies == 0 {
            id.to_string()
        } else {
            format!("{id}-seed-{seed}")
        };
        out.push((id, game.to_json(&s)));
    }
    out
}

fn counts(json: &str) -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    for depth in 1..=MAX_DEPTH {
        let nodes = perft_json(json, depth).expect("a position we wrote");
        if nodes > NODE_BUDGET || nodes == 0 {
            break;
        }
        out.push((depth, nodes));
    }
    out
}

fn regenerate() {
    let dir = perft_dir();
    std::fs::create_dir_all(&dir).expect("tests/perft can be made");
    for (i, v) in BUNDLED.iter().enumerate() {
        // Each variant's own seeds, so that no two files hold the same positions.
        let base = 10 * i as u64;
        let positions = match v.game {
            "fish" => fish_positions(v.toml, base),
            _ => marathon_positions(v.name, base),
        };
        let mut text = HEADER.replace("{variant}", v.name);
        for (id, json) in positions {
            let p = PerftPosition {
                counts: counts(&json),
                id,
                json,
            };
            text += "\n";
            text += &p.to_text();
        }
        let path = dir.join(format!("{}.perft", v.name));
        std::fs::write(&path, text).expect("the perft file can be written");
        println!("wrote {}", path.display());
    }
}

fn check() {
    let mut total = 0;
    let start = Instant::now();
    for (variant, positions) in perft_files() {
        for p in positions {
            for (depth, nodes) in p.counts {
                let t = Instant::now();
                let got = perft_json(&p.json, depth).expect("a readable position");
                let ok = if got == nodes { "ok" } else { "MISMATCH" };
                println!(
                    "{variant:16} {:28} perft {depth} = {got:>9} ({:.3} s) {ok}",
                    p.id,
                    t.elapsed().as_secs_f64()
                );
                assert_eq!(got, nodes, "{variant} {}: perft {depth}", p.id);
                total += got;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{total} nodes in {secs:.2} s ({:.1} M nodes/s)",
        total as f64 / secs / 1e6
    );
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("--regenerate") => regenerate(),
        None => check(),
        Some(other) => {
            eprintln!("usage: perft [--regenerate] (not {other:?})");
            std::process::exit(2);
        }
    }
}
