"""Training a residual NNUE evaluation for alpha-beta (``pingvinas train --kind nnue``; JAX and
optax, ``pip install "pingvinas[train]"``).

Positions come from seeded games in which alpha-beta with the hand-written evaluation
(``FishEval``) plays at ``depth`` plies, with a random legal move instead at a share
``explore`` of the plies (placement and movement), so that the positions vary. Each position's
value target, per seat from the player to move on, is the outcome mixed with the search's score
(weight ``search_mix``). The net is an :class:`~pingvinas._core.NnueNet` with a ``base`` layer:
it learns a correction on top of the hand-written estimate, and it starts as that estimate
exactly (value head zero, ``base`` weight 1), so a search with it starts at the hand-written
evaluation and training can only move it from there. With ``terms`` its first dense layer also
reads each seat's terms of the hand-written evaluation (``NnueNet.inputs``), which mean the same
on every board; ``width`` 0 drops the cell features (the net that ships,
:func:`pingvinas.searching.evaluators.learned`, is such a net). The inputs are the engine's own
(:meth:`NnueNet.inputs`), so the trained net computes in the engine what it computed here.

Everything is seeded: the same settings make the same net. Written to ``out``: ``net.safetensors``
and ``log.jsonl`` (settings, samples, the losses before and after, and with ``check_games`` the
checks against plain MCTS and ``alphabeta`` with the hand-written evaluation, also drawn as
``curve.svg`` / ``curve.png``).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from .._args import Range
from .._core import Fish, NnueNet
from .._files import check_output_dir, replacing_path, write_text
from ..games import Game
from ..playing.one_game import game_seed

__all__ = ["NNUE_RANGES", "NnueSettings", "nnue_samples", "split_by_game", "train_nnue"]


@dataclass
class NnueSettings:
    """The settings of :func:`train_nnue`."""

    out: str
    games: int = 200
    depth: int = 3
    explore: float = 0.15
    search_mix: float = 0.5
    width: int = 64
    hidden: tuple[int, ...] = (32,)
    terms: bool = False
    #: The games are made, and the steps taken, in this many rounds: each round plays its share
    #: of the games, then trains its share of the steps on every position so far, so that the
    #: learning curve shows strength by training minute.
    rounds: int = 1
    #: Games against plain MCTS and against ``alphabeta`` (each) at each check, at
    #: ``check_time`` a move (0: no checks): before training, then after each quarter of the
    #: steps (one round) or after each round.
    check_games: int = 0
    check_time: float = 0.1
    steps: int = 2000
    batch: int = 256
    lr: float = 1e-3
    seed: int = 0


#: The range of each numeric setting of :class:`NnueSettings`, both ends included (``above``:
#: the low end excluded); ``pingvinas train --kind nnue`` checks the same.
NNUE_RANGES: dict[str, Range] = {
    "games": Range(1, 100_000),
    "depth": Range(1, 64),
    "explore": Range(0, 1, integer=False),
    "search_mix": Range(0, 1, integer=False),
    "width": Range(0, 4096),
    "rounds": Range(1, 100_000),
    "check_games": Range(0, 100_000),
    "check_time": Range(0, 3600, integer=False, above=True),
    "steps": Range(0, 1_000_000),
    "batch": Range(1, 65_536),
    "lr": Range(0, 10, integer=False, above=True),
    "seed": Range(0, 2**63 - 1),
}


@dataclass
class NnueSamples:
    """Training rows: what the net reads (``NnueNet.inputs``) and the value targets, each seat
    from the player to move on."""

    features: np.ndarray  # uint8 (n, players, features)
    scores: np.ndarray  # float32 (n, players)
    estimate: np.ndarray  # float32 (n, players)
    terms: np.ndarray  # float32 (n, players, terms)
    target: np.ndarray  # float32 (n, players)
    game: np.ndarray  # int64 (n,): the game each row comes from


def nnue_samples(
    game: Game,
    net: NnueNet,
    games: int,
    depth: int,
    explore: float,
    mix: float,
    seed: int,
    first: int = 0,
    rng: Optional[np.random.Generator] = None,
) -> NnueSamples:
    """Rows from ``games`` seeded games of alpha-beta at ``depth`` (a random move at a share
    ``explore`` of the plies); the target is ``(1 - mix) * outcome + mix * search score``
    (two players: the score ``v`` is ``[v, -v]``; more: the mover's seat only).

    The games are numbers ``first`` on, their random moves drawn from ``rng`` (by default a
    fresh one of ``seed``): calls in turn with one ``rng`` make the rows of one call."""
    from ..searching.searcher import Searcher

    if not isinstance(game, Fish):
        raise ValueError("an NnueNet reads Fish boards")
    players = game.players
    states: list[Any] = []
    search: list[Any] = []
    outcomes: list[Any] = []
    game_of: list[int] = []
    rng = np.random.default_rng(seed) if rng is None else rng
    for g in range(first, first + games):
        state = game.new_state(seed=game_seed(seed, g, 0))
        searcher = Searcher("alphabeta", depth=depth, seed=game_seed(seed, g, 1))
        movers: list[int] = []
        while not state.is_terminal():
            legal = state.legal_actions()
            mover = int(state.to_move or 0)
            r = searcher.search(state)
            states.append(state.copy())
            v = np.zeros(players, np.float32)
            v[0] = float(r.value)
            if players == 2:
                v[1] = -v[0]
            search.append(v)
            movers.append(mover)
            game_of.append(g)
            action = int(r.action)
            if rng.random() < explore:
                action = int(legal[rng.integers(len(legal))])
            state.play(action)
        returns = np.asarray(state.returns(), np.float32)
        outcomes.extend(np.roll(returns, -m) for m in movers)
    if not states:
        raise ValueError("the games recorded no positions")
    out, score = np.asarray(outcomes, np.float32), np.asarray(search, np.float32)
    target = out.copy()
    if players == 2:
        target = (1 - mix) * out + mix * score
    else:
        target[:, 0] = (1 - mix) * out[:, 0] + mix * score[:, 0]
    x = net.inputs(states)
    return NnueSamples(
        x["features"],
        x["scores"],
        x["estimate"],
        x["terms"],
        target.astype(np.float32),
        np.asarray(game_of, np.int64),
    )


def split_by_game(
    game_of: np.ndarray, games: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The rows held out (those of a tenth of the games, at random) and the rows trained on.

    Held out by game, not by position: a game's positions share its board, which a net learns by
    heart (``--games 200 --depth 3 --hidden 32 --steps 2000``: held-out positions of the
    training games 0.05, positions of unseen games 0.41, the hand-written estimate 0.32)."""
    return split_rows(game_of, held_out_games(games, rng))


def held_out_games(games: int, rng: np.random.Generator) -> np.ndarray:
    """A tenth of the games ``0..games``, at random: those whose rows are held out."""
    return rng.permutation(games)[: games // 10]


def split_rows(game_of: np.ndarray, held_games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the games ``held_games``, and the others."""
    is_held = np.isin(game_of, held_games)
    return np.flatnonzero(is_held), np.flatnonzero(~is_held)


def _joined(parts: list[NnueSamples]) -> NnueSamples:
    fields = ("features", "scores", "estimate", "terms", "target", "game")
    return NnueSamples(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields))


def init_params(
    jax: Any, key: Any, features: int, players: int, width: int, hidden: Any, terms: int = 0
) -> Any:
    """He-initialised layers in ``NnueNet``'s order (the first dense layer also reading
    ``terms`` terms a seat); the value head zero and the ``base`` weight 1, so that the net
    starts as the hand-written estimate."""
    params: dict[str, Any] = {}
    key, sub = jax.random.split(key)
    # About one active feature a cell: scale as for one input a cell.
    cells = features / (3 + players)
    params["features"] = (
        jax.random.uniform(sub, (width, features), minval=-1, maxval=1) * np.sqrt(6 / cells),
        jax.numpy.zeros(width),
    )
    inputs, dense = players * (width + 1 + terms), []
    for w in hidden:
        key, sub = jax.random.split(key)
        dense.append(
            (jax.random.normal(sub, (w, inputs)) * np.sqrt(2 / inputs), jax.numpy.zeros(w))
        )
        inputs = w
    params["dense"] = dense
    params["value"] = (jax.numpy.zeros((players, inputs)), jax.numpy.zeros(players))
    params["base"] = (jax.numpy.ones((1, 1)), jax.numpy.zeros(1))
    return params


def forward(
    jnp: Any, params: Any, features: Any, scores: Any, estimate: Any, terms: Any = None
) -> Any:
    """The values per seat, as the engine computes them (``pingvinas-nnue`` with ``base``,
    reading the hand-written terms when ``terms`` is given)."""
    w, b = params["features"]
    x = scores
    if w.shape[0]:  # a net of width 0 has no accumulators
        acc = jnp.maximum(jnp.einsum("nsf,wf->nsw", features, w) + b, 0.0)
        x = jnp.concatenate([acc.reshape(acc.shape[0], -1), scores], axis=1)
    if terms is not None:
        x = jnp.concatenate([x, terms.reshape(terms.shape[0], -1)], axis=1)
    for w, b in params["dense"]:
        x = jnp.maximum(x @ w.T + b, 0.0)
    w, b = params["value"]
    bw, bb = params["base"]
    e = jnp.arctanh(jnp.clip(estimate, -0.999999, 0.999999))
    return jnp.tanh(x @ w.T + b + bw[0, 0] * e + bb[0])


def to_net(game: Fish, params: Any) -> NnueNet:
    """The engine's net of these parameters."""

    def pair(p: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(p[0], np.float32), np.asarray(p[1], np.float32)

    return NnueNet.from_arrays(
        game,
        pair(params["features"]),
        [pair(d) for d in params["dense"]],
        pair(params["value"]),
        base=pair(params["base"]),
    )


def train_nnue(game: Game, s: NnueSettings, log: Optional[Callable[[str], None]] = None) -> NnueNet:
    """Makes the samples, trains the net on them (AdamW, squared error per seat), writes
    ``net.safetensors`` and ``log.jsonl`` to ``s.out`` and returns the net. In ``s.rounds``
    rounds (see :class:`NnueSettings`), the net kept is that of the best held-out loss of the
    last round.

    :raises ValueError: a bad setting (each numeric one has its range in :data:`NNUE_RANGES`),
        or an ``out`` that cannot be a directory.
    :raises ImportError: JAX or optax is missing (before anything is written).
    """
    from .train import _jax, check_ranges

    if not isinstance(game, Fish):
        raise ValueError("an NnueNet reads Fish boards")
    check_ranges(s, NNUE_RANGES, layers=Range(0, 64))
    if not 1 <= s.rounds <= s.games:
        raise ValueError(f"rounds = {s.rounds}: expected 1 to games ({s.games})")
    if s.width == 0 and not s.terms:
        raise ValueError("a net of width 0 reads the hand-written terms only: give terms=True")
    check_output_dir(s.out)
    jax, jnp, optax = _jax()
    out = Path(s.out)
    out.mkdir(parents=True, exist_ok=True)
    say = log or (lambda line: None)
    start = time.monotonic()
    players = game.players
    probe = NnueNet.random(game, 1, [1], seed=0)
    opt = optax.adamw(s.lr, weight_decay=1e-4)
    rng = np.random.default_rng(s.seed)
    held_games = held_out_games(s.games, rng)
    explore_rng = np.random.default_rng(s.seed)
    parts: list[NnueSamples] = []

    checks: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = []
    checking = 0.0  # seconds of checks, not training time

    def check(k: int, p: Any) -> None:
        nonlocal checking
        if s.check_games < 1:
            return
        from .train import strength

        began = time.monotonic()
        minutes = (began - start - checking) / 60
        result = strength(
            game, to_net(game, p), s.check_games, s.check_time, s.seed + k, "alphabeta"
        )
        checks.append({"event": "check", "step": k, "minutes": minutes, **result})
        checking += time.monotonic() - began
        say(
            f"step {k}: vs mcts {result['mcts']['score']:.2f}, vs alphabeta "
            f"{result['alphabeta']['score']:.2f} ({s.check_games} games each)"
        )

    done = 0  # steps taken
    for r in range(s.rounds):
        first, last = s.games * r // s.rounds, s.games * (r + 1) // s.rounds
        began = time.monotonic()
        parts.append(
            nnue_samples(
                game,
                probe,
                last - first,
                s.depth,
                s.explore,
                s.search_mix,
                s.seed,
                first,
                explore_rng,
            )
        )
        data = _joined(parts)
        n = len(data.target)
        if r == 0:
            terms = data.terms.shape[2] if s.terms else 0
            params = init_params(
                jax,
                jax.random.PRNGKey(s.seed),
                data.features.shape[2],
                players,
                s.width,
                s.hidden,
                terms,
            )
            initial, state = params, opt.init(params)
        say(f"{n} positions from {last} games ({time.monotonic() - began:.0f} s)")
        # A net of width 0 reads no cell features: not worth their memory.
        cells = (
            data.features.astype(np.float32) if s.width else np.zeros((n, players, 0), np.float32)
        )
        inputs = [cells, data.scores, data.estimate, data.terms if s.terms else None, data.target]
        arrays = [None if x is None else jnp.asarray(x) for x in inputs]

        def loss(p: Any, rows: Any, arrays: Any = arrays) -> Any:
            f, sc, e, tm, target = (None if x is None else x[rows] for x in arrays)
            return jnp.mean((forward(jnp, p, f, sc, e, tm) - target) ** 2)

        def raw_step(p: Any, st: Any, rows: Any, loss: Any = loss) -> Any:
            value, grads = jax.value_and_grad(loss)(p, rows)
            updates, st = opt.update(grads, st, p)
            return optax.apply_updates(p, updates), st, value

        step = jax.jit(raw_step)
        held, train_rows = split_rows(data.game, held_games)
        held = held if len(held) else train_rows
        held_chunk = jax.jit(loss)

        def held_loss(p: Any, held: Any = held, held_chunk: Any = held_chunk) -> float:
            chunks = np.array_split(held, -(-len(held) // 4096))
            return float(sum(held_chunk(p, c) * len(c) for c in chunks) / len(held))

        # Stopped early: the parameters of the best held-out loss, checked ten times a round.
        best = held_loss(params)
        kept, kept_step = params, done
        if r == 0:
            check(0, params)
        steps = s.steps * (r + 1) // s.rounds - done
        quarters = {steps * q // 4 for q in (1, 2, 3)} - {0, steps} if s.rounds == 1 else set()
        for k in range(steps):
            rows = rng.choice(train_rows, size=min(s.batch, len(train_rows)), replace=False)
            params, state, value = step(params, state, rows)
            if (k + 1) % max(1, steps // 10) == 0 or k + 1 == steps:
                now = held_loss(params)
                if now < best:
                    best, kept, kept_step = now, params, done + k + 1
                say(f"step {done + k + 1}: training loss {float(value):.4f}, held out {now:.4f}")
            if k + 1 in quarters:
                check(done + k + 1, params)
        done += steps
        minutes = (time.monotonic() - start - checking) / 60
        rounds.append(
            {
                "event": "round",
                "round": r + 1,
                "games": last,
                "positions": n,
                "step": done,
                "held_out_loss": best,
                "minutes": minutes,
            }
        )
        check(done, kept)
    params, after = kept, best
    before = held_loss(initial)
    net = to_net(game, params)
    with replacing_path(out / "net.safetensors") as temp:
        net.save(temp)
    record = {
        "settings": asdict(s),
        "positions": int(n),
        "held_out": int(len(held)),
        "loss_before": before,
        "loss_after": after,
        "kept_step": kept_step,
        "seconds": time.monotonic() - start - checking,
    }
    lines = [record, *(rounds if s.rounds > 1 else []), *checks]
    write_text(out / "log.jsonl", "".join(json.dumps(r) + "\n" for r in lines))
    if checks:
        from .curve import write_curve

        write_curve(
            checks,
            out / "curve.svg",
            out / "curve.png",
            title=f"{game.name or 'fish'}: the learned evaluation at {s.check_time} s a move",
            minutes="training minutes (alpha-beta's games and updates)",
        )
    say(f"held-out loss {before:.4f} (the hand-written estimate) -> {after:.4f}")
    return net
