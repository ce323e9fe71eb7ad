//! `FishState` JSON: any input is read or refused cleanly; what is read writes back to the same
//! state, and every legal action of it can be played.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::fish::json::{from_json, to_json};
use pingvinas_engine::game::{ActionList, Game};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((game, s)) = from_json(text) else {
        return;
    };
    let (again, t) = from_json(&to_json(&game, &s)).expect("written JSON reads back");
    assert_eq!((again.board().grid(), t), (game.board().grid(), s));
    let mut actions = ActionList::new();
    game.legal_actions(&s, &mut actions);
    for &a in &actions {
        let mut child = s;
        game.apply(&mut child, a);
    }
});
