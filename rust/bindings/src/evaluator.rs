//! The evaluator protocol: a Python callable `fn(observations, legal_mask) -> (policy_logits,
//! values)` values the leaves of engine searches driven in rounds ([`Stepped`]: PUCT trees,
//! self-play). The observation and mask buffers are numpy arrays allocated once per call; the
//! engine writes each round's rows straight into them with the GIL released, `fn` gets
//! read-only views of the rows written (the GIL held only for that call), and its answers are
//! handed back to the engine, which checks them as it reads them, again without the GIL.
//! Ctrl-C is seen between rounds.

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::{PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pingvinas_engine::search::forest::Stepped;
use pingvinas_engine::Game;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySlice, PyTuple};

use crate::errors::internal;

/// A checked evaluator argument: a callable.
pub fn check_evaluator(evaluator: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    if evaluator.cast::<crate::net::PyNnueNet>().is_ok() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "an NnueNet is an evaluation-only net (values, no policy): algorithm = \"puct\" \
             needs a policy-and-value evaluator such as a Net; use the NnueNet with alphabeta, \
             mcts or auto",
        ));
    }
    if !evaluator.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "evaluator must be a callable fn(observations, legal_mask) -> (policy_logits, values), \
             got {}",
            evaluator.get_type().name()?
        )));
    }
    Ok(evaluator.clone().unbind())
}

/// Read-only views of the first `rows` rows of the buffers, kept while `rows` stays the same.
struct Views<'py> {
    rows: usize,
    obs: Option<Bound<'py, PyAny>>,
    mask: Option<Bound<'py, PyAny>>,
}

fn view<'py>(array: &Bound<'py, PyAny>, rows: usize) -> PyResult<Bound<'py, PyAny>> {
    // A slice of a frozen array: read-only, for good.
    array.get_item(PySlice::new(array.py(), 0, rows as isize, 1))
}

/// An evaluator's output as a C-contiguous float32 array of `shape`, or a `ValueError` that
/// names what is wrong.
fn output<'py>(
    np: &Bound<'py, PyModule>,
    x: &Bound<'py, PyAny>,
    what: &str,
    shape: [usize; 2],
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let expected = || {
        format!(
            "the evaluator's {what} must be a float array of shape ({}, {})",
            shape[0], shape[1]
        )
    };
    if let Ok(a) = x.cast::<PyArray2<f32>>() {
        if a.is_c_contiguous() && a.shape() == shape {
            return Ok(a.clone());
        }
    }
    let array = if x.is_instance_of::<PyUntypedArray>() {
        x.clone().cast_into::<PyUntypedArray>()?
    } else if x.hasattr("__array__")?
        || x.is_instance_of::<PyList>()
        || x.is_instance_of::<PyTuple>()
    {
        match np.call_method1("asarray", (x,)) {
            Ok(a) => a.cast_into::<PyUntypedArray>()?,
            Err(e) => {
                let err = PyValueError::new_err(format!("{}: {}", expected(), e.value(x.py())));
                err.set_cause(x.py(), Some(e));
                return Err(err);
            }
        }
    } else {
        return Err(PyValueError::new_err(format!(
            "{}, got {}",
            expected(),
            x.get_type().name()?
        )));
    };
    let kind = array.dtype().kind();
    if !matches!(kind, b'f' | b'i' | b'u') {
        return Err(PyValueError::new_err(format!(
            "{}, got dtype {}",
            expected(),
            array.dtype().str()?
        )));
    }
    if array.shape() != shape {
        let got: Vec<String> = array.shape().iter().map(|d| d.to_string()).collect();
        let got = match got.len() {
            1 => format!("({},)", got[0]),
            _ => format!("({})", got.join(", ")),
        };
        return Err(PyValueError::new_err(format!(
            "{}, got shape {got}",
            expected()
        )));
    }
    let kwargs = PyDict::new(x.py());
    kwargs.set_item("dtype", np.getattr("float32")?)?;
    Ok(np
        .call_method("ascontiguousarray", (array,), Some(&kwargs))?
        .cast_into::<PyArray2<f32>>()?)
}

