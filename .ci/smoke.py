"""Smoke test of an installed pingvinas (a wheel or an sdist build), run by `.ci/wheels.sh` in a
fresh virtual environment outside the source tree: the package imports from site-packages, both
games play, a search runs, states pickle, the bundled data files and the version are there."""

import importlib.metadata
import pickle
import subprocess
import sys
from pathlib import Path

import pingvinas as pv

here = Path(pv.__file__).resolve().parent
assert "site-packages" in here.parts, f"pingvinas imported from {here}, not an installed copy"
meta = importlib.metadata.version("pingvinas")
# Cargo's spelling in PEP 440's: 0.1.0-dev0 is 0.1.0.dev0, 0.2.0-rc.1 is 0.2.0rc1.
python_spelling = (
    pv.__version__.replace("-dev", ".dev")
    .replace("-", "")
    .replace("alpha.", "a")
    .replace("beta.", "b")
    .replace("rc.", "rc")
)
assert python_spelling == meta, (pv.__version__, meta)
cli = subprocess.run(
    [sys.executable, "-m", "pingvinas", "--version"], capture_output=True, text=True, check=True
)
assert cli.stdout.split() == ["pingvinas", pv.__version__], cli.stdout

# Every bundled variant (the TOML files shipped as package data) loads and plays a few moves.
for name in pv.variants():
    state = pv.load_game(name).new_state(seed=1)
    for _ in range(6):
        if state.is_over:
            break
        state.play(state.legal_moves()[0])

# A whole Fish game by search, pickled and JSON round-tripped at every step.
state = pv.Fish().new_state(seed=7)
while not state.is_over:
    result = pv.search(state, algorithm="mcts", iterations=50, seed=1)
    state.play(result.move)
    assert pickle.loads(pickle.dumps(state)) == state == pv.FishState.from_json(state.to_json())
assert sum(state.returns()) == 0
fish, _floes = pv.fish.random_playouts(100, seed=1, threads=2)
assert fish.shape == (100, 2)

race = pv.Marathon().new_state(seed=1)
assert len(race.legal_moves()) == 57
race.play(pv.search(race, algorithm="mcts", iterations=50, seed=1).move)
assert pickle.loads(pickle.dumps(race)) == race

# The browser page's files are package data.
from pingvinas.web import App, _static  # noqa: E402

assert b"/static/app.js" in _static("index.html") and _static("app.js") and _static("style.css")
status, answer = App("fish", engine="greedy", time=0.01).handle("POST", "/api/games", b"{}")
assert status == 200 and answer["svg"].startswith("<svg"), answer

# The learned evaluation is package data too.
board = pv.Fish().new_state(seed=2)
assert pv.agents.as_agent("learned:2").choose(board) in board.legal_moves()

print(f"smoke ok: pingvinas {pv.__version__} on Python {sys.version.split()[0]} from {here}")
