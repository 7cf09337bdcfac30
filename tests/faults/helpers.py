"""Shared helpers of the fault suite: run the CLI in this process, tiny tournaments, bad agents,
fork loops in a fresh interpreter."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from carcassonne_env.engine import GameConfig
from training.arena.tournament import GAMES_FILE, SETTINGS_FILE, Settings
from training.cli.main import main

AGENTS = str(Path(__file__).with_name("bad_agents.py"))
BASE_2P = GameConfig(players=2).to_dict()


def bad(name: str) -> str:
    """The spec of an agent of bad_agents.py."""
    return f"{AGENTS}:{name}"


def tiny(seeds: int = 2, *agents: str, **kwargs: object) -> Settings:
    """A quick tournament: random against the first-legal-action agent on the base game."""
    return Settings(agents=agents or ("random", bad("First")), seeds=seeds, config=BASE_2P, **kwargs)  # type: ignore[arg-type]


def copy_run(played: Path, tmp_path: Path) -> Path:
    """A copy of a tournament's directory (its games and settings) in ``tmp_path / "t"``, to edit."""
    out = tmp_path / "t"
    out.mkdir()
    for name in (GAMES_FILE, SETTINGS_FILE):
        (out / name).write_bytes((played / name).read_bytes())
    return out


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``carcassonne ARGV`` in this process: (exit status, stderr)."""
    try:
        code = main(argv)
    except SystemExit as e:  # argparse
        code = e.code if isinstance(e.code, int) else 1
    return code, capsys.readouterr().err


def assert_clear_error(code: int, err: str, *needles: str) -> None:
    """A refusal: non-zero status, no traceback, a last line ``...: error: ...`` naming each needle
    (argparse prints its usage above it)."""
    assert code != 0, f"accepted silently: {err}"
    assert "Traceback" not in err, err
    last = err.strip().splitlines()[-1] if err.strip() else ""
    assert "error" in last, err
    for needle in needles:
        assert needle in last, err


def in_a_fresh_process(body: Callable[..., None], *args: object) -> None:
    """``body(*args)`` in a new interpreter, re-raising what it raises: for the tests that fork and
    kill. A fork of the test process, which runs other threads (xdist's, and Ray's or torch's after
    some tests), copies any lock one of them holds at that moment, held for good in the child, which
    then never ends (such a child once hung CI on tqdm's lock). A fresh interpreter runs one thread."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(body, *args).result()
