"""No tracked text file names an absolute path of the machine that wrote it (tests/machine_paths.py says
what counts and which system paths are allowed): results files, docs and scripts name paths relative to
the repository, so they mean the same on every reader's machine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from machine_paths import machine_paths

ROOT = Path(__file__).resolve().parent.parent


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = []
    for name in listed.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and b"\0" not in path.read_bytes()[:8192]:  # binary files hold NUL bytes
            files.append(path)
    return files


def test_no_tracked_file_names_a_machine_path() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = _tracked_text_files()
    assert len(files) > 100  # the scan saw the tree
    found = [f"{path.relative_to(ROOT)}:{line}: {machine_path}"
             for path in files
             for line, machine_path in machine_paths(path.read_text(encoding="utf-8", errors="replace"))]
    assert not found, "absolute paths of a machine (write them relative to the repository):\n" + "\n".join(found)


@pytest.mark.parametrize("text", [
    "afterstate:/" + "work/main/agents/pretrained/x.npz,0.83",
    "--out /" + "tmp/t1000",
    '"best": "/' + 'home/alice/runs/x.zip"',
    "PYTHONPATH=/" + "root/project",
    "file:///" + "Users/alice/x.html",
    "C:" + "\\Users\\alice\\x.zip",
])
def test_a_machine_path_is_found(text: str) -> None:  # (each split so that this file names none)
    assert [line for line, _ in machine_paths(f"first line\n{text}\n")] == [2]


@pytest.mark.parametrize("text", [
    "#!/" + "usr/bin/env bash",
    "cmd > /" + "dev/null 2>&1",
    "runs/tmp/x, ../work/x, ~/tmp/x, ${OUT}/tmp/x",
    "https://github.com/owner/home/tree/main/docs",
    'Path(f"/' + 'proc/{pid}/stat")',
])
def test_relative_and_allowed_paths_pass(text: str) -> None:
    assert list(machine_paths(text)) == []
