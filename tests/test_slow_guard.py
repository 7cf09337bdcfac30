"""The test suite's own rule (tests/conftest.py): a test over the guard's bound without the ``slow``
marker fails, naming the marker; a marked one passes; unknown markers are refused (--strict-markers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SLEEPERS = '''
import time
import pytest

def test_unmarked():
    time.sleep(0.6)

@pytest.mark.slow
def test_marked():
    time.sleep(0.6)

def test_quick():
    pass
'''


def _run(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tests / "test_sleepers.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    env = {**os.environ, "CARCASSONNE_SLOW_GUARD": "0.3"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "tests/test_sleepers.py", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def test_an_unmarked_slow_test_fails_and_a_marked_one_passes(tmp_path: Path) -> None:
    done = _run(tmp_path, SLEEPERS)
    assert "1 failed, 2 passed" in done.stdout, done.stdout
    assert "test_unmarked" in done.stdout and "mark it @pytest.mark.slow" in done.stdout


def test_the_quick_run_skips_the_marked_tests(tmp_path: Path) -> None:
    done = _run(tmp_path, SLEEPERS, "-m", "not slow", "-k", "not unmarked")
    assert "1 passed" in done.stdout and "failed" not in done.stdout, done.stdout


def test_an_unknown_marker_is_refused(tmp_path: Path) -> None:
    done = _run(tmp_path, "import pytest\n\n@pytest.mark.slwo\ndef test_typo():\n    pass\n")
    assert done.returncode != 0 and "'slwo' not found in `markers`" in done.stdout + done.stderr
