"""A rating ladder: many players on one Elo scale, with 95% intervals.

```pycon
>>> from pingvinas.rating.ladder import Pairwise, fit
>>> results = Pairwise(["random", "greedy"])
>>> results.add("greedy", "random", wins=7, draws=2, losses=1)
>>> ratings = fit(results, prior=0)
>>> round(ratings.elo["greedy"], 1)   # 400 log10(8 / 2): it scored 8 of 10
240.8

```

**The schedule** is a round robin: every table of as many players as the game seats (every
pair, for a two-player game) plays ``games`` games, the players rotating through the seats on
shared deals (``play_match`` with ``swap_seats``), so that no one gains from a seat or a
board.

**The fit** is Bradley-Terry by maximum likelihood in logistic Elo (as Ordo does): player ``i``
scores against ``j`` with probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))``, a draw counting
as half a win and half a loss. ``prior`` virtual draws between every two players who met
(BayesElo's default is 2) keep the rating of a player who won or lost every game finite. The
anchor (``random``, when it plays) is fixed at 0, and the 95% intervals are 1.96 standard
errors from the inverse of the observed information (the curvature of the log-likelihood at
its maximum), so they are relative to the anchor, whose own interval is [0, 0].

**A ladder's ratings** are those of its games' finishing orders
(:mod:`~pingvinas.rating.plackett_luce`): Plackett-Luce, which is this fit with two players and
counts a game of three or more players once, so its intervals hold at every player count. The
table's games and score count pairwise results (a better place than another player at the
table wins).
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

import numpy as np

from ..svg._draw import INK, PALETTE, SvgText, el, num, svg_root, tostring, write_text
from .plackett_luce import Rankings, fit_rankings

__all__ = ["Ladder", "Pairwise", "Ratings", "fit", "pairs_of_game", "rate", "run_ladder"]


class Pairwise:
    """Wins, draws and losses between every two players (``wins[i, j]``: games ``i`` won
    against ``j``)."""

    def __init__(self, players: Sequence[str]) -> None:
        names = list(players)
        if len(set(names)) != len(names):
            raise ValueError(f"players = {names!r}: the names must differ")
        if len(names) < 2:
            raise ValueError("a ladder needs at least two players")
        self.players = names
        self.index = {name: i for i, name in enumerate(names)}
        n = len(names)
        self.wins = np.zeros((n, n), dtype=np.float64)
        self.draws = np.zeros((n, n), dtype=np.float64)

    def _at(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise ValueError(f"no player {name!r} (players: {', '.join(self.players)})") from None

    def add(self, a: str, b: str, *, wins: int = 0, draws: int = 0, losses: int = 0) -> None:
        """``a``'s results against ``b``."""
        i, j = self._at(a), self._at(b)
        if i == j:
            raise ValueError(f"{a!r} cannot play itself")
        for what, x in (("wins", wins), ("draws", draws), ("losses", losses)):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not x >= 0:
                raise ValueError(f"{what} = {x!r}: expected a count, 0 or more")
        self.wins[i, j] += wins
        self.wins[j, i] += losses
        self.draws[i, j] += draws
        self.draws[j, i] += draws

    def games(self, name: str) -> int:
        i = self._at(name)
        return int(self.wins[i].sum() + self.wins[:, i].sum() + self.draws[i].sum())

    def score(self, name: str) -> float:
        """The player's share of the points in its games (nan without games)."""
        i = self._at(name)
        n = self.games(name)
        return float(self.wins[i].sum() + self.draws[i].sum() / 2) / n if n else float("nan")


@dataclass
class Ratings:
    """Ratings in logistic Elo with their 95% intervals, ``anchor`` at 0."""

    players: list[str]
    elo: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    anchor: str

    def ranked(self) -> list[str]:
        return sorted(self.players, key=lambda p: (-self.elo[p], p))


def fit(
    results: Pairwise, *, anchor: Optional[str] = None, prior: float = 2.0, steps: int = 100
) -> Ratings:
    """Bradley-Terry ratings by maximum likelihood: the Plackett-Luce fit
    (:func:`~pingvinas.rating.plackett_luce.fit_rankings`) of the results as two-player games.

    :param anchor: the player rated 0 (default ``"random"`` if it plays, else the first).
    :param prior: virtual draws added between every two players who met.
    :raises ValueError: when some players are not connected to the anchor by games, or a
        player won or lost every game with ``prior = 0`` (its rating has no finite maximum).
    """
    names = results.players
    rankings = Rankings(names)
    for i, j in itertools.combinations(range(len(names)), 2):
        for places, count in (
            ([1, 2], results.wins[i, j]),
            ([2, 1], results.wins[j, i]),
            ([1, 1], results.draws[i, j]),
        ):
            if count:
                rankings.add([names[i], names[j]], places, count=float(count))
    if anchor is None:
        anchor = "random" if "random" in results.index else names[0]
    results._at(anchor)
    elo, low, high = fit_rankings(rankings, anchor=anchor, prior=prior, steps=steps)
    return Ratings(players=list(names), elo=elo, low=low, high=high, anchor=anchor)


