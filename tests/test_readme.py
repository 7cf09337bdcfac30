"""The README's engine example runs as written."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_engine_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"## The engine in ten lines\n\n```python\n(.*?)```", text, re.S)
    assert match is not None, "README lost its engine example"
    code = match.group(1)
    assert len(code.strip().splitlines()) <= 12
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert "scores" in out.getvalue()


def test_readme_quick_start_has_exactly_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n\n```bash\n(.*?)```", text, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert [c.split("#")[0].strip() for c in commands] == ["bash scripts/main.sh", "bash scripts/test.sh"]


def test_readme_env_example_runs_to_the_end() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"## The environment\n\n.*?```python\n(.*?)```", text, re.S)
    assert match is not None, "README lost its env example"
    namespace: dict[str, object] = {}
    exec(compile(match.group(1), "README.md", "exec"), namespace)
    env = namespace["env"]
    assert all(env.terminations.values())  # type: ignore[attr-defined]
