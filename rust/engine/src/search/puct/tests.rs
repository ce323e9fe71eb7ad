use super::*;
use crate::fish::{FishGame, Rules};
use crate::marathon::Marathon;
use crate::search::forest::{run, BatchEvaluator, Forest};
use crate::search::gumbel::GumbelConfig;
use crate::search::mcts::{Mcts, MctsConfig, Selection};
use crate::search::toys::{minimax, Nim, NimState, TicTacToe, Ttt};
use crate::search::{random_playout, NoEval, StopFlag};

/// Zero logits; values from one random playout of each leaf (the leaf's position is known in
/// Rust), or zeros.
struct Uniform {
    playouts: bool,
    calls: usize,
    rows: usize,
}

impl Uniform {
    fn new(playouts: bool, _seed: u64) -> Uniform {
        Uniform {
            playouts,
            calls: 0,
            rows: 0,
        }
    }
}

/// A [`BatchEvaluator`] of `game` from a closure on one leaf: (logits by action, returns).
struct PerLeaf<'a, G: Game, F> {
    game: &'a G,
    f: F,
}

impl<G: Game, F: Clone> Clone for PerLeaf<'_, G, F> {
    fn clone(&self) -> Self {
        PerLeaf {
            game: self.game,
            f: self.f.clone(),
        }
    }
}

impl<G: Game, F: FnMut(&G, &G::State) -> (Vec<f32>, Returns)> BatchEvaluator<G>
    for PerLeaf<'_, G, F>
{
    fn evaluate(
        &mut self,
        states: &[G::State],
        _obs: &[f32],
        _mask: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) -> Result<()> {
        let (a, n) = (self.game.num_actions(), self.game.num_players());
        for (row, s) in states.iter().enumerate() {
            let (logits, r) = (self.f)(self.game, s);
            policy[row * a..(row + 1) * a].copy_from_slice(&logits);
            let p = self.game.to_move(s).unwrap();
            for k in 0..n {
                values[row * n + k] = r[(p + k) % n] as f32;
            }
        }
        Ok(())
    }
}

impl<G: Game> BatchEvaluator<G> for Uniform {
    fn evaluate(
        &mut self,
        states: &[G::State],
        obs: &[f32],
        mask: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) -> Result<()> {
        self.calls += 1;
        self.rows += states.len();
        assert_eq!(obs.len() / states.len() * states.len(), obs.len());
        assert_eq!(mask.len(), policy.len());
        policy.fill(0.0);
        values.fill(0.0);
        if self.playouts {
            // The game is not at hand here: the caller's closure is; see `playout_values`.
            unreachable!("use PerLeaf for playouts")
        }
        Ok(())
    }
}

fn tree<G: GameIo>(game: &G, config: PuctConfig, seed: u64) -> PuctTree<G, NoEval> {
    PuctTree::new(Arc::new(game.clone()), Arc::new(NoEval), config, seed)
}

fn search_one<G: GameIo, B: BatchEvaluator<G>>(
    game: &G,
    state: &G::State,
    config: PuctConfig,
    seed: u64,
    iterations: u64,
    evaluator: &mut B,
) -> SearchResult {
    let mut forest = Forest::new(vec![tree(game, config, seed)]).unwrap();
    run(
        &mut forest,
        &[*state],
        &Budget::iterations(iterations),
        StopFlag::new(),
        evaluator,
    )
    .unwrap()
    .pop()
    .unwrap()
}

/// Nim's exact values and the winning move as the only prior.
/// Tic-tac-toe priors and values from the position's hash: deterministic per position (not per
/// call order), so that trees do not share state.
fn noisy(g: &TicTacToe, s: &Ttt) -> (Vec<f32>, Returns) {
    let h = g.hash(s);
    let mut r = [0.0; MAX_PLAYERS];
    r[0] = ((h % 200) as f64 - 100.0) / 100.0;
    r[1] = -r[0];
    ((0..9).map(|a| ((h >> a) & 7) as f32).collect(), r)
}

fn nim_perfect(
    players: usize,
) -> impl FnMut(&Nim, &NimState) -> (Vec<f32>, Returns) + Clone + Send {
    move |_g: &Nim, s: &NimState| {
        let mut r = [0.0; MAX_PLAYERS];
        if players == 2 {
            let win = s.stones % 4 != 0;
            r[s.to_move as usize] = if win { 1.0 } else { -1.0 };
            r[1 - s.to_move as usize] = -r[s.to_move as usize];
        }
        let mut logits = vec![0.0; 3];
        if s.stones % 4 != 0 {
            logits[(s.stones % 4 - 1) as usize] = 5.0;
        }
        (logits, r)
    }
}

#[test]
fn a_perfect_evaluator_finds_the_winning_move_at_tiny_budgets() {
    let nim = Nim { players: 2 };
    for stones in [5, 6, 7, 9, 10, 11, 13, 30, 31] {
        for batch_size in [1, 4] {
            let config = PuctConfig {
                batch_size,
                ..Default::default()
            };
            let mut ev = PerLeaf {
                game: &nim,
                f: nim_perfect(2),
            };
            let r = search_one(&nim, &nim.start(stones), config, 1, 8, &mut ev);
            assert_eq!(r.best + 1, stones % 4, "{stones} stones: {r:?}");
            assert!(r.value > 0.9, "{r:?}");
            assert_eq!(r.iterations, 8);
            assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 8);
        }
    }
}

