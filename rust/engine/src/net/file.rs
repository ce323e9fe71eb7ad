//! Nets in `safetensors` files: the tensors the module text names (little-endian `F32`) and a
//! header (`__metadata__`) that says what they are:
//!
//! | key | value |
//! |---|---|
//! | `format` | `pingvinas-mlp` ([`Mlp`]) or `pingvinas-nnue` ([`Nnue`]) |
//! | `version` | `1` |
//! | `game` | the game's name (`fish`, `marathon`) |
//! | `observation` | the observation shape, `planes,rows,columns` |
//! | `actions`, `players` | the action space's size, the player count |
//!
//! Any framework that writes `safetensors` can make one (numpy, JAX, torch `state_dict`s).

use std::collections::HashMap;
use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;

use super::nnue::Nnue;
pub use super::nnue::NNUE_FORMAT;
use super::{Dense, Fits, Mlp};
use crate::error::{Error, Result};

/// The architecture a file's `format` names: [`Mlp`].
pub const FORMAT: &str = "pingvinas-mlp";
/// The version of each format this engine reads and writes.
pub const VERSION: &str = "1";

/// The `format` a net file's header names (without checking anything else), or an error for
/// bytes that are not a `safetensors` file with one: what a loader looks at to choose the
/// architecture.
///
/// # Errors
/// `Error::Invalid` for bytes that are not `safetensors` or a header without `format`.
pub fn format_of(bytes: &[u8]) -> Result<String> {
    let (_, meta) = SafeTensors::read_metadata(bytes)
        .map_err(|e| Error::Invalid(format!("not a safetensors file ({e})")))?;
    let header = meta.metadata().clone().unwrap_or_default();
    header.get("format").cloned().ok_or_else(|| {
        Error::Invalid(format!(
            "the header has no \"format\": not a {FORMAT} or {NNUE_FORMAT} net (see pingvinas' \
             docs on nets)"
        ))
    })
}

/// Reads a net file's bytes, refusing anything but a regular file, and one larger than
/// [`MAX_FILE_BYTES`]; errors name the file.
///
/// # Errors
/// `Error::Invalid` for a file that cannot be read, is not a regular file (a device such as
/// `/dev/zero` would be read without end), or is too large.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let name = path.display().to_string();
    let unreadable = |e: std::io::Error| bad(&name, format!("cannot read the file ({e})"));
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(bad(&name, "not a regular file".to_string()));
    }
    let too_large = |size: u64| {
        bad(
            &name,
            format!("{size} bytes, more than a net may have ({MAX_FILE_BYTES})"),
        )
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    // The cap holds even if the file grows after its size was read.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The sizes a file's header names, once its `format` is `format` and its version
/// [`VERSION`], and its tensors.
fn read_header<'a>(bytes: &'a [u8], format: &str) -> Result<(Fits, SafeTensors<'a>)> {
    let (_, meta) = SafeTensors::read_metadata(bytes)
        .map_err(|e| Error::Invalid(format!("not a safetensors file ({e})")))?;
    let header = meta.metadata().clone().unwrap_or_default();
    let key = |k: &str| {
        header.get(k).map(String::as_str).ok_or_else(|| {
            Error::Invalid(format!(
                "the header has no {k:?}: not a {format} net (see pingvinas' docs on nets)"
            ))
        })
    };
    let found = key("format")?;
    if found != format {
        let what = |f: &str| match f {
            FORMAT => "a policy-and-value net (Net)".to_string(),
            NNUE_FORMAT => "an evaluation-only NNUE net (NnueNet)".to_string(),
            other => format!("{other:?}, which pingvinas does not know"),
        };
        return crate::error::invalid!(
            "the header's format is {found:?}: the file holds {}, not {} ({format:?}); load \
             it as such (pingvinas.evaluators.native reads either)",
            what(found),
            what(format)
        );
    }
    if key("version")? != VERSION {
        return crate::error::invalid!(
            "{format} version {:?}: this pingvinas reads version {VERSION}",
            key("version")?
        );
    }
    let number = |k: &str, text: &str| {
        text.trim().parse::<usize>().map_err(|_| {
            Error::Invalid(format!("the header's {k} is {text:?}, not a whole number"))
        })
    };
    let shape: Vec<usize> = key("observation")?
        .split(',')
        .map(|t| number("observation", t))
        .collect::<Result<_>>()?;
    let Ok(observation) = <[usize; 3]>::try_from(shape) else {
        return crate::error::invalid!(
            "the header's observation is {:?}: expected planes,rows,columns",
            key("observation")?
        );
    };
    let fits = Fits {
        game: key("game")?.to_string(),
        observation,
        actions: number("actions", key("actions")?)?,
        players: number("players", key("players")?)?,
    };
    let tensors = SafeTensors::deserialize(bytes)
        .map_err(|e| Error::Invalid(format!("not a safetensors file ({e})")))?;
    Ok((fits, tensors))
}