def _linked(results: Pairwise, a: int) -> set[int]:
    """The players linked to player ``a`` by games (``a`` too)."""
    met = (results.wins + results.wins.T + results.draws) > 0
    reached, frontier = {a}, [a]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(met[i]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    return reached


def _check_prior(prior: object) -> None:
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not prior >= 0:
        raise ValueError(f"prior = {prior!r}: expected a number of virtual draws, 0 or more")


def pairs_of_game(
    names: Sequence[str], seats: Sequence[int], ranking: Sequence[int]
) -> list[tuple[str, str, float]]:
    """The pairwise results of one game: ``(a, b, outcome)`` for every two seats, outcome 1
    when ``a`` placed better, 0.5 for equal places, 0 when worse. ``seats[s]`` is the index in
    ``names`` of the player in seat ``s``; ``ranking[s]`` the place of seat ``s``."""
    out = []
    for s, t in itertools.combinations(range(len(seats)), 2):
        a, b = names[seats[s]], names[seats[t]]
        if ranking[s] < ranking[t]:
            out.append((a, b, 1.0))
        elif ranking[s] > ranking[t]:
            out.append((a, b, 0.0))
        else:
            out.append((a, b, 0.5))
    return out


#: What a name must not bring into Markdown raw: a table's cell separator, HTML, emphasis,
#: links and code (a backslash before each, as CommonMark allows before any punctuation).
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|&"} | {"\n": " ", "\r": " "})


def _markdown(text: str) -> str:
    """``text`` as Markdown shows it, literally, on one line (inside a table cell too)."""
    return text.translate(_MARKDOWN)


def _nice_step(span: float) -> float:
    """A round tick spacing giving about five ticks over ``span``."""
    raw = max(span, 1e-9) / 5
    base = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * base:
            return float(m * base)
    return float(10 * base)


@dataclass
class Ladder:
    """A ladder's results: the games between the players, the fitted ratings, and what the
    games were (``title``). ``str()`` prints the table."""

    results: Pairwise
    ratings: Ratings
    title: str = ""
    #: Per player: games lost to faults of an external engine, by reason.
    faults: Optional[dict[str, dict[str, int]]] = None
    #: The games' finishing orders, which the ratings are fitted to.
    rankings: Optional[Rankings] = None

    def rows(self) -> list[dict[str, Any]]:
        """The table: rank, player, elo, low, high (the 95% interval), games, score."""
        out = []
        for rank, p in enumerate(self.ratings.ranked(), 1):
            row: dict[str, Any] = {
                "rank": rank,
                "player": p,
                "elo": self.ratings.elo[p],
                "low": self.ratings.low[p],
                "high": self.ratings.high[p],
                "games": self.results.games(p),
                "score": self.results.score(p),
            }
            if self.faults:
                row["faults"] = " ".join(
                    f"{k}:{v}" for k, v in sorted(self.faults.get(p, {}).items())
                )
            out.append(row)
        return out

    def to_csv(self) -> str:
        buf = io.StringIO()
        rows = self.rows()
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: (f"{v:.1f}" if k in ("elo", "low", "high") else v) for k, v in row.items()}
                | {"score": f"{row['score']:.3f}"}
            )
        return buf.getvalue()

    def to_markdown(self) -> str:
        rows = self.rows()
        head = "| rank | player | Elo | 95% interval | games | score |"
        rule = "|---:|---|---:|---|---:|---:|"
        if self.faults:
            head += " faults |"
            rule += "---|"
        lines = [head, rule]
        for r in rows:
            line = (
                f"| {r['rank']} | {_markdown(r['player'])} | {r['elo']:+.0f} | "
                f"[{r['low']:+.0f}, {r['high']:+.0f}] | {r['games']} | {r['score']:.3f} |"
            )
            if self.faults:
                line += f" {r['faults'] or '-'} |"
            lines.append(line)
        note = (
            f"Logistic Elo, {_markdown(self.ratings.anchor)} = 0; Plackett-Luce by maximum "
            "likelihood, 95% intervals relative to the anchor."
        )
        title = [_markdown(self.title), ""] if self.title else []
        return "\n".join(title + lines + ["", note]) + "\n"

    def __str__(self) -> str:
        rows = self.rows()
        width = max(len("player"), *(len(r["player"]) for r in rows))
        lines = [
            f"{'rank':>4}  {'player':<{width}}  {'Elo':>6}  {'95% interval':>15}  games  score"
        ]
        for r in rows:
            interval = f"[{r['low']:+.0f}, {r['high']:+.0f}]"
            line = (
                f"{r['rank']:>4}  {r['player']:<{width}}  {r['elo']:>+6.0f}  {interval:>15}  "
                f"{r['games']:>5}  {r['score']:.3f}"
            )
            if self.faults and r["faults"]:
                line += f"  faults {r['faults']}"
            lines.append(line)
        return "\n".join(lines)

    def svg(self, width: float = 640.0) -> SvgText:
        """The players on the Elo axis, best at the top, each a dot at its rating on a bar
        across its 95% interval; the anchor's line dashed."""
        ranked = self.ratings.ranked()
        lows = [self.ratings.low[p] for p in ranked]
        highs = [self.ratings.high[p] for p in ranked]
        lo, hi = min(lows + [0.0]), max(highs + [0.0])
        step = _nice_step(hi - lo)
        lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
        if hi <= lo:
            hi = lo + step
        label_w = 12 + 7.5 * max(len(p) for p in ranked)
        left, right = label_w + 16, width - 150
        top = 44.0 if self.title else 16.0
        row_h = 28.0
        height = top + row_h * len(ranked) + 54

        def x_of(elo: float) -> float:
            return left + (elo - lo) / (hi - lo) * (right - left)

        root = svg_root(width, height, None)
        el(root, "rect", x=0, y=0, width=num(width), height=num(height), fill="#ffffff")
        if self.title:
            write_text(root, width / 2, 20.0, self.title, 14.0, font_weight="bold")
        axis_y = top + row_h * len(ranked) + 6
        ticks = el(root, "g", class_="axis", stroke="#cccccc", stroke_width=1.0)
        k = 0
        while lo + k * step <= hi + 1e-9:
            x = x_of(lo + k * step)
            el(ticks, "line", x1=x, y1=top - 6, x2=x, y2=axis_y)
            value = lo + k * step
            write_text(root, x, axis_y + 14, "0" if round(value) == 0 else f"{value:+.0f}", 11.0)
            k += 1
        x0 = x_of(0.0)
        el(root, "line", x1=x0, y1=top - 6, x2=x0, y2=axis_y, stroke=INK, stroke_dasharray="4 3")
        write_text(root, (left + right) / 2, axis_y + 32, "Elo (logistic)", 12.0)
        for i, p in enumerate(ranked):
            y = top + row_h * i + row_h / 2
            g = el(root, "g", class_="player")
            write_text(g, left - 12, y, p, 13.0, text_anchor="end")
            x1, x2 = x_of(self.ratings.low[p]), x_of(self.ratings.high[p])
            colour = INK if p == self.ratings.anchor else PALETTE[0]
            el(g, "line", x1=x1, y1=y, x2=x2, y2=y, stroke=colour, stroke_width=3.0)
            for x in (x1, x2):
                el(g, "line", x1=x, y1=y - 6, x2=x, y2=y + 6, stroke=colour, stroke_width=2.0)
            el(g, "circle", cx=x_of(self.ratings.elo[p]), cy=y, r=5.0, fill=colour)
            text = f"{self.ratings.elo[p]:+.0f}"
            if p != self.ratings.anchor:
                text += f" [{self.ratings.low[p]:+.0f}, {self.ratings.high[p]:+.0f}]"
            write_text(g, right + 10, y, text, 11.0, text_anchor="start")
        return tostring(root)

    def write(self, out: Union[str, os.PathLike[str]]) -> list[str]:
        """Writes ``ladder.csv``, ``ladder.md`` and ``ladder.svg`` into the folder ``out``
        (made if missing), each whole or not at all; returns their paths."""
        from .._files import write_text

        os.makedirs(out, exist_ok=True)
        paths = []
        for name, text in (
            ("ladder.csv", self.to_csv()),
            ("ladder.md", self.to_markdown()),
            ("ladder.svg", str(self.svg()) + "\n"),
        ):
            path = os.path.join(os.fspath(out), name)
            write_text(path, text)
            paths.append(path)
        return paths


