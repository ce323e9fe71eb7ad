"""`pingvinas serve` in a real headless browser (Debian's chromium and chromedriver, driven by
Selenium): a whole Fish game on a small board played by clicks against the engine, every click
checked against the server's state and a replica of the game, the legal targets highlighted,
undo, and a screenshot.

Skipped (with the reason) when Selenium, chromium or chromedriver is missing; `.ci/browser.sh`
installs them and sets PINGVINAS_REQUIRE_BROWSER=1, which turns a skip into a failure. The
screenshot goes to $PINGVINAS_SCREENSHOT when set (docs/img/serve.png was made so), else to a
temporary directory."""

import json
import os
import random
import shutil
import threading
import urllib.request
from pathlib import Path

import pytest

import pingvinas as pv
from pingvinas.web import App, make_server

CHROMIUM = os.environ.get("PINGVINAS_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PINGVINAS_CHROMEDRIVER", "/usr/bin/chromedriver")
BOARD = {
    "game": "fish",
    "name": "small",
    "players": 2,
    "penguins": 2,
    "board": [[1, 2, 1, 3], [1, 1, 2, 1], [3, 1, 1, 2], [1, 2, 1, 1]],
}

pytestmark = pytest.mark.browser


def _missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium; .ci/browser.sh does)"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return (
                f"{path} is missing (apt-get install chromium chromium-driver; .ci/browser.sh does)"
            )
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _missing()
    if reason:
        if os.environ.get("PINGVINAS_REQUIRE_BROWSER"):
            pytest.fail(f"the browser test must run here: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1060,760",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    # The driver's path is given, so Selenium downloads nothing.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def server():
    app = App(pv.Fish.from_config(BOARD), engine="auto", time=0.02)
    httpd = make_server(app, "127.0.0.1", 0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def server_state(server, gid):
    with urllib.request.urlopen(f"{server}/api/games/{gid}", timeout=30) as r:
        return json.loads(r.read())


def wait_ready(driver, ply=None):
    """Waits until the page is idle (and, if given, shows ``ply`` moves)."""
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d):
        body = d.find_element("tag name", "body")
        if body.get_attribute("data-ready") != "1":
            return False
        return ply is None or body.get_attribute("data-ply") == str(ply)

    WebDriverWait(driver, 60, poll_frequency=0.05).until(ready)
    return driver.find_element("tag name", "body").get_attribute("data-game-id")


def page_penguins(driver, players):
    out = [[] for _ in range(players)]
    for el in driver.find_elements("css selector", "#board g.penguin"):
        player = int(
            next(c for c in el.get_attribute("class").split() if c.startswith("player"))[6:]
        )
        out[player].append(el.get_attribute("data-cell"))
    return [sorted(x) for x in out]


def notation(cell):
    return f"{chr(ord('a') + cell[1])}{cell[0] + 1}"


def click_cell(driver, kind, cell):
    driver.find_element("css selector", f'#board g.{kind}[data-cell="{cell}"]').click()


def targets(driver):
    return sorted(
        el.get_attribute("data-cell")
        for el in driver.find_elements("css selector", "#board g.floe.target")
    )


def check_page_matches(driver, replica, state):
    """The page shows the server's position, and the server's position is the replica's."""
    assert state["state"] == replica.to_json()
    assert page_penguins(driver, 2) == [
        sorted(notation(c) for c in cells) for cells in replica.penguins
    ]
    assert len(driver.find_elements("css selector", "#moves li")) == state["ply"]
    scores = [el.text for el in driver.find_elements("css selector", "#scores td.score")]
    assert [s.split(" (")[0] for s in scores] == [
        f"{f} fish, {n} floe{'' if n == 1 else 's'}" for f, n in replica.scores
    ]


def test_a_whole_fish_game_by_clicks(browser, server, tmp_path):
    driver = browser
    driver.get(server + "/")
    gid = wait_ready(driver, 0)
    state = server_state(server, gid)
    assert state["variant"] == "small" and state["human"] == 0 and state["ply"] == 0
    replica = pv.FishState.from_json(state["state"])
    check_page_matches(driver, replica, state)
    rng = random.Random(1)
    screenshot = Path(os.environ.get("PINGVINAS_SCREENSHOT") or tmp_path / "serve.png")
    shot_taken = undone = False
    clicks = 0
    while not replica.is_over:
        assert replica.to_move == 0
        move = rng.choice(replica.legal_moves())
        ply = state["ply"]
        if move.src is None:  # placement: every legal floe is lit; one click places
            assert targets(driver) == sorted(notation(m.dst) for m in replica.legal_moves())
        else:
            src = notation(move.src)
            click_cell(driver, "penguin", src)
            clicks += 1
            assert targets(driver) == sorted(
                notation(m.dst) for m in replica.legal_moves() if m.src == move.src
            )
            if not shot_taken and ply >= 6:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(screenshot))
                shot_taken = True
        click_cell(driver, "floe", notation(move.dst))
        clicks += 1
        wait_ready(driver)
        state = server_state(server, gid)
        assert state["moves"][ply] == {"ply": ply + 1, "player": 0, "move": str(move), "by": "you"}
        before = replica.copy()
        replica.play(move)
        for m in state["moves"][ply + 1 :]:
            assert m["by"] == "engine" and m["player"] != 0
            replica.play(m["move"])
        wait_ready(driver, state["ply"])
        check_page_matches(driver, replica, state)
        if not undone and move.src is not None and not replica.is_over:
            # Undo takes back the move and the engine's reply: the page and the server agree.
            driver.find_element("id", "undo").click()
            wait_ready(driver, ply)
            state = server_state(server, gid)
            replica = before
            check_page_matches(driver, replica, state)
            undone = True
    assert undone and shot_taken and clicks > 8
    status = driver.find_element("id", "status").text
    assert status.startswith("Game over:"), status
    assert state["over"] and state["ranking"] == replica.ranking()
    assert not driver.find_element("id", "error").is_displayed()
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if not os.environ.get("PINGVINAS_SCREENSHOT"):
        shutil.rmtree(tmp_path, ignore_errors=True)


