"""Training a native net by Gumbel self-play (``pingvinas train``; JAX and optax, ``pip install
"pingvinas[train]"``).

Each generation plays games with the current :class:`~pingvinas._core.Net` as the evaluator of
a Gumbel search (:func:`pingvinas.learn.selfplay` with ``root="gumbel"`` and few simulations: Gumbel
AlphaZero improves the policy with as few as 16), trains the net on the samples of the last few
generations, each sample under a random symmetry of the board (``game.symmetries()``), with the
search's improved policy as the policy target and the game's outcome as the value target, then
exports it (:func:`pingvinas.searching.nets.from_jax`) for the next generation. Optionally it starts
by distilling ``alphabeta`` (alpha-beta with the hand-written evaluation): games it plays at a
fixed depth, its moves as policy targets and its search values mixed with the outcomes as value
targets.

Everything is seeded: the same settings and seed give the same nets (generation count bounds;
a time bound stops at a machine-dependent generation). The strength checks (games against plain
MCTS, with random playouts, and against ``alphabeta`` with the hand-written evaluation at equal
time a move) are timed games and not
reproducible; they do not touch the training's random streams.

Written to ``--out``: ``gen-NNN.safetensors`` for every generation, ``net.safetensors`` (the
last), ``log.jsonl`` (one JSON object a line: ``"event": "generation"`` with its losses and
sample counts, ``"check"`` with the scores and their Wilson 95% intervals) and ``curve.svg`` /
``curve.png`` (strength by training minute; the PNG needs cairosvg, ``pingvinas[png]``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np

from .._args import Range
from .._core import Net, NnueNet
from .._files import check_output_dir, replacing_path
from ..games import Game
from ..playing.match import play_match
from ..playing.one_game import game_seed
from ..searching import nets
from .selfplay import SelfPlayData, selfplay

__all__ = ["OUTPUTS", "PLAYERS", "RANGES", "Settings", "learned_player", "strength", "train"]


@dataclass
class Settings:
    """The settings of :func:`train` (``pingvinas train --help`` gives each)."""

    out: str
    generations: int = 10
    minutes: Optional[float] = None
    games: int = 32
    simulations: int = 16
    hidden: Sequence[int] = (128, 128)
    steps: int = 200
    batch: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    window: int = 4
    distill_games: int = 0
    distill_depth: int = 2
    search_value_mix: float = 0.5
    check_every: int = 2
    check_games: int = 8
    check_time: float = 0.05
    player: str = "puct"
    playout_mix: float = 0.0
    distill_steps: Optional[int] = None
    seed: int = 0
    progress: bool = False


#: The range of each numeric setting of :class:`Settings`, both ends included (``above``: the
#: low end excluded); ``pingvinas train``'s options take the same. ``minutes`` and
#: ``distill_steps`` may also be ``None`` (no time limit; ``steps``).
RANGES: dict[str, Range] = {
    "generations": Range(1, 100_000),
    "minutes": Range(0, 1_000_000, integer=False, above=True),
    "games": Range(1, 100_000),
    "simulations": Range(1, 100_000),
    "steps": Range(1, 1_000_000),
    "batch": Range(1, 65_536),
    "lr": Range(0, 10, integer=False, above=True),
    "weight_decay": Range(0, 1, integer=False),
    "value_weight": Range(0, 1000, integer=False, above=True),
    "window": Range(1, 10_000),
    "distill_games": Range(0, 100_000),
    "distill_depth": Range(1, 64),
    "search_value_mix": Range(0, 1, integer=False),
    "check_every": Range(1, 100_000),
    "check_games": Range(0, 100_000),
    "check_time": Range(0, 3600, integer=False, above=True),
    "playout_mix": Range(0, 1, integer=False),
    "distill_steps": Range(1, 1_000_000),
    "seed": Range(0, 2**63 - 1),
}
#: Each width of ``hidden`` (the trunk's layers), and how many layers.
WIDTH, LAYERS = Range(1, 4096), Range(1, 64)
#: The files a run writes in ``out`` (globs): ``pingvinas train`` refuses a directory that
#: holds one unless ``--force``.
OUTPUTS = ("log.jsonl", "net.safetensors", "gen-*.safetensors", "curve.svg", "curve.png")


def check_ranges(settings: Any, ranges: dict[str, Range], layers: Range = LAYERS) -> None:
    """Raises ``ValueError`` (``TypeError``: not a number) naming the first setting of
    ``settings`` outside its range (``None`` passes: the settings that may be None), or its
    ``hidden`` widths unless ``layers`` of them, each :data:`WIDTH`."""
    for name, r in ranges.items():
        value = getattr(settings, name)
        if value is not None:
            r.check(name, value)
    hidden = list(settings.hidden)
    if not layers.holds(len(hidden)) or not all(WIDTH.holds(w) for w in hidden):
        shown = repr(hidden) if len(hidden) <= 8 else f"{len(hidden)} widths"
        raise ValueError(f"hidden = {shown}: expected {layers} widths, each {WIDTH}")


def _jax() -> tuple[Any, Any, Any]:
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as e:
        raise ImportError(
            f'pingvinas train needs JAX and optax: pip install "pingvinas[train]" ({e})'
        ) from e
    return jax, jnp, optax


# --- the net in JAX: the same layout as pingvinas.nets.from_jax reads ----------------------


def init_params(
    jax: Any, key: Any, inputs: int, hidden: Sequence[int], outputs: tuple[int, int]
) -> dict[str, Any]:
    """He-initialised dense layers ``trunk_0 ...``, ``policy``, ``value`` (flax's layout);
    the heads start small, so that the first policy is near uniform and values near 0."""
    params: dict[str, Any] = {}
    layers = [(f"trunk_{k}", w, 2.0) for k, w in enumerate(hidden)]
    layers += [("policy", outputs[0], 0.01), ("value", outputs[1], 0.01)]
    width = inputs
    for name, out, gain in layers:
        key, sub = jax.random.split(key)
        kernel = jax.random.normal(sub, (width, out)) * np.sqrt(gain / width)
        params[name] = {"kernel": kernel, "bias": jax.numpy.zeros(out)}
        if name.startswith("trunk"):
            width = out
    return params


def forward(jnp: Any, params: dict[str, Any], x: Any) -> tuple[Any, Any]:
    """Policy logits and ``tanh`` values for a batch of flattened observations."""
    k = 0
    while f"trunk_{k}" in params:
        layer = params[f"trunk_{k}"]
        x = jnp.maximum(x @ layer["kernel"] + layer["bias"], 0.0)
        k += 1
    logits = x @ params["policy"]["kernel"] + params["policy"]["bias"]
    values = jnp.tanh(x @ params["value"]["kernel"] + params["value"]["bias"])
    return logits, values


# --- samples --------------------------------------------------------------------------------


@dataclass
class Samples:
    """Training rows: flattened observations, legal masks, policy and value targets."""

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    @staticmethod
    def join(parts: Sequence[Samples]) -> Samples:
        return Samples(
            *(
                np.concatenate([getattr(p, f) for p in parts])
                for f in ("obs", "mask", "policy", "value")
            )
        )


def from_selfplay(data: SelfPlayData) -> Samples:
    """Self-play rows: the recorded (improved) policy, the outcome per seat from the mover."""
    n = len(data)
    return Samples(
        obs=data.observations.reshape(n, -1).astype(np.float32),
        mask=data.legal_masks.astype(bool),
        policy=data.policies.astype(np.float32),
        value=data.value_targets().astype(np.float32),
    )


def distill(game: Game, games: int, depth: int, mix: float, seed: int) -> Samples:
    """Rows from games ``alphabeta`` (the hand-written evaluation) plays against itself at
    ``depth`` plies: its move as the policy
    target, and as the value target the outcome mixed with its search value (weight ``mix``;
    two players: ``[v, -v]``, more: the mover's seat only). The first two moves of each game are
    random, so that the games differ."""
    from ..searching.searcher import Searcher

    players = game.players
    obs, masks, policies, values, outcomes = [], [], [], [], []
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_state(seed=game_seed(seed, g, 0))
        searcher = Searcher("alphabeta", depth=depth, seed=game_seed(seed, g, 1))
        movers: list[int] = []
        ply = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            mover = state.to_move
            if ply < 2:
                action = int(legal[rng.integers(len(legal))])
            else:
                r = searcher.search(state)
                action, value = int(r.action), float(r.value)
                target = np.zeros(game.num_actions, np.float32)
                target[action] = 1.0
                obs.append(state.observation_tensor().reshape(-1))
                masks.append(state.legal_action_mask())
                policies.append(target)
                v = np.zeros(players, np.float32)
                v[0] = value
                if players == 2:
                    v[1] = -value
                values.append(v)
                movers.append(int(mover or 0))
            state.play(action)
            ply += 1
        returns = np.asarray(state.returns(), np.float32)
        for mover in movers:
            outcomes.append(np.roll(returns, -mover))
    if not obs:
        raise ValueError("distillation recorded no positions")
    out = np.asarray(outcomes, np.float32)
    search = np.asarray(values, np.float32)
    if players == 2:
        target = (1 - mix) * out + mix * search
    else:
        target = out.copy()
        target[:, 0] = (1 - mix) * out[:, 0] + mix * search[:, 0]
    return Samples(
        obs=np.asarray(obs, np.float32),
        mask=np.asarray(masks, bool),
        policy=np.asarray(policies, np.float32),
        value=target.astype(np.float32),
    )


class Symmetries:
    """The board's symmetries as index arrays over flattened observations and actions."""

    def __init__(self, game: Game) -> None:
        planes, rows, cols = game.observation_shape
        area = rows * cols
        self.obs: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.names = []
        for sym in game.symmetries():
            # Plane p cell i moves to plane planes[p] cell cells[i]: the image's flat index j
            # takes the source flat index src[j].
            dest = (np.asarray(sym.planes)[:, None] * area + np.asarray(sym.cells)[None, :]).ravel()
            src = np.empty(planes * area, np.int64)
            src[dest] = np.arange(planes * area)
            act = np.empty(game.num_actions, np.int64)
            act[np.asarray(sym.actions)] = np.arange(game.num_actions)
            self.obs.append(src)
            self.actions.append(act)
            self.names.append(sym.name)

    def __len__(self) -> int:
        return len(self.obs)

    def apply(self, k: int, s: Samples) -> Samples:
        """The rows ``s`` under symmetry ``k`` (values are unchanged by a map of the board)."""
        a = self.actions[k]
        return Samples(s.obs[:, self.obs[k]], s.mask[:, a], s.policy[:, a], s.value)

    def augment(self, s: Samples, rng: np.random.Generator) -> Samples:
        """Each row under a symmetry drawn uniformly."""
        if len(self) == 1:
            return s
        which = rng.integers(len(self), size=len(s))
        out = Samples(s.obs.copy(), s.mask.copy(), s.policy.copy(), s.value)
        for k in range(1, len(self)):
            rows = np.nonzero(which == k)[0]
            if len(rows):
                image = self.apply(
                    k, Samples(s.obs[rows], s.mask[rows], s.policy[rows], s.value[rows])
                )
                out.obs[rows], out.mask[rows], out.policy[rows] = (
                    image.obs,
                    image.mask,
                    image.policy,
                )
        return out


# --- the loop ---------------------------------------------------------------------------------


class _Trainer:
    """The JAX parameters, the optimiser and the jitted update step."""

    def __init__(self, game: Game, s: Settings) -> None:
        self.jax, self.jnp, optax = _jax()
        jax, jnp = self.jax, self.jnp
        inputs = int(np.prod(game.observation_shape))
        key = jax.random.PRNGKey(s.seed)
        self.params = init_params(
            jax, key, inputs, list(s.hidden), (game.num_actions, game.players)
        )
        self.optimiser = optax.adamw(s.lr, weight_decay=s.weight_decay)
        self.opt_state = self.optimiser.init(self.params)
        players, value_weight = game.players, s.value_weight

        def loss(params: Any, obs: Any, mask: Any, pi: Any, z: Any) -> tuple[Any, tuple[Any, Any]]:
            logits, v = forward(jnp, params, obs)
            logp = jax.nn.log_softmax(jnp.where(mask, logits, -1e9), axis=-1)
            policy = -jnp.mean(jnp.sum(jnp.where(mask, pi * logp, 0.0), axis=-1))
            value = jnp.mean(jnp.sum((v - z) ** 2, axis=-1)) / players
            return policy + value_weight * value, (policy, value)

        def step(params: Any, opt_state: Any, obs: Any, mask: Any, pi: Any, z: Any) -> Any:
            (_, (pl, vl)), grads = jax.value_and_grad(loss, has_aux=True)(params, obs, mask, pi, z)
            updates, opt_state = self.optimiser.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, pl, vl

        self.step = jax.jit(step)

    def fit(
        self, data: Samples, steps: int, batch: int, sym: Symmetries, rng: np.random.Generator
    ) -> tuple[float, float]:
        """``steps`` minibatch updates; the mean policy and value losses of the last quarter."""
        losses = []
        for _ in range(steps):
            rows = rng.integers(len(data), size=min(batch, len(data)))
            b = sym.augment(
                Samples(data.obs[rows], data.mask[rows], data.policy[rows], data.value[rows]), rng
            )
            self.params, self.opt_state, pl, vl = self.step(
                self.params, self.opt_state, b.obs, b.mask, b.policy, b.value
            )
            losses.append((float(pl), float(vl)))
        tail = losses[-max(1, steps // 4) :]
        return float(np.mean([p for p, _ in tail])), float(np.mean([v for _, v in tail]))

    def net(self, game: Game) -> Net:
        return nets.from_jax(game, self.jax.tree_util.tree_map(np.asarray, self.params))


#: How the learned player searches with its net (``--player``).
PLAYERS: dict[str, dict[str, Any]] = {
    "puct": dict(algorithm="puct", root="gumbel"),  # priors and values: Gumbel at the root
    # PUCT at the root too, one leaf at a time: a native net gains nothing from batches, and
    # virtual losses cost quality (measured: 0.63 against 0.48 at 200 iterations, mix 0.5).
    "puct-root": dict(algorithm="puct", root="puct", batch_size=1),
    "alphabeta": dict(algorithm="alphabeta"),  # the value head as alpha-beta's evaluation
    "mcts": dict(algorithm="mcts", playout="evaluate"),  # the value head at MCTS leaves
}


def learned_player(
    net: Union[Net, NnueNet],
    player: str,
    seconds: Optional[float],
    seed: int,
    playout_mix: float = 0.0,
    iterations: Optional[int] = None,
) -> Any:
    """The search agent that plays ``net`` the way ``player`` names (a key of
    :data:`PLAYERS`), at ``seconds`` a move (or ``iterations``); the PUCT players value
    leaves with ``(1 - playout_mix) * net + playout_mix * playout`` (AlphaGo's lambda)."""
    from ..playing.agents import SearchAgent

    if player not in PLAYERS:
        raise ValueError(f"player = {player!r}: expected one of {', '.join(PLAYERS)}")
    options: dict[str, Any] = dict(PLAYERS[player])
    algorithm = options.pop("algorithm")
    if algorithm == "puct":
        options["playout_mix"] = playout_mix
    elif playout_mix:
        raise ValueError(f"playout_mix = {playout_mix}: only the PUCT players mix playouts")
    return SearchAgent(
        algorithm,
        time=seconds,
        iterations=iterations,
        evaluator=net,
        seed=seed,
        name="net",
        **options,
    )


def strength(
    game: Game,
    net: Union[Net, NnueNet],
    games: int,
    seconds: float,
    seed: int,
    player: str = "puct",
    playout_mix: float = 0.0,
) -> dict[str, Any]:
    """The learned player (:func:`learned_player`) against plain MCTS (random playouts) and
    against ``alphabeta`` (the hand-written evaluation, what ``auto`` played before it played
    the learned net), at ``seconds`` a move each, seats swapped: score rates with Wilson 95%
    intervals."""
    from ..playing.agents import SearchAgent

    out: dict[str, Any] = {}
    for name, opponent in [
        ("mcts", SearchAgent("mcts", time=seconds, knowledge=False, seed=seed, name="mcts")),
        ("alphabeta", SearchAgent("alphabeta", time=seconds, seed=seed, name="alphabeta")),
    ]:
        learned = learned_player(net, player, seconds, seed, playout_mix)
        r = play_match(game, [learned, opponent], games=games, seed=seed, progress=False)
        stats = r.agents[0]
        lo, hi = stats.ci95
        out[name] = {"score": stats.score_rate, "low": lo, "high": hi, "games": stats.games}
    return out


def train(game: Game, s: Settings, log: Optional[Callable[[str], None]] = None) -> Net:
    """Runs the loop (see the module's text) and returns the last net; files go to ``s.out``.

    :raises ImportError: JAX or optax is missing (before anything is written).
    :raises ValueError: a bad setting (each numeric one has its range in :data:`RANGES`), or an
        ``out`` that cannot be a directory.
    """
    check_ranges(s, RANGES)
    if s.player not in PLAYERS:
        raise ValueError(f"player = {s.player!r}: expected one of {', '.join(PLAYERS)}")
    if s.playout_mix and not s.player.startswith("puct"):
        raise ValueError(f"playout_mix = {s.playout_mix}: only the PUCT players mix playouts")
    check_output_dir(s.out)
    say = log or (lambda _: None)
    trainer = _Trainer(game, s)  # JAX first: without it, nothing is written
    out = Path(s.out)
    out.mkdir(parents=True, exist_ok=True)
    sym = Symmetries(game)
    rng = np.random.default_rng(s.seed)
    # Line-buffered: the log can be followed while the run goes on, and is complete after an error.
    with open(out / "log.jsonl", "w", encoding="utf-8", buffering=1) as logfile:
        clock = 0.0  # seconds of self-play and training, without the strength checks
        checks: list[dict[str, Any]] = []

        def write(event: dict[str, Any]) -> None:
            logfile.write(json.dumps(event) + "\n")

        def check(gen: int, net: Net) -> None:
            if s.check_games < 1:
                return
            result = strength(
                game, net, s.check_games, s.check_time, s.seed + gen, s.player, s.playout_mix
            )
            event = {"event": "check", "generation": gen, "minutes": clock / 60, **result}
            checks.append(event)
            write(event)
            say(
                f"gen {gen}: vs mcts {result['mcts']['score']:.2f}, "
                f"vs alphabeta {result['alphabeta']['score']:.2f} ({s.check_games} games each)"
            )

        name = game.name or type(game).__name__.lower()
        write({"event": "settings", "game": name, "symmetries": sym.names, **asdict(s)})
        buffer: list[Samples] = []
        started = time.perf_counter()
        if s.distill_games > 0:
            buffer.append(
                distill(game, s.distill_games, s.distill_depth, s.search_value_mix, s.seed)
            )
        net = trainer.net(game)
        if buffer:
            steps = s.steps if s.distill_steps is None else s.distill_steps
            pl, vl = trainer.fit(buffer[0], steps, s.batch, sym, rng)
            net = trainer.net(game)
            clock += time.perf_counter() - started
            write(
                {
                    "event": "distill",
                    "samples": len(buffer[0]),
                    "policy_loss": pl,
                    "value_loss": vl,
                    "minutes": clock / 60,
                }
            )
            say(f"distilled alphabeta: {len(buffer[0])} samples, policy {pl:.3f}, value {vl:.3f}")
        else:
            clock += time.perf_counter() - started
        _save(net, out / "gen-000.safetensors")
        check(0, net)
        gen = 0
        for gen in range(1, s.generations + 1):
            if s.minutes is not None and clock >= s.minutes * 60:
                gen -= 1
                break
            t0 = time.perf_counter()
            data = selfplay(
                game,
                games=range((gen - 1) * s.games, gen * s.games),
                simulations=s.simulations,
                evaluator=net,
                root="gumbel",
                seed=s.seed,
                progress=s.progress,
            )
            buffer.append(from_selfplay(data))
            buffer = buffer[-s.window :]
            t1 = time.perf_counter()
            pl, vl = trainer.fit(Samples.join(buffer), s.steps, s.batch, sym, rng)
            net = trainer.net(game)
            t2 = time.perf_counter()
            clock += t2 - t0
            _save(net, out / f"gen-{gen:03d}.safetensors")
            write(
                {
                    "event": "generation",
                    "generation": gen,
                    "samples": len(data),
                    "buffer": sum(len(b) for b in buffer),
                    "policy_loss": pl,
                    "value_loss": vl,
                    "selfplay_seconds": t1 - t0,
                    "train_seconds": t2 - t1,
                    "minutes": clock / 60,
                }
            )
            say(
                f"gen {gen}: {len(data)} samples, policy {pl:.3f}, value {vl:.3f}, "
                f"{clock / 60:.1f} min"
            )
            if gen % s.check_every == 0:
                check(gen, net)
        _save(net, out / "net.safetensors")
        if s.check_games >= 1 and (not checks or checks[-1]["generation"] != gen):
            check(gen, net)
    if checks:
        from .curve import write_curve

        write_curve(
            checks,
            out / "curve.svg",
            out / "curve.png",
            title=f"{name}: the learned net at {s.check_time} s a move",
        )
    return net


def _save(net: Net, path: Path) -> None:
    """``net.save(path)``, whole or not at all (through a temporary file)."""
    with replacing_path(path) as temp:
        net.save(temp)


def settings_from(args: Any) -> Settings:
    """:class:`Settings` from ``pingvinas train``'s parsed arguments."""
    names = Settings.__dataclass_fields__.keys()
    return Settings(**{n: getattr(args, n) for n in names if hasattr(args, n)})
