//! The Penguin Marathon game value ([`MarathonGame`]: course, players, ply limit) and its
//! [`Game`] implementation: move generation, random moves and playouts, the game flow.

use super::config::Config;
use super::course::{Course, Dir, MAX_CELLS};
use super::movegen::{self, PieceMoves};
use super::piece::{Piece, Place};
use super::state::{
    turn_key, Kind, MarathonState, FINISHED, MAX_PLAYERS, NOBODY, PIECES, UPRIGHT, WAITING,
};
use crate::error::{Error, Result};
use crate::game::{places, returns_from_places, Action, ActionList, Game, Returns};
use crate::rng::{splitmix64, Rng};

/// The game: a course, a number of players and a ply limit.
#[derive(Clone, Debug)]
pub struct MarathonGame {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) course: Course,
    pub(super) players: usize,
    pub(super) ply_limit: u32,
    /// `9 * cells + 1`: actions per piece kind.
    pub(super) per_kind: u32,
    pub(super) tables: movegen::Tables,
}

/// Games are equal when their rules are: the course, the players and the ply limit (the name
/// and description are labels).
impl PartialEq for MarathonGame {
    fn eq(&self, other: &MarathonGame) -> bool {
        (self.players, self.ply_limit) == (other.players, other.ply_limit)
            && self.course == other.course
    }
}

impl Eq for MarathonGame {}

impl MarathonGame {
    /// A game on `course` for `players` (2 to 5) players with the given ply limit (at least 1).
    ///
    /// # Errors
    /// `Error::Invalid` for a player count outside 2 to 5 or a zero ply limit.
    pub fn new(name: &str, course: Course, players: usize, ply_limit: u32) -> Result<MarathonGame> {
        if !(2..=MAX_PLAYERS).contains(&players) {
            return crate::error::invalid!("Penguin Marathon is for 2 to 5 players, not {players}");
        }
        if ply_limit == 0 {
            return crate::error::invalid!("ply_limit must be at least 1");
        }
        let per_kind = 9 * course.len() as u32 + 1;
        let tables = movegen::Tables::build(&course);
        Ok(MarathonGame {
            name: name.to_string(),
            description: String::new(),
            course,
            players,
            ply_limit,
            per_kind,
            tables,
        })
    }

    /// The standard game: the `marathon` course, 2 players, ply limit 500.
    pub fn standard() -> MarathonGame {
        MarathonGame::variant("marathon").expect("the bundled standard course is valid")
    }

    /// A bundled variant by name or alias (`"marathon"`/`"standard"`, `"marathon-5"`/`"5"`,
    /// `"marathon-l"`/`"l"`, `"marathon-zigzag"`/`"zigzag"`).
    ///
    /// # Errors
    /// `Error::Invalid` for an unknown name.
    pub fn variant(name: &str) -> Result<MarathonGame> {
        Config::bundled(name)?.build()
    }

    /// A copy for another number of players.
    ///
    /// # Errors
    /// As [`MarathonGame::new`].
    pub fn with_players(&self, players: usize) -> Result<MarathonGame> {
        MarathonGame::new(&self.name, self.course.clone(), players, self.ply_limit)
            .map(|m| m.with_description(&self.description))
    }

    /// A copy with another ply limit.
    ///
    /// # Errors
    /// As [`MarathonGame::new`].
    pub fn with_ply_limit(&self, ply_limit: u32) -> Result<MarathonGame> {
        MarathonGame::new(&self.name, self.course.clone(), self.players, ply_limit)
            .map(|m| m.with_description(&self.description))
    }

    /// A copy with another description.
    pub fn with_description(mut self, description: &str) -> MarathonGame {
        self.description = description.to_string();
        self
    }

    /// One line about the variant (may be empty).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The variant's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The course.
    pub fn course(&self) -> &Course {
        &self.course
    }

    /// The number of players.
    pub fn players(&self) -> usize {
        self.players
    }

    /// The ply limit: the game is a draw when it is reached.
    pub fn ply_limit(&self) -> u32 {
        self.ply_limit
    }

