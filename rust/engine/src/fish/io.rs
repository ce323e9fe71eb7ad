//! [`GameIo`] for Fish: notation, JSON, the observation planes and the text picture.

use super::bitboard::Word;
use super::json;
use super::notation;
use super::state::{FishGame, FishState, Phase};
use crate::error::{Error, Result};
use crate::game::{self, Action, Game, MAX_ACTIONS};
use crate::io::GameIo;

/// Observation planes (`4 + 5 n` of them for `n` players, each `rows x cols`), from the view of
/// one player, "seat" `k` being the player `k` places after the viewer in turn order:
///
/// | planes | what |
/// |---|---|
/// | 0, 1, 2 | floes in play with 1, 2 and 3+ fish (ones on the floe's cell) |
/// | `3 + k` | the penguins of seat `k` |
/// | `3 + n + k` | fish collected by seat `k`, divided by all the fish on the board (constant plane) |
/// | `3 + 2n + k` | floes collected by seat `k`, divided by all the floes of the board |
/// | `3 + 3n + k` | penguins seat `k` has still to place, divided by the penguins per player |
/// | `3 + 4n + k` | ones when seat `k` is to move (all zero once the game is over) |
/// | `3 + 5n` | ones during placement |
///
/// With the board these make the observation Markov for the returns: two positions that may
/// still end differently never look the same.
pub fn observation_planes(players: usize) -> usize {
    4 + 5 * players
}

impl<W: Word> FishGame<W> {
    /// The legal action of `mv` in `s`.
    ///
    /// # Errors
    /// `Error::IllegalMove` naming the move and the reason the rules forbid it.
    pub fn check_move(&self, s: &FishState<W>, mv: super::FishMove) -> Result<Action> {
        match self.illegal_reason(s, mv) {
            None => Ok(self.action_of(mv).expect("a legal move has an action")),
            Some(why) => {
                let who = s
                    .to_move()
                    .map_or(String::new(), |p| format!(" for player {p}"));
                Err(Error::IllegalMove(format!(
                    "illegal move {:?}{who}: {why}",
                    notation::move_name(self.board(), mv)
                )))
            }
        }
    }

    /// Penguins `player` has still to place in `s`.
    fn still_to_place(&self, s: &FishState<W>, player: usize) -> usize {
        if self.phase(s) != Phase::Placement {
            return 0;
        }
        let rules = self.rules();
        let placed = (0..s.turn as usize)
            .filter(|&t| rules.placer(t) == player)
            .count();
        (rules.penguins as usize).saturating_sub(placed)
    }
}

impl<W: Word> GameIo for FishGame<W> {
    const NAME: &'static str = "fish";

    fn parse_action(&self, s: &FishState<W>, text: &str) -> Result<Action> {
        let mv = notation::parse_move(self.board(), text)?;
        self.check_move(s, mv)
    }

    fn check_action(&self, s: &FishState<W>, action: Action) -> Result<()> {
        let Some(mv) = self.move_of(action) else {
            return Err(Error::Parse(format!(
                "action {action} is not a move on this board (actions are 0 to {}, and some \
                 of those run off the board)",
                self.num_actions() - 1
            )));
        };
        self.check_move(s, mv).map(|_| ())
    }

    fn action_name(&self, _s: &FishState<W>, action: Action) -> String {
        self.move_of(action).map_or_else(
            || format!("#{action}"),
            |m| notation::move_name(self.board(), m),
        )
    }

    fn to_json(&self, s: &FishState<W>) -> String {
        json::to_json(self, s)
    }

    fn from_json(text: &str) -> Result<(Self, FishState<W>)> {
        json::from_json(text)
    }

    fn observation_shape(&self) -> [usize; 3] {
        let board = self.board();
        [
            observation_planes(self.num_players()),
            board.rows(),
            board.cols(),
        ]
    }

