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
pub mod learned;
pub mod nnue;

pub use learned::{learned, AutoEval};
pub use nnue::{Accumulator, CellFeatures, Nnue};

use std::cell::RefCell;
use std::sync::Arc;

use crate::error::Result;
use crate::game::{Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::io::GameIo;
use crate::rng::Rng;
use crate::search::forest::BatchEvaluator;
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
    /// contiguous, followed by one column per plane: the sum of its cells' columns, so that a
    /// plane whose cells are all equal (a score, whose turn it is) costs one column instead of
    /// one per cell.
    first_t: Vec<f32>,
    first_bias: Vec<f32>,
    /// The other trunk layers, as the file stores them.
    trunk: Vec<Dense>,
    /// The same, transposed: after a ReLU about half the activations are 0, and an input-major
    /// layer skips them as the first layer skips zero inputs.
    trunk_t: Vec<Vec<f32>>,
    policy: Dense,
    value: Dense,
}

/// Per-thread room for forward passes: `a` and `b` hold a layer's activations for every row
/// of a batch, `nz` the nonzero inputs of one row.
#[derive(Default)]
struct Scratch {
    obs: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    nz: Vec<(u32, f32)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The transpose of a row-major `[outputs][inputs]` matrix.
fn transposed(l: &Dense) -> Vec<f32> {
    let mut t = vec![0.0; l.weight.len()];
    for o in 0..l.outputs {
        for i in 0..l.inputs {
            t[i * l.outputs + o] = l.weight[o * l.inputs + i];
        }
    }
    t
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
        let mut first_t = transposed(&first);
        let [planes, rows, cols] = fits.observation;
        let (area, width) = (rows * cols, first.outputs);
        let mut plane_sums = vec![0.0; planes * width];
        for (plane, sum) in plane_sums.chunks_exact_mut(width.max(1)).enumerate() {
            for cell in 0..area {
                let i = plane * area + cell;
                axpy(1.0, &first_t[i * width..(i + 1) * width], sum);
            }
        }
        first_t.extend_from_slice(&plane_sums);
        let trunk_t = trunk.iter().map(transposed).collect();
        Ok(Mlp {
            fits,
            first_t,
            first_bias: first.bias,
            trunk,
            trunk_t,
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
        let mut dense = |inputs: usize, outputs: usize| random_dense(&mut rng, inputs, outputs);
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
        let mut weight = vec![0.0; inputs * outputs];
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

    /// The last trunk layer's activations for each of the `rows` observations in `obs`, one
    /// after the other in `scratch.a` (each of the last trunk width). Layer by layer over the
    /// batch, so that a layer's weights are read from memory once and from cache for the other
    /// rows.
    fn trunk_forward(&self, obs: &[f32], rows: usize, scratch: &mut Scratch) {
        let Scratch { a, b, nz, .. } = scratch;
        let inputs = self.fits.inputs();
        let width = self.first_bias.len();
        let area = self.fits.observation[1] * self.fits.observation[2];
        a.clear();
        a.resize(rows * width, 0.0);
        for (x, out) in obs.chunks_exact(inputs).zip(a.chunks_exact_mut(width)) {
            nz.clear();
            for (plane, cells) in x.chunks_exact(area.max(1)).enumerate() {
                let c = cells[0];
                if all_equal(cells, c) {
                    if c != 0.0 {
                        nz.push(((inputs + plane) as u32, c));
                    }
                    continue;
                }
                push_nonzero(cells, plane * area, nz);
            }
            sparse_layer(&self.first_bias, &self.first_t, nz, out);
            relu(out);
        }
        for (layer, t) in self.trunk.iter().zip(&self.trunk_t) {
            b.clear();
            b.resize(rows * layer.outputs, 0.0);
            for (x, out) in a
                .chunks_exact(layer.inputs)
                .zip(b.chunks_exact_mut(layer.outputs))
            {
                nz.clear();
                push_nonzero(x, 0, nz);
                sparse_layer(&layer.bias, t, nz, out);
                relu(out);
            }
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
        match legal {
            Some(mask) => self.forward_batch(obs, mask, policy, values),
            None => SCRATCH.with_borrow_mut(|scratch| {
                self.trunk_forward(obs, 1, scratch);
                let h = &scratch.a;
                for (a, out) in policy.iter_mut().enumerate() {
                    *out = self.policy.bias[a] + dot(self.policy.row(a), h);
                }
                self.values(h, values);
            }),
        }
    }

    /// [`Mlp::forward`] for a batch: `obs` holds the rows' observations one after the other,
    /// `legal` their masks, and `policy` and `values` get their outputs in the same order.
    /// Equal, row by row, to [`Mlp::forward`] of each row.
    pub fn forward_batch(
        &self,
        obs: &[f32],
        legal: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) {
        let (o, a, n) = (self.fits.inputs(), self.fits.actions, self.fits.players);
        let rows = obs.len() / o.max(1);
        SCRATCH.with_borrow_mut(|scratch| {
            self.trunk_forward(&obs[..rows * o], rows, scratch);
            let width = self.value.inputs;
            for (r, h) in scratch.a.chunks_exact(width).enumerate() {
                let (out, mask) = (&mut policy[r * a..(r + 1) * a], &legal[r * a..(r + 1) * a]);
                legal_logits(&self.policy, h, mask, out);
                self.values(h, &mut values[r * n..(r + 1) * n]);
            }
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
            self.trunk_forward(&obs, 1, scratch);
            scratch.obs = obs;
            let h = std::mem::take(&mut scratch.a);
            self.values(&h, values);
            scratch.a = h;
        });
        p
    }
}

/// A dense layer of He-initialised random weights (uniform in `±sqrt(6 / inputs)`) and zero
/// biases.
fn random_dense(rng: &mut Rng, inputs: usize, outputs: usize) -> Dense {
    let scale = (6.0 / inputs.max(1) as f64).sqrt();
    Dense {
        inputs,
        outputs,
        weight: (0..inputs * outputs)
            .map(|_| ((rng.unit() * 2.0 - 1.0) * scale) as f32)
            .collect(),
        bias: vec![0.0; outputs],
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
/// endgames); [`Evaluate::evaluate`] is the net's value ([`Mlp`]'s value head, or an
/// [`Nnue`]). What alpha-beta and MCTS with evaluated leaves use when they are given a net.
pub struct WithNet<E, N = Mlp> {
    /// The game's evaluation.
    pub base: Arc<E>,
    /// The net, which must fit the game ([`Fits::check`], [`Nnue::check`]).
    pub net: Arc<N>,
}

impl<G: GameIo, E: Evaluate<G>, N: Evaluate<G>> Evaluate<G> for WithNet<E, N> {
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

/// Policy and values for PUCT, the batch's rows through each layer together.
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
        self.forward_batch(
            &obs[..rows * o],
            &mask[..rows * a],
            &mut policy[..rows * a],
            &mut values[..rows * n],
        );
        Ok(())
    }
}

/// `x · y`, in eight lanes so that the compiler can vectorise it.
#[inline(always)]
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
#[inline(always)]
fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y += a * x;
    }
}

/// Bit `k` set where `x[k]` differs from `c`, for eight floats: a compare and a mask move
/// once vectorised.
#[inline(always)]
fn differs8(x: &[f32], c: f32) -> u32 {
    let x: &[f32; 8] = x.try_into().expect("8 floats");
    (0..8).fold(0, |m, k| m | ((x[k] != c) as u32) << k)
}

/// Whether every value of `x` equals `c`.
#[inline]
fn all_equal(x: &[f32], c: f32) -> bool {
    let chunks = x.chunks_exact(8);
    chunks.remainder().iter().all(|&v| v == c) && chunks.fold(0, |m, ch| m | differs8(ch, c)) == 0
}

/// Pushes `(offset + k, x[k])` for each nonzero `x[k]`, skipping runs of four zeros at a
/// time.
#[inline]
fn push_nonzero(x: &[f32], offset: usize, nz: &mut Vec<(u32, f32)>) {
    let chunks = x.chunks_exact(4);
    let base = x.len() - chunks.remainder().len();
    for (c, chunk) in chunks.enumerate() {
        if chunk.iter().all(|&v| v == 0.0) {
            continue;
        }
        for (k, &v) in chunk.iter().enumerate() {
            if v != 0.0 {
                nz.push(((offset + 4 * c + k) as u32, v));
            }
        }
    }
    for (k, &v) in x[base..].iter().enumerate() {
        if v != 0.0 {
            nz.push(((offset + base + k) as u32, v));
        }
    }
}

/// `out[k]` = the policy head's logit `k` from `h` where `mask[k]`, else 0; in AVX2 registers
/// where the CPU has them, as [`sparse_layer`].
#[inline]
fn legal_logits(policy: &Dense, h: &[f32], mask: &[bool], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the one feature `legal_logits_avx2` is compiled for.
        return unsafe { legal_logits_avx2(policy, h, mask, out) };
    }
    legal_logits_here(policy, h, mask, out)
}

/// [`legal_logits_here`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn legal_logits_avx2(policy: &Dense, h: &[f32], mask: &[bool], out: &mut [f32]) {
    legal_logits_here(policy, h, mask, out)
}

#[inline(always)]
fn legal_logits_here(policy: &Dense, h: &[f32], mask: &[bool], out: &mut [f32]) {
    out.fill(0.0);
    for_each_true(mask, |k| out[k] = policy.bias[k] + dot(policy.row(k), h));
}

/// Calls `f(k)` for each `true` in `mask`, skipping eight `false`s at a time.
#[inline(always)]
fn for_each_true(mask: &[bool], mut f: impl FnMut(usize)) {
    let chunks = mask.chunks_exact(8);
    let base = mask.len() - chunks.remainder().len();
    for (c, chunk) in chunks.enumerate() {
        // Branch-free, so that a run of illegal actions costs a few instructions.
        if chunk.iter().fold(0u8, |m, &b| m | b as u8) == 0 {
            continue;
        }
        for (k, &b) in chunk.iter().enumerate() {
            if b {
                f(8 * c + k);
            }
        }
    }
    for (k, &b) in mask[base..].iter().enumerate() {
        if b {
            f(base + k);
        }
    }
}

/// `out = bias + Σ x · cols[i]` over the `(i, x)` pairs of `nz`, `cols` input-major (`i`'s
/// weights contiguous, `bias.len()` of them): a dense layer that reads only the columns of
/// nonzero inputs. The sums are kept in registers, [`LANES`] outputs at a time, in 8-float AVX2
/// registers where the CPU has them (checked once, at run time; the build targets x86-64-v2).
/// No fused multiply-add: each lane adds the same products in the same order either way, so
/// every CPU gets the same bits.
#[inline]
fn sparse_layer(bias: &[f32], cols: &[f32], nz: &[(u32, f32)], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the one feature `sparse_layer_avx2` is compiled for.
        return unsafe { sparse_layer_avx2(bias, cols, nz, out) };
    }
    sparse_layer_in_lanes(bias, cols, nz, out)
}