#[test]
fn tictactoe_with_exact_values_blocks_and_wins() {
    // Values from the brute-force minimax oracle, priors uniform.
    let game = TicTacToe;
    let perfect = |g: &TicTacToe, s: &Ttt| {
        let v = minimax(g, s);
        let mut r = [0.0; MAX_PLAYERS];
        r[0] = v;
        r[1] = -v;
        (vec![0.0; 9], r)
    };
    for (pos, want) in [("XX./.O./...", 2), ("XX./OO./...", 2), ("X../.O./..X", 1)] {
        let s = Ttt::from_str(pos);
        let mut ev = PerLeaf {
            game: &game,
            f: perfect,
        };
        let r = search_one(&game, &s, PuctConfig::default(), 3, 30, &mut ev);
        if pos == "X../.O./..X" {
            // O must take an edge, not a corner.
            assert!([1, 3, 5, 7].contains(&r.best), "{pos}: {r:?}");
        } else {
            assert_eq!(r.best, want, "{pos}: {r:?}");
        }
    }
}

#[test]
fn three_players_back_up_per_player() {
    // Three-player Nim with 1..=3 stones: the player to move takes them all. Values from
    // playouts, uniform priors.
    let nim = Nim { players: 3 };
    let mut rng = Rng::new(5);
    for stones in 1..=3 {
        let mut ev = PerLeaf {
            game: &nim,
            f: |g: &Nim, s: &NimState| (vec![0.0; 3], random_playout(g, s, &mut rng)),
        };
        let r = search_one(
            &nim,
            &nim.start(stones),
            PuctConfig::default(),
            2,
            200,
            &mut ev,
        );
        assert_eq!(r.best + 1, stones, "{r:?}");
        assert!(r.value > 0.99, "{r:?}");
    }
}

#[test]
fn visits_add_up_and_batches_use_virtual_loss() {
    let game = TicTacToe;
    for batch_size in [1, 3, 8, 64] {
        let config = PuctConfig {
            batch_size,
            ..Default::default()
        };
        let mut ev = Uniform::new(false, 0);
        let r = search_one(&game, &Ttt::default(), config, 7, 500, &mut ev);
        assert_eq!(r.iterations, 500);
        assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 500);
        assert_eq!(r.visits.len(), 9);
        // One call for the root, then batches of up to `batch_size` distinct leaves.
        assert!(ev.rows <= 501, "{} rows", ev.rows);
        if batch_size >= 8 {
            assert!(
                ev.calls < 500 / 4,
                "{} calls of batch {batch_size}",
                ev.calls
            );
        }
    }
    // The first batch after the root holds nine different children.
    let mut t = tree(
        &game,
        PuctConfig {
            batch_size: 9,
            ..Default::default()
        },
        1,
    );
    t.start(&Ttt::default(), &Budget::iterations(100)).unwrap();
    let mut obs = vec![0.0; 9 * 18];
    let mut mask = vec![false; 9 * 9];
    assert_eq!(t.gather(&mut obs, &mut mask), 1);
    t.backup(&[0.0; 9], &[0.0; 2]).unwrap();
    assert_eq!(t.gather(&mut obs, &mut mask), 9);
    let states: std::collections::HashSet<Ttt> = t.pending_states().copied().collect();
    assert_eq!(states.len(), 9);
    // Observations from the view of the player to move (O): X's mark is in plane 1.
    assert_eq!(obs[..18].iter().sum::<f32>(), 1.0);
    assert_eq!(mask[..9].iter().filter(|&&m| m).count(), 8);
    t.backup(&[0.0; 81], &[0.0; 18]).unwrap();
    assert_eq!(t.iterations(), 9);
    assert!(t.tree.nodes.iter().all(|n| n.pending == 0));
}

#[test]
fn uniform_playout_values_match_mcts_puct_statistics() {
    // PUCT with uniform priors and one random playout per leaf, against the MCTS with PUCT
    // selection and random playouts: the mean visit share of the most visited root move, over
    // many seeds, agrees (the two differ in where a playout starts, not in what it measures).
    let game = TicTacToe;
    let s = Ttt::from_str("X../.O./...");
    let seeds = 200;
    let iterations = 400;
    let (mut share_puct, mut share_mcts) = (0.0, 0.0);
    let mut best_puct = std::collections::BTreeMap::<u32, i32>::new();
    let mut best_mcts = best_puct.clone();
    for seed in 0..seeds {
        let mut rng = Rng::new(1000 + seed);
        let mut ev = PerLeaf {
            game: &game,
            f: |g: &TicTacToe, s: &Ttt| (vec![0.0; 9], random_playout(g, s, &mut rng)),
        };
        let config = PuctConfig {
            exploration: 1.0,
            batch_size: 1,
            ..Default::default()
        };
        let r = search_one(&game, &s, config, seed, iterations, &mut ev);
        let top = r.visits.iter().map(|v| v.1).max().unwrap();
        share_puct += top as f64 / iterations as f64;
        *best_puct.entry(r.best).or_insert(0) += 1;
        let mut m: Mcts<Ttt> = Mcts::new(MctsConfig {
            selection: Selection::Puct,
            exploration: 1.0,
            seed,
            ..Default::default()
        });
        let r = m
            .search(
                &game,
                &NoEval,
                &s,
                &Budget::iterations(iterations),
                StopFlag::new(),
            )
            .unwrap();
        let top = r.visits.iter().map(|v| v.1).max().unwrap();
        share_mcts += top as f64 / iterations as f64;
        *best_mcts.entry(r.best).or_insert(0) += 1;
    }
    let (a, b) = (share_puct / seeds as f64, share_mcts / seeds as f64);
    eprintln!("mean top share: PUCT {a:.3}, MCTS {b:.3}; {best_puct:?} {best_mcts:?}");
    assert!((a - b).abs() < 0.1, "PUCT {a:.3}, MCTS {b:.3}");
    // Both prefer the same moves: the distributions of the chosen move are close (total
    // variation distance; measured 0.045).
    let tv: i32 = (0..9)
        .map(|a| (best_puct.get(&a).unwrap_or(&0) - best_mcts.get(&a).unwrap_or(&0)).abs())
        .sum();
    assert!(
        (tv as f64 / 2.0 / seeds as f64) < 0.15,
        "{best_puct:?} {best_mcts:?}"
    );
}

