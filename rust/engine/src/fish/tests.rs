//! Engine-level tests of the Fish game flow; the rules are checked in depth against the Python
//! reference model in `tests/`.

use super::*;
use crate::game::{ActionList, Game};
use crate::rng::Rng;

/// A random game on the word `W`: the standard board (on `u64`), or a random board as large as
/// the word holds, often long and thin.
fn random_game<W: Word>(rng: &mut Rng) -> FishGame<W> {
    let players = 2 + rng.below(3);
    if rng.below(3) == 0 {
        return FishGame::new(
            Rules::standard(players).unwrap(),
            Board::from_grid(&Board::standard(rng.next_u64()).grid()).unwrap(),
        );
    }
    let cells = W::BITS.min(MAX_CELLS);
    let (rows, cols) = match rng.below(4) {
        0 => (1 + rng.below(2), (cells / 2).min(board::MAX_SIDE)),
        1 => ((cells / 2).min(board::MAX_SIDE), 1 + rng.below(2)),
        _ => {
            let rows = 1 + rng.below(cells.isqrt() * 2);
            (rows, 1 + rng.below((cells / rows).min(board::MAX_SIDE)))
        }
    };
    let grid: Vec<Vec<u8>> = (0..rows)
        .map(|_| {
            (0..cols)
                .map(|_| {
                    if rng.below(4) == 0 {
                        0
                    } else {
                        1 + rng.below(4) as u8
                    }
                })
                .collect()
        })
        .collect();
    let placement = if rng.below(2) == 0 {
        Placement::Any
    } else {
        Placement::OneFish
    };
    let order = if rng.below(2) == 0 {
        Order::Snake
    } else {
        Order::RoundRobin
    };
    let rules = Rules::new(players, Some(1 + rng.below(4)), placement, order).unwrap();
    FishGame::new(rules, Board::from_grid(&grid).unwrap())
}

