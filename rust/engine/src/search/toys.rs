//! Toy games with known results, for testing search: Nim for any number of players and
//! tic-tac-toe.

use crate::game::{returns_from_keys, Action, ActionList, Game, Returns, MAX_PLAYERS};
use crate::rng::splitmix64;

/// Nim with one pile: take 1, 2 or 3 stones (actions 0, 1, 2); whoever takes the last stone wins.
/// For two players, a pile that is a multiple of 4 loses for the player to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Nim {
    pub players: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NimState {
    pub stones: u32,
    pub to_move: u8,
    /// The player who took the last stone, once the pile is empty.
    pub winner: u8,
}

impl Nim {
    pub fn start(&self, stones: u32) -> NimState {
        NimState {
            stones,
            to_move: 0,
            winner: u8::MAX,
        }
    }
}

impl Game for Nim {
    type State = NimState;
    fn num_players(&self) -> usize {
        self.players
    }
    fn num_actions(&self) -> usize {
        3
    }
    fn max_game_length(&self) -> usize {
        1000
    }
    fn to_move(&self, s: &NimState) -> Option<usize> {
        (s.stones > 0).then_some(s.to_move as usize)
    }
    fn legal_actions(&self, s: &NimState, out: &mut ActionList) {
        for a in 0..s.stones.min(3) {
            out.push(a);
        }
    }
    fn apply(&self, s: &mut NimState, a: Action) {
        s.stones -= a + 1;
        if s.stones == 0 {
            s.winner = s.to_move;
        }
        s.to_move = ((s.to_move as usize + 1) % self.players) as u8;
    }
    fn returns(&self, s: &NimState) -> Returns {
        let keys: Vec<u8> = (0..self.players)
            .map(|p| (p == s.winner as usize) as u8)
            .collect();
        returns_from_keys(&keys)
    }
    fn hash(&self, s: &NimState) -> u64 {
        splitmix64((s.stones as u64) << 16 | (s.to_move as u64) << 8 | s.winner as u64)
    }
}

/// Tic-tac-toe: cells 0..9 row by row; X (player 0) starts. A draw with perfect play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TicTacToe;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Ttt {
    pub marks: [u16; 2],
}

const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

impl Ttt {
    /// A position from a picture such as `"X.O/.X./..O"` (rows separated by `/`).
    pub fn from_str(s: &str) -> Ttt {
        let mut t = Ttt::default();
        for (i, c) in s.chars().filter(|c| *c != '/').enumerate() {
            match c {
                'X' => t.marks[0] |= 1 << i,
                'O' => t.marks[1] |= 1 << i,
                _ => {}
            }
        }
        t
    }
    fn won(&self, p: usize) -> bool {
        LINES.iter().any(|&l| self.marks[p] & l == l)
    }
    fn full(&self) -> bool {
        (self.marks[0] | self.marks[1]) == 0o777
    }
}

impl Game for TicTacToe {
    type State = Ttt;
    fn num_players(&self) -> usize {
        2
    }
    fn num_actions(&self) -> usize {
        9
    }
    fn max_game_length(&self) -> usize {
        9
    }
    fn to_move(&self, s: &Ttt) -> Option<usize> {
        if s.won(0) || s.won(1) || s.full() {
            None
        } else {
            Some((s.marks[0].count_ones() > s.marks[1].count_ones()) as usize)
        }
    }
    fn legal_actions(&self, s: &Ttt, out: &mut ActionList) {
        if self.to_move(s).is_none() {
            return;
        }
        let used = s.marks[0] | s.marks[1];
        for a in 0..9 {
            if used & (1 << a) == 0 {
                out.push(a);
            }
        }
    }
    fn apply(&self, s: &mut Ttt, a: Action) {
        let p = (s.marks[0].count_ones() > s.marks[1].count_ones()) as usize;
        s.marks[p] |= 1 << a;
    }
    fn returns(&self, s: &Ttt) -> Returns {
        let mut r = [0.0; MAX_PLAYERS];
        if s.won(0) {
            r[0] = 1.0;
            r[1] = -1.0;
        } else if s.won(1) {
            r[0] = -1.0;
            r[1] = 1.0;
        }
        r
    }
    fn hash(&self, s: &Ttt) -> u64 {
        splitmix64((s.marks[0] as u64) << 16 | s.marks[1] as u64)
    }
}