def run_ladder(
    game: Any,
    agents: Sequence[Any],
    *,
    games: int = 20,
    seed: int = 0,
    workers: Optional[int] = None,
    backend: str = "local",
    address: Optional[str] = None,
    progress: bool = True,
    anchor: Optional[str] = None,
    prior: float = 2.0,
    title: str = "",
    on_table: Optional[Callable[[list[str], Any], None]] = None,
) -> Ladder:
    """Plays the round robin of ``agents`` (agents, specs such as ``"mcts"`` or
    ``"cmd:./engine"``) on ``game``, ``games`` games per table, and fits the ratings.

    Each table is a :func:`pingvinas.match.play_match` (``workers``, ``backend`` and
    ``address`` as there), seeded from ``seed`` and the table's number. ``on_table(names,
    result)`` is called after each table with its match result.

    :raises ValueError: before any game: an ``anchor`` no player is named, a bad ``prior``,
        too few players, an agent that cannot play ``game``.
    :raises Exception: whatever a table raises, and ``KeyboardInterrupt`` on Ctrl-C; after
        a table has finished, the exception carries the ladder of the tables played so far
        as ``e.ladder`` (the players they link to the anchor; ``None`` if they rate nobody).
    """
    from .._core import seed_for
    from ..playing.match import check_agents, play_match
    from ..playing.one_game import new_state
    from ..playing.specs import as_agent

    players = [as_agent(a) for a in agents]
    raw = [p.name for p in players]
    names = [f"{n}#{i}" if raw.count(n) > 1 else n for i, n in enumerate(raw)]
    seats = len(new_state(game, 0).returns())
    if len(players) < max(seats, 2):
        raise ValueError(f"{len(players)} players for a {seats}-player game: a ladder needs more")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor = {anchor!r}: no player of that name ({', '.join(names)})")
    _check_prior(prior)
    check_agents(game, players)
    results = Pairwise(names)
    rankings = Rankings(names)
    faults: dict[str, dict[str, int]] = {}
    tables = list(itertools.combinations(range(len(players)), seats))
    played = 0
    try:
        for t, table in enumerate(tables):
            here = [names[i] for i in table]
            result = play_match(
                game,
                [players[i] for i in table],
                games=games,
                seed=seed_for(seed, t),
                workers=workers,
                backend=backend,
                address=address,
                progress=progress,
            )
            for rec in result.records:
                rankings.add([here[i] for i in rec.seats], rec.ranking)
                for a, b, outcome in pairs_of_game(here, rec.seats, rec.ranking):
                    results.add(
                        a,
                        b,
                        wins=int(outcome == 1.0),
                        draws=int(outcome == 0.5),
                        losses=int(outcome == 0.0),
                    )
                fault = getattr(rec, "fault", None)
                if fault is not None:
                    who = here[rec.seats[fault["seat"]]]
                    count = faults.setdefault(who, {})
                    count[fault["reason"]] = count.get(fault["reason"], 0) + 1
            played += 1
            if on_table is not None:
                on_table(here, result)
    except BaseException as e:
        if played:
            stopped = f"stopped after {played} of {len(tables)} tables"
            partial = _so_far(results, rankings, anchor, prior, title, stopped, faults)
            try:
                e.ladder = partial  # type: ignore[attr-defined]
            except Exception:  # an exception type without attributes
                pass
        raise
    ratings = rate(rankings, anchor=anchor, prior=prior)
    return Ladder(
        results=results, ratings=ratings, title=title, faults=faults or None, rankings=rankings
    )


