use std::sync::Arc;

use super::*;
use crate::fish::{Board, FishGame, Rules};
use crate::game::ActionList;
use crate::search::forest::{run, Forest};
use crate::search::puct::{PuctConfig, PuctTree};
use crate::search::{Budget, NoEval, StopFlag};

fn fish(players: usize) -> FishGame {
    FishGame::new(Rules::standard(players).unwrap(), Board::standard(3))
}

/// A state some random moves into a game (placement done when `moves` is large enough).
fn played(game: &FishGame, moves: usize, seed: u64) -> crate::fish::FishState {
    let mut s = game.initial_state();
    let mut rng = Rng::new(seed);
    let mut actions = ActionList::new();
    for _ in 0..moves {
        if game.is_over(&s) {
            break;
        }
        game.legal_actions(&s, &mut actions);
        game.apply(&mut s, actions[rng.below(actions.len())]);
    }
    s
}

fn net(game: &FishGame, hidden: &[usize], seed: u64) -> Mlp {
    Mlp::random(Fits::of(game, "fish"), hidden, seed).unwrap()
}

/// The plain dense forward pass, from the layers as the file stores them.
fn reference(net: &Mlp, obs: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let first = Dense {
        inputs: obs.len(),
        outputs: net.first_bias.len(),
        weight: (0..net.first_bias.len())
            .flat_map(|o| (0..obs.len()).map(move |i| (o, i)))
            .map(|(o, i)| net.first_t[i * net.first_bias.len() + o])
            .collect(),
        bias: net.first_bias.clone(),
    };
    let layer = dense_reference;
    let mut h: Vec<f32> = layer(&first, obs).into_iter().map(|v| v.max(0.0)).collect();
    for l in &net.trunk {
        h = layer(l, &h).into_iter().map(|v| v.max(0.0)).collect();
    }
    let values = layer(&net.value, &h).into_iter().map(f32::tanh).collect();
    (layer(&net.policy, &h), values)
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-4 * (1.0 + y.abs()))
}

#[test]
fn forward_matches_the_plain_dense_computation() {
    let game = fish(2);
    let m = net(&game, &[48, 24], 1);
    for seed in 0..6 {
        let s = played(&game, 3 * seed as usize, seed);
        let mut obs = vec![0.0; game.observation_len()];
        game.write_observation(&s, game.to_move(&s).unwrap(), &mut obs);
        let (policy, values) = reference(&m, &obs);
        let mut p = vec![0.0; game.num_actions()];
        let mut v = vec![0.0; 2];
        m.forward(&obs, None, &mut p, &mut v);
        assert!(close(&p, &policy) && close(&v, &values), "seed {seed}");

        // With a mask, legal logits are the same and the others 0.
        let mut legal = ActionList::new();
        game.legal_actions(&s, &mut legal);
        let mask: Vec<bool> = (0..game.num_actions() as u32)
            .map(|a| legal.contains(&a))
            .collect();
        let mut q = vec![1.0; game.num_actions()];
        m.forward(&obs, Some(&mask), &mut q, &mut v);
        for a in 0..game.num_actions() {
            assert_eq!(q[a], if mask[a] { p[a] } else { 0.0 });
        }
    }
}

/// Random observations (some cells 0, some planes constant, values of any sign) and random
/// nets of widths that are and are not multiples of the summing lanes: the sparse layers equal
/// the dense product within float rounding, and a batch equals its rows one by one, exactly.
#[test]
fn sparse_and_batched_forward_match_the_dense_product_on_random_inputs() {
    let game = fish(2);
    let [planes, rows, cols] = game.observation_shape();
    let area = rows * cols;
    let mut rng = Rng::new(11);
    for (k, hidden) in [&[5][..], &[17, 3], &[33, 64], &[64, 64], &[16, 16, 16]]
        .iter()
        .enumerate()
    {
        let m = net(&game, hidden, 20 + k as u64);
        let batch = 7;
        let mut obs = vec![0.0f32; batch * planes * area];
        for (r, row) in obs.chunks_exact_mut(planes * area).enumerate() {
            if r == 0 {
                // A real observation.
                let s = played(&game, 9, k as u64);
                game.write_observation(&s, game.to_move(&s).unwrap(), row);
                continue;
            }
            for plane in row.chunks_exact_mut(area) {
                if rng.below(3) == 0 {
                    plane.fill((rng.unit() * 2.0 - 1.0) as f32);
                } else {
                    for x in plane.iter_mut() {
                        if rng.below(4) == 0 {
                            *x = (rng.unit() * 4.0 - 2.0) as f32;
                        }
                    }
                }
            }
        }
        let a = game.num_actions();
        let mask: Vec<bool> = (0..batch * a).map(|_| rng.below(5) == 0).collect();
        let (mut p, mut v) = (vec![9.0; batch * a], vec![9.0; batch * 2]);
        m.forward_batch(&obs, &mask, &mut p, &mut v);
        for r in 0..batch {
            let row = &obs[r * planes * area..(r + 1) * planes * area];
            let (policy, values) = reference(&m, row);
            let (mut q, mut w) = (vec![0.0; a], vec![0.0; 2]);
            m.forward(row, Some(&mask[r * a..(r + 1) * a]), &mut q, &mut w);
            assert_eq!(q, p[r * a..(r + 1) * a], "{hidden:?} row {r}");
            assert_eq!(w, v[r * 2..(r + 1) * 2], "{hidden:?} row {r}");
            let masked: Vec<f32> = (0..a)
                .map(|i| if mask[r * a + i] { policy[i] } else { 0.0 })
                .collect();
            assert!(
                close(&q, &masked) && close(&w, &values),
                "{hidden:?} row {r}"
            );
        }
    }
}

