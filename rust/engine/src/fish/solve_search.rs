//! The perfect player: the exact solver ([`super::solver`]) as a search, for the `solve`
//! algorithm and agent spec ([`crate::search::Choice::Solve`]). [`FishGame::solve_search`] is
//! an inherent method so that the evaluation, which the solver itself uses, can offer it
//! without naming this file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{invalid, Result};
use crate::fish::solver::{solve_with_stop, DEFAULT_MAX_NODES};
use crate::fish::{FishGame, FishState, Word};
use crate::search::{Budget, SearchResult, StopFlag};

/// How often the watch of a time budget looks at the clock and the caller's stop flag.
const WATCH_EVERY: Duration = Duration::from_millis(5);

impl<W: Word> FishGame<W> {
    /// Solves `state` exactly within `budget`: at most `budget.nodes` positions (default the
    /// solver's [`DEFAULT_MAX_NODES`]) and, when it has one, `budget.time`. The result is the
    /// solver's best move and line, `exact`, its value the returns of the final scores.
    ///
    /// # Errors
    /// `Error::Invalid` for a finished game, and for a position too big for the budget (what to
    /// do then: a larger `nodes` budget, or another algorithm).
    pub fn solve_search(
        &self,
        state: &FishState<W>,
        budget: &Budget,
        stop: &StopFlag,
    ) -> Result<SearchResult> {
        let Some(player) = state.to_move() else {
            return invalid!("cannot solve a finished game");
        };
        let start = Instant::now();
        let max_nodes = budget.nodes.unwrap_or(DEFAULT_MAX_NODES);
        let solution = within(budget.time, stop, |flag| {
            solve_with_stop(self, state, max_nodes, Some(flag))
        });
        let solution = match solution {
            Ok(s) => s,
            Err(e) if stop.is_set() => return Err(e),
            Err(_) => {
                let time = budget
                    .time
                    .map_or(String::new(), |t| format!(" or {:.3} s", t.as_secs_f64()));
                return invalid!(
                    "algorithm \"solve\": the position is too big to solve within its budget \
                     ({max_nodes} positions{time}); give a larger nodes budget or use another \
                     algorithm"
                );
            }
        };
        let mut scores = [(0u16, 0u16); crate::fish::rules::MAX_FISH_PLAYERS];
        for (k, &(fish, floes)) in solution.scores.iter().enumerate() {
            scores[k] = (fish as u16, floes as u16);
        }
        let best = solution
            .best
            .expect("a position with a player to move has a best move");
        Ok(SearchResult {
            best,
            value: self.returns_of(&scores)[player],
            depth: solution.pv.len() as u32,
            pv: solution.pv,
            nodes: solution.nodes,
            iterations: 0,
            elapsed: start.elapsed(),
            visits: Vec::new(),
            exact: true,
            interrupted: false,
        })
    }
}

/// Runs `f` with a stop flag that `stop` sets and, with a `time` limit, the clock sets too: a
/// watch thread, which `f`'s return ends, sets it when the time is up.
fn within<T>(time: Option<Duration>, stop: &StopFlag, f: impl FnOnce(&StopFlag) -> T) -> T {
    let Some(time) = time else {
        return f(stop);
    };
    let deadline = Instant::now() + time;
    let mine = StopFlag::new();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watch = scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                let now = Instant::now();
                if stop.is_set() || now >= deadline {
                    mine.stop();
                    return;
                }
                std::thread::park_timeout(WATCH_EVERY.min(deadline - now));
            }
        });
        let out = f(&mine);
        done.store(true, Ordering::Release);
        watch.thread().unpark();
        out
    })
}

#[cfg(test)]
mod tests {
    use crate::fish::solver::solve;
    use crate::fish::{Board, FishGame, Order, Placement, Rules};
    use crate::game::Game;
    use crate::search::alphabeta::AlphaBetaConfig;
    use crate::search::mcts::MctsConfig;
    use crate::search::{Budget, Choice, Knowledge, Playout, Searcher, StopFlag};

    fn mini() -> FishGame {
        let rules = Rules::new(2, Some(1), Placement::OneFish, Order::RoundRobin).unwrap();
        let grid = vec![vec![1, 2, 3], vec![1, 1, 2], vec![2, 1, 1]];
        FishGame::new(rules, Board::from_grid(&grid).unwrap())
    }

    fn searcher<S: Copy + PartialEq + Send>() -> Searcher<S> {
        Searcher::new(
            Choice::Solve,
            MctsConfig::default(),
            AlphaBetaConfig::default(),
        )
    }

    #[test]
    fn the_solve_choice_plays_the_solvers_move_exactly() {
        let game = mini();
        let eval = game.default_eval(true, Playout::Auto);
        let mut s = game.initial_state();
        while !game.is_over(&s) {
            let r = searcher()
                .search(&game, &eval, &s, &Budget::default(), StopFlag::new())
                .unwrap();
            let sol = solve(&game, &s, 1_000_000).unwrap();
            assert_eq!(
                (Some(r.best), &r.pv, r.nodes),
                (sol.best, &sol.pv, sol.nodes)
            );
            assert!(r.exact && !r.interrupted);
            game.apply(&mut s, r.best);
        }
    }

    #[test]
    fn a_position_too_big_for_the_budget_is_an_error_that_says_so() {
        let game = FishGame::dealt(Rules::standard(2).unwrap(), 3);
        let eval = game.default_eval(true, Playout::Auto);
        let s = game.initial_state();
        for budget in [Budget::nodes(500), Budget::time(0.02)] {
            let e = searcher()
                .search(&game, &eval, &s, &budget, StopFlag::new())
                .unwrap_err()
                .to_string();
            assert!(e.contains("too big to solve within its budget"), "{e}");
        }
        let marathon = crate::marathon::MarathonGame::variant("marathon").unwrap();
        let e = searcher()
            .search(
                &marathon,
                &marathon.default_eval(true, Playout::Auto),
                &marathon.new_state(),
                &Budget::default(),
                StopFlag::new(),
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs a game with an exact solver"), "{e}");
    }
}
