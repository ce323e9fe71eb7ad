//! Python arguments read the same way in every call: ints that are not bools, seeds of any
//! size, counts with a limit, players, cells as any pair of ints, settings read from text,
//! and records given as a dict or a tuple.

use pingvinas_engine::config::{Value, MAX_DEPTH};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PySequence, PyString, PyTuple};

/// At most this many characters of a bad input are quoted back in an error message.
pub const QUOTE: usize = 200;

/// `repr(value)`, cut to [`QUOTE`] characters.
pub fn quote(value: &Bound<'_, PyAny>) -> String {
    let text = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".into());
    cut(&text)
}

/// `text`, cut to [`QUOTE`] characters with a note of how much was left out.
pub fn cut(text: &str) -> String {
    match text.char_indices().nth(QUOTE) {
        None => text.to_string(),
        Some((end, _)) => format!("{}... ({} characters)", &text[..end], text.chars().count()),
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// `value` as a Python int (anything with `__index__`, such as numpy ints), refusing bools.
pub fn int<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyInt>> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not a bool"
        )));
    }
    if let Ok(i) = value.cast::<PyInt>() {
        return Ok(i.clone());
    }
    if value.hasattr("__index__")? && !value.is_instance_of::<PyString>() {
        return Ok(value.call_method0("__index__")?.cast_into::<PyInt>()?);
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be an int, not {}",
        type_name(value)
    )))
}

/// A seed: any Python int, taken modulo 2**64 (so -1 is 2**64 - 1, and seeds that differ by
/// a multiple of 2**64 are the same seed).
pub fn seed(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    let i = int(value, "seed")?;
    i.bitand(u64::MAX)?.extract()
}

/// An optional seed; `None` draws a fresh one.
pub fn seed_or_random(value: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match value {
        Some(v) if !v.is_none() => seed(v),
        _ => Ok(fresh_seed()),
    }
}

/// A seed from the operating system's randomness (through std's hasher keys) and the clock.
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// A count in `min..=max`, with a `ValueError` that names the limit.
pub fn count(value: &Bound<'_, PyAny>, what: &str, min: u64, max: u64) -> PyResult<u64> {
    let i = int(value, what)?;
    match i.extract::<i128>() {
        Ok(n) if (min as i128..=max as i128).contains(&n) => Ok(n as u64),
        _ => Err(PyValueError::new_err(format!(
            "{what} = {}: expected {min} to {max}",
            cut(&i.to_string())
        ))),
    }
}

/// An optional count (see [`count`]): `None` when not given or `None`.
pub fn opt_count(
    value: Option<&Bound<'_, PyAny>>,
    what: &str,
    min: u64,
    max: u64,
) -> PyResult<Option<u64>> {
    match value {
        Some(v) if !v.is_none() => count(v, what, min, max).map(Some),
        _ => Ok(None),
    }
}

/// The widest layer a net made from random weights may have.
pub const MAX_LAYER_WIDTH: u64 = 4096;
/// The most layers such a net may have.
pub const MAX_LAYERS: usize = 16;

/// Layer widths: a sequence of 1 to [`MAX_LAYERS`] ints, each 1 to [`MAX_LAYER_WIDTH`].
pub fn widths(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    let bad = || {
        PyValueError::new_err(format!(
            "{what} = {}: expected 1 to {MAX_LAYERS} layer widths, each 1 to {MAX_LAYER_WIDTH}",
            quote(value)
        ))
    };
    if value.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let items: Vec<Bound<'_, PyAny>> = value
        .try_iter()
        .map_err(|_| bad())?
        .collect::<PyResult<_>>()?;
    if !(1..=MAX_LAYERS).contains(&items.len()) {
        return Err(bad());
    }
    items
        .iter()
        .map(|w| {
            int(w, what)?;
            count(w, what, 1, MAX_LAYER_WIDTH).map_err(|_| bad())
        })
        .map(|w| w.map(|w| w as usize))
        .collect()
}

