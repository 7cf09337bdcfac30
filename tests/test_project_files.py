"""The project's files for its users, beside the code: ``CITATION.cff`` is valid Citation File Format
1.2.0 and says what ``pyproject.toml`` and ``LICENSE`` say; ``CHANGELOG.md`` keeps the Keep a Changelog
shape (an ``[Unreleased]`` section on top, only its change types as sub-headings)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The sub-headings Keep a Changelog 1.1.0 gives a release's changes.
CHANGE_TYPES = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (CI runs 3.11), as tests/test_packaging.py
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def citation_problems(cff: Any) -> list[str]:
    """What makes ``cff`` (a parsed CITATION.cff) invalid CFF 1.2.0 or out of step with the project."""
    if not isinstance(cff, dict):
        return ["not a YAML mapping"]
    problems = [f"missing required key {key!r}" for key in ("cff-version", "message", "title", "authors")
                if key not in cff]
    if cff.get("cff-version") != "1.2.0":
        problems.append(f"cff-version is {cff.get('cff-version')!r}, not '1.2.0'")
    for key in ("message", "title"):
        if key in cff and not (isinstance(cff[key], str) and cff[key].strip()):
            problems.append(f"{key} is not a non-empty string")
    authors = cff.get("authors")
    if not (isinstance(authors, list) and authors):
        problems.append("authors is not a non-empty list")
    else:
        for author in authors:  # an entity has a name; a person a family or given name
            if not (isinstance(author, dict) and any(isinstance(author.get(key), str) and author[key].strip()
                                                     for key in ("name", "family-names", "given-names"))):
                problems.append(f"author {author!r} names no entity or person")
    project = _pyproject()["project"]
    if cff.get("license") != project["license"]:
        problems.append(f"license {cff.get('license')!r} is not pyproject's {project['license']!r}")
    if cff.get("repository-code") != project["urls"]["Source"]:
        problems.append(f"repository-code {cff.get('repository-code')!r} is not pyproject's Source URL")
    version = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "carcassonne_env" / "__init__.py").read_text(
        encoding="utf-8"), re.M)
    if "version" in cff and (version is None or str(cff["version"]) != version.group(1)):
        problems.append(f"version {cff['version']!r} is not the package's")
    return problems


def test_the_citation_file_is_valid_and_in_step_with_the_project() -> None:
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation_problems(cff) == []
    assert cff["authors"] == [{"name": "carcassonne_env contributors"}]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith(f"{cff['license']} License")


@pytest.mark.parametrize(("change", "problem"), [
    (lambda cff: cff.pop("authors"), "missing required key 'authors'"),
    (lambda cff: cff.update({"cff-version": "1.1.0"}), "cff-version is '1.1.0'"),
    (lambda cff: cff.update({"authors": [{"affiliation": "x"}]}), "names no entity or person"),
    (lambda cff: cff.update({"license": "Apache-2.0"}), "is not pyproject's"),
    (lambda cff: cff.update({"repository-code": "https://example.org/x"}), "is not pyproject's Source URL"),
])
def test_a_broken_citation_is_named(change: Any, problem: str) -> None:
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    change(cff)
    assert any(problem in found for found in citation_problems(cff)), citation_problems(cff)


def changelog_problems(text: str) -> list[str]:
    """What breaks the Keep a Changelog shape of ``text``: the title, ``[Unreleased]`` as the first section,
    change-type sub-headings only, and a list under each."""
    problems = [] if text.startswith("# Changelog\n") else ["the first line is not '# Changelog'"]
    sections = re.findall(r"^## (.+)$", text, re.M)
    if not sections or sections[0] != "[Unreleased]":
        problems.append("the first section is not '## [Unreleased]'")
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("### ") and line[4:] not in CHANGE_TYPES:
            problems.append(f"line {number}: {line!r} is not one of {sorted(CHANGE_TYPES)}")
    for match in re.finditer(r"^### .+\n\n(?!- )", text, re.M):
        problems.append(f"line {text.count(chr(10), 0, match.start()) + 1}: a change type without a list")
    if "[Unreleased]:" not in text:
        problems.append("no link for [Unreleased]")
    return problems


def test_the_changelog_keeps_its_shape() -> None:
    assert changelog_problems((ROOT / "CHANGELOG.md").read_text(encoding="utf-8")) == []


def test_a_broken_changelog_is_named() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert any("first section" in p for p in changelog_problems(text.replace("## [Unreleased]", "## Next", 1)))
    assert any("is not one of" in p for p in changelog_problems(text.replace("### Fixed", "### Bugs", 1)))
