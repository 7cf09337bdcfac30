"""docs/rules.md, the rules reference, defines every rule and decision that the project cites.

Code comments, docstrings, error messages, tests, scripts, notebooks and docs cite rules as ``R32``,
decisions as ``D16`` and ranges as ``R62–R67``. Each citation must name an item the page defines, and
the page defines every item exactly once, under an anchor of its own (``<a id="r32"></a>**R32**``),
with no gap in any numbered series, so that a deleted or renumbered item fails here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from carcassonne_env.engine.config import GameConfig

ROOT = Path(__file__).resolve().parent.parent
RULES_PATH = "docs/rules.md"
RULES = ROOT / RULES_PATH

#: Last number of each numbered series of the page (each runs from 1, sections from 0): C
#: conventions, R rules, D decisions, T turn steps, E worked examples, S sections (§0–§8).
SERIES: dict[str, range] = {
    "c": range(1, 5),
    "r": range(1, 68),
    "d": range(1, 30),
    "t": range(1, 7),
    "e": range(1, 11),
    "s": range(0, 9),
}

#: Where citations are looked for, besides README.md: the packages, tests, scripts, notebooks and
#: docs, in the kinds of files that hold prose or messages (golden playthroughs are ``.txt``).
SEARCHED_DIRS = ("carcassonne_env", "agents", "training", "tests", "scripts", "notebooks", "docs")
SEARCHED_SUFFIXES = frozenset({".py", ".md", ".sh", ".txt", ".ipynb", ".js", ".html"})

#: A rule or decision citation: ``R32``, ``(R4)``, ``D16``, or a range ``R62–R67`` / ``R23-24``,
#: not glued to a letter, digit or underscore on either side (``float32``, ``R2D2``, ``x_D4``).
CITATION = re.compile(r"(?<!\w)([RD])([1-9][0-9]*)(?:[–-]\1?([1-9][0-9]*))?(?!\w)")

#: An item's anchor and, right after it, the label a reader sees: ``<a id="r32"></a>**R32``,
#: ``<a id="d1"></a>D1`` in a table cell, or ``<a id="s6"></a>`` above the heading ``## 6.``.
ANCHOR = re.compile(r'<a id="([a-z])(\d+)"></a>(?:\*\*([A-Z])(\d+)|([A-Z])(\d+)|\n## (\d+)\.)?')
#: The anchor of a variant flag in §6: its id is the flag's name, the same as the GameConfig field.
FLAG_ANCHOR = re.compile(r'<a id="([a-z_]+)"></a>`([a-z_]+)`')


def cited(text: str) -> Iterator[tuple[str, int]]:
    """Every rule or decision number ``text`` cites, each number of a range included."""
    for match in CITATION.finditer(text):
        prefix, first, last = match.group(1), int(match.group(2)), match.group(3)
        for number in range(first, int(last) + 1 if last else first + 1):
            yield prefix, number


def defined(text: str) -> Counter[tuple[str, int]]:
    """How often the page defines each (series, number): the anchors ``<a id="r32"></a>``."""
    return Counter((m.group(1), int(m.group(2))) for m in ANCHOR.finditer(text))


def searched_texts() -> Iterator[tuple[str, str]]:
    """(path relative to the repository, text) of every file searched for citations; of a notebook,
    the source of its cells (outputs are data, not citations)."""
    paths = [ROOT / "README.md"]
    for folder in SEARCHED_DIRS:
        paths += sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in SEARCHED_SUFFIXES and p.is_file())
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            text = "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
        yield path.relative_to(ROOT).as_posix(), text


def test_every_cited_rule_and_decision_is_defined() -> None:
    """Each R- or D-number cited anywhere in the project is an item of docs/rules.md."""
    items = defined(RULES.read_text(encoding="utf-8"))
    missing = [
        f"{path}:{line_number}: {prefix}{number}"
        for path, text in searched_texts()
        for line_number, line in enumerate(text.splitlines(), 1)
        for prefix, number in cited(line)
        if (prefix.lower(), number) not in items
    ]
    assert not missing, "cited but not defined in docs/rules.md:\n" + "\n".join(missing)


def test_the_search_reaches_the_code_tests_and_docs() -> None:
    """The search finds the citations it is meant to check (error messages, docstrings, a range, a
    notebook cell, the docs pages), so a wrong folder or suffix cannot make the test above pass
    vacuously."""
    texts = dict(searched_texts())
    assert {("R", 3), ("R", 50)} <= set(cited(texts["carcassonne_env/engine/config.py"]))
    assert ("D", 25) in set(cited(texts["tests/test_rules_tower.py"]))
    assert ("R", 64) in set(cited(texts["tests/test_rules_watchtowers.py"].splitlines()[0]))  # "R60–R67"
    assert ("R", 55) in set(cited(texts["notebooks/01_environment_tour.ipynb"]))
    assert any(set(cited(text)) for path, text in texts.items() if path.startswith("docs/") and path != RULES_PATH)


def test_each_series_is_defined_once_and_complete() -> None:
    """The page defines every number of every series exactly once, and nothing else."""
    items = defined(RULES.read_text(encoding="utf-8"))
    twice = sorted(f"{s.upper()}{n}" for (s, n), count in items.items() if count > 1)
    assert not twice, f"defined more than once: {twice}"
    for series, numbers in SERIES.items():
        assert sorted(n for s, n in items if s == series) == list(numbers), series.upper()
    assert {s for s, _ in items} == set(SERIES)


def test_each_anchor_sits_on_the_item_it_names() -> None:
    """``<a id="r32">`` is followed by the label R32 (a section's by its heading ``## N.``), so a
    link to an anchor lands on the item of that number."""
    for match in ANCHOR.finditer(RULES.read_text(encoding="utf-8")):
        series, number = match.group(1), match.group(2)
        if series == "s":
            assert match.group(7) == number, f"anchor s{number}"
        else:
            label = (match.group(3) or match.group(5) or "") + (match.group(4) or match.group(6) or "")
            assert label == f"{series.upper()}{number}", f"anchor {series}{number} labels {label!r}"


def test_the_variant_flags_are_those_of_game_config() -> None:
    """§6 gives each variant flag of GameConfig an anchor named after it, and no other flag."""
    anchors = FLAG_ANCHOR.findall(RULES.read_text(encoding="utf-8"))
    assert all(anchor == name for anchor, name in anchors), anchors
    assert sorted(name for name, _ in anchors) == sorted(GameConfig.variant_docs())


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("must be 2–6 (R3), got 7", ["R3"]),
        ("scores (R62–R67)", ["R62", "R63", "R64", "R65", "R66", "R67"]),
        ("R23-24 and D8–D10", ["R23", "R24", "D8", "D9", "D10"]),
        ("D16: 1 per tile; R35-D: a tower top", ["D16", "R35"]),
        ("float32, R2D2, x_D4, base/RCr, 0xD1, P[c][o], round R, D-day", []),
    ],
)
def test_the_citation_pattern(text: str, numbers: list[str]) -> None:
    """What counts as a citation: numbers after R or D, alone or as a range, not parts of names."""
    assert [f"{prefix}{number}" for prefix, number in cited(text)] == numbers


def test_a_deleted_definition_is_caught() -> None:
    """Removing one item's anchor from the page leaves a gap the series check reports."""
    text = RULES.read_text(encoding="utf-8").replace('<a id="r32"></a>', "")
    items = defined(text)
    assert [n for s, n in items if s == "r"] != list(SERIES["r"])
    assert ("r", 32) not in items
