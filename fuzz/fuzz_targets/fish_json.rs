//! `FishState` JSON: any input is read or refused cleanly; what is read writes back to the same
//! state, and every legal action of it can be played.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::fish::AnyFish;
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::GameIo;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Read on the word its board needs, as the bindings read it.
    let Ok((game, s)) = AnyFish::from_json(text) else {
        return;
    };
    let (again, t) = AnyFish::from_json(&game.to_json(&s)).expect("written JSON reads back");
    assert_eq!((again.grid(), t), (game.grid(), s));
    let mut actions = ActionList::new();
    game.legal_actions(&s, &mut actions);
    for &a in &actions {
        let mut child = s;
        game.apply(&mut child, a);
    }
});
