//! Marathon move notation in the opening of the standard course: read or refused cleanly, and a
//! move that reads is legal and prints back to text that reads as the same move.
#![no_main]
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use pingvinas_engine::marathon::{Config, Marathon};

static GAME: LazyLock<Marathon> = LazyLock::new(|| {
    Config::bundled("marathon")
        .and_then(|c| c.build())
        .expect("bundled course")
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let game = &*GAME;
    let s = game.new_state();
    if let Ok(mv) = game.parse_move(&s, text) {
        assert_eq!(
            game.parse_move(&s, &mv.to_string())
                .expect("printed moves read"),
            mv
        );
    }
});
