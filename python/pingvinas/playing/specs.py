"""Agents from their specs: ``"auto"``, ``"mcts:800"``, ``"learned"``, ``"net:PATH"``,
``"cmd:COMMAND"`` (an external engine), ... (the spec's grammar is ``AgentSpec``'s). Above both
the built-in agents and the protocol's driver, which it makes agents of."""

from __future__ import annotations

from typing import Any

from .._core import AgentSpec, load_net
from .agents import Agent, CallableAgent, GreedyAgent, RandomAgent, SearchAgent

__all__ = ["as_agent", "expand_spec", "spec_options", "timed_agent"]


def expand_spec(text: str) -> str:
    """``"learned"`` (``"learned:D"``) spelt out as ``"alphabeta+net:PATH"`` (``"alphabeta:D+..."``)
    with the path of the learned evaluation that ships
    (:func:`pingvinas.searching.evaluators.learned`); any other text as it is. The engine's
    :class:`AgentSpec` reads ``"learned"`` itself now; this stays for code that spelt it out."""
    name, _, depth = text.partition(":")
    if name != "learned":
        return text
    from ..searching.evaluators import LEARNED

    return f"alphabeta{':' + depth if depth else ''}+net:{LEARNED}"


def spec_options(spec: AgentSpec) -> dict[str, Any]:
    """The :class:`~pingvinas.searching.searcher.Searcher` settings that an agent spec's net brings,
    empty without one: the net, read from its file here, once for the agent and its copies
    (``ValueError`` naming the file when it cannot be read), and for ``"net:PATH"`` PUCT's
    Gumbel root; for ``"learned"``, :func:`pingvinas.searching.evaluators.learned`. The file may
    hold a ``Net`` or, for ``"alphabeta+net:PATH"`` and the other non-PUCT specs, an ``NnueNet``. A
    net made for another game is refused by the first search."""
    if spec.learned:
        from ..searching.evaluators import learned

        return {"evaluator": learned()}
    if spec.net is None:
        return {}
    options: dict[str, Any] = {"evaluator": load_net(spec.net)}
    if spec.algorithm == "puct":
        options["root"] = "gumbel"
    return options


def as_agent(x: Any) -> Agent:
    """An :class:`Agent` from an agent, an agent spec (``"random"``, ``"greedy"``, ``"mcts"``,
    ``"alphabeta"``, ``"auto"``, ``"learned"``, ``"net:PATH"``: one second per move;
    ``"mcts:N"`` N iterations, ``"alphabeta:D"`` and ``"learned:D"`` depth D, ``"puct:N+net:PATH"``
    N simulations; ``"SPEC+net:PATH"`` the net as SPEC's estimate; see ``AgentSpec``; an
    external engine: ``"cmd:COMMAND"``, :class:`~pingvinas.playing.protocol.driver.EngineAgent`) or
    a callable."""
    if isinstance(x, Agent):
        return x
    if isinstance(x, str):
        if x.startswith("cmd:"):
            from .protocol.driver import engine_agent

            return engine_agent(x)
        spec = AgentSpec(x)  # ValueError for anything else
        if spec.algorithm == "random":
            return RandomAgent()
        if spec.algorithm == "greedy":
            return GreedyAgent()
        options = spec_options(spec)
        if options:
            options["name"] = str(spec)
        if spec.iterations is None and spec.depth is None:
            return SearchAgent(spec.algorithm, time=1.0, **options)
        return SearchAgent(spec.algorithm, iterations=spec.iterations, depth=spec.depth, **options)
    if callable(x):
        return CallableAgent(x)
    raise TypeError(
        f"cannot make an agent of {type(x).__name__}: expected an Agent, a name or a callable"
    )


def timed_agent(name: str, time: float, seed: int = 0) -> Agent:
    """The agent of the spec ``name`` searching ``time`` seconds a move (or its count, if it gives
    one: ``"mcts:N"``, ``"alphabeta:D"``), seeded: the CLI's agents. ``"solve"`` solves within
    the time too: a position it cannot solve in time raises ``ValueError``. ``"cmd:COMMAND"``
    is an external engine given ``time`` seconds a move."""
    if name.startswith("cmd:"):
        from .protocol.driver import engine_agent

        return engine_agent(name, time)
    spec = AgentSpec(name)  # ValueError for anything else
    if spec.algorithm == "random":
        return RandomAgent(seed=seed)
    if spec.algorithm == "greedy":
        return GreedyAgent(seed=seed)
    if spec.algorithm == "solve":
        return SearchAgent("solve", time=time, seed=seed)
    options = spec_options(spec)
    return SearchAgent(
        spec.algorithm,
        time=time,
        iterations=spec.iterations,
        depth=spec.depth,
        seed=seed,
        name=name if options else None,
        **options,
    )
