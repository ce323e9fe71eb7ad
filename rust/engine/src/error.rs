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
}

/// The engine's `Result`.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::IllegalMove(m) | Error::Parse(m) | Error::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// `Err(Error::Invalid(format!(..)))` in one line.
#[macro_export]
macro_rules! invalid {
    ($($arg:tt)*) => { Err($crate::Error::Invalid(format!($($arg)*))) };
}
