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


# --- Dotted paths: every `pingvinas.x.y` (and `pv.x.y`) the docs and the code name exists ------

#: A dotted path of the package, as prose and code write it (`pv.` is `import pingvinas as pv`);
#: not a host name or a file name (`pingvinas.github.io`, `python/pingvinas/x.py`).
DOTTED = re.compile(r"(?<![\w/.\-:])(?:pingvinas|pv)(?:\.[A-Za-z_]\w*)+")
#: Top-level modules of optional extras (and of examples' own frameworks): a path that needs one
#: that is not installed is not checked here.
EXTRAS = OPTIONAL | {"onnx", "torch", "jax", "flax", "optax", "starlette", "uvicorn", "tomli"}


def path_sources() -> dict[str, list[Path]]:
    """The files whose dotted paths are checked, in groups: the docs, the package (its code,
    docstrings and comments), its stubs, the examples and the benchmarks."""
    return {
        "docs": [ROOT / "README.md", ROOT / "CHANGELOG.md", *PAGES],
        "package": sorted(PACKAGE.rglob("*.py")),
        "stubs": sorted(PACKAGE.rglob("*.pyi")),
        "examples": sorted((ROOT / "examples").rglob("*.py")),
        "benches": sorted((ROOT / "benches").rglob("*.py")),
    }


def resolve(path: str) -> "str | None":
    """Why ``path`` does not resolve (None when it does; "skip" when it needs an extra that is
    not installed): the longest prefix that imports as a module, then the rest as attributes."""
    import importlib

    parts = re.sub(r"^pv\b", "pingvinas", path).split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name and (name == e.name or name.startswith(e.name + ".")):
                continue  # no such module: a shorter prefix, the rest as attributes
            if e.name and e.name.split(".")[0] in EXTRAS:
                return "skip"
            raise
        except ImportError as e:  # a module that says which extra it needs
            if any(extra in str(e) for extra in EXTRAS):
                return "skip"
            raise
        for depth, attr in enumerate(parts[n:], n):
            if not hasattr(obj, attr):
                return f"{'.'.join(parts[:depth])} has no attribute {attr!r}"
            obj = getattr(obj, attr)
        return None
    return "no module"


@pytest.mark.skipif(not PACKAGE.is_dir(), reason="no source tree beside the tests")
@pytest.mark.parametrize("group", ["docs", "package", "stubs", "examples", "benches"])
def test_dotted_paths_resolve(group):
    """A module path imports, and ``pkg.mod.Name`` is an attribute of the longest prefix that
    imports: docs and docstrings name no module that moved away."""
    broken, verdicts = [], {}
    for source in path_sources()[group]:
        text = source.read_text(encoding="utf-8")
        for m in DOTTED.finditer(text):
            path = m.group(0)
            if path not in verdicts:
                verdicts[path] = resolve(path)
            if verdicts[path] not in (None, "skip"):
                line = text.count("\n", 0, m.start()) + 1
                broken.append(f"{source.relative_to(ROOT)}:{line}: {path}: {verdicts[path]}")
    assert verdicts or group == "examples", f"no dotted path found in {group}"
    assert not broken, "dotted paths that do not resolve:\n" + "\n".join(broken)


# --- Measured figures live on the generated pages alone ------------------------------------------

