//! [`Nnue`]: an evaluation-only net for alpha-beta in the manner of Stockfish's NNUE. A move
//! changes a few cells, so the first layer's sums (the [`Accumulator`]) of a child are its
//! parent's plus and minus a few weight columns, and only small dense layers follow.
//!
//! The architecture (`pingvinas-nnue`, version 1), in the names of the file's tensors (weights
//! `[outputs, inputs]`, as `torch.nn.Linear` stores them):
//! - `features.weight` `[width, features]`, `features.bias` `[width]`: the accumulator. Its
//!   inputs are 0/1 cell features, `plane * cells + cell` (cells in the observation's order,
//!   `row * columns + column`), the first `3 + players` planes of the observation: a floe of
//!   1, 2 or 3 fish (planes 0-2, occupied floes included), a penguin of the seat `s` places
//!   after the viewer (plane `3 + s`). Each player has an accumulator of its own, of the
//!   features from its view.
//! - `dense.{k}.weight`, `dense.{k}.bias` for `k = 0, 1, ...`: dense layers, each followed by a
//!   ReLU. The first reads `players * width + players` inputs: the ReLU of each player's
//!   accumulator, the player to move's first and then by seat after it, and then each seat's
//!   fish so far over the board's fish (the observation's score planes), in the same order;
//!   and, in a net that reads them (when `dense.0` takes `players * terms` more inputs), each
//!   seat's terms of the hand-written evaluation (`FishEval::terms`, [`TERMS`] a seat, times
//!   [`TERM_SCALE`]), in the same order. These are the same numbers on every board, which cell
//!   features are not. The accumulator's width may be 0: a net of the terms and scores alone.
//! - `value.weight`, `value.bias`: one value per seat from the player to move, through `tanh`.
//! - `base.weight` `[1, 1]`, `base.bias` `[1]`, optional: a residual net. Each seat's value is
//!   then `tanh(value + base.weight * atanh(e) + base.bias)`, `e` the game's hand-written
//!   estimate of that seat ([`CellFeatures::Base`]: `FishEval` with its default settings), so
//!   a net whose value head is zero and `base.weight` 1 plays as the hand-written evaluation,
//!   and training learns a correction on top of it.
//!
//! [`Nnue::refresh`] sums a state's accumulators from its features; [`Nnue::update`] makes a
//! child's from its parent's by the features that changed ([`CellFeatures::for_each_change`]),
//! and [`Nnue::evaluate_accumulator`] runs the dense layers. The accumulator's weights are
//! kept rounded to a power-of-two grid fine enough that every sum of them is exact in `f32`
//! (see [`exact_grid`]): an update then equals a refresh bit for bit, in any order.
//!
//! As an [`Evaluate`] (alpha-beta, MCTS leaves), which is handed leaves without their parents
//! (searches copy states), the net keeps on each thread the last leaf it evaluated and its
//! accumulators, and updates them by the difference to the next leaf: alpha-beta's successive
//! leaves are siblings or cousins, a few features apart. A leaf far from the last is refreshed.

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::{dot, random_dense, relu, sparse_layer, transposed, Dense, Fits};
use crate::error::Result;
use crate::fish::eval::{FishEval, TERMS};
use crate::fish::Word;
use crate::fish::{FishGame, FishState};
use crate::game::{Game, Returns, MAX_PLAYERS};
use crate::io::GameIo;
use crate::marathon::MarathonGame;
use crate::rng::Rng;
use crate::search::{Evaluate, NoEval};

/// The `format` of an [`Nnue`] file (`crate::net::file` reads and writes it).
pub const NNUE_FORMAT: &str = "pingvinas-nnue";

/// The games whose states [`Nnue`] reads: their cell features, as the module's text defines
/// them.
pub trait CellFeatures: GameIo<State: 'static> + 'static {
    /// The hand-written evaluation a residual net corrects (see the module's text).
    type Base: Evaluate<Self> + 'static;

