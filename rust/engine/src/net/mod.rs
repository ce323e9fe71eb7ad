//! Small networks the engine evaluates itself, off the GIL and on any thread: no Python per leaf.
//!
//! [`Mlp`] reads a game's observation planes ([`GameIo::write_observation`], from the player
//! to move) and gives a policy (a logit per action) and a value per seat (from the player to
//! move, each in `[-1, 1]`): the shape PUCT expects of an evaluator. Its weights are read from a
//! `safetensors` file ([`file`](mod@file)) that names the architecture and the game it fits.
//!
//! The architecture (`pingvinas-mlp`, version 1), in the names of the file's tensors (weights
//! are `[outputs, inputs]`, as `torch.nn.Linear` stores them):
//! - `trunk.{k}.weight`, `trunk.{k}.bias` for `k = 0, 1, ...`: dense layers, each followed by a
//!   ReLU. The first reads the flattened observation (planes, then rows, then columns).
//! - `policy.weight`, `policy.bias`: one logit per action, from the last trunk layer.
//! - `value.weight`, `value.bias`: one value per seat, through `tanh`.
//!
//! Observations are mostly zeros (a plane per piece kind), so the first layer adds one weight
//! column per nonzero input instead of multiplying by every input; the policy head computes the
//! logits of legal actions only.

pub mod file;

use std::cell::RefCell;
use std::sync::Arc;

use crate::error::Result;
use crate::game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::io::GameIo;
use crate::rng::Rng;
use crate::search::puct::BatchEvaluator;
use crate::search::Evaluate;

/// The sizes a net was made for: it fits a game with the same observation shape, action count
/// and player count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fits {
    /// The game's name, as the file's header gives it (`"fish"`, `"marathon"`): informative,
    /// the sizes decide.
    pub game: String,
    /// Observation planes, rows, columns.
    pub observation: [usize; 3],
    /// The size of the action space.
    pub actions: usize,
    /// Players (the value head's outputs).
    pub players: usize,
}

impl Fits {
    /// The sizes of `game`, named `name`.
    pub fn of<G: GameIo>(game: &G, name: &str) -> Fits {
        Fits {
            game: name.to_string(),
            observation: game.observation_shape(),
            actions: game.num_actions(),
            players: game.num_players(),
        }
    }

    fn inputs(&self) -> usize {
        self.observation.iter().product()
    }

    /// `Ok` if a net made for `self` can evaluate `game`; else an `Error::Invalid` saying
    /// which size differs.
    pub fn check<G: GameIo>(&self, game: &G) -> Result<()> {
        self.check_sizes(
            game.observation_shape(),
            game.num_actions(),
            game.num_players(),
        )
    }

    /// [`Fits::check`] for work of these sizes (observation shape, actions, players).
    pub fn check_sizes(
        &self,
        observation: [usize; 3],
        actions: usize,
        players: usize,
    ) -> Result<()> {
        let theirs = Fits {
            game: String::new(),
            observation,
            actions,
            players,
        };
        let differs = |what: &str, net: String, game: String| {
            crate::error::invalid!(
                "the net was made for a {} with {what} {net}, this game has {game}",
                self.game
            )
        };
        if theirs.observation != self.observation {
            return differs(
                "observations of shape",
                format!("{:?}", self.observation),
                format!("{:?}", theirs.observation),
            );
        }
        if theirs.actions != self.actions {
            return differs(
                "actions",
                self.actions.to_string(),
                theirs.actions.to_string(),
            );
        }
        if theirs.players != self.players {
            return differs(
                "players",
                self.players.to_string(),
                theirs.players.to_string(),
            );
        }
        Ok(())
    }
}

/// A dense layer: `out = weight · x + bias`, `weight` row-major `[outputs][inputs]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// The size of `x`.
    pub inputs: usize,
    /// The size of `out`.
    pub outputs: usize,
    /// `outputs` rows of `inputs` weights.
    pub weight: Vec<f32>,
    /// One per output.
    pub bias: Vec<f32>,
}

