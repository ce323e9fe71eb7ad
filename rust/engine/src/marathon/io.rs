//! [`GameIo`] for Penguin Marathon: notation, JSON, the observation planes and the text picture.

use super::{json, Kind, Marathon, Place, State};
use crate::error::{Error, Result};
use crate::game::{Action, Game};
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

    fn write_observation(&self, s: &State, viewer: usize, out: &mut [f32]) {
        let n = self.players();
        let course = self.course();
        let cols = course.size().1;
        let area = course.size().0 * cols;
        debug_assert_eq!(out.len(), self.observation_len());
        out.fill(0.0);
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
                match self.place(s, p, kind) {
                    Place::Waiting => constant(status_planes + 2 * i, 1.0),
                    Place::Finished => constant(status_planes + 2 * i + 1, 1.0),
                    Place::OnCourse { .. } => {}
                }
            }
            if s.to_move() == Some(p) {
                constant(11 + 9 * n + seat, 1.0);
            }
        }
        let ply = s.ply() as f32 / self.ply_limit().max(1) as f32;
        if ply != 0.0 {
            constant(10 + 9 * n, ply);
        }
        for seat in 0..n {
            let p = (viewer + seat) % n;
            for kind in Kind::ALL {
                if let Place::OnCourse { cell, facing } = self.place(s, p, kind) {
                    let i = 3 * seat + kind as usize;
                    out[(1 + i) * area + at(cell)] = 1.0;
                    let f = facing.map_or(8, |d| d.index());
                    out[(facing_planes + f) * area + at(cell)] = 1.0;
                }
            }
        }
    }

    fn ranking(&self, s: &State) -> Vec<usize> {
        Marathon::ranking(self, s)
    }

    fn render(&self, s: &State) -> String {
        Marathon::render(self, s)
    }
}