/// [`sparse_layer_in_lanes`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sparse_layer_avx2(bias: &[f32], cols: &[f32], nz: &[(u32, f32)], out: &mut [f32]) {
    sparse_layer_in_lanes(bias, cols, nz, out)
}

#[inline(always)]
fn sparse_layer_in_lanes(bias: &[f32], cols: &[f32], nz: &[(u32, f32)], out: &mut [f32]) {
    let width = bias.len();
    let mut start = 0;
    while start + LANES <= width {
        let mut acc: [f32; LANES] = bias[start..start + LANES].try_into().expect("LANES");
        for &(i, x) in nz {
            let col: &[f32; LANES] = cols[i as usize * width + start..][..LANES]
                .try_into()
                .expect("LANES");
            for k in 0..LANES {
                acc[k] += x * col[k];
            }
        }
        out[start..start + LANES].copy_from_slice(&acc);
        start += LANES;
    }
    if start < width {
        let out = &mut out[start..width];
        out.copy_from_slice(&bias[start..]);
        for &(i, x) in nz {
            axpy(
                x,
                &cols[i as usize * width + start..(i as usize + 1) * width],
                out,
            );
        }
    }
}

/// The outputs [`sparse_layer`] sums at a time: 32 floats are four AVX2 registers (eight SSE
/// ones), which leaves room for the column's.
const LANES: usize = 32;

fn relu(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

#[cfg(test)]
mod tests;
