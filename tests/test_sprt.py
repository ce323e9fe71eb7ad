"""The SPRT: its LLR against closed forms (the binomial SPRT when there are no draws), a brute
maximisation of the likelihood, and fishtest's published approximation; its bounds, decisions
and Elo interval; and a match that stops as soon as the test decides."""

from __future__ import annotations

import io
import math
import sys

import pytest

import pingvinas as pv
from pingvinas import cli
from pingvinas.playing.one_game import GameResult
from pingvinas.rating.sprt import (
    SPRT,
    elo_estimate,
    expected_score,
    llr_logistic,
    mle,
    outcome_counts,
)


def test_bounds_are_walds():
    lower, upper = SPRT(0, 10).bounds
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))
    lower, upper = SPRT(0, 5, alpha=0.01, beta=0.1).bounds
    assert lower == pytest.approx(math.log(0.1 / 0.99))
    assert upper == pytest.approx(math.log(0.9 / 0.01))


def test_expected_score_of_logistic_elo():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)


@pytest.mark.parametrize("wins, losses", [(30, 10), (12, 12), (5, 20), (100, 97)])
def test_without_draws_the_llr_is_the_binomial_sprt(wins, losses):
    # Only wins and losses: the distribution with expected score s is Bernoulli(s), so the
    # LLR is Wald's: W log(s1 / s0) + L log((1 - s1) / (1 - s0)). The draw count of 0 is
    # regularised to 0.001, which moves the value by about that much.
    s0, s1 = expected_score(0), expected_score(10)
    exact = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr_logistic(0, 10, [losses, 0, wins]) == pytest.approx(exact, abs=2e-3)


def _brute_llr(counts, elo0, elo1):
    """The trinomial LLR by maximising each likelihood over a fine grid: a distribution on
    0, 1/2, 1 with expected score s has one free parameter, its draw probability d."""
    n = sum(counts)

    def best(s):
        top = -math.inf
        steps = 50_000
        for k in range(1, steps):
            d = k / steps * min(2 * s, 2 * (1 - s))
            win = s - d / 2
            loss = 1 - win - d
            if win <= 0 or loss <= 0:
                continue
            ll = counts[0] * math.log(loss) + counts[1] * math.log(d) + counts[2] * math.log(win)
            top = max(top, ll)
        return top

    del n
    return best(expected_score(elo1)) - best(expected_score(elo0))


@pytest.mark.parametrize("counts", [[40, 70, 50], [10, 5, 25], [33, 40, 27]])
def test_the_llr_maximises_each_likelihood(counts):
    assert llr_logistic(-5, 15, counts) == pytest.approx(_brute_llr(counts, -5, 15), abs=1e-4)


def test_mle_has_the_expected_score_and_sums_to_one():
    pdf = [(0.0, 0.1), (0.25, 0.2), (0.5, 0.4), (0.75, 0.2), (1.0, 0.1)]
    for s in (0.3, 0.5, 0.62):
        q = mle(pdf, s)
        assert sum(p for _, p in q) == pytest.approx(1.0)
        assert sum(a * p for a, p in q) == pytest.approx(s)
        assert all(p > 0 for _, p in q)
    with pytest.raises(ValueError, match="not inside"):
        mle([(0.5, 1.0)], 0.5)


@pytest.mark.parametrize(
    "counts", [[5, 60, 130, 70, 8], [20, 100, 250, 110, 25], [900, 3000, 6000, 3200, 950]]
)
def test_pentanomial_llr_is_near_fishtests_approximation(counts):
    # fishtest's LLR_alt2: N/2 log(sum p (a - s0)^2 / sum p (a - s1)^2), close to the exact
    # value for small Elo differences (Van den Bergh, "GSPRT approximation").
    n = sum(counts)
    pdf = [(i / 4, c / n) for i, c in enumerate(counts)]
    s0, s1 = expected_score(0), expected_score(5)
    r0 = sum(p * (a - s0) ** 2 for a, p in pdf)
    r1 = sum(p * (a - s1) ** 2 for a, p in pdf)
    alt2 = n / 2 * math.log(r0 / r1)
    assert llr_logistic(0, 5, counts) == pytest.approx(alt2, rel=0.02, abs=0.02)


