"""The PettingZoo adapter: an AEC environment in which every seat is an agent."""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import seeding
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        'pingvinas.envs.pettingzoo_env needs PettingZoo: pip install "pettingzoo>=1.24" (the '
        'extra "pettingzoo": pip install ".[pettingzoo]" in a checkout)'
    ) from e

from . import _common

__all__ = ["PingvinasAECEnv"]


class PingvinasAECEnv(AECEnv):
    """A PettingZoo AEC environment for Fish or Marathon, any variant and player count.

    Made by :func:`pingvinas.envs.pettingzoo_env`.

    - Agents ``player_0`` ... ``player_{n-1}``, the game's seats; ``agent_selection`` is the
      player to move (players the rules skip, such as a Fish player whose penguins are all
      lifted, get no turns).
    - ``observe(agent)``: ``{"observation": state.observation_tensor(player=i), "action_mask":
      int8 mask}``, from that agent's view; the mask is all zeros except for the agent to move.
    - Rewards: all 0 until the game ends, then ``state.returns()``. At the end every agent
      terminates; a Marathon game that reaches its ply limit is a draw by the rules, so that
      is a termination too (returns all 0), and nothing is ever truncated.
    - An illegal action raises :class:`pingvinas.IllegalMoveError` (the state is unchanged;
      ``InvalidMoveError`` for a number outside the action space).
    - ``reset(seed=...)`` seeds the env's generator, which deals the Fish board.
    - ``render()`` with ``render_mode="ansi"`` returns the text board; ``"human"`` prints it;
      ``"rgb_array"`` returns the picture's pixels (needs the ``png`` extra).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "pingvinas_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self, game: Union[str, _common.Game] = "fish", *, render_mode: Optional[str] = None
    ) -> None:
        super().__init__()
        self.game = _common.resolve_game(game)
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(
                f"render_mode = {render_mode!r}: expected None, 'ansi', 'human' or 'rgb_array'"
            )
        self.render_mode = render_mode
        name = getattr(self.game, "name", None) or type(self.game).__name__.lower()
        self.metadata = dict(self.metadata, name=f"pingvinas_{name.replace('-', '_')}_v0")
        self.possible_agents = [f"player_{i}" for i in range(self.game.players)]
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        n = self.game.num_actions
        shape = _common.observation_shape(self.game)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(_common.OBS_LOW, _common.OBS_HIGH, shape, np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self._np_random: Optional[np.random.Generator] = None
        self.state: Optional[_common.State] = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.state = _common.new_state(self.game, self._np_random)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._require_state()
        player = self._index[agent]
        if not state.is_over and state.to_move == player:
            mask = _common.action_mask(state)
        else:
            mask = np.zeros(self.game.num_actions, np.int8)
        return {"observation": state.observation_tensor(player=player), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        state.apply_action(int(action))
        self._cumulative_rewards[agent] = 0.0
        if state.is_over:
            returns = state.returns()
            self.rewards = {a: float(returns[self._index[a]]) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
            # Every agent now takes its final observation and reward in turn, starting with
            # the one after the mover.
            self.agent_selection = self._agent_after(agent)
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() without a render_mode: make the env with render_mode='ansi'"
            )
            return None
        if self.render_mode == "human":
            print(self._require_state())
            return None
        if self.render_mode == "rgb_array":
            from .. import svg

            return svg.to_array(self._require_state().svg())
        return str(self._require_state())

    def close(self) -> None:
        pass

    def _agent_to_move(self) -> str:
        to_move = self._require_state().to_move
        assert to_move is not None
        return self.possible_agents[to_move]

    def _agent_after(self, agent: str) -> str:
        i = self._index[agent]
        order = self.possible_agents[i + 1 :] + self.possible_agents[: i + 1]
        return next(a for a in order if a in self.agents)

    def _require_state(self) -> _common.State:
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state