/// Drives `work` with the Python `evaluator` until it is done. `obs_shape` is one
/// observation's `(planes, rows, cols)`. Ctrl-C raises `KeyboardInterrupt` (the work is
/// aborted first); an exception in `evaluator` propagates; a bad answer raises `ValueError`.
///
/// `after_round` runs after each round with the GIL held (a progress display).
///
/// A native `Net` is run in Rust instead, off the GIL (`crate::net::drive`).
pub fn drive<G: Game, W: Stepped<G> + Send>(
    py: Python<'_>,
    work: &mut W,
    obs_shape: [usize; 3],
    evaluator: &Bound<'_, PyAny>,
    mut after_round: impl FnMut(&W) -> PyResult<()>,
) -> PyResult<()> {
    if let Ok(net) = evaluator.cast::<crate::net::PyNet>() {
        return crate::net::drive(py, work, net.get(), obs_shape, after_round);
    }
    let np = py.import("numpy")?;
    let cap = work.capacity().max(1);
    let (a_len, n) = (work.num_actions(), work.num_players());
    // The buffers for the largest round, checked before they are allocated.
    let bytes = cap
        .saturating_mul(work.obs_len().saturating_mul(4).saturating_add(a_len))
        .saturating_add(cap.saturating_mul(a_len + n).saturating_mul(4));
    let available = pingvinas_engine::batch::available_bytes().unwrap_or(usize::MAX);
    if bytes > available / 2 || bytes > isize::MAX as usize / 2 {
        return Err(PyValueError::new_err(format!(
            "a round of {cap} leaves (the trees or games times batch_size) needs {} MiB of \
             buffers, more than half the memory available: use a smaller batch_size or fewer \
             at once",
            bytes >> 20
        )));
    }
    let obs_array = crate::arrays::zeros::<f32, numpy::IxDyn>(
        py,
        &[cap, obs_shape[0], obs_shape[1], obs_shape[2]],
    )?
    .into_bound(py);
    let mask_array = crate::arrays::zeros::<bool, numpy::Ix2>(py, &[cap, a_len])?.into_bound(py);
    // Views of frozen arrays cannot be made writeable by the evaluator.
    crate::arrays::freeze(obs_array.as_any())?;
    crate::arrays::freeze(mask_array.as_any())?;
    // SAFETY: both arrays were made just above, are C-contiguous and owned here; Python code
    // only ever sees read-only views of them, during the evaluator's call, when Rust does not
    // write to them.
    let obs = unsafe { obs_array.as_slice_mut() }.map_err(|_| internal())?;
    let mask = unsafe { mask_array.as_slice_mut() }.map_err(|_| internal())?;
    let obs_any = obs_array.as_any();
    let mask_any = mask_array.as_any();
    let mut views = Views {
        rows: usize::MAX,
        obs: None,
        mask: None,
    };
    fn fail<G: Game, W: Stepped<G>>(work: &mut W, e: PyErr) -> PyResult<()> {
        let _ = catch_unwind(AssertUnwindSafe(|| work.abort()));
        Err(e)
    }
    loop {
        if let Err(e) = py.check_signals() {
            return fail::<G, W>(work, e);
        }
        let step = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| {
                if work.is_done() {
                    None
                } else {
                    Some(work.gather(obs, mask))
                }
            }))
        });
        let rows = match step {
            Ok(Some(rows)) => rows,
            Ok(None) => return Ok(()),
            Err(_) => return fail::<G, W>(work, internal()),
        };
        if rows > 0 {
            if views.rows != rows {
                views = Views {
                    rows,
                    obs: Some(view(obs_any, rows)?),
                    mask: Some(view(mask_any, rows)?),
                };
            }
            let out = match evaluator.call1((
                views.obs.as_ref().expect("set above"),
                views.mask.as_ref().expect("set above"),
            )) {
                Ok(out) => out,
                Err(e) => return fail::<G, W>(work, e),
            };
            let pair = match read_pair(&np, &out, rows, a_len, n) {
                Ok(pair) => pair,
                Err(e) => return fail::<G, W>(work, e),
            };
            // The answers are read in place (no copy) and backed up off the GIL; the engine
            // checks them as it reads them.
            let (p, v) = (pair.0.readonly(), pair.1.readonly());
            let (p, v) = (p.as_slice()?, v.as_slice()?);
            match py.detach(|| catch_unwind(AssertUnwindSafe(|| work.backup(p, v)))) {
                Ok(Ok(())) => {}
                Ok(Err(bad)) => return fail::<G, W>(work, PyValueError::new_err(bad.to_string())),
                Err(_) => return fail::<G, W>(work, internal()),
            }
        } else {
            // No rows, no answer to be wrong.
            let done = py.detach(|| catch_unwind(AssertUnwindSafe(|| work.backup(&[], &[]))));
            if !matches!(done, Ok(Ok(()))) {
                return fail::<G, W>(work, internal());
            }
        }
        if let Err(e) = after_round(work) {
            return fail::<G, W>(work, e);
        }
    }
}

type Pair<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<f32>>);

fn read_pair<'py>(
    np: &Bound<'py, PyModule>,
    out: &Bound<'py, PyAny>,
    rows: usize,
    a_len: usize,
    n: usize,
) -> PyResult<Pair<'py>> {
    let bad = || -> PyResult<PyErr> {
        Ok(PyValueError::new_err(format!(
            "the evaluator must return a pair (policy_logits, values) of shapes ({rows}, {a_len}) \
             and ({rows}, {n}), got {}",
            out.get_type().name()?
        )))
    };
    let items: Vec<Bound<'py, PyAny>> = if let Ok(t) = out.cast::<PyTuple>() {
        t.iter().collect()
    } else if let Ok(l) = out.cast::<PyList>() {
        l.iter().collect()
    } else {
        return Err(bad()?);
    };
    if items.len() != 2 {
        return Err(PyValueError::new_err(format!(
            "the evaluator must return a pair (policy_logits, values), got {} items",
            items.len()
        )));
    }
    Ok((
        output(np, &items[0], "policy_logits", [rows, a_len])?,
        output(np, &items[1], "values", [rows, n])?,
    ))
}
