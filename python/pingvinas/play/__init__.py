"""Playing: the search (:mod:`~pingvinas.play.search`) and what it evaluates with
(:mod:`~pingvinas.play.evaluators`, :mod:`~pingvinas.play.nets`), the players built on it
(:mod:`~pingvinas.play.agents`), one game between players (:mod:`~pingvinas.play.game`), and
matches (:mod:`~pingvinas.play.match`), locally or on a Ray cluster (:mod:`~pingvinas.play.ray`).

Each module imports only those listed before it (the search first, matches last).
"""