def test_the_download_link_gives_the_record(browser, server):
    driver = browser
    gid = wait_ready(driver)
    href = driver.find_element("id", "download").get_attribute("href")
    assert href.endswith(f"/api/games/{gid}/record")
    with urllib.request.urlopen(href, timeout=30) as r:
        record = pv.GameRecord.from_json(r.read().decode())
    assert record.final_state() == pv.FishState.from_json(server_state(server, gid)["state"])


def test_marathon_moves_by_clicks(browser, server):
    """A piece picked in the waiting table, its moves listed and their end cells lit; a lit cell
    with one move plays it, one with several (facings) narrows the list to pick from."""
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server + "/")
    wait_ready(driver)
    Select(driver.find_element("id", "variant")).select_by_value("marathon")
    driver.find_element("id", "new").click()
    wait_ready(driver, 0)
    gid = driver.find_element("tag name", "body").get_attribute("data-game-id")
    state = server_state(server, gid)
    assert state["game"] == "marathon" and state["variant"] == "marathon"
    replica = pv.MarathonState.from_json(state["state"])
    for ply in (0, 2, 4):
        kind = ("baby", "papa", "mama")[ply // 2]
        driver.find_element("css selector", f'#board [data-piece="0 {kind}"]').click()
        legal = [m for m in replica.legal_moves() if m.kind == kind]
        buttons = [
            b.get_attribute("data-move")
            for b in driver.find_elements("css selector", "#choice-list button")
        ]
        assert buttons == [str(m) for m in legal]
        lit = sorted(
            el.get_attribute("data-cell")
            for el in driver.find_elements("css selector", "#board rect.cell.target")
        )
        assert lit == sorted({f"{m.dst[0]},{m.dst[1]}" for m in legal if m.dst is not None})
        move = legal[-1]
        cell = f"{move.dst[0]},{move.dst[1]}"
        driver.find_element("css selector", f'#board rect.cell[data-cell="{cell}"]').click()
        same_cell = [str(m) for m in legal if m.dst == move.dst]
        if len(same_cell) > 1:  # the list narrows to that cell's moves; pick one
            buttons = [
                b.get_attribute("data-move")
                for b in driver.find_elements("css selector", "#choice-list button")
            ]
            assert buttons == same_cell
            driver.find_element("css selector", f'#choice-list button[data-move="{move}"]').click()
        wait_ready(driver, ply + 2)
        state = server_state(server, gid)
        assert state["moves"][ply]["move"] == str(move)
        replica.play(move)
        replica.play(state["moves"][ply + 1]["move"])
        assert state["state"] == replica.to_json()
        pieces = sorted(
            el.get_attribute("data-piece") + "@" + (el.get_attribute("data-cell") or "-")
            for el in driver.find_elements("css selector", "#board g.pieces [data-piece]")
        )
        assert pieces == sorted(
            f"{p.owner} {p.kind}@{p.cell[0]},{p.cell[1]}"
            for p in replica.pieces
            if p.status == "on course"
        )
