"""docs/env.md shows the tables the code generates, so the page cannot drift from the code."""

from __future__ import annotations

from pathlib import Path

from carcassonne_env.environment.doc_tables import tables
from carcassonne_env.environment.options import DEFAULT_WINDOW

DOC = Path(__file__).resolve().parent.parent / "docs" / "env.md"


def test_env_doc_contains_the_generated_tables() -> None:
    text = DOC.read_text(encoding="utf-8")
    for block in tables().split("\n\n"):
        assert block.strip() in text, block.splitlines()[0]
    assert f"W = {DEFAULT_WINDOW}" in text
    assert (DOC.parent / "images" / "board_example.png").is_file()
