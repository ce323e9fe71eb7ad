//! The Fish game value ([`FishGame`]: rules and board) and its small `Copy` state
//! ([`FishState<W>`]), with the whole game flow: placement, slides, removal of unreachable floes,
//! stuck players lifting their penguins, the end, scores and ranking. Random playouts are in
//! [`super::playout`].

use super::bitboard::{Bitboard, Cell, Word};
use super::board::{Board, Direction};
use super::moves::FishMove;
use super::rules::{Placement, Rules, Scores, MAX_FISH_PLAYERS};
use super::zobrist;
use crate::game::{self, Action, ActionList, Game, Returns, MAX_ACTIONS};
use crate::rng::splitmix64;

/// `to_move` of a finished game.
pub const NOBODY: u8 = 0xFF;

/// A position: the floes left, every penguin, the scores so far and whose turn it is.
/// `Copy` and small (72 bytes on the standard board's `u64` word): search copies it freely.
/// The fish on each floe live in the [`Board`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FishState<W: Word = u64> {
    /// Floes still in play (occupied ones included).
    pub(super) floes: Bitboard<W>,
    /// Penguins on the board, per player (unused players stay empty).
    pub(super) penguins: [Bitboard<W>; MAX_FISH_PLAYERS],
    /// Zobrist hash of floes, penguins, player to move and placement turn (not the scores).
    pub(super) hash: u64,
    /// Fish collected per player.
    pub(super) fish: [u16; MAX_FISH_PLAYERS],
    /// Floes collected per player.
    pub(super) taken: [u16; MAX_FISH_PLAYERS],
    /// The player to move, or [`NOBODY`] when the game is over.
    pub(super) to_move: u8,
    /// Placement turns played; equals [`Rules::placement_turns`] once placement is over.
    pub(super) turn: u8,
}

/// The phase of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Penguins are being placed.
    Placement,
    /// Penguins slide.
    Movement,
    /// Nobody can move: the game is over.
    Over,
}

crate::names::named_enum!(Phase {
    Placement => "placement",
    Movement => "movement",
    Over => "over",
});

/// A Fish game: the rules and one board. States refer to it for the fish on each floe.
///
/// A game whose board was dealt for it from the standard layout ([`FishGame::dealt`]) says so:
/// it is one game of a variant that deals a board per game, not a variant with that board
/// fixed, and the two compare unequal.
/// `W` is the bitboard word of the board (see [`super::bitboard::Word`]): `u64` for boards of
/// at most 64 cells (the standard one), wider for larger ones; [`super::AnyFish`] picks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FishGame<W: Word = u64> {
    rules: Rules,
    board: Board<W>,
    dealt: bool,
}

impl<W: Word> FishState<W> {
    /// Floes still in play (occupied ones included).
    #[inline]
    pub fn floes(&self) -> Bitboard<W> {
        self.floes
    }

    /// The penguins of `player` on the board (none for a player who lifted them, or an unused
    /// player slot).
    #[inline]
    pub fn penguins(&self, player: usize) -> Bitboard<W> {
        self.penguins[player]
    }

    /// Fish collected by `player` so far.
    #[inline]
    pub fn fish(&self, player: usize) -> u16 {
        self.fish[player]
    }

    /// Floes collected by `player` so far.
    #[inline]
    pub fn taken(&self, player: usize) -> u16 {
        self.taken[player]
    }

    /// Placement turns played; equals [`Rules::placement_turns`] once placement is over.
    #[inline]
    pub fn turn(&self) -> usize {
        self.turn as usize
    }

    /// The Zobrist hash of floes, penguins, player to move and placement turn (not the scores):
    /// the value [`Game::hash`] gives.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Every penguin on the board.
    #[inline]
    pub fn occupied(&self) -> Bitboard<W> {
        self.penguins[0] | self.penguins[1] | self.penguins[2] | self.penguins[3]
    }

    /// Floes a penguin may slide onto.
    #[inline]
    pub fn empty(&self) -> Bitboard<W> {
        self.floes - self.occupied()
    }

    /// The player to move; `None` when the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<usize> {
        (self.to_move != NOBODY).then_some(self.to_move as usize)
    }

    /// `(fish, floes)` collected by `player`.
    #[inline]
    pub fn score(&self, player: usize) -> (u16, u16) {
        (self.fish[player], self.taken[player])
    }

    #[inline]
    pub(super) fn set_to_move(&mut self, player: u8) {
        self.hash ^= zobrist::TO_MOVE[self.to_move.min(4) as usize]
            ^ zobrist::TO_MOVE[player.min(4) as usize];
        self.to_move = player;
    }
}

