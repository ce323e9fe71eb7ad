"""Pictures (``pingvinas.svg``, ``state.svg()``): valid, deterministic SVG for both games.

The golden files in ``tests/golden/`` are the expected pictures of a few positions; after an
intended change to the drawing, rewrite them with ``PINGVINAS_REGEN_GOLDEN=1 python -m pytest
tests/test_svg.py`` and look at them (``pv.svg.to_png``) before committing.
"""

import math
import os
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import pingvinas as pv

GOLDEN = Path(__file__).resolve().parent / "golden"
REGEN = os.environ.get("PINGVINAS_REGEN_GOLDEN") == "1"
SVG = "{http://www.w3.org/2000/svg}"


def parse(text):
    root = ET.fromstring(text)
    assert root.tag == SVG + "svg"
    return root


def played(state, n, seed):
    """``state`` after ``n`` random moves (fewer if the game ends); and the last move."""
    rng = random.Random(seed)
    last = None
    for _ in range(n):
        if state.is_over:
            break
        last = rng.choice(state.legal_moves())
        state.play(last)
    return state, last


def positions():
    """name -> (state, svg keyword arguments): the golden positions."""
    out = {}
    out["fish-opening"] = (pv.Fish().new_state(seed=7), {})
    s, last = played(pv.Fish().new_state(seed=7), 30, 3)
    out["fish-midgame"] = (s, dict(lastmove=last, arrows=[((0, 0), (2, 1))]))
    s, last = played(pv.Fish.variant("fish-4p").new_state(seed=2), 20, 1)
    out["fish-4p-flipped"] = (s, dict(lastmove=str(last), flipped=True, size=300))
    small = pv.Fish(board=[[1, 5, 0], [3, 1, 2]], penguins=1)
    out["fish-small-bare"] = (
        small.position(penguins=[[(0, 0)], [(1, 2)]], to_move=0),
        dict(labels=False),
    )
    s, last = played(pv.Marathon().new_state(), 24, 5)
    out["marathon-midgame"] = (s, dict(lastmove=last))
    s, last = played(pv.Marathon(players=3, course="zigzag").new_state(), 60, 2)
    out["marathon-zigzag-3p"] = (s, dict(lastmove=last, arrows=[((0, 0), (3, 3), "#009E73")]))
    s, last = played(pv.Marathon(course="l").new_state(), 23, 5)
    out["marathon-l-flipped"] = (s, dict(lastmove=last, flipped=True))
    return out


POSITIONS = positions()


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_golden(name):
    state, kwargs = POSITIONS[name]
    text = state.svg(**kwargs)
    parse(text)
    path = GOLDEN / f"{name}.svg"
    if REGEN:
        path.write_text(text + "\n", encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with PINGVINAS_REGEN_GOLDEN=1"
    assert text + "\n" == path.read_text(encoding="utf-8"), (
        f"{name} drew differently from {path.name}"
    )


@pytest.mark.parametrize("variant", pv.variants())
def test_every_variant_renders(variant):
    game = pv.load_game(variant)
    state = game.new_state(seed=1)
    pictures = [state.svg()]
    state, last = played(state, 40, 1)
    pictures += [
        state.svg(lastmove=last),
        state.svg(lastmove=last, flipped=True, labels=False, size=200),
    ]
    state, last = played(state, 2000, 1)  # to the end
    assert state.is_over
    pictures.append(state.svg(lastmove=last))
    for text in pictures:
        parse(text)


def test_fish_picture_shows_the_position():
    game = pv.Fish(board=[[1, 2, 3], [3, 0, 1]], penguins=1)
    state = game.position(penguins=[[(0, 0)], [(1, 2)]], to_move=1)
    root = parse(state.svg())
    floes = root.findall(f".//{SVG}g[@class='floe']")
    assert sorted(f.get("data-cell") for f in floes) == [
        "a1",
        "a2",
        "b1",
        "c1",
        "c2",
    ]  # no b2: a gap
    fish = {f.get("data-cell"): len(f.findall(f"{SVG}circle[@class='fish']")) for f in floes}
    assert fish == {"a1": 1, "b1": 2, "c1": 3, "a2": 3, "c2": 1}
    penguins = root.findall(f".//{SVG}g[@data-cell]")
    owners = {
        g.get("data-cell"): g.get("class") for g in penguins if "penguin" in g.get("class", "")
    }
    assert owners == {"a1": "penguin player0", "c2": "penguin player1"}
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"a", "b", "c", "1", "2"} <= set(texts)
    assert "movement, B to move" in texts
    # The last move's arrow, and a floe taken since is drawn as gone.
    child = state.after("c2-b1") if state.is_legal("c2-b1") else None
    if child is not None:
        root = parse(child.svg(lastmove="c2-b1"))
        assert root.find(f".//{SVG}g[@class='lastmove']") is not None
        assert root.find(f".//{SVG}g[@class='removed']/{SVG}polygon[@data-cell='c2']") is not None


