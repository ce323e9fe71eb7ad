"""A ``gymnasium.vector.VectorEnv`` backed by :class:`pingvinas.VectorEnv`: every game stepped
in Rust, one call per batch (``pip install "pingvinas[gymnasium]"``).

```pycon
>>> import gymnasium, pingvinas.envs.vector
>>> env = gymnasium.make_vec("pingvinas/Fish-v0", num_envs=64, opponent="greedy")
>>> obs, info = env.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((64, 14, 8, 8), (64, 2752))

```

Importing this module registers the vector entry points of ``pingvinas/Fish-v0`` and
``pingvinas/Marathon-v0`` (the ids of the single-agent adapter), so ``gymnasium.make_vec`` builds
this env for them (``vectorization_mode="vector_entry_point"``, the default when an id has one).

- Single-agent: the learner plays one seat (``learner``: a seat, or ``"random"`` per game),
  ``opponent`` (``"random"``, ``"greedy"``, ``"mcts"``, ``"mcts:N"``) plays the others inside
  the step; one step is one decision of the learner. ``opponent_time`` bounds each opponent
  move (seconds, 1.0 by default; see :class:`pingvinas.VectorEnv`).
- ``single_observation_space``: ``Dict(observation=Box(0, 1, observation shape, float32),
  action_mask=Box(0, 1, (num_actions,), int8))``, the learner's view; ``single_action_space``:
  ``Discrete(num_actions)``.
- Rewards: the learner's ``returns()`` on the step its game ends, else 0 (or, with
  ``reward="score"`` for Fish, the step's change of its fish lead over the mean of the others).
- Autoreset: Gymnasium's ``AutoresetMode.SAME_STEP``. The step that ends a game returns its
  reward and ``terminations=True``, the *next* game's observation, and the final observation in
  ``info["final_obs"]`` (with the mask ``info["_final_obs"]``) and ``info["final_info"]``
  (``returns`` of every player, masked by ``_returns``). ``truncations`` is always False.
- ``info`` also holds ``legal_actions`` (int16, padded with -1), ``legal_action_count`` and
  ``to_move`` for every env. Returned arrays are fresh copies (``copy=False`` returns the
  Rust env's own buffers, overwritten by the next call: faster, for code that copies what
  it keeps).
"""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .._core import VectorEnv
from ..games import Game
from ._common import resolve_game

__all__ = ["PingvinasVectorEnv", "gym_vector_env", "register"]

#: The ids this module gives a vector entry point, with their default game.
IDS = {"pingvinas/Fish-v0": "fish", "pingvinas/Marathon-v0": "marathon"}


class PingvinasVectorEnv(gymnasium.vector.VectorEnv):
    """See the module docs; made by :func:`gym_vector_env` or ``gymnasium.make_vec``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(
        self,
        game: Union[str, Game] = "fish",
        num_envs: int = 1,
        *,
        opponent: str = "random",
        learner: Union[int, str] = 0,
        opponent_time: Optional[float] = None,
        seed: Optional[int] = None,
        threads: int = 1,
        reward: str = "returns",
        copy: bool = True,
        render_mode: Optional[str] = None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode = {render_mode!r}: expected None or 'ansi'")
        self.game = resolve_game(game)
        self.env = VectorEnv(
            self.game,
            num_envs,
            seed=seed,
            threads=threads,
            opponent=opponent,
            learner=learner,
            opponent_time=opponent_time,
            reward=reward,
            copy=copy,
        )
        self.num_envs = num_envs
        self.render_mode = render_mode
        n = self.env.num_actions
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, self.env.observation_shape, np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(n)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    @property
    def learners(self) -> np.ndarray:
        """The learner's seat in each env's current game."""
        learners = self.env.learners
        assert learners is not None
        return learners

    def _obs(self, observations: np.ndarray, info: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"observation": observations, "action_mask": info["legal_action_mask"].view(np.int8)}

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        return {k: info[k] for k in ("legal_actions", "legal_action_count", "to_move")}

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game in every env; ``seed`` restarts every env's stream of games."""
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise TypeError("seed must be an int (one seed for all envs)")
        observations, info = self.env.reset(seed=None if seed is None else int(seed))
        return self._obs(observations, info), self._info(info)

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays the learners' ``actions`` (and the opponents' moves); raises
        :class:`pingvinas.IllegalMoveError` for an action the mask forbids (no env moves)."""
        observations, rewards, terminations, truncations, info = self.env.step(np.asarray(actions))
        out = self._info(info)
        ended = info["final_mask"]
        if ended.any():
            final_obs = np.empty(self.num_envs, dtype=object)
            final_returns = np.empty(self.num_envs, dtype=object)
            mask = info["final_observation"], info["final_returns"]
            for i in np.flatnonzero(ended):
                final_obs[i] = {
                    "observation": mask[0][i].copy(),
                    "action_mask": np.zeros(self.env.num_actions, np.int8),
                }
                final_returns[i] = mask[1][i].copy()
            out["final_obs"] = final_obs
            out["_final_obs"] = ended.copy()
            out["final_info"] = {"returns": final_returns, "_returns": ended.copy()}
            out["_final_info"] = ended.copy()
        return (
            self._obs(observations, info),
            rewards.astype(np.float64),
            terminations,
            truncations,
            out,
        )

    def render(self) -> Optional[tuple[str, ...]]:
        """``"ansi"``: the text board of every env."""
        if self.render_mode == "ansi":
            return tuple(str(s) for s in self.env.states())
        return None

    def close_extras(self, **kwargs: Any) -> None:
        pass


def gym_vector_env(
    game: Union[str, Game] = "fish",
    num_envs: int = 1,
    **kwargs: Any,
) -> PingvinasVectorEnv:
    """A :class:`PingvinasVectorEnv` (keywords: ``opponent``, ``learner`` or ``seat`` as in
    ``gym_env``, ``opponent_time``, ``seed``, ``threads``, ``reward``, ``copy``,
    ``render_mode``)."""
    kwargs.pop("max_episode_steps", None)
    if "seat" in kwargs:
        kwargs["learner"] = kwargs.pop("seat")
    return PingvinasVectorEnv(game, num_envs, **kwargs)


def register() -> None:
    """Gives ``pingvinas/Fish-v0`` and ``pingvinas/Marathon-v0`` this vector entry point
    (registering them if the single-agent adapter has not)."""
    for env_id, default in IDS.items():
        spec = gymnasium.registry.get(env_id)
        entry = f"{__name__}:gym_vector_env"
        if spec is None:
            gymnasium.register(
                id=env_id,
                entry_point="pingvinas.envs:gym_env",
                vector_entry_point=entry,
                kwargs={"game": default},
            )
        elif spec.vector_entry_point is None:
            spec.vector_entry_point = entry


register()
