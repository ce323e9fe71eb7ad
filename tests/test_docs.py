"""The code in the documentation site (docs/*.md) runs: ```python blocks written as a session
(``>>>``) are doctests whose output must match; other ```python blocks must run without error.
The blocks of one page share a namespace, in order, and run in a temporary directory (so a page
may write files). ```sh, ```toml and other blocks are not run."""

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.glob("*.md")) if DOCS.is_dir() else []
#: Modules of the optional extras: a page whose example needs one that is missing stops there
#: (skipped, with the reason); .ci/run installs them all.
OPTIONAL = {"gymnasium", "pettingzoo", "pyspiel", "open_spiel", "cairosvg", "ray", "onnxruntime"}
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)


def blocks(page: Path):
    text = page.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        yield text.count("\n", 0, m.start(1)) + 1, m.group(1)


def run_page(page: Path) -> None:
    """Runs the page's ```python blocks in order in one namespace: a session (``>>>``) as a
    doctest whose output must match, any other block as a script. A block that needs a missing
    optional extra skips the rest of the page."""
    namespace = {"__name__": "__docs__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for line, code in blocks(page):
        if code.lstrip().startswith(">>>"):
            test = parser.get_doctest(code, namespace, f"{page.name}:{line}", str(page), line - 1)
            result = runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # DocTest works on a copy of the namespace
            assert result.failed == 0, (
                f"{page.name}, block at line {line}: {result.failed} example(s) failed "
                "(output above)"
            )
        else:
            try:
                exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
            except ModuleNotFoundError as e:
                if e.name and e.name.split(".")[0] in OPTIONAL:
                    pytest.skip(
                        f"{page.name}, block at line {line} needs {e.name} (an optional extra)"
                    )
                raise


def param(page: Path):
    """A page that starts Ray runs with the slow tests."""
    slow = 'backend="ray"' in page.read_text(encoding="utf-8")
    return pytest.param(page, id=page.name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.skipif(not PAGES, reason="no docs/ beside the tests (an installed copy)")
@pytest.mark.parametrize("page", [param(p) for p in PAGES])
def test_page_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(page)


def test_every_page_is_in_the_nav():
    """mkdocs --strict warns about pages left out of the nav; check here too, without mkdocs."""
    config = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8") if PAGES else ""
    for page in PAGES:
        assert page.name in config, f"{page.name} is not in mkdocs.yml's nav"


def test_api_reference_covers_every_public_name():
    """docs/api.md has an entry for every name of ``pingvinas.__all__``: a ``::: path`` of the
    object itself, or of the module that defines it (or lists it in its ``__all__``), which the
    reference shows with its members."""
    import importlib
    import types

    import pingvinas as pv

    api = DOCS / "api.md"
    if not api.exists():
        pytest.skip("no docs/ beside the tests (an installed copy)")
    text = api.read_text(encoding="utf-8")
    documented: dict[int, str] = {}
    for m in re.finditer(r"^::: ([\w.]+)\n((?:    .*\n)*)", text, re.M):
        path, options = m.group(1), m.group(2)
        module_name, _, attr = path.rpartition(".")
        try:
            obj = importlib.import_module(path)
        except ModuleNotFoundError as e:
            if e.name != path:  # a module of an optional extra, not installed here
                continue
            obj = getattr(importlib.import_module(module_name), attr)
        except ImportError:  # the same, said by the module (pingvinas.envs.openspiel)
            continue
        documented[id(obj)] = path
        if not isinstance(obj, types.ModuleType):
            continue
        only = re.search(r"members: \[(.*)\]", options)
        if "members: false" in options:
            continue
        names = [n.strip() for n in only.group(1).split(",")] if only else dir(obj)
        listed = set(getattr(obj, "__all__", ()))
        for name in names:
            member = getattr(obj, name)
            if name.startswith("_") or isinstance(member, types.ModuleType):
                continue
            if name in listed or getattr(member, "__module__", None) == obj.__name__:
                documented.setdefault(id(member), f"{path}.{name}")
    missing = []
    for name in pv.__all__:
        if name == "__version__":
            assert "__version__" in text
            continue
        if id(getattr(pv, name)) not in documented:
            missing.append(name)
    assert not missing, f"docs/api.md has no entry for pingvinas.{', '.join(missing)}"


ROOT = DOCS.parent
PACKAGE = ROOT / "python" / "pingvinas"


@pytest.mark.skipif(not PACKAGE.is_dir(), reason="no source tree beside the tests")
def test_docstring_sessions_are_fenced():
    """A ``>>>`` session in a docstring sits in a fenced block: bare, Markdown reads ``>>>`` as
    nested quotes and an output such as ``[-2.944, 2.944]`` as a reference link, which the site
    build (autorefs, in strict mode) refuses or garbles, depending on the Markdown release."""
    bare = []
    for path in sorted(PACKAGE.rglob("*.py")):
        fenced = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif line.lstrip().startswith(">>>") and not fenced:
                bare.append(f"{path.relative_to(ROOT)}:{number}")
    assert not bare, f"doctest lines outside a ``` fence: {bare}"


@pytest.mark.skipif(not (ROOT / ".ci" / "docs-constraints.txt").is_file(), reason="no .ci/")
def test_docs_pins_meet_the_extra():
    """Every package the docs extra names is pinned in .ci/docs-constraints.txt, to a release
    its bounds allow (so the pinned site build and `pip install ".[docs]"` agree)."""
    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins = {}
    for line in (ROOT / ".ci" / "docs-constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version.strip()
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for text in extra["docs"]:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} of the docs extra is not pinned"
        assert req.specifier.contains(pins[name]), f"{req.name}=={pins[name]} is outside {text}"
