//! Counting and listing the legal moves of random midgame positions of the standard board, the
//! benchmark of README's "Performance" section (where htmf's figures from the same run are):
//! seeded deals, random placements (2 players, 4 penguins, one-fish floes, snake order), then 0
//! to 29 random moves; finished games are skipped.
//!
//! `cargo run --release -p pingvinas-engine --example fish_movegen [POSITIONS] [PASSES]`

use std::hint::black_box;
use std::time::Instant;

use pingvinas_engine::fish::{Board, FishGame, Order, Phase, Placement, Rules};
use pingvinas_engine::rng::Rng;
use pingvinas_engine::{ActionList, Game};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("POSITIONS PASSES"))
        .collect();
    let n = *args.first().unwrap_or(&10_000);
    let passes = *args.get(1).unwrap_or(&100);
    let rules = Rules::new(2, Some(4), Placement::OneFish, Order::Snake).expect("valid rules");
    let mut rng = Rng::new(1);
    let mut positions = Vec::with_capacity(n);
    let mut actions = ActionList::new();
    while positions.len() < n {
        let game = FishGame::new(rules, Board::standard(rng.next_u64()));
        let mut s = game.initial_state();
        while game.phase(&s) == Phase::Placement {
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        for _ in 0..rng.below(30) {
            game.legal_actions(&s, &mut actions);
            if actions.is_empty() {
                break;
            }
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        if game.phase(&s) == Phase::Movement {
            positions.push((game, s));
        }
    }
    let t = Instant::now();
    let mut total = 0;
    for _ in 0..passes {
        for (game, s) in black_box(&positions) {
            total += game.count_moves(s);
        }
    }
    let count_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut listed = 0;
    for _ in 0..passes {
        for (game, s) in black_box(&positions) {
            game.legal_actions(s, &mut actions);
            listed += black_box(&actions).len();
        }
    }
    let list_s = t.elapsed().as_secs_f64();
    assert_eq!(listed, total, "listing and counting agree");
    let moves = total as f64;
    println!(
        "pingvinas: {n} positions, {:.1} moves each; count {:.1} M moves/s ({:.1} ns/position), list {:.1} M moves/s ({:.1} ns/position)",
        moves / (n * passes) as f64,
        moves / count_s / 1e6,
        count_s * 1e9 / (n * passes) as f64,
        moves / list_s / 1e6,
        list_s * 1e9 / (n * passes) as f64,
    );
}
