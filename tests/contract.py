"""The contract every game's Python state API keeps, as reusable checks.

``tests/test_contract.py`` runs them on every bundled variant of both games (in the spirit of
OpenSpiel's ``basic_tests``); the rules modules run them on games no variant covers (Fish boards
with random rules, Marathon player counts and ply limits, hand-built positions).

Every check takes a state and asserts; none changes the state it is given.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np

import pingvinas as pv
from fish_reference import step

#: Values of a wrong type for a move: ``play`` and friends raise ``TypeError``. Bools are ints
#: to Python but are not actions (``play(True)`` must not play action 1).
WRONG_TYPES: list[Any] = [None, 1.5, 0.0, float("nan"), b"a1", [0, 1], (0, 1), {}, object()]
BOOLS = [True, False]
#: Text that denotes no move in any game: ``InvalidMoveError``.
GARBAGE_TEXT = ["", " ", "hello", "\x00", "-", "🐧", "?" * 300, "1e3", "0x10", "[]", "None", "12"]


def state_class(game: Any) -> type:
    return pv.FishState if isinstance(game, pv.Fish) else pv.MarathonState


def play_random(state: Any, rng: Any, plies: int = 10**9) -> Any:
    """Plays up to ``plies`` random legal moves (fewer if the game ends); returns the state."""
    for _ in range(plies):
        if state.is_over:
            break
        actions = state.legal_actions()
        state.play(actions[rng.randrange(len(actions))])
    return state


def denotes_a_move(state: Any, action: int) -> bool:
    """Whether an action number names a move, legal or not (docs/encodings.md): a number outside
    the action space, or a Fish slide that leaves the grid, names none (``InvalidMoveError``);
    any other illegal action is ``IllegalMoveError``."""
    if not 0 <= action < state.num_actions:
        return False
    if not isinstance(state, pv.FishState):
        return True
    rows, cols = state.board.shape
    n, span = rows * cols, max(rows, cols) - 1
    if action < n or span == 0:
        return action < n
    cell, k = divmod(action - n, span)
    (r, c), d = divmod(cell // 6, cols), cell % 6
    for _ in range(k + 1):
        r, c = step((r, c), d)
    return 0 <= r < rows and 0 <= c < cols


def rejection_error(state: Any, action: int) -> type:
    """The error a non-legal action number raises."""
    return pv.IllegalMoveError if denotes_a_move(state, action) else pv.InvalidMoveError


def snapshot(state: Any) -> tuple:
    """Everything a rejected call must leave as it was."""
    return state.to_json(), list(state.legal_actions()), hash(state), state.copy(), str(state)


def assert_unchanged(state: Any, snap: tuple) -> None:
    text, actions, h, twin, drawing = snap
    assert state.to_json() == text
    assert list(state.legal_actions()) == actions
    assert hash(state) == h
    assert state == twin
    assert str(state) == drawing


# --------------------------------------------------------------------------- cheap, every ply


def check_actions(state: Any) -> None:
    """Legal actions, the mask and legal moves are one list; the phase bookkeeping agrees."""
    actions = state.legal_actions()
    assert isinstance(actions, list) and all(type(a) is int for a in actions)
    assert actions == sorted(set(actions)), "legal actions must be ascending and distinct"
    n = state.num_actions
    assert all(0 <= a < n for a in actions)
    mask = state.legal_action_mask()
    assert isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n,)
    assert np.flatnonzero(mask).tolist() == actions
    moves = state.legal_moves()
    assert [m.action for m in moves] == actions
    assert state.is_over == (len(actions) == 0) == state.is_terminal()
    if state.is_over:
        assert state.to_move is None and state.current_player() == -4
    else:
        assert state.to_move in range(state.players) and state.current_player() == state.to_move
    returns = state.returns()
    assert len(returns) == state.players and all(isinstance(r, float) for r in returns)
    if not state.is_over:
        assert returns == [0.0] * state.players, "returns are all zeros before the end"


def check_terminal(state: Any) -> None:
    """At the end: zero-sum returns that agree with the ranking."""
    assert state.is_over
    n = state.players
    returns, ranking = state.returns(), state.ranking()
    assert len(ranking) == n and min(ranking) == 1 and all(1 <= r <= n for r in ranking)
    # A place is 1 + the number of players strictly ahead (shared places: [1, 1, 3]).
    for p in range(n):
        assert ranking[p] == 1 + sum(r < ranking[p] for r in ranking)
    assert abs(sum(returns)) < 1e-9, f"returns {returns} are not zero-sum"
    for p in range(n):
        below = sum(r > ranking[p] for r in ranking)
        above = sum(r < ranking[p] for r in ranking)
        assert abs(returns[p] - (below - above) / (n - 1)) < 1e-9, (returns, ranking)
    assert state.legal_moves() == [] and not state.legal_action_mask().any()


# --------------------------------------------------------------------------- heavier, some plies


def check_children(state: Any) -> None:
    """Every legal action applies, by int, move object and notation alike; ``after`` leaves the
    original unchanged; distinct moves reach distinct positions."""
    snap = snapshot(state)
    children = []
    for m in state.legal_moves():
        assert state.is_legal(m) and state.is_legal(m.action)
        text = str(m)
        assert isinstance(text, str) and text
        assert state.parse_move(text) == m and state.parse_move(text).action == m.action
        assert state.parse_move(m.action) == m
        by_action = state.after(m.action)
        by_move = state.after(m)
        by_text = state.after(text)
        assert by_action == by_move == by_text
        assert by_action.to_json() == by_move.to_json() == by_text.to_json()
        twin = state.copy()
        twin.apply_action(m.action)
        assert twin == by_action
        twin = state.copy()
        assert twin.play(m) is None
        assert twin == by_action
        children.append(by_action)
    assert_unchanged(state, snap)
    # Two moves may end the game in the same final position (every penguin lifted, every floe
    # scored alike), so only the positions that go on must all differ.
    going_on = [child for child in children if not child.is_over]
    assert len({child.to_json() for child in going_on}) == len(going_on), "two moves, one position"
    assert len(set(going_on)) == len(going_on), "hash/eq disagree with to_json"


def check_round_trips(state: Any) -> None:
    """JSON, pickle, copy, deepcopy and clone give an equal state with the same hash, moves and
    results; the copies are independent of the original."""
    text = state.to_json()
    assert isinstance(json.loads(text), dict)
    cls = type(state)
    twins = [
        cls.from_json(text),
        pickle.loads(pickle.dumps(state)),
        pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)),
        copy.copy(state),
        copy.deepcopy(state),
        state.copy(),
        state.clone(),
    ]
    for twin in twins:
        assert type(twin) is cls
        assert twin is not state
        assert twin == state and not (twin != state)
        assert hash(twin) == hash(state)
        assert twin.to_json() == text
        assert twin.legal_actions() == state.legal_actions()
        assert [str(m) for m in twin.legal_moves()] == [str(m) for m in state.legal_moves()]
        assert twin.returns() == state.returns() and twin.ranking() == state.ranking()
        assert (twin.to_move, twin.is_over) == (state.to_move, state.is_over)
        assert str(twin) == str(state)
    if not state.is_over:
        twin = state.copy()
        twin.play(twin.legal_actions()[0])
        assert twin != state
        assert state.to_json() == text, "a copy shares nothing with its original"


def check_same_future(state: Any, rng_a: Any, rng_b: Any) -> None:
    """A state and its JSON twin play the same future."""
    twin = type(state).from_json(state.to_json())
    a, b = play_random(state.copy(), rng_a, 30), play_random(twin, rng_b, 30)
    assert a == b and a.to_json() == b.to_json()


def check_knows_its_game(state: Any, game: Any) -> None:
    """``state.game`` is the game the state came from, through every way of making a state."""
    assert state.game == game
    made = [
        state.copy(),
        copy.deepcopy(state),
        pickle.loads(pickle.dumps(state)),
        type(state).from_json(state.to_json()),
    ]
    if not state.is_over:
        made.append(state.after(state.legal_actions()[0]))
    for other in made:
        assert other.game == game


def check_observation(state: Any, game: Any) -> None:
    shape = game.observation_shape
    assert isinstance(shape, tuple) and all(type(d) is int and d > 0 for d in shape)
    views = [state.observation_tensor(p) for p in range(state.players)]
    if not state.is_over:
        default = state.observation_tensor()
        assert np.array_equal(default, state.observation_tensor(state.to_move))
        views.append(default)
    for obs in views:
        assert isinstance(obs, np.ndarray)
        assert obs.shape == shape and obs.dtype == np.float32
        assert np.isfinite(obs).all()


# --------------------------------------------------------------------------- rejected moves


def check_rejected(
    state: Any, bad: Any, error: type, methods=("play", "after", "parse_move")
) -> None:
    """``bad`` raises ``error`` from every move-taking method, and the state is unchanged."""
    snap = snapshot(state)
    for method in methods:
        try:
            getattr(state, method)(bad)
        except error:
            pass
        except BaseException as e:  # noqa: B036 - the wrong exception (or a PanicException)
            raise AssertionError(
                f"{method}({_short(bad)}) raised {type(e).__name__}: {_short(e)}, "
                f"expected {error.__name__}"
            ) from e
        else:
            raise AssertionError(f"{method}({_short(bad)}) did not raise {error.__name__}")
        assert_unchanged(state, snap)


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, BaseException) else str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_state(state: Any) -> None:
    """The state-only checks at once: actions, children, round trips, one illegal and two
    out-of-range actions refused, and the end."""
    check_actions(state)
    check_children(state)
    check_round_trips(state)
    legal = set(state.legal_actions())
    illegal = next(a for a in range(state.num_actions) if a not in legal)
    check_rejected(state, illegal, rejection_error(state, illegal))
    for bad in (state.num_actions, -1):
        check_rejected(state, bad, ValueError)
    if state.is_over:
        check_terminal(state)