#[test]
fn forest_results_do_not_depend_on_the_other_trees_or_the_threads() {
    let game = TicTacToe;
    // Twelve trees of four leaves a round: enough for a round to be shared out to threads.
    let states: Vec<Ttt> = ["", "X../..../....", "XX./.O./...", "X../.O./..X"]
        .iter()
        .map(|t| {
            if t.is_empty() {
                Ttt::default()
            } else {
                Ttt::from_str(t)
            }
        })
        .cycle()
        .take(12)
        .collect();
    let config = PuctConfig {
        batch_size: 4,
        dirichlet: Some((0.3, 0.25)),
        ..Default::default()
    };
    let seed = |i: usize| crate::rng::splitmix64(17 ^ i as u64);
    for threads in [1, 2, 3] {
        let mut forest = Forest::new(
            (0..states.len())
                .map(|i| tree(&game, config, seed(i)))
                .collect(),
        )
        .unwrap();
        forest.set_threads(threads);
        let all = run(
            &mut forest,
            &states,
            &Budget::iterations(200),
            StopFlag::new(),
            &mut PerLeaf {
                game: &game,
                f: &mut noisy,
            },
        )
        .unwrap();
        check_each_alone(&game, &states, config, seed, &all);
    }
}

/// Spoils one row's answer (its logits and values, by its mask).
type Spoil = fn(&mut [f32], &mut [f32], &[bool]);

/// Zero answers, but on its `at`-th call row `row` gets `bad`.
struct Spoiled {
    calls: usize,
    at: usize,
    row: usize,
    bad: Spoil,
}

impl BatchEvaluator<TicTacToe> for Spoiled {
    fn evaluate(
        &mut self,
        _s: &[Ttt],
        _o: &[f32],
        mask: &[bool],
        policy: &mut [f32],
        values: &mut [f32],
    ) -> Result<()> {
        policy.fill(0.0);
        values.fill(0.0);
        self.calls += 1;
        if self.calls == self.at {
            let r = self.row;
            (self.bad)(
                &mut policy[r * 9..(r + 1) * 9],
                &mut values[r * 2..(r + 1) * 2],
                &mask[r * 9..(r + 1) * 9],
            );
        }
        Ok(())
    }
}

#[test]
fn bad_answers_are_refused_by_row_and_leave_the_trees_clean() {
    let game = TicTacToe;
    fn first_legal(m: &[bool]) -> usize {
        m.iter().position(|&l| l).unwrap()
    }
    let cases: [(Spoil, &str); 5] = [
        (
            |_, v, _| v[1] = f32::INFINITY,
            "values must be finite: row 29 holds inf",
        ),
        (|p, _, m| p[first_legal(m)] = f32::NAN, "row 29, action"),
        (
            |p, _, m| p[first_legal(m)] = f32::INFINITY,
            "row 29, action",
        ),
        (
            |p, _, _| p.fill(f32::NEG_INFINITY),
            "row 29 are -inf for every legal action",
        ),
        // Illegal actions' logits are not read; -inf on some legal ones is a prior of 0.
        (
            |p, _, m| {
                for (x, &l) in p.iter_mut().zip(m) {
                    *x = if l { f32::NEG_INFINITY } else { f32::NAN };
                }
                p[first_legal(m)] = 0.0;
            },
            "",
        ),
    ];
    for threads in [1, 2] {
        for (bad, message) in cases {
            // Twelve trees of four leaves a round (shared out to threads); row 29 is tree 7's.
            let mut forest = Forest::new(
                (0..12)
                    .map(|i| {
                        tree(
                            &game,
                            PuctConfig {
                                batch_size: 4,
                                ..Default::default()
                            },
                            i,
                        )
                    })
                    .collect(),
            )
            .unwrap();
            forest.set_threads(threads);
            let mut ev = Spoiled {
                calls: 0,
                at: 3,
                row: 29,
                bad,
            };
            let got = run(
                &mut forest,
                &[Ttt::default(); 12],
                &Budget::iterations(100),
                StopFlag::new(),
                &mut ev,
            );
            if message.is_empty() {
                assert!(got.is_ok(), "{threads}: {got:?}");
                continue;
            }
            let e = got.unwrap_err().to_string();
            assert!(e.contains(message), "{threads}: {e}");
            // The forest was aborted: no virtual loss is left in any tree.
            for t in &forest.trees {
                assert!(t.tree.nodes.iter().all(|n| n.pending == 0));
            }
        }
    }
    // A lone tree refuses the answer before it changes, and searches on after an abort.
    let mut t = tree(&game, PuctConfig::default(), 0);
    t.start(&Ttt::default(), &Budget::iterations(20)).unwrap();
    let (mut obs, mut mask) = (vec![0.0; 9 * 18], vec![false; 9]);
    assert_eq!(t.gather(&mut obs, &mut mask), 1);
    let bad = t.backup(&[f32::NAN; 9], &[0.0; 2]).unwrap_err();
    assert_eq!((bad.row, bad.after(5).row), (0, 5));
    assert!(
        matches!(bad.kind, BadKind::Logit(0, x) if x.is_nan()),
        "{bad:?}"
    );
    assert_eq!(t.iterations(), 0);
    t.abort();
    assert!(t.tree.nodes.iter().all(|n| n.pending == 0));
}

