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
//!   fish so far over the board's fish (the observation's score planes), in the same order.
//! - `value.weight`, `value.bias`: one value per seat from the player to move, through `tanh`.
//!
//! [`Nnue::refresh`] sums a state's accumulators from its features; [`Nnue::update`] makes a
//! child's from its parent's by the features that changed ([`CellFeatures::for_each_change`]),
//! and [`Nnue::evaluate_accumulator`] runs the dense layers. As an [`Evaluate`] (alpha-beta,
//! MCTS leaves) the net refreshes at each leaf, since those searches copy states and hand the
//! evaluation a leaf without its parent.

use std::cell::RefCell;

use super::{dot, random_dense, relu, sparse_layer, transposed, Dense, Fits};
use crate::error::Result;
use crate::fish::Word;
use crate::fish::{FishGame, FishState};
use crate::game::{Game, Returns, MAX_PLAYERS};
use crate::io::GameIo;
use crate::marathon::MarathonGame;
use crate::rng::Rng;
use crate::search::Evaluate;

/// The games whose states [`Nnue`] reads: their cell features, as the module's text defines
/// them.
pub trait CellFeatures: GameIo {
    /// Whether the game has cell features (a game without them refuses an [`Nnue`]).
    fn has_cell_features(&self) -> bool;

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
}

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

impl<W: Word> CellFeatures for FishGame<W> {
    fn has_cell_features(&self) -> bool {
        true
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
}

/// Marathon has no cell features of this kind yet: an [`Nnue`] is refused for it.
impl CellFeatures for MarathonGame {
    fn has_cell_features(&self) -> bool {
        false
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
    /// The accumulator's weights, feature-major (`[features][width]`).
    features_t: Vec<f32>,
    features_bias: Vec<f32>,
    /// The dense layers as the file stores them, and transposed (ReLU zeros are skipped).
    dense: Vec<Dense>,
    dense_t: Vec<Vec<f32>>,
    value: Dense,
}

/// Per-thread room for an evaluation.
#[derive(Default)]
struct Scratch {
    acc: Accumulator,
    a: Vec<f32>,
    b: Vec<f32>,
    nz: Vec<(u32, f32)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
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
        let mut inputs = n * features.outputs + n;
        for (k, layer) in dense.iter().enumerate() {
            if layer.inputs != inputs {
                return crate::error::invalid!(
                    "dense.{k}.weight takes {} inputs, expected {inputs}{}",
                    layer.inputs,
                    if k == 0 {
                        format!(" ({n} accumulators of {} and {n} scores)", features.outputs)
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
        if std::iter::once(&features)
            .chain(&dense)
            .chain([&value])
            .flat_map(|l| l.weight.iter().chain(&l.bias))
            .any(|x| !x.is_finite())
        {
            return crate::error::invalid!("the net has a weight that is not a finite number");
        }
        Ok(Nnue {
            fits,
            features_t: transposed(&features),
            features_bias: features.bias,
            dense_t: dense.iter().map(transposed).collect(),
            dense,
            value,
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
                super::file::NNUE_FORMAT
            );
        }
        self.fits.check(game)
    }

    /// `state`'s accumulators, summed from its features.
    pub fn refresh<G: CellFeatures>(&self, game: &G, state: &G::State, acc: &mut Accumulator) {
        let (n, width) = (self.fits.players, self.width());
        acc.sums.clear();
        acc.sums.resize(n * width, 0.0);
        SCRATCH.with_borrow_mut(|scratch| {
            let nz = &mut scratch.nz;
            for (viewer, sums) in acc.sums.chunks_exact_mut(width).enumerate() {
                nz.clear();
                game.for_each_feature(state, viewer, |f| nz.push((f as u32, 1.0)));
                sparse_layer(&self.features_bias, &self.features_t, nz, sums);
            }
        });
    }

    /// `child`'s accumulators into `out`, from `parent`'s (`acc`) and the features that differ
    /// between the two states: a move changes a few, so this costs a few columns a player.
    /// Equal to [`Nnue::refresh`] of `child` within float rounding.
    pub fn update<G: CellFeatures>(
        &self,
        game: &G,
        parent: &G::State,
        acc: &Accumulator,
        child: &G::State,
        out: &mut Accumulator,
    ) {
        let width = self.width();
        out.sums.clear();
        out.sums.extend_from_slice(&acc.sums);
        for (viewer, sums) in out.sums.chunks_exact_mut(width).enumerate() {
            game.for_each_change(parent, child, viewer, |f, sign| {
                let col = &self.features_t[f * width..(f + 1) * width];
                for (s, w) in sums.iter_mut().zip(col) {
                    *s += sign * w;
                }
            });
        }
    }

    /// The values per seat, from the player to move (`to_move`) on, of a state with these
    /// accumulators and `scores` (each seat's, from `to_move` on, as
    /// [`CellFeatures::write_scores`] gives them), into `values`.
    pub fn evaluate_accumulator(
        &self,
        acc: &Accumulator,
        to_move: usize,
        scores: &[f32],
        values: &mut [f32],
    ) {
        SCRATCH.with_borrow_mut(|scratch| {
            self.dense_forward(acc, to_move, scores, scratch, values);
        });
    }

    fn dense_forward(
        &self,
        acc: &Accumulator,
        to_move: usize,
        scores: &[f32],
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
            *v = (self.value.bias[o] + dot(self.value.row(o), a)).tanh();
        }
    }

    /// The values per seat (from the player to move, `p`) of `state`, refreshed: `p`.
    fn state_values<G: CellFeatures>(
        &self,
        game: &G,
        state: &G::State,
        values: &mut [f32],
    ) -> usize {
        let p = game.to_move(state).unwrap_or(0);
        let n = self.fits.players;
        SCRATCH.with_borrow_mut(|scratch| {
            let mut acc = std::mem::take(&mut scratch.acc);
            let width = self.width();
            acc.sums.clear();
            acc.sums.resize(n * width, 0.0);
            for (viewer, sums) in acc.sums.chunks_exact_mut(width).enumerate() {
                scratch.nz.clear();
                let nz = &mut scratch.nz;
                game.for_each_feature(state, viewer, |f| nz.push((f as u32, 1.0)));
                sparse_layer(&self.features_bias, &self.features_t, nz, sums);
            }
            let mut scores = [0.0f32; MAX_PLAYERS];
            game.write_scores(state, p, &mut scores[..n]);
            self.dense_forward(&acc, p, &scores[..n], scratch, values);
            scratch.acc = acc;
        });
        p
    }

    /// The values per player (player 0 first) of `state`, refreshed: what [`Evaluate`] gives.
    pub fn values<G: CellFeatures>(&self, game: &G, state: &G::State) -> Returns {
        let n = self.fits.players;
        let mut v = [0.0f32; MAX_PLAYERS];
        let p = self.state_values(game, state, &mut v[..n]);
        let mut r = [0.0; MAX_PLAYERS];
        for (seat, &x) in v[..n].iter().enumerate() {
            r[(p + seat) % n] = x as f64;
        }
        r
    }
}

/// The value per player, with the accumulators refreshed at each leaf. Check that the net fits
/// the game first ([`Nnue::check`]): a net of other sizes panics here.
impl<G: CellFeatures> Evaluate<G> for Nnue {
    fn evaluate(&self, game: &G, state: &G::State) -> Returns {
        self.values(game, state)
    }
}

#[cfg(test)]
mod tests;
