"""The old name of :mod:`pingvinas.envs.openspiel`, the OpenSpiel adapter, beside the other
adapters now: ``import pingvinas.openspiel; pingvinas.openspiel.register()`` still works."""

from .envs.openspiel import (
    FISH_VARIANTS,
    MARATHON_VARIANTS,
    FishGame,
    MarathonGame,
    PingvinasState,
    register,
)

__all__ = [
    "FISH_VARIANTS",
    "MARATHON_VARIANTS",
    "FishGame",
    "MarathonGame",
    "PingvinasState",
    "register",
]