/// Searches a lone tic-tac-toe tree for `iterations`, driving its rounds by hand (gather,
/// evaluate, backup) rather than through a forest.
fn search_by_hand<B: BatchEvaluator<TicTacToe>>(
    t: &mut PuctTree<TicTacToe, NoEval>,
    s: &Ttt,
    iterations: u64,
    ev: &mut B,
) -> SearchResult {
    let b = t.config().batch_size;
    let (mut obs, mut mask) = (vec![0.0; b * 18], vec![false; b * 9]);
    let (mut policy, mut values) = (vec![0.0; b * 9], vec![0.0; b * 2]);
    t.start(s, &Budget::iterations(iterations)).unwrap();
    while !t.is_done() {
        let n = t.gather(&mut obs, &mut mask);
        let leaves: Vec<Ttt> = t.pending_states().copied().collect();
        ev.evaluate(
            &leaves,
            &obs[..n * 18],
            &mask[..n * 9],
            &mut policy[..n * 9],
            &mut values[..n * 2],
        )
        .unwrap();
        t.backup(&policy, &values).unwrap();
    }
    t.result(Default::default())
}

/// Each tree of a forest's results against the same tree searched alone, by hand.
fn check_each_alone(
    game: &TicTacToe,
    states: &[Ttt],
    config: PuctConfig,
    seed: impl Fn(usize) -> u64,
    all: &[SearchResult],
) {
    let mut ev = PerLeaf {
        game,
        f: &mut noisy,
    };
    for (i, s) in states.iter().enumerate() {
        let mut t = tree(game, config, seed(i));
        let one = search_by_hand(&mut t, s, 200, &mut ev);
        assert_eq!(
            (one.best, &one.visits, &one.pv, one.value),
            (all[i].best, &all[i].visits, &all[i].pv, all[i].value),
            "tree {i}"
        );
    }
}

#[test]
fn deterministic_for_a_seed_and_noise_changes_the_root() {
    let game = TicTacToe;
    let go = |seed: u64, dirichlet: Option<(f64, f64)>| {
        let config = PuctConfig {
            dirichlet,
            batch_size: 8,
            ..Default::default()
        };
        let mut rng = Rng::new(9);
        search_one(
            &game,
            &Ttt::default(),
            config,
            seed,
            300,
            &mut PerLeaf {
                game: &game,
                f: |g: &TicTacToe, s: &Ttt| (vec![0.0; 9], random_playout(g, s, &mut rng)),
            },
        )
    };
    let a = go(1, None);
    assert_eq!(a.visits, go(1, None).visits);
    let b = go(1, Some((0.3, 0.25)));
    assert_eq!(b.visits, go(1, Some((0.3, 0.25))).visits);
    assert_ne!(a.visits, b.visits);
    // Gamma deviates have mean alpha.
    let mut rng = Rng::new(3);
    for alpha in [0.03, 0.3, 1.0, 2.5] {
        let n = 20_000;
        let mean = (0..n).map(|_| gamma(&mut rng, alpha)).sum::<f64>() / n as f64;
        assert!(
            (mean - alpha).abs() < 0.1 * alpha.max(0.3),
            "{alpha}: {mean}"
        );
    }
}

#[test]
fn trees_are_kept_between_moves() {
    let game = TicTacToe;
    let mut t = tree(&game, PuctConfig::default(), 4);
    let s0 = Ttt::default();
    let mut ev = Uniform::new(false, 0);
    let mut search =
        |t: &mut PuctTree<TicTacToe, NoEval>, s: &Ttt| search_by_hand(t, s, 300, &mut ev);
    let r = search(&mut t, &s0);
    let mut s = s0;
    game.apply(&mut s, r.pv[0]);
    let before = t.size();
    t.advance(r.pv[0], &s);
    let kept = t.size();
    assert!(kept > 10 && kept < before, "{kept} of {before}");
    let visits_kept = t.tree.nodes[0].visits;
    let r2 = search(&mut t, &s);
    assert_eq!(
        r2.visits.iter().map(|v| v.1).sum::<u64>() + 1,
        visits_kept as u64 + 300,
        "{r2:?}"
    );
    // A search of a position two plies down finds its subtree by itself.
    let mut s2 = s;
    game.apply(&mut s2, r2.pv[0]);
    game.apply(&mut s2, r2.pv[1]);
    t.start(&s2, &Budget::iterations(10)).unwrap();
    assert!(t.tree.nodes[0].visits > 1);
}

