//! Fish move notation on the standard board: read or refused cleanly, and a move that reads
//! prints back to text that reads as the same move.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::fish::notation::{move_name, parse_move};
use pingvinas_engine::fish::Board;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let board = Board::standard(0);
    if let Ok(mv) = parse_move(&board, text) {
        assert_eq!(
            parse_move(&board, &move_name(&board, mv)).expect("printed moves read"),
            mv
        );
    }
});
