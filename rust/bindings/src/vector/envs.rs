//! The engine env behind the object-safe [`Envs`], so that one Python class serves both games,
//! and how one is made with its opponent (an agent spec, its net read once).

use std::sync::Arc;

use pingvinas_engine::net::{AutoEval, CellFeatures, WithNet};
use pingvinas_engine::search::agent::{AgentSpec, NetAgent, SearchAgent};
use pingvinas_engine::search::gumbel::GumbelConfig;
use pingvinas_engine::search::puct::{PuctConfig, RootRule};
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::vector::{self, Dims, Options, Outputs, Source};
use pingvinas_engine::Concrete;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::ToPyResult;
use crate::net::Estimate;
use crate::state::Bind;

/// Where one call writes: the engine's outputs with the compact actions' integer type.
pub(super) enum Out<'a> {
    I16(Outputs<'a, i16>),
    I32(Outputs<'a, i32>),
}

/// The game and state of a state object for an env of `env`'s game, or what is wrong with it.
fn from_object<G: Concrete + Bind>(
    obj: &Bound<'_, PyAny>,
    env: &G,
) -> PyResult<(Arc<G>, G::State)> {
    let Some((game, state)) = crate::dispatch::state_of(obj).filter(|(g, _)| g.name() == G::NAME)
    else {
        let got = obj
            .get_type()
            .name()
            .map_or_else(|_| "another object".to_string(), |n| n.to_string());
        return Err(PyTypeError::new_err(format!(
            "set_state: expected a {} (this env plays {}), got {got}",
            G::STATE_CLASS,
            G::NAME,
        )));
    };
    match (G::game_of(&game), G::state_of(&state)) {
        (Some(game), Some(state)) => Ok((game.clone(), *state)),
        // A Fish board on another word: a board of another size.
        _ => {
            let ([_, r, c], [_, er, ec]) = (game.observation_shape(), env.observation_shape());
            Err(PyValueError::new_err(format!(
                "set_state: the state's board is {r}x{c}, this env's is {er}x{ec}"
            )))
        }
    }
}

/// The engine env of either game, object-safe.
pub(super) trait Envs: Send + Sync {
    fn dims(&self) -> Dims;
    fn reset(
        &mut self,
        seed: Option<u64>,
        out: Out<'_>,
        stop: &StopFlag,
    ) -> pingvinas_engine::Result<()>;
    fn observe(&mut self, out: Out<'_>) -> pingvinas_engine::Result<()>;
    fn step(
        &mut self,
        actions: &[i64],
        out: Out<'_>,
        stop: &StopFlag,
    ) -> pingvinas_engine::Result<()>;
    fn state_object(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>>;
    fn set_state(&mut self, i: usize, obj: &Bound<'_, PyAny>, out: Out<'_>) -> PyResult<()>;
    fn seed(&self) -> u64;
    fn game_index(&self, i: usize) -> u64;
    fn learner(&self, i: usize) -> usize;
}

macro_rules! with_out {
    ($out:expr, $o:ident => $body:expr) => {
        match $out {
            Out::I16($o) => $body,
            Out::I32($o) => $body,
        }
    };
}

impl<G: Concrete + Bind> Envs for vector::VectorEnv<G> {
    fn dims(&self) -> Dims {
        *vector::VectorEnv::dims(self)
    }
    fn reset(
        &mut self,
        seed: Option<u64>,
        out: Out<'_>,
        stop: &StopFlag,
    ) -> pingvinas_engine::Result<()> {
        with_out!(out, o => vector::VectorEnv::reset_or_stop(self, seed, o, stop))
    }
    fn observe(&mut self, out: Out<'_>) -> pingvinas_engine::Result<()> {
        with_out!(out, o => vector::VectorEnv::observe(self, o))
    }
    fn step(
        &mut self,
        actions: &[i64],
        out: Out<'_>,
        stop: &StopFlag,
    ) -> pingvinas_engine::Result<()> {
        with_out!(out, o => vector::VectorEnv::step_or_stop(self, actions, o, stop))
    }
    fn state_object(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        crate::dispatch::state_object(py, self.game(i).clone(), *self.state(i))
    }
    fn set_state(&mut self, i: usize, obj: &Bound<'_, PyAny>, out: Out<'_>) -> PyResult<()> {
        let (game, state) = from_object(obj, &**self.game(i))?;
        with_out!(out, o => vector::VectorEnv::set_state(self, i, game, state, o)).py()
    }
    fn seed(&self) -> u64 {
        vector::VectorEnv::seed(self)
    }
    fn game_index(&self, i: usize) -> u64 {
        vector::VectorEnv::game_index(self, i)
    }
    fn learner(&self, i: usize) -> usize {
        vector::VectorEnv::learner(self, i)
    }
}

/// The engine env of the games of `source`, its opponent (if any) with the game's knowledge.
#[allow(clippy::too_many_arguments)]
pub(super) fn env_on<G: Concrete + Bind + CellFeatures>(
    py: Python<'_>,
    source: Source<G>,
    num_envs: usize,
    seed: u64,
    mut options: Options<G>,
    opponent: Option<AgentSpec>,
    opponent_time: Option<f64>,
    long: bool,
) -> PyResult<Box<dyn Envs>> {
    if let Some(spec) = opponent {
        let (sample, evals) = (source.game(0), source.default_evals(true));
        let budget = spec.opponent_budget(&*sample, opponent_time).py()?;
        // The net of a spec is read once, for every env's games: a policy-and-value net for
        // PUCT or as an estimate, or an NNUE net as an estimate (`learned`).
        let net = match &spec.net {
            Some(path) => Some(
                py.detach(|| Estimate::read(std::path::Path::new(path)))
                    .py()?,
            ),
            None if spec.learned => Some(Estimate::Nnue(pingvinas_engine::net::learned())),
            None => None,
        };
        let choice = spec.choice_for(&*sample);
        let unfit = |e: pingvinas_engine::error::Error| {
            PyValueError::new_err(format!("opponent \"{spec}\": {e}"))
        };
        options.opponent = Some(match net {
            Some(Estimate::Mlp(net)) => {
                net.fits().check(&*sample).map_err(unfit)?;
                if spec.puct {
                    let config = PuctConfig {
                        root: RootRule::Gumbel(GumbelConfig::default()),
                        reuse: false,
                        ..PuctConfig::default()
                    };
                    NetAgent::maker(net, config, budget, move |g| evals(g))
                } else {
                    SearchAgent::maker(choice, budget, move |g| {
                        Arc::new(WithNet {
                            base: evals(g),
                            net: net.clone(),
                        })
                    })
                }
            }
            Some(Estimate::Nnue(_)) if spec.puct => {
                return Err(PyValueError::new_err(format!(
                    "opponent \"{spec}\": PUCT needs a policy-and-value net (pingvinas-mlp), \
                     this file holds an NNUE net: use \"alphabeta+net:PATH\""
                )));
            }
            Some(Estimate::Nnue(net)) => {
                net.check(&*sample).map_err(unfit)?;
                SearchAgent::maker(choice, budget, move |g| {
                    Arc::new(WithNet {
                        base: evals(g),
                        net: net.clone(),
                    })
                })
            }
            // `auto`: with the learned net on the games that have one.
            // the same player as the `auto` agent: its algorithm, selection and exploration.
            None if spec.choice.is_none() => {
                SearchAgent::auto_maker(budget, move |g| Arc::new(AutoEval::new(&**g, evals(g))))
            }
            None => SearchAgent::maker(choice, budget, move |g| evals(g)),
        });
    }
    let env = crate::off_gil::run_if_long(py, long, move |stop| {
        vector::VectorEnv::new_or_stop(source, num_envs, seed, options, stop)
    })?;
    Ok(Box::new(env))
}
