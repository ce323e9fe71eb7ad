//! JSON form of a state: the rules, the board as dealt, and the position. Reading it checks
//! everything, so untrusted text gives an error, never a broken state.

use serde::{Deserialize, Serialize};

use super::bitboard::Bitboard;
use super::position::make_game;
use super::rules::{Order, Placement, Rules};
use super::state::{FishGame, FishState, NOBODY};
use crate::error::{Error, Result};
use crate::invalid;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateJson {
    game: String,
    version: u32,
    players: usize,
    penguins_per_player: usize,
    placement: Placement,
    order: Order,
    /// The board as dealt: fish per cell, 0 for gaps.
    board: Vec<Vec<u8>>,
    /// Floes still in play, as `[row, col]`.
    floes: Vec<(i64, i64)>,
    /// Penguins on the board per player.
    penguins: Vec<Vec<(i64, i64)>>,
    /// `[fish, floes]` per player.
    scores: Vec<(u16, u8)>,
    to_move: Option<usize>,
    /// Placement turns played.
    turn: usize,
}

/// A game and a position as one JSON object (rules, board, penguins, scores, player to move
/// and placement turn), which [`from_json`] reads back.
pub fn to_json(game: &FishGame, s: &FishState) -> String {
    let board = game.board();
    let rc = |cell| {
        let (r, c) = board.coords(cell);
        (r as i64, c as i64)
    };
    let rules = game.rules();
    let players = rules.players();
    let json = StateJson {
        game: "fish".into(),
        version: 1,
        players,
        penguins_per_player: rules.penguins as usize,
        placement: rules.placement,
        order: rules.order,
        board: board.grid(),
        floes: s.floes.into_iter().map(rc).collect(),
        penguins: s.penguins[..players]
            .iter()
            .map(|bb| bb.into_iter().map(rc).collect())
            .collect(),
        scores: (0..players).map(|p| s.score(p)).collect(),
        to_move: s.to_move(),
        turn: s.turn as usize,
    };
    serde_json::to_string(&json).expect("plain data serializes")
}

/// Reads what [`to_json`] writes.
///
/// # Errors
/// `Error::Parse` for text that is not such a JSON object, `Error::Invalid` for a position
/// that breaks the rules or the engine's limits.
pub fn from_json(text: &str) -> Result<(FishGame, FishState)> {
    let j: StateJson =
        serde_json::from_str(text).map_err(|e| Error::Invalid(format!("Fish state JSON: {e}")))?;
    if j.game != "fish" {
        return invalid!("Fish state JSON: game = {:?}, expected \"fish\"", j.game);
    }
    if j.version != 1 {
        return invalid!(
            "Fish state JSON: version = {}, this engine reads version 1",
            j.version
        );
    }
    let rules = Rules::new(j.players, Some(j.penguins_per_player), j.placement, j.order)?;
    let game = make_game(rules, &j.board)?;
    if j.scores.len() != j.players || j.penguins.len() != j.players {
        return invalid!(
            "Fish state JSON: scores and penguins need one entry per player ({} players)",
            j.players
        );
    }
    let mut floes = Bitboard::EMPTY;
    for &(r, c) in &j.floes {
        floes = floes.with(game.floe_at(r, c, "a floe")?);
    }
    let total = rules.placement_turns();
    if j.turn > total {
        return invalid!(
            "Fish state JSON: turn = {}, at most {total} placement turns",
            j.turn
        );
    }
    let placing = j.turn < total;
    if let Some(p) = j.to_move {
        if p >= j.players {
            return invalid!(
                "Fish state JSON: to_move = {p}, players are numbered 0 to {}",
                j.players - 1
            );
        }
    }
    // Build the penguins through `position`, which checks them, then lay the rest on top.
    let mut s = game.lay_out(&j.penguins, j.to_move.unwrap_or(0), Some(&j.scores))?;
    if !s.occupied().is_subset(floes) {
        return invalid!("Fish state JSON: a penguin stands where no floe is left");
    }
    s.floes = floes;
    s.turn = j.turn as u8;
    s.to_move = match j.to_move {
        Some(p) => p as u8,
        None => NOBODY,
    };
    if placing {
        check_placement(&game, &s, &j)?;
    } else if j.to_move.is_none() && s.occupied().any() {
        return invalid!(
            "Fish state JSON: the game is over (to_move = null) but penguins are on the board"
        );
    }
    s.hash = game.hash_from_scratch(&s);
    if let (false, Some(p)) = (placing, j.to_move) {
        game.normalize(&mut s, p);
    }
    Ok((game, s))
}

fn check_placement(game: &FishGame, s: &FishState, j: &StateJson) -> Result<()> {
    let rules = game.rules();
    if s.floes != game.board().floes() {
        return invalid!("Fish state JSON: floes were removed during placement");
    }
    let Some(p) = j.to_move else {
        return invalid!(
            "Fish state JSON: placement is not over (turn = {}) but to_move = null",
            j.turn
        );
    };
    if p != rules.placer(j.turn) {
        return invalid!(
            "Fish state JSON: placement turn {} belongs to player {}, not {p}",
            j.turn,
            rules.placer(j.turn)
        );
    }
    for q in 0..rules.players() {
        let placed = (0..j.turn).filter(|&t| rules.placer(t) == q).count();
        if s.penguins[q].count() as usize != placed {
            return invalid!("Fish state JSON: player {q} has {} penguins after {} placement turns, expected {placed}", s.penguins[q].count(), j.turn);
        }
    }
    if game.placement_cells(s).is_empty() {
        return invalid!(
            "Fish state JSON: no floe is left to place on, so placement would be over"
        );
    }
    Ok(())
}