impl FishGame<u64> {
    /// A game on a standard board dealt from `seed` ([`Board::standard`]), marked as dealt.
    pub fn dealt(rules: Rules, seed: u64) -> FishGame {
        FishGame {
            rules,
            board: Board::standard(seed),
            dealt: true,
        }
    }
}

impl<W: Word> FishGame<W> {
    /// A game with these rules on this board.
    pub fn new(rules: Rules, board: Board<W>) -> Self {
        FishGame {
            rules,
            board,
            dealt: false,
        }
    }

    /// Whether the board was dealt for this game from the standard layout (see [`FishGame`]).
    pub fn is_dealt(&self) -> bool {
        self.dealt
    }

    /// This game marked as dealt when its board has the standard layout and fish
    /// ([`FishGame::has_standard_fish`]), else `None`.
    pub fn as_dealt(&self) -> Option<Self> {
        self.has_standard_fish().then(|| Self {
            dealt: true,
            ..self.clone()
        })
    }

    /// Whether the board has the standard layout and fish (30, 20 and 10 floes of 1, 2 and 3
    /// fish), dealt or given cell by cell.
    pub fn has_standard_fish(&self) -> bool {
        let shape = Board::standard_shape();
        let count = |f: u8| {
            self.board
                .floes()
                .into_iter()
                .filter(|&c| self.board.fish(c) == f)
                .count()
        };
        self.board.rows() == shape.rows()
            && self.board.cols() == shape.cols()
            && self.board.floes().into_iter().eq(shape.floes())
            && (count(1), count(2), count(3)) == (30, 20, 10)
    }

    /// The rules.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The board (the fish on every floe at the start).
    #[inline]
    pub fn board(&self) -> &Board<W> {
        &self.board
    }

    /// The opening position: every floe, no penguin, player 0 to place.
    pub fn initial_state(&self) -> FishState<W> {
        let mut s = FishState {
            floes: self.board.floes(),
            penguins: [Bitboard::EMPTY; MAX_FISH_PLAYERS],
            hash: 0,
            fish: [0; MAX_FISH_PLAYERS],
            taken: [0; MAX_FISH_PLAYERS],
            to_move: NOBODY,
            turn: 0,
        };
        s.hash = self.hash_from_scratch(&s);
        self.next_placement(&mut s);
        s
    }

    /// The hash of a state computed from nothing (the state keeps it up to date incrementally).
    pub fn hash_from_scratch(&self, s: &FishState<W>) -> u64 {
        let mut h = zobrist::TO_MOVE[s.to_move.min(4) as usize] ^ zobrist::TURN[s.turn as usize];
        for cell in s.floes {
            h ^= zobrist::FLOE[cell as usize];
        }
        for (p, bb) in s.penguins.iter().enumerate() {
            for cell in *bb {
                h ^= zobrist::PENGUIN[p][cell as usize];
            }
        }
        h
    }

    /// The phase of `s`.
    pub fn phase(&self, s: &FishState<W>) -> Phase {
        if s.to_move == NOBODY {
            Phase::Over
        } else if (s.turn as usize) < self.rules.placement_turns() {
            Phase::Placement
        } else {
            Phase::Movement
        }
    }

    /// The floes a penguin may be placed on now.
    #[inline]
    pub fn placement_cells(&self, s: &FishState<W>) -> Bitboard<W> {
        let free = s.empty();
        match self.rules.placement {
            Placement::OneFish => free & self.board.one_fish(),
            Placement::Any => free,
        }
    }

    /// Whether `player` has a penguin that can slide.
    #[inline]
    pub fn can_move(&self, s: &FishState<W>, player: usize) -> bool {
        let empty = s.empty();
        s.penguins[player]
            .into_iter()
            .fold(Bitboard::EMPTY, |n, c| n | self.board.adjacent(c))
            .intersects(empty)
    }

    // --- Game flow. ---

    /// Hands the next placement turn out, or ends placement when every turn is used or no
    /// eligible floe is left (then nobody can place, so the remaining turns are skipped).
    fn next_placement(&self, s: &mut FishState<W>) {
        let total = self.rules.placement_turns();
        if (s.turn as usize) < total && self.placement_cells(s).any() {
            s.set_to_move(self.rules.placer(s.turn as usize) as u8);
            return;
        }
        s.hash ^= zobrist::TURN[s.turn as usize] ^ zobrist::TURN[total];
        s.turn = total as u8;
        self.remove_unreachable(s);
        // Movement always starts with player 0, whatever the placement order was.
        self.pass_turn(s, 0, true);
    }