    /// Whether the game has cell features (a game without them refuses an [`Nnue`]).
    fn has_cell_features(&self) -> bool;

    /// The learned net that `auto` searches this game with ([`super::learned::AutoEval`]),
    /// where one is measured stronger than the hand-written evaluation alone.
    fn auto_net(&self) -> Option<Arc<Nnue>> {
        None
    }

    /// The game's hand-written evaluation, for a residual net.
    fn base(&self) -> Self::Base;

    /// A key of what the features' meaning depends on beyond the sizes (the fish on each
    /// cell): two games with the same key give a state the same features.
    fn features_key(&self) -> u64;

    /// Calls `f` with each active feature of `state` from `viewer`'s view.
    fn for_each_feature(&self, state: &Self::State, viewer: usize, f: impl FnMut(usize));

    /// Calls `f(feature, sign)` for each feature, from `viewer`'s view, that is active in one of
    /// `parent` and `child` and not the other: `+1.0` for one that `child` gains, `-1.0` for one
    /// it loses.
    fn for_each_change(
        &self,
        parent: &Self::State,
        child: &Self::State,
        viewer: usize,
        f: impl FnMut(usize, f32),
    );

    /// Each seat's share of the game's points so far, from `viewer` (seat 0) on, into `out`.
    fn write_scores(&self, state: &Self::State, viewer: usize, out: &mut [f32]);

    /// How many terms of the hand-written evaluation a seat has (0: none).
    fn term_count(&self) -> usize;

    /// The hand-written evaluation of each seat (`base`'s returns), from `to_move` (seat 0)
    /// on, into `estimate`, and when `terms` is given, each seat's [`CellFeatures::term_count`]
    /// terms (seat-major, each times [`TERM_SCALE`]) into it.
    fn write_base(
        &self,
        base: &Self::Base,
        state: &Self::State,
        to_move: usize,
        estimate: &mut [f32],
        terms: Option<&mut [f32]>,
    );
}

/// What a net's term inputs are: the hand-written evaluation's terms (in fish, most of them)
/// times this, so that they are of the order of one.
pub const TERM_SCALE: f32 = 0.1;

impl<W: Word> FishGame<W> {
    /// The feature of a floe on `cell`.
    #[inline]
    fn floe_feature(&self, cell: crate::fish::Cell) -> usize {
        let plane = (self.board().fish(cell) as usize).clamp(1, 3) - 1;
        plane * self.board().num_cells() + cell as usize
    }

    /// The feature of `player`'s penguin on `cell`, from `viewer`.
    #[inline]
    fn penguin_feature(&self, player: usize, viewer: usize, cell: crate::fish::Cell) -> usize {
        let n = self.num_players();
        let seat = (player + n - viewer) % n;
        (3 + seat) * self.board().num_cells() + cell as usize
    }
}