def rate(rankings: Rankings, *, anchor: Optional[str] = None, prior: float = 2.0) -> Ratings:
    """The Plackett-Luce ratings of finishing orders
    (:func:`~pingvinas.rating.plackett_luce.fit_rankings`) as :class:`Ratings`."""
    names = rankings.players
    if anchor is None:
        anchor = "random" if "random" in rankings.index else names[0]
    elo, low, high = fit_rankings(rankings, anchor=anchor, prior=prior)
    return Ratings(players=list(names), elo=elo, low=low, high=high, anchor=anchor)


def _so_far(
    results: Pairwise,
    rankings: Rankings,
    anchor: Optional[str],
    prior: float,
    title: str,
    stopped: str,
    faults: dict[str, dict[str, int]],
) -> Optional[Ladder]:
    """The ladder of the players that the games so far link to the anchor (``None`` when
    they link nobody to it, or cannot be rated), its title saying how far it got."""
    names = results.players
    if anchor is None:
        anchor = "random" if "random" in results.index else names[0]
    linked = sorted(_linked(results, results.index[anchor]))
    if len(linked) < 2:
        return None
    part = Pairwise([names[i] for i in linked])
    part.wins = results.wins[np.ix_(linked, linked)]
    part.draws = results.draws[np.ix_(linked, linked)]
    left = [n for i, n in enumerate(names) if i not in linked]
    if left:
        stopped += f"; not rated yet: {', '.join(left)}"
    title = f"{title} ({stopped})" if title else stopped.capitalize()
    ranked = Rankings(part.players)
    for (seats, places), count in rankings.counts.items():
        if all(i in linked for i in seats):
            ranked.add([names[i] for i in seats], places, count=count)
    try:
        ratings = rate(ranked, anchor=anchor, prior=prior)
    except Exception:  # what stopped the ladder is the error to raise, not this
        return None
    kept = {p: f for p, f in faults.items() if p in part.index}
    return Ladder(results=part, ratings=ratings, title=title, faults=kept or None, rankings=ranked)