    /// Gives the turn to the first player from `first` on (cyclically) who has penguins on the
    /// board, lifting each such player who cannot move; the game is over when nobody is left.
    pub(crate) fn pass_turn(&self, s: &mut FishState<W>, first: usize, prune: bool) {
        let n = self.rules.players();
        // `first` is at most `n`; stepping with a wrap avoids a division per player.
        let mut p = if first >= n { first - n } else { first };
        for _ in 0..n {
            if s.penguins[p].any() {
                if self.can_move(s, p) {
                    s.set_to_move(p as u8);
                    return;
                }
                self.lift(s, p);
                if prune {
                    self.remove_unreachable(s);
                }
            }
            p = if p + 1 == n { 0 } else { p + 1 };
        }
        s.set_to_move(NOBODY);
    }

    /// A stuck player lifts every penguin and keeps the floes under them.
    pub(super) fn lift(&self, s: &mut FishState<W>, player: usize) {
        for cell in s.penguins[player] {
            s.fish[player] += self.board.fish(cell) as u16;
            s.taken[player] += 1;
            s.hash ^= zobrist::FLOE[cell as usize] ^ zobrist::PENGUIN[player][cell as usize];
        }
        s.floes = s.floes - s.penguins[player];
        s.penguins[player] = Bitboard::EMPTY;
    }

    /// Removes every group of floes that holds no penguin (nobody scores them).
    pub fn remove_unreachable(&self, s: &mut FishState<W>) {
        let keep = self.board.fill(s.occupied(), s.floes);
        for cell in s.floes - keep {
            s.hash ^= zobrist::FLOE[cell as usize];
        }
        s.floes = keep;
    }

    /// Places a penguin of the player to move (unchecked).
    pub fn place(&self, s: &mut FishState<W>, cell: Cell) {
        let p = s.to_move as usize;
        s.penguins[p] = s.penguins[p].with(cell);
        s.hash ^= zobrist::PENGUIN[p][cell as usize]
            ^ zobrist::TURN[s.turn as usize]
            ^ zobrist::TURN[s.turn as usize + 1];
        s.turn += 1;
        self.next_placement(s);
    }

    /// Slides a penguin of the player to move (unchecked). With `prune == false` unreachable
    /// floes stay on the board: that never changes a legal move or a score, and saves time in
    /// playouts that only need the final scores.
    pub fn slide(&self, s: &mut FishState<W>, from: Cell, to: Cell, prune: bool) {
        let p = s.to_move as usize;
        self.move_penguin(s, from, to);
        if prune && self.board.may_split(from, s.floes) {
            self.remove_unreachable(s);
        }
        self.pass_turn(s, p + 1, prune);
    }

    /// The slide itself: the penguin moves, the mover keeps the floe it left.
    #[inline]
    pub(super) fn move_penguin(&self, s: &mut FishState<W>, from: Cell, to: Cell) {
        let p = s.to_move as usize;
        s.penguins[p] = s.penguins[p].without(from).with(to);
        s.floes = s.floes.without(from);
        s.fish[p] += self.board.fish(from) as u16;
        s.taken[p] += 1;
        s.hash ^= zobrist::PENGUIN[p][from as usize]
            ^ zobrist::PENGUIN[p][to as usize]
            ^ zobrist::FLOE[from as usize];
    }

    /// Plays a move (unchecked, as [`Game::apply`]).
    pub fn apply_move(&self, s: &mut FishState<W>, mv: FishMove) {
        match mv {
            FishMove::Place(cell) => self.place(s, cell),
            FishMove::Slide(from, to) => self.slide(s, from, to, true),
        }
    }

    // --- Moves and actions. ---

    /// Calls `f(from, dir, destinations)` for every penguin of the player to move and every
    /// direction with at least one destination (cozy-chess style: a from-cell plus a bitboard).
    #[inline]
    pub fn for_each_slide(
        &self,
        s: &FishState<W>,
        mut f: impl FnMut(Cell, Direction, Bitboard<W>),
    ) {
        if s.to_move == NOBODY {
            return;
        }
        let empty = s.empty();
        for from in s.penguins[s.to_move as usize] {
            self.board.slides(from, empty, |dir, dests| {
                if dests.any() {
                    f(from, dir, dests);
                }
            });
        }
    }

