"""Nothing a user wrote is overwritten (issue 51, point 3): ``play`` saves over a file only when it is
this game's own save (another game's save needs ``--force``; a file that is not a save, never),
``replay`` refuses an output that is its input or not HTML, and a failed save prints no resume
command."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from agents import make_agent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.play import Chooser, PlaySession
from carcassonne_env.play.server import PlayServer
from carcassonne_env.play.session import SaveFailed
from carcassonne_env.play.terminal import TerminalPlay
from faults.helpers import assert_clear_error, cli, tiny
from training.arena.tournament import GAMES_FILE, run
from training.cli.main import main
from training.cli.play_human import DEFAULT_SAVE


def _table(seed: int = 0) -> PlaySession:
    return PlaySession(Game(GameConfig(players=2, expansions=()), seed=seed), ["human", "random"],
                       [None, make_agent("random", seed=1)])


def _hint(spec: str) -> Chooser:
    return make_agent(spec, seed=0)


def _other_game(path: Path) -> str:
    """A save of another game (seed 9) at ``path``; its text."""
    _table(seed=9).save(path)
    return path.read_text()


def _play(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``carcassonne play ARGV`` typing ``stdin``: (exit status, stdout, stderr)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["play", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _kept(path: Path, before: str) -> None:
    assert path.read_text() == before, f"data loss: {path} was overwritten"


@pytest.mark.fault("clear error")
def test_the_default_save_of_another_game_is_refused_naming_force(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    before = _other_game(tmp_path / DEFAULT_SAVE)
    code, out, err = _play(["human", "random"], "quit\n", monkeypatch, capsys)
    _kept(tmp_path / DEFAULT_SAVE, before)
    assert_clear_error(code, err, str(DEFAULT_SAVE), "another game's save", "--force")
    assert "resume with" not in out


@pytest.mark.fault("handled")
def test_force_replaces_another_games_save(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.json"
    before = _other_game(path)
    code, _, err = _play(["human", "random", "--save", str(path)], "quit\n", monkeypatch, capsys)
    assert_clear_error(code, err, "--force")
    _kept(path, before)
    code, out, err = _play(["human", "random", "--save", str(path), "--force"], "quit\n", monkeypatch, capsys)
    assert code == 0, err
    assert PlaySession.read_document(path)[0].seed == 0 and f"resume with: carcassonne play --resume {path}" in out


@pytest.mark.fault("clear error", count=2)  # without and with --force
@pytest.mark.parametrize("name", [GAMES_FILE, "notes.py", "record.json"])
def test_a_file_that_is_not_a_save_is_never_replaced_even_with_force(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    if name == GAMES_FILE:
        run(tiny(1), tmp_path, progress=False)  # a tournament's games.jsonl
    elif name == "record.json":  # a GameRecord document: play can resume it, but did not write it
        path.write_text(json.dumps(_table().game.record().to_dict()))
    else:
        path.write_text("print('hello')\n")
    before = path.read_text()
    for force in ("--no-force", "--force"):
        code, out, err = _play(["human", "random", "--save", str(path), force], "quit\n", monkeypatch, capsys)
        assert_clear_error(code, err, str(path), "not a game saved by carcassonne play")
        assert "resume with" not in out
    _kept(path, before)


@pytest.mark.fault("clear error")
def test_resuming_a_tournament_line_does_not_save_over_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    run(tiny(1), tmp_path, progress=False)
    line = (tmp_path / GAMES_FILE).read_text().splitlines()[0]
    path = tmp_path / "one.jsonl"
    path.write_text(line + "\n")  # a games.jsonl of one game reads as a saved game
    before = path.read_text()
    code, _, err = _play(["--resume", str(path), "human", "random"], "quit\n", monkeypatch, capsys)
    assert_clear_error(code, err, "never replaced")
    _kept(path, before)
    code, _, err = _play(["--resume", str(path), "human", "random", "--save", str(tmp_path / "new.json")],
                         "quit\n", monkeypatch, capsys)
    assert code == 0, err
    _kept(path, before)


@pytest.mark.fault("handled")
def test_this_games_own_save_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The file resumed from, and one this table wrote already, are the game's own."""
    path = tmp_path / "g.json"
    assert _play(["human", "random", "--save", str(path)], "quit\n", monkeypatch, capsys)[0] == 0
    mine = tmp_path / "also.json"
    code, out, err = _play(["--resume", str(path)], f"save {mine}\nsave {mine}\nquit\n", monkeypatch, capsys)
    assert code == 0, err
    assert out.count(f"saved the game to {mine}") == 2 and "not saved" not in out
    assert f"resume with: carcassonne play --resume {path}" in out


