"""Corrupt and forged files of every kind a tournament writes, strict JSON, streaming replay (items 2, 5)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from faults.helpers import assert_clear_error, bad, cli, copy_run, tiny
from training.arena.tournament import GAMES_FILE, SETTINGS_FILE, TournamentError, find_game, load_games, run


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("played")
    run(tiny(2), out, progress=False)
    return out


def _edit_line(out: Path, number: int, edit: object) -> None:
    lines = (out / GAMES_FILE).read_text().splitlines()
    game = json.loads(lines[number - 1])
    lines[number - 1] = edit(game) if callable(edit) else str(edit)
    (out / GAMES_FILE).write_text("\n".join(lines) + "\n")


def _scores(g: dict) -> str:  # type: ignore[type-arg]
    g["scores"][0] += 500
    return json.dumps(g)


def _seed(g: dict) -> str:  # type: ignore[type-arg]
    g["record"]["seed"] += 1
    return json.dumps(g)


def _index(g: dict) -> str:  # type: ignore[type-arg]
    g["index"] = 999
    return json.dumps(g)


def _nan(g: dict) -> str:  # type: ignore[type-arg]
    g["seconds"][0] = math.nan
    return json.dumps(g)


def _moves(g: dict) -> str:  # type: ignore[type-arg]
    g["record"]["actions"] = g["record"]["actions"][:-3]
    return json.dumps(g)


def _forfeit(g: dict) -> str:  # type: ignore[type-arg]
    g["forfeit"] = {"seat": 0, "agent": g["seats"][0], "kind": "exception", "message": "forged"}
    return json.dumps(g)


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("edit", "message"), [
    (_scores, "differ from the scores its moves reach"), (_seed, "not the game of seed"),
    (_index, "999 is not in this tournament's schedule"), (_nan, "not JSON"), ("{}", "missing index"),
    ("12345", "not a game"), ("[1, 2]", "not a game"), ("not json", "not JSON"), (_moves, "stop before the end"),
    (_forfeit, "forfeit of seat 0"),
])
def test_a_bad_line_is_an_error_naming_it_on_resume_report_and_replay(
    played: Path, tmp_path: Path, edit: object, message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    out = copy_run(played, tmp_path)
    _edit_line(out, 2, edit)
    with pytest.raises(TournamentError, match=message) as e:
        load_games(out)
    assert "line 2" in str(e.value)
    with pytest.raises(TournamentError, match="line 2"):
        run(tiny(2), out, resume=True, progress=False)
    code, err = cli(["replay", str(out / GAMES_FILE), "--game", "1", "-o", str(tmp_path / "r.html")], capsys)
    assert_clear_error(code, err, "line 2")  # every line is checked before a game is shown


@pytest.mark.fault("handled")
def test_a_last_line_cut_short_by_a_kill_is_dropped_and_replayed(played: Path, tmp_path: Path) -> None:
    out = copy_run(played, tmp_path)
    text = (out / GAMES_FILE).read_text()
    (out / GAMES_FILE).write_text(text[: len(text) - 50])
    assert len(load_games(out)) == 3
    run(tiny(2), out, resume=True, progress=False)
    assert [g["scores"] for g in load_games(out)] == [g["scores"] for g in load_games(played)]


@pytest.mark.fault("clear error", count=3)
@pytest.mark.parametrize("damage", ["missing", "truncated", "not settings"])
def test_games_without_a_sound_tournament_json_are_refused(played: Path, tmp_path: Path, damage: str) -> None:
    out = copy_run(played, tmp_path)
    if damage == "missing":
        (out / SETTINGS_FILE).unlink()
    elif damage == "truncated":
        (out / SETTINGS_FILE).write_text((out / SETTINGS_FILE).read_text()[:30])
    else:
        (out / SETTINGS_FILE).write_text("[1]")
    with pytest.raises(TournamentError, match=SETTINGS_FILE):
        load_games(out)
    with pytest.raises(TournamentError, match=SETTINGS_FILE):
        run(tiny(2), out, resume=True, progress=False)


@pytest.mark.fault("clear error")
def test_a_changed_agent_file_is_refused_on_resume_unless_allowed(tmp_path: Path) -> None:
    agent = tmp_path / "mine.py"
    agent.write_text("class A:\n    def choose_action(self, game):\n        return game.legal_actions()[0]\n")
    settings = tiny(1, "random", f"{agent}:A")
    run(settings, tmp_path / "t", progress=False)
    agent.write_text(agent.read_text() + "# changed\n")
    with pytest.raises(TournamentError, match=r"agent files changed.*mine.py.*--allow-changed-agents"):
        run(settings, tmp_path / "t", resume=True, progress=False)
    run(settings, tmp_path / "t", resume=True, progress=False, allow_changed_agents=True)


@pytest.mark.fault("handled")
def test_summary_json_is_strict_json_with_infinite_elo_as_a_string(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(["tournament", "random", bad("Illegal"), "--seeds", "2", "--expansions", "", "--out",
                     str(tmp_path), "--no-progress"], capsys)
    assert code == 0, err

    def refuse(name: str) -> None:
        raise ValueError(name)

    summary = json.loads((tmp_path / "summary.json").read_text(), parse_constant=refuse)
    elos = {r["agent"]: r["elo"] for r in summary["ratings"]}
    assert summary["forfeits"] == {bad("Illegal"): {"illegal": 4}}
    assert elos["random"] == 0 and (elos[bad("Illegal")] == "-inf" or isinstance(elos[bad("Illegal")], float))
    for line in (tmp_path / GAMES_FILE).read_text().splitlines():
        json.loads(line, parse_constant=refuse)


@pytest.mark.fault("handled")
def test_replaying_one_game_reads_the_file_line_by_line(played: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    out = copy_run(played, tmp_path)
    monkeypatch.setattr(Path, "read_text", lambda *a, **k: pytest.fail("read the whole file"))
    monkeypatch.setattr(Path, "read_bytes", lambda *a, **k: pytest.fail("read the whole file"))
    game = find_game(out / GAMES_FILE, 3)
    assert game is not None and game["index"] == 3
