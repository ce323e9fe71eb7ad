"""The package's namespace: its public names are `__all__`, and the old module names still import
without shadowing the functions of the same names."""

import importlib
import subprocess
import sys

import pingvinas as pv


def test_the_namespace_holds_the_api_only():
    # In a fresh interpreter: a submodule imported later (pingvinas.cli, ...) joins the namespace.
    code = (
        "import pingvinas as pv\n"
        "public = {name for name in dir(pv) if not name.startswith('_')}\n"
        "assert public == set(pv.__all__) - {'__version__'}, public ^ set(pv.__all__)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_old_module_names_import_and_the_functions_stay_callable():
    from pingvinas.search import Searcher, search  # noqa: F401
    from pingvinas.selfplay import SelfPlayData, selfplay  # noqa: F401

    assert importlib.import_module("pingvinas.search").Searcher is pv.Searcher
    assert importlib.import_module("pingvinas.selfplay").SelfPlayData is pv.SelfPlayData
    assert pv.search is search and pv.selfplay is selfplay
    from pingvinas.match import GameRecord, GameResult

    assert GameRecord is GameResult


def test_old_module_names_first_in_a_fresh_interpreter():
    # Importing the old modules before anything else must not rebind pv.search / pv.selfplay.
    code = (
        "import pingvinas.search, pingvinas.selfplay, pingvinas as pv\n"
        "assert callable(pv.search) and callable(pv.selfplay)\n"
        "s = pv.Fish().new_state(seed=1)\n"
        "assert pv.search(s, 'mcts', iterations=10).iterations == 10\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