impl Dense {
    /// A layer from its weights, `shape` `[outputs, inputs]`, row-major; `name` (`trunk.0`,
    /// `policy`, ...) is what an error calls it.
    ///
    /// # Errors
    /// `Error::Invalid` when the weight or the bias does not have the shape's size.
    pub fn new(name: &str, shape: &[usize], weight: Vec<f32>, bias: Vec<f32>) -> Result<Dense> {
        let &[outputs, inputs] = shape else {
            return crate::error::invalid!(
                "{name}.weight has shape {shape:?}: expected [outputs, inputs]"
            );
        };
        if outputs.checked_mul(inputs) != Some(weight.len()) {
            return crate::error::invalid!(
                "{name}.weight has {} values, not {outputs} x {inputs}",
                weight.len()
            );
        }
        if bias.len() != outputs {
            return crate::error::invalid!(
                "{name}.bias has shape [{}]: expected [{outputs}] (the rows of {name}.weight)",
                bias.len()
            );
        }
        Ok(Dense {
            inputs,
            outputs,
            weight,
            bias,
        })
    }

    #[inline]
    fn row(&self, o: usize) -> &[f32] {
        &self.weight[o * self.inputs..(o + 1) * self.inputs]
    }

    fn forward(&self, x: &[f32], out: &mut [f32]) {
        for (o, y) in out.iter_mut().enumerate() {
            *y = self.bias[o] + dot(self.row(o), x);
        }
    }
}

/// A policy-and-value network over the observation planes (see the module's text).
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    fits: Fits,
    /// The first trunk layer, transposed (`[inputs][outputs]`), so that an input's weights are
    /// contiguous.
    first_t: Vec<f32>,
    /// Per plane, the sum of its cells' columns of `first_t`: a plane whose cells are all equal
    /// (a score, whose turn it is) costs one column instead of one per cell.
    plane_sums: Vec<f32>,
    first_bias: Vec<f32>,
    /// The other trunk layers.
    trunk: Vec<Dense>,
    policy: Dense,
    value: Dense,
}

