use super::*;
use crate::fish::{Board, Rules};
use crate::game::ActionList;
use crate::net::Mlp;

fn fish(players: usize) -> FishGame {
    FishGame::new(Rules::standard(players).unwrap(), Board::standard(5))
}

fn net(game: &FishGame, width: usize, hidden: &[usize], seed: u64) -> Nnue {
    Nnue::random(Fits::of(game, "fish"), width, hidden, seed).unwrap()
}

fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// The plain dense computation from the layers as the file stores them, with the features read
/// off each player's observation: the definition the module's text gives.
fn reference(net: &Nnue, game: &FishGame, s: &FishState) -> Vec<f32> {
    let n = game.num_players();
    let (features, dense, value) = net.layers();
    let count = features.inputs;
    let layer = crate::net::tests::dense_reference;
    let p = game.to_move(s).unwrap();
    let mut obs = vec![0.0; game.observation_len()];
    let mut x = Vec::new();
    for seat in 0..n {
        game.write_observation(s, (p + seat) % n, &mut obs);
        x.extend(
            layer(&features, &obs[..count])
                .into_iter()
                .map(|v| v.max(0.0)),
        );
    }
    game.write_observation(s, p, &mut obs);
    let area = game.board().num_cells();
    // The score planes follow the 3 + n cell planes.
    x.extend((0..n).map(|seat| obs[(3 + n + seat) * area]));
    for l in dense {
        x = layer(l, &x).into_iter().map(|v| v.max(0.0)).collect();
    }
    layer(value, &x).into_iter().map(f32::tanh).collect()
}

