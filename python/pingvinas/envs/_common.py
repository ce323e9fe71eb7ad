"""What the adapters share: the game from a name, shapes and bounds, and built-in opponents.

Everything here reads the State API; no game logic.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

from .._core import AgentSpec, Fish, Marathon
from ..games import Game as Game
from ..games import State as State
from ..playing.agents import Agent
from ..playing.specs import as_agent, spec_options
from ..searching.searcher import search

#: The bounds of every observation plane (the planes are indicators and scaled counts).
OBS_LOW, OBS_HIGH = 0.0, 1.0


def resolve_game(game: Union[str, Game]) -> Game:
    """A game object from a game object or a bundled variant's name (``"fish-3p"``)."""
    if isinstance(game, (Fish, Marathon)):
        return game
    if isinstance(game, str):
        from ..games import load_game

        return load_game(game)
    raise TypeError(
        f"game must be a pingvinas Fish or Marathon, or a variant name, got {type(game).__name__}"
    )


def observation_shape(game: Game) -> tuple[int, ...]:
    """The shape of ``observation_tensor()`` for this variant."""
    return tuple(game.observation_shape)


def max_game_length(game: Game) -> int:
    """The most actions one game of this variant can take."""
    return int(game.max_game_length)


def new_state(game: Game, rng: np.random.Generator) -> State:
    """A new game; Fish deals its board from ``rng`` (Marathon has no chance)."""
    return game.new_state(seed=int(rng.integers(0, 2**63 - 1)))


def action_mask(state: State) -> np.ndarray:
    """The legal-action mask as int8 (the dtype Gymnasium and PettingZoo expect)."""
    return state.legal_action_mask().astype(np.int8)


#: The fixed budget of each built-in opponent's move (deterministic for a seed: one thread,
#: no time limit), as the engine's agent spec gives it (``AgentSpec.budget``, the same budget
#: as the vector env's opponents). ``"auto"`` is alpha-beta for 2-player Fish and MCTS elsewhere.
OPPONENT_BUDGETS: dict[str, dict[str, Any]] = {
    name: dict(AgentSpec(name).budget) for name in ("greedy", "mcts", "alphabeta", "auto")
}


class Opponent:
    """Plays the seats the learner does not: ``"random"`` (a uniform legal action from the
    env's generator), ``"greedy"``, ``"mcts"``, ``"alphabeta"`` or ``"auto"`` (``pv.search``
    with the small fixed budget of ``OPPONENT_BUDGETS``, seeded from the env's generator;
    ``"mcts:N"`` and ``"alphabeta:D"`` set its iterations or depth; ``"net:PATH"`` and
    ``"SPEC+net:PATH"`` play a net file: an ``AgentSpec``), a
    :class:`pingvinas.playing.agents.Agent` (a fresh copy per episode, seeded from the env's
    generator) or a callable ``f(state) -> move`` (a move, an int action or notation)."""

    def __init__(
        self, spec: Union[str, Agent, Callable[[Any], Any]], budget: Optional[dict[str, Any]] = None
    ) -> None:
        self.spec = spec
        self.agent: Optional[Agent] = None
        if isinstance(spec, str):
            try:
                parsed = AgentSpec(spec)
            except ValueError as e:
                raise ValueError(f"opponent: {e}; or an Agent or a callable") from None
            # The spec's budget (its count, mcts:N or alphabeta:D, or the engine's default),
            # the caller's over it; a spec's net is read once, here.
            self.spec = parsed.algorithm
            self.budget = dict(parsed.budget, **spec_options(parsed), **(budget or {}))
        else:
            self.template = as_agent(spec)

    def reset(self, rng: np.random.Generator) -> None:
        """A new episode: agents get a fresh copy seeded from ``rng``."""
        if not isinstance(self.spec, str):
            self.agent = self.template.spawn(seed=int(rng.integers(0, 2**31 - 1)))
            self.agent.reset()

    def action(self, state: State, rng: np.random.Generator) -> int:
        """The opponent's action in ``state`` (its player is to move)."""
        if self.agent is not None:
            move = self.agent.choose(state)
            return (
                int(move)
                if isinstance(move, (int, np.integer))
                else int(state.parse_move(move).action)
            )
        if self.spec == "random":
            legal = state.legal_actions()
            return int(legal[int(rng.integers(len(legal)))])
        assert isinstance(self.spec, str)
        seed = int(rng.integers(0, 2**31 - 1))
        return int(search(state, self.spec, seed=seed, **self.budget).action)