impl<W: Word + 'static> CellFeatures for FishGame<W> {
    type Base = FishEval<W>;

    fn has_cell_features(&self) -> bool {
        true
    }

    fn auto_net(&self) -> Option<Arc<Nnue>> {
        super::learned::fish_auto_net(self)
    }

    fn base(&self) -> FishEval<W> {
        FishEval::new(self, Default::default())
    }

    fn features_key(&self) -> u64 {
        self.board().fish_key()
    }

    fn for_each_feature(&self, s: &FishState<W>, viewer: usize, mut f: impl FnMut(usize)) {
        for cell in s.floes() {
            f(self.floe_feature(cell));
        }
        for player in 0..self.num_players() {
            for cell in s.penguins(player) {
                f(self.penguin_feature(player, viewer, cell));
            }
        }
    }

    fn for_each_change(
        &self,
        parent: &FishState<W>,
        child: &FishState<W>,
        viewer: usize,
        mut f: impl FnMut(usize, f32),
    ) {
        let (before, after) = (parent.floes(), child.floes());
        for cell in before - after {
            f(self.floe_feature(cell), -1.0);
        }
        for cell in after - before {
            f(self.floe_feature(cell), 1.0);
        }
        for player in 0..self.num_players() {
            let (before, after) = (parent.penguins(player), child.penguins(player));
            for cell in before - after {
                f(self.penguin_feature(player, viewer, cell), -1.0);
            }
            for cell in after - before {
                f(self.penguin_feature(player, viewer, cell), 1.0);
            }
        }
    }

    fn write_scores(&self, s: &FishState<W>, viewer: usize, out: &mut [f32]) {
        let n = self.num_players();
        let all = self.board().total_fish().max(1) as f32;
        for (seat, x) in out.iter_mut().enumerate().take(n) {
            *x = s.fish((viewer + seat) % n) as f32 / all;
        }
    }

    fn term_count(&self) -> usize {
        TERMS
    }

    fn write_base(
        &self,
        base: &FishEval<W>,
        s: &FishState<W>,
        to_move: usize,
        estimate: &mut [f32],
        terms: Option<&mut [f32]>,
    ) {
        let n = self.num_players();
        let all = base.terms(self, s);
        let r = base.returns_of_terms(self, &all);
        for (seat, e) in estimate.iter_mut().enumerate().take(n) {
            *e = r[(to_move + seat) % n] as f32;
        }
        if let Some(terms) = terms {
            for (seat, out) in terms.chunks_exact_mut(TERMS).enumerate().take(n) {
                for (x, &v) in out.iter_mut().zip(&all[(to_move + seat) % n]) {
                    *x = v as f32 * TERM_SCALE;
                }
            }
        }
    }
}

/// Marathon has no cell features of this kind yet: an [`Nnue`] is refused for it.
impl CellFeatures for MarathonGame {
    type Base = NoEval;

    fn has_cell_features(&self) -> bool {
        false
    }

    fn base(&self) -> NoEval {
        NoEval
    }

    fn features_key(&self) -> u64 {
        0
    }

    fn for_each_feature(&self, _: &Self::State, _: usize, _: impl FnMut(usize)) {}

    fn for_each_change(
        &self,
        _: &Self::State,
        _: &Self::State,
        _: usize,
        _: impl FnMut(usize, f32),
    ) {
    }

    fn write_scores(&self, _: &Self::State, _: usize, out: &mut [f32]) {
        out.fill(0.0);
    }

    fn term_count(&self) -> usize {
        0
    }

    fn write_base(
        &self,
        _: &NoEval,
        _: &Self::State,
        _: usize,
        estimate: &mut [f32],
        _: Option<&mut [f32]>,
    ) {
        estimate.fill(0.0);
    }
}

/// The first layer's sums of a state: one accumulator of `width` per player, each from that
/// player's view, player 0's first. Made by [`Nnue::refresh`] or [`Nnue::update`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Accumulator {
    /// `players * width` sums.
    pub sums: Vec<f32>,
}

/// An evaluation-only net for alpha-beta (see the module's text).
#[derive(Clone, Debug, PartialEq)]
pub struct Nnue {
    fits: Fits,
    /// The accumulator's weights as given, feature-major (`[features][width]`), for
    /// [`Nnue::layers`].
    features_t: Vec<f32>,
    features_bias: Vec<f32>,
    /// The same rounded to [`exact_grid`]: what the accumulators sum.
    exact_t: Vec<f32>,
    exact_bias: Vec<f32>,
    /// The dense layers as the file stores them, and transposed (ReLU zeros are skipped).
    dense: Vec<Dense>,
    dense_t: Vec<Vec<f32>>,
    value: Dense,
    /// The residual's scale and offset of the hand-written estimate, when the net has one.
    base: Option<Dense>,
    /// Whether the first dense layer also reads each seat's hand-written terms.
    terms: bool,
    id: NetId,
}