/// Plays random games, calling `check` on every state reached.
fn for_random_states<W: Word>(
    games: usize,
    seed: u64,
    mut check: impl FnMut(&FishGame<W>, &FishState<W>),
) {
    let mut rng = Rng::new(seed);
    let mut actions = ActionList::new();
    for _ in 0..games {
        let game = random_game::<W>(&mut rng);
        let mut s = game.initial_state();
        loop {
            check(&game, &s);
            game.legal_actions(&s, &mut actions);
            if actions.is_empty() {
                break;
            }
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
    }
}

/// Defines a test that runs the generic function `$check::<W>(n)` on every word, `$n` games
/// each (a tenth of them on the widest).
macro_rules! test_every_word {
    ($name:ident, $check:ident, $n:expr) => {
        #[test]
        fn $name() {
            $check::<u64>($n);
            $check::<u128>($n);
            $check::<W1024>(($n / 10).max(3));
        }
    };
}

#[test]
fn state_is_small_and_copy() {
    // The standard board's state: what search copies at every node.
    assert_eq!(std::mem::size_of::<FishState>(), 72);
    assert!(std::mem::size_of::<FishState<u128>>() <= 112);
}

test_every_word!(hash_is_incremental, hash_check, 300);

fn hash_check<W: Word>(n: usize) {
    for_random_states::<W>(n, 1, |game, s| {
        assert_eq!(s.hash, game.hash_from_scratch(s))
    });
}

test_every_word!(actions_and_moves_are_a_bijection, bijection, 300);

fn bijection<W: Word>(n: usize) {
    for_random_states::<W>(n, 2, |game, s| {
        let mut actions = ActionList::new();
        game.legal_actions(s, &mut actions);
        assert!(actions.windows(2).all(|w| w[0] < w[1]), "ascending");
        assert_eq!(actions.len(), game.count_moves(s));
        assert_eq!(actions.is_empty(), s.is_over());
        for &a in &actions {
            assert!((a as usize) < game.num_actions());
            let mv = game.move_of(a).unwrap();
            assert_eq!(game.action_of(mv), Some(a));
            assert_eq!(game.illegal_reason(s, mv), None, "{mv:?}");
            let text = notation::move_name(game.board(), mv);
            assert_eq!(notation::parse_move(game.board(), &text).unwrap(), mv);
        }
    });
}

#[test]
fn every_action_decodes_or_is_rejected_cleanly() {
    let game = FishGame::new(Rules::standard(2).unwrap(), Board::standard(5));
    for a in 0..game.num_actions() as u32 + 10 {
        if let Some(mv) = game.move_of(a) {
            assert_eq!(game.action_of(mv), Some(a));
        }
    }
}

test_every_word!(invariants_hold_after_every_ply, invariants, 300);

fn invariants<W: Word>(n: usize) {
    for_random_states::<W>(n, 3, |game, s| {
        if let Some(p) = s.to_move() {
            if game.phase(s) == Phase::Movement {
                assert!(game.can_move(s, p), "the player to move always has a move");
                let mut pruned = *s;
                game.remove_unreachable(&mut pruned);
                assert_eq!(pruned.floes, s.floes, "unreachable floes are gone");
            }
        } else {
            assert!(s.occupied().is_empty());
        }
        assert!(s.occupied().is_subset(s.floes));
    });
}

test_every_word!(json_round_trips, json_round_trip, 100);

fn json_round_trip<W: Word>(n: usize) {
    for_random_states::<W>(n, 4, |game, s| {
        let text = json::to_json(game, s);
        let (game2, s2) = json::from_json::<W>(&text).unwrap();
        assert_eq!(&game2, game);
        assert_eq!(&s2, s);
    });
}

test_every_word!(
    skipping_floe_removal_changes_no_move_and_no_score,
    lazy_removal,
    300
);

fn lazy_removal<W: Word>(n: usize) {
    // The claim behind playouts that skip the unreachable-floe rule: played side by side with
    // the full rules, the same moves leave the same legal moves, penguins and scores.
    let mut rng = Rng::new(5);
    let (mut full_actions, mut lazy_actions) = (ActionList::new(), ActionList::new());
    for _ in 0..n {
        let game = random_game::<W>(&mut rng);
        let mut full = game.initial_state();
        let mut lazy = full;
        loop {
            game.legal_actions(&full, &mut full_actions);
            game.legal_actions(&lazy, &mut lazy_actions);
            assert_eq!(full_actions, lazy_actions);
            assert_eq!(
                (full.penguins, full.fish, full.taken, full.to_move),
                (lazy.penguins, lazy.fish, lazy.taken, lazy.to_move)
            );
            assert!(full.floes.is_subset(lazy.floes));
            if full_actions.is_empty() {
                break;
            }
            let action = full_actions[rng.below(full_actions.len())];
            game.apply(&mut full, action);
            match game.move_of(action).unwrap() {
                FishMove::Place(cell) => game.place(&mut lazy, cell),
                FishMove::Slide(from, to) => game.slide(&mut lazy, from, to, false),
            }
        }
    }
}

test_every_word!(
    random_playouts_end_with_every_fish_accounted_for,
    playouts_account,
    300
);

fn playouts_account<W: Word>(n: usize) {
    let mut rng = Rng::new(6);
    for i in 0..n as u64 {
        let game = random_game::<W>(&mut rng);
        for policy in [Policy::Uniform, Policy::Fast] {
            let mut s = game.initial_state();
            game.random_playout_with(&mut s, &mut Rng::new(i), policy);
            assert!(s.is_over() && s.occupied().is_empty());
            let total: u32 = (0..game.rules().players()).map(|p| s.fish[p] as u32).sum();
            assert!(total <= game.board().fish_on(game.board().floes()));
        }
    }
}

#[test]
fn a_stuck_player_lifts_and_the_other_plays_on() {
    // Player 1's penguin at (0, 0) is walled in by gaps; player 0 still has room.
    let grid = vec![vec![2, 0, 1, 1, 1], vec![0, 0, 1, 1, 1]];
    let game: FishGame = FishGame::new(
        Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap(),
        Board::from_grid(&grid).unwrap(),
    );
    let s = game
        .position(&[vec![(0, 2)], vec![(0, 0)]], 1, None)
        .unwrap();
    assert_eq!(
        s.to_move(),
        Some(0),
        "player 1 could not move and was skipped"
    );
    assert_eq!(
        s.score(1),
        (2, 1),
        "player 1 kept the floe under the penguin"
    );
    assert!(s.penguins[1].is_empty());
}

/// Random bytes and mutated valid inputs never panic the parsers (a fuzz test that runs in
/// `cargo test`; the Python side has hypothesis fuzz tests over the same entry points).
#[test]
fn parsers_never_panic_on_garbage() {
    let mut rng = Rng::new(9);
    let game = FishGame::new(Rules::standard(3).unwrap(), Board::standard(1));
    let mut s = game.initial_state();
    game.random_playout(&mut s, &mut Rng::new(1));
    let seeds = [
        json::to_json(&game, &game.initial_state()),
        json::to_json(&game, &s),
        "game = \"fish\"\nplayers = 3\nboard = [[1, 2], [0, 3]]\n".to_string(),
        "a1-c3".to_string(),
    ];
    for _ in 0..20_000 {
        let mut bytes = seeds[rng.below(seeds.len())].clone().into_bytes();
        for _ in 0..1 + rng.below(4) {
            match rng.below(3) {
                0 if !bytes.is_empty() => {
                    let i = rng.below(bytes.len());
                    bytes[i] = rng.below(256) as u8;
                }
                1 if !bytes.is_empty() => {
                    let i = rng.below(bytes.len());
                    bytes.truncate(i);
                }
                _ => bytes.push(b"0123456789[]{},:\"-a9 "[rng.below(21)]),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let _ = json::from_json::<u64>(&text);
        let _ = <AnyFish as crate::io::GameIo>::from_json(&text);
        let _ = Config::from_toml(&text).and_then(|c| c.rules());
        let _ = notation::parse_move(game.board(), &text);
    }
}
