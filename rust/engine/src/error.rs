//! The engine's one error type; the bindings map each kind to one Python exception.

use std::fmt;

/// What went wrong, with a message meant for a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A well-formed move that the rules forbid in this position.
    IllegalMove(String),
    /// Text (a move, JSON, a config) that could not be read.
    Parse(String),
    /// A position, config or argument that breaks the rules or the engine's limits.
    Invalid(String),
    /// A long call (batch playouts, say) stopped early because its stop flag was raised
    /// (the bindings raise `KeyboardInterrupt`).
    Interrupted(String),
    /// More memory asked for than the machine has (checked before allocating; the bindings
    /// raise `MemoryError`).
    Memory(String),
}

/// The engine's `Result`.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::IllegalMove(m)
            | Error::Parse(m)
            | Error::Invalid(m)
            | Error::Interrupted(m)
            | Error::Memory(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// `Err(Error::Invalid(format!(..)))` in one line.
#[macro_export]
macro_rules! invalid {
    ($($arg:tt)*) => { Err($crate::error::Error::Invalid(format!($($arg)*))) };
}
pub(crate) use invalid;

/// The longest variant name a config or state JSON may give, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// The longest variant description a config or state JSON may give, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2000;

/// `Ok` if `text` (the config key `what`) has at most `max` characters, else an
/// `Error::Invalid` that quotes the start of it.
pub fn check_length(what: &str, text: &str, max: usize) -> Result<()> {
    let n = text.chars().count();
    if n > max {
        return Err(Error::Invalid(format!(
            "{what} has {n} characters, at most {max} allowed: {}",
            quote(text)
        )));
    }
    Ok(())
}

/// `x` as a message quotes a number given: as Rust writes it when that is short, else in
/// scientific notation (`1e308`, not 309 digits).
pub fn short_number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 16 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// The most characters of user input an error message quotes (see [`quote`]).
pub const MAX_QUOTE: usize = 200;

/// At most `max` characters of `text`; longer text is cut and ends with
/// `… (N characters in all)`, so an error message never echoes a huge input whole.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!(
            "{}… ({} characters in all)",
            &text[..end],
            text.chars().count()
        )),
    }
}

/// User input for an error message: `{:?}`-quoted, at most [`MAX_QUOTE`] characters of it.
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTE) {
        None => format!("{text:?}"),
        Some((end, _)) => format!(
            "{:?}… ({} characters in all)",
            &text[..end],
            text.chars().count()
        ),
    }
}

/// A parser's error message (TOML and JSON errors quote the offending line) with every line
/// clipped to [`MAX_QUOTE`] characters and at most 20 lines.
pub fn clip_message(message: &str) -> String {
    let mut out: Vec<String> = message
        .lines()
        .take(20)
        .map(|l| clip(l, MAX_QUOTE).into_owned())
        .collect();
    if message.lines().nth(20).is_some() {
        out.push("…".into());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_quoted_short() {
        assert_eq!(short_number(0.5), "0.5");
        assert_eq!(short_number(-3.0), "-3");
        assert_eq!(short_number(1e308), "1e308");
        assert_eq!(short_number(f64::NAN), "NaN");
        assert_eq!(short_number(f64::INFINITY), "inf");
        assert!(short_number(1.0 / 3.0).len() < 25);
    }

    #[test]
    fn quotes_are_clipped() {
        assert_eq!(quote("a1"), "\"a1\"");
        let long = "é".repeat(1_000_000);
        let q = quote(&long);
        assert!(q.len() < 600, "{}", q.len());
        assert!(q.ends_with("(1000000 characters in all)"), "{q}");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "abc… (4 characters in all)");
        let m = clip_message(&format!("x\n{}\ny", "z".repeat(5000)));
        assert!(
            m.len() < 300 && m.starts_with("x\n") && m.ends_with("\ny"),
            "{m}"
        );
    }
}
