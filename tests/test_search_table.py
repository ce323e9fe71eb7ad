"""A one-shot search takes the transposition table that a dropped searcher gave back, cleared (a
new generation: older entries read as empty) rather than a new one, whose pages the system would
zero as the search first touches them. A reused table must behave exactly as a fresh one: equal
inputs give equal results and node counts, whichever table the search had."""

from __future__ import annotations

import random

import pytest

import pingvinas as pv


def midgame(n: int) -> list[pv.FishState]:
    """``n`` positions of one standard Fish deal after placement and a dozen random moves."""
    start = pv.Fish().new_state(seed=1)
    out = []
    seed = 0
    while len(out) < n:
        rng = random.Random(seed)
        seed += 1
        s = start
        for _ in range(20):
            if s.is_over:
                break
            s = s.after(rng.choice(s.legal_moves()))
        if not s.is_over:
            out.append(s)
    return out


def summary(r: pv.SearchResult) -> tuple:
    return (r.move, r.value, r.nodes, r.depth, tuple(r.pv))


@pytest.mark.parametrize("tt_mb", [3, 64])
def test_one_shot_searches_equal_fresh_ones_whatever_table_they_reuse(tt_mb):
    positions = midgame(8)
    # In order, then again in reverse: each search after the first takes the table of the one
    # before it, full of another position's entries.
    first = [summary(pv.search(s, "alphabeta", depth=4, tt_mb=tt_mb)) for s in positions]
    again = [summary(pv.search(s, "alphabeta", depth=4, tt_mb=tt_mb)) for s in positions[::-1]]
    assert again[::-1] == first
    # A kept searcher cleared before each search (a new generation of its own table) too.
    kept = pv.Searcher("alphabeta", tt_mb=tt_mb)
    for s, want in zip(positions, first):
        kept.clear()
        assert summary(kept.search(s, depth=4)) == want


def test_a_kept_searcher_still_uses_its_table_between_searches():
    # Not cleared, the entries of the last search help the next one at the same position.
    s = midgame(1)[0]
    kept = pv.Searcher("alphabeta")
    cold = kept.search(s, depth=4).nodes
    warm = kept.search(s, depth=4).nodes
    assert warm < cold