/// All positions reachable from `s`, with their minimax values for player 0 (2 players): a
/// brute-force oracle.
pub fn minimax<G: Game>(game: &G, s: &G::State) -> f64 {
    match game.to_move(s) {
        None => game.returns(s)[0],
        Some(p) => {
            let mut actions = ActionList::new();
            game.legal_actions(s, &mut actions);
            let values = actions.iter().map(|&a| {
                let mut c = *s;
                game.apply(&mut c, a);
                minimax(game, &c)
            });
            if p == 0 {
                values.fold(f64::MIN, f64::max)
            } else {
                values.fold(f64::MAX, f64::min)
            }
        }
    }
}

/// Observations for the toys, so that PUCT (which needs [`crate::io::GameIo`]) runs on them;
/// the rest of their I/O is never used.
mod io {
    use super::*;
    use crate::error::Result;
    use crate::io::GameIo;

    impl GameIo for Nim {
        const NAME: &'static str = "nim";
        fn parse_action(&self, _s: &NimState, text: &str) -> Result<Action> {
            crate::error::invalid!("no notation: {text}")
        }
        fn check_action(&self, s: &NimState, a: Action) -> Result<()> {
            if self.is_legal(s, a) {
                Ok(())
            } else {
                crate::error::invalid!("illegal")
            }
        }
        fn action_name(&self, _s: &NimState, a: Action) -> String {
            format!("take {}", a + 1)
        }
        fn to_json(&self, s: &NimState) -> String {
            format!("{s:?}")
        }
        fn from_json(_text: &str) -> Result<(Self, NimState)> {
            crate::error::invalid!("no JSON")
        }
        /// Plane 0: stones (scaled), plane 1: stones modulo 4 (one-hot over 4 columns).
        fn observation_shape(&self) -> [usize; 3] {
            [2, 1, 4]
        }
        fn write_observation(&self, s: &NimState, _player: usize, out: &mut [f32]) {
            out.fill(0.0);
            out[..4].fill(s.stones as f32 / 100.0);
            out[4 + (s.stones % 4) as usize] = 1.0;
        }
        fn ranking(&self, s: &NimState) -> Vec<usize> {
            let keys: Vec<u8> = (0..self.players)
                .map(|p| (p == s.winner as usize) as u8)
                .collect();
            crate::game::places(&keys)
        }
        fn render(&self, s: &NimState) -> String {
            format!("{s:?}")
        }
        fn initial_state(&self) -> NimState {
            self.start(10)
        }
    }

    impl GameIo for TicTacToe {
        const NAME: &'static str = "tictactoe";
        fn parse_action(&self, _s: &Ttt, text: &str) -> Result<Action> {
            crate::error::invalid!("no notation: {text}")
        }
        fn check_action(&self, s: &Ttt, a: Action) -> Result<()> {
            if self.is_legal(s, a) {
                Ok(())
            } else {
                crate::error::invalid!("illegal")
            }
        }
        fn action_name(&self, _s: &Ttt, a: Action) -> String {
            a.to_string()
        }
        fn to_json(&self, s: &Ttt) -> String {
            format!("{s:?}")
        }
        fn from_json(_text: &str) -> Result<(Self, Ttt)> {
            crate::error::invalid!("no JSON")
        }
        /// The viewer's marks, then the other's.
        fn observation_shape(&self) -> [usize; 3] {
            [2, 3, 3]
        }
        fn write_observation(&self, s: &Ttt, player: usize, out: &mut [f32]) {
            for (k, o) in out.iter_mut().enumerate() {
                let p = (player + k / 9) % 2;
                *o = (s.marks[p] >> (k % 9) & 1) as f32;
            }
        }
        fn ranking(&self, s: &Ttt) -> Vec<usize> {
            let r = self.returns(s);
            crate::game::places(&r[..2])
        }
        fn render(&self, s: &Ttt) -> String {
            format!("{s:?}")
        }
        fn initial_state(&self) -> Ttt {
            Ttt::default()
        }
    }
}