    /// The config that rebuilds this game.
    pub fn config(&self) -> Config {
        Config {
            name: self.name.clone(),
            description: self.description.clone(),
            players: self.players,
            ply_limit: self.ply_limit,
            course: self.course.to_map(),
        }
    }

    /// The opening position: every piece waiting, player 0 to move.
    pub fn new_state(&self) -> MarathonState {
        let mut s = MarathonState {
            occupied: 0,
            hash: 0,
            cell: [WAITING; MAX_PLAYERS * PIECES],
            facing: [UPRIGHT; MAX_PLAYERS * PIECES],
            ply: 0,
            to_move: 0,
            winner: NOBODY,
        };
        s.hash = self.hash_from_scratch(&s);
        s
    }

    /// The hash computed from the position (equal to the incremental one).
    pub fn hash_from_scratch(&self, s: &MarathonState) -> u64 {
        let mut h = turn_key(s.to_move);
        for slot in 0..self.players * PIECES {
            h ^= self.piece_key(slot, s.cell[slot], s.facing[slot]);
        }
        h
    }

    /// The Zobrist key of the piece in `slot` being on `cell` with `facing` (or waiting, or
    /// finished).
    #[inline(always)]
    fn piece_key(&self, slot: usize, cell: u8, facing: u8) -> u64 {
        let n9 = 9 * self.course.len();
        let code = match cell {
            FINISHED => n9,
            WAITING => n9 + 1,
            c => c as usize * 9 + facing as usize,
        };
        self.tables.zobrist[slot * self.tables.stride + code]
    }

    /// Where a piece is.
    pub fn place(&self, s: &MarathonState, player: usize, kind: Kind) -> Place {
        let slot = player * PIECES + kind.index();
        match s.cell[slot] {
            WAITING => Place::Waiting,
            FINISHED => Place::Finished,
            c => Place::OnCourse {
                cell: self.course.coord(c),
                facing: (s.facing[slot] != UPRIGHT)
                    .then(|| Dir::from_index(s.facing[slot] as usize)),
            },
        }
    }

    /// Every piece, by owner then kind (mama, papa, baby).
    pub fn pieces(&self, s: &MarathonState) -> Vec<Piece> {
        (0..self.players)
            .flat_map(|p| {
                Kind::ALL.map(|k| Piece {
                    owner: p,
                    kind: k,
                    place: self.place(s, p, k),
                })
            })
            .collect()
    }

    /// Places from 1: the winner 1, everyone else 2; all 1 in a draw (or while the game is on).
    pub fn ranking(&self, s: &MarathonState) -> Vec<usize> {
        let keys: Vec<u8> = (0..self.players)
            .map(|p| (s.winner() == Some(p)) as u8)
            .collect();
        places(&keys)
    }

    // --- Move generation. ---

    /// Whether `player` has any legal action.
    #[inline]
    pub fn has_legal(&self, s: &MarathonState, player: usize) -> bool {
        let occ = s.occupied;
        for kind in 0..PIECES {
            let slot = player * PIECES + kind;
            match s.cell[slot] {
                FINISHED => {}
                WAITING => {
                    let any = match &self.tables.entries {
                        Some(t) => t.count(kind, occ) > 0,
                        None => self.course.entries[kind]
                            .iter()
                            .any(|w| w.ray.path & occ == 0),
                    };
                    if any {
                        return true;
                    }
                }
                c => {
                    if s.facing[slot] != UPRIGHT || self.tables.set(c, kind).any_upright(occ) {
                        return true; // a lying piece can always stand
                    }
                }
            }
        }
        false
    }

    /// Number of distinct moves of the piece of `kind` in `slot`.
    #[inline(always)]
    fn piece_count(&self, s: &MarathonState, slot: usize, kind: usize) -> u32 {
        let occ = s.occupied;
        let c = s.cell[slot];
        if c == WAITING {
            return match &self.tables.entries {
                Some(t) => t.count(kind, occ),
                None => self.entry_count_slow(kind, occ),
            };
        }
        // Finished pieces use the empty set at index `n`; lying ones slide only where they
        // point and may stand.
        let set = self.tables.set(c, kind);
        let f = s.facing[slot];
        set.count(set.free_for(occ, f)) + (f != UPRIGHT) as u32
    }