#[test]
fn fish_and_marathon_for_every_player_count() {
    let mut cases: Vec<(usize, bool)> = (2..=4).map(|p| (p, true)).collect();
    cases.extend((2..=5).map(|p| (p, false)));
    for (players, fish) in cases {
        let mut rng = Rng::new(players as u64);
        let config = PuctConfig {
            batch_size: 8,
            dirichlet: Some((0.3, 0.25)),
            ..Default::default()
        };
        if fish {
            let game = FishGame::dealt(Rules::standard(players).unwrap(), 3);
            let mut s = game.initial_state();
            // Into the movement phase.
            let mut actions = ActionList::new();
            for _ in 0..game.rules().placement_turns() + 3 {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            let mut ev = PerLeaf {
                game: &game,
                f: |g: &FishGame, s: &crate::fish::FishState| {
                    (vec![0.0; g.num_actions()], random_playout(g, s, &mut rng))
                },
            };
            let r = search_one(&game, &s, config, 1, 100, &mut ev);
            assert!(game.is_legal(&s, r.best), "fish {players}: {r:?}");
            assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 100);
        } else {
            let game = Marathon::standard().with_players(players).unwrap();
            let mut s = game.new_state();
            let mut actions = ActionList::new();
            for _ in 0..3 * players {
                game.legal_actions(&s, &mut actions);
                game.apply(&mut s, actions[rng.below(actions.len())]);
            }
            let mut ev = Uniform::new(false, 0);
            let r = search_one(&game, &s, config, 1, 100, &mut ev);
            assert!(game.is_legal(&s, r.best), "marathon {players}: {r:?}");
            assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 100);
        }
    }
}

#[test]
fn exact_leaves_need_no_evaluator_and_errors_stop_the_search() {
    // Nim with the exact evaluation: every child of the root is solved at once.
    struct NimExact;
    impl Evaluate<Nim> for NimExact {
        fn exact(&self, _g: &Nim, s: &NimState) -> Option<Returns> {
            let mut r = [0.0; MAX_PLAYERS];
            r[s.to_move as usize] = if s.stones % 4 != 0 { 1.0 } else { -1.0 };
            r[1 - s.to_move as usize] = -r[s.to_move as usize];
            Some(r)
        }
    }
    let nim = Nim { players: 2 };
    let t = PuctTree::new(
        Arc::new(nim.clone()),
        Arc::new(NimExact),
        PuctConfig::default(),
        0,
    );
    let mut forest = Forest::new(vec![t]).unwrap();
    let mut ev = Uniform::new(false, 0);
    let r = run(
        &mut forest,
        &[nim.start(10)],
        &Budget::iterations(1000),
        StopFlag::new(),
        &mut ev,
    )
    .unwrap();
    assert_eq!(ev.calls, 1, "only the root goes to the evaluator");
    assert_eq!(r[0].best, 1);
    assert!(r[0].exact && r[0].value == 1.0, "{:?}", r[0]);
    // An evaluator error ends the search with it, and the tree is left clean.
    struct Failing;
    impl BatchEvaluator<TicTacToe> for Failing {
        fn evaluate(
            &mut self,
            _s: &[Ttt],
            _o: &[f32],
            _m: &[bool],
            _p: &mut [f32],
            _v: &mut [f32],
        ) -> Result<()> {
            crate::error::invalid!("no")
        }
    }
    let game = TicTacToe;
    let mut forest = Forest::new(vec![tree(&game, PuctConfig::default(), 0)]).unwrap();
    let e = run(
        &mut forest,
        &[Ttt::default()],
        &Budget::iterations(10),
        StopFlag::new(),
        &mut Failing,
    )
    .unwrap_err();
    assert!(e.to_string().contains("no"));
    // Bad settings and budgets.
    for config in [
        PuctConfig {
            batch_size: 0,
            ..Default::default()
        },
        PuctConfig {
            exploration: f64::NAN,
            ..Default::default()
        },
        PuctConfig {
            dirichlet: Some((0.0, 0.25)),
            ..Default::default()
        },
    ] {
        let mut t = tree(&game, config, 0);
        assert!(t.start(&Ttt::default(), &Budget::iterations(5)).is_err());
    }
    let mut t = tree(&game, PuctConfig::default(), 0);
    assert!(t.start(&Ttt::default(), &Budget::depth(5)).is_err());
    assert!(t
        .start(&Ttt::from_str("XXX/OO./..."), &Budget::iterations(5))
        .is_err());
}

#[test]
fn a_time_budget_ends_the_search_after_the_root() {
    let nim = Nim { players: 2 };
    let mut forest = Forest::new(vec![tree(&nim, PuctConfig::default(), 0)]).unwrap();
    let stop = StopFlag::new();
    stop.stop();
    let r = run(
        &mut forest,
        &[nim.start(50)],
        &Budget::time(10.0),
        stop,
        &mut Uniform::new(false, 0),
    )
    .unwrap();
    assert!(r[0].interrupted && r[0].iterations == 0 && r[0].visits.len() == 3);
    let mut forest = Forest::new(vec![tree(&nim, PuctConfig::default(), 0)]).unwrap();
    let t0 = std::time::Instant::now();
    let r = run(
        &mut forest,
        &[nim.start(5000)],
        &Budget::time(0.05),
        StopFlag::new(),
        &mut Uniform::new(false, 0),
    )
    .unwrap();
    assert!(t0.elapsed().as_secs_f64() < 1.0 && r[0].iterations > 10 && !r[0].interrupted);
}

// The Gumbel root (search/gumbel.rs).

fn gumbel() -> PuctConfig {
    PuctConfig {
        root: RootRule::Gumbel(GumbelConfig::default()),
        batch_size: 1,
        ..Default::default()
    }
}

/// Exact tic-tac-toe values (minimax) and logits `bias` on `favoured`, 0 elsewhere.
fn ttt_perfect(favoured: Action, bias: f32) -> impl FnMut(&TicTacToe, &Ttt) -> (Vec<f32>, Returns) {
    move |g: &TicTacToe, s: &Ttt| {
        let v = minimax(g, s);
        let mut r = [0.0; MAX_PLAYERS];
        r[0] = v;
        r[1] = -v;
        let mut logits = vec![0.0; 9];
        logits[favoured as usize] = bias;
        (logits, r)
    }
}

