"""The OpenSpiel adapter (``pip install "pingvinas[openspiel]"``): both games as Python games of
``pyspiel``, so that OpenSpiel's algorithms (MCTS, minimax, its RL environment, ...) play them.

```pycon
>>> import pingvinas.envs.openspiel, pyspiel                             # doctest: +SKIP
>>> pingvinas.envs.openspiel.register()                                 # doctest: +SKIP
>>> game = pyspiel.load_game("pingvinas_fish", {"variant": "fish-3p", "seed": 7})  # doctest: +SKIP

```

Two games, each with every bundled variant as a parameter:

- ``pingvinas_fish``: ``variant`` (``"fish"``, ``"fish-3p"``, ``"fish-4p"``,
  ``"fish-snake-any"``; default ``"fish"``) and ``seed`` (default 0). The board deal is not
  a chance node: a game is deterministic, its board dealt from ``seed`` (so every state of one
  loaded game starts from the same board; load it with another seed for another board). This
  keeps OpenSpiel's algorithms on a game of perfect information without chance, which is what
  Fish is once the board lies on the table.
- ``pingvinas_marathon``: ``variant`` (``"marathon"``, ``"marathon-5"``, ``"marathon-l"``,
  ``"marathon-zigzag"``; default ``"marathon"``) and ``players`` (2 to 5; default 2). The ply
  limit's draw is a terminal state with returns all 0.

Everything is the pingvinas State underneath: ``legal_actions``, ``apply_action``, ``returns``
(zero-sum, terminal rewards), ``current_player``, ``action_to_string`` (the move's notation),
``str(state)`` (the text board) and the observation tensor (``observation_tensor(player)``
flattened; the observer's ``dict["observation"]`` has its shape). ``state.serialize()`` and
``game.deserialize_state()`` are OpenSpiel's own for Python games: the action history and the
pickled Python attributes, where the pingvinas state pickles through its JSON (``to_json``).
``state.pingvinas_state`` is the pingvinas state itself (read it, do not change it).

**Speed.** The adapter is for OpenSpiel's algorithms and tools, not for speed: every step goes
through OpenSpiel's Python-game layer, so a Python algorithm over it pays that layer on every
call: OpenSpiel's Python ``MCTSBot`` plays a game through it more slowly than the same loop
over the pingvinas State API directly (``python benches/adapters.py`` measures both), and both
are far behind the engine's own search. For strong or fast play use
``pingvinas.searching.searcher`` (``pv.search(state, algorithm="mcts", iterations=...)``, a
``pv.Searcher`` per seat, or ``pv.search_many``), which runs in Rust off the GIL; for many games at
once, ``pv.VectorEnv``.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        'pingvinas.envs.openspiel needs OpenSpiel: pip install "open_spiel>=1.5" (the extra '
        '"openspiel": pip install ".[openspiel]" in a checkout)'
    ) from e

from .._core import Fish, Marathon, variants
from ..games import Game, State
from ._common import max_game_length, observation_shape

__all__ = ["FISH_VARIANTS", "MARATHON_VARIANTS", "register"]

FISH_VARIANTS = tuple(n for n in variants() if n.startswith("fish"))
MARATHON_VARIANTS = tuple(n for n in variants() if n.startswith("marathon"))


def _game_type(
    short_name: str, long_name: str, max_players: int, parameters: dict[str, Any]
) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


FISH_TYPE = _game_type(
    "pingvinas_fish", "Fish (Hey, That's My Fish!), pingvinas", 4, {"variant": "fish", "seed": 0}
)
MARATHON_TYPE = _game_type(
    "pingvinas_marathon", "Penguin Marathon, pingvinas", 5, {"variant": "marathon", "players": 2}
)


class _PingvinasGame(pyspiel.Game):
    """A pingvinas variant as a pyspiel game."""

    def __init__(
        self, game_type: pyspiel.GameType, game: Game, params: dict[str, Any], seed: Optional[int]
    ) -> None:
        self.pingvinas_game = game
        self._seed = seed
        players = game.players
        min_utility = -1.0 if isinstance(game, Fish) else -1.0 / (players - 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=min_utility,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(game),
        )
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> PingvinasState:
        return PingvinasState(self, self.pingvinas_game.new_state(seed=self._seed))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self.pingvinas_game, params)


class FishGame(_PingvinasGame):
    """``pingvinas_fish``: parameters ``variant`` and ``seed`` (the board deal)."""

    def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
        params = dict(FISH_TYPE.parameter_specification, **(params or {}))
        variant = str(params["variant"])
        if variant not in FISH_VARIANTS:
            raise ValueError(f"variant = {variant!r}: expected one of {', '.join(FISH_VARIANTS)}")
        super().__init__(FISH_TYPE, Fish.variant(variant), params, int(params["seed"]))


class MarathonGame(_PingvinasGame):
    """``pingvinas_marathon``: parameters ``variant`` (the course) and ``players``."""

    def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
        params = dict(MARATHON_TYPE.parameter_specification, **(params or {}))
        variant = str(params["variant"])
        if variant not in MARATHON_VARIANTS:
            raise ValueError(
                f"variant = {variant!r}: expected one of {', '.join(MARATHON_VARIANTS)}"
            )
        super().__init__(
            MARATHON_TYPE,
            Marathon(players=int(params["players"]), course=variant),
            params,
            None,
        )


class PingvinasState(pyspiel.State):
    """A pyspiel state wrapping a pingvinas state."""

    def __init__(self, game: _PingvinasGame, state: State) -> None:
        super().__init__(game)
        self.pingvinas_state = state

    def current_player(self) -> int:
        return int(self.pingvinas_state.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.pingvinas_state.legal_actions())

    def _apply_action(self, action: int) -> None:
        self.pingvinas_state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        try:
            return str(self.pingvinas_state.parse_move(int(action)))
        except ValueError:  # not a legal move here (OpenSpiel also names past actions)
            return f"action {action}"

    def is_terminal(self) -> bool:
        return bool(self.pingvinas_state.is_over)

    def returns(self) -> list[float]:
        return list(self.pingvinas_state.returns())

    def __str__(self) -> str:
        return str(self.pingvinas_state)


class _Observer:
    """OpenSpiel's PyObserver: the observation tensor of the player asked for."""

    def __init__(self, game: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        shape = observation_shape(game)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: PingvinasState, player: int) -> None:
        self.dict["observation"][...] = state.pingvinas_state.observation_tensor(player=player)

    def string_from(self, state: PingvinasState, player: int) -> str:
        return str(state.pingvinas_state)


_registered = False


def register() -> None:
    """Registers ``pingvinas_fish`` and ``pingvinas_marathon`` with ``pyspiel`` (once; calling
    again does nothing). Then ``pyspiel.load_game("pingvinas_fish", {"variant": "fish-3p"})``."""
    global _registered
    if _registered:
        return
    names = set(pyspiel.registered_names())
    if FISH_TYPE.short_name not in names:
        pyspiel.register_game(FISH_TYPE, FishGame)
    if MARATHON_TYPE.short_name not in names:
        pyspiel.register_game(MARATHON_TYPE, MarathonGame)
    _registered = True
