//! [`GameIo`] for Penguin Marathon: notation, JSON, the observation planes and the text picture.

use super::{json, Kind, Marathon, Place, State};
use crate::error::{Error, Result};
use crate::game::{Action, Game, MAX_ACTIONS};
use crate::io::GameIo;

/// Observation planes (`11 + 10 n` of them for `n` players) over the course's bounding box,
/// from the view of one player, "seat" `k` being the player `k` places after the viewer in turn
/// order, and a piece's index `i = 3 k + kind` (kinds mama, papa, baby):
///
/// | planes | what |
/// |---|---|
/// | 0 | the course cells |
/// | `1 + i` | where piece `i` stands |
/// | `1 + 3n + f` | lying pieces facing `f` (N, NE, ..., NW = 0..7) |
/// | `9 + 3n` | upright pieces |
/// | `10 + 3n + 2i` | ones while piece `i` waits to enter |
/// | `11 + 3n + 2i` | ones once piece `i` has finished |
/// | `10 + 9n` | the ply divided by the ply limit (constant plane) |
/// | `11 + 9n + k` | ones when seat `k` is to move (all zero once the game is over) |
pub fn observation_planes(players: usize) -> usize {
    11 + 10 * players
}

impl GameIo for Marathon {
    const NAME: &'static str = "marathon";

    fn parse_action(&self, s: &State, text: &str) -> Result<Action> {
        Ok(self.parse_move(s, text)?.action)
    }

    fn check_action(&self, s: &State, action: Action) -> Result<()> {
        if action as usize >= self.num_actions() {
            return Err(Error::Parse(format!(
                "action {action} is not in the action space (0 to {})",
                self.num_actions() - 1
            )));
        }
        self.describe(s, action).map(|_| ())
    }

    fn action_name(&self, s: &State, action: Action) -> String {
        self.action_to_notation(s, action)
            .unwrap_or_else(|_| format!("#{action}"))
    }

    fn to_json(&self, s: &State) -> String {
        json::to_json(self, s)
    }

    fn from_json(text: &str) -> Result<(Marathon, State)> {
        json::from_json(text)
    }

    fn observation_shape(&self) -> [usize; 3] {
        let (rows, cols) = self.course().size();
        [observation_planes(self.players()), rows, cols]
    }

    /// Writes every element once: the course, piece and facing planes are cleared and set,
    /// each constant plane filled with its value.
    fn write_observation(&self, s: &State, viewer: usize, out: &mut [f32]) {
        let n = self.players();
        let course = self.course();
        let cols = course.size().1;
        let area = course.size().0 * cols;
        debug_assert_eq!(out.len(), self.observation_len());
        let at = |(r, c): (i32, i32)| r as usize * cols + c as usize;
        let facing_planes = 1 + 3 * n;
        let status_planes = facing_planes + 9;
        let (grid, constants) = out.split_at_mut(status_planes * area);
        grid.fill(0.0);
        for &cell in course.coords() {
            grid[at(cell)] = 1.0;
        }
        // Plane `status_planes + k` is constant plane `k`.
        let mut constant = |k: usize, value: f32| constants[k * area..(k + 1) * area].fill(value);
        let to_move = s.to_move();
        for seat in 0..n {
            let p = (viewer + seat) % n;
            for kind in Kind::ALL {
                let i = 3 * seat + kind as usize;
                let place = self.place(s, p, kind);
                constant(2 * i, (place == Place::Waiting) as u8 as f32);
                constant(2 * i + 1, (place == Place::Finished) as u8 as f32);
                if let Place::OnCourse { cell, facing } = place {
                    grid[(1 + i) * area + at(cell)] = 1.0;
                    let f = facing.map_or(8, |d| d.index());
                    grid[(facing_planes + f) * area + at(cell)] = 1.0;
                }
            }
            constant(6 * n + 1 + seat, (to_move == Some(p)) as u8 as f32);
        }
        constant(6 * n, s.ply() as f32 / self.ply_limit().max(1) as f32);
    }

    fn ranking(&self, s: &State) -> Vec<usize> {
        Marathon::ranking(self, s)
    }

    fn render(&self, s: &State) -> String {
        Marathon::render(self, s)
    }

    fn initial_state(&self) -> State {
        self.new_state()
    }

    /// Per piece of distance `d` (1, 2, 3): on the course at most 8 directions with `2d + 1`
    /// facings each, a finish and a stand; waiting, at most 3 entries from each start place
    /// with `2d + 1` facings each and a finish; never more than the piece's share of the
    /// action space.
    fn max_legal_actions(&self, _s: &Self::State) -> usize {
        let n = self.course().len();
        let starts = self.course().start_origins().len();
        let bound: usize = (1..=3)
            .map(|d| {
                let spins = 2 * d + 1;
                (8 * spins + 2).max(3 * starts * spins + 1).min(9 * n + 1)
            })
            .sum();
        bound.min(self.num_actions()).min(MAX_ACTIONS)
    }
}