/// The exact value of each legal move of `s` for its player to move.
fn move_values(s: &Ttt) -> Vec<(Action, f64)> {
    let game = TicTacToe;
    let p = game.to_move(s).unwrap();
    let mut actions = ActionList::new();
    game.legal_actions(s, &mut actions);
    actions
        .iter()
        .map(|&a| {
            let mut c = *s;
            game.apply(&mut c, a);
            let v = minimax(&game, &c);
            (a, if p == 0 { v } else { -v })
        })
        .collect()
}

#[test]
fn gumbel_finds_the_winning_move_with_a_perfect_evaluator() {
    let nim = Nim { players: 2 };
    for stones in [5, 6, 7, 9, 10, 11, 13, 30, 31] {
        for (batch_size, sims) in [(1, 2), (1, 3), (1, 16), (4, 2), (4, 8)] {
            let config = PuctConfig {
                batch_size,
                ..gumbel()
            };
            let mut ev = PerLeaf {
                game: &nim,
                f: nim_perfect(2),
            };
            let r = search_one(&nim, &nim.start(stones), config, 1, sims, &mut ev);
            assert_eq!(r.best + 1, stones % 4, "{stones} stones, {sims}: {r:?}");
            assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), sims);
        }
    }
}

#[test]
fn gumbel_beats_puct_at_tiny_budgets_when_the_prior_misleads() {
    // X to move wins with cell 6 and draws elsewhere; the prior leans to a drawing move. With
    // as many simulations as moves, Gumbel looks at every move once and plays the win; PUCT
    // keeps revisiting the favoured draw.
    let game = TicTacToe;
    let s = Ttt::from_str(".OX/X.O/...");
    let values = move_values(&s);
    assert_eq!(values.iter().filter(|v| v.1 == 1.0).count(), 1);
    let draw = values.iter().find(|v| v.1 == 0.0).unwrap().0;
    let sims = values.len() as u64;
    let (mut wins_gumbel, mut wins_puct) = (0, 0);
    for seed in 0..50 {
        for (config, wins) in [
            (gumbel(), &mut wins_gumbel),
            (
                PuctConfig {
                    batch_size: 1,
                    ..Default::default()
                },
                &mut wins_puct,
            ),
        ] {
            let mut ev = PerLeaf {
                game: &game,
                f: ttt_perfect(draw, 2.0),
            };
            let r = search_one(&game, &s, config, seed, sims, &mut ev);
            *wins += (r.best == 6) as u32;
        }
    }
    assert!(
        wins_gumbel >= 45,
        "gumbel {wins_gumbel}, puct {wins_puct} of 50"
    );
    assert!(
        wins_puct < wins_gumbel,
        "gumbel {wins_gumbel}, puct {wins_puct} of 50"
    );
}

#[test]
fn the_improved_policy_weighs_better_moves_more() {
    // Uniform priors: the improved policy is monotone in each move's exact value.
    let game = TicTacToe;
    for pos in ["XX./.O./O..", "X../.O./..X", "XO./.X./..."] {
        let s = Ttt::from_str(pos);
        let mut t = tree(&game, gumbel(), 3);
        let mut ev = PerLeaf {
            game: &game,
            f: ttt_perfect(0, 0.0),
        };
        let mut forest = Forest::new(vec![t]).unwrap();
        run(
            &mut forest,
            &[s],
            &Budget::iterations(32),
            StopFlag::new(),
            &mut ev,
        )
        .unwrap();
        t = forest.trees.pop().unwrap();
        let policy = t.improved_policy();
        let values = move_values(&s);
        assert_eq!(policy.len(), values.len());
        assert!((policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-5);
        for (p, v) in policy.iter().zip(&values) {
            assert_eq!(p.0, v.0);
            for (q, w) in policy.iter().zip(&values) {
                if v.1 > w.1 {
                    assert!(p.1 > q.1, "{pos}: {policy:?} {values:?}");
                }
            }
        }
        // The visits alone would say less: the best move takes most of the weight.
        let best = values.iter().map(|v| v.1).fold(f64::MIN, f64::max);
        let on_best: f32 = policy
            .iter()
            .zip(&values)
            .filter(|(_, v)| v.1 == best)
            .map(|(p, _)| p.1)
            .sum();
        assert!(on_best > 0.5, "{pos}: {policy:?}");
    }
}

#[test]
fn gumbel_visits_follow_sequential_halving() {
    // 16 considered moves of a Fish placement and 32 simulations: 8 moves visited once, 4
    // twice and 4 four times (mctx's schedule), with batches too (visits under way count).
    let game = FishGame::dealt(Rules::standard(2).unwrap(), 3);
    let s = game.initial_state();
    for batch_size in [1, 4, 16] {
        let config = PuctConfig {
            batch_size,
            ..gumbel()
        };
        let r = search_one(&game, &s, config, 5, 32, &mut Uniform::new(false, 0));
        assert!(r.visits.len() > 16);
        let mut v: Vec<u64> = r.visits.iter().map(|v| v.1).filter(|&n| n > 0).collect();
        v.sort_unstable();
        let mut want = vec![1; 8];
        want.extend([2; 4]);
        want.extend([4; 4]);
        assert_eq!(v, want, "batch {batch_size}");
        // The move played is among the most visited.
        assert_eq!(r.visits.iter().find(|x| x.0 == r.best).unwrap().1, 4);
    }
    // Four considered moves of nine, eight simulations: two moves once, two three times.
    let config = PuctConfig {
        root: RootRule::Gumbel(GumbelConfig {
            max_considered: 4,
            ..Default::default()
        }),
        ..gumbel()
    };
    let r = search_one(
        &TicTacToe,
        &Ttt::default(),
        config,
        2,
        8,
        &mut Uniform::new(false, 0),
    );
    let mut v: Vec<u64> = r.visits.iter().map(|v| v.1).collect();
    v.sort_unstable();
    assert_eq!(v, [0, 0, 0, 0, 0, 1, 1, 3, 3]);
}

#[test]
fn gumbel_is_reproducible_and_works_in_a_forest() {
    let game = TicTacToe;
    let states = [
        Ttt::default(),
        Ttt::from_str("X../..../...."),
        Ttt::from_str("XX./.O./..."),
        Ttt::from_str("X../.O./..X"),
    ];
    let config = PuctConfig {
        batch_size: 4,
        ..gumbel()
    };
    let seed = |i: usize| crate::rng::splitmix64(23 ^ i as u64);
    let mut forest = Forest::new(
        (0..states.len())
            .map(|i| tree(&game, config, seed(i)))
            .collect(),
    )
    .unwrap();
    let all = run(
        &mut forest,
        &states,
        &Budget::iterations(24),
        StopFlag::new(),
        &mut PerLeaf {
            game: &game,
            f: &mut noisy,
        },
    )
    .unwrap();
    let policies: Vec<_> = forest.trees.iter().map(|t| t.improved_policy()).collect();
    let mut differs = false;
    for (i, s) in states.iter().enumerate() {
        let one = |seed: u64, noisy: &mut _| {
            search_one(
                &game,
                s,
                config,
                seed,
                24,
                &mut PerLeaf {
                    game: &game,
                    f: noisy,
                },
            )
        };
        let r = one(seed(i), &mut noisy);
        assert_eq!(
            (r.best, &r.visits, &r.pv, r.value),
            (all[i].best, &all[i].visits, &all[i].pv, all[i].value),
            "tree {i}"
        );
        assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 24);
        differs |= one(seed(i) + 1, &mut noisy).visits != r.visits;
        assert_eq!(policies[i].len(), r.visits.len());
    }
    assert!(differs, "another seed, other Gumbel noise");
}