/// Which net a thread's cached leaf belongs to: a number each net made gets (clones share
/// it, as they share the weights). Not part of a net's equality.
#[derive(Clone, Debug)]
struct NetId(u64);

impl PartialEq for NetId {
    fn eq(&self, _: &NetId) -> bool {
        true
    }
}

impl NetId {
    fn next() -> NetId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NetId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The grid (a power of two) to which [`Nnue`] rounds the accumulator's weights and biases
/// (`bias` and the feature-major `weights`, `width` a feature): the finest at which every
/// sum of a bias and any features' weights, partial sums included, is a multiple of the grid
/// below `2^24` grids in size, so exact in `f32` whatever the order of the additions.
pub fn exact_grid(bias: &[f32], weights: &[f32]) -> f32 {
    let width = bias.len();
    let mut bound: Vec<f64> = bias.iter().map(|b| b.abs() as f64).collect();
    for col in weights.chunks_exact(width.max(1)) {
        for (s, w) in bound.iter_mut().zip(col) {
            *s += w.abs() as f64;
        }
    }
    let max = bound.into_iter().fold(0.0, f64::max);
    // Rounding adds at most half a grid a term; one more power of two covers it.
    let exponent = (max.max(1e-30).log2().ceil() as i32 + 1 - 24).clamp(-126, 100);
    2f32.powi(exponent)
}

fn rounded(x: &[f32], grid: f32) -> Vec<f32> {
    x.iter().map(|v| (v / grid).round() * grid).collect()
}

/// Per-thread room for an evaluation.
#[derive(Default)]
struct Scratch {
    acc: Accumulator,
    a: Vec<f32>,
    b: Vec<f32>,
    nz: Vec<(u32, f32)>,
}

/// A thread's last evaluated leaf: its net, game (features key), state and accumulators,
/// and the game's hand-written evaluation for a residual net.
#[derive(Default)]
struct Leaf {
    net: u64,
    features: u64,
    state: Option<Box<dyn Any>>,
    acc: Accumulator,
    base: Option<Box<dyn Any>>,
}

/// A leaf more features than this from the last one (from one player's view) is refreshed:
/// a refresh costs a column per floe and penguin.
const MAX_CHANGES: usize = 24;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    static LEAF: RefCell<Leaf> = RefCell::new(Leaf::default());
}

impl Nnue {
    /// The number of cell features a game of these sizes has: `3 + players` planes of cells.
    pub fn feature_count(fits: &Fits) -> usize {
        (3 + fits.players) * fits.observation[1] * fits.observation[2]
    }

    /// A net from its layers: the accumulator's (`[width, features]`), the dense layers in
    /// order (at least one), the value head. Checks that the sizes chain and fit `fits` and
    /// that every weight is finite.
    ///
    /// # Errors
    /// `Error::Invalid`, naming the layer, when they do not.
    pub fn from_layers(
        fits: Fits,
        features: Dense,
        dense: Vec<Dense>,
        value: Dense,
    ) -> Result<Nnue> {
        Nnue::with_base(fits, features, dense, value, None)
    }

