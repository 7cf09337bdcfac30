"""A human at the terminal (carcassonne_env.play.terminal, ``carcassonne play human ...``), driven
through stdin: a scripted game to the end, bad input asked again, undo, hint, save and resume, the
legal placements wrapped to the terminal's width between spots."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from human_positions import position

from agents import make_agent
from agents.isolation import seat_agent
from carcassonne_env.engine import ActionKind, Game, GameConfig, Phase
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.play import PlayError, PlaySession, option_label, parse_placement, placement_code
from carcassonne_env.play.terminal import TableInterrupted, TerminalPlay
from carcassonne_env.viewer import to_replayable
from training.cli.main import main

#: A short pile: the game ends after these tiles.
SHORT = ("base/RFr", "tower/C", "base/CFc+", "base/RRRR", "tower/F", "base/Rr", "base/L", "base/CcRr")


def _session(expansions: tuple[str, ...] = TOWER_VARIANT) -> PlaySession:
    game = Game(GameConfig(players=2, expansions=expansions), tile_order=SHORT)
    return PlaySession(game, ["human", "random"], [None, make_agent("random", seed=5)])


def _script() -> tuple[list[str], tuple[int, ...], int]:
    """The answers of a human who takes the first legal choice every time, on a twin table, with
    bad answers, a hint and an undo mixed in; the final scores and how many decisions it took."""
    twin = _session()
    lines = ["", "zz", "99,99 r0", "help"]
    undone = False
    decisions = 0
    while not twin.game.is_over:
        twin.run_agents()
        if twin.game.is_over:
            break
        legal = twin.game.legal_actions()
        action = legal[0]
        if len(legal) == 1:  # a single choice: the table plays it itself (auto_single), unasked
            pass
        elif twin.game.phase is Phase.PLACE:
            code = placement_code(action)
            lines.append(code)
        else:
            lines += ["0", "x", "hint"]
            if not undone:  # take the placement back and make it again
                undone = True
                lines += ["undo", "undo", code]
            lines.append("1")
        twin.play(action)
        decisions += 1
    return lines, twin.game.scores, decisions


def test_a_scripted_human_plays_to_the_end_against_random(tmp_path: Path) -> None:
    lines, scores, decisions = _script()
    out = io.StringIO()
    session = _session()
    finished = TerminalPlay(session, tmp_path / "game.json", lambda spec: make_agent(spec, seed=0),
                            io.StringIO("\n".join(lines) + "\n"), out).run()
    text = out.getvalue()
    assert finished and session.game.is_over
    assert session.game.scores == scores
    assert "'zz' is not a placement" in text
    assert "the tile cannot go at (99,99)" in text
    assert "0 is not between 1 and" in text
    assert "'x' is not a number" in text
    assert "hint (greedy):" in text
    assert "undone: place “" in text
    assert "nothing to undo" in text  # the second undo: the turn is back at its start
    assert "game over: final scores Red " in text and "scores P0" not in text and "supply P0" not in text
    assert f"replay it with: carcassonne replay {tmp_path / 'game.json'} -o game.html" in text
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["finished"] and saved["scores"] == list(scores)
    assert to_replayable(saved).record.replay().scores == scores  # carcassonne replay opens it
    human = sum(1 for a, seat in zip(saved["record"]["actions"], _seats(saved), strict=True) if seat == 0)
    assert human == decisions


def _seats(saved: dict[str, object]) -> list[int]:
    game = to_replayable(saved).record.replay(0)
    seats = []
    for action in to_replayable(saved).record.actions:
        seats.append(game.current_player)
        game.apply(action)
    return seats


def test_the_legal_placements_wrap_between_spots_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game, agent = Game(GameConfig(players=2), seed=4), make_agent("random", seed=1)
    while game.turn < 25 or game.phase is not Phase.PLACE:  # a board with some twenty spots, x and y negative too
        game.apply(agent.choose_action(game))
    legal = game.legal_actions()
    spots = {(a.x, a.y) for a in legal}
    item = re.compile(r"(-?\d+),(-?\d+): r\d(?:[= ]r\d)*")
    for width in range(40, 121):
        monkeypatch.setenv("COLUMNS", str(width))  # shutil.get_terminal_size reads it first
        out = io.StringIO()
        TerminalPlay(PlaySession(game.clone(), ["human", "human"], [None, None]), tmp_path / f"{width}.json",
                     lambda spec: make_agent(spec, seed=0), io.StringIO("quit\n"), out).run()
        text = out.getvalue()
        listed = text[text.index("legal placements"):text.index("placement (e.g.")].splitlines()
        head = next(k for k, line in enumerate(listed) if line.endswith("):"))
        lines = listed[head + 1:]
        assert all(len(line) <= width for line in listed), width
        assert all(line.startswith("  ") and line.endswith(";") for line in lines[:-1]) and not lines[-1].endswith(";")
        items = [i for line in lines for i in line.strip().rstrip(";").split("; ")]
        assert all(item.fullmatch(i) for i in items), (width, items)  # whole items: no coordinate split
        found = [m for i in items if (m := item.fullmatch(i))]
        assert sorted((int(m[1]), int(m[2])) for m in found) == sorted(spots)
        assert len(lines) > 1  # the list is longer than any width tried


def test_placement_codes_come_from_the_legal_list() -> None:
    game = Game(GameConfig(players=2, expansions=()), tile_order=SHORT[:1])
    legal = game.legal_actions()
    for action in legal:
        assert parse_placement(placement_code(action), legal) == action
        assert parse_placement(f" ({action.x} {action.y}) {action.arg} ", legal) == action
    with pytest.raises(PlayError, match="fits in rotations"):
        parse_placement(f"{legal[0].x},{legal[0].y}", legal)  # the straight road fits two ways
    with pytest.raises(PlayError, match="does not fit in rotation r1"):
        parse_placement("1,0 r1", legal)


def test_ctrl_c_and_end_of_input_save_the_game(tmp_path: Path) -> None:
    class Interrupt(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    out = io.StringIO()
    with pytest.raises(TableInterrupted):  # carcassonne play exits 130, the line below already said
        TerminalPlay(_session(), tmp_path / "a.json", make_hint, Interrupt(), out).run()
    assert f"interrupted — resume with: carcassonne play --resume {tmp_path / 'a.json'}" in out.getvalue()
    assert (tmp_path / "a.json").exists()
    assert not TerminalPlay(_session(), tmp_path / "b.json", make_hint, io.StringIO(""), io.StringIO()).run()
    assert json.loads((tmp_path / "b.json").read_text())["seats"] == ["human", "random"]


def make_hint(spec: str) -> object:
    return make_agent(spec, seed=0)


def test_save_quit_and_resume_through_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "saved.json"

    def play(stdin: str, *argv: str) -> int:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        return main(["play", *argv])

    assert play("quit\n", "human", "greedy:fast=1", "--expansions", "tower", "--seed", "3", "--save", str(path)) == 0
    game, seats = PlaySession.read_document(path)
    assert seats == ("human", "greedy:fast=1") and game.history == ()
    code = placement_code(game.legal_actions()[0])
    assert play(f"{code}\nsave\nquit\n", "--resume", str(path)) == 0
    game, _ = PlaySession.read_document(path)
    assert len(game.history) == 1 and game.phase is Phase.ACTION  # saved in the middle of the turn
    assert play("undo\nquit\n", "--resume", str(path)) == 0  # the resumed turn can still be undone
    game, _ = PlaySession.read_document(path)
    assert game.history == () and game.phase is Phase.PLACE
    assert main(["replay", str(path), "-o", str(tmp_path / "page.html")]) == 0
    out = capsys.readouterr().out
    assert "undone: place “" in out and "resume with: carcassonne play --resume" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "human"], "give 2 to 6 seats"),
    (["play", "--resume", "no/such/file.json"], "no such file"),
    (["play", "human", "nosuchagent"], "unknown agent"),
])
def test_bad_play_arguments_are_one_line_errors(argv: list[str], message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


class Boom:
    """An agent that raises."""

    def choose_action(self, game: Game) -> object:
        raise RuntimeError("boom")


def test_a_failing_agent_keeps_the_humans_moves_and_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "boom.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "human", "random", "--seed", "4", "--save", str(path)]) == 0
    game, _ = PlaySession.read_document(path)
    code = placement_code(game.legal_actions()[0])
    real = seat_agent
    monkeypatch.setattr("training.cli.play_human.seat_agent",
                        lambda spec, **kw: Boom() if spec == "random" else real(spec, **kw))
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{code}\n" + "1\n" * 5))
    capsys.readouterr()
    assert main(["play", "--resume", str(path)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.strip() == ("carcassonne play: error: agent 'random' (seat 1, Blue) failed: "
                                    "RuntimeError: boom")
    assert "saved the game to" in captured.out
    game, _ = PlaySession.read_document(path)
    assert len(game.history) >= 2 and game.current_player == 1  # the human's whole turn was kept


def test_a_model_made_for_another_game_is_refused_before_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def seat_agent(spec: str, *, seed: int, config: GameConfig, origin: object) -> object:
        raise ValueError(f"{spec}: the model was made for a game of 3 players, not for this game")

    monkeypatch.setattr("training.cli.play_human.seat_agent", seat_agent)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    path = tmp_path / "never.json"
    assert main(["play", "human", "greedy", "--save", str(path)]) == 2
    err = capsys.readouterr().err
    assert "greedy: the model was made for a game of 3 players" in err and "Traceback" not in err
    assert not path.exists()


@pytest.mark.parametrize("kind", [ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.CAPTURE, ActionKind.RANSOM])
def test_a_human_chooses_a_tower_option_at_the_terminal(kind: ActionKind, tmp_path: Path) -> None:
    game = position(kind)
    before = len(game.history)
    legal = game.legal_actions()
    number = next(i for i, a in enumerate(legal, 1) if a.kind == kind)
    session = PlaySession(game, ["human", "human"], [None, None])
    label = option_label(game, legal[number - 1])
    out = io.StringIO()
    assert not TerminalPlay(session, tmp_path / "t.json", make_hint, io.StringIO(f"{number}\nquit\n"), out).run()
    text = out.getvalue()
    assert f"  {number}. {label}" in text
    question = re.findall(r"turn \d+: ([^\n]*\?)\n", text)[0]
    assert question == {ActionKind.CAPTURE: "capture a follower?"}.get(kind, question)
    if kind in (ActionKind.FLOOR, ActionKind.TOWER_TOP):
        assert "tower" in question
    if kind is ActionKind.RANSOM:
        assert question.endswith("ransom or pass?")
    saved, _ = PlaySession.read_document(tmp_path / "t.json")
    assert saved.history[before] == legal[number - 1]


def test_two_human_seats_with_a_rules_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    flag = "tower_range_manhattan"
    path = tmp_path / "two.json"
    game = Game(GameConfig.from_dict({**GameConfig(players=2, expansions=TOWER_VARIANT).to_dict(), flag: True}), seed=2)
    lines = []
    for _ in range(3):  # both humans place and pass
        action = game.legal_actions()[0]
        lines.append(placement_code(action) if game.phase is Phase.PLACE else "1")
        game.apply(action)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\nquit\n"))
    assert main(["play", "human", "human", "--expansions", ",".join(TOWER_VARIANT), "--rules", flag, "--seed", "2",
                 "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Red (human), Blue (human)" in out
    saved, seats = PlaySession.read_document(path)
    assert seats == ("human", "human") and saved.history == game.history
    assert saved.config.to_dict()[flag] is True


def test_html_and_gif_are_written_at_the_end_of_a_human_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    session = _session()
    agent = make_agent("random", seed=1)
    while not session.game.is_over:  # the human's moves played by an agent: a finished table's save
        if session.waiting_for_human:
            session.play(agent.choose_action(session.game.clone()))
        else:
            session.run_agents()
    session.save(tmp_path / "done.json")
    html, gif = tmp_path / "g.html", tmp_path / "g.gif"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--resume", str(tmp_path / "done.json"), "--html", str(html), "--gif", str(gif)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {html}" in out and f"wrote {gif}" in out
    assert html.read_text().startswith("<!DOCTYPE html>") and gif.read_bytes()[:3] == b"GIF"
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "human", "random", "--save", str(tmp_path / "q.json"), "--html", str(html)]) == 0
    assert "--html not written: the game is not over" in capsys.readouterr().out
