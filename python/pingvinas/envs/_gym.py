"""The Gymnasium adapter: one seat learns, built-in opponents play the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        'pingvinas.envs.gym_env needs Gymnasium: pip install "gymnasium>=1.0" (the extra '
        '"gymnasium": pip install ".[gymnasium]" in a checkout)'
    ) from e

from . import _common

__all__ = ["PingvinasEnv"]


class PingvinasEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """A single-agent :class:`gymnasium.Env` over one seat of a Fish or Marathon game.

    Made by :func:`pingvinas.envs.gym_env` (see there for the parameters).

    - ``observation_space``: ``Dict(observation=Box(0, 1, observation shape, float32),
      action_mask=Box(0, 1, (num_actions,), int8))``; the observation is
      ``state.observation_tensor(player=seat)``, from the learner's view.
    - ``action_space``: ``Discrete(num_actions)``, the game's action numbers.
    - ``reward``: 0 until the game ends, then the learner's ``state.returns()[seat]``.
    - ``terminated`` when the game is over (a Marathon game that reaches its ply limit is a draw
      by the rules, so it terminates too); ``truncated`` is always False.
    - ``info``: ``legal_actions`` (the learner's, an ascending list of ints; empty at the end),
      and at the end ``returns`` (every player's). The values keep their types from step to
      step, so Gymnasium's own vector envs (``gymnasium.make_vec``) stack them.
    - ``env.state`` is the underlying pingvinas state (read it, do not change it).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        game: Union[str, _common.Game],
        opponent: Any = "random",
        *,
        seat: int = 0,
        render_mode: Optional[str] = None,
        illegal_action: str = "lose",
        opponent_budget: Optional[dict[str, Any]] = None,
    ) -> None:
        self.game = _common.resolve_game(game)
        players = self.game.players
        if not isinstance(seat, (int, np.integer)) or not 0 <= seat < players:
            raise ValueError(f"seat = {seat!r}: expected an int in 0..{players - 1}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode = {render_mode!r}: expected None, 'ansi', 'human' or 'rgb_array'"
            )
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action = {illegal_action!r}: expected 'raise' or 'lose'")
        self.seat = int(seat)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        others = [p for p in range(players) if p != self.seat]
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != len(others):
                raise ValueError(
                    f"expected {len(others)} opponents (one per other seat), got {len(opponent)}"
                )
            specs: Sequence[Any] = opponent
        else:
            specs = [opponent] * len(others)
        self.opponents = {
            p: _common.Opponent(spec, opponent_budget) for p, spec in zip(others, specs)
        }
        n = self.game.num_actions
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    _common.OBS_LOW,
                    _common.OBS_HIGH,
                    _common.observation_shape(self.game),
                    np.float32,
                ),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(n)
        self.state: Optional[_common.State] = None
        self._done = False

    # --- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game: Fish deals its board from the env's generator (``seed`` reseeds it);
        opponents seated before the learner move first."""
        super().reset(seed=seed)
        self.state = _common.new_state(self.game, self.np_random)
        for opp in self.opponents.values():
            opp.reset(self.np_random)
        self._play_opponents()
        self._done = self.state.is_over
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Plays the learner's ``action``, then the opponents' moves up to the learner's next
        turn or the end.

        An action that is not legal here ends the episode with reward -1 and
        ``info["illegal_action"] = True`` (the default ``illegal_action="lose"``).

        :raises pingvinas.IllegalMoveError: with ``illegal_action="raise"``, ``action`` is not
            legal here (the state is unchanged); ``InvalidMoveError`` for a number outside the
            action space.
        """
        state = self._require_state()
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if self.illegal_action == "lose" and not (
            0 <= action < self.game.num_actions and state.is_legal(action)
        ):
            info = self._info()
            info["illegal_action"] = True
            self._done = True
            return self._observation(), -1.0, True, False, info
        state.apply_action(action)
        self._play_opponents()
        self._done = state.is_over
        reward = float(state.returns()[self.seat]) if state.is_over else 0.0
        return self._observation(), reward, bool(state.is_over), False, self._info()

    def render(self) -> Any:
        """``"ansi"``: returns the text board (``str(state)``); ``"human"``: prints it;
        ``"rgb_array"``: the SVG picture's pixels, ``(height, width, 3)`` uint8 (needs the
        ``png`` extra)."""
        if self.render_mode == "ansi":
            return str(self._require_state())
        if self.render_mode == "human":
            print(self._require_state())
        if self.render_mode == "rgb_array":
            from .. import svg

            return svg.to_array(self._require_state().svg())
        return None

    # --- helpers ---------------------------------------------------------------------------

    def _require_state(self) -> _common.State:
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state

    def _play_opponents(self) -> None:
        state = self._require_state()
        while not state.is_over and state.to_move is not None and state.to_move != self.seat:
            opp = self.opponents[state.to_move]
            state.apply_action(opp.action(state, self.np_random))

    def _observation(self) -> dict[str, np.ndarray]:
        state = self._require_state()
        mask = (
            _common.action_mask(state)
            if not state.is_over
            else np.zeros(self.game.num_actions, np.int8)
        )
        return {"observation": state.observation_tensor(player=self.seat), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        state = self._require_state()
        info: dict[str, Any] = {"legal_actions": list(state.legal_actions())}
        if state.is_over:
            info["returns"] = list(state.returns())
        return info

    def __repr__(self) -> str:
        name = getattr(self.game, "name", None) or type(self.game).__name__
        return f"<PingvinasEnv {name} seat={self.seat}>"
