//! The keys of a variant config, read one by one: both games' configs (TOML files, JSON
//! objects, Python dicts through the bindings) are first read into a [`Value`] tree, and each
//! key is then checked here, so that an error names the key, quotes the value and says what is
//! allowed (serde's own messages name Rust types and untagged enums).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{clip, MAX_QUOTE};
use crate::error::{Error, Result};

/// How deep a config may nest (a Fish board is two levels below the top); deeper input is
/// refused before it is read further, so that no nesting can exhaust the stack.
pub const MAX_DEPTH: usize = 8;

/// One value of a config, whatever format it came in.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// JSON `null`, Python `None`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer (TOML and JSON integers; Python ints up to 128 bits).
    Int(i128),
    /// A Python int too large for [`Value::Int`], as its decimal digits (no config key allows
    /// it; kept so that the message quotes it).
    BigInt(String),
    /// A float, NaN and infinities included (a Python dict may hold them).
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    List(Vec<Value>),
    /// A table or object, its keys in order.
    Table(Vec<(String, Value)>),
}

impl Value {
    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::BigInt(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::List(_) => "a list",
            Value::Table(_) => "a table",
        }
    }

    /// The value as JSON-like text for a message, clipped to [`MAX_QUOTE`] characters.
    pub fn quoted(&self) -> String {
        clip(&self.to_string(), MAX_QUOTE).into_owned()
    }

    /// Reads JSON text.
    ///
    /// # Errors
    /// `Error::Invalid` (prefixed with `origin`) for text that is not JSON or nests deeper
    /// than [`MAX_DEPTH`].
    pub fn from_json(text: &str, origin: &str) -> Result<Value> {
        serde_json::from_str(text).map_err(|e| {
            let place = format!(" (line {}, column {})", e.line(), e.column());
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            Error::Invalid(format!(
                "{origin}: not a JSON object: {}{place}",
                clip(message, MAX_QUOTE)
            ))
        })
    }

    /// Reads TOML text.
    ///
    /// # Errors
    /// `Error::Invalid` (prefixed with `origin`) for text that is not TOML, naming the line
    /// and column but not quoting them (the text may not be a config at all).
    pub fn from_toml(text: &str, origin: &str) -> Result<Value> {
        toml::from_str(text).map_err(|e| {
            let place = e.span().map_or(String::new(), |span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
                format!(" (line {line}, column {column})")
            });
            Error::Invalid(format!(
                "{origin}: not a TOML config: {}{place}",
                clip(e.message().trim(), MAX_QUOTE)
            ))
        })
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::BigInt(digits) => f.write_str(&clip(digits, 60)),
            Value::Float(x) if x.is_nan() => f.write_str("NaN"),
            Value::Float(x) if x.is_infinite() => {
                f.write_str(if *x > 0.0 { "Infinity" } else { "-Infinity" })
            }
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{}", clip(&format!("{s:?}"), MAX_QUOTE)),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if i == 8 {
                        return write!(f, "... ({} items)]", items.len());
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Table(entries) => {
                f.write_str("{")?;
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if i == 8 {
                        return write!(f, "... ({} keys)}}", entries.len());
                    }
                    write!(f, "{}: {item}", clip(&format!("{key:?}"), MAX_QUOTE))?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Reads any self-describing format (JSON, TOML) into a [`Value`], [`MAX_DEPTH`] levels deep
/// at most.
struct ValueVisitor {
    depth: usize,
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a config value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> std::result::Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let inner = self.deeper::<A::Error>()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner.seed())? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let inner = self.deeper::<A::Error>()?;
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(inner.seed())?));
        }
        Ok(Value::Table(entries))
    }
}

impl ValueVisitor {
    fn deeper<E: de::Error>(&self) -> std::result::Result<ValueVisitor, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format!(
                "nested more than {MAX_DEPTH} levels deep"
            )));
        }
        Ok(ValueVisitor {
            depth: self.depth + 1,
        })
    }

    fn seed(&self) -> ValueSeed {
        ValueSeed { depth: self.depth }
    }
}

struct ValueSeed {
    depth: usize,
}

impl<'de> de::DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor { depth: self.depth })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor { depth: 0 })
    }
}

/// The keys of one config table, checked one by one. `origin` starts every message
/// (`"Fish config"`, a file name).
pub struct Table<'a> {
    origin: &'a str,
    entries: Vec<(String, Value)>,
    /// The TOML text the table came from, to give the line of a bad key.
    source: Option<&'a str>,
}

