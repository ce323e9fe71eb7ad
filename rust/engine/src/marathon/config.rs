//! Variant configs: TOML (or JSON) with the course as an ASCII map. The bundled ones are
//! `variants/marathon*.toml` in the engine crate (see [`crate::variants`]); their comments
//! document the format.

use serde::Deserialize;
use toml::Spanned;

use super::course::Course;
use super::{Marathon, DEFAULT_PLY_LIMIT, MAX_PLAYERS};
use crate::config::{Table, Value};
use crate::error::{check_length, quote, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS};
use crate::error::{Error, Result};

/// Short names of the bundled configs.
const ALIASES: [(&str, &str); 4] = [
    ("standard", "marathon"),
    ("5", "marathon-5"),
    ("l", "marathon-l"),
    ("zigzag", "marathon-zigzag"),
];

/// The names of the bundled configs.
pub fn bundled_names() -> Vec<&'static str> {
    crate::variants::of_game("marathon")
        .map(|v| v.name)
        .collect()
}

/// A Marathon variant: name, players, ply limit and the course map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The variant's name (`"marathon"`, or the file's).
    pub name: String,
    /// One line for people (may be empty).
    pub description: String,
    /// Players, 2 to 5.
    pub players: usize,
    /// The game is a draw after this many plies.
    pub ply_limit: u32,
    /// The course as an ASCII map (see [`Course`]).
    pub course: String,
}

/// The keys of a Marathon config.
const KEYS: &[&str] = &[
    "game",
    "name",
    "description",
    "players",
    "ply_limit",
    "course",
];

/// Where the course string sits in TOML text (the other keys are read as [`Value`]s).
#[derive(Deserialize)]
struct CourseSpan {
    course: Spanned<String>,
}

/// Checks every key but the course map itself; `origin` names the source in messages and
/// `source` is the TOML text, if any (for the line of a bad key).
fn read(value: Value, origin: &str, source: Option<&str>) -> Result<Config> {
    let mut t = Table::new(value, origin, KEYS, source)?;
    if let Some(game) = t.string("game", "\"marathon\"")? {
        if game != "marathon" {
            return Err(Error::Invalid(format!(
                "{origin}: game = {}, but this is a Penguin Marathon config (game = \"marathon\")",
                quote(&game)
            )));
        }
    }
    let name = t.string("name", "a string, the variant's name")?;
    let description = t.string("description", "a string, one line about the variant")?;
    let players = t.int(
        "players",
        2,
        MAX_PLAYERS as i128,
        "2 to 5 players (Penguin Marathon)",
    )?;
    let ply_limit = t.int(
        "ply_limit",
        1,
        u32::MAX as i128,
        "a positive number of actions (at most 4294967295)",
    )?;
    let Some(course) = t.string("course", "the course as an ASCII map (a string)")? else {
        return Err(Error::Invalid(format!(
            "{origin}: course is missing: expected the course as an ASCII map (a string; see \
             the bundled variants)"
        )));
    };
    let config = Config {
        name: name.unwrap_or_else(|| "custom".to_string()),
        description: description.unwrap_or_default(),
        players: players.map_or(2, |p| p as usize),
        ply_limit: ply_limit.map_or(DEFAULT_PLY_LIMIT, |p| p as u32),
        course,
    };
    config.check_texts().map_err(|e| with_origin(origin, e))?;
    Ok(config)
}

impl Config {
    /// Reads a TOML config; `origin` (a file name, say) starts error messages. The course is
    /// checked here, and its errors give the line and column in the TOML text.
    ///
    /// # Errors
    /// `Error::Invalid` for bad TOML, an unknown key, a value out of range or a bad course map,
    /// naming `origin` and the place.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config> {
        let config = read(Value::from_toml(text, origin)?, origin, Some(text))?;
        let span = toml::from_str::<CourseSpan>(text)
            .ok()
            .map(|c| c.course.span());
        let map_start = span.and_then(|span| map_start_in_source(text, span, &config.course));
        let locate = |line: usize, col: usize| match map_start {
            Some(start) => {
                let before = &text[..start];
                let file_line = before.matches('\n').count() + line + 1;
                let file_col = if line == 0 {
                    before.rsplit('\n').next().unwrap_or("").chars().count() + col + 1
                } else {
                    col + 1
                };
                format!("{origin}: line {file_line}, column {file_col}")
            }
            None => format!("{origin}: course map line {}, column {}", line + 1, col + 1),
        };
        Course::parse_located(&config.course, &locate).map_err(|e| with_origin(origin, e))?;
        Ok(config)
    }

    /// Reads a JSON config with the same keys.
    ///
    /// # Errors
    /// As [`Config::from_toml`], for JSON.
    pub fn from_json(text: &str, origin: &str) -> Result<Config> {
        Config::from_value(Value::from_json(text, origin)?, origin)
    }

    /// Reads a config from a [`Value`] tree (what the bindings make of a Python dict).
    ///
    /// # Errors
    /// As [`Config::from_toml`].
    pub fn from_value(value: Value, origin: &str) -> Result<Config> {
        let config = read(value, origin, None)?;
        Course::parse_located(&config.course, &|line, col| {
            format!("{origin}: course map line {}, column {}", line + 1, col + 1)
        })
        .map_err(|e| with_origin(origin, e))?;
        Ok(config)
    }

    /// A bundled config by name or short name (`standard`, `5`, `l`, `zigzag`), any case.
    ///
    /// # Errors
    /// `Error::Invalid` for an unknown name (the message lists the choices).
    pub fn bundled(name: &str) -> Result<Config> {
        let key = name.trim().to_ascii_lowercase();
        let key = ALIASES
            .iter()
            .find(|a| a.0 == key)
            .map_or(key.as_str(), |a| a.1);
        let variant = crate::variants::find("marathon", key).ok_or_else(|| {
            Error::Invalid(format!(
                "unknown Penguin Marathon course {}: choose marathon (or standard), \
                 marathon-5 (5), marathon-l (l) or marathon-zigzag (zigzag)",
                quote(name)
            ))
        })?;
        Config::from_toml(variant.toml, &format!("{}.toml", variant.name))
    }

    /// The game this config describes.
    ///
    /// # Errors
    /// `Error::Invalid` when the course map or the player count is not valid.
    pub fn build(&self) -> Result<Marathon> {
        self.check_texts()?;
        let course = Course::parse(&self.course)?;
        Ok(
            Marathon::new(&self.name, course, self.players, self.ply_limit)?
                .with_description(&self.description),
        )
    }

    /// `name` and `description` within [`MAX_NAME_CHARS`] and [`MAX_DESCRIPTION_CHARS`].
    fn check_texts(&self) -> Result<()> {
        check_length("name", &self.name, MAX_NAME_CHARS)?;
        check_length("description", &self.description, MAX_DESCRIPTION_CHARS)
    }

    /// The config as TOML, readable by [`Config::from_toml`].
    pub fn to_toml(&self) -> String {
        format!(
            "game = \"marathon\"\nname = {}\ndescription = {}\nplayers = {}\nply_limit = {}\ncourse = \"\"\"\n{}\"\"\"\n",
            serde_json::to_string(&self.name).expect("a string serialises"),
            serde_json::to_string(&self.description).expect("a string serialises"),
            self.players,
            self.ply_limit,
            self.course
        )
    }
}