    /// The legal moves of `s`, in the order of their actions.
    pub fn legal_moves(&self, s: &FishState<W>) -> Vec<FishMove> {
        let mut out = ActionList::new();
        self.legal_actions(s, &mut out);
        out.iter()
            .map(|&a| self.move_of(a).expect("legal actions decode"))
            .collect()
    }

    /// The number of legal moves, without listing them.
    pub fn count_moves(&self, s: &FishState<W>) -> usize {
        match self.phase(s) {
            Phase::Over => 0,
            Phase::Placement => self.placement_cells(s).count() as usize,
            Phase::Movement => {
                // No branch per direction: every cut ray is counted, empty or not.
                let empty = s.empty();
                let empty_rev = Bitboard(empty.0.reverse());
                let mut n = 0;
                for from in s.penguins[s.to_move as usize] {
                    self.board
                        .slide_counts(from, empty, empty_rev, |_, k| n += k);
                }
                n as usize
            }
        }
    }

    /// The action of a move, `None` if no action encodes it (not on one line, off the grid).
    pub fn action_of(&self, mv: FishMove) -> Option<Action> {
        let on_grid = |c: Cell| self.board.cells().contains(c);
        match mv {
            FishMove::Place(cell) => on_grid(cell).then(|| self.board.dense(cell) as Action),
            FishMove::Slide(from, to) => {
                if !on_grid(from) || !on_grid(to) {
                    return None;
                }
                let dir = Direction::ALL
                    .into_iter()
                    .find(|&d| self.board.ray(from, d).contains(to))?;
                let ray = self.board.ray(from, dir);
                // The ray's cells from `from` up to `to`, `to` excluded.
                let to_bit = W::bit(to as usize);
                let before = if dir.is_increasing() {
                    Bitboard(ray.0 & to_bit.below_lowest())
                } else {
                    Bitboard(ray.0 & to_bit.above_highest())
                };
                Some(self.slide_action(from, dir, before.count() as usize + 1))
            }
        }
    }

    #[inline]
    fn slide_action(&self, from: Cell, dir: Direction, distance: usize) -> Action {
        self.board.slide_action(from, dir, distance) as Action
    }

    /// The move of an action, `None` if the action is out of range or runs off the grid.
    #[inline]
    pub fn move_of(&self, action: Action) -> Option<FishMove> {
        self.board.action_cells(action as usize).map(|(from, to)| {
            if from == to {
                FishMove::Place(to)
            } else {
                FishMove::Slide(from, to)
            }
        })
    }

    /// Why `mv` is illegal in `s`, or `None` if it is legal.
    pub fn illegal_reason(&self, s: &FishState<W>, mv: FishMove) -> Option<String> {
        let on_grid = |c: Cell| self.board.cells().contains(c);
        let cell_name = |c: Cell| super::notation::cell_name(&self.board, c);
        match (self.phase(s), mv) {
            (Phase::Over, _) => Some("the game is over".into()),
            (Phase::Placement, FishMove::Slide(..)) => Some(
                "penguins are still being placed: a placement (a single cell) is expected".into(),
            ),
            (Phase::Movement, FishMove::Place(_)) => {
                Some("every penguin is placed: a slide (from-to) is expected".into())
            }
            (Phase::Placement, FishMove::Place(cell)) => {
                if !on_grid(cell) {
                    Some("the cell is off the board".into())
                } else if !s.floes.contains(cell) {
                    Some(format!("there is no floe on {}", cell_name(cell)))
                } else if s.occupied().contains(cell) {
                    Some(format!("{} is occupied", cell_name(cell)))
                } else if !self.placement_cells(s).contains(cell) {
                    Some(format!(
                        "penguins are placed on one-fish floes, and {} has {} fish",
                        cell_name(cell),
                        self.board.fish(cell)
                    ))
                } else {
                    None
                }
            }
            (Phase::Movement, FishMove::Slide(from, to)) => {
                if !on_grid(from) || !on_grid(to) {
                    return Some("the cell is off the board".into());
                }
                if !s.penguins[s.to_move as usize].contains(from) {
                    return Some(format!(
                        "player {} has no penguin on {}",
                        s.to_move,
                        cell_name(from)
                    ));
                }
                let Some(dir) = Direction::ALL
                    .into_iter()
                    .find(|&d| self.board.ray(from, d).contains(to))
                else {
                    return Some(format!(
                        "{} is not in line with {}",
                        cell_name(to),
                        cell_name(from)
                    ));
                };
                if self.board.slide(from, dir, s.empty()).contains(to) {
                    None
                } else if !s.floes.contains(to) {
                    Some(format!("there is no floe on {}", cell_name(to)))
                } else if s.occupied().contains(to) {
                    Some(format!("{} is occupied", cell_name(to)))
                } else {
                    Some("the way is blocked by a penguin or a gap".into())
                }
            }
        }
    }

