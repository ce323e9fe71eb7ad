//! The numpy buffers a `VectorEnv` owns: written by the engine through [`Out`], shown to Python
//! as read-only views.

use numpy::{PyArray1, PyArray2, PyArray4, PyArrayDyn, PyArrayMethods};
use pingvinas_engine::vector::{Dims, Outputs};
use pyo3::prelude::*;

use super::envs::Out;
use crate::arrays::{read_only, zeros};

/// The compact legal actions and their counts, in the smallest type that holds every action.
enum Legal {
    I16(Py<PyArray2<i16>>, Py<PyArray1<i16>>),
    I32(Py<PyArray2<i32>>, Py<PyArray1<i32>>),
}

/// The numpy arrays every call writes into (made once per env). Python never sees them: it gets
/// read-only views of them ([`Shown`]), so nothing but the env writes into them (a step clears
/// only the mask entries it set).
pub(super) struct Buffers {
    observations: Py<PyArray4<f32>>,
    mask: Py<PyArray2<bool>>,
    legal: Legal,
    to_move: Py<PyArray1<i32>>,
    rewards: Py<PyArrayDyn<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    ended: Py<PyArray1<bool>>,
    final_observations: Py<PyArray4<f32>>,
    final_returns: Py<PyArray2<f32>>,
}

/// The read-only views of the buffers that every call returns.
pub(super) struct Shown {
    pub(super) observations: Py<PyAny>,
    pub(super) mask: Py<PyAny>,
    pub(super) legal: Py<PyAny>,
    pub(super) count: Py<PyAny>,
    pub(super) to_move: Py<PyAny>,
    pub(super) rewards: Py<PyAny>,
    pub(super) terminated: Py<PyAny>,
    pub(super) truncated: Py<PyAny>,
    pub(super) ended: Py<PyAny>,
    pub(super) final_observations: Py<PyAny>,
    pub(super) final_returns: Py<PyAny>,
}

impl Buffers {
    pub(super) fn new(py: Python<'_>, d: &Dims, single_agent: bool) -> PyResult<Buffers> {
        let n = d.num_envs;
        let [p, r, c] = d.observation_shape;
        let legal = if d.num_actions <= i16::MAX as usize + 1 {
            Legal::I16(zeros(py, &[n, d.legal_width])?, zeros(py, &[n])?)
        } else {
            Legal::I32(zeros(py, &[n, d.legal_width])?, zeros(py, &[n])?)
        };
        let rewards = if single_agent {
            vec![n]
        } else {
            vec![n, d.players]
        };
        Ok(Buffers {
            observations: zeros(py, &[n, p, r, c])?,
            mask: zeros(py, &[n, d.num_actions])?,
            legal,
            to_move: zeros(py, &[n])?,
            rewards: zeros(py, &rewards)?,
            terminated: zeros(py, &[n])?,
            truncated: zeros(py, &[n])?,
            ended: zeros(py, &[n])?,
            final_observations: zeros(py, &[n, p, r, c])?,
            final_returns: zeros(py, &[n, d.players])?,
        })
    }

    /// The read-only views handed to Python.
    pub(super) fn shown(&self, py: Python<'_>) -> PyResult<Shown> {
        let (legal, count) = match &self.legal {
            Legal::I16(l, c) => (read_only(py, l)?, read_only(py, c)?),
            Legal::I32(l, c) => (read_only(py, l)?, read_only(py, c)?),
        };
        Ok(Shown {
            observations: read_only(py, &self.observations)?,
            mask: read_only(py, &self.mask)?,
            legal,
            count,
            to_move: read_only(py, &self.to_move)?,
            rewards: read_only(py, &self.rewards)?,
            terminated: read_only(py, &self.terminated)?,
            truncated: read_only(py, &self.truncated)?,
            ended: read_only(py, &self.ended)?,
            final_observations: read_only(py, &self.final_observations)?,
            final_returns: read_only(py, &self.final_returns)?,
        })
    }

    /// Mutable views of every buffer for one call.
    ///
    /// # Safety
    /// The arrays were made by [`Buffers::new`], are C-contiguous and never resized (numpy
    /// refuses to resize an array something else refers to, and the env always does); Python
    /// holds only read-only views of them; the views live for one call while the env's lock is
    /// held, so no other call of this env writes them meanwhile.
    pub(super) unsafe fn outputs<'a>(&'a self, py: Python<'a>) -> Out<'a> {
        fn slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
            py: Python<'a>,
            a: &'a Py<numpy::PyArray<T, D>>,
        ) -> &'a mut [T] {
            // SAFETY: see `outputs`.
            unsafe { a.bind(py).as_slice_mut() }.expect("the env's buffers are contiguous")
        }
        macro_rules! outputs {
            ($legal:expr, $count:expr) => {
                Outputs {
                    observations: slice(py, &self.observations),
                    legal_mask: slice(py, &self.mask),
                    legal_actions: slice(py, $legal),
                    legal_count: slice(py, $count),
                    to_move: slice(py, &self.to_move),
                    rewards: slice(py, &self.rewards),
                    terminated: slice(py, &self.terminated),
                    truncated: slice(py, &self.truncated),
                    ended: slice(py, &self.ended),
                    final_observations: slice(py, &self.final_observations),
                    final_returns: slice(py, &self.final_returns),
                }
            };
        }
        match &self.legal {
            Legal::I16(legal, count) => Out::I16(outputs!(legal, count)),
            Legal::I32(legal, count) => Out::I32(outputs!(legal, count)),
        }
    }
}