#: The pages a command writes, each with the command that made it: the only place for figures;
#: and solver-records.md, which says it is a record of one-off runs, with their commands.
GENERATED_PAGES = {"performance.md", "strength.md", "solved.md", "solver-records.md"}
_NUM = r"(?<![\w.])[+-]?\d[\d,]*(?:\.\d+)?"
#: What a measurement looks like: a time, a size or a rate with its unit, an interval of
#: fractions or of signed numbers (a 95% interval, an Elo interval), Elo, a ratio (x2.8, 2.8x:
#: not a board's 8x8 or 12 x 3, nor Windows x64), a percentage (but "95% interval", the level).
FIGURES = {
    "time": re.compile(
        _NUM + r"(?:\s*(?:-|to)\s*\d[\d,.]*)?\s*"
        r"(?:ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hours?)\b(?!-)"
    ),
    "size": re.compile(_NUM + r"\s*(?:[KMGT]i?B|kB|bytes?)\b"),
    "rate": re.compile(
        _NUM + r"\s*[kKM]?\s*[A-Za-z]*/s\b|" + _NUM + r"\s*[kKM]?\s+\w+ (?:a|per) second"
    ),
    "interval": re.compile(
        r"\[\s*[+-]?\d*\.\d+\s*,\s*[+-]?\d*\.\d+\s*\]|\[\s*[+-]\d+\s*,\s*[+-]\d+\s*\]"
    ),
    "Elo": re.compile(_NUM + r"\s*Elo\b|\bElo\s*[:=]?\s*[+-]?\d"),
    "ratio": re.compile(
        r"(?<![\w.])[x×](?!64\b|86)\d+(?:\.\d+)?(?![\w.]*\w)|"
        + _NUM
        + r"\s?[x×](?!\s*\d)(?!\w)|"
        + _NUM
        + r"\s+times\s+(?:slower|faster|as\s+\w+|more|less|fewer)\b"
    ),
    "percentage": re.compile(_NUM + r"\s*%(?!\s*(?:normal\s+)?(?:intervals?|confidence)\b)"),
}
#: A time or size right after one of these is a bound the code keeps, not a measurement.
BOUND = re.compile(r"(?:at most|up to|within|every|default(?: of)?)\s+$")
#: Figures that are behaviour, each with the reason: (file, the phrase that holds it, why).
NOT_MEASURED = [
    ("docs/search.md", "within `time` plus 10 ms", "the time budget's contract"),
    ("docs/search.md", "256 MiB of tables", "the bound on the alpha-beta tables kept"),
    ("docs/serve.md", "a body over 16 KiB", "the server's limit on a request body"),
    ("docs/serve.md", "has 10 s from connecting", "the server's deadline for headers"),
    ("docs/serve.md", "10 s more for its body", "the server's deadline for a body"),
    ("docs/serve.md", "closed after 5 s", "the server's idle timeout"),
    ("python/pingvinas/web/server.py", "close after 5 s", "the server's idle timeout"),
    ("python/pingvinas/web/server.py", "a body over 16 KiB", "the server's limit on a body"),
    ("python/pingvinas/web/server.py", "headers over 16 KiB", "h11's limit on headers"),
    ("docs/ladder.md", "is 10 Elo stronger", "the hypothesis H1 of the example `--sprt 0 10`"),
    ("docs/ladder.md", "is 0 Elo stronger", "the hypothesis H0 of the example `--sprt 0 10`"),
    ("docs/ladder.md", "where 10 Elo matters", "the example's `--sprt 0 10`"),
    ("python/pingvinas/learn/selfplay.py", "10% of the games never", "a setting of self-play"),
    ("python/pingvinas/learn/selfplay.py", "`MAX_LOAD_BYTES`, 1 GiB", "the default `max_bytes`"),
    ("python/pingvinas/playing/match.py", "at 0% or 100%", "the ends of a score rate"),
    ("docs/protocol.md", "buffer, 64 KiB on Linux", "the system's pipe buffer"),
    ("docs/protocol.md", "a line over 1 MiB", "the protocol's limit on a line"),
    ("python/pingvinas/playing/protocol/engine.py", "as UTF-8 bytes", "an encoding"),
]


def prose(text: str) -> str:
    """``text`` with fenced blocks and code spans blanked out (commands and their arguments,
    sessions and their output), the same length, lines kept."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", blank, text, flags=re.M | re.S)
    return re.sub(r"``.+?``|`[^`\n]+`", blank, text, flags=re.S)


def docstrings(path: Path):
    """Each docstring of a module, with the line it starts on."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                yield node.body[0].lineno, doc


def figure_sources():
    """``(file, line the text starts on, text)``: README.md, CHANGELOG.md, the docs pages but
    the generated ones, and the package's docstrings (its stubs' too)."""
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    pages += [p for p in PAGES if p.name not in GENERATED_PAGES]
    for page in pages:
        yield page.relative_to(ROOT).as_posix(), 1, page.read_text(encoding="utf-8")
    for module in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")]):
        for line, doc in docstrings(module):
            yield module.relative_to(ROOT).as_posix(), line, doc


def phrase_in(phrase: str, text: str):
    """Where ``phrase`` is in ``text``, whatever the whitespace between its words."""
    return re.finditer(r"\s+".join(map(re.escape, phrase.split())), text)


