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
/// the initial state's: they stay equal to a refresh, and so do the values.
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
            assert!(close(&next.sums, &fresh.sums, 1e-4), "move {moves}");
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
