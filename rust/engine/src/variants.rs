//! The bundled variant configs of both games: one table, the TOML files of `variants/` at the
//! crate's root compiled in, so that lookup never depends on where anything is installed. Their
//! comments document the config format.

/// A bundled variant config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The variant's name, also its file name without `.toml` (`"fish-3p"`).
    pub name: &'static str,
    /// The game it configures: `"fish"` or `"marathon"` (its `game` key).
    pub game: &'static str,
    /// The config's TOML text.
    pub toml: &'static str,
}

macro_rules! bundled {
    ($($name:literal : $game:literal),* $(,)?) => {
        &[$(Variant {
            name: $name,
            game: $game,
            toml: include_str!(concat!("../variants/", $name, ".toml")),
        }),*]
    };
}

/// Every bundled variant: Fish's, then Marathon's, each game's standard variant first, then the
/// small solved Fish boards (`fish-mini-*`, docs/solved.md).
pub const BUNDLED: &[Variant] = bundled![
    "fish": "fish",
    "fish-3p": "fish",
    "fish-4p": "fish",
    "fish-snake-any": "fish",
    "marathon": "marathon",
    "marathon-5": "marathon",
    "marathon-l": "marathon",
    "marathon-zigzag": "marathon",
    // Last, so that the seeds of the other variants' perft positions (by table index) stay.
    "fish-mini-4x4": "fish",
    "fish-mini-4x4-pairs": "fish",
    "fish-mini-4x5": "fish",
    "fish-mini-5x5": "fish",
];

/// The bundled variant `name` of `game` (`"fish"` or `"marathon"`), if there is one.
pub fn find(game: &str, name: &str) -> Option<&'static Variant> {
    BUNDLED.iter().find(|v| v.game == game && v.name == name)
}

/// The bundled variants of `game`, in table order.
pub fn of_game(game: &str) -> impl Iterator<Item = &'static Variant> + '_ {
    BUNDLED.iter().filter(move |v| v.game == game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_config_names_its_game() {
        for v in BUNDLED {
            let game_line = format!("game = \"{}\"", v.game);
            assert!(v.toml.contains(&game_line), "{}: {game_line}", v.name);
        }
        assert_eq!(find("fish", "fish-3p").map(|v| v.name), Some("fish-3p"));
        assert!(find("marathon", "fish").is_none());
        assert_eq!(of_game("marathon").count(), 4);
    }
}