/// Per-thread room for one forward pass.
#[derive(Default)]
struct Scratch {
    obs: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Mlp {
    /// A net from its layers: `trunk` in order (at least one), then the two heads. Checks that
    /// the sizes chain and fit `fits`, and that every weight is finite.
    ///
    /// # Errors
    /// `Error::Invalid`, naming the layer, when they do not.
    pub fn from_layers(
        fits: Fits,
        mut trunk: Vec<Dense>,
        policy: Dense,
        value: Dense,
    ) -> Result<Mlp> {
        if trunk.is_empty() {
            return crate::error::invalid!("the net has no trunk layer (trunk.0.weight)");
        }
        let mut inputs = fits.inputs();
        for (k, layer) in trunk.iter().enumerate() {
            if layer.inputs != inputs {
                return crate::error::invalid!(
                    "trunk.{k}.weight takes {} inputs, expected {inputs}{}",
                    layer.inputs,
                    if k == 0 {
                        format!(" (the observation's size, {:?})", fits.observation)
                    } else {
                        format!(" (the outputs of trunk.{})", k - 1)
                    }
                );
            }
            inputs = layer.outputs;
        }
        for (name, head, outputs) in [
            ("policy", &policy, fits.actions),
            ("value", &value, fits.players),
        ] {
            if head.inputs != inputs || head.outputs != outputs {
                return crate::error::invalid!(
                    "{name}.weight has shape [{}, {}], expected [{outputs}, {inputs}]",
                    head.outputs,
                    head.inputs
                );
            }
        }
        let layers = trunk.iter().chain([&policy, &value]);
        if layers
            .flat_map(|l| l.weight.iter().chain(&l.bias))
            .any(|x| !x.is_finite())
        {
            return crate::error::invalid!("the net has a weight that is not a finite number");
        }
        let first = trunk.remove(0);
        let mut first_t = vec![0.0; first.weight.len()];
        for o in 0..first.outputs {
            for i in 0..first.inputs {
                first_t[i * first.outputs + o] = first.weight[o * first.inputs + i];
            }
        }
        let [planes, rows, cols] = fits.observation;
        let (area, width) = (rows * cols, first.outputs);
        let mut plane_sums = vec![0.0; planes * width];
        for (plane, sum) in plane_sums.chunks_exact_mut(width.max(1)).enumerate() {
            for cell in 0..area {
                let i = plane * area + cell;
                axpy(1.0, &first_t[i * width..(i + 1) * width], sum);
            }
        }
        Ok(Mlp {
            fits,
            first_t,
            plane_sums,
            first_bias: first.bias,
            trunk,
            policy,
            value,
        })
    }

    /// A net with random weights (He initialisation, seeded) and these trunk widths: for tests
    /// and benchmarks, and as a starting point for training.
    ///
    /// # Errors
    /// `Error::Invalid` when `hidden` is empty or has a zero width.
    pub fn random(fits: Fits, hidden: &[usize], seed: u64) -> Result<Mlp> {
        if hidden.is_empty() || hidden.contains(&0) {
            return crate::error::invalid!("trunk widths must be at least one positive number");
        }
        let mut rng = Rng::new(seed);
        let mut dense = |inputs: usize, outputs: usize| {
            let scale = (6.0 / inputs.max(1) as f64).sqrt();
            Dense {
                inputs,
                outputs,
                weight: (0..inputs * outputs)
                    .map(|_| ((rng.unit() * 2.0 - 1.0) * scale) as f32)
                    .collect(),
                bias: vec![0.0; outputs],
            }
        };
        let mut inputs = fits.inputs();
        let mut trunk = Vec::new();
        for &w in hidden {
            trunk.push(dense(inputs, w));
            inputs = w;
        }
        let policy = dense(inputs, fits.actions);
        let value = dense(inputs, fits.players);
        Mlp::from_layers(fits, trunk, policy, value)
    }

    /// What the net was made for.
    pub fn fits(&self) -> &Fits {
        &self.fits
    }

    /// The trunk's widths, first layer first.
    pub fn hidden(&self) -> Vec<usize> {
        std::iter::once(self.first_bias.len())
            .chain(self.trunk.iter().map(|l| l.outputs))
            .collect()
    }

    /// The layers as [`Mlp::from_layers`] takes them: the trunk in order (the first one
    /// transposed back to `[outputs][inputs]`), the policy head, the value head.
    pub fn layers(&self) -> (Vec<Dense>, &Dense, &Dense) {
        let outputs = self.first_bias.len();
        let inputs = self.fits.inputs();
        let mut weight = vec![0.0; self.first_t.len()];
        for i in 0..inputs {
            for o in 0..outputs {
                weight[o * inputs + i] = self.first_t[i * outputs + o];
            }
        }
        let first = Dense {
            inputs,
            outputs,
            weight,
            bias: self.first_bias.clone(),
        };
        let trunk = std::iter::once(first)
            .chain(self.trunk.iter().cloned())
            .collect();
        (trunk, &self.policy, &self.value)
    }

    /// The last trunk layer's activations for `obs`, in `scratch.a`.
    fn trunk_forward(&self, obs: &[f32], scratch: &mut Scratch) {
        let Scratch { a, b, .. } = scratch;
        let width = self.first_bias.len();
        a.clear();
        a.extend_from_slice(&self.first_bias);
        let area = self.fits.observation[1] * self.fits.observation[2];
        for (plane, cells) in obs.chunks_exact(area.max(1)).enumerate() {
            let c = cells[0];
            if cells.iter().all(|&x| x == c) {
                if c != 0.0 {
                    axpy(c, &self.plane_sums[plane * width..(plane + 1) * width], a);
                }
                continue;
            }
            for (cell, &x) in cells.iter().enumerate() {
                if x != 0.0 {
                    let i = plane * area + cell;
                    axpy(x, &self.first_t[i * width..(i + 1) * width], a);
                }
            }
        }
        relu(a);
        for layer in &self.trunk {
            b.clear();
            b.resize(layer.outputs, 0.0);
            layer.forward(a, b);
            relu(b);
            std::mem::swap(a, b);
        }
    }

    /// Evaluates one observation: the logits of the actions `legal` marks (others are set to
    /// 0; all of them when `legal` is `None`) into `policy`, and the values per seat from the
    /// observer into `values`.
    pub fn forward(
        &self,
        obs: &[f32],
        legal: Option<&[bool]>,
        policy: &mut [f32],
        values: &mut [f32],
    ) {
        SCRATCH.with_borrow_mut(|scratch| {
            self.trunk_forward(obs, scratch);
            let h = &scratch.a;
            let logit = |a: usize| self.policy.bias[a] + dot(self.policy.row(a), h);
            match legal {
                Some(mask) => {
                    for ((a, out), &ok) in policy.iter_mut().enumerate().zip(mask) {
                        *out = if ok { logit(a) } else { 0.0 };
                    }
                }
                None => policy
                    .iter_mut()
                    .enumerate()
                    .for_each(|(a, out)| *out = logit(a)),
            }
            self.values(h, values);
        });
    }

    fn values(&self, h: &[f32], values: &mut [f32]) {
        self.value.forward(h, values);
        values.iter_mut().for_each(|v| *v = v.tanh());
    }

    /// The values per seat (from the player to move) of `state`, which must not be over.
    fn state_values<G: GameIo>(&self, game: &G, state: &G::State, values: &mut [f32]) -> usize {
        let p = game.to_move(state).unwrap_or(0);
        SCRATCH.with_borrow_mut(|scratch| {
            let mut obs = std::mem::take(&mut scratch.obs);
            obs.resize(game.observation_len(), 0.0);
            game.write_observation(state, p, &mut obs);
            self.trunk_forward(&obs, scratch);
            scratch.obs = obs;
            let h = std::mem::take(&mut scratch.a);
            self.values(&h, values);
            scratch.a = h;
        });
        p
    }
}

/// The value head as an evaluation, for alpha-beta and MCTS leaves. Check that the net fits the
/// game first ([`Fits::check`]): a net of other sizes panics here.
impl<G: GameIo> Evaluate<G> for Mlp {
    fn evaluate(&self, game: &G, state: &G::State) -> Returns {
        let n = game.num_players();
        let mut v = [0.0f32; MAX_PLAYERS];
        let p = self.state_values(game, state, &mut v[..n]);
        let mut r = [0.0; MAX_PLAYERS];
        for (seat, &x) in v[..n].iter().enumerate() {
            r[(p + seat) % n] = x as f64;
        }
        r
    }
}

/// A game's own evaluation with a net's value as its estimate: exact values, pruning, move
/// ordering, keys and playouts stay the game's (the Fish region solver still decides solved
/// endgames); [`Evaluate::evaluate`] is the net's value head. What alpha-beta and MCTS with
/// evaluated leaves use when they are given a net.
pub struct WithNet<E> {
    /// The game's evaluation.
    pub base: Arc<E>,
    /// The net, which must fit the game ([`Fits::check`]).
    pub net: Arc<Mlp>,
}

impl<G: GameIo, E: Evaluate<G>> Evaluate<G> for WithNet<E> {
    fn evaluate(&self, game: &G, state: &G::State) -> Returns {
        Evaluate::evaluate(&*self.net, game, state)
    }