    /// [`Nnue::from_layers`] with the residual's `base` layer (`[1, 1]`, see the module's
    /// text), or without one (`None`).
    ///
    /// # Errors
    /// As [`Nnue::from_layers`], and for a `base` of another shape.
    pub fn with_base(
        fits: Fits,
        features: Dense,
        dense: Vec<Dense>,
        value: Dense,
        base: Option<Dense>,
    ) -> Result<Nnue> {
        let n = fits.players;
        let count = Nnue::feature_count(&fits);
        if fits.observation[0] < 3 + n {
            return crate::error::invalid!(
                "observations of {} planes have no {} cell planes for {n} players",
                fits.observation[0],
                3 + n
            );
        }
        if features.inputs != count {
            return crate::error::invalid!(
                "features.weight takes {} inputs, expected {count} ({} planes of {} cells)",
                features.inputs,
                3 + n,
                count / (3 + n)
            );
        }
        if dense.is_empty() {
            return crate::error::invalid!("the net has no dense layer (dense.0.weight)");
        }
        let plain = n * features.outputs + n;
        let terms = dense[0].inputs == plain + n * TERMS;
        let mut inputs = if terms { plain + n * TERMS } else { plain };
        for (k, layer) in dense.iter().enumerate() {
            if layer.inputs != inputs {
                return crate::error::invalid!(
                    "dense.{k}.weight takes {} inputs, expected {inputs}{}",
                    layer.inputs,
                    if k == 0 {
                        format!(
                            " ({n} accumulators of {} and {n} scores), or {} with {n} times \
                             {TERMS} terms of the hand-written evaluation",
                            features.outputs,
                            plain + n * TERMS
                        )
                    } else {
                        format!(" (the outputs of dense.{})", k - 1)
                    }
                );
            }
            inputs = layer.outputs;
        }
        if value.inputs != inputs || value.outputs != n {
            return crate::error::invalid!(
                "value.weight has shape [{}, {}], expected [{n}, {inputs}]",
                value.outputs,
                value.inputs
            );
        }
        if let Some(b) = &base {
            if (b.outputs, b.inputs) != (1, 1) {
                return crate::error::invalid!(
                    "base.weight has shape [{}, {}], expected [1, 1]",
                    b.outputs,
                    b.inputs
                );
            }
        }
        if std::iter::once(&features)
            .chain(&dense)
            .chain([&value])
            .chain(&base)
            .flat_map(|l| l.weight.iter().chain(&l.bias))
            .any(|x| !x.is_finite())
        {
            return crate::error::invalid!("the net has a weight that is not a finite number");
        }
        let features_t = transposed(&features);
        let grid = exact_grid(&features.bias, &features_t);
        Ok(Nnue {
            fits,
            exact_t: rounded(&features_t, grid),
            exact_bias: rounded(&features.bias, grid),
            features_t,
            features_bias: features.bias,
            dense_t: dense.iter().map(transposed).collect(),
            dense,
            value,
            base,
            terms,
            id: NetId::next(),
        })
    }

    /// A net with random weights (He initialisation, seeded), an accumulator of `width` and
    /// dense layers of these widths: for tests and benchmarks, and as a start for training.
    ///
    /// # Errors
    /// `Error::Invalid` when a width is 0 or `hidden` is empty.
    pub fn random(fits: Fits, width: usize, hidden: &[usize], seed: u64) -> Result<Nnue> {
        if width == 0 || hidden.is_empty() || hidden.contains(&0) {
            return crate::error::invalid!(
                "the accumulator's width and the dense layers' widths (at least one) must be \
                 positive"
            );
        }
        let mut rng = Rng::new(seed);
        let n = fits.players;
        // A state has about one active feature a cell: scale the accumulator's weights as if
        // it had one input a cell, not one a feature.
        let cells = fits.observation[1] * fits.observation[2];
        let scale = (6.0 / cells.max(1) as f64).sqrt();
        let count = Nnue::feature_count(&fits);
        let features = Dense {
            inputs: count,
            outputs: width,
            weight: (0..count * width)
                .map(|_| ((rng.unit() * 2.0 - 1.0) * scale) as f32)
                .collect(),
            bias: vec![0.0; width],
        };
        let mut inputs = n * width + n;
        let mut dense = Vec::new();
        for &w in hidden {
            dense.push(random_dense(&mut rng, inputs, w));
            inputs = w;
        }
        let value = random_dense(&mut rng, inputs, n);
        Nnue::from_layers(fits, features, dense, value)
    }

    /// What the net was made for.
    pub fn fits(&self) -> &Fits {
        &self.fits
    }

    /// The accumulator's width (per player).
    pub fn width(&self) -> usize {
        self.features_bias.len()
    }

