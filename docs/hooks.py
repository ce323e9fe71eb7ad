"""The documentation site's one hook (mkdocs.yml ``hooks:``): a page whose line is
``--8<-- "FILE"``, FILE a Markdown file at the repository's root, shows that file, its links
rewritten for the site. README.md is the home page (docs/index.md) and CHANGELOG.md the changelog
page (docs/changelog.md), each kept in one copy.

README.md links as the repository shows it: ``docs/search.md`` becomes ``search.md``,
``docs/img/x.svg`` becomes ``img/x.svg``, ``CHANGELOG.md`` and ``README.md`` become the pages
that include them, and any other file of the repository (``CONTRIBUTING.md``, ``LICENSE``)
becomes its address in the repository (``[project.urls] Repository`` of pyproject.toml).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: A whole line ``--8<-- "FILE"``: the file's text replaces it.
INCLUDE = re.compile(r'^--8<-- "([\w.-]+\.md)"\s*$', re.M)
#: A Markdown link or image: ``[text](target)`` or ``![alt](target)``, the target without spaces.
LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)(\))")
#: The root files that are pages of the site.
PAGES = {"README.md": "index.md", "CHANGELOG.md": "changelog.md"}


def repository() -> str:
    """The repository's address, from pyproject.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^Repository\s*=\s*"([^"]+)"', text, re.M)
    if not found:
        raise ValueError("pyproject.toml has no [project.urls] Repository")
    return found.group(1).rstrip("/")


def site_target(target: str, repo: str) -> str:
    """Where a link of a root file points on the site."""
    if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target):  # a URL, an anchor, an absolute path
        return target
    path, hash_, anchor = target.partition("#")
    if path.startswith("docs/"):
        return path[len("docs/") :] + hash_ + anchor
    if path in PAGES:
        return PAGES[path] + hash_ + anchor
    if not (ROOT / path).exists():
        raise ValueError(f"a link to {target!r}, which is not in the repository")
    return f"{repo}/blob/main/{path}{hash_}{anchor}"


def site_text(text: str, repo: str) -> str:
    """A root file's Markdown with every relative link made one the site resolves."""
    return LINK.sub(lambda m: m.group(1) + site_target(m.group(2), repo) + m.group(3), text)


def included(markdown: str) -> str:
    """A page with each ``--8<-- "FILE"`` line replaced by FILE's text, links rewritten."""
    if not INCLUDE.search(markdown):
        return markdown
    repo = repository()
    return INCLUDE.sub(
        lambda m: site_text((ROOT / m.group(1)).read_text(encoding="utf-8"), repo), markdown
    )


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return included(markdown)
