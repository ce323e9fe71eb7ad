//! JSON form of a state: the rules, the board as dealt, and the position. Reading it checks
//! everything, so untrusted text gives an error, never a broken state.

use serde::{Deserialize, Serialize};

use super::bitboard::{Bitboard, Word};
use super::position::make_game;
use super::rules::{Order, Placement, Rules};
use super::state::{FishGame, FishState, NOBODY};
use crate::error::invalid;
use crate::error::{Error, Result};

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
    scores: Vec<(u16, u16)>,
    to_move: Option<usize>,
    /// Placement turns played.
    turn: usize,
    /// `"standard"` when the board was dealt for this game by a variant that deals one per game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deal: Option<String>,
}

/// A game and a position as one JSON object (rules, board, penguins, scores, player to move
/// and placement turn), which [`from_json`] reads back.
pub fn to_json<W: Word>(game: &FishGame<W>, s: &FishState<W>) -> String {
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
        deal: game.is_dealt().then(|| "standard".to_string()),
    };
    serde_json::to_string(&json).expect("plain data serializes")
}

/// Reads what [`to_json`] writes.
///
/// # Errors
/// `Error::Parse` for text that is not such a JSON object, `Error::Invalid` for a position
/// that breaks the rules or the engine's limits.
pub fn from_json<W: Word>(text: &str) -> Result<(FishGame<W>, FishState<W>)> {
    build(parse(text)?)
}

/// The parsed JSON of a state, not checked yet.
pub struct Parsed(StateJson);

impl Parsed {
    /// The board grid as given.
    pub fn grid(&self) -> &[Vec<u8>] {
        &self.0.board
    }
}

/// Reads the JSON object of [`to_json`] without checking the position: [`build`] does.
///
/// # Errors
/// `Error::Invalid` for text that is not such a JSON object.
pub fn parse(text: &str) -> Result<Parsed> {
    serde_json::from_str(text).map(Parsed).map_err(|e| {
        Error::Invalid(format!(
            "Fish state JSON: {}",
            crate::error::clip_message(&e.to_string())
        ))
    })
}

/// The game and state of parsed JSON on the word `W`, every field checked.
///
/// # Errors
/// `Error::Invalid` for a position that breaks the rules or the engine's limits, or a board
/// larger than `W` holds.
pub fn build<W: Word>(Parsed(j): Parsed) -> Result<(FishGame<W>, FishState<W>)> {
    if j.game != "fish" {
        return invalid!(
            "Fish state JSON: game = {}, expected \"fish\"",
            crate::error::quote(&j.game)
        );
    }
    if j.version != 1 {
        return invalid!(
            "Fish state JSON: version = {}, this engine reads version 1",
            j.version
        );
    }
    let rules = Rules::new(j.players, Some(j.penguins_per_player), j.placement, j.order)?;
    let mut game = make_game(rules, &j.board)?;
    match j.deal.as_deref() {
        None => {}
        Some("standard") => {
            game = game.as_dealt().ok_or_else(|| {
                Error::Invalid(
                    "Fish state JSON: deal = \"standard\", but the board is not a standard deal \
                     (8 x 8 layout, 30/20/10 floes of 1/2/3 fish)"
                        .into(),
                )
            })?;
        }
        Some(other) => {
            return invalid!(
                "Fish state JSON: deal = {}, expected \"standard\" or no deal",
                crate::error::quote(other)
            )
        }
    }
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
    check_scores(&game, &s)?;
    s.hash = game.hash_from_scratch(&s);
    if let (false, Some(p)) = (placing, j.to_move) {
        game.normalize(&mut s, p);
    }
    Ok((game, s))
}

fn check_placement<W: Word>(game: &FishGame<W>, s: &FishState<W>, j: &StateJson) -> Result<()> {
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
    if rules.placement == Placement::OneFish && !s.occupied().is_subset(game.board().one_fish()) {
        let cell = (s.occupied() - game.board().one_fish())
            .into_iter()
            .next()
            .expect("not a subset");
        let (r, c) = game.board().coords(cell);
        return invalid!(
            "Fish state JSON: during placement under the one-fish rule every penguin stands \
             where it was placed, on a one-fish floe, but the penguin at ({r}, {c}) stands on \
             {} fish",
            game.board().fish(cell)
        );
    }
    if let Some(p) = (0..rules.players()).find(|&p| s.score(p) != (0, 0)) {
        let (fish, floes) = s.score(p);
        return invalid!(
            "Fish state JSON: nobody scores during placement, but player {p} has {fish} fish \
             and {floes} floes"
        );
    }
    if game.placement_cells(s).is_empty() {
        return invalid!(
            "Fish state JSON: no floe is left to place on, so placement would be over"
        );
    }
    Ok(())
}

