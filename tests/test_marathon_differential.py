"""Differential test: the Marathon engine against the pure-Python reference model.

Seeded games on every bundled course for 2, 3 and 5 players. After every ply the set of
positions reachable by the engine's legal moves (pieces and the player to move next) must equal
the reference's, no two engine moves may reach the same position, and the state itself (pieces,
player to move, ply, end, winner) must agree; at the end ranking and returns must agree.

Each move played is drawn at random (seeded): in some games uniformly, in most games greedily
towards the finish with some probability and uniformly otherwise, so that both long wandering
games (up to the ply limit) and games that end in a win are covered, at a cost the regular run
can afford (about 2.5 minutes). ``--deep`` runs 2,000 games per course and player count instead
of 100 (about 45 minutes).
"""

from __future__ import annotations

import random
from collections import deque

import pytest

import marathon_reference as ref
import pingvinas as pv

COURSES = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"]
PLAYERS = [2, 3, 5]
GAMES = 100
DEEP_GAMES = 2000
# Game i plays SCHEDULE[i % 10]: (the probability of a uniformly random move, else a greedy one
# towards the finish; the ply limit). Uniformly random games wander for hundreds of plies, so
# most games lean greedy: they still branch at every ply, and they end in wins.
SCHEDULE = [
    (1.0, 500),
    (0.4, 500),
    (0.2, 500),
    (0.1, 500),
    (0.05, 500),
    (1.0, 150),
    (0.4, 500),
    (0.2, 500),
    (0.1, 500),
    (0.05, 500),
]


# Courses given as ASCII maps (variant configs): other shapes, sides and sizes.
CUSTOM_MAPS = {
    # Two coasters side by side, entered from the right (moving W), finished off the left.
    "westward": "F######S\nF######S\nF######S\n",
    # A U: down the left, along the bottom, up the right; start and finish both on top.
    "u-turn": ("SSS...FFF\n###...###\n###...###\n###...###\n#########\n#########\n#########\n"),
    # Entered from the left (moving E), along two coasters, then down two more.
    "side-entry": (
        "S######\nS######\nS######\n....###\n....###\n....###\n....###\n....###\n....###\n....FFF\n"
    ),
    # Seven coasters (63 cells, near the 64-cell limit): a long snake.
    "snake": "SSS\n" + "###\n" * 9 + "#########\n" * 3 + "......###\n" * 3 + "......FFF\n",
}


def engine_key(state):
    """The engine position as the reference's key: (canonical pieces, player to move).

    Fast path: ``state.pieces`` are named tuples ``(owner, kind, status, cell, facing)`` in the
    documented order (by owner, then mama, papa, baby), which compare and hash as plain tuples;
    :func:`check_state` checks that with the slow, normalising ``canon_pieces``.
    """
    to_move = None if state.is_over else state.to_move
    return (tuple(state.pieces), to_move)


def distance_table(course):
    """King-move distance (in steps) from each cell to beyond the finish line; waiting pieces
    count one more than the best first-row cell."""
    dist = {}
    queue = deque()
    for c in course.finish_cells:
        dist[c] = 1
        queue.append(c)
    while queue:
        c = queue.popleft()
        for d in ref.DIR_NAMES:
            n = ref.add(c, d)
            if n in course.cells and n not in dist:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist, 1 + min(dist[c] for c in course.start_cells)


def progress(pieces, player, table, course):
    """How far ``player`` is from finishing: the sum of the pieces' distances, plus one for each
    lying piece pointed where sliding does not bring it closer (it will have to stand)."""
    dist, waiting = table
    total = 0
    for owner, _kind, status, cell, facing in pieces:
        if owner != player or status == ref.FINISHED:
            continue
        if status == ref.WAITING:
            total += waiting
            continue
        total += dist[cell]
        if facing is not None and not course.crosses_finish(cell, facing):
            ahead = ref.add(cell, facing)
            if dist.get(ahead, 99) >= dist[cell]:
                total += 1
    return total


def describe(pieces):
    return "\n".join(f"    {p}" for p in pieces)


def describe_child(parent_pieces, key):
    changed = [p for p in key[0] if p not in parent_pieces]
    return f"{changed} -> to_move {key[1]}"


def check_state(state, rs, ctx, types=False):
    """The engine state equals the reference state (with ``types``: also check that the pieces
    are plain ints, strings and tuples, which the fast :func:`engine_key` relies on)."""
    got = engine_key(state)[0]
    if types:
        assert got == ref.canon_pieces(state.pieces), (
            f"{ctx}: pieces are not plain values in the order owner, then mama, papa, baby: {got}"
        )
    assert got == rs.pieces, (
        f"{ctx}: pieces differ\nengine:\n{describe(got)}\nreference:\n{describe(rs.pieces)}"
    )
    assert state.is_over == rs.over, f"{ctx}: is_over {state.is_over}, reference {rs.over}"
    assert state.ply == rs.ply, f"{ctx}: ply {state.ply}, reference {rs.ply}"
    if not rs.over:
        assert state.to_move == rs.to_move, (
            f"{ctx}: to_move {state.to_move}, reference {rs.to_move}"
        )
    assert state.winner == rs.winner, f"{ctx}: winner {state.winner}, reference {rs.winner}"