def test_decisions():
    test = SPRT(0, 10)
    assert test.report([0, 0, 0, 0, 105]).decision == "H1"  # 105 pairs won in a row
    assert test.report([0, 0, 0, 0, 100]).decision == "continue"  # not quite
    assert test.report([105, 0, 0, 0, 0]).decision == "H0"
    assert test.report([50, 100, 200, 100, 50]).decision == "continue"
    even = test.report([300, 600, 1200, 600, 300])
    assert even.decision == "H0" and even.elo == pytest.approx(0, abs=1e-9)
    assert even.los == pytest.approx(0.5)
    assert "H0 accepted" in str(even) and "Ptnml(0-2): 300, 600, 1200, 600, 300" in str(even)


def test_a_wide_test_decides_a_crushing_match_quickly():
    # A pair moves the LLR by at most log(s1 / s0) = 0.418 for 0 vs 200 Elo: 8 won pairs pass
    # log(19) = 2.944, 7 do not quite (2.929).
    test = SPRT(0, 200)
    assert test.report([0, 0, 0, 0, 7]).decision == "continue"
    assert test.report([0, 0, 0, 0, 8]).decision == "H1"


def test_elo_interval_by_hand():
    # Trinomial: 10 losses, 30 wins: mean 0.75, variance 0.1875 per game (no regularised
    # draws: 0.001 of one moves it little).
    elo, low, high, los = elo_estimate([10, 0, 30])
    mean, se = 0.75, math.sqrt(0.1875 / 40)

    def to_elo(s):
        return -400 * math.log10(1 / s - 1)

    assert elo == pytest.approx(to_elo(mean), abs=0.5)
    assert low == pytest.approx(to_elo(mean - 1.959964 * se), abs=1.0)
    assert high == pytest.approx(to_elo(mean + 1.959964 * se), abs=1.0)
    assert los == pytest.approx(0.5 * (1 + math.erf((mean - 0.5) / se / math.sqrt(2))), abs=1e-4)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        (dict(elo0=10, elo1=0), "elo0 < elo1"),
        (dict(elo0=0, elo1=10, alpha=0.6), "alpha"),
        (dict(elo0=0, elo1=10, beta=0), "beta"),
        (dict(elo0=0, elo1=math.inf), "finite"),
        (dict(elo0="0", elo1=10), "number"),
        (dict(elo0=0, elo1=5000), "2000"),
    ],
)
def test_bad_tests_are_refused(kwargs, says):
    with pytest.raises(ValueError, match=says):
        SPRT(**kwargs)


@pytest.mark.parametrize("counts", [[1, 2], [1, 2, 3, 4], [1, -1, 2], [1, float("nan"), 2]])
def test_bad_counts_are_refused(counts):
    with pytest.raises(ValueError, match="counts"):
        SPRT(0, 10).llr(counts)


def _game(index, seats, ranking):
    return GameResult(
        index=index, seed=0, seats=seats, ranking=ranking, returns=[], scores=[], moves=0
    )


def test_outcome_counts_of_pairs_and_games():
    results = [
        _game(0, [0, 1], [1, 2]),  # agent 0 wins
        _game(1, [1, 0], [1, 1]),  # a draw
        _game(2, [0, 1], [2, 1]),  # agent 0 loses
        _game(3, [1, 0], [2, 1]),  # agent 0 wins
        _game(4, [0, 1], [1, 2]),  # an unfinished pair: left out of the pentanomial
    ]
    assert outcome_counts(results) == [0, 0, 1, 1, 0]  # WD = 3/4, LW = 1/2
    assert outcome_counts(results, agent=1) == [0, 1, 1, 0, 0]
    assert outcome_counts(results, pairs=False) == [1, 1, 3]


def test_a_match_stops_when_the_test_decides():
    test = SPRT(0, 200)

    def until(done):
        return test.decide(test.llr(outcome_counts(done))) != "continue"

    result = pv.play_match(
        pv.Fish(), ["greedy", "random"], games=200, seed=3, until=until, progress=False
    )
    assert result.games < 200 and result.games % 2 == 0
    assert test.report(outcome_counts(result.records)).decision == "H1"