/// The byte offset in `text` where the course string's content starts, if it can be mapped
/// line for line (no escapes); else `None`.
fn map_start_in_source(text: &str, span: std::ops::Range<usize>, value: &str) -> Option<usize> {
    let raw = text.get(span.clone())?;
    let (open, literal) = if raw.starts_with("\"\"\"") {
        (3, false)
    } else if raw.starts_with("'''") {
        (3, true)
    } else if raw.starts_with('"') {
        (1, false)
    } else if raw.starts_with('\'') {
        (1, true)
    } else {
        return None;
    };
    let mut start = span.start + open;
    if open == 3 {
        if text[start..].starts_with("\r\n") {
            start += 2;
        } else if text[start..].starts_with('\n') {
            start += 1;
        }
    }
    let end = span.end.checked_sub(open)?;
    let inner = text.get(start..end)?;
    if !literal && inner.contains('\\') {
        return None;
    }
    (inner.replace("\r\n", "\n") == value.replace("\r\n", "\n")).then_some(start)
}

/// `origin: message`, unless the message already names the origin.
fn with_origin(origin: &str, e: Error) -> Error {
    match e {
        Error::Invalid(m) if !m.starts_with(origin) => Error::Invalid(format!("{origin}: {m}")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "SSS\n###\n###\n###\nFFF\n";

    #[test]
    fn names_and_descriptions_have_a_length_limit() {
        let toml = |name: &str, description: &str| {
            format!("name = {name:?}\ndescription = {description:?}\ncourse = {MAP:?}\n")
        };
        assert!(Config::from_toml(&toml(&"n".repeat(200), &"d".repeat(2000)), "x").is_ok());
        let e = Config::from_toml(&toml(&"n".repeat(201), ""), "x")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("name has 201 characters, at most 200") && e.len() < 400,
            "{e}"
        );
        let e = Config::from_toml(&toml("", &"d".repeat(100_000)), "x")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("description has 100000 characters") && e.len() < 400,
            "{e}"
        );
        let config = Config {
            name: "n".repeat(5000),
            description: String::new(),
            players: 2,
            ply_limit: 10,
            course: MAP.into(),
        };
        assert!(config.build().is_err());
    }

    #[test]
    fn errors_quote_little_of_a_huge_input() {
        let huge = "x".repeat(1_000_000);
        for e in [
            Config::from_toml(&format!("game = {huge:?}\ncourse = {MAP:?}\n"), "x"),
            Config::from_toml(&format!("{huge} = 1"), "x"),
            Config::from_json(&format!("{{\"game\": 1, \"{huge}\": 2}}"), "x"),
            Config::from_json(&format!("{{\"course\": {MAP:?}, \"{huge}\": 2}}"), "x"),
            Config::bundled(&huge),
        ] {
            let e = e.unwrap_err().to_string();
            assert!(e.len() < 1000, "{}", e.len());
        }
        let game = Config::bundled("marathon").unwrap().build().unwrap();
        let s = game.new_state();
        for text in [
            huge.clone(),
            format!("B 0,0 {huge}"),
            format!("{huge} 0,0 S"),
            format!("B {huge} S"),
            format!("B -1,1 S {huge}"),
            format!("B -1,1 S 2,1 {huge}"),
        ] {
            let e = game.parse_move(&s, &text).unwrap_err().to_string();
            assert!(e.len() < 1000, "{}: {}", e.len(), &e[..100]);
        }
        let e = crate::marathon::json::from_json(&format!("{{\"game\": {huge:?}}}"))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 1000, "{}", e.len());
    }
}