def figures_in(text: str, allowed: "list[str]" = ()):
    """``(kind, figure, offset)`` of each measured figure in ``text``'s prose, but those inside
    an ``allowed`` phrase and times and sizes stated as bounds."""
    flat = prose(text).replace("\n", " ")
    spans = [(m.start(), m.end()) for phrase in allowed for m in phrase_in(phrase, text)]
    for kind, pattern in FIGURES.items():
        for m in pattern.finditer(flat):
            if any(a <= m.start() and m.end() <= b for a, b in spans):
                continue
            if kind in ("time", "size") and BOUND.search(flat[max(0, m.start() - 40) : m.start()]):
                continue
            yield kind, m.group(0).strip(), m.start()


@pytest.mark.skipif(not PACKAGE.is_dir(), reason="no source tree beside the tests")
def test_no_measured_figures_outside_the_generated_pages():
    """Every figure a run measured (a time, a size, a rate, an interval, Elo, a ratio, a
    percentage) is on a page that a command writes (performance.md, strength.md, solved.md);
    the other pages, README, the changelog and the docstrings link to those pages."""
    found, used = [], set()
    for name, start, text in figure_sources():
        allowed = [phrase for file, phrase, _ in NOT_MEASURED if file == name]
        used.update((name, p) for p in allowed if any(phrase_in(p, text)))
        for kind, figure, offset in figures_in(text, allowed):
            line = start + text.count("\n", 0, offset)
            found.append(f"{name}:{line}: {kind} {figure!r}")
    assert not found, "measured figures outside the generated pages:\n" + "\n".join(found)
    stale = [(f, p) for f, p, _ in NOT_MEASURED if (f, p) not in used]
    assert not stale, f"NOT_MEASURED names phrases no longer there: {stale}"


@pytest.mark.parametrize(
    "text, kinds",
    [
        ("it took 48 s on one move", ["time"]),
        ("about 75 s on 2 cores, 1.2 GB of memory", ["time", "size"]),
        ("2.1 M games/s and 300k nodes per second", ["rate", "rate"]),
        ("a score of 0.670 [0.622, 0.714], +123 Elo", ["interval", "Elo"]),
        ("| auto | +884 | [+676, +1092] |", ["interval"]),
        ("x2.8 faster, or 1.7x, or 7 times slower", ["ratio", "ratio", "ratio"]),
        ("it wins 83% of its games", ["percentage"]),
        ("the 8x8 board, 12 x 3 cells, 60 floes, 2 to 4 players, 1-3 fish", []),
        ("version 0.1.0 on Python 3.9, seed 7, Windows x64 and x86_64", []),
        ("`--time 0.1` a move, with 95% intervals", []),
        ("```sh\npingvinas match --time 0.1  # 2 s\n```\n", []),
        ("a line is at most 1 MiB, within 200 ms, about every 0.25 s", []),
    ],
)
def test_the_figure_patterns(text, kinds):
    assert [kind for kind, _, _ in figures_in(text)] == kinds


@pytest.mark.skipif(not PACKAGE.is_dir(), reason="no source tree beside the tests")
def test_no_ranking_claims_outside_the_strength_page():
    """Which player is the strongest is what the strength page measures, at each player count;
    the other pages say what a player is and link there."""
    found = [
        f"{name}:{start + text.count(chr(10), 0, m.start())}: {m.group(0)}"
        for name, start, text in figure_sources()
        for m in re.finditer(r"\bstrongest\b", prose(text), re.I)
    ]
    assert not found, found


# --- The site: README.md is its home page, each game has its picture -----------------------------


def site_hooks():
    """docs/hooks.py, the site's hook, as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("site_hooks", DOCS / "hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not (DOCS / "hooks.py").is_file(), reason="no docs/ beside the tests")
def test_the_home_page_is_the_readme():
    """docs/index.md is README.md and docs/changelog.md CHANGELOG.md, one copy each: the hook
    includes the file with every link made one the site resolves, a page or picture under docs/
    or another file's address in the repository."""
    hooks = site_hooks()
    repo = hooks.repository()
    assert re.search(r"^hooks:\n  - docs/hooks\.py$", (ROOT / "mkdocs.yml").read_text(), re.M)
    for page, source in (("index.md", "README.md"), ("changelog.md", "CHANGELOG.md")):
        assert (DOCS / page).read_text(encoding="utf-8") == f'--8<-- "{source}"\n'
        text = hooks.included((DOCS / page).read_text(encoding="utf-8"))
        assert text == hooks.site_text((ROOT / source).read_text(encoding="utf-8"), repo)
        for m in hooks.LINK.finditer(text):
            target = m.group(2).partition("#")[0]
            if target.startswith(f"{repo}/blob/main/"):
                assert (ROOT / target[len(f"{repo}/blob/main/") :]).exists(), target
            elif target and not re.match(r"https?:", target):
                assert (DOCS / target).is_file(), f"{source} links to {target}, not in docs/"
    home = hooks.included('--8<-- "README.md"\n')
    for link in ("(img/fish-game.svg)", "(getting-started.md#install)", "(changelog.md)"):
        assert link in home, link
    assert f"({repo}/blob/main/CONTRIBUTING.md)" in home and "](docs/" not in home