#[test]
fn gumbel_settings_are_checked_and_the_default_is_puct() {
    assert_eq!(PuctConfig::default().root, RootRule::Puct);
    for g in [
        GumbelConfig {
            max_considered: 0,
            ..Default::default()
        },
        GumbelConfig {
            c_visit: f64::NAN,
            ..Default::default()
        },
        GumbelConfig {
            c_scale: -1.0,
            ..Default::default()
        },
    ] {
        let config = PuctConfig {
            root: RootRule::Gumbel(g),
            ..Default::default()
        };
        assert!(config.check().is_err(), "{g:?}");
    }
    // A time budget plans the halving for `UNPLANNED` simulations and still ends.
    let nim = Nim { players: 2 };
    let mut forest = Forest::new(vec![tree(&nim, gumbel(), 0)]).unwrap();
    let r = run(
        &mut forest,
        &[nim.start(5000)],
        &Budget::time(0.05),
        StopFlag::new(),
        &mut Uniform::new(false, 0),
    )
    .unwrap();
    assert!(r[0].iterations > 10 && r[0].visits.iter().all(|v| v.1 > 0));
}

#[test]
fn threads_sharing_a_tree_keep_the_budget_and_find_the_win() {
    use crate::search::forest::{drive_parallel, SharedTree};
    let nim = Nim { players: 2 };
    for (stones, threads) in [(30, 2), (31, 3), (13, 2)] {
        let config = PuctConfig {
            batch_size: 4,
            ..Default::default()
        };
        let t = tree(&nim, config, 1);
        let budget = Budget::iterations(300);
        let shared = SharedTree::start(t, &nim.start(stones), &budget, StopFlag::new()).unwrap();
        let ev = PerLeaf {
            game: &nim,
            f: nim_perfect(2),
        };
        drive_parallel(&mut shared.workers(threads), &ev, || true).unwrap();
        let (r, mut kept) = shared.finish();
        assert_eq!(r.best + 1, stones % 4, "{stones} stones: {r:?}");
        assert_eq!(r.iterations, 300);
        assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 300);
        // No virtual loss is left behind: the kept tree searches on as a fresh one would.
        assert!(kept.tree.nodes.iter().all(|n| n.pending == 0));
        assert_eq!(kept.in_flight, 0);
        let mut forest = Forest::new(vec![kept]).unwrap();
        let mut ev = ev.clone();
        let again = run(
            &mut forest,
            &[nim.start(stones)],
            &budget,
            StopFlag::new(),
            &mut ev,
        );
        assert_eq!(again.unwrap()[0].best + 1, stones % 4);
        kept = forest.trees.pop().unwrap();
        assert!(kept.size() > 1);
    }
}

