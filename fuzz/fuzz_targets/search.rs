//! Search on a random position with a tiny budget, both games, every algorithm and many
//! settings: a budget the algorithm refuses gives `Error::Invalid`, anything else a legal move,
//! and a second search with the same searcher (tree and table reuse) a legal move too.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::fish::eval::{FishEval, FishEvalConfig};
use pingvinas_engine::fish::{Board, FishGame, Order, Placement, Rules};
use pingvinas_engine::game::{ActionList, Game};
use pingvinas_engine::marathon::eval::{MarathonEval, MarathonEvalConfig};
use pingvinas_engine::marathon::Marathon;
use pingvinas_engine::rng::Rng;
use pingvinas_engine::search::alphabeta::AlphaBetaConfig;
use pingvinas_engine::search::mcts::{Leaf, MctsConfig, Selection};
use pingvinas_engine::search::{Budget, Choice, Evaluate, Searcher, StopFlag};
use pingvinas_engine::Error;

/// Reads the fuzz input as numbers, zeros once it runs out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        self.u8() as usize % n
    }
    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |x, _| x << 8 | self.u8() as u64)
    }
}

fn budget(input: &mut Input) -> Budget {
    let mut b = Budget::default();
    let kinds = input.u8();
    if kinds & 1 != 0 {
        b.iterations = Some(1 + input.below(60) as u64);
    }
    if kinds & 2 != 0 {
        b.nodes = Some(1 + input.below(250) as u64);
    }
    if kinds & 4 != 0 {
        b.depth = Some(1 + input.below(3) as u32);
    }
    b
}

fn refused(choice: Choice, b: &Budget) -> bool {
    match choice {
        Choice::Mcts | Choice::Greedy | Choice::Random => {
            b.iterations.is_none() && b.nodes.is_none() && b.time.is_none()
        }
        Choice::AlphaBeta => b.nodes.is_none() && b.depth.is_none() && b.time.is_none(),
        // Not drawn below: perfect play needs a board small enough to solve.
        Choice::Solve => false,
    }
}

/// Two searches from `s` (then from a position after one more random move).
fn check<G: Game, E: Evaluate<G>>(
    game: &G,
    eval: &E,
    mut s: G::State,
    input: &mut Input,
    rng: &mut Rng,
) where
    G::State: PartialEq + Send,
{
    let choice = [
        Choice::Mcts,
        Choice::AlphaBeta,
        Choice::Greedy,
        Choice::Random,
    ][input.below(4)];
    let threads = 1 + input.below(2);
    let seed = input.u64();
    let mcts = MctsConfig {
        exploration: [0.0, 0.5, 1.0, 3.0][input.below(4)],
        selection: if input.bool() {
            Selection::Puct
        } else {
            Selection::Uct
        },
        leaf: if input.bool() {
            Leaf::Evaluate
        } else {
            Leaf::Playout
        },
        threads,
        reuse: input.bool(),
        expand_after: 1 + input.below(3) as u32,
        seed,
        memory_mb: 1 + input.below(2),
    };
    let ab = AlphaBetaConfig {
        tt_mb: 1,
        killers: input.bool(),
        history: input.bool(),
        reductions: input.bool(),
        futility: input.bool(),
        threads,
    };
    let mut searcher: Searcher<G::State> = Searcher::new(choice, mcts, ab);
    let mut actions = ActionList::new();
    for _ in 0..2 {
        if game.is_over(&s) {
            return;
        }
        let b = budget(input);
        match searcher.search(game, eval, &s, &b, StopFlag::new()) {
            Ok(r) => {
                assert!(
                    game.is_legal(&s, r.best),
                    "{choice:?} {b:?}: illegal {}",
                    r.best
                );
                assert!(r.value.is_finite() && r.value.abs() <= 1.0, "{r:?}");
                if choice == Choice::AlphaBeta {
                    if let Some(n) = b.nodes {
                        assert!(r.nodes <= n, "alpha-beta nodes {} > budget {n}", r.nodes);
                    }
                }
            }
            Err(Error::Invalid(m)) if refused(choice, &b) => {
                let _ = m;
                return;
            }
            Err(e) => panic!("{choice:?} {b:?}: {e:?}"),
        }
        actions.clear();
        game.legal_actions(&s, &mut actions);
        game.apply(&mut s, actions[rng.below(actions.len())]);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mut rng = Rng::new(input.u64());
    if input.bool() {
        let players = 2 + input.below(3);
        let penguins = 1 + input.below(4);
        let placement = if input.bool() {
            Placement::Any
        } else {
            Placement::OneFish
        };
        let order = if input.bool() {
            Order::Snake
        } else {
            Order::RoundRobin
        };
        let Ok(rules) = Rules::new(players, Some(penguins), placement, order) else {
            return;
        };
        let board = if input.bool() {
            Board::standard(rng.next_u64())
        } else {
            let (rows, cols) = (1 + input.below(8), 1 + input.below(8));
            let grid: Vec<Vec<u8>> = (0..rows)
                .map(|_| (0..cols).map(|_| input.below(4) as u8).collect())
                .collect();
            let Ok(board) = Board::from_grid(&grid) else {
                return;
            };
            board
        };
        let game = FishGame::new(rules, board);
        let mut s = game.initial_state();
        let mut actions = ActionList::new();
        for _ in 0..input.below(64) {
            if game.is_over(&s) {
                return;
            }
            actions.clear();
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let eval = if input.bool() {
            FishEval::new(&game, FishEvalConfig::default())
        } else {
            FishEval::plain(&game)
        };
        check(&game, &eval, s, &mut input, &mut rng);
    } else {
        let names = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"];
        let game = Marathon::variant(names[input.below(4)])
            .and_then(|g| g.with_players(2 + input.below(4)))
            .expect("bundled variants build");
        let mut s = game.new_state();
        let mut actions = ActionList::new();
        for _ in 0..input.below(128) {
            if game.is_over(&s) {
                return;
            }
            actions.clear();
            game.legal_actions(&s, &mut actions);
            game.apply(&mut s, actions[rng.below(actions.len())]);
        }
        let mut config = MarathonEvalConfig::default();
        if input.bool() {
            config.greedy = 0.0;
        }
        let eval = MarathonEval::new(&game, config);
        check(&game, &eval, s, &mut input, &mut rng);
    }
});
