"""Agents that fail lose the game, not the tournament: exceptions, sys.exit, illegal actions, a
forged score, a hang and a dead process (item 3 of issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from carcassonne_env.engine import GameConfig
from faults.helpers import BASE_2P, bad, tiny
from training.arena.match import AgentFailure, play_match
from training.arena.report import build_report
from training.arena.tournament import load_games, run


@pytest.mark.fault("handled")
@pytest.mark.parametrize(("agent", "kind"), [("Raiser", "exception"), ("Exiter", "exit"), ("Illegal", "illegal")])
def test_a_failing_agent_forfeits_its_game_and_the_tournament_goes_on(tmp_path: Path, agent: str, kind: str) -> None:
    settings = tiny(2, "random", bad(agent))
    run(settings, tmp_path, progress=False)
    games = load_games(tmp_path)  # every line replays to its scores and forfeit
    assert len(games) == 4
    for g in games:
        assert g["forfeit"]["agent"] == bad(agent) and g["forfeit"]["kind"] == kind
        assert g["seats"][g["forfeit"]["seat"]] == bad(agent)
        assert g["ranks"][g["forfeit"]["seat"]] == 2
    report = build_report(settings, games, "random")
    assert report.forfeits == {bad(agent): {kind: 4}}
    assert report.pairings[0].wins == 4  # random won every game


@pytest.mark.fault("clear error")
def test_on_error_stop_names_the_game_and_the_seat(tmp_path: Path) -> None:
    from training.arena.tournament import TournamentError

    with pytest.raises((AgentFailure, TournamentError), match=r"game 0 \(seed 0\): agent .*Raiser' \(seat 1\) raised "
                                                             r"RuntimeError: boom"):
        run(tiny(1, "random", bad("Raiser")), tmp_path, progress=False, on_error="stop")


@pytest.mark.fault("handled")
def test_an_agent_cannot_forge_its_score_through_the_game_it_is_shown() -> None:
    result = play_match(GameConfig.from_dict(BASE_2P), [bad("Forger"), "random"], seed=0)
    assert result.forfeit is None
    assert result.record.replay().scores == result.scores and max(result.scores) < 500


@pytest.mark.fault("handled", count=2)
@pytest.mark.parametrize(("agent", "kind"), [("Hanger", "timeout"), ("HardExiter", "crash")])
def test_a_hanging_or_dying_agent_forfeits_under_a_move_time_limit(tmp_path: Path, agent: str, kind: str) -> None:
    settings = tiny(1, "random", bad(agent), move_time_limit=1.0)
    run(settings, tmp_path, progress=False)
    games = load_games(tmp_path)
    assert [g["forfeit"]["kind"] for g in games] == [kind, kind]
    again = tiny(1, "random", bad("First"), move_time_limit=1.0)  # a good agent under the limit plays whole games
    run(again, tmp_path / "good", progress=False)
    assert all("forfeit" not in g for g in load_games(tmp_path / "good"))