    /// Writes every element once: the board planes (floes and penguins) are cleared and set
    /// row by row from the bitboards, each constant plane filled with its value.
    fn write_observation(&self, s: &FishState<W>, viewer: usize, out: &mut [f32]) {
        let n = self.num_players();
        let board = self.board();
        let area = board.num_cells();
        debug_assert_eq!(out.len(), self.observation_len());
        let (grid, constants) = out.split_at_mut((3 + n) * area);
        grid.fill(0.0);
        // A cell's index is its place in a plane (`row * cols + col`).
        for cell in s.floes {
            let plane = (board.fish(cell) as usize).clamp(1, 3) - 1;
            grid[plane * area + cell as usize] = 1.0;
        }
        for seat in 0..n {
            for cell in s.penguins[(viewer + seat) % n] {
                grid[(3 + seat) * area + cell as usize] = 1.0;
            }
        }
        let all_fish = board.total_fish().max(1) as f32;
        let all_floes = board.floes().count().max(1) as f32;
        let per_player = self.rules().penguins.max(1) as f32;
        // Plane `3 + n + k` is constant plane `k`.
        let mut constant = |k: usize, value: f32| constants[k * area..(k + 1) * area].fill(value);
        let to_move = s.to_move();
        for seat in 0..n {
            let p = (viewer + seat) % n;
            let (fish, floes) = s.score(p);
            constant(seat, fish as f32 / all_fish);
            constant(n + seat, floes as f32 / all_floes);
            constant(2 * n + seat, self.still_to_place(s, p) as f32 / per_player);
            constant(3 * n + seat, (to_move == Some(p)) as u8 as f32);
        }
        constant(4 * n, (self.phase(s) == Phase::Placement) as u8 as f32);
    }

    fn ranking(&self, s: &FishState<W>) -> Vec<usize> {
        let keys: Vec<_> = (0..self.num_players()).map(|p| s.score(p)).collect();
        game::places(&keys)
    }

    /// Penguins are drawn as the player's letter (A for player 0), floes as their fish,
    /// removed floes as `.`, and cells that never held a floe (gaps: h1 of the standard
    /// board, a 0 of a custom one) left blank, so a board's shape stands apart from the holes
    /// of play; even rows are shifted half a hex to the right.
    fn render(&self, s: &FishState<W>) -> String {
        let board = self.board();
        let players = self.num_players();
        let mut out = String::from("    ");
        for c in 0..board.cols() {
            out += &format!("{:>2} ", notation::column_name(c));
        }
        out = out.trim_end().to_string();
        out.push('\n');
        for r in 0..board.rows() {
            out += &format!("{:>2} {}", r + 1, if r % 2 == 0 { "  " } else { "" });
            for c in 0..board.cols() {
                let cell = board.cell(r as i64, c as i64).expect("on the grid");
                let owner = (0..players).find(|&p| s.penguins[p].contains(cell));
                let mark = match owner {
                    Some(p) => ((b'A' + p as u8) as char).to_string(),
                    None if s.floes.contains(cell) => board.fish(cell).to_string(),
                    None if board.floes().contains(cell) => ".".to_string(),
                    None => String::new(),
                };
                out += &format!("{mark:>2} ");
            }
            out = out.trim_end().to_string();
            out.push('\n');
        }
        for p in 0..players {
            let (fish, floes) = s.score(p);
            out += &format!(
                "{} player {p}: {fish} fish, {floes} floes\n",
                (b'A' + p as u8) as char
            );
        }
        out += &match s.to_move() {
            Some(p) => format!(
                "{} to move ({})",
                (b'A' + p as u8) as char,
                self.phase(s).name()
            ),
            None => format!("game over, ranking {:?}", GameIo::ranking(self, s)),
        };
        out
    }

    fn initial_state(&self) -> FishState<W> {
        FishGame::initial_state(self)
    }

    /// During placement every floe may be open; in movement each penguin has at most
    /// `max_distance` slides in each of 6 directions.
    fn max_legal_actions(&self, s: &Self::State) -> usize {
        let md = self.board().max_distance();
        let players = self.num_players();
        let placing = self.phase(s) == Phase::Placement;
        // A player places up to the rules' penguins (a position may hold more).
        let to_place = if placing {
            self.rules().penguins as usize
        } else {
            0
        };
        let most = (0..players)
            .map(|p| (s.penguins(p).count() as usize).max(to_place))
            .max()
            .unwrap_or(0);
        let placements = if placing {
            s.floes().count() as usize
        } else {
            0
        };
        placements
            .max(most * 6 * md)
            .min(self.num_actions())
            .min(MAX_ACTIONS)
    }

    fn same_shape(&self, other: &Self) -> bool {
        self.rules() == other.rules()
            && self.board().rows() == other.board().rows()
            && self.board().cols() == other.board().cols()
    }

    fn score(&self, s: &Self::State, player: usize) -> Option<f64> {
        Some(s.score(player).0 as f64)
    }
}
