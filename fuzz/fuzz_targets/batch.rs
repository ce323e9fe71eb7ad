//! Batch playouts with random arguments (n, threads, seed, policy, start): a clean error for
//! arguments out of range, else results that do not depend on the number of threads.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::fish::playout::{random_playouts as fish_playouts, Start};
use pingvinas_engine::fish::{Board, FishGame, Policy, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::marathon::playout::random_playouts as marathon_playouts;
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::StopFlag;
use pingvinas_engine::Error;

fuzz_target!(|data: &[u8]| {
    let byte = |i: usize| data.get(i).copied().unwrap_or(0) as usize;
    let n = (byte(0) << 8 | byte(1)) % 160;
    // Mostly 0..=3 threads; sometimes a count beyond the limit.
    let threads = match byte(2) {
        250 => 257,
        251 => usize::MAX,
        t => t % 4,
    };
    let seed = (byte(3) << 8 | byte(4)) as u64;
    let stop = StopFlag::new();
    let mut rng = Rng::new(seed);
    if byte(5) % 2 == 0 {
        let policy = if byte(6) % 2 == 0 {
            Policy::Uniform
        } else {
            Policy::Fast
        };
        let Ok(rules) = Rules::standard(2 + byte(7) % 3) else {
            return;
        };
        let game = FishGame::new(rules, Board::standard(seed));
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        for _ in 0..byte(8) % 40 {
            if game.is_over(&s) {
                break;
            }
            actions.clear();
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let start = match byte(9) % 3 {
            0 => Start::Standard(rules),
            1 => Start::Opening(&game),
            _ => Start::Position(&game, s),
        };
        let r = fish_playouts(&start, n, seed, threads, policy, &stop);
        fine(&r, threads);
        if let Ok(scores) = r {
            assert_eq!(scores.len(), n);
            let one = fish_playouts(&start, n, seed, 1, policy, &stop).unwrap();
            assert_eq!(scores, one, "results depend on the thread count");
        }
    } else {
        let names = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"];
        let game = Marathon::variant(names[byte(6) % 4])
            .and_then(|g| g.with_players(2 + byte(7) % 4))
            .expect("bundled variants build");
        let mut s = game.new_state();
        let mut actions = ActionList::new();
        for _ in 0..byte(8) % 60 {
            if game.is_over(&s) {
                break;
            }
            actions.clear();
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let start = (byte(9) % 2 == 0).then_some(&s);
        let r = marathon_playouts(&game, start, n, seed, threads, &stop);
        fine(&r, threads);
        if let Ok(out) = r {
            assert_eq!((out.winners.len(), out.plies.len()), (n, n));
            let one = marathon_playouts(&game, start, n, seed, 1, &stop).unwrap();
            assert_eq!(out, one, "results depend on the thread count");
        }
    }
});

/// A batch fails only for a thread count beyond the limit, and then cleanly.
fn fine<T>(r: &Result<T, Error>, threads: usize) {
    match r {
        Ok(_) => assert!(threads <= 256),
        Err(Error::Invalid(m)) => assert!(threads > 256, "{m}"),
        Err(e) => panic!("{e:?}"),
    }
}