def play_game(course, players, seed, ply_limit=500, randomness=None, label=None):
    """Play one seeded game on engine and reference together; returns the final reference state.
    ``course`` is a bundled course name or an ASCII map (then ``label`` names it)."""
    label = label or course
    rng = random.Random(f"{label}/{players}/{seed}/{ply_limit}")
    if randomness is None:
        randomness = SCHEDULE[seed % len(SCHEDULE)][0]
    game = pv.Marathon(players=players, course=course, ply_limit=ply_limit)
    model = ref.Marathon(course, players, ply_limit)
    table = distance_table(model.course)
    state = game.new_state()
    rs = model.initial()
    while True:
        ctx = f"course={label!r} players={players} seed={seed} ply_limit={ply_limit} ply={rs.ply}"
        check_state(state, rs, ctx, types=rs.ply == 0 or rs.over)
        if rs.over:
            break
        moves = state.legal_moves()
        keys = [engine_key(state.after(m)) for m in moves]
        expected = model.successors(rs)
        if len(set(keys)) != len(keys):
            pos = f"\nposition (to_move {rs.to_move}):\n{describe(rs.pieces)}"
            seen = {}
            dupes = []
            for m, k in zip(moves, keys):
                if k in seen:
                    dupes.append(f"{seen[k]} and {m} both reach {describe_child(rs.pieces, k)}")
                seen.setdefault(k, str(m))
            pytest.fail(f"{ctx}: engine moves reach the same position:{pos}\n" + "\n".join(dupes))
        if set(keys) != set(expected):
            pos = f"\nposition (to_move {rs.to_move}):\n{describe(rs.pieces)}"
            missing = [describe_child(rs.pieces, k) for k in expected if k not in set(keys)]
            extra = [
                f"{m}: {describe_child(rs.pieces, k)}"
                for m, k in zip(moves, keys)
                if k not in expected
            ]
            pytest.fail(
                f"{ctx}: legal moves differ{pos}\n"
                f"missing from the engine ({len(missing)}):\n  " + "\n  ".join(missing) + "\n"
                f"extra in the engine ({len(extra)}):\n  " + "\n  ".join(extra)
            )
        if rng.random() < randomness:
            i = rng.randrange(len(moves))
        else:
            scores = [progress(k[0], rs.to_move, table, model.course) for k in keys]
            best = min(scores)
            i = rng.choice([j for j, s in enumerate(scores) if s == best])
        state.play(moves[i])
        rs = expected[keys[i]]
    assert len(state.legal_moves()) == 0, f"{ctx}: legal moves after the end"
    assert list(state.ranking()) == model.ranking(rs), ctx
    assert list(state.returns()) == pytest.approx(model.returns(rs)), ctx
    return rs


@pytest.mark.parametrize(
    "course, players",
    # The standard course with 2 players runs by default, every other pairing with -m slow.
    [
        pytest.param(c, p, marks=[] if (c, p) == ("marathon", 2) else [pytest.mark.slow])
        for c in COURSES
        for p in PLAYERS
    ],
)
def test_random_games_match_reference(course, players, deep):
    games = DEEP_GAMES if deep else GAMES
    wins = 0
    limits = 0
    for seed in range(games):
        randomness, ply_limit = SCHEDULE[seed % len(SCHEDULE)]
        final = play_game(course, players, seed, ply_limit, randomness)
        wins += final.winner is not None
        limits += final.winner is None and final.ply == ply_limit
    # The mix of policies must have exercised both ends of the game.
    assert wins >= games // 4, f"only {wins} of {games} games were won"
    assert limits >= 1, "no game reached the ply limit"


@pytest.mark.parametrize("ply_limit", [1, 2, 7, 40])
@pytest.mark.parametrize("course", COURSES)
def test_short_ply_limits_match_reference(course, ply_limit, deep):
    limits = 0
    for players in PLAYERS:
        for seed in range(40 if deep else 5):
            final = play_game(course, players, seed, ply_limit=ply_limit)
            assert final.over and final.ply <= ply_limit
            limits += final.winner is None and final.ply == ply_limit
    assert limits >= 1


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("name", sorted(CUSTOM_MAPS))
def test_custom_courses_match_reference(name, players, deep):
    wins = 0
    games = 100 if deep else 8
    for seed in range(games):
        randomness, ply_limit = SCHEDULE[seed % len(SCHEDULE)]
        final = play_game(CUSTOM_MAPS[name], players, seed, ply_limit, randomness, label=name)
        wins += final.winner is not None
    assert wins >= games // 4
