"""Thinking time is CPU time: a tournament charges each seat the CPU seconds its agent's process
spends deciding, next to the wall clock (training/arena/match.py), and reports both."""

import json
from pathlib import Path

import legal_agents
import pytest

from agents import spec as agent_spec
from carcassonne_env.engine import Game, GameConfig
from training.arena.match import MatchResult, play_match, play_out
from training.arena.report import build_report, write_report
from training.arena.tournament import GAMES_FILE, Settings, TournamentError, load_games, run

BASE_2P = GameConfig(players=2)
SPIN = legal_agents.SPIN_SECONDS


def _spinner_and_sleeper(result: MatchResult) -> None:
    """Seat 0 spun at least SPIN CPU seconds a decision; seat 1 slept as long but used next to no CPU."""
    assert result.cpu_seconds is not None
    spin_cpu, sleep_cpu = result.cpu_seconds
    spins, sleeps = result.decisions
    assert spin_cpu >= spins * SPIN
    assert result.seconds[1] >= sleeps * SPIN  # the wall clock charges the sleep
    assert sleep_cpu < 0.5 * sleeps * SPIN  # the CPU clock does not


def test_an_agent_in_its_own_process_is_charged_its_own_cpu_time() -> None:
    result = play_match(BASE_2P, [legal_agents.spec("Spinner"), legal_agents.spec("Sleeper")], seed=3)
    _spinner_and_sleeper(result)


def test_a_project_agent_is_charged_the_cpu_time_of_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(agent_spec._REGISTRY, "spinner", lambda seed: legal_agents.Spinner())
    monkeypatch.setitem(agent_spec._REGISTRY, "sleeper", lambda seed: legal_agents.Sleeper())
    _spinner_and_sleeper(play_match(BASE_2P, ["spinner", "sleeper"], seed=3))
    moves = list(play_out(Game(BASE_2P, seed=3), [legal_agents.Spinner(), legal_agents.Sleeper()], ["a", "b"]))
    assert all(m.cpu_seconds >= SPIN for m in moves if m.seat == 0)


def test_a_game_keeps_its_cpu_seconds_through_its_record() -> None:
    result = play_match(BASE_2P, ["random", "random"], seed=5)
    data = json.loads(json.dumps(result.to_dict()))
    assert MatchResult.from_dict(data) == result and len(data["cpu_seconds"]) == 2
    del data["cpu_seconds"]  # a game recorded before 2026-12-07
    assert MatchResult.from_dict(data).cpu_seconds is None


def test_the_report_gives_cpu_ms_a_decision_and_none_for_games_recorded_without_it(tmp_path: Path) -> None:
    settings = Settings(agents=("random", legal_agents.spec("Spinner")), seeds=1, config=BASE_2P.to_dict())
    run(settings, tmp_path, workers=1, progress=False)
    write_report(build_report(settings, load_games(tmp_path), "random"), tmp_path, settings)
    summary = json.loads((tmp_path / "summary.json").read_text())
    cpu, wall = summary["cpu_ms_per_decision"], summary["ms_per_decision"]
    assert cpu[legal_agents.spec("Spinner")] >= 1000 * SPIN and set(cpu) == set(wall)
    old = [{k: v for k, v in g.items() if k != "cpu_seconds"} for g in load_games(tmp_path)]
    report = build_report(settings, old, "random")
    assert report.cpu_ms_per_decision is not None
    assert all(v != v for v in report.cpu_ms_per_decision.values())  # NaN: unknown, never 0
    write_report(report, tmp_path, settings)
    assert set(json.loads((tmp_path / "summary.json").read_text())["cpu_ms_per_decision"].values()) == {None}


@pytest.mark.parametrize(("cpu", "why"), [([0.1], "must be 2 non-negative numbers"),
                                           ([-1.0, 0.1], "must be 2 non-negative numbers"),
                                           ([0.1, "0.1"], "must be 2 non-negative numbers")])
def test_a_game_line_with_impossible_cpu_seconds_is_refused(tmp_path: Path, cpu: list[object], why: str) -> None:
    settings = Settings(agents=("random", "greedy:fast=1"), seeds=1, config=BASE_2P.to_dict())
    run(settings, tmp_path, workers=1, progress=False)
    lines = (tmp_path / GAMES_FILE).read_text().splitlines()
    game = json.loads(lines[0])
    game["cpu_seconds"] = cpu
    (tmp_path / GAMES_FILE).write_text("\n".join([json.dumps(game), *lines[1:]]) + "\n")
    with pytest.raises(TournamentError, match=f"cpu_seconds {why}"):
        load_games(tmp_path)
