//! `MarathonState` JSON: read or refused cleanly; what is read writes back to the same state, and
//! every legal action of it can be played.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::marathon::json::{from_json, to_json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((game, s)) = from_json(text) else {
        return;
    };
    let (_, t) = from_json(&to_json(&game, &s)).expect("written JSON reads back");
    assert_eq!(t, s);
    let mut actions = ActionList::new();
    game.legal_actions(&s, &mut actions);
    for &a in &actions {
        let mut child = s;
        game.apply(&mut child, a);
    }
});
