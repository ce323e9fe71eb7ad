use std::sync::Arc;

use super::*;
use crate::fish::{Board, FishGame, Order, Phase, Placement, Rules};
use crate::game::{Action, ActionList, Game};
use crate::io::GameIo;
use crate::marathon::Marathon;
use crate::rng::Rng;
use crate::search::agent::{Agent, AgentMaker, SearchAgent};
use crate::search::NoEval;
use crate::search::{Budget, Choice, StopFlag};
use crate::Error;

/// Owned output buffers.
struct Bufs {
    obs: Vec<f32>,
    mask: Vec<bool>,
    legal: Vec<i16>,
    count: Vec<i16>,
    to_move: Vec<i32>,
    rewards: Vec<f32>,
    term: Vec<bool>,
    trunc: Vec<bool>,
    ended: Vec<bool>,
    final_obs: Vec<f32>,
    final_returns: Vec<f32>,
}

impl Bufs {
    fn new(d: &Dims) -> Bufs {
        let n = d.num_envs;
        Bufs {
            obs: vec![0.0; n * d.observation],
            mask: vec![false; n * d.num_actions],
            legal: vec![0; n * d.legal_width],
            count: vec![0; n],
            to_move: vec![0; n],
            rewards: vec![0.0; n * d.rewards],
            term: vec![false; n],
            trunc: vec![false; n],
            ended: vec![false; n],
            final_obs: vec![0.0; n * d.observation],
            final_returns: vec![0.0; n * d.players],
        }
    }

    fn out(&mut self) -> Outputs<'_, i16> {
        Outputs {
            observations: &mut self.obs,
            legal_mask: &mut self.mask,
            legal_actions: &mut self.legal,
            legal_count: &mut self.count,
            to_move: &mut self.to_move,
            rewards: &mut self.rewards,
            terminated: &mut self.term,
            truncated: &mut self.trunc,
            ended: &mut self.ended,
            final_observations: &mut self.final_obs,
            final_returns: &mut self.final_returns,
        }
    }

    /// A random legal action per env, from the compact rows.
    fn random_actions(&self, d: &Dims, rng: &mut Rng) -> Vec<i64> {
        (0..d.num_envs)
            .map(|i| {
                let c = self.count[i] as usize;
                self.legal[i * d.legal_width + rng.below(c)] as i64
            })
            .collect()
    }
}

fn fish_source(players: usize) -> Source<FishGame> {
    let rules = Rules::new(players, None, Placement::OneFish, Order::RoundRobin).unwrap();
    Source::Deal(Arc::new(move |seed| Arc::new(FishGame::dealt(rules, seed))))
}

/// Steps `env` with random actions and checks every env against its own state stepped
/// alone, with autoreset from the documented seeds.
fn differential<G: GameIo>(mut env: VectorEnv<G>, source: Source<G>, steps: usize) {
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(5), bufs.out()).unwrap();
    let mut mine: Vec<(Arc<G>, G::State, u64)> = (0..d.num_envs)
        .map(|i| {
            let g = source.game(game_seed(5, i, 0));
            let s = g.initial_state();
            (g, s, 0)
        })
        .collect();
    let mut rng = Rng::new(9);
    let mut ended = 0;
    let mut obs = vec![0.0; d.observation];
    for _ in 0..steps {
        for (i, (g, s, _)) in mine.iter().enumerate() {
            assert_eq!(env.state(i), s);
            assert!(**env.game(i) == **g);
            let p = g.to_move(s).unwrap();
            g.write_observation(s, p, &mut obs);
            assert_eq!(
                &bufs.obs[i * d.observation..(i + 1) * d.observation],
                &obs[..]
            );
            let mut list = ActionList::new();
            g.legal_actions(s, &mut list);
            assert_eq!(bufs.count[i] as usize, list.len());
            for a in 0..d.num_actions {
                assert_eq!(
                    bufs.mask[i * d.num_actions + a],
                    list.contains(&(a as Action))
                );
            }
            assert_eq!(bufs.to_move[i], p as i32);
        }
        let actions = bufs.random_actions(&d, &mut rng);
        env.step(&actions, bufs.out()).unwrap();
        for (i, (g, s, k)) in mine.iter_mut().enumerate() {
            g.apply(s, actions[i] as Action);
            let over = g.is_over(s);
            assert_eq!(bufs.term[i], over);
            assert_eq!(bufs.ended[i], over);
            let r = g.returns(s);
            for (p, &v) in r.iter().enumerate().take(d.players) {
                let want = if over { v as f32 } else { 0.0 };
                assert_eq!(bufs.rewards[i * d.players + p], want);
                assert_eq!(bufs.final_returns[i * d.players + p], want);
            }
            if over {
                ended += 1;
                g.write_observation(s, 0, &mut obs);
                assert_eq!(
                    &bufs.final_obs[i * d.observation..(i + 1) * d.observation],
                    &obs[..]
                );
                *k += 1;
                *g = source.game(game_seed(5, i, *k));
                *s = g.initial_state();
            } else {
                assert!(bufs.final_obs[i * d.observation..(i + 1) * d.observation]
                    .iter()
                    .all(|&x| x == 0.0));
            }
        }
    }
    assert!(ended > 0, "no game ended in {steps} steps");
}