    /// The dense layers' widths.
    pub fn hidden(&self) -> Vec<usize> {
        self.dense.iter().map(|l| l.outputs).collect()
    }

    /// The residual's layer (`[1, 1]`), when the net corrects the hand-written estimate.
    pub fn base(&self) -> Option<&Dense> {
        self.base.as_ref()
    }

    /// Whether the first dense layer reads the hand-written evaluation's terms.
    pub fn reads_terms(&self) -> bool {
        self.terms
    }

    /// Whether evaluating needs the game's hand-written evaluation.
    fn needs_base(&self) -> bool {
        self.base.is_some() || self.terms
    }

    /// The layers as [`Nnue::from_layers`] takes them: the accumulator's (`[width,
    /// features]`), the dense layers, the value head.
    pub fn layers(&self) -> (Dense, &[Dense], &Dense) {
        let (width, count) = (self.width(), Nnue::feature_count(&self.fits));
        let mut weight = vec![0.0; width * count];
        for f in 0..count {
            for o in 0..width {
                weight[o * count + f] = self.features_t[f * width + o];
            }
        }
        let features = Dense {
            inputs: count,
            outputs: width,
            weight,
            bias: self.features_bias.clone(),
        };
        (features, &self.dense, &self.value)
    }

    /// `Ok` if the net can evaluate `game`: its sizes fit ([`Fits::check`]) and it has cell
    /// features.
    ///
    /// # Errors
    /// `Error::Invalid` saying what does not fit.
    pub fn check<G: CellFeatures>(&self, game: &G) -> Result<()> {
        if !game.has_cell_features() {
            return crate::error::invalid!(
                "an NNUE net ({}) reads Fish boards; this game has no cell features",
                NNUE_FORMAT
            );
        }
        self.fits.check(game)
    }

    /// `state`'s accumulators, summed from its features.
    pub fn refresh<G: CellFeatures>(&self, game: &G, state: &G::State, acc: &mut Accumulator) {
        SCRATCH.with_borrow_mut(|scratch| self.refresh_with(game, state, acc, &mut scratch.nz));
    }

    fn refresh_with<G: CellFeatures>(
        &self,
        game: &G,
        state: &G::State,
        acc: &mut Accumulator,
        nz: &mut Vec<(u32, f32)>,
    ) {
        let (n, width) = (self.fits.players, self.width());
        acc.sums.clear();
        acc.sums.resize(n * width, 0.0);
        if width == 0 {
            return;
        }
        for (viewer, sums) in acc.sums.chunks_exact_mut(width).enumerate() {
            nz.clear();
            game.for_each_feature(state, viewer, |f| nz.push((f as u32, 1.0)));
            sparse_layer(&self.exact_bias, &self.exact_t, nz, sums);
        }
    }

    /// `child`'s accumulators into `out`, from `parent`'s (`acc`) and the features that differ
    /// between the two states: a move changes a few, so this costs a few columns a player.
    /// Equal to [`Nnue::refresh`] of `child` bit for bit.
    pub fn update<G: CellFeatures>(
        &self,
        game: &G,
        parent: &G::State,
        acc: &Accumulator,
        child: &G::State,
        out: &mut Accumulator,
    ) {
        out.sums.clear();
        out.sums.extend_from_slice(&acc.sums);
        self.update_in_place(game, parent, child, out);
    }

    fn update_in_place<G: CellFeatures>(
        &self,
        game: &G,
        parent: &G::State,
        child: &G::State,
        acc: &mut Accumulator,
    ) {
        let width = self.width();
        if width == 0 {
            return;
        }
        for (viewer, sums) in acc.sums.chunks_exact_mut(width).enumerate() {
            game.for_each_change(parent, child, viewer, |f, sign| {
                let col = &self.exact_t[f * width..(f + 1) * width];
                if sign > 0.0 {
                    sums.iter_mut().zip(col).for_each(|(s, w)| *s += w);
                } else {
                    sums.iter_mut().zip(col).for_each(|(s, w)| *s -= w);
                }
            });
        }
    }

