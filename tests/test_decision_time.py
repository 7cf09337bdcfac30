"""``carcassonne bench agent`` (training/arena/decision_time.py): one CPU time per decision of the
same games the tournament plays."""

from __future__ import annotations

import pytest

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena.decision_time import decision_times
from training.arena.match import play_match
from training.cli.main import main

TOWER = GameConfig(players=2, expansions=TOWER_VARIANT)


def test_every_decision_of_the_tournaments_games_is_timed_once() -> None:
    timed = decision_times("greedy:fast=1", 2, TOWER, first_seed=5)
    played = [play_match(TOWER, ("greedy:fast=1",) * 2, seed) for seed in (5, 6)]
    assert timed.ms.size == sum(sum(r.decisions) for r in played)  # the same games, every decision
    assert timed.ms.dtype.name == "float64" and (timed.ms >= 0).all()
    assert timed.line().startswith("agent: greedy:fast=1: ") and f"over {timed.ms.size} decisions of 2 " in timed.line()


def test_no_games_is_refused() -> None:
    with pytest.raises(ValueError, match="games: must be at least 1"):
        decision_times("random", 0, TOWER)


def test_the_command_prints_one_line_per_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "agent", "--specs", "random,greedy:fast=1", "--games", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["random", "greedy"]
    assert all("ms CPU a decision" in line for line in lines)
