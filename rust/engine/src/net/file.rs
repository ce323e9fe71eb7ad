//! Nets in `safetensors` files: the tensors the module text names (little-endian `F32`) and a
//! header (`__metadata__`) that says what they are:
//!
//! | key | value |
//! |---|---|
//! | `format` | `pingvinas-mlp` |
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

use super::{Dense, Fits, Mlp};
use crate::error::{Error, Result};

/// The architecture a file's `format` names.
pub const FORMAT: &str = "pingvinas-mlp";
/// The version of [`FORMAT`] this engine reads and writes.
pub const VERSION: &str = "1";
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
        let name = path.display().to_string();
        let size = std::fs::metadata(path)
            .map_err(|e| bad(&name, format!("cannot read the file ({e})")))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(bad(
                &name,
                format!("{size} bytes, more than a net may have ({MAX_FILE_BYTES})"),
            ));
        }
        let bytes =
            std::fs::read(path).map_err(|e| bad(&name, format!("cannot read the file ({e})")))?;
        Mlp::from_bytes(&bytes).map_err(|e| bad(&name, e))
    }

    /// Reads a net from the bytes of a `safetensors` file (see [`Mlp::load`]).
    ///
    /// # Errors
    /// As [`Mlp::load`], without the file's name.
    pub fn from_bytes(bytes: &[u8]) -> Result<Mlp> {
        let (_, meta) = SafeTensors::read_metadata(bytes)
            .map_err(|e| Error::Invalid(format!("not a safetensors file ({e})")))?;
        let header = meta.metadata().clone().unwrap_or_default();
        let key = |k: &str| {
            header.get(k).map(String::as_str).ok_or_else(|| {
                Error::Invalid(format!(
                    "the header has no {k:?}: not a {FORMAT} net (see pingvinas' docs on nets)"
                ))
            })
        };
        if key("format")? != FORMAT {
            return crate::error::invalid!(
                "the header's format is {:?}, expected {FORMAT:?}",
                key("format")?
            );
        }
        if key("version")? != VERSION {
            return crate::error::invalid!(
                "{FORMAT} version {:?}: this pingvinas reads version {VERSION}",
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
        let mut trunk_layers = 0;
        for name in tensors.names() {
            let known = match name.split('.').collect::<Vec<_>>()[..] {
                ["policy" | "value", "weight" | "bias"] => true,
                ["trunk", k, "weight" | "bias"] => match k.parse::<usize>() {
                    Ok(k) if k < 1024 => {
                        trunk_layers = trunk_layers.max(k + 1);
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
            if !known {
                return crate::error::invalid!(
                    "unexpected tensor {name:?}: a {FORMAT} net has trunk.<k>.weight/bias, \
                     policy.weight/bias and value.weight/bias"
                );
            }
        }
        let dense = |prefix: &str| -> Result<Dense> {
            let (shape, weight) = tensor(&tensors, &format!("{prefix}.weight"))?;
            let (bias_shape, bias) = tensor(&tensors, &format!("{prefix}.bias"))?;
            let bias_len = bias.len();
            let dense = Dense::new(prefix, &shape, weight, bias)?;
            if bias_shape != [bias_len] {
                return crate::error::invalid!(
                    "{prefix}.bias has shape {bias_shape:?}: expected [{bias_len}] (the rows of \
                     {prefix}.weight)"
                );
            }
            Ok(dense)
        };
        let trunk = (0..trunk_layers)
            .map(|k| dense(&format!("trunk.{k}")))
            .collect::<Result<Vec<_>>>()?;
        Mlp::from_layers(fits, trunk, dense("policy")?, dense("value")?)
    }

    /// The bytes of a `safetensors` file holding this net (read back by [`Mlp::from_bytes`]).
    ///
    /// # Errors
    /// `Error::Invalid` if the `safetensors` writer refuses (it does not for nets made here).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let f = &self.fits;
        let [planes, rows, cols] = f.observation;
        let header: HashMap<String, String> = [
            ("format", FORMAT.to_string()),
            ("version", VERSION.to_string()),
            ("game", f.game.clone()),
            ("observation", format!("{planes},{rows},{cols}")),
            ("actions", f.actions.to_string()),
            ("players", f.players.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let (trunk, policy, value) = self.layers();
        let named = trunk
            .iter()
            .enumerate()
            .map(|(k, l)| (format!("trunk.{k}"), l))
            .chain([("policy".to_string(), policy), ("value".to_string(), value)]);
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