#[test]
fn evaluation_is_the_value_head_turned_to_seats() {
    let game = fish(3);
    let m = net(&game, &[16], 2);
    let s = played(&game, 10, 5);
    let p = game.to_move(&s).unwrap();
    let mut obs = vec![0.0; game.observation_len()];
    game.write_observation(&s, p, &mut obs);
    let (_, values) = reference(&m, &obs);
    let r = Evaluate::evaluate(&m, &game, &s);
    for seat in 0..3 {
        assert!((r[(p + seat) % 3] - values[seat] as f64).abs() < 1e-5);
        assert!(r[(p + seat) % 3].abs() <= 1.0);
    }
}

#[test]
fn files_round_trip_exactly() {
    let game = fish(2);
    let m = net(&game, &[32, 16, 8], 3);
    let bytes = m.to_bytes().unwrap();
    for _ in 0..4 {
        assert_eq!(
            m.to_bytes().unwrap(),
            bytes,
            "the same net is the same bytes"
        );
    }
    let back = Mlp::from_bytes(&bytes).unwrap();
    assert_eq!(back, m);
    assert_eq!(back.hidden(), vec![32, 16, 8]);
    assert_eq!(back.fits().game, "fish");

    let dir = std::env::temp_dir().join(format!("pingvinas-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("net.safetensors");
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(Mlp::load(&path).unwrap(), m);
    let missing = Mlp::load(&dir.join("none.safetensors"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("none.safetensors") && missing.contains("cannot read"),
        "{missing}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_net_of_other_sizes_is_refused_with_the_size_that_differs() {
    let m = net(&fish(2), &[8], 4);
    assert!(m.fits().check(&fish(2)).is_ok());
    let err = m.fits().check(&fish(3)).unwrap_err().to_string();
    assert!(
        err.contains("observations of shape") || err.contains("players"),
        "{err}"
    );
    let small: FishGame = FishGame::new(
        Rules::standard(2).unwrap(),
        Board::from_grid(&[vec![1, 2, 3], vec![3, 2, 1]]).unwrap(),
    );
    let err = m.fits().check(&small).unwrap_err().to_string();
    assert!(err.contains("observations of shape"), "{err}");
}

/// A file with these tensors (name, dtype, shape, values) and header.
fn file(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)], header: &[(&str, &str)]) -> Vec<u8> {
    let views: Vec<_> = tensors
        .iter()
        .map(|(n, d, s, b)| (*n, TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    let header = header
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    safetensors::serialize(views, Some(header)).unwrap()
}

use safetensors::tensor::{Dtype, TensorView};

fn f32s(n: usize, x: f32) -> Vec<u8> {
    (0..n).flat_map(|_| x.to_le_bytes()).collect()
}

#[test]
fn bad_files_get_messages_that_say_what_is_wrong() {
    let header = [
        ("format", "pingvinas-mlp"),
        ("version", "1"),
        ("game", "toy"),
        ("observation", "1,1,2"),
        ("actions", "3"),
        ("players", "2"),
    ];
    let good = |w0: Vec<u8>| {
        vec![
            ("trunk.0.weight", Dtype::F32, vec![4, 2], w0),
            ("trunk.0.bias", Dtype::F32, vec![4], f32s(4, 0.0)),
            ("policy.weight", Dtype::F32, vec![3, 4], f32s(12, 0.5)),
            ("policy.bias", Dtype::F32, vec![3], f32s(3, 0.0)),
            ("value.weight", Dtype::F32, vec![2, 4], f32s(8, 0.1)),
            ("value.bias", Dtype::F32, vec![2], f32s(2, 0.0)),
        ]
    };
    let m = Mlp::from_bytes(&file(&good(f32s(8, 1.0)), &header)).unwrap();
    assert_eq!(m.hidden(), vec![4]);

    let err = |bytes: Vec<u8>| Mlp::from_bytes(&bytes).unwrap_err().to_string();
    assert!(err(b"not a file".to_vec()).contains("not a safetensors file"));
    let mut other = header;
    other[0].1 = "onnx";
    assert!(err(file(&good(f32s(8, 1.0)), &other)).contains("format"));
    other = header;
    other[1].1 = "2";
    assert!(err(file(&good(f32s(8, 1.0)), &other)).contains("version"));
    other = header;
    other[3].1 = "1,2";
    assert!(err(file(&good(f32s(8, 1.0)), &other)).contains("planes,rows,columns"));
    assert!(err(file(&good(f32s(8, 1.0)), &header[..5])).contains("\"players\""));
    assert!(err(file(&good(f32s(8, f32::NAN)), &header)).contains("finite"));

    let mut t = good(f32s(8, 1.0));
    t[1].0 = "trunk.0.bais";
    assert!(err(file(&t, &header)).contains("unexpected tensor \"trunk.0.bais\""));
    t = good(f32s(8, 1.0));
    t[2].2 = vec![3, 5];
    t[2].3 = f32s(15, 0.5);
    assert!(err(file(&t, &header)).contains("policy.weight has shape [3, 5], expected [3, 4]"));
    t = good(f32s(8, 1.0));
    t[0] = ("trunk.0.weight", Dtype::F64, vec![4, 2], f32s(16, 1.0));
    assert!(err(file(&t, &header)).contains("F32"));
    t = good(f32s(6, 1.0));
    t[0].2 = vec![2, 3];
    t[1] = ("trunk.0.bias", Dtype::F32, vec![2], f32s(2, 0.0));
    assert!(err(file(&t, &header)).contains("trunk.0.weight takes 3 inputs, expected 2"));
}

#[test]
fn puct_searches_with_the_native_net_on_threads() {
    let game = fish(2);
    let m = net(&game, &[32], 5);
    let s = played(&game, 4, 9);
    let tree = PuctTree::new(
        Arc::new(game.clone()),
        Arc::new(NoEval),
        PuctConfig::default(),
        1,
    );
    let mut forest = Forest::new(vec![tree]).unwrap();
    let r = run(
        &mut forest,
        &[s],
        &Budget::iterations(50),
        StopFlag::new(),
        &mut &m,
    )
    .unwrap();
    assert!(game.is_legal(&s, r[0].best));
    assert!(r[0].iterations >= 50);
    // The value head as alpha-beta's evaluation, from several threads at once.
    let mut ab =
        crate::search::alphabeta::AlphaBeta::new(crate::search::alphabeta::AlphaBetaConfig {
            threads: 2,
            ..Default::default()
        });
    let r = ab
        .search(&game, &m, &s, &Budget::depth(3), StopFlag::new())
        .unwrap();
    assert!(game.is_legal(&s, r.best) && r.depth == 3);
    // With the game's knowledge beside it: the net estimates, the region solver decides.
    let with = WithNet {
        base: Arc::new(crate::fish::eval::FishEval::new(&game, Default::default())),
        net: Arc::new(m.clone()),
    };
    assert_eq!(
        Evaluate::evaluate(&with, &game, &s),
        Evaluate::evaluate(&m, &game, &s)
    );
    let r = ab
        .search(&game, &with, &s, &Budget::depth(3), StopFlag::new())
        .unwrap();
    assert!(game.is_legal(&s, r.best));
}

/// A dense layer computed the plain way, `bias + weight · x` row by row: the reference the
/// nets' fast layers are compared with.
pub(super) fn dense_reference(l: &Dense, x: &[f32]) -> Vec<f32> {
    (0..l.outputs)
        .map(|o| {
            l.bias[o]
                + (0..l.inputs)
                    .map(|i| l.weight[o * l.inputs + i] * x[i])
                    .sum::<f32>()
        })
        .collect()
}