#[test]
fn fish_envs_agree_with_games_stepped_alone() {
    for players in [2, 3, 4] {
        for threads in [1, 2] {
            let options = Options {
                threads,
                ..Options::default()
            };
            // Enough envs to use the pool.
            let n = 70 * threads;
            let env = VectorEnv::new(fish_source(players), n, 1, options).unwrap();
            differential(env, fish_source(players), 100);
        }
    }
}

#[test]
fn marathon_envs_agree_with_games_stepped_alone() {
    for players in [2, 3] {
        let game = Arc::new(Marathon::standard().with_players(players).unwrap());
        let game = Arc::new(game.with_ply_limit(40).unwrap());
        let env = VectorEnv::new(Source::Fixed(game.clone()), 5, 1, Options::default());
        differential(env.unwrap(), Source::Fixed(game), 100);
    }
}

/// Runs `steps` random steps and returns a digest of everything written at each step.
fn trace(threads: usize, seed: u64, steps: usize) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let options = Options {
        threads,
        ..Options::default()
    };
    // Enough envs that a step is shared out whatever it costs.
    let mut env = VectorEnv::new(fish_source(3), 1031, 0, options).unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(seed), bufs.out()).unwrap();
    let mut rng = Rng::new(seed);
    (0..steps)
        .map(|_| {
            let actions = bufs.random_actions(&d, &mut rng);
            env.step(&actions, bufs.out()).unwrap();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            (
                bits(&bufs.obs),
                &bufs.mask,
                bits(&bufs.rewards),
                &bufs.legal,
            )
                .hash(&mut h);
            (
                bits(&bufs.final_obs),
                &bufs.term,
                &bufs.count,
                &bufs.to_move,
            )
                .hash(&mut h);
            h.finish()
        })
        .collect()
}

#[test]
fn threads_do_not_change_results_and_seeds_reproduce() {
    let one = trace(1, 3, 80);
    assert_eq!(one, trace(2, 3, 80));
    assert_eq!(one, trace(0, 3, 80));
    assert_ne!(one, trace(1, 4, 80));
}