    // --- Results. ---

    /// Places per player (1 = first), comparing fish, then floes; equal players share a place.
    pub fn ranking(&self, s: &FishState<W>) -> Vec<usize> {
        let keys: Vec<_> = (0..self.rules.players()).map(|p| s.score(p)).collect();
        game::places(&keys)
    }

    /// Zero-sum returns of final scores (fish, then floes), as [`Game::returns`] gives them.
    pub fn returns_of(&self, scores: &Scores) -> Returns {
        game::returns_from_keys(&scores[..self.rules.players()])
    }
}

impl<W: Word> Game for FishGame<W> {
    type State = FishState<W>;

    fn num_players(&self) -> usize {
        self.rules.players()
    }

    fn num_actions(&self) -> usize {
        self.board.num_actions()
    }

    fn max_game_length(&self) -> usize {
        self.rules.placement_turns() + self.board.floes().count() as usize
    }

    #[inline]
    fn to_move(&self, s: &FishState<W>) -> Option<usize> {
        s.to_move()
    }

    fn legal_actions(&self, s: &FishState<W>, out: &mut ActionList) {
        out.clear();
        match self.phase(s) {
            Phase::Over => {}
            Phase::Placement => {
                out.extend(
                    self.placement_cells(s)
                        .into_iter()
                        .map(|c| self.board.dense(c) as Action),
                );
            }
            Phase::Movement => {
                let (empty, md) = (s.empty(), self.board.max_distance());
                let empty_rev = Bitboard(empty.0.reverse());
                let buf = out.as_mut_ptr();
                let mut len = 0;
                for from in s.penguins[s.to_move as usize] {
                    let base = self.slide_action(from, Direction::E, 1) as usize;
                    self.board.slide_counts(from, empty, empty_rev, |dir, n| {
                        let first = (base + dir as usize * md) as Action;
                        let n = n as usize;
                        // The slides of one direction are consecutive actions: they are
                        // written in blocks of 8 (one block on boards up to 9 wide), so that
                        // no branch depends on how many there are; `len` then counts only
                        // the real ones. Legal moves stay far below the capacity (at most 8
                        // penguins x 93 slides: `MAX_SIDE` keeps rays short), which the
                        // assert checks.
                        assert!(len + n + 8 <= MAX_ACTIONS, "action list full");
                        let mut k = 0;
                        loop {
                            let block: [Action; 8] =
                                std::array::from_fn(|i| first + (k + i) as Action);
                            // SAFETY: `len + k + 8 <= len + n + 8 <= MAX_ACTIONS`, the
                            // list's capacity, and `u32`s need no initialisation order.
                            unsafe {
                                buf.add(len + k)
                                    .cast::<[Action; 8]>()
                                    .write_unaligned(block)
                            };
                            k += 8;
                            if k >= n {
                                break;
                            }
                        }
                        len += n;
                    });
                }
                // SAFETY: the first `len` entries were written above.
                unsafe { out.set_len(len) };
            }
        }
    }

    fn apply(&self, s: &mut FishState<W>, action: Action) {
        if let Some(mv) = self.move_of(action) {
            self.apply_move(s, mv);
        }
    }

    /// Zero-sum returns from the ranking: +1 for each player placed below, −1 for each placed
    /// above, divided by `players − 1` (two players: +1 / −1, 0 / 0 for a draw).
    fn returns(&self, s: &FishState<W>) -> Returns {
        if s.to_move != NOBODY {
            return [0.0; crate::game::MAX_PLAYERS];
        }
        self.returns_of(&std::array::from_fn(|p| s.score(p)))
    }

    #[inline]
    fn hash(&self, s: &FishState<W>) -> u64 {
        s.hash
    }

    /// The hash leaves the scores out; values depend on them.
    fn search_key(&self, s: &FishState<W>) -> u64 {
        let mut k = s.hash;
        for p in 0..self.rules().players() {
            k ^= splitmix64((p as u64) << 32 ^ (s.fish[p] as u64) << 8 ^ s.taken[p] as u64);
        }
        k
    }

    /// Decodes the action and checks it, without listing every legal move.
    fn is_legal(&self, s: &FishState<W>, action: Action) -> bool {
        self.move_of(action)
            .is_some_and(|m| self.illegal_reason(s, m).is_none())
    }
}
