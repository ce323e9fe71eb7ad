//! Rule settings of a Fish variant, and variant configs (TOML files or JSON objects).

use serde::{Deserialize, Serialize};

use crate::config::{Table, Value};
use crate::error::invalid;
use crate::error::{check_length, quote, Result, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS};

/// Which floes a penguin may be placed on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Placement {
    /// Only unoccupied floes with exactly one fish (the printed rules).
    #[serde(rename = "one-fish")]
    OneFish,
    /// Any unoccupied floe.
    #[serde(rename = "any")]
    Any,
}

/// The order in which players place their penguins.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Order {
    /// 0, 1, 2, 0, 1, 2, ...
    #[serde(rename = "round-robin")]
    RoundRobin,
    /// 0, 1, 2, 2, 1, 0, 0, 1, 2, ...
    #[serde(rename = "snake")]
    Snake,
}

crate::names::named_enum!(Placement {
    OneFish => "one-fish",
    Any => "any",
});

crate::names::named_enum!(Order {
    RoundRobin => "round-robin",
    Snake => "snake",
});

/// The most penguins one player may have (keeps every placement turn within the state's `u8`
/// counters and the legal-move list within its fixed capacity).
pub const MAX_PENGUINS: usize = 8;
/// The most players of a Fish game.
pub const MAX_FISH_PLAYERS: usize = 4;

/// How random playouts choose their moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Every legal move equally likely.
    #[default]
    Uniform,
    /// A random penguin among those that can move, then a random open direction, then a
    /// random distance: not uniform over moves, and several times faster.
    Fast,
}

/// Final `(fish, floes)` of each player (unused players stay at zero).
pub type Scores = [(u16, u16); MAX_FISH_PLAYERS];

/// The rules of a Fish variant, apart from the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// Players, 2 to [`MAX_FISH_PLAYERS`].
    pub players: u8,
    /// Penguins each player places, 1 to [`MAX_PENGUINS`].
    pub penguins: u8,
    /// Which floes a penguin may be placed on.
    pub placement: Placement,
    /// The order of the placement turns.
    pub order: Order,
}

impl Rules {
    /// The printed rules for 2, 3 or 4 players: 4, 3 or 2 penguins each.
    ///
    /// # Errors
    /// `Error::Invalid` for another number of players.
    pub fn standard(players: usize) -> Result<Rules> {
        Rules::new(players, None, Placement::OneFish, Order::RoundRobin)
    }

    /// Rules for `players` with `penguins` each (the printed count, `6 - players`, when `None`).
    ///
    /// # Errors
    /// `Error::Invalid` when `players` is not 2 to [`MAX_FISH_PLAYERS`] or `penguins` not 1 to
    /// [`MAX_PENGUINS`].
    pub fn new(
        players: usize,
        penguins: Option<usize>,
        placement: Placement,
        order: Order,
    ) -> Result<Rules> {
        if !(2..=MAX_FISH_PLAYERS).contains(&players) {
            return invalid!("players = {players}: Fish is for 2 to 4 players");
        }
        let penguins = penguins.unwrap_or(6 - players);
        if !(1..=MAX_PENGUINS).contains(&penguins) {
            return invalid!(
                "penguins = {penguins}: each player needs 1 to {MAX_PENGUINS} penguins"
            );
        }
        Ok(Rules {
            players: players as u8,
            penguins: penguins as u8,
            placement,
            order,
        })
    }

    /// The number of players.
    #[inline]
    pub fn players(&self) -> usize {
        self.players as usize
    }

    /// Number of placement turns (every penguin of every player).
    #[inline]
    pub fn placement_turns(&self) -> usize {
        self.players as usize * self.penguins as usize
    }

    /// The player who places at placement turn `turn`.
    #[inline]
    pub fn placer(&self, turn: usize) -> usize {
        let p = self.players as usize;
        let (round, seat) = (turn / p, turn % p);
        match self.order {
            Order::Snake if round % 2 == 1 => p - 1 - seat,
            _ => seat,
        }
    }
}

/// A board in a config: `"standard"` (shuffled per game) or a grid of fish counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BoardSpec {
    /// A named board: only `"standard"` is known.
    Named(String),
    /// Fish per cell, row by row (0 for a gap).
    Grid(Vec<Vec<u8>>),
}

/// A Fish variant config, as read from TOML or JSON. Every key but `game` is optional.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Always `"fish"`.
    pub game: String,
    /// The variant's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One line about the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Players (default 2).
    #[serde(default = "default_players")]
    pub players: usize,
    /// Penguins per player (default: the printed count for the player count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penguins: Option<usize>,
    /// Which floes a penguin may be placed on (default one-fish).
    #[serde(default = "default_placement")]
    pub placement: Placement,
    /// The placement order (default round-robin).
    #[serde(default = "default_order")]
    pub order: Order,
    /// The board (default the standard board, shuffled per game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardSpec>,
}