#[test]
fn an_illegal_action_changes_no_env() {
    let mut env = VectorEnv::new(fish_source(2), 4, 0, Options::default()).unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(0), bufs.out()).unwrap();
    let before: Vec<_> = (0..4).map(|i| *env.state(i)).collect();
    let snapshot = bufs.obs.clone();
    let mut actions: Vec<i64> = (0..4)
        .map(|i| bufs.legal[i * d.legal_width] as i64)
        .collect();
    // A one-fish floe is a legal placement; a slide is not, during placement.
    actions[2] = (d.num_actions - 1) as i64;
    let err = env.step(&actions, bufs.out()).unwrap_err();
    assert!(err.to_string().starts_with("env 2: action"), "{err}");
    actions[2] = d.num_actions as i64;
    let err = env.step(&actions, bufs.out()).unwrap_err();
    assert!(matches!(err, Error::Parse(_)), "{err}");
    actions[2] = -1;
    assert!(env.step(&actions, bufs.out()).is_err());
    let cells = d.observation_shape[1] * d.observation_shape[2];
    let taken = (0..cells).find(|&c| bufs.mask[c]).unwrap() as i64;
    actions[2] = bufs.legal[2 * d.legal_width] as i64;
    actions[3] = taken;
    // Legal in env 0 only, unless env 3's board happens to have it too.
    if !bufs.mask[3 * d.num_actions + taken as usize] {
        let err = env.step(&actions, bufs.out()).unwrap_err();
        assert!(matches!(err, Error::IllegalMove(_)), "{err}");
        assert!(err.to_string().starts_with("env 3: action"), "{err}");
    }
    assert_eq!(before, (0..4).map(|i| *env.state(i)).collect::<Vec<_>>());
    assert_eq!(snapshot, bufs.obs);
}

#[test]
fn checks_shared_out_name_the_first_illegal_env() {
    let n = 2_000;
    let options = Options {
        threads: 2,
        ..Options::default()
    };
    let mut env = VectorEnv::new(fish_source(2), n, 0, options).unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(0), bufs.out()).unwrap();
    let mut actions: Vec<i64> = (0..n)
        .map(|i| bufs.legal[i * d.legal_width] as i64)
        .collect();
    // Slides are illegal during placement; the later one may be checked first.
    actions[1_900] = (d.num_actions - 1) as i64;
    actions[1_500] = (d.num_actions - 1) as i64;
    for _ in 0..5 {
        let err = env.step(&actions, bufs.out()).unwrap_err();
        assert!(err.to_string().starts_with("env 1500: action"), "{err}");
    }
    assert_eq!(env.state(0), &env.game(0).initial_state());
}

#[test]
fn single_agent_steps_are_learner_decisions() {
    let options = Options {
        opponent: Some(SearchAgent::<FishGame, NoEval>::maker(
            Choice::Random,
            Budget::iterations(1),
            |_| Arc::new(NoEval),
        )),
        learner: Learner::Seat(1),
        ..Options::default()
    };
    let mut env = VectorEnv::new(fish_source(3), 6, 2, options).unwrap();
    let d = *env.dims();
    assert_eq!(d.rewards, 1);
    let mut bufs = Bufs::new(&d);
    env.reset(Some(2), bufs.out()).unwrap();
    let mut rng = Rng::new(1);
    let mut ended = 0;
    for _ in 0..200 {
        for i in 0..6 {
            assert_eq!(env.game(i).to_move(env.state(i)), Some(1));
            assert_eq!(bufs.to_move[i], 1);
        }
        let actions = bufs.random_actions(&d, &mut rng);
        env.step(&actions, bufs.out()).unwrap();
        for i in 0..6 {
            if bufs.term[i] {
                ended += 1;
                assert_eq!(bufs.rewards[i], bufs.final_returns[i * 3 + 1]);
            } else {
                assert_eq!(bufs.rewards[i], 0.0);
            }
        }
    }
    assert!(ended > 0);
}