    #[cold]
    #[inline(never)]
    fn entry_count_slow(&self, kind: usize, occ: u64) -> u32 {
        let mut pm = PieceMoves::new();
        movegen::entry_moves(&self.course, kind, occ, &mut pm);
        pm.count()
    }

    #[inline(never)]
    fn entry_nth(&self, kind: usize, occ: u64, r: u32) -> u32 {
        let mut pm = PieceMoves::new();
        movegen::entry_moves(&self.course, kind, occ, &mut pm);
        pm.nth(r, self.course.len() as u32)
    }

    /// Number of legal actions.
    pub fn count_legal(&self, s: &MarathonState) -> usize {
        let Some(p) = s.to_move() else { return 0 };
        (0..PIECES)
            .map(|k| self.piece_count(s, p * PIECES + k, k))
            .sum::<u32>() as usize
    }

    /// A uniformly random legal action (the same as `legal_actions[rng.below(len)]`), or `None`
    /// when the game is over.
    #[inline]
    pub fn random_action(&self, s: &MarathonState, rng: &mut Rng) -> Option<Action> {
        let p = s.to_move()?;
        let (k, result) = self
            .random_choice(s, p, rng)
            .expect("the player to move can move");
        Some(k as u32 * self.per_kind + result)
    }

    /// A uniformly random legal move of player `p` as `(kind, result)`; `None` if `p` has none.
    #[inline(always)]
    fn random_choice(&self, s: &MarathonState, p: usize, rng: &mut Rng) -> Option<(usize, u32)> {
        let slot0 = p * PIECES;
        let occ = s.occupied;
        let n = self.course.len();
        let finish = 9 * n as u32;
        // Per piece: its slide set and free ranks (none while waiting), and its move count.
        let mut sets = [self.tables.set(FINISHED, 0); PIECES];
        let mut frees = [0u8; PIECES];
        let mut counts = [0u32; PIECES];
        for k in 0..PIECES {
            let c = s.cell[slot0 + k];
            if c == WAITING {
                counts[k] = match &self.tables.entries {
                    Some(t) => t.count(k, occ),
                    None => self.entry_count_slow(k, occ),
                };
            } else {
                let set = self.tables.set(c, k);
                let f = s.facing[slot0 + k];
                frees[k] = set.free_for(occ, f);
                sets[k] = set;
                counts[k] = set.count(frees[k]) + (f != UPRIGHT) as u32;
            }
        }
        let total = counts[0] + counts[1] + counts[2];
        if total == 0 {
            return None;
        }
        let r = rng.below(total as usize) as u32;
        // Which piece, without a hard-to-predict branch.
        let (c0, c01) = (counts[0], counts[0] + counts[1]);
        let k = (r >= c0) as usize + (r >= c01) as usize;
        let r = r - [0, c0, c01][k];
        let slot = slot0 + k;
        let c = s.cell[slot];
        let result = if c == WAITING {
            self.entry_nth(k, occ, r)
        } else if s.facing[slot] == UPRIGHT {
            sets[k].nth(frees[k], k, r, finish)
        } else {
            movegen::lying_nth(sets[k], frees[k], k, c, r, finish)
        };
        Some((k, result))
    }

    /// Plays random legal actions to the end; returns the winner (`None` for a draw).
    pub fn random_playout(&self, s: &mut MarathonState, rng: &mut Rng) -> Option<usize> {
        // The turn passes to the next player at once; one without a legal action (zero moves
        // counted) passes it on, and a full round of passes ends the game: the same states as
        // `apply`, without a separate legality check for the next player.
        let mut passes = 0;
        while let Some(p) = s.to_move() {
            match self.random_choice(s, p, rng) {
                Some((kind, result)) => {
                    passes = 0;
                    if self.move_piece::<false>(s, p, kind, result) {
                        self.set_turn::<false>(
                            s,
                            if p + 1 == self.players {
                                0
                            } else {
                                p as u8 + 1
                            },
                        );
                    }
                }
                None => {
                    passes += 1;
                    let next = if passes == self.players {
                        NOBODY
                    } else if p + 1 == self.players {
                        0
                    } else {
                        p as u8 + 1
                    };
                    self.set_turn::<false>(s, next);
                }
            }
        }
        s.hash = self.hash_from_scratch(s);
        s.winner()
    }

