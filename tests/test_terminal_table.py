"""The terminal table's board and answers (carcassonne_env.play.terminal, .text_table): coordinates
framing the engine's text board, the legal spots marked, the seats named, a rotation optional where
the rotations that fit make the same placement, single-choice decisions played automatically."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from agents import make_agent
from carcassonne_env.engine import Action, ActionKind, Game, GameConfig, Phase
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.engine.tiles import load_catalogue
from carcassonne_env.play import PlaySession, option_label, placement_code
from carcassonne_env.play.session import Chooser
from carcassonne_env.play.terminal import TerminalPlay, rotation_groups
from carcassonne_env.play.text_table import SPOT, board_lines

NAMES = ["Red (you)", "Blue (random)"]


def _hint(spec: str) -> Chooser:
    return make_agent(spec, seed=0)


def _played(seed: int, decisions: int, expansions: tuple[str, ...] = TOWER_VARIANT) -> Game:
    game = Game(GameConfig(players=2, expansions=expansions), seed=seed)
    agent = make_agent("random", seed=seed)
    for _ in range(decisions):
        game.apply(agent.choose_action(game.clone()))
    while game.phase is not Phase.PLACE:
        game.apply(agent.choose_action(game.clone()))
    return game


def _located(board: list[str]) -> tuple[dict[int, int], dict[int, int]]:
    """Where the framed ``board`` (axis line, grid, axis line) says each x and y is, from its labels
    alone: x -> the first column of its block (under its label), y -> the line of its block's middle
    (the line whose label, left and right, is y). Checks that the labels run one by one."""
    first = board[2].split()[0]
    width = board[2].index(first) + len(first)  # the y labels are right-aligned to this width
    ys = {int(board[i][:width]): i for i in range(2, len(board) - 1, 3)}
    for i in ys.values():
        assert board[i].split()[-1] == board[i][:width].strip()
    header = board[0]
    xs = {int(header[c:c + 3]): c for c in range(width + 1, len(header), 3)}
    assert list(xs) == list(range(min(xs), max(xs) + 1)) and list(ys) == list(range(max(ys), min(ys) - 1, -1))
    assert board[-1] == header
    return xs, ys


def _cell(board: list[str], x: int, y: int) -> list[str]:
    """The 3×3 block the labels of ``board`` put at (x,y)."""
    xs, ys = _located(board)
    return [board[r].ljust(xs[x] + 3)[xs[x]:xs[x] + 3] for r in (ys[y] - 1, ys[y], ys[y] + 1)]


def _engine_block(game: Game, x: int, y: int) -> list[str]:
    tiles = game.tiles()
    x0, y1 = min(t.x for t in tiles), max(t.y for t in tiles)
    grid = game.render_text().splitlines()
    return [grid[3 * (y1 - y) + r][3 * (x - x0):3 * (x - x0) + 3].ljust(3) for r in range(3)]


@pytest.mark.parametrize(("seed", "decisions"), [(1, 0), (3, 40), (7, 90)])
def test_the_board_is_framed_by_the_coordinates_of_its_tiles_and_marks_the_legal_spots(seed: int,
                                                                                      decisions: int) -> None:
    game = _played(seed, decisions)
    spots = {(a.x, a.y) for a in game.legal_actions()}
    lines = board_lines(game, NAMES, spots)
    board = lines[:lines.index(lines[0], 1) + 1]  # the x axis above and below
    for t in game.tiles():  # every tile's block is the engine's, where its labels say (y grows northward)
        assert _cell(board, t.x, t.y) == _engine_block(game, t.x, t.y), (t.x, t.y)
    for x, y in spots:
        assert _cell(board, x, y) == ["   ", f" {SPOT} ", "   "]
    assert sum(line.count(SPOT) for line in board[1:-1]) == len(spots)
    legend = lines[len(board)]
    assert legend == f"north up; a digit is a follower of seat 0 Red (you), 1 Blue (random); {SPOT} where the tile fits"
    assert not any(re.search(r"\bP\d", line) for line in lines)  # floors, prisoners, tower tops by colour
    assert any(line.startswith("floors Red=") for line in lines)
    assert SPOT not in "\n".join(board_lines(game, NAMES))


def test_a_placement_typed_by_the_labels_lands_where_the_labels_say(tmp_path: Path) -> None:
    game = Game(GameConfig(players=2, expansions=()), tile_order=("base/L", "base/L"))
    session = PlaySession(game, ["human", "human"], [None, None])
    out = io.StringIO()
    TerminalPlay(session, tmp_path / "g.json", _hint, io.StringIO("0,-1\nboard\nquit\n"), out).run()
    text = out.getvalue()
    assert "0,-1: r0=r1=r2=r3" in text  # a monastery turns to the same tile every way
    board = text.split("command> ")[2].split("\nnorth up")[0].splitlines()  # the board command's
    assert _cell(board, 0, -1)[1] == ".M." and _cell(board, 0, 0)[1] == "R R"


def test_status_and_prompts_name_the_seats_not_p0(tmp_path: Path) -> None:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=4)
    session = PlaySession(game, ["human", "greedy"], [None, make_agent("greedy", seed=1)])
    out = io.StringIO()
    TerminalPlay(session, tmp_path / "g.json", _hint, io.StringIO("quit\n"), out).run()
    text = out.getvalue()
    assert "seats: Red (you), Blue (greedy)" in text
    assert "Red (you) 0 pts, 7 followers; Blue (greedy) 0 pts, 7 followers;" in text
    assert "Red (you), turn 1: place “" in text
    assert not re.search(r"\bP\d", text)


ROTATIONS = {"base/RRRR": [(0, 1, 2, 3)], "base/L": [(0, 1, 2, 3)], "base/Cccc+": [(0, 1, 2, 3)],
             "base/RFr": [(0, 2), (1, 3)], "base/CFc+": [(0, 2), (1, 3)], "base/CFC.2": [(0, 2), (1, 3)],
             "tower/CRcr": [(0, 2), (1, 3)], "base/Rr": [(0,), (1,), (2,), (3,)],
             "base/CcRr": [(0,), (1,), (2,), (3,)], "watchtowers/FRFR-monastery": [(0, 2), (1, 3)]}


@pytest.mark.parametrize(("tile", "groups"), ROTATIONS.items())
def test_rotations_are_grouped_by_the_tile_they_make(tile: str, groups: list[tuple[int, ...]]) -> None:
    assert rotation_groups(load_catalogue()[tile], range(4)) == groups


def test_alike_rotations_make_the_same_position_and_others_do_not() -> None:
    """Over the whole catalogue, next to the start tile: two rotations of one group give the same
    board and the same next choices; rotations of different groups differ in one or the other."""
    alike = 0
    for tile in load_catalogue().types:
        game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), tile_order=(tile.id,))
        if game.current_tile is not tile:
            continue
        by_spot: dict[tuple[int, int], list[int]] = {}
        for a in game.legal_actions():
            by_spot.setdefault((a.x, a.y), []).append(a.arg)
        for (x, y), rotations in by_spot.items():
            seen = {}
            for group in rotation_groups(tile, rotations):
                outcomes = set()
                for r in group:
                    after = game.clone()
                    after.apply(next(a for a in game.legal_actions() if (a.x, a.y, a.arg) == (x, y, r)))
                    outcomes.add((after.render_text(), tuple(sorted(option_label(after, a)
                                                                    for a in after.legal_actions()))))
                assert len(outcomes) == 1, (tile.id, x, y, group)
                seen[group] = outcomes.pop()
            assert len(set(seen.values())) == len(seen), (tile.id, x, y)
            alike += sum(len(group) - 1 for group in seen)
    assert alike >= 20  # the symmetric tiles were among those checked


def test_a_spot_alone_is_enough_where_the_rotations_are_alike(tmp_path: Path) -> None:
    game = Game(GameConfig(players=2, expansions=()), tile_order=("base/RFr", "base/Rr", "base/Rr"))
    session = PlaySession(game, ["human", "human"], [None, None])
    out = io.StringIO()
    TerminalPlay(session, tmp_path / "g.json", _hint, io.StringIO("1,0\nquit\n"), out).run()
    assert "1,0: r0=r2" in out.getvalue()
    assert session.game.history[0].arg == 0 and (session.game.history[0].x, session.game.history[0].y) == (1, 0)
    assert "fits in rotations" not in out.getvalue()
    game = Game(GameConfig(players=2, expansions=()), tile_order=("base/Rr", "base/Rr"))
    session = PlaySession(game, ["human", "human"], [None, None])
    out = io.StringIO()
    TerminalPlay(session, tmp_path / "h.json", _hint, io.StringIO("1,0\n1,0 r1\nquit\n"), out).run()
    assert "at (1,0) the tile fits in rotations r" in out.getvalue()  # the rotations differ: asked again
    assert session.game.history[0].arg == 1


def _out_of_followers() -> PlaySession:
    """A base game where the human (Red) deploys whenever possible, at a PLACE decision of Red's
    with no follower left: after the placement, passing is the only choice."""
    game = Game(GameConfig(players=2, expansions=()), seed=0)
    session = PlaySession(game, ["human", "random"], [None, make_agent("random", seed=5)])
    while True:
        session.run_agents()
        game = session.game
        if game.phase is Phase.PLACE and game.supply[0] == 0:
            return session
        legal = game.legal_actions()
        session.play(next((a for a in legal if a.kind == ActionKind.DEPLOY), legal[0]))


@pytest.mark.parametrize("auto", [True, False])
def test_a_single_choice_is_played_for_the_human_unless_asked_not_to(auto: bool, tmp_path: Path) -> None:
    session = _out_of_followers()
    game = session.game
    turn, before, place = game.turn, len(game.history), game.legal_actions()[0]
    out = io.StringIO()
    TerminalPlay(session, tmp_path / "g.json", _hint, io.StringIO(f"{placement_code(place)}\nquit\n"), out,
                 auto_single=auto).run()
    text = out.getvalue()
    said = re.findall(rf"Red \(you\), turn {turn + 1}: pass.* — the only choice, played for you\n", text)
    if auto:
        assert len(said) == 1 and "choice 1-1" not in text
        assert session.game.history[before:before + 2] == (place, Action(ActionKind.PASS))
    else:
        assert not said and re.search(r"  1\. pass.*\nchoice 1-1 or command>", text)
        assert session.game.history[before:] == (place,)
