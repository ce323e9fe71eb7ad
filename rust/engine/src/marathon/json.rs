//! JSON form of a state: the variant (name, players, ply limit, course map) and the position.
//! Reading it checks everything, so untrusted text gives an error, never a broken state.
//!
//! ```json
//! {"game": "marathon", "version": 1, "name": "marathon", "description": "…", "players": 2,
//!  "ply_limit": 500, "course": "SSS\n###\n…\nFFF\n",
//!  "pieces": [{"owner": 0, "kind": "mama", "status": "on course", "cell": [3, 1], "facing": "SE"},
//!             {"owner": 0, "kind": "papa", "status": "waiting", "cell": null, "facing": null}, …],
//!  "to_move": 1, "ply": 12, "winner": null}
//! ```
//!
//! `pieces` lists every piece once, by owner then kind; `to_move` is `null` when the game is over.

use serde::{Deserialize, Serialize};

use super::{Config, Dir, Kind, MarathonGame, MarathonState, Piece, Place};
use crate::error::invalid;
use crate::error::{Error, Result};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PieceJson {
    owner: usize,
    kind: String,
    status: String,
    cell: Option<(i32, i32)>,
    facing: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateJson {
    game: String,
    version: u32,
    name: String,
    #[serde(default)]
    description: String,
    players: usize,
    ply_limit: u32,
    course: String,
    pieces: Vec<PieceJson>,
    to_move: Option<usize>,
    ply: u32,
    winner: Option<usize>,
}

/// A game and a position as one JSON object (the config, every piece, the player to move,
/// the ply and the winner), which [`from_json`] reads back.
pub fn to_json(game: &MarathonGame, s: &MarathonState) -> String {
    let pieces = game
        .pieces(s)
        .into_iter()
        .map(|p| PieceJson {
            owner: p.owner,
            kind: p.kind.name().into(),
            status: p.place.status().into(),
            cell: p.place.cell(),
            facing: p.place.facing().map(|f| f.name().into()),
        })
        .collect();
    let json = StateJson {
        game: "marathon".into(),
        version: 1,
        name: game.name().into(),
        description: game.description().into(),
        players: game.players(),
        ply_limit: game.ply_limit(),
        course: game.course().to_map(),
        pieces,
        to_move: s.to_move(),
        ply: s.ply(),
        winner: s.winner(),
    };
    serde_json::to_string(&json).expect("plain data serializes")
}

/// A piece from its fields as people write them (`kind` "mama"/"M", `status` "waiting" /
/// "on course" / "finished", `facing` "N".."NW" or none for upright); `what` names it in errors.
///
/// # Errors
/// `Error::Invalid` for an unknown kind, status or facing, or fields that do not fit together.
pub fn piece_from_parts(
    what: &str,
    owner: usize,
    kind: &str,
    status: &str,
    cell: Option<(i32, i32)>,
    facing: Option<&str>,
) -> Result<Piece> {
    let kind = Kind::parse(kind).ok_or_else(|| {
        Error::Invalid(format!("{what}: kind {kind:?} is not mama, papa or baby"))
    })?;
    let facing = match facing {
        None => None,
        Some(f) => Some(Dir::parse(f).ok_or_else(|| {
            Error::Invalid(format!(
                "{what}: facing {f:?} is not one of N, NE, E, SE, S, SW, W, NW (or None for upright)"
            ))
        })?),
    };
    let status_key = status.trim().to_ascii_lowercase().replace(['_', '-'], " ");
    let place = match (status_key.as_str(), cell) {
        ("waiting", None) => Place::Waiting,
        ("finished", None) => Place::Finished,
        ("on course", Some(cell)) => Place::OnCourse { cell, facing },
        ("waiting" | "finished", Some(_)) => {
            return invalid!("{what}: a {status_key} piece has no cell (cell must be None)")
        }
        ("on course", None) => {
            return invalid!("{what}: a piece on the course needs a cell (row, col)")
        }
        _ => {
            return invalid!(
                "{what}: status {status:?} is not \"waiting\", \"on course\" or \"finished\""
            )
        }
    };
    if facing.is_some() && !matches!(place, Place::OnCourse { .. }) {
        return invalid!(
            "{what}: only a piece on the course can face a direction (facing must be None)"
        );
    }
    Ok(Piece { owner, kind, place })
}

/// Reads what [`to_json`] writes.
///
/// # Errors
/// `Error::Invalid` for text that is not such a JSON object, or a position that breaks the
/// rules or the engine's limits.
pub fn from_json(text: &str) -> Result<(MarathonGame, MarathonState)> {
    let json: StateJson = serde_json::from_str(text).map_err(|e| {
        Error::Invalid(format!(
            "Marathon state JSON: {}",
            crate::error::clip_message(&e.to_string())
        ))
    })?;
    if json.game != "marathon" {
        return invalid!(
            "state JSON: game {}, expected \"marathon\"",
            crate::error::quote(&json.game)
        );
    }
    if json.version != 1 {
        return invalid!(
            "state JSON: version {} is not supported (1 is)",
            json.version
        );
    }
    let config = Config {
        name: json.name,
        description: json.description,
        players: json.players,
        ply_limit: json.ply_limit,
        course: json.course,
    };
    let game = config.build()?;
    if json.pieces.len() != game.players() * super::PIECES {
        return invalid!(
            "state JSON: {} pieces, but {} players have {} (every piece is listed)",
            json.pieces.len(),
            game.players(),
            game.players() * super::PIECES
        );
    }
    let pieces = json
        .pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            piece_from_parts(
                &format!("pieces[{i}]"),
                p.owner,
                &p.kind,
                &p.status,
                p.cell,
                p.facing.as_deref(),
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let s = game.position(&pieces, json.to_move.unwrap_or(0), json.ply)?;
    if s.to_move() != json.to_move && json.to_move.is_some() {
        return invalid!(
            "state JSON: to_move {:?}, but in this position {}",
            json.to_move,
            match s.to_move() {
                Some(p) => format!("that player cannot move and player {p} moves"),
                None => "the game is over".into(),
            }
        );
    }
    if json.to_move.is_none() && s.to_move().is_some() {
        return invalid!("state JSON: to_move null, but the game is not over");
    }
    if s.winner() != json.winner {
        return invalid!(
            "state JSON: winner {:?}, but the pieces give {:?}",
            json.winner,
            s.winner()
        );
    }
    Ok((game, s))
}
