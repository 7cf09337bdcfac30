"""docs/env.md shows the tables the code generates, so the page cannot drift from the code."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from carcassonne_env.environment.doc_tables import tables
from carcassonne_env.environment.options import DEFAULT_WINDOW

DOC = Path(__file__).resolve().parent.parent / "docs" / "env.md"


def test_env_doc_contains_the_generated_tables() -> None:
    text = DOC.read_text(encoding="utf-8")
    for block in tables().split("\n\n"):
        assert block.strip() in text, block.splitlines()[0]
    assert f"W = {DEFAULT_WINDOW}" in text
    assert (DOC.parent / "images" / "board_example.png").is_file()


def test_env_doc_training_example_runs_on_a_small_budget() -> None:
    """The Stable-Baselines3 example of docs/env.md, as written but for 256 steps and 2 games."""
    pytest.importorskip("sb3_contrib")
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"```python\n(from sb3_contrib import MaskablePPO\n.*?)```", text, re.S)
    assert match is not None, "docs/env.md lost its training example"
    code = match.group(1)
    for full, small in (("model.learn(8_192)", "model.learn(256)"), ("games: int = 100", "games: int = 2")):
        assert full in code, full
        code = code.replace(full, small)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {})
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["before", "after"]
    assert all(re.fullmatch(r"\w+: +win rate (0|50|100)%, margin [+-]\d+\.\d", line) for line in lines), lines