def test_even_rows_are_shifted_right():
    state = pv.Fish().new_state(seed=1)
    root = parse(state.svg())

    def x(cell):
        g = root.find(f".//{SVG}g[@data-cell='{cell}']/{SVG}polygon")
        return min(float(p.split(",")[0]) for p in g.get("points").split())

    assert x("a1") > x("a2")  # row 1 (index 0, even) is shifted half a hex to the right
    assert x("a3") == x("a1")
    assert x("a2") < x("a1") < x("b2") < x("b1")


def test_marathon_picture_shows_the_pieces():
    game = pv.Marathon(players=2)
    state = game.position(
        [
            (0, "mama", "on course", (3, 1), "SE"),
            (0, "papa", "on course", (5, 0), None),
            (0, "baby", "finished"),
            (1, "papa", "on course", (0, 2), "S"),
        ],
        to_move=1,
    )
    root = parse(state.svg())
    cells = root.findall(f".//{SVG}rect[@class='cell']")
    assert len(cells) == len(game.cells) == 36
    pieces = {
        g.get("class"): g
        for g in root.iter(f"{SVG}g")
        if (g.get("class") or "").startswith("piece")
    }
    assert "piece player0 mama" in pieces and "piece player1 papa" in pieces
    titles = sorted(t.text for t in root.iter(f"{SVG}title"))
    assert "A (player 0) mama, lying, facing SE" in titles
    assert "A (player 0) papa, upright" in titles
    assert "A (player 0) baby, finished" in titles
    assert "B (player 1) mama, waiting" in titles
    # mama: 3 pips, papa 2, baby 1
    assert len(pieces["piece player0 mama"].findall(f"{SVG}circle")) == 3
    assert len(root.findall(f".//{SVG}line[@class='start']")) == 3
    assert len(root.findall(f".//{SVG}rect[@class='finish']")) == 3 * 12
    assert len(root.findall(f".//{SVG}rect[@class='coaster']")) == 4


def test_deterministic_and_sized():
    state, last = played(pv.Fish().new_state(seed=5), 12, 1)
    assert (
        state.svg(lastmove=last)
        == state.svg(lastmove=last)
        == pv.svg.state_svg(state.copy(), lastmove=last)
    )
    assert state._repr_svg_() == state.svg()
    root = parse(state.svg(size=400))
    assert root.get("width") == "400"
    _, _, w, h = map(float, root.get("viewBox").split())
    assert float(root.get("height")) == pytest.approx(400 * h / w, abs=0.01)
    assert isinstance(state.svg(), str) and state.svg()._repr_svg_() == state.svg()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(size=-1), "size"),
        (dict(size="big"), "size"),
        (dict(lastmove="zz"), "lastmove"),
        (dict(lastmove=42), "lastmove"),
        (dict(arrows="a1-c1"), "arrows"),
        (dict(arrows=[((0, 0),)]), "arrow"),
        (dict(arrows=[("a1", "b")]), "arrow"),
    ],
)
def test_bad_arguments(kwargs, message):
    state = pv.Fish().new_state(seed=1)
    with pytest.raises(ValueError, match=message):
        state.svg(**kwargs)


def test_game_strip_and_animation():
    start = pv.Fish(board=[[1, 2, 3], [3, 2, 1]], penguins=1).new_state()
    s, moves = start.copy(), []
    while not s.is_over:
        moves.append(str(s.legal_moves()[0]))
        s.play(moves[-1])
    strip = parse(pv.svg.game(moves, start, columns=3))
    frames = strip.findall(f"{SVG}g[@class='frame']")
    assert len(frames) == len(moves) + 1
    captions = [f.find(f"{SVG}text").text for f in frames]
    assert captions[0] == "start" and captions[1] == f"1. {moves[0]}"
    animated = parse(pv.svg.game(moves, start, animate=True, seconds=0.5, size=300))
    assert len(animated.findall(f"{SVG}g[@class='frame']/{SVG}animate")) == len(moves) + 1
    every = parse(pv.svg.game(moves, start, every=2))
    assert (
        len(every.findall(f"{SVG}g[@class='frame']"))
        == len(range(0, len(moves) + 1, 2)) + len(moves) % 2
    )
    with pytest.raises(ValueError, match="start"):
        pv.svg.game(moves)


def test_png():
    pytest.importorskip("cairosvg")
    state = pv.Marathon().new_state()
    state.play("B -1,1 S 2,1 S")
    data = pv.svg.to_png(state.svg(size=200))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_fill_tints_cells():
    state = pv.Fish().new_state(seed=3)
    root = parse(pv.svg.state_svg(state, fill={"a2": "#ffcc00", (3, 4): "red"}))
    tinted = sorted(
        p.get("data-cell") for p in root.iter(f"{SVG}polygon") if p.get("class") == "fill"
    )
    assert tinted == ["a2", "e4"]
    race = pv.Marathon().new_state()
    root = parse(pv.svg.state_svg(race, fill={(0, 1): "#ffcc00"}))
    assert [r.get("data-cell") for r in root.iter(f"{SVG}rect") if r.get("class") == "fill"] == [
        "0,1"
    ]
    with pytest.raises(ValueError, match="fill"):
        pv.svg.state_svg(race, fill={(40, 1): "red"})
    with pytest.raises(ValueError, match="fill"):
        pv.svg.state_svg(race, fill=[(0, 1)])