@pytest.mark.fault("handled")
def test_the_save_command_refuses_another_games_save_and_play_goes_on(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    before = _other_game(other)
    out = io.StringIO()
    assert not TerminalPlay(_table(), tmp_path / "g.json", _hint, io.StringIO(f"save {other}\nquit\n"), out).run()
    _kept(other, before)
    text = out.getvalue()
    assert f"not saved: {other} holds another game's save" in text
    assert f"resume with: carcassonne play --resume {tmp_path / 'g.json'}" in text


@pytest.mark.fault("handled")
def test_a_save_written_meanwhile_by_another_game_is_kept_and_the_game_saved_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    _other_game(tmp_path / "g-2.json")
    table = _table()
    play = TerminalPlay(table, path, _hint, io.StringIO("quit\n"), out := io.StringIO())
    before = _other_game(path)  # another table, started at the same time, saved first
    assert not play.run()
    _kept(path, before)
    written = tmp_path / "g-3.json"
    assert f"resume with: carcassonne play --resume {written}" in out.getvalue()
    assert PlaySession.read_document(written)[0].seed == table.game.seed


@pytest.mark.fault("clear error")
def test_a_failed_save_prints_no_resume_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    path = tmp_path / "file" / "g.json"  # its directory is a file
    code, out, err = _play(["human", "random", "--save", str(path)], "quit\n", monkeypatch, capsys)
    assert_clear_error(code, err, f"could not save the game to {path}")
    assert len(err.strip().splitlines()) == 1
    assert "resume with" not in out
    with pytest.raises(SaveFailed):
        TerminalPlay(_table(), path, _hint, io.StringIO(""), said := io.StringIO()).run()
    assert "resume with" not in said.getvalue()


@pytest.mark.fault("handled")
def test_a_users_tmp_file_beside_the_save_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.json"
    (tmp_path / "g.json.tmp").write_text("my notes")
    assert _play(["human", "random", "--save", str(path)], "quit\n", monkeypatch, capsys)[0] == 0
    _kept(tmp_path / "g.json.tmp", "my notes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "g.json.tmp"]  # no temporary file left


@pytest.mark.fault("clear error")
def test_force_without_a_table_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(["play", "random", "random", "--force"], capsys)
    assert_clear_error(code, err, "--force is for a table")


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    _table().save(path)
    return path


@pytest.mark.fault("clear error")
@pytest.mark.parametrize("out", ["@SAVED", "@HTML", "@LINK", "page.txt"])
def test_replay_refuses_an_output_that_is_its_input_or_not_html(
    out: str, saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    record = saved
    if out == "@HTML":  # the input itself named .html
        record = tmp_path / "g.html"
        saved.rename(record)
        out = str(record)
    elif out == "@LINK":  # another name of the same file
        os.link(saved, tmp_path / "same.html")
        out = str(tmp_path / "same.html")
    elif out == "@SAVED":
        out = str(saved)
    before = record.read_text()
    code, err = cli(["replay", str(record), "-o", out], capsys)
    assert_clear_error(code, err, "--out")
    assert code == 2
    _kept(record, before)


@pytest.mark.fault("handled")
def test_the_web_table_saves_beside_another_games_save(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    before = _other_game(path)
    server = PlayServer(_table(), path, _hint)
    try:
        status, state = server.handle("POST", "/api/save", b"")
    finally:
        server.httpd.server_close()
    assert status == 200 and state["saved"] == str(tmp_path / "g-2.json")
    _kept(path, before)
