"""The package's namespace: its public names are `__all__`, the submodules holding `pv.search` and
`pv.selfplay` import without shadowing those functions, and the top level stays small."""

import importlib
import pathlib
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


def test_submodules_hold_the_top_level_names_and_the_functions_stay_callable():
    from pingvinas.learn.selfplay import SelfPlayData, selfplay  # noqa: F401
    from pingvinas.searching.searcher import Searcher, search  # noqa: F401

    assert importlib.import_module("pingvinas.searching.searcher").Searcher is pv.Searcher
    assert importlib.import_module("pingvinas.learn.selfplay").SelfPlayData is pv.SelfPlayData
    assert pv.search is search and pv.selfplay is selfplay
    from pingvinas.playing.match import GameRecord, GameResult

    assert GameRecord is GameResult


def test_submodules_first_in_a_fresh_interpreter():
    # Importing the submodules before anything else must not rebind pv.search / pv.selfplay.
    code = (
        "import pingvinas.searching.searcher, pingvinas.learn.selfplay, pingvinas as pv\n"
        "assert callable(pv.search) and callable(pv.selfplay)\n"
        "s = pv.Fish().new_state(seed=1)\n"
        "assert pv.search(s, 'mcts', iterations=10).iterations == 10\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_package_top_level_holds_few_modules_and_no_old_names():
    # Subpackages group the rest by purpose; a module at the top is one a reader looks for there.
    root = pathlib.Path(pv.__file__).parent
    modules = sorted(p.stem for p in root.glob("*.py") if p.stem not in ("__init__", "__main__"))
    # Short names for modules of the packages (pv.agents, ...) define nothing of their own.
    short = ["agents", "evaluators", "match", "nets", "play"]
    for name in short:
        module = importlib.import_module(f"pingvinas.{name}")
        own = [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_") and getattr(obj, "__module__", None) == module.__name__
        ]
        assert not own, (name, own)
    modules = [m for m in modules if m not in short]
    assert len(modules) <= 12, modules
    for gone in ("search", "selfplay", "openspiel", "searcher", "training", "samples"):
        assert not (root / f"{gone}.py").exists(), gone
