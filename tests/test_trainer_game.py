"""Every trainer names the game it trains for: its first line (``GameSettings.game_line``), and the
title of every figure it draws (the afterstate and distillation curves, PPO's learning curve)."""

from __future__ import annotations

from pathlib import Path

import pytest

from carcassonne_env.engine import GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.common.curves import Band, plot_against_anchors
from training.common.settings import GameSettings

GAMES = [GameConfig(expansions=TOWER_VARIANT), GameConfig(players=4, expansions=("tower",))]


@pytest.mark.parametrize(("settings", "line"), [
    (GameSettings(), "game: tower variant (tower, black_tower, watchtowers), 2 players"),
    (GameSettings(players=3, expansions=()), "game: base game, 3 players"),
])
def test_a_trainers_first_line_names_its_game(settings: GameSettings, line: str) -> None:
    assert settings.game_line() == line


@pytest.mark.parametrize("config", GAMES)
def test_the_curve_against_the_anchors_names_the_game(config: GameConfig, tmp_path: Path,
                                                      figure_titles: list[str]) -> None:
    band = Band([0.4, 0.6], [0.3, 0.5], [0.5, 0.7])
    plot_against_anchors(tmp_path / "curve.png", [0.0, 1.0], {"greedy": band}, ["r0", "r1"], "greedy",
                         span=(0.0, 1.0), even=0.5, ylabel="win share", title="a curve", game=describe_game(config))
    assert figure_titles == [f"a curve\ngame: {describe_game(config)}"]
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("config", GAMES)
def test_ppos_learning_curve_names_the_game(config: GameConfig, tmp_path: Path, figure_titles: list[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from training.sb3.selfplay import _plot_learning_curve

    rows = [{"step": 128, "win_rate_vs_random": 0.5, "win_low_vs_random": 0.2, "win_high_vs_random": 0.8}]
    _plot_learning_curve(rows, [{"step": 128, "episodes": 2, "reward_mean": 0.1}], tmp_path / "curve.png",
                         describe_game(config))
    assert figure_titles[0] == f"game: {describe_game(config)}"
