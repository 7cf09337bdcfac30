"""The README and the documentation pages read as a user's reference: no process chatter (the history of
how a figure was made belongs in the dated experiment pages as dates and plain descriptions, never as
"issue 52" or "this session"), and the sidebar stays readable (every nav label and page title short)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from source_module import load_module

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: Phrases of the project's working process that mean nothing to a reader (case-insensitive).
CHATTER = re.compile(
    r"issue \d+|this session|session's|no GPU machine was lent|the (?:second|third|fourth) session|a turn ago",
    re.IGNORECASE)
#: The longest sidebar label or page title, in characters (a dated experiment page's date included).
MAX_TITLE = 60


def _pages() -> list[Path]:
    """README.md and every Markdown page under docs/ (CHANGELOG.md, a record of the project's history, is
    not among them: it lives at the root)."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def chatter(text: str) -> list[tuple[int, str]]:
    """``(line number, phrase)`` for each process phrase of :data:`CHATTER` in ``text``."""
    return [(number, match.group()) for number, line in enumerate(text.splitlines(), 1)
            for match in CHATTER.finditer(line)]


def test_no_process_chatter_in_the_readme_and_the_docs() -> None:
    pages = _pages()
    assert len(pages) > 20
    found = [f"{page.relative_to(ROOT)}:{line}: {phrase!r}"
             for page in pages for line, phrase in chatter(page.read_text(encoding="utf-8"))]
    assert not found, "process chatter (write a date or say what was done instead):\n" + "\n".join(found)


@pytest.mark.parametrize("text", ["as Issue 52, point 3 asks", "measured in this session", "the session's runs",
                                  "No GPU machine was lent.", "since the Fourth Session", "as said a turn ago"])
def test_each_chatter_phrase_is_found(text: str) -> None:
    assert [line for line, _ in chatter(f"a clean line\n{text}\n")] == [2]


def title(page: Path) -> str:
    """The title mkdocs gives ``page`` in the sidebar: its first level-1 heading (a notebook's first Markdown
    cell's)."""
    if page.suffix == ".ipynb":
        cells = json.loads(page.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    else:
        text = page.read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.M)
    assert heading, f"{page.relative_to(ROOT)} has no level-1 heading"
    return heading.group(1).strip()


def _labels(nav: Any) -> list[tuple[str, str]]:
    """``(label, where)`` for every entry of a (directory-expanded) mkdocs nav: a section's or page's own
    label, else the title of the page it names."""
    labels: list[tuple[str, str]] = []
    for item in nav if isinstance(nav, list) else [nav]:
        if isinstance(item, dict):
            for label, value in item.items():
                labels.append((label, f"mkdocs.yml nav: {label!r}"))
                if isinstance(value, list):
                    labels.extend(_labels(value))
        elif isinstance(item, str) and "://" not in item:
            page = DOCS / item if (DOCS / item).exists() else ROOT / item  # notebooks/: docs/hooks/notebooks.py
            labels.append((title(page), f"{page.relative_to(ROOT)}: its first heading"))
    return labels


def _nav() -> Any:
    yaml = pytest.importorskip("yaml")
    pytest.importorskip("mkdocs")  # the hook that expands directory entries imports it
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav_directories = load_module("docs_hooks_nav_directories", DOCS / "hooks" / "nav_directories.py")
    return nav_directories.expand(config["nav"], DOCS)


def test_the_sidebar_labels_are_short() -> None:
    labels = _labels(_nav())
    assert len(labels) > 30  # the whole nav, the experiment pages of its directory entry included
    long = [f"{where}: {len(label)} characters" for label, where in labels if len(label) > MAX_TITLE]
    assert not long, f"sidebar labels over {MAX_TITLE} characters:\n" + "\n".join(long)


def test_every_page_title_is_short() -> None:
    long = [f"{page.relative_to(ROOT)}: {len(title(page))} characters" for page in sorted(DOCS.rglob("*.md"))
            if len(title(page)) > MAX_TITLE]
    assert not long, f"page titles over {MAX_TITLE} characters:\n" + "\n".join(long)
