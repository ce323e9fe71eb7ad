"""Playing: the players (:mod:`~pingvinas.playing.agents`), external engines over the engine
protocol (:mod:`~pingvinas.playing.protocol`), agents made from their specs
(:mod:`~pingvinas.playing.specs`), one game between players (:mod:`~pingvinas.playing.one_game`)
and matches (:mod:`~pingvinas.playing.match`), locally, on threads or on a Ray cluster.

Each module imports only those listed before it (the agents first, matches last).
"""