impl<'a> Table<'a> {
    /// The table `value` is, with only the keys in `known`.
    ///
    /// # Errors
    /// `Error::Invalid` when `value` is not a table, or holds a key not in `known` or the
    /// same key twice.
    pub fn new(
        value: Value,
        origin: &'a str,
        known: &[&str],
        source: Option<&'a str>,
    ) -> Result<Table<'a>> {
        let entries = match value {
            Value::Table(entries) => entries,
            other => {
                return Err(Error::Invalid(format!(
                    "{origin}: expected a table of keys ({}), got {} {}",
                    known.join(", "),
                    other.kind(),
                    other.quoted()
                )))
            }
        };
        for (i, (key, _)) in entries.iter().enumerate() {
            if !known.contains(&key.as_str()) {
                return Err(Error::Invalid(format!(
                    "{origin}: unknown key {}{}; the keys are {}",
                    clip(&format!("{key:?}"), MAX_QUOTE),
                    line_of(source, key),
                    known.join(", ")
                )));
            }
            if entries[..i].iter().any(|(k, _)| k == key) {
                return Err(Error::Invalid(format!("{origin}: key {key} given twice")));
            }
        }
        Ok(Table {
            origin,
            entries,
            source,
        })
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        match self.entries.remove(i).1 {
            Value::Null => None, // null is "not given"
            v => Some(v),
        }
    }

    /// `origin: key = value: expected ...`.
    pub fn error(&self, key: &str, value: &Value, expected: &str) -> Error {
        Error::Invalid(format!(
            "{}: {key} = {}{}: expected {expected}",
            self.origin,
            value.quoted(),
            line_of(self.source, key.split('[').next().unwrap_or(key))
        ))
    }

    /// The string at `key`, if given.
    ///
    /// # Errors
    /// `Error::Invalid` for a value that is not a string.
    pub fn string(&mut self, key: &str, what: &str) -> Result<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(other) => Err(self.error(key, &other, what)),
        }
    }

    /// The integer at `key` in `low..=high`, if given (a float with an integer value counts:
    /// JSON writers may write `2.0`).
    ///
    /// # Errors
    /// `Error::Invalid` for a value that is not such an integer; `what` says what is allowed.
    pub fn int(&mut self, key: &str, low: i128, high: i128, what: &str) -> Result<Option<i128>> {
        let Some(value) = self.take(key) else {
            return Ok(None);
        };
        match integer(&value) {
            Some(i) if (low..=high).contains(&i) => Ok(Some(i)),
            _ => Err(self.error(key, &value, what)),
        }
    }

    /// The value at `key`, unchecked, if given.
    pub fn value(&mut self, key: &str) -> Option<Value> {
        self.take(key)
    }
}

/// `" (line N)"`: where the top-level `key` is set in TOML `source`, if it can be found.
fn line_of(source: Option<&str>, key: &str) -> String {
    let Some(text) = source else {
        return String::new();
    };
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let rest = line
                .strip_prefix(key)
                .or_else(|| line.strip_prefix(&format!("\"{key}\"")));
            rest.is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(String::new(), |i| format!(" (line {})", i + 1))
}

/// The integer `value` is: an int, or a float with an integer value.
pub fn integer(value: &Value) -> Option<i128> {
    match *value {
        Value::Int(i) => Some(i),
        Value::Float(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e30 => Some(x as i128),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_from_both_formats() {
        let json = Value::from_json(r#"{"a": [1, -2, 3.5, "x", null, true]}"#, "j").unwrap();
        let toml = Value::from_toml("a = [1, -2, 3.5, \"x\", true]", "t").unwrap();
        assert_eq!(
            json.to_string(),
            r#"{"a": [1, -2, 3.5, "x", null, true]}"#.to_string()
        );
        assert_eq!(toml.to_string(), r#"{"a": [1, -2, 3.5, "x", true]}"#);
        assert_eq!(Value::Float(f64::NAN).to_string(), "NaN");
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let e = Value::from_json(&deep, "x").unwrap_err().to_string();
        assert!(e.contains("nested more than"), "{e}");
        let e = Value::from_toml(&format!("a = {deep}"), "x")
            .unwrap_err()
            .to_string();
        assert!(e.len() < 600, "{e}");
    }

    #[test]
    fn toml_errors_name_the_place_without_quoting_the_line() {
        let e = Value::from_toml("root:x:0:0:root:/root:/bin/bash\n", "/etc/passwd")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/etc/passwd: not a TOML config"), "{e}");
        assert!(e.contains("line 1"), "{e}");
        assert!(!e.contains("/bin/bash"), "{e}");
    }
}
