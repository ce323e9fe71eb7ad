"""Adapters to the learning frameworks, each an optional extra; thin translations of names and
shapes over the State API (no game logic here).

- :func:`gym_env`: a single-agent ``gymnasium.Env`` (``pip install "pingvinas[gymnasium]"``).
  Importing this module with Gymnasium installed registers the ids ``pingvinas/Fish-v0`` and
  ``pingvinas/Marathon-v0``: ``gymnasium.make("pingvinas/Fish-v0", game="fish-3p",
  opponent="greedy")``.
- :func:`pettingzoo_env`: a PettingZoo AEC environment, every seat an agent
  (``pip install "pingvinas[pettingzoo]"``).
- OpenSpiel: :mod:`pingvinas.envs.openspiel`, whose ``register()`` adds both games to ``pyspiel``
  (``pip install "pingvinas[openspiel]"``).

- :func:`gym_vector_env`: a ``gymnasium.vector.VectorEnv`` backed by ``pv.VectorEnv`` (the games
  stepped in Rust); ``gymnasium.make_vec("pingvinas/Fish-v0", num_envs=64)`` builds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from ._common import observation_shape

if TYPE_CHECKING:
    from ._common import Game
    from ._gym import PingvinasEnv
    from ._pettingzoo import PingvinasAECEnv
    from .vector import PingvinasVectorEnv

__all__ = ["gym_env", "gym_vector_env", "observation_shape", "pettingzoo_env"]


def gym_env(
    game: Union[str, Game] = "fish",
    opponent: Any = "random",
    *,
    seat: int = 0,
    render_mode: Optional[str] = None,
    illegal_action: str = "lose",
    opponent_budget: Optional[dict[str, Any]] = None,
) -> PingvinasEnv:
    """A single-agent ``gymnasium.Env``: the learner plays ``seat``, ``opponent`` the others.

    :param game: a ``pv.Fish`` or ``pv.Marathon`` (any variant), or a bundled variant's name.
    :param opponent: ``"random"``, ``"greedy"``, ``"mcts"``, ``"alphabeta"``, ``"auto"`` (a
        ``pv.search`` with a small fixed budget per move, see ``OPPONENT_BUDGETS`` in
        ``pingvinas.envs._common``; ``opponent_budget`` overrides it), a
        :class:`pingvinas.playing.agents.Agent`, a callable ``f(state) -> move``, or a list with one
        of these per other seat. Every random choice comes from the env's ``np_random``, so
        ``reset(seed=...)`` reproduces the whole episode.
    :param seat: the learner's player number.
    :param render_mode: None, ``"ansi"`` (``render()`` returns the text board) or ``"human"``
        (it prints it).
    :param illegal_action: ``"lose"`` (default): an action the mask forbids (or one outside
        the action space) ends the episode as the learner's loss, reward -1 and
        ``info["illegal_action"] = True``, as PettingZoo's classic games do; so the default env
        passes ``gymnasium.utils.env_checker.check_env``, which steps with unmasked random
        actions. ``"raise"``: ``step`` raises :class:`pingvinas.IllegalMoveError` and the state
        is unchanged (to catch a masking bug early).
    """
    from ._gym import PingvinasEnv

    return PingvinasEnv(
        game,
        opponent,
        seat=seat,
        render_mode=render_mode,
        illegal_action=illegal_action,
        opponent_budget=opponent_budget,
    )


def gym_vector_env(
    game: Union[str, Game] = "fish", num_envs: int = 1, **kwargs: Any
) -> PingvinasVectorEnv:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games stepped in Rust by
    ``pv.VectorEnv`` (see :mod:`pingvinas.envs.vector` for the keywords)."""
    from .vector import gym_vector_env as make

    return make(game, num_envs, **kwargs)


def pettingzoo_env(
    game: Union[str, Game] = "fish", *, render_mode: Optional[str] = None
) -> PingvinasAECEnv:
    """A PettingZoo AEC environment in which every seat is an agent (``player_0``, ...).

    :param game: a ``pv.Fish`` or ``pv.Marathon`` (any variant, any number of players), or a
        bundled variant's name.
    :param render_mode: None, ``"ansi"`` (``render()`` returns the text board) or ``"human"``
        (it prints it).
    """
    from ._pettingzoo import PingvinasAECEnv

    return PingvinasAECEnv(game, render_mode=render_mode)


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    for env_id, default in (("pingvinas/Fish-v0", "fish"), ("pingvinas/Marathon-v0", "marathon")):
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="pingvinas.envs:gym_env",
                vector_entry_point="pingvinas.envs.vector:gym_vector_env",
                kwargs={"game": default},
            )


_register_gymnasium()
