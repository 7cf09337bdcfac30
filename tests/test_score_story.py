"""Every score explained at the table (carcassonne_env.play.score_story): each score change said as it
happens, and a breakdown by category that sums exactly to the scores — in the terminal, in the page's
state JSON, across undo and resume, for the base game and every tower rule."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, get_args

import pytest
from human_positions import position

from agents import make_agent
from carcassonne_env.engine import ActionKind, Game, GameConfig, ScoreEvent, ScoreReason
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.play import PlaySession
from carcassonne_env.play.score_story import CATEGORIES, CATEGORY_OF, START, ScoreStory, event_line
from carcassonne_env.play.server import PlayServer
from carcassonne_env.play.terminal import TerminalPlay
from carcassonne_env.viewer.palette import SEAT_NAMES

#: (expansions, seats, seed): full games of agents at the table.
GAMES = [((), ("random", "random"), 1), ((), ("greedy", "random"), 2), ((), ("random", "greedy", "random"), 3),
         (TOWER_VARIANT, ("random", "random"), 4), (TOWER_VARIANT, ("greedy", "random"), 5),
         (TOWER_VARIANT, ("random", "random", "greedy"), 6), (TOWER_VARIANT, ("greedy", "random", "random"), 7)]


def _session(expansions: tuple[str, ...], seats: tuple[str, ...], seed: int) -> PlaySession:
    game = Game(GameConfig(players=len(seats), expansions=expansions), seed=seed)
    return PlaySession(game, seats, [make_agent(spec, seed=seed + s) for s, spec in enumerate(seats)])


def _hint(spec: str) -> Any:
    return make_agent(spec, seed=0)


def _check_breakdown(session: PlaySession) -> dict[str, Any]:
    """The state JSON's ``scores_explained`` of ``session``, checked: its shape, and each player's
    categories summing to the total, which is the player's score."""
    server = PlayServer(session, Path("/nonexistent/never-saved.json"), _hint)
    try:
        explained: dict[str, Any] = server.state()["scores_explained"]
    finally:
        server.httpd.server_close()
    game = session.game
    assert set(explained) == {"events", "categories", "breakdown", "final"}
    assert explained["categories"] == list(CATEGORIES) and explained["final"] is game.is_over
    assert [row["total"] for row in explained["breakdown"]] == list(game.scores)
    for p, row in enumerate(explained["breakdown"]):
        assert set(row) == {"player", "name", "by_category", "total"}
        assert (row["player"], row["name"]) == (p, SEAT_NAMES[p])
        assert list(row["by_category"]) == explained["categories"]
        assert sum(row["by_category"].values()) == row["total"] == game.scores[p]
    for event in explained["events"]:
        assert set(event) == {"turn", "player", "name", "points", "category", "reason", "where", "final", "text"}
        assert event["category"] == CATEGORY_OF[event["reason"]] and event["name"] == SEAT_NAMES[event["player"]]
        assert event["where"] is None if event["reason"] == "ransom" else len(event["where"]) == 2
        assert event["text"].startswith(f"{event['name']} {event['points']:+d}: ")
    return explained


def test_every_reason_of_the_engine_has_a_category() -> None:
    assert set(CATEGORY_OF) == set(get_args(ScoreReason))
    assert list(CATEGORIES) == ["cities", "roads", "monasteries", "fields", "watchtowers", "ransoms"]


@pytest.mark.parametrize(("expansions", "seats", "seed"), GAMES)
def test_each_decision_s_score_change_is_its_events(expansions: tuple[str, ...], seats: tuple[str, ...],
                                                    seed: int) -> None:
    session = _session(expansions, seats, seed)
    while not session.game.is_over:
        before, told = session.game.scores, len(session.score_story().events)
        session.agent_step()
        new = session.score_story().events[told:]
        change = [after - b for after, b in zip(session.game.scores, before, strict=True)]
        assert [sum(e.points for e in new if e.player == p) for p in range(len(seats))] == change
        assert all(e.final is session.game.is_over for e in new if e.reason == "field")
    explained = _check_breakdown(session)
    assert explained["final"] and any(e["final"] for e in explained["events"])


def test_the_tower_games_explain_ransoms_and_watchtowers() -> None:
    reasons = set()
    for expansions, seats, seed in GAMES:
        if expansions:
            session = _session(expansions, seats, seed)
            session.run_agents()
            reasons |= {e.reason for e in session.score_story().events}
    assert reasons == set(get_args(ScoreReason))


