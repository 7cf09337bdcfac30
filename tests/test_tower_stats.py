"""What the tower changes (training/arena/tower_stats.py): captures, exchanges, ransoms, floors by
colour, tower tops and watchtower points per agent, counted by replaying the games' records.

Players: Red = 0, Blue = 1, Green = 2, Yellow = 3. Positions are built directly (docs/rules.md §8)
with a far-away anchor monastery at (40, 40) that takes the filler tiles (tests/scenario.py).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from scenario import BLUE, FILLER, GREEN, RED, coat_of_arms_game, position, start

from carcassonne_env.engine import Action, ActionKind, FloorColour, Game, GameConfig, GameRecord
from carcassonne_env.engine.actions import PASS
from carcassonne_env.engine.black_tower import floor_supply
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements
from training.arena.tournament import GAMES_FILE, Settings, run
from training.arena.tower_stats import COUNTS, TowerCounts, tower_stats
from training.cli.main import main as carcassonne

SEATS = ["red", "blue", "green", "yellow"]


def as_line(game: Game, seats: list[str]) -> dict[str, Any]:
    """``game`` as a line of games.jsonl (the keys the counts read, and its scores)."""
    return {"index": 0, "group": 0, "seats": seats, "scores": list(game.scores), "record": game.record().to_dict()}


def tower_story() -> Game:
    """Two rounds of four players round one tower at (−1,0), height 1:

    * Red completes Blue's city (E3), builds a normal floor (h 2) and captures Blue's knight at (1,0):
      Red holds a prisoner of Blue;
    * Blue pays Red the ransom (Blue 5 → 2, Red 0 → 3) and builds a black floor (h 3), which reaches
      nobody on its diagonals;
    * Green passes; Yellow climbs the second tower, at (−5,−5);
    * Red builds a normal floor (h 4) and captures Green's monk at (−1,3): Green held one of Red's
      followers, so the two are exchanged (R47) and nobody holds a prisoner any more;
    * Blue caps the tower with a white floor (R56), the last tile: the game ends.
    """
    game = (
        position(GameConfig(players=4, expansions=with_requirements("black_tower")))
        .tile("tower/F", -1, 0).tower(-1, 0, [FloorColour.NORMAL])
        .tile("base/C", 1, 0, rotation=1).follower(BLUE, 1, 0, 0)
        .tile("base/CFc.1", 2, 0)
        .tile("base/L", -1, 3).follower(GREEN, -1, 3, 0)
        .tile("tower/F", -5, -5).tower(-5, -5, [FloorColour.NORMAL])
        .prisoners(GREEN, RED)
        .score(BLUE, 5)
        .build(pile=["base/C"] + [FILLER] * 5, current_player=RED)
    )
    for action in (
        Action.place(3, 0, 3), Action.floor(-1, 0), Action.capture(1, 0, 0),
        Action.place(41, 40, 0), Action.ransom(RED), Action.floor(-1, 0, FloorColour.BLACK),
        Action.place(42, 40, 0), PASS,
        Action.place(43, 40, 0), Action.tower_top(-5, -5),
        Action.place(44, 40, 0), Action.floor(-1, 0), Action.capture(-1, 3, 0),
        Action.place(45, 40, 0), Action.floor(-1, 0, FloorColour.WHITE),
    ):
        game.apply(action)
    assert game.is_over and game.scores == (3, 2, 0, 0)
    assert game.expansion_state("tower").prisoners == [0] * 16
    return game


#: The game of :func:`tower_story`.
STORY = "expansions (tower, black_tower), 4 players"


def test_a_capture_a_ransom_an_exchange_and_floors_of_every_colour_are_charged_to_their_seats() -> None:
    game = tower_story()
    red, blue, green, yellow = tower_stats([as_line(game, SEATS)])
    zero = dict.fromkeys(COUNTS, 0)
    assert red == TowerCounts("red", STORY, 4, 1, **{**zero, "captures": 2, "exchanges": 1, "ransoms_received": 1,
                                                "floors": 2})
    assert blue == TowerCounts("blue", STORY, 4, 1, **{**zero, "lost": 1, "ransoms_paid": 1, "floors": 2,
                                                  "black_floors": 1, "white_floors": 1})
    assert green == TowerCounts("green", STORY, 4, 1, **{**zero, "lost": 1})
    assert yellow == TowerCounts("yellow", STORY, 4, 1, **{**zero, "tower_tops": 1})
    first_turn = replace(game.record(), actions=game.record().actions[:3])  # Red's first capture alone
    red_then = tower_stats([{"seats": SEATS, "record": first_turn.to_dict()}])[RED]
    assert (red_then.captures, red_then.exchanges, red_then.floors) == (1, 0, 1)


def test_an_agent_in_several_seats_sums_them_and_means_are_per_seat_game() -> None:
    line = as_line(tower_story(), ["a", "b", "a", "c"])
    (a, b, c) = tower_stats([line, line])
    assert (a.agent, a.games, a.captures, a.lost, a.floors) == ("a", 4, 4, 2, 4)
    assert a.mean("captures") == 1.0 and a.mean("lost") == 0.5
    assert (b.games, b.ransoms_paid, b.mean("white_floors")) == (2, 2, 1.0)
    assert (c.games, c.tower_tops, c.mean("tower_tops")) == (2, 2, 1.0)


def test_a_capture_of_ones_own_follower_is_no_capture_of_an_opponent() -> None:
    """Red's floor reaches only Red's own knight: taking it sends it back to Red's supply (R43)."""
    game = start(
        position(GameConfig(players=2, expansions=("tower",)))
        .tile("tower/F", -1, 0).tower(-1, 0, [FloorColour.NORMAL])
        .tile("base/C", 1, 0, rotation=1).follower(RED, 1, 0, 0),
        RED,
    )
    for action in (Action.place(41, 40, 0), Action.floor(-1, 0), Action.capture(1, 0, 0)):
        game.apply(action)
    red = tower_stats([as_line(game, ["red", "blue"])])[RED]
    assert (red.captures, red.own_captures, red.lost, red.exchanges) == (0, 1, 0, 0)