def test_rgb_array():
    pytest.importorskip("cairosvg")
    state = pv.Fish(board=[[1, 2, 3], [3, 2, 1]], penguins=1).position(
        penguins=[[(0, 0)], [(1, 2)]]
    )
    pixels = pv.svg.to_array(state.svg(size=150))
    root = parse(state.svg(size=150))
    assert pixels.dtype.name == "uint8" and pixels.ndim == 3 and pixels.shape[2] == 3
    assert pixels.shape[1] == 150 and abs(pixels.shape[0] - float(root.get("height"))) <= 1
    assert tuple(pixels[0, 0]) == (255, 255, 255)  # the white background
    # Player 0's penguin (Okabe-Ito blue, #0072B2) is in the picture: blue well above red.
    blue = (pixels[:, :, 2].astype(int) - pixels[:, :, 0]) > 120
    assert blue.sum() > 50


def _tip(root, cls="lastmove"):
    """The point of the arrow of class ``cls`` (its head's first corner)."""
    head = root.find(f".//{SVG}g[@class='{cls}']/{SVG}polygon")
    return tuple(map(float, head.get("points").split()[0].split(",")))


def test_the_last_move_arrow_stops_at_the_piece_it_moved():
    # Fish: the head ends at the edge of the penguin's disc, not under it (`pingvinas show`).
    s = pv.Fish().position(board=[[1, 2, 3], [3, 1, 1]], penguins=[[(0, 0)], [(1, 2)]])
    s.play("a1-c1")
    root = parse(s.svg(lastmove="a1-c1"))
    disc = root.find(f".//{SVG}g[@data-cell='c1']/{SVG}circle")
    cx, cy, r = (float(disc.get(k)) for k in ("cx", "cy", "r"))
    x, y = _tip(root)
    assert math.hypot(x - cx, y - cy) >= r
    # Marathon: the head stops before the piece on the end cell (half a mama: 0.44 cells).
    state, kwargs = POSITIONS["marathon-midgame"]
    root = parse(state.svg(**kwargs))
    end = str(kwargs["lastmove"]).split()[3]  # "P 3,2 SW 5,0 W": the papa now on 5,0
    assert root.find(f".//{SVG}g[@class='pieces']/{SVG}g[@data-cell='{end}']") is not None
    cell = root.find(f".//{SVG}rect[@class='cell'][@data-cell='{end}']")
    size = float(cell.get("width")) / 0.84  # a cell's square is 0.84 of the grid step
    cx, cy = float(cell.get("x")) + 0.42 * size, float(cell.get("y")) + 0.42 * size
    x, y = _tip(root)
    assert math.hypot(x - cx, y - cy) >= 0.44 * size


def test_marathon_table_is_centred_beside_the_course_and_never_empty():
    state, kwargs = POSITIONS["marathon-midgame"]  # every piece on the course
    root = parse(state.svg(**kwargs))
    _, _, w, h = map(float, root.get("viewBox").split())
    table = root.find(f".//{SVG}g[@class='reserve']")
    ys = [float(t.get("y")) for t in table.iter(f"{SVG}text")]
    assert abs((min(ys) + max(ys)) / 2 - h / 2) < 0.1 * h  # not at the top over white
    # No piece is off the course: each player's six places are outlines under the heads.
    off = [p for p in state.pieces if p.status != "on course"]
    slots = table.findall(f"{SVG}polygon[@class='slot']")
    assert len(slots) == 6 * state.players - len(off)
    fresh = parse(pv.Marathon(players=3).new_state().svg())
    table = fresh.find(f".//{SVG}g[@class='reserve']")
    assert len(table.findall(f"{SVG}g[@data-piece]")) == 9  # all waiting
    assert len(table.findall(f"{SVG}polygon[@class='slot']")) == 9  # none finished yet


def test_a_long_game_strip_fits_a_page():
    record = pv.GameRecord(pv.Fish(), seed=3)
    rng = random.Random(1)
    while not record.final_state().is_over:
        record.add(rng.choice(record.final_state().legal_moves()))
    assert len(record) > 40
    strip = parse(pv.svg.game(record))
    frames = strip.findall(f"{SVG}g[@class='frame']")
    assert 8 <= len(frames) <= 16
    assert float(strip.get("width")) <= 1000 and float(strip.get("height")) <= 1400
    captions = [f.find(f"{SVG}text") for f in frames]
    assert captions[-1].text.startswith(f"{len(record)}. ")  # the last position is drawn
    # The captions read at 13 px after scaling, in every frame alike.
    _, _, vw, _ = map(float, strip.get("viewBox").split())
    scale = float(strip.get("width")) / vw
    assert [float(c.get("font-size")) * scale for c in captions] == [
        pytest.approx(13.0, abs=0.01)
    ] * len(captions)
    assert len(parse(pv.svg.game(record, every=1)).findall(f"{SVG}g[@class='frame']")) == (
        len(record) + 1
    )
