"""Differential test: the engine against the pure-Python reference model.

Thousands of seeded random games are played in both at once. After every ply
the full set of legal moves, the fish grid (removed floes as 0), the penguins,
the scores, the player to move and the phase must agree; at the end, the
ranking and the returns too.

Categories (games in a default run; ``--deep`` plays ten times as many):

* ``2p``, ``3p``, ``4p``: the standard shuffled board and the default rules.
* ``custom``: random custom boards with gaps (mostly up to 10 x 10, some long
  and wide ones of up to 128 cells), 1 to 9 fish per floe, 2-4 players, 1-8
  penguins each, both placement and both order rules.
* ``large``: boards of more than 128 cells, up to the engine's limit of 1,024
  (20 x 20, 32 x 32, 50 x 2 and 2 x 50 among them), with the same random rules.
* ``standard-rules``: the standard board with random penguin counts,
  placement and order rules.
* ``positions``: ``game.position(...)`` on random boards with random penguins
  and player to move, then played out.

Each test covers a chunk of seeds; a failure names the category, the seed, the
ply and the moves that led there.
"""

import random

import pytest

import pingvinas as pv
from fish_reference import ORDERS, PLACEMENTS, FishReference, move_name, standard_cells

GAMES = {
    "2p": 2000,
    "3p": 2000,
    "4p": 2000,
    "custom": 2000,
    "standard-rules": 400,
    "positions": 1000,
    "large": 160,
}
CHUNK = 250
#: Games per test where games are long (large boards): the default run plays one chunk.
CHUNKS = {"large": 16}
DEEP_FACTOR = 10


def pytest_generate_tests(metafunc):
    if "seeds" in metafunc.fixturenames:
        factor = DEEP_FACTOR if metafunc.config.getoption("--deep") else 1
        params, ids = [], []
        for category, count in GAMES.items():
            total = count * factor
            chunk = CHUNKS.get(category, CHUNK)
            for start in range(0, total, chunk):
                stop = min(start + chunk, total)
                # The first chunk of each category runs by default, the rest with -m slow.
                marks = [pytest.mark.slow] if start else []
                params.append(pytest.param(category, range(start, stop), marks=marks))
                ids.append(f"{category}-{start}-{stop - 1}")
        metafunc.parametrize("category, seeds", params, ids=ids)


# --------------------------------------------------------------------------- setups


def _standard(players):
    def setup(seed, rng):
        game = pv.Fish(players=players)
        state = game.new_state(seed=seed)
        board = state.board.tolist()
        _check_standard_board(board)
        ref = FishReference(board, players=players)
        return state, ref, f"pv.Fish(players={players}).new_state(seed={seed})"

    return setup


def _check_standard_board(board):
    cells = set(standard_cells())
    fish = [board[r][c] for r, c in sorted(cells)]
    assert all(board[r][c] == 0 for r in range(8) for c in range(8) if (r, c) not in cells)
    assert sorted(fish) == [1] * 30 + [2] * 20 + [3] * 10


def _standard_rules(seed, rng):
    players = rng.randint(2, 4)
    penguins = rng.randint(1, 5)
    placement = rng.choice(PLACEMENTS)
    order = rng.choice(ORDERS)
    game = pv.Fish(players=players, penguins=penguins, placement=placement, order=order)
    state = game.new_state(seed=seed)
    board = state.board.tolist()
    _check_standard_board(board)
    ref = FishReference(board, players, penguins, placement, order)
    call = (
        f"pv.Fish(players={players}, penguins={penguins}, placement={placement!r}, "
        f"order={order!r}).new_state(seed={seed})"
    )
    return state, ref, call


def random_board(rng, shape=None):
    """A random rectangular board with gaps and at least one floe: ``shape`` if given, else
    usually up to 10 x 10, sometimes a long or wide one of up to 128 cells (the engine's
    64-cell and 128-cell bitboards meet there)."""
    if shape is not None:
        rows, cols = shape
    elif rng.random() < 0.8:
        rows = rng.randint(1, 10)
        cols = rng.randint(1, 10)
    else:
        rows = rng.randint(1, 64)
        cols = max(1, min(64, rng.choice([64, 128]) // rows))
        cols = rng.choice([cols, cols, rng.randint(1, cols)])
    gap = rng.choice([0.0, 0.05, 0.15, 0.3, 0.5])
    top = rng.choice([1, 2, 3, 3, 3, 4, 9])
    one = rng.choice([0.0, 0.3, 0.6])
    board = [
        [
            0 if rng.random() < gap else (1 if rng.random() < one else rng.randint(1, top))
            for _ in range(cols)
        ]
        for _ in range(rows)
    ]
    if not any(any(row) for row in board):
        board[rng.randrange(rows)][rng.randrange(cols)] = 1
    return board


#: Board shapes of the ``large`` category: the shapes the engine promises, and the extremes of
#: its limits (1,024 cells, 64 rows or columns).
LARGE_SHAPES = [(20, 20), (32, 32), (50, 2), (2, 50), (16, 64), (64, 16), (17, 60), (13, 61)]


def _custom(seed, rng, shape=None):
    board = random_board(rng, shape)
    players = rng.randint(2, 4)
    penguins = rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 8])
    placement = rng.choice(PLACEMENTS)
    order = rng.choice(ORDERS)
    game = pv.Fish(
        players=players, penguins=penguins, board=board, placement=placement, order=order
    )
    state = game.new_state(seed=seed)
    ref = FishReference(board, players, penguins, placement, order)
    call = (
        f"pv.Fish(players={players}, penguins={penguins}, board={board!r}, "
        f"placement={placement!r}, order={order!r}).new_state(seed={seed})"
    )
    return state, ref, call


