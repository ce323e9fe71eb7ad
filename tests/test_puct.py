"""PUCT with an evaluator (``algorithm="puct"``, ``search_many``): the evaluator protocol, its
errors, per-player values for every player count, and agreement with the engine's MCTS."""

from __future__ import annotations

import _thread
import threading

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.searching.searcher import ALGORITHMS, Searcher, search, search_many, solve_fish


def uniform(players):
    """Zero logits, zero values."""

    def fn(obs, mask):
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs), players), np.float32)

    return fn


def movement_state(game, seed, extra=0):
    """A Fish position after placement (first legal moves), plus ``extra`` middle moves."""
    s = game.new_state(seed=seed)
    while s.phase == "placement":
        s.play(s.legal_moves()[0])
    for _ in range(extra):
        if s.is_over:
            break
        moves = s.legal_moves()
        s.play(moves[len(moves) // 2])
    return s


def marathon_state(players, plies=0):
    s = pv.Marathon(players=players).new_state()
    for _ in range(plies):
        moves = s.legal_moves()
        s.play(moves[len(moves) // 3])
    return s


GAMES = [("fish", p) for p in (2, 3, 4)] + [("marathon", p) for p in (2, 3, 4, 5)]


def some_state(kind, players):
    if kind == "fish":
        return movement_state(pv.Fish(players=players), seed=players, extra=2)
    return marathon_state(players, plies=2 * players)


@pytest.mark.parametrize("kind,players", GAMES)
@pytest.mark.parametrize("batch_size", [1, 16])
def test_puct_searches_every_game_and_player_count(kind, players, batch_size):
    s = some_state(kind, players)
    calls = []

    def fn(obs, mask):
        calls.append(len(obs))
        assert obs.dtype == np.float32 and obs.shape[1:] == s.observation_tensor().shape
        assert mask.dtype == np.bool_ and mask.shape == (len(obs), s.num_actions)
        assert not obs.flags.writeable and not mask.flags.writeable
        assert mask.any(axis=1).all()
        return uniform(players)(obs, mask)

    r = search(s, "puct", evaluator=fn, iterations=120, batch_size=batch_size, seed=1)
    assert r.move in s.legal_moves() and r.algorithm == "puct"
    assert r.iterations == 120 and int(r.visits.sum()) == 120
    assert calls[0] == 1 and max(calls) <= batch_size
    legal = s.legal_action_mask()
    assert not r.visits[~legal].any()
    assert -1.0 <= r.value <= 1.0


def test_the_first_row_is_the_root_observation_and_mask():
    s = movement_state(pv.Fish(), seed=4)
    seen = []

    def fn(obs, mask):
        seen.append((obs.copy(), mask.copy()))
        return uniform(2)(obs, mask)

    search(s, "puct", evaluator=fn, iterations=8)
    obs, mask = seen[0]
    np.testing.assert_array_equal(obs[0], s.observation_tensor())
    np.testing.assert_array_equal(mask[0], s.legal_action_mask())


@pytest.mark.parametrize("kind,players", [("fish", 2), ("fish", 3), ("marathon", 4)])
def test_values_are_read_per_seat_from_the_player_to_move(kind, players):
    # Every leaf says: the player to move there wins (seat 0: +1, the others -1). Each root
    # move leads to a leaf where another player moves, so every move looks lost for us (and
    # the search tries each move once before any twice).
    s = some_state(kind, players)

    def fn(obs, mask):
        v = np.full((len(obs), players), -1.0, np.float32)
        v[:, 0] = 1.0
        return np.zeros(mask.shape, np.float32), v

    k = len(s.legal_moves())
    r = search(s, "puct", evaluator=fn, iterations=k, knowledge=False)
    assert r.value == -1.0 and (r.visits[s.legal_action_mask()] == 1).all()


def test_illegal_entries_are_ignored():
    s = movement_state(pv.Fish(), seed=2)

    def fn(obs, mask):
        p = np.where(mask, 0.0, np.nan).astype(np.float32)
        p[~mask] = np.inf
        return p, np.zeros((len(obs), 2), np.float32)

    r = search(s, "puct", evaluator=fn, iterations=20, seed=3)
    ref = search(s, "puct", evaluator=uniform(2), iterations=20, seed=3)
    assert (r.visits == ref.visits).all()


def test_outputs_of_any_float_dtype_or_lists_are_read():
    s = movement_state(pv.Fish(), seed=2)
    for convert in (
        lambda a: a.astype(np.float64),
        lambda a: a.astype(np.float16),
        lambda a: a.astype(np.int32),
        lambda a: a.tolist(),
        lambda a: np.asfortranarray(a),
    ):

        def fn(obs, mask, convert=convert):
            p, v = uniform(2)(obs, mask)
            return convert(p), convert(v)

        r = search(s, "puct", evaluator=fn, iterations=20, seed=3)
        assert int(r.visits.sum()) == 20
    ref = search(s, "puct", evaluator=uniform(2), iterations=20, seed=3)
    assert (r.visits == ref.visits).all()


class Boom(Exception):
    pass


def bad_outputs():
    def shape(obs, mask):
        return np.zeros((len(obs), 3), np.float32), np.zeros((len(obs), 2), np.float32)

    def values_shape(obs, mask):
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs),), np.float32)

    def nan(obs, mask):
        p = np.zeros(mask.shape, np.float32)
        p[mask] = np.nan
        return p, np.zeros((len(obs), 2), np.float32)

    def inf_value(obs, mask):
        return np.zeros(mask.shape, np.float32), np.full((len(obs), 2), np.inf, np.float32)

    def all_minus_inf(obs, mask):
        return np.full(mask.shape, -np.inf, np.float32), np.zeros((len(obs), 2), np.float32)

    def objects(obs, mask):
        return np.zeros(mask.shape, object), np.zeros((len(obs), 2), np.float32)

    def strings(obs, mask):
        return np.zeros(mask.shape, np.float32), np.full((len(obs), 2), "x")

    def not_a_pair(obs, mask):
        return np.zeros(mask.shape, np.float32)

    def none(obs, mask):
        return None

    def scalar(obs, mask):
        return 0.0, np.zeros((len(obs), 2), np.float32)

    return [
        (shape, "policy_logits must be a float array of shape (1, "),
        (values_shape, "values must be a float array of shape (1, 2), got shape (1,)"),
        (nan, "NaN"),
        (inf_value, "values must be finite"),
        (all_minus_inf, "-inf for every legal action"),
        (objects, "got dtype"),
        (strings, "got dtype"),
        (not_a_pair, "pair"),
        (none, "got NoneType"),
        (scalar, "got float"),
    ]


@pytest.mark.parametrize("fn,message", bad_outputs(), ids=lambda x: getattr(x, "__name__", ""))
def test_bad_outputs_raise_a_clear_value_error(fn, message):
    s = movement_state(pv.Fish(), seed=1)
    with pytest.raises(ValueError, match="the evaluator") as info:
        search(s, "puct", evaluator=fn, iterations=10)
    assert message in str(info.value)
    # The same with search_many; and a Searcher stays usable after the error.
    with pytest.raises(ValueError, match="the evaluator"):
        search_many([s, s], evaluator=fn, iterations=10)
    searcher = Searcher("puct", evaluator=fn)
    with pytest.raises(ValueError):
        searcher.search(s, iterations=10)


def test_an_exception_in_the_evaluator_propagates():
    s = movement_state(pv.Fish(), seed=1)
    count = [0]

    def fn(obs, mask):
        count[0] += 1
        if count[0] == 3:
            raise Boom("inside")
        return uniform(2)(obs, mask)

    searcher = Searcher("puct", evaluator=fn, batch_size=4)
    with pytest.raises(Boom, match="inside"):
        searcher.search(s, iterations=100)
    # The searcher forgets the broken tree and searches again.
    count[0] = -1000
    r = searcher.search(s, iterations=30)
    assert int(r.visits.sum()) >= 30


def test_settings_are_checked():
    s = movement_state(pv.Fish(), seed=1)
    with pytest.raises(ValueError, match="needs an evaluator"):
        search(s, "puct", iterations=10)
    with pytest.raises(ValueError, match="needs an evaluator"):
        Searcher("puct")
    with pytest.raises(ValueError, match="takes only a pingvinas Net"):
        search(s, "mcts", evaluator=uniform(2), iterations=10)
    with pytest.raises(TypeError, match="callable"):
        search(s, "puct", evaluator=42, iterations=10)
    for bad in (0, -1, 1 << 20):
        with pytest.raises(ValueError, match="batch_size"):
            search(s, "puct", evaluator=uniform(2), iterations=10, batch_size=bad)
    with pytest.raises(TypeError, match="batch_size"):
        search(s, "puct", evaluator=uniform(2), iterations=10, batch_size=2.5)
    for bad in ((0.0, 0.25), (0.3, 1.5), (float("nan"), 0.2)):
        with pytest.raises(ValueError, match="dirichlet"):
            search(s, "puct", evaluator=uniform(2), iterations=10, dirichlet=bad)
    with pytest.raises(TypeError, match="dirichlet"):
        search(s, "puct", evaluator=uniform(2), iterations=10, dirichlet="much")
    with pytest.raises(ValueError, match="depth"):
        search(s, "puct", evaluator=uniform(2), depth=3)
    over = s.copy()
    while not over.is_over:
        over.play(over.legal_moves()[0])
    with pytest.raises(ValueError, match="finished"):
        search(over, "puct", evaluator=uniform(2), iterations=10)
    with pytest.raises(ValueError, match="state 1: cannot search a finished game"):
        search_many([s, over], evaluator=uniform(2), iterations=10)
    with pytest.raises(TypeError, match="mixed"):
        search_many([s, pv.Marathon().new_state()], evaluator=uniform(2), iterations=10)
    with pytest.raises(TypeError, match=r"states\[1\]"):
        search_many([s, "x"], evaluator=uniform(2), iterations=10)
    with pytest.raises(ValueError, match="one shape"):
        search_many([s, movement_state(pv.Fish(players=3), 1)], evaluator=uniform(2), iterations=10)
    assert search_many([], evaluator=uniform(2), iterations=10) == []
    assert "puct" in ALGORITHMS


@pytest.mark.parametrize("game", [pv.Fish(), pv.Marathon()], ids=["fish", "marathon"])
def test_search_many_with_a_python_evaluator_does_not_depend_on_threads(game):
    # The trees' rounds are shared out to threads between evaluator calls; each tree's
    # result must stay its own.
    states = [game.new_state(seed=k) for k in range(40)]
    players = game.players

    def fn(obs, mask):
        h = obs.reshape(len(obs), -1).sum(axis=1)
        p = np.where(mask, np.sin(np.arange(mask.shape[1]) * h[:, None]), 0).astype(np.float32)
        v = np.tanh(np.cos(h[:, None] + np.arange(players))).astype(np.float32)
        return p, v

    opts = dict(evaluator=fn, iterations=40, batch_size=4, seed=3)
    # (Searches take 1 to 256 threads; 3 leaves pieces of uneven shares.)
    runs = {t: search_many(states, threads=t, **opts) for t in (1, 2, 3)}
    for t in (2, 3):
        assert [(r.action, r.value, r.visits.tolist(), r.pv) for r in runs[t]] == [
            (r.action, r.value, r.visits.tolist(), r.pv) for r in runs[1]
        ]

    # A bad answer is named by its row, whichever thread checks it.
    def nan_at_row_100(obs, mask):
        p, v = fn(obs, mask)
        if len(obs) > 100:
            p[100, np.flatnonzero(mask[100])[0]] = np.nan
        return p, v

    for t in (1, 2):
        with pytest.raises(ValueError, match="row 100, action"):
            search_many(states, **{**opts, "evaluator": nan_at_row_100, "threads": t})


def test_search_many_equals_separate_searches():
    game = pv.Fish()
    states = [movement_state(game, seed=k, extra=k) for k in range(5)]

    def fn(obs, mask):
        # Deterministic per row, not per batch position: logits and values from the row.
        h = obs.reshape(len(obs), -1).sum(axis=1)
        p = np.where(mask, np.sin(np.arange(mask.shape[1]) * h[:, None]), 0).astype(np.float32)
        v = np.stack([np.tanh(np.cos(h)), -np.tanh(np.cos(h))], axis=1).astype(np.float32)
        return p, v

    opts = dict(evaluator=fn, iterations=80, batch_size=8, seed=11, dirichlet=(0.3, 0.25))
    together = search_many(states, **opts)
    alone = search(states[0], "puct", **opts)
    assert (together[0].visits == alone.visits).all() and together[0].pv == alone.pv
    for i in range(1, len(states)):
        prefix = search_many(states[: i + 1], **opts)
        assert (prefix[i].visits == together[i].visits).all()
        assert prefix[i].value == together[i].value
    again = search_many(states, **opts)
    assert all((a.visits == b.visits).all() for a, b in zip(together, again))
    other_seed = search_many(states, **{**opts, "seed": 12})
    assert any((a.visits != b.visits).any() for a, b in zip(together, other_seed))
    # Calls hold the leaves of all trees: fewer, larger batches.
    sizes = []

    def counting(obs, mask):
        sizes.append(len(obs))
        return fn(obs, mask)

    search_many(states, **{**opts, "evaluator": counting})
    assert sizes[0] == len(states) and max(sizes) > 8


def test_searcher_keeps_its_tree_between_moves():
    s = movement_state(pv.Fish(), seed=6)
    sizes = []

    def fn(obs, mask):
        sizes.append(len(obs))
        return uniform(2)(obs, mask)

    searcher = Searcher("puct", evaluator=fn, seed=2, batch_size=8)
    r = searcher.search(s, iterations=2000)
    # One ply down the kept subtree already holds visits.
    r1 = searcher.search(s.after(r.pv[0]), iterations=50)
    assert r1.iterations == 50 and int(r1.visits.sum()) > 50
    # Two plies down: the root was valued before, so no call holds it alone.
    sizes.clear()
    searcher.search(s.after(r.pv[0]).after(r1.pv[0]).after(r1.pv[1]), iterations=50)
    assert sizes[0] > 1
    sizes.clear()
    fresh = Searcher("puct", evaluator=fn, seed=2, reuse=False).search(s, iterations=50)
    assert int(fresh.visits.sum()) == 50 and sizes[0] == 1


def fish_decoder(game, deal_seed):
    """The movement-phase 2-player Fish position of an observation row, seat 0 to move (so
    its returns are in seat order), scores so far included."""
    board0 = game.new_state(seed=deal_seed).board
    all_fish, all_floes = int(board0.sum()), int((board0 > 0).sum())

    def decode(row):
        board = (row[0] + 2 * row[1] + 3 * row[2]).astype(int)
        pens = [[tuple(map(int, rc)) for rc in np.argwhere(row[3 + k] > 0)] for k in (0, 1)]
        scores = [
            (round(float(row[5 + k, 0, 0]) * all_fish), round(float(row[7 + k, 0, 0]) * all_floes))
            for k in (0, 1)
        ]
        return game.position(board=board, penguins=pens, to_move=0, scores=scores)

    return decode


def fish_returns(scores):
    """Returns from final ``(fish, floes)`` per player."""
    n = len(scores)
    return [(sum(k > o for o in scores) - sum(k < o for o in scores)) / (n - 1) for k in scores]


def test_uniform_priors_with_playout_values_match_mcts_with_puct_selection():
    # PUCT with zero logits and one random playout per leaf (the evaluator rebuilds the
    # position from its observation) against the engine's MCTS with PUCT selection and random
    # playouts: the mean share of the most visited move over many seeds agrees (the two
    # differ in where a playout starts, not in what it measures).
    game = pv.Fish()
    s = movement_state(game, seed=8, extra=6)
    decode = fish_decoder(game, 8)
    # The same position (the text board would differ: a removed floe decodes as a gap).
    d = decode(s.observation_tensor())
    assert (d.board.tolist(), d.penguins, d.scores, d.legal_actions()) == (
        s.board.tolist(),
        s.penguins,
        s.scores,
        s.legal_actions(),
    )
    counter = [0]

    def playout_values(obs, mask):
        values = np.zeros((len(obs), 2), np.float32)
        for b, row in enumerate(obs):
            counter[0] += 1
            fish, floes = pv.fish.random_playouts(1, state=decode(row), seed=counter[0])
            values[b] = fish_returns(list(zip(fish[0], floes[0])))
        return np.zeros(mask.shape, np.float32), values

    seeds, n = 40, 200
    puct_share, mcts_share = [], []
    for seed in range(seeds):
        r = search(
            s,
            "puct",
            evaluator=playout_values,
            iterations=n,
            seed=seed,
            exploration=1.0,
            batch_size=1,
            knowledge=False,
        )
        puct_share.append(r.visits.max() / n)
        r = search(
            s,
            "mcts",
            selection="puct",
            playout="random",
            knowledge=False,
            iterations=n,
            seed=seed,
            exploration=1.0,
        )
        mcts_share.append(r.visits.max() / r.visits.sum())
    a, b = np.mean(puct_share), np.mean(mcts_share)
    print(f"mean share of the most visited move: PUCT {a:.3f}, MCTS {b:.3f}")
    assert abs(a - b) < 0.12, (a, b)


def outcome_of(state, player):
    """+1, 0 or -1: whether ``player`` wins ``state`` under optimal play (exact solver)."""
    final = state.scores if state.is_over else [tuple(x) for x in solve_fish(state).scores]
    return int(np.sign(fish_returns(final)[player]))


def small_endgames(count):
    """Solvable 2-player Fish positions where some moves win and some do not."""
    game = pv.Fish()
    found = []
    for seed in range(40):
        s = movement_state(game, seed=seed, extra=32)
        if s.is_over or len(s.legal_moves()) < 3:
            continue
        try:
            if solve_fish(s, max_nodes=20_000).nodes > 5_000:
                continue
        except ValueError:
            continue
        outcome = {m.action: outcome_of(s.after(m), s.to_move) for m in s.legal_moves()}
        if 0 < list(outcome.values()).count(1) < len(outcome):
            found.append((seed, s, outcome))
        if len(found) == count:
            break
    return found


def perfect_evaluator(decode):
    """An evaluator that values each position by its exact outcome for seat 0 (no policy)."""

    def perfect(obs, mask):
        values = np.zeros((len(obs), 2), np.float32)
        for b, row in enumerate(obs):
            v = outcome_of(decode(row), 0)
            values[b] = (v, -v)
        return np.zeros(mask.shape, np.float32), values

    return perfect


def test_a_perfect_evaluator_finds_a_winning_move_at_tiny_budgets():
    endgames = small_endgames(4)
    assert len(endgames) >= 3, "too few endgames found"
    for seed, s, outcome in endgames:
        perfect = perfect_evaluator(fish_decoder(s.game, seed))

        k = len(outcome)
        r = search(s, "puct", evaluator=perfect, iterations=2 * k, knowledge=False, seed=1)
        assert outcome[r.action] == 1, (outcome, r.action)


def test_ctrl_c_stops_a_puct_search(python_sigint):
    s = movement_state(pv.Fish(), seed=1)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            search(s, "puct", evaluator=uniform(2), time=30.0)
    finally:
        timer.cancel()
    # Stopping from another thread returns the best move so far.
    searcher = Searcher("puct", evaluator=uniform(2))
    threading.Timer(0.2, searcher.stop).start()
    r = searcher.search(s, time=30.0)
    assert r.interrupted and r.move in s.legal_moves()


def test_buffers_too_large_are_refused_before_allocating():
    s = movement_state(pv.Fish(), seed=1)
    with pytest.raises(ValueError, match="memory available"):
        search_many([s] * 4000, evaluator=uniform(2), iterations=1, batch_size=65536)
    with pytest.raises(ValueError, match="memory available"):
        pv.selfplay(pv.Fish(), games=100_000, evaluator=uniform(2), batch_size=65536)


def test_a_searcher_in_a_cycle_with_its_evaluator_is_collected():
    import gc
    import weakref

    class Player:
        def __init__(self):
            self.searcher = pv.Searcher("puct", evaluator=self.evaluate)

        def evaluate(self, obs, mask):
            return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)

    player = Player()
    player.searcher.search(pv.Fish().new_state(seed=1), iterations=8)
    ref = weakref.ref(player)
    del player
    gc.collect()
    assert ref() is None


