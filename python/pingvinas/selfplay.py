"""The old name of :mod:`pingvinas.training` (``pv.selfplay`` is the function): what it held
still imports from here."""

from .training import MAX_GAMES, SelfPlayData, selfplay

__all__ = ["MAX_GAMES", "SelfPlayData", "selfplay"]
