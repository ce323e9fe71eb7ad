//! Fish variant configs, as TOML and as JSON: read or refused cleanly, and a config that reads
//! builds its game or says why not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::fish::{AnyFish, Config};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for config in [Config::from_toml(text), Config::from_json(text)]
        .into_iter()
        .flatten()
    {
        let (Ok(rules), Ok(grid)) = (config.rules(), config.grid()) else {
            continue;
        };
        if let Some(grid) = grid {
            let _ = AnyFish::new(rules, &grid);
        }
    }
});
