"""Playing: the search (:mod:`~pingvinas.play.search`) and what it evaluates with
(:mod:`~pingvinas.play.evaluators`, :mod:`~pingvinas.play.nets`), the players built on it
(:mod:`~pingvinas.play.agents`) and external engines as players (:mod:`~pingvinas.play.protocol`),
one game between players (:mod:`~pingvinas.play.game`), matches (:mod:`~pingvinas.play.match`),
locally or on a Ray cluster (:mod:`~pingvinas.play.ray`), and rating ladders
(:mod:`~pingvinas.play.ladder`); :mod:`~pingvinas.play.sprt` is the statistics of a sequential
test.

Each module imports only those listed before it (the search first, matches last).
"""
