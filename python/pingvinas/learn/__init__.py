"""Learning: self-play samples (:mod:`~pingvinas.learn.selfplay`), the trainer of PUCT nets
behind ``pingvinas train`` (:mod:`~pingvinas.learn.train`), the trainer of the alpha-beta
evaluation net (:mod:`~pingvinas.learn.train_nnue`), and their learning-curve picture
(:mod:`~pingvinas.learn.curve`). The nets themselves, and the evaluators that run them in the
search, are in :mod:`pingvinas.searching`.
"""