#[test]
fn a_stopped_step_changes_nothing_and_replays_the_same() {
    let options = || Options {
        opponent: Some(SearchAgent::<FishGame, NoEval>::maker(
            Choice::Random,
            Budget::iterations(1),
            |_| Arc::new(NoEval),
        )),
        learner: Learner::Seat(0),
        ..Options::default()
    };
    let mut env = VectorEnv::new(fish_source(2), 5, 4, options()).unwrap();
    let mut twin = VectorEnv::new(fish_source(2), 5, 4, options()).unwrap();
    let d = *env.dims();
    let (mut bufs, mut twin_bufs) = (Bufs::new(&d), Bufs::new(&d));
    env.reset(Some(4), bufs.out()).unwrap();
    twin.reset(Some(4), twin_bufs.out()).unwrap();
    let mut rng = Rng::new(3);
    for _ in 0..40 {
        let actions = bufs.random_actions(&d, &mut rng);
        let states: Vec<_> = (0..5).map(|i| *env.state(i)).collect();
        let obs = bufs.obs.clone();
        let stop = StopFlag::new();
        stop.stop();
        let err = env.step_or_stop(&actions, bufs.out(), &stop).unwrap_err();
        assert!(matches!(err, Error::Interrupted(_)), "{err}");
        assert_eq!(states, (0..5).map(|i| *env.state(i)).collect::<Vec<_>>());
        assert_eq!(obs, bufs.obs);
        // Played again, the step is the one an env that was never stopped plays.
        let stop = StopFlag::new();
        env.step_or_stop(&actions, bufs.out(), &stop).unwrap();
        assert!(
            !stop.stop_unless_committed(),
            "a step that took effect is committed"
        );
        twin.step(&actions, twin_bufs.out()).unwrap();
        assert_eq!(bufs.obs, twin_bufs.obs);
        assert_eq!(bufs.rewards, twin_bufs.rewards);
        assert_eq!(bufs.term, twin_bufs.term);
    }
}

/// An opponent that cannot move in one position out of `every` (by the position's hash and
/// its seed), and plays the first legal action elsewhere.
struct Failing {
    every: u64,
    seed: u64,
}

impl Agent<FishGame> for Failing {
    fn act(
        &mut self,
        game: &FishGame,
        state: &crate::fish::FishState,
        _stop: &StopFlag,
    ) -> crate::Result<Option<Action>> {
        if crate::rng::splitmix64(game.hash(state) ^ self.seed) % self.every == 0 {
            return Err(Error::Invalid("no move here".into()));
        }
        let mut list = ActionList::new();
        game.legal_actions(state, &mut list);
        Ok(Some(list[0]))
    }
}

fn failing(every: u64) -> AgentMaker<FishGame> {
    Arc::new(move |_, seed| Box::new(Failing { every, seed }) as Box<dyn Agent<FishGame>>)
}

