"""Plackett-Luce ratings (pingvinas.rating.plackett_luce): its likelihood against a direct
computation, Bradley-Terry with two players, and strengths recovered from simulated games."""

import itertools
import math
import random

import numpy as np
import pytest

from pingvinas.rating.plackett_luce import Rankings, fit_rankings, log_likelihood


def direct_log_likelihood(games, theta):
    """The model written out: a game's probability is the product over places of the placed
    player's weight over the weights of those not yet placed; a game with ties takes the mean
    log-probability of the orders that break them."""
    total = 0.0
    for table, places, count in games:
        orders = [
            order
            for order in itertools.permutations(range(len(table)))
            if all(places[order[k]] <= places[order[k + 1]] for k in range(len(order) - 1))
        ]
        logs = []
        for order in orders:
            lp = 0.0
            for k in range(len(order) - 1):
                rest = [math.exp(theta[table[m]]) for m in order[k:]]
                lp += theta[table[order[k]]] - math.log(sum(rest))
            logs.append(lp)
        total += count * sum(logs) / len(logs)
    return total


def test_the_likelihood_is_the_model_written_out():
    names = ["a", "b", "c", "d"]
    games = [
        ([0, 1, 2], [1, 2, 3], 3),
        ([3, 2, 1, 0], [2, 1, 2, 4], 1),
        ([0, 3], [1, 1], 2),
        ([1, 2, 3, 0], [1, 1, 1, 4], 1),
    ]
    r = Rankings(names)
    for table, places, count in games:
        r.add([names[i] for i in table], places, count=count)
    theta = np.array([0.3, -0.7, 1.1, 0.0])
    value, grad, hess = log_likelihood(r, theta)
    assert value == pytest.approx(direct_log_likelihood(games, theta), abs=1e-9)
    # The gradient and Hessian are those of the same function (central differences).
    eps = 1e-5
    for i in range(4):
        d = np.zeros(4)
        d[i] = eps
        up = log_likelihood(r, theta + d)
        down = log_likelihood(r, theta - d)
        assert grad[i] == pytest.approx((up[0] - down[0]) / (2 * eps), abs=1e-6)
        assert hess[i] == pytest.approx((up[1] - down[1]) / (2 * eps), abs=1e-5)


def test_two_players_is_bradley_terry():
    """With two-player games the fit is Bradley-Terry's maximum: each player's expected score
    over its games (virtual draws of the prior included) equals the points it made, a draw
    counting half; and one pair's rating difference is 400 log10 of its points ratio."""
    rng = random.Random(3)
    names = ["random", "greedy", "mcts", "auto"]
    ranks = Rankings(names)
    points = np.zeros((4, 4))
    games = np.zeros((4, 4))
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        w, d, l_ = rng.randint(0, 9), rng.randint(0, 3), rng.randint(1, 9)
        for places, count in (([1, 2], w), ([1, 1], d), ([2, 1], l_)):
            if count:
                ranks.add([a, b], places, count=count)
        points[i, j], points[j, i] = w + d / 2 + 1, l_ + d / 2 + 1  # prior = 2 draws
        games[i, j] = games[j, i] = w + d + l_ + 2
    elo, _, _ = fit_rankings(ranks, prior=2)
    r = np.array([elo[p] for p in names])
    expected = games / (1 + 10 ** ((r[None, :] - r[:, None]) / 400))
    assert expected.sum(axis=1) == pytest.approx(points.sum(axis=1), abs=1e-6)
    pair = Rankings(["random", "greedy"])
    pair.add(["greedy", "random"], [1, 2], count=7)
    pair.add(["greedy", "random"], [1, 1], count=2)
    pair.add(["random", "greedy"], [1, 2], count=1)
    assert fit_rankings(pair, prior=0)[0]["greedy"] == pytest.approx(400 * math.log10(8 / 2))


def simulate(strengths, players, games, seed):
    """Games of ``players`` seats drawn from the model itself."""
    rng = random.Random(seed)
    names = list(strengths)
    r = Rankings(names)
    for _ in range(games):
        table = rng.sample(names, players)
        left, order = list(table), []
        while left:
            weights = [10 ** (strengths[p] / 400) for p in left]
            pick = rng.choices(left, weights)[0]
            order.append(pick)
            left.remove(pick)
        r.add(order, list(range(1, players + 1)))
    return r


@pytest.mark.parametrize("players", [3, 4, 5])
def test_strengths_are_recovered_with_honest_intervals(players):
    strengths = {"random": 0, "greedy": 150, "mcts": 300, "alphabeta": 380, "auto": 450}
    r = simulate(strengths, players, 1500, seed=players)
    elo, low, high = fit_rankings(r, anchor="random", prior=0)
    assert sorted(elo, key=elo.get) == sorted(strengths, key=strengths.get)
    inside = sum(low[p] <= strengths[p] <= high[p] for p in strengths if p != "random")
    assert inside >= 3  # 95% intervals: all four inside, or at most one just outside
    # More games, narrower intervals.
    elo2, low2, high2 = fit_rankings(simulate(strengths, players, 300, seed=9), prior=0)
    assert (high2["auto"] - low2["auto"]) > (high["auto"] - low["auto"])


def test_bad_input_says_what_is_wrong():
    r = Rankings(["a", "b", "c"])
    with pytest.raises(ValueError, match="no player 'z'"):
        r.add(["a", "z"], [1, 2])
    with pytest.raises(ValueError, match="places"):
        r.add(["a", "b"], [1])
    with pytest.raises(ValueError, match="places"):
        r.add(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match="different players"):
        r.add(["a", "a"], [1, 2])
    r.add(["a", "b"], [1, 2])
    with pytest.raises(ValueError, match="no games link c"):
        fit_rankings(r, anchor="a")
    r.add(["b", "c"], [1, 2])
    with pytest.raises(ValueError, match="first or last in every game"):
        fit_rankings(r, anchor="a", prior=0)
    with pytest.raises(ValueError, match="prior"):
        fit_rankings(r, prior=-1)