def _position(seed, rng):
    board = random_board(rng)
    players = rng.randint(2, 4)
    most = {2: 4, 3: 3, 4: 2}[players]
    floes = [(r, c) for r, row in enumerate(board) for c, n in enumerate(row) if n]
    rng.shuffle(floes)
    penguins = []
    for _ in range(players):
        k = min(rng.randint(0, most), len(floes))
        penguins.append(sorted(floes[:k]))
        del floes[:k]
    to_move = rng.randrange(players)
    game = pv.Fish(players=players)
    state = game.position(board=board, penguins=penguins, to_move=to_move)
    ref = FishReference.from_position(board, penguins, to_move)
    call = (
        f"pv.Fish(players={players}).position(board={board!r}, penguins={penguins!r}, "
        f"to_move={to_move})"
    )
    return state, ref, call


def _large(seed, rng):
    return _custom(seed, rng, LARGE_SHAPES[seed % len(LARGE_SHAPES)])


SETUPS = {
    "2p": _standard(2),
    "3p": _standard(3),
    "4p": _standard(4),
    "custom": _custom,
    "standard-rules": _standard_rules,
    "positions": _position,
    "large": _large,
}


# --------------------------------------------------------------------------- comparison


def _cell(cell):
    return None if cell is None else tuple(cell)


class Mismatch(AssertionError):
    """The engine and the reference model disagree."""


# The engine's action encoding, learnt from the Move objects it hands out:
# (rows, cols, num_actions) -> {action: (src, dst)}. Reading the legal actions
# (plain ints) and translating them through this table is much faster than
# building Move objects at every ply; the table itself is checked every time
# Move objects are read (an action must always stand for the same move).
ACTIONS = {}


def _compare(state, ref, where, table, full):
    """Compare everything; ``full`` also reads and checks the Move objects."""

    def check(name, got, want):
        if got != want:
            raise Mismatch(f"{where}: {name} differ\n  engine:    {got!r}\n  reference: {want!r}")

    actions = state.legal_actions()
    check("action order", actions, sorted(set(actions)))
    moves = None
    if full or any(a not in table for a in actions):
        moves = state.legal_moves()
        check("legal_actions vs legal_moves", actions, [m.action for m in moves])
        for m in moves:
            key = (_cell(m.src), _cell(m.dst))
            known = table.setdefault(m.action, key)
            if known != key:
                raise Mismatch(f"{where}: action {m.action} was {known!r} and is now {key!r}")
            check("notation", str(m), move_name(key))
    got = {table[a] for a in actions}
    want = ref.legal_moves()
    if got != want:
        raise Mismatch(
            f"{where}: legal moves differ\n"
            f"  only engine:    {sorted(map(move_name, got - want))}\n"
            f"  only reference: {sorted(map(move_name, want - got))}"
        )
    check("to_move", state.to_move, ref.to_move)
    check("phase", state.phase, ref.phase)
    check("is_over", state.is_over, ref.is_over)
    check("board", state.board.tolist(), ref.board())
    check("penguins", [[tuple(c) for c in cells] for cells in state.penguins], ref.penguins())
    check("scores", [tuple(s) for s in state.scores], ref.scores())
    return actions, moves


def play_game(category, seed):
    """Play one seeded random game in the engine and the reference; return its length."""
    rng = random.Random(f"{category}-{seed}")
    state, ref, call = SETUPS[category](seed, rng)
    table = ACTIONS.setdefault((ref.rows, ref.cols, state.num_actions), {})
    history = []
    ply = 0
    while True:
        where = f"{category} seed {seed} ply {ply}\n  {call}\n  then: {' '.join(history) or '-'}"
        how = rng.random()  # 80 %: play the int action, 10 %: the Move, 10 %: its notation
        actions, moves = _compare(state, ref, where, table, full=how >= 0.8 or ply == 0)
        if ref.is_over:
            break
        action = actions[rng.randrange(len(actions))]
        key = table[action]
        history.append(move_name(key))
        if how < 0.8:
            state.play(action)
        else:
            move = next(m for m in moves if m.action == action)
            state.play(move if how < 0.9 else str(move))
        ref.play(key, check=False)
        ply += 1
    where = (
        f"{category} seed {seed} at the end (ply {ply})\n  {call}\n"
        f"  then: {' '.join(history) or '-'}"
    )
    if list(state.ranking()) != ref.ranking():
        raise Mismatch(
            f"{where}: ranking differ: engine {state.ranking()!r}, reference {ref.ranking()!r}"
        )
    if list(state.returns()) != pytest.approx(ref.returns()):
        raise Mismatch(
            f"{where}: returns differ: engine {state.returns()!r}, reference {ref.returns()!r}"
        )
    return ply


def test_differential(category, seeds):
    plies = [play_game(category, seed) for seed in seeds]
    # the games are real games, not all trivially short
    assert max(plies) > 2
