"""A network seated in a game other than the one it was trained on is refused (agents/compat.py).

The base game and the tower variant have the same observation shapes, so a shape check passes
``ppo:pretrained`` in the base game; the manifest of the shipped models records each one's game,
and another game (players, expansions, rule flags) is refused before anything is played, naming
both. A network of the user's records no game: it plays, after one warning that its game cannot be
checked."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents import make_agent
from agents.compat import check_fits
from agents.manifest import PRETRAINED_DIR
from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.cli import main as cli_main
from training.cli.main import main

pytest.importorskip("stable_baselines3")
pytest.importorskip("torch")

TRAINED = "2 players, expansions tower, black_tower, watchtowers"


@pytest.mark.parametrize(("spec", "flags", "wanted"), [
    ("ppo:pretrained", ["--expansions", ""], "2 players, expansions none"),
    ("ppo:pooled", ["--expansions", "tower"], "2 players, expansions tower"),
    ("ppo:distilled", ["--rules", "no_ransom"], f"{TRAINED}, no_ransom=True"),
    ("ppo:reach,sample=1", ["--players", "3"], "3 players, expansions tower, black_tower, watchtowers"),
    ("az:pretrained", ["--expansions", ""], "2 players, expansions none"),
])
def test_a_shipped_network_in_another_game_is_refused_in_one_line(
        spec: str, flags: list[str], wanted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["tournament", spec, "random", *flags, "--seeds", "1", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"carcassonne tournament: error: {spec}: ")
    assert f"made for a game of {TRAINED}" in err and f"not for this game of {wanted}" in err
    assert not out.exists()


def test_play_refuses_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "ppo:pretrained", "random", "--expansions", ""]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "ppo:pretrained: the model was made for a game of 2 players, expansions tower" in err


def test_a_shipped_network_in_its_own_game_fits() -> None:
    check_fits(make_agent("ppo:pretrained", seed=0), GameConfig(players=2, expansions=TOWER_VARIANT), "ppo:pretrained")


def test_a_users_network_plays_any_game_its_shapes_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = shutil.copy(PRETRAINED_DIR / "distilled_tower_2p.zip", tmp_path / "mine.zip")
    spec = f"ppo:{mine}"
    for config in (GameConfig(), GameConfig(expansions=TOWER_VARIANT)):
        check_fits(make_agent(spec, seed=0), config, spec)
    assert capsys.readouterr().err == ""  # the check is silent: a trainer seats its own snapshots so


def test_the_command_warns_once_that_a_users_network_cannot_be_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    mine = shutil.copy(PRETRAINED_DIR / "distilled_tower_2p.zip", tmp_path / "mine.zip")
    spec = f"ppo:{mine}"
    monkeypatch.setattr(cli_main, "_tournament", lambda *args, **kwargs: None)  # seat the agents, play nothing
    argv = ["tournament", spec, "random", "--expansions", "", "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    assert capsys.readouterr().err == (f"warning: {spec}: {mine} does not record the game it was trained on, so it "
                                       "cannot be checked against this game; it plays whatever game its observation "
                                       "shapes fit\n")
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # once