    /// The values per seat, from the player to move (`to_move`) on, of a state with these
    /// accumulators and `scores` (each seat's, from `to_move` on, as
    /// [`CellFeatures::write_scores`] gives them), into `values`. A residual net adds
    /// nothing of the hand-written estimate here (the state is not given): see
    /// [`Nnue::values`].
    pub fn evaluate_accumulator(
        &self,
        acc: &Accumulator,
        to_move: usize,
        scores: &[f32],
        values: &mut [f32],
    ) {
        SCRATCH.with_borrow_mut(|scratch| {
            self.dense_forward(acc, to_move, scores, None, scratch, values);
        });
    }

    /// The dense layers; `base` is each seat's hand-written estimate and terms (from
    /// `to_move` on), for a net that reads them.
    fn dense_forward(
        &self,
        acc: &Accumulator,
        to_move: usize,
        scores: &[f32],
        base: Option<(&[f32], &[f32])>,
        scratch: &mut Scratch,
        values: &mut [f32],
    ) {
        let (n, width) = (self.fits.players, self.width());
        let Scratch { a, b, nz, .. } = scratch;
        // The first dense layer's nonzero inputs: accumulators from the player to move on,
        // then the scores.
        nz.clear();
        for seat in 0..n {
            let viewer = (to_move + seat) % n;
            let sums = &acc.sums[viewer * width..(viewer + 1) * width];
            for (k, &x) in sums.iter().enumerate() {
                if x > 0.0 {
                    nz.push(((seat * width + k) as u32, x));
                }
            }
        }
        for (seat, &x) in scores.iter().enumerate().take(n) {
            if x != 0.0 {
                nz.push(((n * width + seat) as u32, x));
            }
        }
        if let (true, Some((_, terms))) = (self.terms, base) {
            for (k, &x) in terms.iter().enumerate() {
                if x != 0.0 {
                    nz.push(((n * width + n + k) as u32, x));
                }
            }
        }
        for (k, (layer, t)) in self.dense.iter().zip(&self.dense_t).enumerate() {
            b.clear();
            b.resize(layer.outputs, 0.0);
            if k > 0 {
                nz.clear();
                super::push_nonzero(a, 0, nz);
            }
            sparse_layer(&layer.bias, t, nz, b);
            relu(b);
            std::mem::swap(a, b);
        }
        for (o, v) in values.iter_mut().enumerate().take(n) {
            let mut x = self.value.bias[o] + dot(self.value.row(o), a);
            if let (Some(layer), Some((e, _))) = (&self.base, base) {
                x += layer.weight[0] * residual_input(e[o]) + layer.bias[0];
            }
            *v = tanh(x);
        }
    }

    /// The values per player (player 0 first) of `state`, refreshed: what [`Evaluate`] gives.
    pub fn values<G: CellFeatures>(&self, game: &G, state: &G::State) -> Returns {
        let base = self.needs_base().then(|| game.base());
        self.values_with(game, state, base.as_ref(), None)
    }

