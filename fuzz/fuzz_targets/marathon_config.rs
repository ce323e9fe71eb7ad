//! Marathon configs (TOML and JSON) and course maps: read or refused cleanly, and a config that
//! reads builds its game or says why not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::marathon::{Config, Course};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Course::parse(text);
    for config in [
        Config::from_toml(text, "fuzz"),
        Config::from_json(text, "fuzz"),
    ]
    .into_iter()
    .flatten()
    {
        let _ = config.build();
    }
});
