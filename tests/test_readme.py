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


def _anchors(page: Path) -> set[str]:
    """The heading ids of a Markdown page, as mkdocs and GitHub make them (text lowercased, punctuation
    dropped, runs of spaces and hyphens one hyphen)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\s-]", "", heading).strip().lower()
        anchors.add(re.sub(r"[-\s]+", "-", slug))
    return anchors


def test_readme_is_a_front_door_of_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move the detail to a page under docs/"


def test_every_relative_link_of_the_readme_resolves() -> None:
    text = re.sub(r"^```.*?^```", "", README.read_text(encoding="utf-8"), flags=re.S | re.M)
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links, "the README links to no page"
    broken = []
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:
        path, _, anchor = link.partition("#")
        target = (README.parent / path).resolve() if path else README
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link}: no heading #{anchor} in {path or 'README.md'}")
    assert not broken, "broken links in README.md:\n" + "\n".join(broken)