    /// The values per player of `state`, from these accumulators if given, else refreshed.
    fn values_with<G: CellFeatures>(
        &self,
        game: &G,
        state: &G::State,
        base: Option<&G::Base>,
        acc: Option<&Accumulator>,
    ) -> Returns {
        let n = self.fits.players;
        let p = game.to_move(state).unwrap_or(0);
        let mut scores = [0.0f32; MAX_PLAYERS];
        game.write_scores(state, p, &mut scores[..n]);
        let mut estimate = [0.0f32; MAX_PLAYERS];
        let mut terms = [0.0f32; MAX_PLAYERS * TERMS];
        let t = n * game.term_count();
        if let Some(base) = base {
            let want = self.terms.then_some(&mut terms[..t]);
            game.write_base(base, state, p, &mut estimate[..n], want);
        }
        let base = base.map(|_| (&estimate[..n], &terms[..t]));
        let mut v = [0.0f32; MAX_PLAYERS];
        SCRATCH.with_borrow_mut(|scratch| match acc {
            Some(acc) => self.dense_forward(acc, p, &scores[..n], base, scratch, &mut v),
            None => {
                let mut acc = std::mem::take(&mut scratch.acc);
                self.refresh_with(game, state, &mut acc, &mut scratch.nz);
                self.dense_forward(&acc, p, &scores[..n], base, scratch, &mut v);
                scratch.acc = acc;
            }
        });
        let mut r = [0.0; MAX_PLAYERS];
        for (seat, &x) in v[..n].iter().enumerate() {
            r[(p + seat) % n] = x as f64;
        }
        r
    }

    /// The values per player of `state` with this thread's last leaf's accumulators updated
    /// to it (or refreshed when it is far from that leaf, or of another net or board): the
    /// same values as [`Nnue::values`], bit for bit.
    pub fn values_incremental<G: CellFeatures>(&self, game: &G, state: &G::State) -> Returns {
        LEAF.with_borrow_mut(|leaf| {
            let features = game.features_key();
            if leaf.net != self.id.0 || leaf.features != features {
                *leaf = Leaf {
                    net: self.id.0,
                    features,
                    acc: std::mem::take(&mut leaf.acc),
                    ..Leaf::default()
                };
            }
            let Leaf {
                state: last,
                acc,
                base,
                ..
            } = leaf;
            // A net without accumulators has nothing to carry from leaf to leaf.
            if self.width() > 0 {
                let near = last
                    .as_ref()
                    .and_then(|b| b.downcast_ref::<G::State>())
                    .filter(|last| {
                        let mut changes = 0;
                        game.for_each_change(last, state, 0, |_, _| changes += 1);
                        changes <= MAX_CHANGES
                    });
                match near {
                    Some(last) => self.update_in_place(game, last, state, acc),
                    None => self.refresh(game, state, acc),
                }
                match last.as_mut().and_then(|b| b.downcast_mut::<G::State>()) {
                    Some(last) => *last = *state,
                    None => *last = Some(Box::new(*state)),
                }
            }
            let base = match self.needs_base() {
                false => None,
                true => {
                    if !base.as_ref().is_some_and(|b| b.is::<G::Base>()) {
                        *base = Some(Box::new(game.base()));
                    }
                    base.as_ref().and_then(|b| b.downcast_ref::<G::Base>())
                }
            };
            self.values_with(game, state, base, Some(acc))
        })
    }
}

/// The residual's input for an estimate `e` in `(-1, 1)`: `atanh(e)`, the net's own scale
/// before its `tanh` (`e` kept off ±1, where it is infinite).
#[inline]
pub fn residual_input(e: f32) -> f32 {
    let e = e.clamp(-0.999_999, 0.999_999);
    0.5 * ((1.0 + e) / (1.0 - e)).ln()
}

/// `tanh` by one `exp`, as [`residual_input`] is `atanh` by one `ln`: libm's `tanhf` and
/// `atanhf` go through `expm1f` and `log1pf`, which took a sixth of a search's time at every
/// leaf. Both agree with the exact values to single precision.
#[inline]
fn tanh(x: f32) -> f32 {
    let t = (-2.0 * x.abs()).exp();
    ((1.0 - t) / (1.0 + t)).copysign(x)
}

/// The value per player, with the accumulators updated from this thread's last leaf
/// ([`Nnue::values_incremental`]). Check that the net fits the game first ([`Nnue::check`]):
/// a net of other sizes panics here.
impl<G: CellFeatures> Evaluate<G> for Nnue {
    fn evaluate(&self, game: &G, state: &G::State) -> Returns {
        self.values_incremental(game, state)
    }
}

#[cfg(test)]
mod tests;