#[test]
fn an_opponent_that_cannot_move_fails_the_call_and_changes_no_env() {
    // The learner moves first: the env starts, and the first step fails in every env.
    let options = Options {
        opponent: Some(failing(1)),
        ..Options::default()
    };
    let mut env = VectorEnv::new(fish_source(2), 3, 1, options).unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(1), bufs.out()).unwrap();
    let states: Vec<_> = (0..3).map(|i| *env.state(i)).collect();
    let (obs, mask) = (bufs.obs.clone(), bufs.mask.clone());
    let actions = bufs.random_actions(&d, &mut Rng::new(1));
    let err = env.step(&actions, bufs.out()).unwrap_err();
    assert!(matches!(err, Error::Invalid(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "env 0: the opponent cannot move (no move here); no env changed"
    );
    assert_eq!(states, (0..3).map(|i| *env.state(i)).collect::<Vec<_>>());
    assert_eq!((obs, mask), (bufs.obs.clone(), bufs.mask.clone()));
    // Seated first, it fails the env's start.
    let options = Options {
        opponent: Some(failing(1)),
        learner: Learner::Seat(1),
        ..Options::default()
    };
    let err = VectorEnv::new(fish_source(2), 3, 1, options).err().unwrap();
    assert!(err
        .to_string()
        .starts_with("env 0: the opponent cannot move"));
}

#[test]
fn a_step_or_reset_where_some_opponents_cannot_move_changes_no_env() {
    let options = Options {
        opponent: Some(failing(5)),
        learner: Learner::Random,
        ..Options::default()
    };
    let n = 12;
    // A seed whose first games all start (each opponent seated first can move).
    let mut env = (0..100)
        .find_map(|seed| VectorEnv::new(fish_source(2), n, seed, options.clone()).ok())
        .unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.observe(bufs.out()).unwrap();
    let mut rng = Rng::new(7);
    let (mut failed, mut stepped, mut refused) = (0, 0, 0);
    while failed == 0 || stepped == 0 || refused == 0 {
        let states: Vec<_> = (0..n).map(|i| (*env.state(i), env.game_index(i))).collect();
        let obs = bufs.obs.clone();
        let seed = env.seed();
        let unchanged = |env: &VectorEnv<FishGame>, bufs: &Bufs| {
            assert_eq!(
                states,
                (0..n)
                    .map(|i| (*env.state(i), env.game_index(i)))
                    .collect::<Vec<_>>()
            );
            assert_eq!((obs.clone(), seed), (bufs.obs.clone(), env.seed()));
        };
        if rng.below(4) == 0 {
            // A reset to a new stream, refused when an opponent seated first is stuck.
            match env.reset(Some(rng.next_u64()), bufs.out()) {
                Ok(()) => stepped += 1,
                Err(e) => {
                    assert!(e.to_string().contains("the opponent cannot move"), "{e}");
                    unchanged(&env, &bufs);
                    refused += 1;
                }
            }
            continue;
        }
        let actions = bufs.random_actions(&d, &mut rng);
        match env.step(&actions, bufs.out()) {
            Ok(()) => stepped += 1,
            Err(e) => {
                assert!(e.to_string().contains("the opponent cannot move"), "{e}");
                unchanged(&env, &bufs);
                failed += 1;
                // The same actions fail again: nothing moved.
                assert!(env.step(&actions, bufs.out()).is_err());
                unchanged(&env, &bufs);
                // Move on from positions where an opponent is stuck.
                while env.reset(Some(rng.next_u64()), bufs.out()).is_err() {}
            }
        }
        assert!(failed + stepped + refused < 2000);
    }
}

#[test]
fn score_rewards_add_up_to_the_fish_lead() {
    let options = Options {
        reward: Reward::Score,
        ..Options::default()
    };
    let mut env = VectorEnv::new(fish_source(3), 3, 0, options).unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(0), bufs.out()).unwrap();
    let mut sums = [0.0f64; 3 * 3];
    let mut rng = Rng::new(4);
    let mut checked = 0;
    while checked < 5 {
        let actions = bufs.random_actions(&d, &mut rng);
        let states: Vec<_> = (0..3)
            .map(|i| (env.game(i).clone(), *env.state(i)))
            .collect();
        env.step(&actions, bufs.out()).unwrap();
        for i in 0..3 {
            let row = &bufs.rewards[i * 3..i * 3 + 3];
            assert!(row.iter().sum::<f32>().abs() < 1e-4);
            for p in 0..3 {
                sums[i * 3 + p] += row[p] as f64;
            }
            if bufs.term[i] {
                let (g, mut s) = states[i].clone();
                g.apply(&mut s, actions[i] as Action);
                let fish: Vec<f64> = (0..3).map(|p| s.score(p).0 as f64).collect();
                for p in 0..3 {
                    let others = (fish.iter().sum::<f64>() - fish[p]) / 2.0;
                    assert!((sums[i * 3 + p] - (fish[p] - others)).abs() < 1e-3);
                    sums[i * 3 + p] = 0.0;
                }
                checked += 1;
            }
        }
    }
    let marathon = Source::Fixed(Arc::new(Marathon::standard()));
    let options = Options {
        reward: Reward::Score,
        ..Options::default()
    };
    assert!(VectorEnv::new(marathon, 1, 0, options).is_err());
}

