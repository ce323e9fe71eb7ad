"""The Rust crates' modules import one another without a circle.

Each crate's modules form a tree (``lib.rs``, ``foo.rs`` or ``foo/mod.rs``, ``foo/bar.rs``). A
file's imports are its ``use crate::...``, ``use super::...``, ``use self::...`` and ``use
child::...`` trees and the same paths written inline (``crate::net::learned()``), test code
(``#[cfg(test)]``) left out. Among the children of every module (each child standing for its
whole subtree) the imports must form no circle: ``fish`` may use ``search`` or the other way
round, not both. A parent and its own descendants are one module: a parent declares, re-exports
and uses its children, and they use what it defines, without that being a circle.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CRATES = {"engine": ROOT / "rust/engine/src", "bindings": ROOT / "rust/bindings/src"}

Module = tuple[str, ...]

TOKEN = re.compile(
    r"""
    (?P<skip>//[^\n]*|/\*.*?\*/                      # comments (nested ones are rare enough)
      |b?r(?P<hashes>\#*)".*?"(?P=hashes)              # raw strings
      |b?"(?:\\.|[^"\\])*"                            # strings
      |b?'(?:\\.|[^'\\])'                             # chars (a lifetime is left alone)
      |\s+)
    |(?P<attr>\#!?\[)
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<sep>::)
    |(?P<punct>[{}\[\]();,*])
    |(?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


def tokens(text: str) -> list[str]:
    """The tokens of Rust source that matter for paths; comments and literals dropped."""
    out = []
    for m in TOKEN.finditer(text):
        if m.group("skip") is None:
            out.append(m.group(0))
    return out


def module_of(path: Path, src: Path) -> Module:
    """The module path of a file of the crate rooted at ``src``."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("lib", "mod"):
        parts.pop()
    return tuple(parts)


def skip_item(toks: list[str], i: int) -> int:
    """The index after the item starting at ``i``: up to ``;`` or its brace block."""
    depth = 0
    while i < len(toks):
        t = toks[i]
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif t == ";" and depth == 0:
            return i + 1
        elif t == "{":
            level = 1
            i += 1
            while i < len(toks) and level:
                level += {"{": 1, "}": -1}.get(toks[i], 0)
                i += 1
            return i
        i += 1
    return i


def attribute_end(toks: list[str], i: int) -> tuple[int, str]:
    """The index after the attribute starting at ``i`` (``#[`` or ``#![``), and its text."""
    depth, j = 0, i
    while j < len(toks):
        depth += {"[": 1, "#[": 1, "#![": 1, "]": -1}.get(toks[j], 0)
        j += 1
        if depth == 0:
            break
    return j, "".join(toks[i:j])


def use_paths(toks: list[str], i: int, prefix: list[str]) -> tuple[list[list[str]], int]:
    """The paths of the use tree starting at ``i`` (after ``use``), and the index after it."""
    paths: list[list[str]] = []
    path = list(prefix)
    while i < len(toks):
        t = toks[i]
        if t == "{":
            i += 1
            while toks[i] != "}":
                sub, i = use_paths(toks, i, path)
                paths += sub
                if toks[i] == ",":
                    i += 1
            i += 1
            return paths, i
        if t == "*":
            paths.append(path)
            return paths, i + 1
        if t == "as":
            i += 2
            continue
        if t in (",", "}", ";"):
            break
        if t != "::":
            path.append(t)
        i += 1
    if path and path[-1] == "self":
        path.pop()
    paths.append(path)
    return paths, i


class Crate:
    """The modules of one crate and the imports between them."""

    def __init__(self, src: Path) -> None:
        self.src = src
        self.files = {module_of(p, src): p for p in sorted(src.rglob("*.rs"))}
        self.modules = set(self.files)
        #: (importing module, imported module) -> the first path text seen, for messages.
        self.edges: dict[tuple[Module, Module], str] = {}
        tested: set[Module] = set()
        for module, path in self.files.items():
            self.read(module, tokens(path.read_text(encoding="utf-8")), tested)
        # Test modules in files of their own, and what they hold.
        self.edges = {
            (a, b): text
            for (a, b), text in self.edges.items()
            if not any(a[: len(t)] == t for t in tested)
        }

    def resolve(self, here: Module, path: list[str]) -> Module | None:
        """The module a path names (its longest prefix that is a module), or None when it
        leaves the crate (another crate, ``std``) or names an item in scope."""
        if not path:
            return None
        head, rest = path[0], path[1:]
        if head == "crate":
            base: Module = ()
        elif head == "self":
            base = here
        elif head == "super":
            base = here[:-1]
            while rest[:1] == ["super"]:
                base, rest = base[:-1], rest[1:]
        elif here + (head,) in self.modules:
            base = here + (head,)
        else:
            return None
        target = base
        for part in rest:
            if target + (part,) not in self.modules:
                break
            target += (part,)
        return target

    def add(self, here: Module, file_module: Module, path: list[str]) -> None:
        target = self.resolve(here, path)
        if target is not None and target != file_module:
            self.edges.setdefault((file_module, target), "::".join(path))

    def read(self, file_module: Module, toks: list[str], tested: set[Module]) -> None:
        """Records the imports of one file (its inline modules resolve paths from themselves)."""
        scopes = [(file_module, 0)]
        depth = 0
        i = 0
        while i < len(toks):
            t = toks[i]
            here = scopes[-1][0]
            if t in ("#[", "#!["):
                j, text = attribute_end(toks, i)
                if text == "#[cfg(test)]":
                    # A test-only item; a test module declared here lives in its own file.
                    k = j
                    while k < len(toks) and toks[k] in ("#[", "#!["):
                        k, _ = attribute_end(toks, k)
                    if toks[k : k + 1] == ["mod"] and toks[k + 2 : k + 3] == [";"]:
                        tested.add(here + (toks[k + 1],))
                    i = skip_item(toks, k)
                else:
                    i = j
                continue
            if t == "mod" and i + 2 < len(toks) and toks[i + 2] == "{":
                scopes.append((here + (toks[i + 1],), depth + 1))
                depth += 1
                i += 3
                continue
            if t == "{":
                depth += 1
            elif t == "}":
                if scopes[-1][1] == depth and len(scopes) > 1:
                    scopes.pop()
                depth -= 1
            elif t == "use":
                paths, i = use_paths(toks, i + 1, [])
                for path in paths:
                    self.add(here, file_module, path)
                continue
            elif (
                i + 1 < len(toks)
                and toks[i + 1] == "::"
                and (i == 0 or toks[i - 1] != "::")
                and re.fullmatch(r"[a-z_][a-z0-9_]*", t)
            ):
                path = [t]
                j = i + 1
                while j + 1 < len(toks) and toks[j] == "::" and re.fullmatch(r"\w+", toks[j + 1]):
                    path.append(toks[j + 1])
                    j += 2
                self.add(here, file_module, path)
                i = j
                continue
            i += 1

    def circles(self) -> list[str]:
        """Every circle among the children of a module, as text naming its imports."""
        # (parent, child, child) edges, with the import that makes each.
        levels: dict[Module, dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
        for (a, b), text in self.edges.items():
            common = 0
            while common < min(len(a), len(b)) and a[common] == b[common]:
                common += 1
            if common == len(a) or common == len(b):
                continue  # a parent and its descendants
            parent = a[:common]
            why = f"{'::'.join(a) or 'crate'} uses {text}"
            levels[parent][a[common]].setdefault(b[common], why)
        found = []
        for parent, graph in sorted(levels.items()):
            for circle in find_circles(graph):
                where = "::".join(parent) or "crate"
                steps = [graph[x][y] for x, y in zip(circle, circle[1:])]
                found.append(f"in {where}: {' -> '.join(circle)} ({'; '.join(steps)})")
        return found


def find_circles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """One circle per strongly connected part of ``graph`` that has one, closed (a, ..., a)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    parts: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    circles = []
    for part in parts:
        # The shortest way back to the part's first node, by breadth-first search inside it.
        start, members = part[0], set(part)
        came: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in came:
            nxt = []
            for v in frontier:
                for w in sorted(graph.get(v, {})):
                    if w in members and w not in came:
                        came[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        v = came[start]
        while v != start:
            path.append(v)
            v = came[v]
        path.append(start)
        circles.append(path[::-1])
    return circles


@pytest.mark.parametrize("crate", sorted(CRATES))
def test_no_module_circle(crate: str) -> None:
    found = Crate(CRATES[crate]).circles()
    assert not found, "module circles in the Rust crate:\n" + "\n".join(found)


def test_the_check_sees_imports_and_circles(tmp_path: Path) -> None:
    """The reader finds use trees, inline paths and circles, and ignores what it should."""
    src = tmp_path / "src"
    (src / "net").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod net;\npub mod search;\n")
    (src / "search.rs").write_text(
        "//! Not an import: crate::net::file.\n"
        "use crate::net::{file::Reader, self};\n"
        'fn f() { let s = "crate::net"; }\n'
        "#[cfg(test)]\nmod tests { use crate::net::nnue::Nnue; }\n"
    )
    (src / "net/mod.rs").write_text(
        "mod file;\nmod nnue;\npub use file::Reader;\nuse crate::search::f;\n"
    )
    (src / "net/file.rs").write_text("use super::nnue::{Nnue as N, NNUE_FORMAT};\n")
    (src / "net/nnue.rs").write_text(
        "use super::super::net::file;\nfn g() { crate::net::file::read(); }\n"
    )
    crate = Crate(src)
    assert crate.edges.keys() == {
        (("search",), ("net", "file")),
        (("search",), ("net",)),
        (("net",), ("search",)),
        (("net",), ("net", "file")),
        (("net", "file"), ("net", "nnue")),
        (("net", "nnue"), ("net", "file")),
    }
    found = crate.circles()
    assert len(found) == 2, found
    assert found[0].startswith("in crate: net -> search -> net"), found
    assert found[1].startswith("in net: file -> nnue -> file"), found
    assert "net::file uses super::nnue::Nnue" in found[1]