/// A number of seconds (an int or a float, not a bool), its range left to the caller: an int
/// too large for a float is infinite, beyond every limit.
pub fn seconds(value: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a number of seconds, not a bool"
        )));
    }
    match value.extract::<f64>() {
        Ok(x) => Ok(x),
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Ok(f64::INFINITY),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be a number of seconds, not {}",
            type_name(value)
        ))),
    }
}

/// An optional number of seconds (see [`seconds`]).
pub fn opt_seconds(value: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<f64>> {
    match value {
        Some(v) if !v.is_none() => seconds(v, what).map(Some),
        _ => Ok(None),
    }
}

/// An optional count (see [`count`]): `default` when not given.
pub fn count_or(
    value: Option<&Bound<'_, PyAny>>,
    what: &str,
    min: u64,
    max: u64,
    default: u64,
) -> PyResult<u64> {
    value.map_or(Ok(default), |v| count(v, what, min, max))
}

/// A setting given as text, read by its type's `FromStr`: `what = why` when it fails.
pub fn parsed<T: std::str::FromStr>(text: &str, what: &str) -> PyResult<T>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>()
        .map_err(|e| PyValueError::new_err(format!("{what} = {}", cut(&e.to_string()))))
}

/// An optional string `field` of `what` (Python `None` is left out).
pub fn opt_str(
    value: Option<Bound<'_, PyAny>>,
    what: &str,
    field: &str,
) -> PyResult<Option<String>> {
    match value {
        Some(v) if !v.is_none() => {
            v.cast::<PyString>()
                .map(|s| Some(s.to_string()))
                .map_err(|_| {
                    PyValueError::new_err(format!(
                        "{what}: {field} must be a string, not {}",
                        type_name(&v)
                    ))
                })
        }
        _ => Ok(None),
    }
}

/// The fields `keys` of a record `what` given as a dict with those keys, or as a tuple or list
/// of them in order; the first `required` must be given, the others are `None` when left out.
/// `noun` names such a record in messages (`"a piece"`).
pub fn record<'py>(
    value: &Bound<'py, PyAny>,
    what: &str,
    noun: &str,
    keys: &[&str],
    required: usize,
) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    let all = keys.join(", ");
    if let Ok(d) = value.cast::<PyDict>() {
        for key in d.keys() {
            let k: String = key.extract().unwrap_or_default();
            if !keys.contains(&k.as_str()) {
                return Err(PyValueError::new_err(format!(
                    "{what}: unknown key {key:?} (keys: {all})"
                )));
            }
        }
        return keys
            .iter()
            .enumerate()
            .map(|(i, &k)| match d.get_item(k)? {
                None if i < required => {
                    Err(PyValueError::new_err(format!("{what}: missing {k:?}")))
                }
                v => Ok(v),
            })
            .collect();
    }
    if value.is_instance_of::<PyTuple>() || value.is_instance_of::<PyList>() {
        let seq = value.cast::<PySequence>()?;
        let n = seq.len()?;
        if !(required..=keys.len()).contains(&n) {
            return Err(PyValueError::new_err(format!(
                "{what}: expected ({all}), got {n} items"
            )));
        }
        return (0..keys.len())
            .map(|j| {
                if j < n {
                    seq.get_item(j).map(Some)
                } else {
                    Ok(None)
                }
            })
            .collect();
    }
    Err(PyTypeError::new_err(format!(
        "{what}: {noun} is a dict or a tuple ({all}), not {}",
        value.get_type().name()?
    )))
}

/// A player number below `players`.
pub fn player(value: &Bound<'_, PyAny>, players: usize) -> PyResult<usize> {
    Ok(count(value, "player", 0, players as u64 - 1)? as usize)
}

