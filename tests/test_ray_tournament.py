"""The tournament's Ray back-end (training/arena/backends.py) gives the process back-end's games."""

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from game_lines import without_timings

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena.backends import make_backend
from training.arena.tournament import GAMES_FILE, Settings, run
from training.cli.main import main


def _games(out: Path) -> list[dict[str, Any]]:
    """The games of ``out`` by index, without their timings (the only part that differs)."""
    games = [json.loads(line) for line in (out / GAMES_FILE).read_text().splitlines()]
    return sorted(without_timings(games), key=lambda g: g["index"])


@pytest.mark.xdist_group("ray")
def test_ray_and_process_backends_play_the_same_games(ray_local: Any, tmp_path: Path) -> None:
    config = GameConfig(players=2, expansions=TOWER_VARIANT).to_dict()
    settings = Settings(agents=("random", "greedy:fast=1"), seeds=3, first_seed=5, config=config)
    run(settings, tmp_path / "process", workers=2, progress=False, backend=make_backend("process"))
    run(settings, tmp_path / "ray", workers=2, progress=False, backend=make_backend("ray"))
    process, ray = _games(tmp_path / "process"), _games(tmp_path / "ray")
    assert [g["index"] for g in ray] == list(range(6))
    assert ray == process


@pytest.mark.xdist_group("ray")
def test_ray_backend_resumes_a_process_run(ray_local: Any, tmp_path: Path) -> None:
    settings = Settings(agents=("random", "greedy"), seeds=2, config=GameConfig(players=2).to_dict())
    whole = tmp_path / "whole"
    run(settings, whole, workers=1, progress=False)
    part = tmp_path / "part"
    part.mkdir()
    lines = (whole / GAMES_FILE).read_text().splitlines()
    (part / GAMES_FILE).write_text(lines[0] + "\n" + lines[1][:40])  # one game, then a line cut by a kill
    (part / "tournament.json").write_text((whole / "tournament.json").read_text())
    run(settings, part, workers=2, resume=True, progress=False, backend=make_backend("ray"))
    assert _games(part) == _games(whole)


def test_without_ray_the_ray_backend_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if it were not installed
    status = main(["tournament", "random", "greedy", "--seeds", "1", "--backend", "ray", "--out", str(tmp_path)])
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert ("ray is not installed (needed by --backend ray): install the ray extra: "
            "pip install 'carcassonne-env[ray]'") in err


@pytest.mark.parametrize(("address", "message"), [
    ("127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1"),
    ("localhost:port", "expected auto, HOST:PORT or ray://HOST:PORT"),
])
def test_an_unreachable_cluster_address_is_a_one_line_error(
    address: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    status = main(["tournament", "random", "greedy", "--seeds", "1", "--backend", "ray", "--address", address,
                   "--out", str(tmp_path)])
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "".join(err) and message in err[-1]
