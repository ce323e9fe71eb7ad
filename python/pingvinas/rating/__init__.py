"""Rating: the sequential probability ratio test of a match (:mod:`~pingvinas.rating.sprt`)
and rating ladders, round robins with ratings, their tables and pictures
(:mod:`~pingvinas.rating.ladder`)."""