def test_watchtower_points_are_the_bonus_not_the_feature() -> None:
    """R63 / D20 (tests/test_rules_watchtowers.py): Red's thief on the coat-of-arms watchtower's road
    completes it: 2 × 3 pennants = 6 bonus points, and 2 for the road."""
    game = coat_of_arms_game()
    game.apply(Action.place(0, -1, 2))
    game.apply(PASS)
    assert game.scores[RED] == 8
    red = tower_stats([as_line(game, SEATS)])[RED]
    assert red.watchtower_points == 6 and red.floors == red.captures == 0


def test_an_agent_is_counted_apart_in_each_game_it_played() -> None:
    """Two 4-player games of different expansions: the same agent names two rows, each naming its game."""
    watch = coat_of_arms_game()
    watch.apply(Action.place(0, -1, 2))
    watch.apply(PASS)
    rows = tower_stats([as_line(tower_story(), SEATS), as_line(watch, SEATS)])
    assert [(r.agent, r.game) for r in rows if r.agent == "red"] == [
        ("red", STORY), ("red", "expansions (watchtowers), 4 players")]
    assert all(r.games == 1 for r in rows)


# ------------------------------------------------------------------------------ a real tournament
@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``carcassonne tournament greedy greedy:fast=1 random --players 3 --seeds 1``: 3 games."""
    out = tmp_path_factory.mktemp("tower_stats") / "run"
    settings = Settings(agents=("greedy", "greedy:fast=1", "random"), seeds=1,
                        config=GameConfig(players=3, expansions=TOWER_VARIANT).to_dict())
    run(settings, out, workers=1, progress=False)
    return out


def test_the_command_agrees_with_the_moves_of_the_records(tournament: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Totals against the records' moves counted by kind, and each seat's floors against the floors
    gone from its supply at the end (dealt by R51 minus what is left)."""
    out = tmp_path / "tower.json"
    assert carcassonne(["stats", str(tournament), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    game = "tower variant (tower, black_tower, watchtowers), 3 players"
    assert printed.startswith(f"game: {game}\n") and "white floors" in printed
    rows = json.loads(out.read_text())
    assert [(r["agent"], r["game"], r["players"], r["games"]) for r in rows] == [
        ("greedy", game, 3, 3), ("greedy:fast=1", game, 3, 3), ("random", game, 3, 3)]
    total = Counter({c: sum(r[c] for r in rows) for c in COUNTS})
    moves: Counter[Any] = Counter()
    floors_by_agent: Counter[tuple[str, int]] = Counter()
    games = [json.loads(line) for line in (tournament / GAMES_FILE).read_text().splitlines()]
    for g in games:
        record = GameRecord.from_dict(g["record"])
        moves.update(a.kind if a.kind != ActionKind.FLOOR else (a.kind, a.arg) for a in record.actions)
        end = record.replay().expansion_state("tower")
        for seat, agent in enumerate(g["seats"]):
            for colour, dealt in enumerate(floor_supply(record.config)):
                floors_by_agent[agent, colour] += dealt - end.floor_supply(seat)[colour]
    assert total["captures"] + total["own_captures"] == moves[ActionKind.CAPTURE]
    assert total["lost"] == total["captures"] >= total["exchanges"] > 0
    assert total["ransoms_paid"] == total["ransoms_received"] == moves[ActionKind.RANSOM] > 0
    assert total["tower_tops"] == moves[ActionKind.TOWER_TOP]
    assert total["floors"] == sum(n for k, n in moves.items() if isinstance(k, tuple))
    assert total["black_floors"] == moves[ActionKind.FLOOR, FloorColour.BLACK] > 0
    assert total["white_floors"] == moves[ActionKind.FLOOR, FloorColour.WHITE] > 0
    for r in rows:
        assert r["floors"] == sum(floors_by_agent[r["agent"], c] for c in range(3))
        assert (r["black_floors"], r["white_floors"]) == (floors_by_agent[r["agent"], 1],
                                                          floors_by_agent[r["agent"], 2])
        assert r["per_game"]["floors"] == round(r["floors"] / 3, 4)


def bad_run(tournament: Path, tmp_path: Path) -> Path:
    """A copy of the tournament whose second game line is cut in half."""
    copy = tmp_path / "damaged"
    shutil.copytree(tournament, copy)
    lines = (copy / GAMES_FILE).read_text().splitlines(keepends=True)
    lines[1] = lines[1][: len(lines[1]) // 2] + "\n"
    (copy / GAMES_FILE).write_text("".join(lines))
    return copy


@pytest.mark.parametrize(("make", "message"), [
    (lambda t, tmp: tmp / "nowhere", "nowhere: no such directory"),
    (lambda t, tmp: tmp, f"no {GAMES_FILE}"),
    (bad_run, "line 2"),
])
def test_bad_input_is_one_line_and_exit_2(make: Any, message: str, tournament: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert carcassonne(["stats", str(tournament), str(make(tournament, tmp_path))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("carcassonne stats: error: ") and message in err and err.count("\n") == 1