#[test]
fn legal_width_bounds_every_position() {
    let mut env = VectorEnv::new(fish_source(2), 16, 0, Options::default()).unwrap();
    let d = *env.dims();
    assert_eq!(d.legal_width, 168);
    let mut bufs = Bufs::new(&d);
    env.reset(Some(1), bufs.out()).unwrap();
    let mut rng = Rng::new(2);
    let mut most = 0;
    for _ in 0..300 {
        let actions = bufs.random_actions(&d, &mut rng);
        env.step(&actions, bufs.out()).unwrap();
        most = most.max(bufs.count.iter().copied().max().unwrap());
    }
    assert!(most as usize <= d.legal_width);
    let m = Marathon::standard();
    assert!(m.max_legal_actions(&m.new_state()) < m.num_actions());
    let mut s = m.new_state();
    let mut rng = Rng::new(3);
    let mut list = ActionList::new();
    for _ in 0..20_000 {
        if m.is_over(&s) {
            s = m.new_state();
        }
        m.legal_actions(&s, &mut list);
        assert!(list.len() <= m.max_legal_actions(&s));
        m.apply(&mut s, list[rng.below(list.len())]);
    }
}

#[test]
fn set_state_loads_a_position_and_checks_it() {
    let mut env = VectorEnv::new(fish_source(2), 3, 0, Options::default()).unwrap();
    let d = *env.dims();
    let mut bufs = Bufs::new(&d);
    env.reset(Some(0), bufs.out()).unwrap();
    let game = env.game(0).clone();
    let mut s = *env.state(0);
    let mut list = ActionList::new();
    game.legal_actions(&s, &mut list);
    game.apply(&mut s, list[0]);
    env.set_state(1, game.clone(), s, bufs.out()).unwrap();
    assert_eq!(env.state(1), &s);
    let mut obs = vec![0.0; d.observation];
    game.write_observation(&s, 1, &mut obs);
    assert_eq!(&bufs.obs[d.observation..2 * d.observation], &obs[..]);
    assert_eq!(bufs.to_move[1], 1);
    let three = Rules::new(3, None, Placement::OneFish, Order::RoundRobin).unwrap();
    let other = Arc::new(FishGame::new(three, Board::standard(0)));
    assert!(env
        .set_state(0, other.clone(), other.initial_state(), bufs.out())
        .is_err());
    assert!(env.set_state(3, game.clone(), s, bufs.out()).is_err());
}

/// The Fish observation as first written (clear everything, then set), to check that the
/// faster writer gives the same planes.
fn fish_observation_reference(
    game: &FishGame,
    s: &crate::fish::FishState,
    viewer: usize,
) -> Vec<f32> {
    let n = game.num_players();
    let board = game.board();
    let cols = board.cols();
    let area = board.rows() * cols;
    let mut out = vec![0.0; game.observation_len()];
    let at = |cell| {
        let (r, c) = board.coords(cell);
        r * cols + c
    };
    for cell in s.floes() {
        let plane = (board.fish(cell) as usize).clamp(1, 3) - 1;
        out[plane * area + at(cell)] = 1.0;
    }
    let all_fish = board.fish_on(board.floes()).max(1) as f32;
    let all_floes = board.floes().count().max(1) as f32;
    let per_player = game.rules().penguins.max(1) as f32;
    let still_to_place = |p: usize| {
        if game.phase(s) != Phase::Placement {
            return 0;
        }
        let placed = (0..s.turn())
            .filter(|&t| game.rules().placer(t) == p)
            .count();
        (game.rules().penguins as usize).saturating_sub(placed)
    };
    let mut constant = |plane: usize, value: f32| {
        if value != 0.0 {
            out[plane * area..(plane + 1) * area].fill(value);
        }
    };
    for seat in 0..n {
        let p = (viewer + seat) % n;
        let (fish, floes) = s.score(p);
        constant(3 + n + seat, fish as f32 / all_fish);
        constant(3 + 2 * n + seat, floes as f32 / all_floes);
        constant(3 + 3 * n + seat, still_to_place(p) as f32 / per_player);
        constant(3 + 4 * n + seat, (s.to_move() == Some(p)) as u8 as f32);
    }
    constant(3 + 5 * n, (game.phase(s) == Phase::Placement) as u8 as f32);
    for seat in 0..n {
        for cell in s.penguins((viewer + seat) % n) {
            out[(3 + seat) * area + at(cell)] = 1.0;
        }
    }
    out
}