    // --- Actions. ---

    /// Splits an action into `(kind, result)`; `None` when outside the action space.
    #[inline(always)]
    fn split(&self, action: Action) -> Option<(usize, u32)> {
        let k = self.per_kind;
        if action < k {
            Some((0, action))
        } else if action < 2 * k {
            Some((1, action - k))
        } else if action < 3 * k {
            Some((2, action - 2 * k))
        } else {
            None
        }
    }

    /// Plays `action` after checking that it is legal; on error the state is unchanged.
    ///
    /// # Errors
    /// `Error::IllegalMove` (with the reason) when `action` is not legal in `s`.
    pub fn play(&self, s: &mut MarathonState, action: Action) -> Result<()> {
        if !self.is_legal(s, action) {
            return Err(Error::IllegalMove(self.why_illegal(s, action)));
        }
        self.apply(s, action);
        Ok(())
    }

    /// A person-readable reason why `action` is not legal in `s`.
    pub(crate) fn why_illegal(&self, s: &MarathonState, action: Action) -> String {
        let Some(p) = s.to_move() else {
            return format!("action {action} is illegal: the game is over");
        };
        let Some((kind, res)) = self.split(action) else {
            return format!(
                "action {action} is illegal: the action space is 0..{}",
                self.num_actions()
            );
        };
        let kind = Kind::from_index(kind);
        let result = if res == 9 * self.course.len() as u32 {
            "finish".to_string()
        } else {
            let (r, c) = self.course.coord((res / 9) as u8);
            match res % 9 {
                8 => format!("stand upright on ({r}, {c})"),
                f => format!("lie on ({r}, {c}) facing {}", Dir::from_index(f as usize)),
            }
        };
        let place = match self.place(s, p, kind) {
            Place::Waiting => "waiting".to_string(),
            Place::Finished => "finished".to_string(),
            Place::OnCourse { cell, facing: None } => {
                format!("upright on ({}, {})", cell.0, cell.1)
            }
            Place::OnCourse {
                cell,
                facing: Some(f),
            } => {
                format!("lying on ({}, {}) facing {f}", cell.0, cell.1)
            }
        };
        format!(
            "action {action} is illegal: player {p}'s {} ({place}) cannot {result} this turn",
            kind.name()
        )
    }
}

impl Game for MarathonGame {
    type State = MarathonState;

    fn num_players(&self) -> usize {
        self.players
    }

    fn num_actions(&self) -> usize {
        (PIECES as u32 * self.per_kind) as usize
    }

    fn max_game_length(&self) -> usize {
        self.ply_limit as usize
    }

    #[inline]
    fn to_move(&self, s: &MarathonState) -> Option<usize> {
        s.to_move()
    }

    fn legal_actions(&self, s: &MarathonState, out: &mut ActionList) {
        out.clear();
        let Some(p) = s.to_move() else { return };
        for kind in 0..PIECES {
            self.piece_actions(s, p, kind, out);
        }
    }

    /// Generates the moves of the action's piece alone (an action names its piece).
    fn is_legal(&self, s: &MarathonState, action: Action) -> bool {
        let (Some(p), Some((kind, _))) = (s.to_move(), self.split(action)) else {
            return false;
        };
        let mut list = ActionList::new();
        self.piece_actions(s, p, kind, &mut list);
        list.contains(&action)
    }

    #[inline]
    fn apply(&self, s: &mut MarathonState, action: Action) {
        let Some(p) = s.to_move() else { return };
        let Some((kind, res)) = self.split(action) else {
            return;
        };
        self.apply_parts(s, p, kind, res);
    }

    fn returns(&self, s: &MarathonState) -> Returns {
        returns_from_places(&self.ranking(s))
    }

    #[inline]
    fn hash(&self, s: &MarathonState) -> u64 {
        s.hash
    }