/// The player an observation is made for: `player`, or else the player to move (seat 0 once
/// the game is over).
pub fn viewer(
    player_arg: Option<&Bound<'_, PyAny>>,
    to_move: Option<usize>,
    players: usize,
) -> PyResult<usize> {
    match player_arg {
        Some(p) if !p.is_none() => player(p, players),
        _ => Ok(to_move.unwrap_or(0)),
    }
}

/// Threads for a parallel call: 0 means every core; at most 256.
pub fn threads(value: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(count(value, "threads", 0, 256)? as usize)
}

/// A cell: any pair of ints (a tuple, a list from JSON, a numpy array).
pub fn cell(value: &Bound<'_, PyAny>, what: &str) -> PyResult<(i64, i64)> {
    let bad = || {
        PyValueError::new_err(format!(
            "{what}: a cell is a pair of ints (row, col), not {}",
            quote(value)
        ))
    };
    if value.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let items: Vec<Bound<'_, PyAny>> = value
        .try_iter()
        .map_err(|_| bad())?
        .collect::<PyResult<_>>()
        .map_err(|_| bad())?;
    let [r, c] = items.as_slice() else {
        return Err(bad());
    };
    let coord = |v: &Bound<'_, PyAny>| -> PyResult<i64> {
        int(v, what)
            .map_err(|_| bad())?
            .extract::<i64>()
            .map_err(|_| bad())
    };
    Ok((coord(r)?, coord(c)?))
}

/// A list of cells.
pub fn cells(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(i64, i64)>> {
    if value.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list of cells"
        )));
    }
    value
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a list of cells")))?
        .map(|c| cell(&c?, what))
        .collect()
}

/// A config dict as the engine's [`Value`] tree, kept as Python has it (NaN, ints of any
/// size), so that the engine's messages quote what was given. `path` names the value in
/// errors (`"players"`, `"board[2]"`).
pub fn config_value(value: &Bound<'_, PyAny>, origin: &str, path: &str) -> PyResult<Value> {
    config_value_at(value, origin, path, 0)
}

fn config_value_at(
    value: &Bound<'_, PyAny>,
    origin: &str,
    path: &str,
    depth: usize,
) -> PyResult<Value> {
    let nested = |what: &str| {
        if depth >= MAX_DEPTH {
            return Err(PyValueError::new_err(format!(
                "{origin}: {} nests more than {MAX_DEPTH} levels deep",
                if path.is_empty() { what } else { path }
            )));
        }
        Ok(())
    };
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::Str(s.to_cow()?.into_owned()));
    }
    if let Ok(x) = value.cast::<PyFloat>() {
        return Ok(Value::Float(x.value()));
    }
    if value.cast::<PyInt>().is_ok() || value.hasattr("__index__")? {
        let i = int(value, path)?;
        return Ok(match i.extract::<i128>() {
            Ok(n) => Value::Int(n),
            // str() refuses ints of more than 4300 digits: say how large instead.
            Err(_) => Value::BigInt(match i.str() {
                Ok(digits) => digits.to_string(),
                Err(_) => format!("<an int of {} bits>", i.call_method0("bit_length")?),
            }),
        });
    }
    let item = |i: usize, v: &Bound<'_, PyAny>| {
        config_value_at(v, origin, &format!("{path}[{i}]"), depth + 1)
    };
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        nested("the dict")?;
        return value
            .try_iter()?
            .enumerate()
            .map(|(i, v)| item(i, &v?))
            .collect::<PyResult<_>>()
            .map(Value::List);
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        nested("the dict")?;
        let mut entries = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(PyValueError::new_err(format!(
                    "{origin}: key {}: keys are strings",
                    quote(&k)
                )));
            };
            let key = key.to_cow()?.into_owned();
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            entries.push((key, config_value_at(&v, origin, &at, depth + 1)?));
        }
        return Ok(Value::Table(entries));
    }
    Err(PyValueError::new_err(format!(
        "{origin}: {} = {}: not a config value (a string, number, bool, list or dict)",
        if path.is_empty() { "the config" } else { path },
        quote(value)
    )))
}