/// The start of every config error.
const ORIGIN: &str = "Fish config";
/// The keys of a Fish config.
const KEYS: &[&str] = &[
    "game",
    "name",
    "description",
    "players",
    "penguins",
    "placement",
    "order",
    "board",
];
/// What a `board` may be.
const BOARD: &str = "\"standard\" or a grid of fish counts (a list of rows of integers)";

/// A name of `names` at `key` (placement, order), read by `T::from_str`.
fn named<T: std::str::FromStr>(t: &mut Table<'_>, key: &str, names: &[&str]) -> Result<Option<T>> {
    let Some(value) = t.value(key) else {
        return Ok(None);
    };
    let expected = format!("one of {}", crate::names::one_of(names));
    match &value {
        Value::Str(s) => s
            .parse()
            .map(Some)
            .map_err(|_| t.error(key, &value, &expected)),
        _ => Err(t.error(key, &value, &expected)),
    }
}

/// The `board` key: a name, or rows of fish counts, each cell named when it is wrong.
fn board_spec(t: &Table<'_>, board: Value) -> Result<BoardSpec> {
    let rows = match board {
        Value::Str(name) => return Ok(BoardSpec::Named(name)),
        Value::List(rows) => rows,
        other => return Err(t.error("board", &other, BOARD)),
    };
    let mut grid = Vec::with_capacity(rows.len());
    for (r, row) in rows.into_iter().enumerate() {
        let Value::List(cells) = row else {
            return Err(t.error(&format!("board[{r}]"), &row, "a row: a list of fish counts"));
        };
        let mut out = Vec::with_capacity(cells.len());
        for (c, cell) in cells.iter().enumerate() {
            match crate::config::integer(cell) {
                Some(n) if (0..=255).contains(&n) => out.push(n as u8),
                _ => {
                    return Err(t.error(
                        &format!("board[{r}][{c}]"),
                        cell,
                        "a fish count, an integer 0 to 255 (0 for a gap)",
                    ))
                }
            }
        }
        grid.push(out);
    }
    Ok(BoardSpec::Grid(grid))
}

fn default_players() -> usize {
    2
}
fn default_placement() -> Placement {
    Placement::OneFish
}
fn default_order() -> Order {
    Order::RoundRobin
}

impl Config {
    /// A config from TOML text.
    ///
    /// # Errors
    /// `Error::Invalid` for bad TOML, an unknown key, a value of the wrong type or out of
    /// range, or a `game` other than `"fish"`: the message names the key, quotes the value and
    /// says what is allowed.
    pub fn from_toml(text: &str) -> Result<Config> {
        Config::read(Value::from_toml(text, ORIGIN)?, Some(text))
    }

    /// A config from a JSON object.
    ///
    /// # Errors
    /// As [`Config::from_toml`], for JSON.
    pub fn from_json(text: &str) -> Result<Config> {
        Config::from_value(Value::from_json(text, ORIGIN)?)
    }

    /// A config from a [`Value`] tree (what the bindings make of a Python dict).
    ///
    /// # Errors
    /// As [`Config::from_toml`].
    pub fn from_value(value: Value) -> Result<Config> {
        Config::read(value, None)
    }

    fn read(value: Value, source: Option<&str>) -> Result<Config> {
        let mut t = Table::new(value, ORIGIN, KEYS, source)?;
        let config = Config {
            game: match t.string("game", "\"fish\"")? {
                Some(game) => game,
                None => return invalid!("{ORIGIN}: game is missing: expected game = \"fish\""),
            },
            name: t.string("name", "a string, the variant's name")?,
            description: t.string("description", "a string, one line about the variant")?,
            players: t
                .int("players", 2, MAX_FISH_PLAYERS as i128, "2 to 4 players")?
                .map_or(default_players(), |n| n as usize),
            penguins: t
                .int(
                    "penguins",
                    1,
                    MAX_PENGUINS as i128,
                    "1 to 8 penguins per player",
                )?
                .map(|n| n as usize),
            placement: named(&mut t, "placement", Placement::NAMES)?
                .map_or(default_placement(), |p| p),
            order: named(&mut t, "order", Order::NAMES)?.map_or(default_order(), |o| o),
            board: match t.value("board") {
                None => None,
                Some(board) => Some(board_spec(&t, board)?),
            },
        };
        config.check_game()?;
        Ok(config)
    }