#[test]
fn the_value_is_the_dense_computation_over_each_players_features() {
    for players in [2, 3, 4] {
        let game = fish(players);
        let m = net(&game, 24, &[16, 8], players as u64);
        let mut rng = Rng::new(3);
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        while !game.is_over(&s) {
            let p = game.to_move(&s).unwrap();
            let want = reference(&m, &game, &s);
            let r = Evaluate::evaluate(&m, &game, &s);
            let got: Vec<f32> = (0..players)
                .map(|seat| r[(p + seat) % players] as f32)
                .collect();
            assert!(
                close(&got, &want, 1e-4),
                "{players} players: {got:?} {want:?}"
            );
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
    }
}

/// Whole random games, placement included, with the accumulators carried move by move from
/// the initial state's: they stay equal to a refresh bit for bit, and so do the values.
#[test]
fn incremental_accumulators_equal_a_refresh_over_random_games() {
    for (players, seed) in [(2, 1), (2, 2), (3, 3), (4, 4)] {
        let game = fish(players);
        let m = net(&game, 40, &[32], seed);
        let mut rng = Rng::new(seed);
        let mut s = game.initial_state();
        let (mut acc, mut next, mut fresh) = (
            Accumulator::default(),
            Accumulator::default(),
            Accumulator::default(),
        );
        m.refresh(&game, &s, &mut acc);
        let mut actions = ActionList::new();
        let mut moves = 0;
        while !game.is_over(&s) {
            game.legal_actions(&s, &mut actions);
            let mut child = s;
            game.apply(&mut child, actions[rng.below(actions.len())]);
            m.update(&game, &s, &acc, &child, &mut next);
            m.refresh(&game, &child, &mut fresh);
            // The weights are on an exact grid: the same bits, not only close.
            assert_eq!(next.sums, fresh.sums, "move {moves}");
            if let Some(p) = game.to_move(&child) {
                let mut scores = vec![0.0; players];
                game.write_scores(&child, p, &mut scores);
                let mut v = vec![0.0; players];
                m.evaluate_accumulator(&next, p, &scores, &mut v);
                let r = Evaluate::evaluate(&m, &game, &child);
                for seat in 0..players {
                    assert!((v[seat] as f64 - r[(p + seat) % players]).abs() < 1e-4);
                }
            }
            std::mem::swap(&mut acc, &mut next);
            s = child;
            moves += 1;
        }
        assert!(moves > 2 * players);
    }
}

#[test]
fn files_round_trip_exactly_and_say_which_kind_they_are() {
    let game = fish(3);
    let m = net(&game, 16, &[8, 4], 9);
    let bytes = m.to_bytes().unwrap();
    let back = Nnue::from_bytes(&bytes).unwrap();
    assert_eq!(back, m);
    assert_eq!(back.to_bytes().unwrap(), bytes);
    assert_eq!(
        crate::net::file::format_of(&bytes).unwrap(),
        "pingvinas-nnue"
    );
    // Each kind's reader refuses the other's file, naming both.
    let e = Mlp::from_bytes(&bytes).unwrap_err().to_string();
    assert!(e.contains("NNUE") && e.contains("pingvinas-mlp"), "{e}");
    let mlp = Mlp::random(Fits::of(&game, "fish"), &[8], 1).unwrap();
    let e = Nnue::from_bytes(&mlp.to_bytes().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("policy-and-value") && e.contains("pingvinas-nnue"),
        "{e}"
    );
}

#[test]
fn a_net_for_another_game_is_refused_with_what_differs() {
    let m = net(&fish(2), 8, &[4], 1);
    let e = m.check(&fish(3)).unwrap_err().to_string();
    assert!(e.contains("[19, 8, 8]"), "{e}");
    let small: FishGame = FishGame::new(
        Rules::standard(2).unwrap(),
        Board::from_grid(&vec![vec![1; 4]; 4]).unwrap(),
    );
    let e = m.check(&small).unwrap_err().to_string();
    assert!(e.contains("observations"), "{e}");
    let marathon = MarathonGame::standard();
    let e = m.check(&marathon).unwrap_err().to_string();
    assert!(e.contains("Fish"), "{e}");
    m.check(&fish(2)).unwrap();
}

#[test]
fn layers_that_do_not_chain_are_refused_by_name() {
    let game = fish(2);
    let m = net(&game, 8, &[4], 1);
    let (features, dense, value) = m.layers();
    let fits = Fits::of(&game, "fish");
    let mut short = features.clone();
    short.inputs -= 1;
    short.weight.truncate(short.inputs * short.outputs);
    let e = Nnue::from_layers(fits.clone(), short, dense.to_vec(), value.clone()).unwrap_err();
    assert!(e.to_string().contains("features.weight"), "{e}");
    let e = Nnue::from_layers(
        fits.clone(),
        features.clone(),
        vec![value.clone()],
        value.clone(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("dense.0.weight"), "{e}");
    let e = Nnue::from_layers(fits, features, Vec::new(), value.clone()).unwrap_err();
    assert!(e.to_string().contains("no dense layer"), "{e}");
}

/// A residual net: the net of `m` with a `base` layer of this scale and offset.
fn residual(m: &Nnue, scale: f32, offset: f32) -> Nnue {
    let (features, dense, value) = m.layers();
    let base = Dense::new("base", &[1, 1], vec![scale], vec![offset]).unwrap();
    Nnue::with_base(
        m.fits().clone(),
        features,
        dense.to_vec(),
        value.clone(),
        Some(base),
    )
    .unwrap()
}

/// An evaluation that checks, at every leaf a search hands it, that the net's value with the
/// thread's cached accumulators updated to the leaf equals the value refreshed, bit for bit.
/// Leaves evaluated once the search's clock has expired are not compared: a residual net's
/// hand-written estimate gives up its region solving then (a helper thread's clock expires
/// when another thread finishes the search), so the two may differ there.
struct Checked {
    net: Nnue,
    leaves: std::sync::atomic::AtomicUsize,
    differ: std::sync::atomic::AtomicUsize,
}

impl Evaluate<FishGame> for Checked {
    fn evaluate(&self, game: &FishGame, s: &FishState) -> Returns {
        use std::sync::atomic::Ordering::Relaxed;
        let cached = self.net.values_incremental(game, s);
        let refreshed = self.net.values(game, s);
        if cached != refreshed && !crate::search::Clock::current_expired() {
            self.differ.fetch_add(1, Relaxed);
        }
        self.leaves.fetch_add(1, Relaxed);
        cached
    }
}

fn checked(net: Nnue) -> Checked {
    Checked {
        net,
        leaves: Default::default(),
        differ: Default::default(),
    }
}

/// Seeded positions of random games, placement and movement.
fn positions(game: &FishGame, seed: u64, count: usize) -> Vec<FishState> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut actions = ActionList::new();
    while out.len() < count {
        let mut s = game.initial_state();
        let plies = rng.below(40);
        for _ in 0..plies {
            if game.is_over(&s) {
                break;
            }
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        if !game.is_over(&s) {
            out.push(s);
        }
    }
    out
}

#[test]
fn cached_leaf_values_equal_refreshed_ones_bit_for_bit_in_searches_on_several_threads() {
    use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
    use crate::search::{Budget, StopFlag};
    use std::sync::atomic::Ordering::Relaxed;
    for (players, threads, depth, seed) in [(2, 1, 3, 1), (2, 3, 3, 2), (3, 2, 2, 3)] {
        let game = fish(players);
        let plain = net(&game, 32, &[16], seed);
        for m in [residual(&plain, 0.8, 0.1), plain] {
            let eval = checked(m);
            let mut ab = AlphaBeta::new(AlphaBetaConfig {
                threads,
                ..Default::default()
            });
            for s in positions(&game, seed, 4) {
                ab.search(&game, &eval, &s, &Budget::depth(depth), StopFlag::new())
                    .unwrap();
            }
            assert!(
                eval.leaves.load(Relaxed) > 100,
                "{}",
                eval.leaves.load(Relaxed)
            );
            assert_eq!(
                eval.differ.load(Relaxed),
                0,
                "{players} players, {threads} threads"
            );
        }
    }
}

#[test]
fn a_thread_evaluating_other_nets_and_boards_in_turn_keeps_them_apart() {
    let (two, small) = (
        fish(2),
        FishGame::new(
            Rules::standard(2).unwrap(),
            // Same sizes, other fish: the features differ, the net fits.
            Board::from_grid(
                &(0..8)
                    .map(|r| (0..8).map(|c| 1 + (r * c) % 3).collect())
                    .collect::<Vec<Vec<u8>>>(),
            )
            .unwrap(),
        ),
    );
    let (a, b) = (net(&two, 16, &[8], 1), net(&two, 16, &[8], 2));
    let mut rng = Rng::new(9);
    for k in 0..200 {
        let game = if rng.below(2) == 0 { &two } else { &small };
        let m = if k % 3 == 0 { &a } else { &b };
        let s = positions(game, k, 1)[0];
        assert_eq!(
            m.values_incremental(game, &s),
            m.values(game, &s),
            "leaf {k}"
        );
    }
}

#[test]
fn a_residual_net_with_a_zero_head_is_the_hand_written_estimate() {
    let game = fish(2);
    let random = net(&game, 16, &[8], 4);
    let (features, dense, value) = random.layers();
    let zero = Dense {
        weight: vec![0.0; value.weight.len()],
        bias: vec![0.0; value.bias.len()],
        ..value.clone()
    };
    let m = Nnue::from_layers(game_fits(&game), features, dense.to_vec(), zero).unwrap();
    let m = residual(&m, 1.0, 0.0);
    let base = FishEval::new(&game, Default::default());
    for s in positions(&game, 5, 30) {
        let (want, got) = (base.evaluate(&game, &s), m.values(&game, &s));
        for p in 0..2 {
            assert!((want[p] - got[p]).abs() < 1e-5, "{want:?} {got:?}");
        }
        assert_eq!(m.values_incremental(&game, &s), got);
    }
    // Scaled by the layer, with the offset added before the tanh.
    let half = residual(&m, 0.5, 0.25);
    let s = positions(&game, 6, 1)[0];
    let e = base.evaluate(&game, &s)[0] as f32;
    let to_move = game.to_move(&s).unwrap();
    let want = (0.5 * e.atanh() + 0.25).tanh();
    let got = half.values(&game, &s)[0] as f32;
    assert!(
        (got - want).abs() < 1e-5,
        "{got} {want} (to move {to_move})"
    );
    // In the file too.
    let back = Nnue::from_bytes(&half.to_bytes().unwrap()).unwrap();
    assert_eq!(back, half);
    assert_eq!(back.base().unwrap().weight, vec![0.5]);
    let bad = Dense::new("base", &[1, 2], vec![1.0, 1.0], vec![0.0]).unwrap();
    let (features, dense, value) = m.layers();
    let e = Nnue::with_base(
        game_fits(&game),
        features,
        dense.to_vec(),
        value.clone(),
        Some(bad),
    )
    .unwrap_err();
    assert!(e.to_string().contains("base.weight"), "{e}");
}

fn game_fits(game: &FishGame) -> Fits {
    Fits::of(game, "fish")
}

#[test]
fn the_exact_grid_makes_sums_exact_in_any_order() {
    let game = fish(2);
    let m = net(&game, 8, &[4], 7);
    let (features, _, _) = m.layers();
    let t = crate::net::transposed(&features);
    let grid = exact_grid(&features.bias, &t);
    assert!(grid > 0.0 && grid < 1e-4 && grid.log2().fract() == 0.0);
    let w = rounded(&t, grid);
    // Forward and backward sums of every feature's weight for output 0 agree.
    let col: Vec<f32> = w.chunks_exact(8).map(|c| c[0]).collect();
    let forward = col.iter().fold(0.0f32, |s, x| s + x);
    let backward = col.iter().rev().fold(0.0f32, |s, x| s + x);
    assert_eq!(forward, backward);
}

/// The net of `m` with the hand-written terms as more inputs of its first dense layer (their
/// weights seeded), and a `base` layer of scale 1.
fn with_terms(m: &Nnue, seed: u64) -> Nnue {
    let n = m.fits().players;
    let (features, dense, value) = m.layers();
    let mut dense = dense.to_vec();
    let first = &dense[0];
    let mut rng = Rng::new(seed);
    let inputs = first.inputs + n * TERMS;
    let weight = (0..first.outputs)
        .flat_map(|o| {
            let row = first.row(o).to_vec();
            row.into_iter()
                .chain((0..n * TERMS).map(|_| (rng.unit() - 0.5) as f32))
                .collect::<Vec<_>>()
        })
        .collect();
    dense[0] = Dense::new(
        "dense.0",
        &[first.outputs, inputs],
        weight,
        first.bias.clone(),
    )
    .unwrap();
    let base = Dense::new("base", &[1, 1], vec![1.0], vec![0.0]).unwrap();
    Nnue::with_base(m.fits().clone(), features, dense, value.clone(), Some(base)).unwrap()
}

#[test]
fn a_net_of_terms_computes_its_dense_layer_over_the_hand_written_terms() {
    let game = fish(2);
    let count = Nnue::feature_count(&game_fits(&game));
    let none = Dense::new("features", &[0, count], vec![], vec![]).unwrap();
    let mut rng = Rng::new(7);
    let mut random = |len: usize| {
        (0..len)
            .map(|_| (rng.unit() - 0.5) as f32)
            .collect::<Vec<_>>()
    };
    let inputs = 2 + 2 * TERMS;
    let dense = Dense::new("dense.0", &[6, inputs], random(6 * inputs), random(6)).unwrap();
    let value = Dense::new("value", &[2, 6], random(12), random(2)).unwrap();
    let base = Dense::new("base", &[1, 1], vec![0.5], vec![0.1]).unwrap();
    let m = Nnue::with_base(
        game_fits(&game),
        none,
        vec![dense.clone()],
        value.clone(),
        Some(base),
    )
    .unwrap();
    assert!(m.reads_terms() && m.width() == 0);
    let eval = FishEval::new(&game, Default::default());
    let layer = crate::net::tests::dense_reference;
    for s in positions(&game, 8, 40) {
        let p = game.to_move(&s).unwrap();
        let terms = eval.terms(&game, &s);
        let e = eval.evaluate(&game, &s);
        let all = game.board().total_fish() as f32;
        let mut x: Vec<f32> = (0..2).map(|k| s.fish((p + k) % 2) as f32 / all).collect();
        for k in 0..2 {
            x.extend(terms[(p + k) % 2].iter().map(|&t| t as f32 * TERM_SCALE));
        }
        let h: Vec<f32> = layer(&dense, &x).into_iter().map(|v| v.max(0.0)).collect();
        let want: Vec<f32> = layer(&value, &h)
            .into_iter()
            .enumerate()
            .map(|(k, v)| (v + 0.5 * residual_input(e[(p + k) % 2] as f32) + 0.1).tanh())
            .collect();
        let got = m.values(&game, &s);
        let got: Vec<f32> = (0..2).map(|k| got[(p + k) % 2] as f32).collect();
        assert!(close(&got, &want, 1e-5), "{got:?} {want:?}");
        assert_eq!(m.values_incremental(&game, &s), m.values(&game, &s));
    }
    // A file of an accumulator of width 0 reads back the same net.
    let back = Nnue::from_bytes(&m.to_bytes().unwrap()).unwrap();
    assert_eq!(back, m);
    assert!(back.reads_terms());
    // Inputs that are neither with the terms nor without are refused, saying both.
    let odd = Dense::new(
        "dense.0",
        &[6, inputs + 1],
        random(6 * inputs + 6),
        random(6),
    )
    .unwrap();
    let none = Dense::new("features", &[0, count], vec![], vec![]).unwrap();
    let e = Nnue::from_layers(game_fits(&game), none, vec![odd], value).unwrap_err();
    assert!(
        e.to_string()
            .contains("dense.0.weight takes 25 inputs, expected 2"),
        "{e}"
    );
    assert!(e.to_string().contains("or 24 with"), "{e}");
}

#[test]
fn nets_of_terms_and_cells_update_their_leaves_bit_for_bit_in_searches() {
    use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig};
    use crate::search::{Budget, StopFlag};
    use std::sync::atomic::Ordering::Relaxed;
    let game = fish(2);
    let eval = checked(with_terms(&net(&game, 16, &[8], 3), 4));
    assert!(eval.net.reads_terms());
    let mut ab = AlphaBeta::new(AlphaBetaConfig {
        threads: 2,
        ..Default::default()
    });
    for s in positions(&game, 3, 4) {
        ab.search(&game, &eval, &s, &Budget::depth(3), StopFlag::new())
            .unwrap();
    }
    assert!(eval.leaves.load(Relaxed) > 100);
    assert_eq!(eval.differ.load(Relaxed), 0);
}

#[test]
fn the_quick_tanh_and_atanh_are_exact_to_single_precision() {
    for k in -4000..=4000 {
        let x = k as f32 / 200.0;
        let want = (x as f64).tanh();
        assert!((super::tanh(x) as f64 - want).abs() < 2e-7, "tanh({x})");
        // Estimates: a lead over the lead plus a scale, far from the clamp at 1 - 1e-6.
        let e = k as f32 / 4040.0;
        let want = (e as f64).atanh();
        let got = residual_input(e) as f64;
        assert!(
            (got - want).abs() <= 1e-6 * want.abs().max(1.0),
            "atanh({e}): {got} {want}"
        );
    }
    assert_eq!(super::tanh(0.0), 0.0);
    assert_eq!(super::tanh(f32::INFINITY), 1.0);
    assert_eq!(super::tanh(f32::NEG_INFINITY), -1.0);
    assert!(residual_input(1.0).is_finite() && residual_input(-1.0) == -residual_input(1.0));
}