/// The scores must be what some sequence of moves could take from the floes removed so far:
/// every floe taken is a removed floe (removed floes nobody took were unreachable), so in all
/// at most as many floes as were removed, and each player's fish (and everyone's together)
/// between the fish on the fewest-fish and the most-fish removed floes of that number.
fn check_scores<W: Word>(game: &FishGame<W>, s: &FishState<W>) -> Result<()> {
    let board = game.board();
    let mut removed: Vec<u32> = (board.floes() - s.floes)
        .into_iter()
        .map(|c| board.fish(c) as u32)
        .collect();
    removed.sort_unstable();
    let bounds = |taken: usize| -> Option<(u32, u32)> {
        (taken <= removed.len()).then(|| {
            (
                removed[..taken].iter().sum(),
                removed[removed.len() - taken..].iter().sum(),
            )
        })
    };
    let players = game.rules().players();
    let scores: Vec<(u32, usize)> = (0..players)
        .map(|p| {
            let (f, t) = s.score(p);
            (f as u32, t as usize)
        })
        .collect();
    let total = scores
        .iter()
        .fold((0, 0), |(f, t), &(pf, pt)| (f + pf, t + pt));
    for (who, (fish, taken)) in scores
        .iter()
        .enumerate()
        .map(|(p, &sc)| (format!("player {p}"), sc))
        .chain(std::iter::once(("the players together".to_string(), total)))
    {
        match bounds(taken) {
            None => {
                return invalid!(
                    "Fish state JSON: {who} took {taken} floes, but only {} floes are gone \
                     from the board",
                    removed.len()
                )
            }
            Some((lo, hi)) if !(lo..=hi).contains(&fish) => {
                return invalid!(
                    "Fish state JSON: {who} has {fish} fish from {taken} floes, but {taken} of \
                     the floes gone from the board hold {lo} to {hi} fish"
                )
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fish::board::Board;

    /// `from_json` of `to_json(state)` with `edit` applied to the JSON value.
    fn edited(
        game: &FishGame,
        s: &FishState,
        edit: impl FnOnce(&mut serde_json::Value),
    ) -> Result<(FishGame, FishState)> {
        let mut v: serde_json::Value = serde_json::from_str(&to_json(game, s)).unwrap();
        edit(&mut v);
        from_json(&v.to_string())
    }

    #[test]
    fn placement_states_must_be_reachable() {
        let game: FishGame = FishGame::new(Rules::standard(2).unwrap(), Board::standard(3));
        let mut s = game.initial_state();
        let one = game.board().one_fish().into_iter().next().unwrap();
        game.place(&mut s, one);
        assert!(edited(&game, &s, |_| {}).is_ok());
        // Moved onto a 3-fish floe: the one-fish rule forbids placing there.
        let three = game
            .board()
            .floes()
            .into_iter()
            .find(|&c| game.board().fish(c) == 3)
            .unwrap();
        let (r, c) = game.board().coords(three);
        let e = edited(&game, &s, |v| {
            v["penguins"][0] = serde_json::json!([[r, c]])
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("one-fish floe") && e.contains("3 fish"), "{e}");
        // The same under the any-floe rule is fine.
        let any: FishGame = FishGame::new(
            Rules::new(2, None, Placement::Any, Order::RoundRobin).unwrap(),
            Board::standard(3),
        );
        let mut t = any.initial_state();
        any.place(&mut t, three);
        assert!(edited(&any, &t, |_| {}).is_ok());
        // Nobody scores during placement.
        let e = edited(&game, &s, |v| v["scores"][1] = serde_json::json!([0, 0]))
            .map(|_| ())
            .and_then(|_| {
                edited(&game, &s, |v| v["scores"][1] = serde_json::json!([3, 1])).map(|_| ())
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("nobody scores during placement"), "{e}");
    }

    #[test]
    fn scores_must_come_from_removed_floes() {
        let game: FishGame = FishGame::new(
            Rules::new(2, Some(1), Placement::Any, Order::RoundRobin).unwrap(),
            Board::from_grid(&[vec![1, 2, 3, 1], vec![3, 1, 2, 1]]).unwrap(),
        );
        let mut s = game.initial_state();
        let moves = game.legal_moves(&s);
        game.apply_move(&mut s, moves[0]);
        let moves = game.legal_moves(&s);
        game.apply_move(&mut s, moves[moves.len() - 1]);
        let moves = game.legal_moves(&s);
        game.apply_move(&mut s, moves[0]);
        let (fish, taken) = s.score(0);
        assert_eq!(taken, 1);
        assert!(edited(&game, &s, |_| {}).is_ok());
        let cases = [
            (serde_json::json!([fish + 40, taken]), "fish from"),
            (serde_json::json!([fish, taken + 9]), "floes are gone"),
            (serde_json::json!([0, taken]), "fish from"),
        ];
        for (score, want) in cases {
            let e = edited(&game, &s, |v| v["scores"][0] = score.clone())
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
        }
        // Both players claiming the one floe gone.
        let e = edited(&game, &s, |v| {
            v["scores"][1] = serde_json::json!([fish, taken])
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("the players together"), "{e}");
    }
}
