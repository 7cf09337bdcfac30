"""``carcassonne bench agent`` (training/arena/decision_time.py): one CPU time per decision of the
same games the tournament plays, and a search agent's simulations/s on recorded positions."""

from __future__ import annotations

import pytest

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena.decision_time import decision_times, recorded_positions, simulation_rate
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


def test_the_command_prints_its_setup_then_one_line_per_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "agent", "--specs", "random,greedy:fast=1", "--games", "1"]) == 0
    setup, *lines = capsys.readouterr().out.splitlines()
    assert setup.startswith("setup: game: tower variant (tower, black_tower, watchtowers), 2 players; "
                            "each agent in every seat (random, greedy:fast=1); 1 game(s) each from seed 0, in this "
                            "process; torch on 1 thread(s); the ")
    assert [line.split(":")[1].strip() for line in lines] == ["random", "greedy"]
    assert all("ms CPU a decision" in line for line in lines)


def test_a_search_agent_gets_its_simulations_per_second_on_the_recorded_positions() -> None:
    positions = recorded_positions(TOWER, 1, every=20)
    assert positions and all(len(p.legal_actions()) > 1 for p in positions)
    assert simulation_rate("greedy:fast=1", positions) is None  # not a search
    rate = simulation_rate("mcts:sims=5", positions)
    assert rate is not None and rate > 0


def test_the_command_prints_the_simulations_per_second_of_a_search_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "agent", "--specs", "greedy:fast=1,mcts:sims=3", "--games", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]  # after the setup
    assert len(lines) == 3 and "simulations/s (CPU) over the same" in lines[2] and "mcts:sims=3" in lines[2]