def test_the_hook_rewrites_each_kind_of_link():
    hooks = site_hooks()
    repo = "https://example.org/r"
    assert hooks.site_target("docs/search.md#one-search", repo) == "search.md#one-search"
    assert hooks.site_target("docs/img/fish-game.svg", repo) == "img/fish-game.svg"
    assert hooks.site_target("CHANGELOG.md", repo) == "changelog.md"
    assert hooks.site_target("LICENSE", repo) == f"{repo}/blob/main/LICENSE"
    for kept in ("https://rustup.rs", "#install", "mailto:x@example.org"):
        assert hooks.site_target(kept, repo) == kept
    with pytest.raises(ValueError, match="not in the repository"):
        hooks.site_target("NO-SUCH-FILE.md", repo)
    assert hooks.included("# x\n") == "# x\n"


@pytest.mark.skipif(not (DOCS / "pictures.py").is_file(), reason="no docs/ beside the tests")
def test_each_game_has_its_picture_on_the_readme():
    """docs/pictures.py draws the picture of each game byte for byte as docs/img holds it, and
    README.md shows both before its first section."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pictures", DOCS / "pictures.py")
    assert spec and spec.loader
    pictures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pictures)
    drawn = pictures.pictures()
    assert sorted(drawn) == ["fish-game.svg", "marathon-race.svg"]
    for name, svg in drawn.items():
        assert svg == (DOCS / "img" / name).read_text(encoding="utf-8"), (
            f"docs/img/{name} is not what `python docs/pictures.py` draws: run it"
        )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    top = readme[: readme.index("\n## ")]
    for name in drawn:
        assert f"(docs/img/{name})" in top, f"README.md does not show {name} at the top"


@pytest.mark.skipif(not (ROOT / "pyproject.toml").is_file(), reason="no pyproject.toml")
def test_the_project_urls():
    """pyproject.toml names the home page, the docs (the site's own address), the repository
    (the one the site's links use) and the changelog."""
    tomllib = pytest.importorskip("tomllib")
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Repository", "Changelog"}
    assert all(url.startswith("https://") for url in urls.values())
    site = re.search(r"^site_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(), re.M)
    assert site and urls["Documentation"] == site.group(1)
    assert urls["Repository"] == site_hooks().repository()
    assert urls["Changelog"] == f"{urls['Repository']}/blob/main/CHANGELOG.md"


@pytest.mark.skipif(not (ROOT / "CHANGELOG.md").is_file(), reason="no CHANGELOG.md")
def test_the_changelog_keeps_a_changelog():
    """CHANGELOG.md as Keep a Changelog has it: `[Unreleased]` first, then releases with their
    dates, each a link; under them Keep a Changelog's groups of entries, one bullet a change,
    short."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.*)$", text, re.M)
    assert sections and sections[0] == "[Unreleased]", sections
    for release in sections[1:]:
        assert re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d\d-\d\d", release), release
    for section in sections:
        name = section.partition(" - ")[0].strip("[]")
        assert re.search(rf"^\[{re.escape(name)}\]: https://\S+$", text, re.M), name
    groups = re.findall(r"^### (.*)$", text, re.M)
    assert groups and set(groups) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed"}
    body = text[text.index("## ") :]
    entries = re.split(r"^- ", body, flags=re.M)[1:]
    assert entries
    for entry in entries:
        lines = entry.split("\n\n")[0].split("\n#")[0].strip().splitlines()
        assert len(lines) <= 2, f"an entry of {len(lines)} lines: {entry[:60]!r}"