    fn exact(&self, game: &G, state: &G::State) -> Option<Returns> {
        self.base.exact(game, state)
    }

    fn order_hint(&self, game: &G, state: &G::State, action: Action) -> i32 {
        self.base.order_hint(game, state, action)
    }

    fn has_order_hint(&self) -> bool {
        self.base.has_order_hint()
    }

    fn prune_actions(&self, game: &G, state: &G::State, actions: &mut ActionList) {
        self.base.prune_actions(game, state, actions)
    }

    fn key(&self, game: &G, state: &G::State) -> u64 {
        self.base.key(game, state)
    }

    fn playout(&self, game: &G, state: &G::State, rng: &mut Rng) -> Returns {
        self.base.playout(game, state, rng)
    }
}

/// Policy and values for PUCT, row by row.
impl<G: Game> BatchEvaluator<G> for &Mlp {
    fn evaluate(
        &mut self,
        states: &[G::State],
        obs: &[f32],
        mask: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) -> Result<()> {
        let rows = states.len();
        let (o, a, n) = (self.fits.inputs(), self.fits.actions, self.fits.players);
        for r in 0..rows {
            self.forward(
                &obs[r * o..(r + 1) * o],
                Some(&mask[r * a..(r + 1) * a]),
                &mut policy[r * a..(r + 1) * a],
                &mut values[r * n..(r + 1) * n],
            );
        }
        Ok(())
    }
}

/// `x · y`, in eight lanes so that the compiler can vectorise it.
#[inline]
fn dot(x: &[f32], y: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
    let tail: f32 = xc
        .remainder()
        .iter()
        .zip(yc.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (a, b) in xc.zip(yc) {
        for k in 0..8 {
            acc[k] += a[k] * b[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `y += a * x`.
#[inline]
fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y += a * x;
    }
}

fn relu(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

#[cfg(test)]
mod tests;
