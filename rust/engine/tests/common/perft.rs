//! The perft files of `tests/perft/` (format: `pingvinas_engine::perft`), shared by the perft
//! test, the perft bench and the `perft` example (which includes this file by path).

#![allow(dead_code)]

use std::path::PathBuf;

use pingvinas_engine::fish::AnyFish;
use pingvinas_engine::marathon::MarathonGame;
use pingvinas_engine::perft::{parse_perft_file, perft, PerftPosition};
use pingvinas_engine::{with_fish_state, GameIo};

/// The folder of the perft files: `tests/perft` at the repository root.
pub fn perft_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/perft")
}

/// Every perft file, `(variant, positions)`, in name order.
pub fn perft_files() -> Vec<(String, Vec<PerftPosition>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(perft_dir())
        .expect("tests/perft exists")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a readable perft file");
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let positions = parse_perft_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, positions)
        })
        .collect()
}

/// `perft(position, depth)` of a position in the engine's JSON, on the concrete game (each
/// Fish board on its own bitboard word).
pub fn perft_json(json: &str, depth: u32) -> Result<u64, String> {
    if json.contains("\"game\":\"marathon\"") {
        let (g, s) = MarathonGame::from_json(json).map_err(|e| e.to_string())?;
        Ok(perft(&g, &s, depth))
    } else {
        let (g, s) = AnyFish::from_json(json).map_err(|e| e.to_string())?;
        Ok(with_fish_state!(&g, &s, |g, s| perft(&**g, s, depth), 0))
    }
}