def test_match_sprt_command(capsys):
    try:
        cli.main(["match", "--agents", "greedy", "random", "--sprt", "0", "200", "--quiet"])
    except SystemExit as e:
        assert e.code in (0, None)
    out = capsys.readouterr().out
    assert "LLR:" in out and "H1 accepted" in out and "Elo:" in out and "Ptnml(0-2)" in out
    games = int(out.split("Ptnml(0-2): ")[1].split("(")[1].split()[0])
    assert games <= 30


def test_match_sprt_needs_two_players(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(
            ["match", "--game", "fish-3p", "--agents", "greedy", "random", "random"]
            + ["--sprt", "0", "10", "--quiet"]
        )
    assert caught.value.code == 2
    assert "two players" in capsys.readouterr().err


def test_hypotheses_of_one_expected_score_are_refused():
    # 1e-300 Elo is an expected score of exactly 1/2, as 0 is: the LLR stays 0 for ever.
    with pytest.raises(ValueError, match="expected scores do not differ"):
        SPRT(0, 1e-300)
    SPRT(0, 1e-9)  # these differ, if hardly


@pytest.mark.parametrize("elo0, elo1", [(0, 10), (0, 200), (-5, 5), (0, 0.5)])
@pytest.mark.parametrize("pentanomial", [True, False])
def test_fewest_games_is_where_a_one_sided_match_decides(elo0, elo1, pentanomial):
    test = SPRT(elo0, elo1)
    fewest = test.fewest_games(pentanomial=pentanomial)
    per = 2 if pentanomial else 1
    assert fewest % per == 0

    def decides(n):
        ones = [0] * (5 if pentanomial else 3)
        wins, losses = ones[:-1] + [n], [n] + ones[1:]
        return test.report(wins).decision == "H1" or test.report(losses).decision == "H0"

    assert decides(fewest // per) and not decides(fewest // per - 1)
    assert test.fewest_games(pentanomial=pentanomial, most=fewest - 1) is None
    assert SPRT(0, 1e-9).fewest_games() is None


def _match(capsys, *argv):
    try:
        cli.main(["match", "--game", "fish-mini-4x4", "--agents", "greedy", "random", *argv])
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--sprt", "0", "1e-300", "--games", "2"], "expected scores do not differ"),
        (["--sprt", "0", "10", "--games", "100"], "needs 202 games"),
        (["--sprt", "0", "1e-9"], f"needs more than {10**7:,} games"),
        (["--sprt", "0", "200", "--games", "11"], "--games 11: --sprt counts game pairs"),
        (["--games", "2", "--alpha", "0.1"], "--alpha: options of --sprt"),
        (["--games", "2", "--beta", "0.1", "--trinomial"], "--beta, --trinomial: options of"),
    ],
)
def test_an_sprt_that_cannot_work_is_refused_before_any_game(capsys, argv, words):
    code, out, err = _match(capsys, "--quiet", *argv)
    assert code == 2 and words in err and len(err.splitlines()) == 1, err
    assert out == ""


def test_an_odd_number_of_games_counts_every_game_with_trinomial(capsys):
    code, out, err = _match(capsys, "--quiet", "--sprt", "0", "2000", "--games", "1", "--trinomial")
    assert code == 0, err
    assert "L-D-W:" in out and "(1 games)" in out


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_a_match_stopped_by_its_test_ends_the_progress_line(monkeypatch, terminal):
    stderr = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    result = pv.play_match(
        pv.Fish.variant("fish-mini-4x4"),
        ["greedy", "random"],
        games=10,
        until=lambda done: len(done) >= 2,
        progress=True,
    )
    assert result.games == 2
    text = stderr.getvalue()
    # The bar's last state on a line of its own: what is printed next starts a new line.
    assert text.endswith("\n")
    last = text.replace("\r", "\n").rstrip("\n").splitlines()[-1]
    assert "2/10 games" in last and "stopped" in last