def test_the_gumbel_root_finds_winning_moves_and_follows_sequential_halving():
    # The Fish endgames of the test above, valued exactly: Gumbel, too, plays a winning move
    # with twice as many simulations as moves.
    for seed, s, outcome in small_endgames(3):
        perfect = perfect_evaluator(fish_decoder(s.game, seed))

        k = len(outcome)
        opts = dict(evaluator=perfect, iterations=2 * k, knowledge=False, seed=1, root="gumbel")
        r = search(s, "puct", **opts)
        assert outcome[r.action] == 1, (outcome, r.action)
        assert r.visits.sum() == 2 * k
        assert (search(s, "puct", **opts).visits == r.visits).all()
    # 16 moves considered of a placement, 32 simulations: mctx's schedule gives 8 moves one
    # visit, 4 two and 4 four, in batches as well; the move played is among the most visited.
    s = pv.Fish().new_state(seed=3)
    for batch_size in (1, 8):
        r = Searcher("puct", evaluator=uniform(2), batch_size=batch_size, root="gumbel").search(
            s, iterations=32
        )
        visits = sorted(int(v) for v in r.visits[r.visits > 0])
        assert visits == [1] * 8 + [2] * 4 + [4] * 4
        assert r.visits[r.action] == 4
    many = search_many([s, s], evaluator=uniform(2), iterations=32, root="gumbel", seed=4)
    assert all(sorted(int(v) for v in x.visits[x.visits > 0])[-4:] == [4] * 4 for x in many)
    with pytest.raises(ValueError, match="root"):
        Searcher("puct", evaluator=uniform(2), root="sideways")