#[test]
fn threads_sharing_a_tree_value_exact_leaves_outside_the_lock_without_the_evaluator() {
    use crate::search::forest::{drive_parallel, SharedTree};
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Nim positions of at most 6 stones are solved by the game evaluation; the evaluator
    // counts the rows it values, and must never see one of those.
    struct SmallExact;
    impl Evaluate<Nim> for SmallExact {
        fn exact(&self, _g: &Nim, s: &NimState) -> Option<Returns> {
            (s.stones <= 6).then(|| {
                let mut r = [0.0; MAX_PLAYERS];
                r[s.to_move as usize] = if s.stones % 4 != 0 { 1.0 } else { -1.0 };
                r[1 - s.to_move as usize] = -r[s.to_move as usize];
                r
            })
        }
    }
    let nim = Nim { players: 2 };
    let rows = Arc::new(AtomicUsize::new(0));
    let mut perfect = nim_perfect(2);
    let counted = rows.clone();
    let ev = PerLeaf {
        game: &nim,
        f: move |g: &Nim, s: &NimState| {
            assert!(s.stones > 6, "an exact leaf went to the evaluator");
            counted.fetch_add(1, Ordering::Relaxed);
            perfect(g, s)
        },
    };
    for threads in [1, 2, 3] {
        rows.store(0, Ordering::Relaxed);
        let config = PuctConfig {
            batch_size: 4,
            ..Default::default()
        };
        let t = PuctTree::new(Arc::new(nim.clone()), Arc::new(SmallExact), config, 2);
        let budget = Budget::iterations(400);
        let shared = SharedTree::start(t, &nim.start(11), &budget, StopFlag::new()).unwrap();
        drive_parallel(&mut shared.workers(threads), &ev, || true).unwrap();
        let (r, kept) = shared.finish();
        assert_eq!(r.best + 1, 11 % 4, "{threads} threads: {r:?}");
        assert_eq!(r.iterations, 400);
        assert_eq!(r.visits.iter().map(|v| v.1).sum::<u64>(), 400);
        // The root and some leaves were the evaluator's, far from all of them.
        let valued = rows.load(Ordering::Relaxed);
        assert!(
            (2..200).contains(&valued),
            "{threads} threads: {valued} rows"
        );
        assert!(kept.tree.nodes.iter().all(|n| n.pending == 0));
        assert!(kept.tree.nodes.iter().any(|n| n.kind == Kind::Solved));
        assert_eq!(kept.in_flight, 0);
    }
}

#[test]
fn a_forest_split_over_threads_gives_each_tree_its_own_result() {
    use crate::search::forest::drive_parallel;
    let game = TicTacToe;
    let states: Vec<Ttt> = ["X../..../....", "XX./.O./...", "X../.O./..X", ".../.X./..."]
        .iter()
        .map(|t| Ttt::from_str(t))
        .chain([Ttt::default()])
        .collect();
    let ev = PerLeaf {
        game: &game,
        f: noisy,
    };
    let config = PuctConfig {
        batch_size: 3,
        ..Default::default()
    };
    let budget = Budget::iterations(150);
    let forest = |k: usize| {
        let trees = (0..states.len())
            .map(|i| tree(&game, config, i as u64))
            .collect();
        let mut f = Forest::new(trees).unwrap();
        f.start(&states, &budget, StopFlag::new()).unwrap();
        f.split(k)
    };
    let mut one = forest(1);
    drive_parallel(&mut one, &ev, || true).unwrap();
    let want: Vec<_> = one[0]
        .results()
        .into_iter()
        .map(|r| (r.best, r.visits))
        .collect();
    for k in [2, 3, 9] {
        let mut parts = forest(k);
        assert_eq!(parts.len(), k.min(states.len()));
        drive_parallel(&mut parts, &ev, || true).unwrap();
        let got: Vec<_> = parts
            .iter()
            .flat_map(Forest::results)
            .map(|r| (r.best, r.visits))
            .collect();
        assert_eq!(got, want, "{k} parts");
    }
}

#[test]
fn playout_mix_lets_playouts_outvote_a_lying_value_net() {
    // Values that are the opposite of the truth and uniform priors: PUCT believing them picks a
    // losing move; with the leaf value taken from playouts (AlphaGo's lambda) it finds the
    // defence that plain MCTS finds. O must take an edge here.
    let game = TicTacToe;
    let s = Ttt::from_str("X../.O./..X");
    let liar = |g: &TicTacToe, s: &Ttt| {
        let v = -minimax(g, s);
        let mut r = [0.0; MAX_PLAYERS];
        r[0] = v;
        r[1] = -v;
        (vec![0.0; 9], r)
    };
    let edges = |mix: f64, iterations: u64| {
        (0..20)
            .filter(|&seed| {
                let config = PuctConfig {
                    playout_mix: mix,
                    batch_size: 1,
                    ..Default::default()
                };
                let mut ev = PerLeaf {
                    game: &game,
                    f: liar,
                };
                let r = search_one(&game, &s, config, seed, iterations, &mut ev);
                [1, 3, 5, 7].contains(&r.best)
            })
            .count()
    };
    // Measured: 8 and 20 of 20 (at 400 iterations the lie is found out by exact endings too).
    let (lied, mixed) = (edges(0.0, 200), edges(1.0, 200));
    eprintln!("edges out of 20: mix 0 {lied}, mix 1 {mixed}");
    assert!(mixed >= 18, "mix 1: {mixed} of 20");
    assert!(lied <= 12, "mix 0: {lied} of 20");
}

#[test]
fn playout_mix_is_checked_and_zero_changes_nothing() {
    for bad in [-0.1, 1.5, f64::NAN] {
        let config = PuctConfig {
            playout_mix: bad,
            ..Default::default()
        };
        assert!(config.check().is_err(), "{bad}");
    }
    assert_eq!(PuctConfig::default().playout_mix, 0.0);
    // Some mixing changes the leaves' values, so the visits.
    let game = TicTacToe;
    let s = Ttt::from_str("X../.O./...");
    let run_with = |mix: f64| {
        let config = PuctConfig {
            playout_mix: mix,
            ..Default::default()
        };
        let mut ev = PerLeaf {
            game: &game,
            f: noisy,
        };
        search_one(&game, &s, config, 7, 200, &mut ev).visits
    };
    assert_ne!(run_with(0.0), run_with(0.5));
}