    /// The config as JSON (what [`Config::from_json`] reads).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a config serializes")
    }

    fn check_game(&self) -> Result<()> {
        if self.game != "fish" {
            return invalid!(
                "Fish config: game = {}, expected \"fish\"",
                quote(&self.game)
            );
        }
        let name = self.name.as_deref().unwrap_or("");
        check_length("Fish config: name", name, MAX_NAME_CHARS)?;
        let description = self.description.as_deref().unwrap_or("");
        check_length(
            "Fish config: description",
            description,
            MAX_DESCRIPTION_CHARS,
        )
    }

    /// The rules this config sets.
    ///
    /// # Errors
    /// As [`Rules::new`].
    pub fn rules(&self) -> Result<Rules> {
        Rules::new(self.players, self.penguins, self.placement, self.order)
    }

    /// The fixed board of this config, `None` for the standard shuffled board.
    ///
    /// # Errors
    /// `Error::Invalid` for a board name other than `"standard"`.
    pub fn grid(&self) -> Result<Option<Vec<Vec<u8>>>> {
        match &self.board {
            None => Ok(None),
            Some(BoardSpec::Named(name)) if name == "standard" => Ok(None),
            Some(BoardSpec::Named(name)) => {
                invalid!("{ORIGIN}: board = {}: expected {BOARD}", quote(name))
            }
            Some(BoardSpec::Grid(grid)) => Ok(Some(grid.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_order_turns_back() {
        let rules = Rules::new(3, Some(2), Placement::Any, Order::Snake).unwrap();
        let order: Vec<_> = (0..6).map(|t| rules.placer(t)).collect();
        assert_eq!(order, vec![0, 1, 2, 2, 1, 0]);
        let rules = Rules::standard(2).unwrap();
        let order: Vec<_> = (0..8).map(|t| rules.placer(t)).collect();
        assert_eq!(order, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn config_errors_name_the_key_and_value() {
        let err = Config::from_toml("game = \"fish\"\nplyers = 3\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("plyers"), "{err}");
        let err = Config::from_toml("game = \"fish\"\nplacement = \"all\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("all"), "{err}");
        let err = Config::from_toml("game = \"fish\"\nplayers = 7\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("players = 7 (line 2): expected 2 to 4 players"),
            "{err}"
        );
        let err = Config::from_json(r#"{"game": "marathon"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("marathon"), "{err}");
    }

    #[test]
    fn config_errors_speak_of_keys_not_serde() {
        let cases = [
            (
                r#"{"game": "fish", "board": [[1, -1]]}"#,
                "board[0][1] = -1",
            ),
            (
                r#"{"game": "fish", "board": [[1, "x"]]}"#,
                "board[0][1] = \"x\"",
            ),
            (
                r#"{"game": "fish", "board": [[1, 1000000000]]}"#,
                "0 to 255",
            ),
            (
                r#"{"game": "fish", "players": 1267650600228229401496703205376}"#,
                "players = 1.2676506002282293e30: expected 2 to 4 players",
            ),
            (r#"{"game": "fish", "players": 2.5}"#, "players = 2.5"),
            (r#"{"players": 2}"#, "game is missing"),
            (r#"[1, 2]"#, "expected a table of keys"),
        ];
        for (json, says) in cases {
            let e = Config::from_json(json).unwrap_err().to_string();
            assert!(e.starts_with("Fish config: ") && e.contains(says), "{e}");
            assert!(
                !e.contains("untagged") && !e.contains("invalid type"),
                "{e}"
            );
        }
        let e = Config::from_toml("game = \"fish\"\nboard = [[1, 2], 3]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("board[1] = 3 (line 2): expected a row"), "{e}");
        let ok = Config::from_json(r#"{"game": "fish", "players": 3.0, "penguins": null}"#);
        assert_eq!(ok.unwrap().players, 3);
    }

    #[test]
    fn names_and_descriptions_have_a_length_limit() {
        let toml = |name: &str, description: &str| {
            format!("game = \"fish\"\nname = {name:?}\ndescription = {description:?}\n")
        };
        assert!(Config::from_toml(&toml(&"n".repeat(200), &"d".repeat(2000))).is_ok());
        let e = Config::from_toml(&toml(&"n".repeat(201), ""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("name has 201 characters, at most 200"), "{e}");
        let e = Config::from_json(&format!(
            "{{\"game\": \"fish\", \"description\": \"{}\"}}",
            "d".repeat(100_000)
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("description has 100000 characters") && e.len() < 400,
            "{e}"
        );
        let huge = "x".repeat(1_000_000);
        for e in [
            Config::from_toml(&format!("game = {huge:?}")),
            Config::from_toml(&format!("{huge} = 1")),
            Config::from_json(&format!("{{\"game\": \"fish\", \"{huge}\": 1}}")),
            Config::from_json(&format!("{{\"game\": \"fish\", \"board\": {huge:?}}}"))
                .and_then(|c| c.grid().map(|_| c)),
        ] {
            let e = e.unwrap_err().to_string();
            assert!(e.len() < 1000, "{}", e.len());
        }
    }
}