def test_gumbel_self_play_records_the_improved_policy():
    game = pv.Fish()
    opts = dict(games=2, simulations=16, evaluator=uniform(2), seed=3)
    d = pv.selfplay(game, root="gumbel", **opts)
    plain = pv.selfplay(game, **opts)
    np.testing.assert_allclose(d.policies.sum(axis=1), 1.0, rtol=1e-5)
    # A softmax over the moves searched: each keeps some weight, unvisited ones too (moves
    # the game's knowledge prunes get none, as with visit counts).
    assert not (d.policies[~d.legal_masks] > 0).any()
    assert (d.policies > 0).sum() > (plain.policies > 0).sum()
    again = pv.selfplay(game, root="gumbel", **opts)
    assert (again.policies == d.policies).all()
    with pytest.raises(ValueError, match="evaluator"):
        pv.selfplay(game, games=1, simulations=4, root="gumbel")


def test_playout_mix_values_leaves_with_playouts_too():
    # A net that values every position 0: alone it leaves every value 0; with playout_mix the
    # playouts' results come in (win or loss, never all 0), and change where the search goes.
    # Out-of-range mixes are refused.
    state = pv.Fish().new_state(seed=3)
    zero = uniform(2)
    plain = search(state, "puct", evaluator=zero, iterations=64, seed=1)
    half = search(state, "puct", evaluator=zero, iterations=64, seed=1, playout_mix=0.5)
    assert plain.value == 0.0
    assert half.value != 0.0 and abs(half.value) <= 0.5
    assert list(half.visits) != list(plain.visits)
    for bad in [-0.5, 1.5, float("nan")]:
        with pytest.raises(ValueError, match="playout_mix"):
            Searcher("puct", evaluator=zero, playout_mix=bad)