/// The Marathon observation as first written.
fn marathon_observation_reference(
    game: &Marathon,
    s: &crate::marathon::State,
    viewer: usize,
) -> Vec<f32> {
    use crate::marathon::{Kind, Place};
    let n = game.players();
    let course = game.course();
    let cols = course.size().1;
    let area = course.size().0 * cols;
    let mut out = vec![0.0; game.observation_len()];
    let at = |(r, c): (i32, i32)| r as usize * cols + c as usize;
    for &cell in course.coords() {
        out[at(cell)] = 1.0;
    }
    let facing_planes = 1 + 3 * n;
    let status_planes = facing_planes + 9;
    let mut constant = |plane: usize, value: f32| {
        out[plane * area..(plane + 1) * area].fill(value);
    };
    for seat in 0..n {
        let p = (viewer + seat) % n;
        for kind in Kind::ALL {
            let i = 3 * seat + kind as usize;
            match game.place(s, p, kind) {
                Place::Waiting => constant(status_planes + 2 * i, 1.0),
                Place::Finished => constant(status_planes + 2 * i + 1, 1.0),
                Place::OnCourse { .. } => {}
            }
        }
        if s.to_move() == Some(p) {
            constant(11 + 9 * n + seat, 1.0);
        }
    }
    let ply = s.ply() as f32 / game.ply_limit().max(1) as f32;
    if ply != 0.0 {
        constant(10 + 9 * n, ply);
    }
    for seat in 0..n {
        let p = (viewer + seat) % n;
        for kind in Kind::ALL {
            if let Place::OnCourse { cell, facing } = game.place(s, p, kind) {
                let i = 3 * seat + kind as usize;
                out[(1 + i) * area + at(cell)] = 1.0;
                let f = facing.map_or(8, |d| d.index());
                out[(facing_planes + f) * area + at(cell)] = 1.0;
            }
        }
    }
    out
}

/// Random games of `game`: every position from every player's view, written over garbage.
fn check_observations<G: GameIo>(
    game: &G,
    reference: impl Fn(&G, &G::State, usize) -> Vec<f32>,
    games: usize,
) {
    let mut rng = Rng::new(8);
    let mut out = vec![0.0; game.observation_len()];
    let mut list = ActionList::new();
    for _ in 0..games {
        let mut s = game.initial_state();
        loop {
            for viewer in 0..game.num_players() {
                out.fill(f32::NAN);
                game.write_observation(&s, viewer, &mut out);
                assert_eq!(out, reference(game, &s, viewer));
            }
            if game.is_over(&s) {
                break;
            }
            game.legal_actions(&s, &mut list);
            game.apply(&mut s, list[rng.below(list.len())]);
        }
    }
}

#[test]
fn observation_writers_match_their_reference() {
    for players in [2, 3, 4] {
        for (seed, placement) in [(1, Placement::OneFish), (2, Placement::Any)] {
            let rules = Rules::new(players, None, placement, Order::Snake).unwrap();
            let game: FishGame = FishGame::new(rules, Board::standard(seed));
            check_observations(&game, fish_observation_reference, 3);
        }
    }
    let grid = vec![
        vec![1, 2, 3, 0, 1],
        vec![0, 1, 1, 2, 3],
        vec![3, 3, 1, 1, 0],
    ];
    let rules = Rules::new(2, Some(2), Placement::Any, Order::RoundRobin).unwrap();
    let game: FishGame = FishGame::new(rules, Board::from_grid(&grid).unwrap());
    check_observations(&game, fish_observation_reference, 5);
    for players in [2, 3, 5] {
        for name in crate::marathon::bundled_names() {
            let game = Marathon::variant(name)
                .unwrap()
                .with_players(players)
                .unwrap();
            let game = game.with_ply_limit(120).unwrap();
            check_observations(&game, marathon_observation_reference, 2);
        }
    }
}