    /// The hash leaves the ply count out; the ply limit makes values depend on it.
    fn search_key(&self, s: &MarathonState) -> u64 {
        s.hash ^ splitmix64(0x6d61_7261_7468_6f6e ^ s.ply as u64)
    }
}

impl MarathonGame {
    /// Appends the legal actions of player `p`'s (to move) piece of `kind`, ascending.
    #[inline(always)]
    fn piece_actions(&self, s: &MarathonState, p: usize, kind: usize, out: &mut ActionList) {
        let n = self.course.len() as u32;
        let finish = 9 * n;
        let occ = s.occupied;
        let slot = p * PIECES + kind;
        let base = kind as u32 * self.per_kind;
        match s.cell[slot] {
            FINISHED => {}
            WAITING => {
                let mut pm = PieceMoves::new();
                movegen::entry_moves(&self.course, kind, occ, &mut pm);
                let mut cells = pm.cells;
                while cells != 0 {
                    let c = cells.trailing_zeros();
                    let mut m = pm.masks[c as usize];
                    while m != 0 {
                        out.push(base + c * 9 + m.trailing_zeros());
                        m &= m - 1;
                    }
                    cells &= cells - 1;
                }
                if pm.finish {
                    out.push(base + finish);
                }
            }
            c => {
                let set = self.tables.set(c, kind);
                let f = s.facing[slot];
                let free = set.free_for(occ, f);
                if f == UPRIGHT {
                    set.emit(free, kind, base, finish, out);
                } else {
                    movegen::lying_emit(set, free, kind, c, base, finish, out);
                }
            }
        }
    }

    /// Plays the move of player `p` (to move) that leaves its piece of `kind` at `res`, then
    /// passes the turn to the next player with a legal action.
    #[inline(always)]
    fn apply_parts(&self, s: &mut MarathonState, p: usize, kind: usize, res: u32) {
        if self.move_piece::<true>(s, p, kind, res) {
            let mut q = p;
            for _ in 0..self.players {
                q += 1;
                if q == self.players {
                    q = 0;
                }
                if self.has_legal(s, q) {
                    self.set_turn::<true>(s, q as u8);
                    return;
                }
            }
            self.set_turn::<true>(s, NOBODY);
        }
    }

    #[inline(always)]
    fn set_turn<const HASH: bool>(&self, s: &mut MarathonState, to_move: u8) {
        if HASH {
            s.hash ^= turn_key(s.to_move) ^ turn_key(to_move);
        }
        s.to_move = to_move;
    }

    /// Moves the piece and counts the ply; ends the game on a win or at the ply limit. Returns
    /// whether the game goes on (the caller then picks the next player).
    #[inline(always)]
    /// With `HASH` false the hash is left stale (the playout loop recomputes it at the end).
    fn move_piece<const HASH: bool>(
        &self,
        s: &mut MarathonState,
        p: usize,
        kind: usize,
        res: u32,
    ) -> bool {
        let slot = p * PIECES + kind;
        let (old_cell, old_facing) = (s.cell[slot], s.facing[slot]);
        let n = self.course.len() as u32;
        let (new_cell, new_facing) = if res == 9 * n {
            (FINISHED, UPRIGHT)
        } else {
            ((res / 9) as u8, (res % 9) as u8)
        };
        if (old_cell as usize) < MAX_CELLS {
            s.occupied &= !(1u64 << old_cell);
        }
        if (new_cell as usize) < MAX_CELLS {
            s.occupied |= 1u64 << new_cell;
        }
        s.cell[slot] = new_cell;
        s.facing[slot] = new_facing;
        if HASH {
            s.hash ^= self.piece_key(slot, old_cell, old_facing)
                ^ self.tables.zobrist[slot * self.tables.stride + res as usize];
        }
        s.ply += 1;
        if new_cell == FINISHED
            && s.cell[p * PIECES..p * PIECES + PIECES]
                .iter()
                .all(|&c| c == FINISHED)
        {
            s.winner = p as u8;
            self.set_turn::<HASH>(s, NOBODY);
            false
        } else if s.ply >= self.ply_limit {
            self.set_turn::<HASH>(s, NOBODY);
            false
        } else {
            true
        }
    }
}