@pytest.mark.parametrize(("expansions", "seats", "seed"), [GAMES[1], GAMES[6]])
def test_the_terminal_says_every_event_and_the_breakdown(expansions: tuple[str, ...], seats: tuple[str, ...],
                                                         seed: int, tmp_path: Path) -> None:
    session = _session(expansions, seats, seed)
    out = io.StringIO()
    assert TerminalPlay(session, tmp_path / "g.json", _hint, io.StringIO(""), out).run()
    text = out.getvalue()
    events = session.score_story().events
    said = [line[2:] for line in text.splitlines() if line.startswith("  ") and line[2:3] != " "]
    assert said == [event_line(e) for e in events if not e.final] + [event_line(e) for e in events if e.final]
    first_final = text.index(f"  {event_line(next(e for e in events if e.final))}")
    assert text.rindex("end-of-game scoring:", 0, first_final) > text.rindex("turn ", 0, first_final)
    table = text[text.index("the scores by category:"):].splitlines()
    assert table[1].split() == [*CATEGORIES, "total"]
    for p, line in enumerate(table[2:2 + len(seats)]):
        assert line.startswith(session.seat_name(p))
        cells = [int(v) for v in line[len(session.seat_name(p)):].split()]
        assert sum(cells[:-1]) == cells[-1] == session.game.scores[p]


def test_quiet_keeps_the_table_only(tmp_path: Path) -> None:
    session = _session(*GAMES[3])
    out = io.StringIO()
    assert TerminalPlay(session, tmp_path / "g.json", _hint, io.StringIO(""), out, quiet=True).run()
    text = out.getvalue()
    assert "end-of-game scoring" not in text and event_line(session.score_story().events[0]) not in text
    assert "the scores by category:" in text


@pytest.mark.parametrize("stop", [17, 40, 41])
def test_a_resumed_game_explains_the_same_scores(stop: int, tmp_path: Path) -> None:
    expansions, seats, seed = GAMES[6]
    whole = _session(expansions, seats, seed)
    whole.run_agents()
    part = _session(expansions, seats, seed)
    for _ in range(stop):
        part.agent_step()
    part.save(tmp_path / "part.json")
    resumed = PlaySession.resume(tmp_path / "part.json", None, lambda game, s, spec: part.agents[s])
    assert resumed.game is not part.game and resumed.score_story().events == part.score_story().events
    resumed.run_agents()  # the same agents play on: the rest of the same game
    assert resumed.game.history == whole.game.history
    assert resumed.score_story() == whole.score_story()
    _check_breakdown(resumed)


def test_an_undone_ransom_is_taken_back_from_the_story() -> None:
    game = position(ActionKind.RANSOM)
    session = PlaySession(game, ("human", "human"), [None, None])
    before = session.score_story()
    ransom = next(a for a in session.game.legal_actions() if a.kind == ActionKind.RANSOM)
    session.play(ransom)
    paid = session.score_story().events[len(before.events):]
    assert sorted(e.points for e in paid) == [-3, 3] and {e.reason for e in paid} == {"ransom"}
    _check_breakdown(session)
    session.undo()
    assert session.score_story() == before
    _check_breakdown(session)


def test_a_game_resumed_mid_turn_can_still_undo_with_its_story(tmp_path: Path) -> None:
    game = position(ActionKind.CAPTURE)  # Red placed a tile and a floor; the capture is next
    session = PlaySession(game, ("human", "human"), [None, None])
    session.save(tmp_path / "mid.json")
    resumed = PlaySession.resume(tmp_path / "mid.json", None, lambda g, s, spec: None)
    assert resumed.can_undo and resumed.score_story() == session.score_story()
    resumed.undo()
    assert resumed.score_story().events == session.score_story().events
    _check_breakdown(resumed)


def test_the_points_of_a_built_start_position_have_a_column() -> None:
    story = ScoreStory((ScoreEvent(4, 1, 8, "city", 1, -2), ScoreEvent(9, 0, -3, "ransom", 0, 0)), (5, 0), False)
    assert story.categories() == [START, *CATEGORIES]
    assert [row["total"] for row in story.to_json()["breakdown"]] == [2, 8]
    assert story.to_json()["events"][0]["text"] == "Blue +8: city at (1,-2), completed"
    assert ScoreStory((), (0, 0), False).categories() == list(CATEGORIES)
