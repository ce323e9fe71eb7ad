"""The players, under one short name (``pv.agents``): the built-in agents
(:mod:`pingvinas.playing.agents`), agents made from specs (:mod:`pingvinas.playing.specs`) and
external engines (:class:`~pingvinas.playing.protocol.driver.EngineAgent`)."""

from .playing.agents import *  # noqa: F403
from .playing.agents import __all__ as _agents
from .playing.protocol.driver import EngineAgent, EngineFault
from .playing.specs import *  # noqa: F403
from .playing.specs import __all__ as _specs

__all__ = [*_agents, *_specs, "EngineAgent", "EngineFault"]
