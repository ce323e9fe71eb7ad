//! `AgentSpec`: the engine's agent specs (`pingvinas_engine::search::agent`), parsed and read.

use pingvinas_engine::search::agent::AgentSpec;
use pingvinas_engine::search::Choice;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A built-in player named in text, parsed by the engine: ``"random"``, ``"greedy"``,
/// ``"mcts"``, ``"mcts:N"`` (N iterations a move), ``"alphabeta"``, ``"alphabeta:D"`` (depth
/// D), ``"learned"``, ``"learned:D"`` (alpha-beta with the learned evaluation that ships),
/// ``"solve"`` (perfect play: the exact Fish solver) or ``"auto"`` (the game's choice);
/// with a net file, ``"net:PATH"`` (PUCT with the net and a Gumbel root; ``"puct:N+net:PATH"``
/// for N simulations a move) or ``"SPEC+net:PATH"`` (SPEC one of mcts, alphabeta, auto, with
/// the net as its position estimate). Everything after ``net:`` is the path (it may hold
/// ``:``). ``str(spec)`` is its canonical text. Raises ``ValueError`` for any other text (the
/// file is read by whoever plays the spec).
#[pyclass(module = "pingvinas._core", name = "AgentSpec", frozen, eq)]
#[derive(PartialEq)]
pub struct PyAgentSpec {
    spec: AgentSpec,
}

#[pymethods]
impl PyAgentSpec {
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        let spec =
            AgentSpec::parse(text).map_err(|e| PyValueError::new_err(format!("agent {e}")))?;
        Ok(PyAgentSpec { spec })
    }

    /// The agent names, without counts.
    #[classattr]
    #[allow(non_snake_case)]
    fn NAMES(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        PyTuple::new(py, AgentSpec::NAMES)
    }

    /// The algorithm it runs: ``"random"``, ``"greedy"``, ``"mcts"``, ``"alphabeta"`` (also
    /// for ``"learned"``), ``"solve"``, ``"auto"`` or ``"puct"`` (``"net:PATH"``).
    #[getter]
    fn algorithm(&self) -> &'static str {
        match self.spec.learned {
            true => Choice::AlphaBeta.name(),
            false => self.spec.name(),
        }
    }

    /// Whether it is ``"learned"``: alpha-beta with the learned evaluation that ships
    /// (``pingvinas.evaluators.learned()``).
    #[getter]
    fn learned(&self) -> bool {
        self.spec.learned
    }

    /// N of ``"mcts:N"`` or ``"puct:N+net:PATH"``, else None.
    #[getter]
    fn iterations(&self) -> Option<u64> {
        self.spec
            .count
            .filter(|_| self.spec.puct || self.spec.choice == Some(Choice::Mcts))
    }

    /// The path of the net file of ``"net:PATH"`` and ``"SPEC+net:PATH"``, else None.
    #[getter]
    fn net(&self) -> Option<String> {
        self.spec.net.clone()
    }

    /// D of ``"alphabeta:D"`` and ``"learned:D"``, else None.
    #[getter]
    fn depth(&self) -> Option<u64> {
        self.spec
            .count
            .filter(|_| !self.spec.puct && self.spec.choice == Some(Choice::AlphaBeta))
    }

    /// The fixed budget of a move as ``pingvinas.search`` keywords (deterministic for a seed:
    /// an iteration count, a depth): ``{"iterations": 200}`` for ``"mcts"``, ``{"depth": 2,
    /// "tt_mb": 1}`` for ``"alphabeta"``, both for ``"auto"``, ``{}`` for greedy and random.
    #[getter]
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let dict = pyo3::types::PyDict::new(py);
        let (iterations, depth) = self.spec.fixed_counts();
        if let Some(n) = iterations {
            dict.set_item("iterations", n)?;
        }
        if let Some(d) = depth {
            dict.set_item("depth", d)?;
            dict.set_item("tt_mb", pingvinas_engine::search::agent::TT_MB)?;
        }
        Ok(dict)
    }

    fn __str__(&self) -> String {
        self.spec.to_string()
    }

    fn __repr__(&self) -> String {
        format!("AgentSpec({:?})", self.spec.to_string())
    }

    fn __hash__(&self) -> u64 {
        crate::state::state_hash(&self.spec.to_string())
    }
}