/// A dense layer from the tensors `{prefix}.weight` and `{prefix}.bias`.
fn dense(tensors: &SafeTensors<'_>, prefix: &str) -> Result<Dense> {
    let (shape, weight) = tensor(tensors, &format!("{prefix}.weight"))?;
    let (bias_shape, bias) = tensor(tensors, &format!("{prefix}.bias"))?;
    let bias_len = bias.len();
    let dense = Dense::new(prefix, &shape, weight, bias)?;
    if bias_shape != [bias_len] {
        return crate::error::invalid!(
            "{prefix}.bias has shape {bias_shape:?}: expected [{bias_len}] (the rows of \
             {prefix}.weight)"
        );
    }
    Ok(dense)
}

/// The number of layers `{group}.{k}` that `names` hold (`k` from 0), or an error naming a
/// tensor that is neither one of them nor one of `singles` (`policy`, `value`).
fn count_layers<'a>(
    names: impl Iterator<Item = &'a str>,
    group: &str,
    singles: &[&str],
    format: &str,
) -> Result<usize> {
    let mut layers = 0;
    for name in names {
        let parts = name.split('.').collect::<Vec<_>>();
        let known = match parts[..] {
            [single, "weight" | "bias"] => singles.contains(&single),
            [g, k, "weight" | "bias"] if g == group => match k.parse::<usize>() {
                Ok(k) if k < 1024 => {
                    layers = layers.max(k + 1);
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !known {
            let singles = singles
                .iter()
                .map(|s| format!("{s}.weight/bias"))
                .collect::<Vec<_>>()
                .join(", ");
            return crate::error::invalid!(
                "unexpected tensor {name:?}: a {format} net has {group}.<k>.weight/bias and \
                 {singles}"
            );
        }
    }
    Ok(layers)
}

/// A `safetensors` file of these layers (`(name prefix, layer)`) and this header, with sorted
/// header keys.
fn write_file<'a>(
    format: &str,
    fits: &Fits,
    named: impl Iterator<Item = (String, &'a Dense)>,
) -> Result<Vec<u8>> {
    let [planes, rows, cols] = fits.observation;
    let header: HashMap<String, String> = [
        ("format", format.to_string()),
        ("version", VERSION.to_string()),
        ("game", fits.game.clone()),
        ("observation", format!("{planes},{rows},{cols}")),
        ("actions", fits.actions.to_string()),
        ("players", fits.players.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut layers: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (prefix, l) in named {
        layers.push((
            format!("{prefix}.weight"),
            vec![l.outputs, l.inputs],
            le_bytes(&l.weight),
        ));
        layers.push((format!("{prefix}.bias"), vec![l.outputs], le_bytes(&l.bias)));
    }
    let views = layers
        .iter()
        .map(|(name, shape, data)| {
            TensorView::new(Dtype::F32, shape.clone(), data).map(|v| (name.as_str(), v))
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::Invalid(format!("cannot write the net ({e})")))?;
    let bytes = safetensors::serialize(views, Some(header))
        .map_err(|e| Error::Invalid(format!("cannot write the net ({e})")))?;
    Ok(canonical(bytes))
}

impl Nnue {
    /// Reads a net from a `safetensors` file of [`NNUE_FORMAT`].
    ///
    /// # Errors
    /// As [`Mlp::load`]; a file of the other architecture says so.
    pub fn load(path: &Path) -> Result<Nnue> {
        let bytes = read_file(path)?;
        Nnue::from_bytes(&bytes).map_err(|e| bad(&path.display().to_string(), e))
    }

    /// Reads a net from the bytes of a `safetensors` file (see [`Nnue::load`]).
    ///
    /// # Errors
    /// As [`Nnue::load`], without the file's name.
    pub fn from_bytes(bytes: &[u8]) -> Result<Nnue> {
        let (fits, tensors) = read_header(bytes, NNUE_FORMAT)?;
        let layers = count_layers(
            tensors.names().into_iter(),
            "dense",
            &["features", "value", "base"],
            NNUE_FORMAT,
        )?;
        let hidden = (0..layers)
            .map(|k| dense(&tensors, &format!("dense.{k}")))
            .collect::<Result<Vec<_>>>()?;
        let base = match tensors.names().iter().any(|n| n.starts_with("base.")) {
            true => Some(dense(&tensors, "base")?),
            false => None,
        };
        Nnue::with_base(
            fits,
            dense(&tensors, "features")?,
            hidden,
            dense(&tensors, "value")?,
            base,
        )
    }

    /// The bytes of a `safetensors` file holding this net (read back by [`Nnue::from_bytes`]).
    ///
    /// # Errors
    /// `Error::Invalid` if the `safetensors` writer refuses (it does not for nets made here).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let (features, hidden, value) = self.layers();
        let named = std::iter::once(("features".to_string(), &features))
            .chain(
                hidden
                    .iter()
                    .enumerate()
                    .map(|(k, l)| (format!("dense.{k}"), l)),
            )
            .chain([("value".to_string(), value)])
            .chain(self.base().map(|b| ("base".to_string(), b)));
        write_file(NNUE_FORMAT, self.fits(), named)
    }
}
/// The largest net file read, in bytes (1 GiB): far above any net that searches fast.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

fn bad(path: &str, what: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("{path}: {what}"))
}

impl Mlp {
    /// Reads a net from a `safetensors` file.
    ///
    /// # Errors
    /// `Error::Invalid` for a file that cannot be read, is not `safetensors`, is not a
    /// [`FORMAT`] net of [`VERSION`], or whose tensors do not chain (each message names the
    /// file and the tensor or header key).
    pub fn load(path: &Path) -> Result<Mlp> {
        let bytes = read_file(path)?;
        Mlp::from_bytes(&bytes).map_err(|e| bad(&path.display().to_string(), e))
    }

    /// Reads a net from the bytes of a `safetensors` file (see [`Mlp::load`]).
    ///
    /// # Errors
    /// As [`Mlp::load`], without the file's name.
    pub fn from_bytes(bytes: &[u8]) -> Result<Mlp> {
        let (fits, tensors) = read_header(bytes, FORMAT)?;
        let layers = count_layers(
            tensors.names().into_iter(),
            "trunk",
            &["policy", "value"],
            FORMAT,
        )?;
        let trunk = (0..layers)
            .map(|k| dense(&tensors, &format!("trunk.{k}")))
            .collect::<Result<Vec<_>>>()?;
        Mlp::from_layers(
            fits,
            trunk,
            dense(&tensors, "policy")?,
            dense(&tensors, "value")?,
        )
    }

    /// The bytes of a `safetensors` file holding this net (read back by [`Mlp::from_bytes`]).
    ///
    /// # Errors
    /// `Error::Invalid` if the `safetensors` writer refuses (it does not for nets made here).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let (trunk, policy, value) = self.layers();
        let named = trunk
            .iter()
            .enumerate()
            .map(|(k, l)| (format!("trunk.{k}"), l))
            .chain([("policy".to_string(), policy), ("value".to_string(), value)]);
        write_file(FORMAT, self.fits(), named)
    }
}

/// The file with its JSON header's keys in sorted order: the writer takes the header as a
/// `HashMap`, whose order differs from run to run, and the same net should be the same bytes.
fn canonical(bytes: Vec<u8>) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")) as usize;
    // serde_json's maps are sorted by key.
    let header: serde_json::Value =
        serde_json::from_slice(&bytes[8..8 + n]).expect("the writer's own header");
    let mut text = serde_json::to_vec(&header).expect("a JSON value");
    // The data starts 8-byte aligned, as the writer pads it.
    text.resize(text.len().div_ceil(8) * 8, b' ');
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&text);
    out.extend_from_slice(&bytes[8 + n..]);
    out
}

/// A tensor's shape and values, which must be `F32`.
fn tensor(tensors: &SafeTensors<'_>, name: &str) -> Result<(Vec<usize>, Vec<f32>)> {
    let t = tensors
        .tensor(name)
        .map_err(|_| Error::Invalid(format!("the net has no tensor {name:?}")))?;
    if t.dtype() != Dtype::F32 {
        return crate::error::invalid!(
            "tensor {name:?} is {:?}: nets are stored as F32 (float32)",
            t.dtype()
        );
    }
    let values = t
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok((t.shape().to_vec(), values))
}

fn le_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
