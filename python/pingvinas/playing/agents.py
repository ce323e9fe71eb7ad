"""Players with one interface: ``agent.choose(state) -> move``.

```pycon
>>> import pingvinas as pv
>>> from pingvinas.playing.agents import GreedyAgent, MCTSAgent
>>> state = pv.Fish().new_state(seed=4)
>>> GreedyAgent(seed=1).choose(state) in state.legal_moves()
True
>>> MCTSAgent(iterations=100).choose(state) in state.legal_moves()
True

```

Every agent can :meth:`~Agent.spawn` a fresh copy of itself for another game (the match runner
plays games in parallel, each with its own copies), and :meth:`~Agent.reset` between games.
Agents pickle (a search agent as its settings, its copy starting afresh), so that
``play_match(..., backend="ray")`` can ship them to other processes; a :class:`CallableAgent`
pickles when its callable does (Ray's serializer also takes lambdas and closures).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Callable, Optional, TypedDict, Union

from ..games import Move, State
from ..searching.searcher import Searcher, SearchResult

__all__ = [
    "Agent",
    "AlphaBetaAgent",
    "CallableAgent",
    "GreedyAgent",
    "MCTSAgent",
    "RandomAgent",
    "SearchAgent",
]


class _Budget(TypedDict):
    """The limits of each move's search (``SearchAgent.budget``)."""

    time: Optional[float]
    iterations: Optional[int]
    depth: Optional[int]
    nodes: Optional[int]


class Agent:
    """The interface: ``choose(state)`` returns a legal move of the player to move."""

    #: A short name for tables.
    name: str = "agent"

    # Returns the state's own move: Any, so that the typed state of either game takes it back.
    def choose(self, state: State) -> Any:
        raise NotImplementedError

    def reset(self) -> None:
        """Called before each new game."""

    def spawn(self, seed: Optional[int] = None) -> Agent:
        """A fresh agent with the same settings (and ``seed`` if given), for another game."""
        raise NotImplementedError

    def __call__(self, state: State) -> Any:
        return self.choose(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomAgent(Agent):
    """A uniformly random legal move."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def choose(self, state: State) -> Any:
        moves: Sequence[Move] = state.legal_moves()
        return self._rng.choice(moves)

    def spawn(self, seed: Optional[int] = None) -> RandomAgent:
        return RandomAgent(self.seed if seed is None else seed)

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed})"


class SearchAgent(Agent):
    """A player backed by a :class:`~pingvinas.searching.searcher.Searcher`, which keeps its trees
    and transposition table from move to move within a game.

    :param algorithm: as for :func:`pingvinas.searching.searcher.search`.
    :param time: seconds per move; ``iterations``, ``depth`` and ``nodes`` bound each move's
        search too (with none given: one second per move).
    :param options: further :class:`~pingvinas.searching.searcher.Searcher` settings
        (``threads``: threads searching each move, 1 by default, as ``Searcher`` describes;
        ``seed``, ``exploration``, ``selection``, ``playout``, ``knowledge``, ``tt_mb``,
        ``reuse``).
    """

    def __init__(
        self,
        algorithm: str = "auto",
        *,
        time: Optional[float] = None,
        iterations: Optional[int] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        name: Optional[str] = None,
        **options: Any,
    ) -> None:
        self.algorithm = algorithm
        self.budget: _Budget = dict(time=time, iterations=iterations, depth=depth, nodes=nodes)
        self.options = options
        self.name = name or algorithm
        self.searcher = Searcher(algorithm, **options)
        #: The result of the last search, for inspection.
        self.last: Optional[SearchResult] = None

    def choose(self, state: State) -> Any:
        self.last = self.searcher.search(state, **self.budget)
        return self.last.move

    def reset(self) -> None:
        self.searcher.clear()

    def stop(self) -> None:
        """Stops a search running in another thread."""
        self.searcher.stop()

    # The Searcher holds native search trees and does not pickle: a pickled agent keeps its
    # settings, and its copy starts with a fresh Searcher (as after ``reset``). This is what
    # ships agents to other processes (``play_match(..., backend="ray")``).
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["searcher"]
        state["last"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.searcher = Searcher(self.algorithm, **self.options)

    def spawn(self, seed: Optional[int] = None) -> SearchAgent:
        options = dict(self.options)
        if seed is not None:
            options["seed"] = seed
        agent = type(self).__new__(type(self))
        SearchAgent.__init__(agent, self.algorithm, name=self.name, **self.budget, **options)
        return agent

    def __repr__(self) -> str:
        budget = ", ".join(f"{k}={v}" for k, v in self.budget.items() if v is not None)
        options = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        args = [repr(self.algorithm)] + [part for part in (budget, options) if part]
        return f"{type(self).__name__}({', '.join(args)})"


class GreedyAgent(SearchAgent):
    """The move that looks best right now (Fish: most fish on the landing floe, then room
    around it; placement: most fish around; Marathon: the most turns saved), ties at random."""

    def __init__(self, seed: int = 0, **options: Any) -> None:
        super().__init__("greedy", seed=seed, name="greedy", **options)


class MCTSAgent(SearchAgent):
    """Monte Carlo tree search (see :class:`~pingvinas.searching.searcher.Searcher` for the
    settings). ``knowledge=False`` gives plain MCTS with uniformly random playouts."""

    def __init__(
        self, *, time: Optional[float] = None, iterations: Optional[int] = None, **options: Any
    ) -> None:
        options.setdefault("name", "mcts")
        super().__init__("mcts", time=time, iterations=iterations, **options)


class AlphaBetaAgent(SearchAgent):
    """Alpha-beta with iterative deepening (paranoid for three or more players)."""

    def __init__(
        self, *, time: Optional[float] = None, depth: Optional[int] = None, **options: Any
    ) -> None:
        options.setdefault("name", "alphabeta")
        super().__init__("alphabeta", time=time, depth=depth, **options)


class CallableAgent(Agent):
    """Any Python callable ``f(state) -> move`` (a move object, an int action or notation)."""

    def __init__(
        self, fn: Callable[[State], Union[Move, int, str]], name: Optional[str] = None
    ) -> None:
        self.fn = fn
        self.name = name or str(getattr(fn, "__name__", "callable"))

    def choose(self, state: State) -> Any:
        mv = self.fn(state)
        if isinstance(mv, (int, str)):
            mv = state.parse_move(mv)
        return mv

    def spawn(self, seed: Optional[int] = None) -> CallableAgent:
        return self

    def __repr__(self) -> str:
        return f"CallableAgent({self.name})"
