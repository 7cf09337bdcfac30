"""A network seated in a game other than the one it was trained on is refused (agents/compat.py).

The base game and the tower variant have the same observation shapes, so a shape check passes
``ppo:pretrained`` in the base game; the manifest of the shipped models records each one's game,
and another game (players, expansions, rule flags) is refused before anything is played, naming
both; so is a zip of the project's trainers, which records its game. A network of the user's that
records no game plays, after one warning that its game is unknown; a shipped linear value (which
fits any game's features) plays in another game after one warning naming both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents import make_agent
from agents.compat import check_fits, warn_other_game
from agents.manifest import PRETRAINED_DIR
from agents.ppo import record_game, recorded_game
from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.cli import main as cli_main
from training.cli.main import main

pytest.importorskip("stable_baselines3")
pytest.importorskip("torch")

TRAINED = "tower variant (tower, black_tower, watchtowers), 2 players"


@pytest.mark.parametrize(("spec", "flags", "wanted"), [
    ("ppo:pretrained", ["--expansions", ""], "base game, 2 players"),
    ("ppo:pooled", ["--expansions", "tower"], "expansions (tower), 2 players"),
    ("ppo:distilled", ["--rules", "no_ransom"], f"{TRAINED}; rules: no_ransom"),
    ("ppo:reach,sample=1", ["--players", "3"], "tower variant (tower, black_tower, watchtowers), 3 players"),
    ("az:pretrained", ["--expansions", ""], "base game, 2 players"),
])
def test_a_shipped_network_in_another_game_is_refused_in_one_line(
        spec: str, flags: list[str], wanted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["tournament", spec, "random", *flags, "--seeds", "1", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"carcassonne tournament: error: {spec}: ")
    assert f"made for the game [{TRAINED}], not for this game [{wanted}]" in err
    assert not out.exists()


def test_play_refuses_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "ppo:pretrained", "random", "--expansions", ""]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (f"ppo:pretrained: the model was made for the game [{TRAINED}], not for this game [base game, 2 players]"
            in err)


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
    assert capsys.readouterr().err == (f"warning: {spec}: {mine} does not record the game it was trained on (its game "
                                       "is unknown), so it cannot be checked against this game [base game, 2 "
                                       "players]; it plays whatever game its observation shapes fit\n")
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # once


def test_a_zip_that_records_its_game_is_refused_in_another_game(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    mine = Path(shutil.copy(PRETRAINED_DIR / "distilled_tower_2p.zip", tmp_path / "mine.zip"))
    base = GameConfig()
    record_game(mine, base.to_dict())  # as the trainers save it, trained on the base game
    assert recorded_game(mine) == base.to_dict()
    spec = f"ppo:{mine}"
    check_fits(make_agent(spec, seed=0), base, spec)
    out = tmp_path / "out"
    assert main(["tournament", spec, "random", "--seeds", "1", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"carcassonne tournament: error: {spec}: the model was made for the game [base game, 2 players], "
                   f"not for this game [{TRAINED}]\n")
    assert not out.exists()


@pytest.mark.parametrize("spec", ["greedy:value=linear", "mcts:sims=2,guide=1,value=linear"])
def test_a_shipped_linear_value_in_another_game_plays_after_one_warning(
        spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = GameConfig(players=3)
    agent = make_agent(spec, seed=0)
    check_fits(agent, base, spec)  # its features exist in every game: it may play there
    warn_other_game(agent, spec, base)
    warn_other_game(agent, spec, base)
    assert capsys.readouterr().err == (
        f"warning: {spec}: the linear value was made for the game [tower variant (tower, black_tower, "
        "watchtowers), 3 players], not for this game [base game, 3 players] (it plays on)\n")
    warn_other_game(agent, spec, GameConfig(players=3, expansions=TOWER_VARIANT))
    assert capsys.readouterr().err == ""  # its own game
