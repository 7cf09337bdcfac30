"""The replay viewer's page data, its inputs and its errors, and the game GIF (no browser here:
tests/test_viewer_browser.py opens the page in Chromium)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from carcassonne_env.engine import Action, ActionKind, FloorColour, Game, GameConfig
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.gif import game_frames, write_gif
from carcassonne_env.environment.observation import Encoder
from carcassonne_env.environment.render import render_rgb
from carcassonne_env.players import RandomAgent
from carcassonne_env.viewer import RecordError, load_document, load_record, replay_html, write_replay_html
from training.cli.main import main

#: A word every description of an action of that kind contains.
VERBS = {
    ActionKind.PLACE: "placed", ActionKind.DEPLOY: "put a", ActionKind.FLOOR: "floor on the tower",
    ActionKind.TOWER_TOP: "on top of the tower", ActionKind.CAPTURE: "follower", ActionKind.NO_CAPTURE: "nobody",
    ActionKind.RANSOM: "ransom", ActionKind.PASS: "passed",
}


def _random_game(seed: int, players: int = 2, expansions: tuple[str, ...] = TOWER_VARIANT) -> Game:
    game = Game(GameConfig(players=players, expansions=expansions), seed=seed)
    agents = [RandomAgent(seed=seed + s) for s in range(players)]
    while not game.is_over:
        game.apply(agents[game.current_player].choose_action(game))
    return game


@pytest.fixture(scope="module")
def game() -> Game:
    return _random_game(5)


def page_data(page: str) -> dict[str, Any]:
    """The snapshots embedded in a replay page."""
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def test_the_last_snapshot_is_the_engines_final_position(game: Game) -> None:
    data = page_data(replay_html(game))
    frames = data["frames"]
    assert len(frames) == len(game.history) + 1
    last = frames[-1]
    assert [p["score"] for p in last["players"]] == list(game.scores) == data["final_scores"]
    assert [p["supply"] for p in last["players"]] == list(game.supply)
    assert last["tiles"] == len(data["tiles"]) == len(game.tiles())
    assert [t[:2] for t in data["tiles"]] == [[t.x, t.y] for t in game.tiles()]
    assert sorted((f[2], f[3]) for f in last["followers"]) == sorted(
        (f.owner, game.tile_at(f.x, f.y).tile.segment_kinds[f.slot].name.lower()) for f in game.followers())
    towers = game.expansion_state("tower")
    assert sorted((x, y, len(floors), top) for x, y, floors, top in last["towers"]) == sorted(
        (x, y, towers.height(x, y), -1 if towers.top(x, y) is None else towers.top(x, y))
        for x, y in towers.foundations())
    assert any(top >= 0 for *_, top in last["towers"]) and any(len(f) > 1 for _, _, f, _ in last["towers"])
    assert last["next"].startswith("game over")
    assert [f["tiles"] for f in frames] == sorted(f["tiles"] for f in frames)  # tiles only ever join the board


def test_every_action_is_described_in_words(game: Game) -> None:
    frames = page_data(replay_html(game))["frames"]
    seen = set()
    for action, frame in zip(game.history, frames[1:], strict=True):
        assert frame["action"].startswith(("Red ", "Blue ")), frame["action"]
        assert VERBS[action.kind] in frame["action"], (action, frame["action"])
        assert "ActionKind" not in frame["action"] and str(action) not in frame["action"]
        seen.add(action.kind)
    assert {ActionKind.PLACE, ActionKind.DEPLOY, ActionKind.FLOOR, ActionKind.PASS} <= seen


def test_a_capture_a_ransom_and_a_tower_top_in_words() -> None:
    """E3 of the rulebook (Red completes Blue's city and captures the knight from a tower), then Blue
    pays the ransom and climbs the tower: the words, the prisoners and the turn's score changes."""
    game = (
        PositionBuilder(GameConfig(players=4, expansions=("tower",)))
        .tile("base/L", 40, 40)
        .tile("tower/F", -1, 0).tower(-1, 0, [FloorColour.NORMAL])
        .tile("base/C", 1, 0, rotation=1).follower(1, 1, 0, 0)
        .tile("base/CFc.1", 2, 0)
        .score(1, 5)
        .build(pile=["base/C", "base/L", "base/L"], current_player=0)
    )
    for action in (Action.place(3, 0, 3), Action.floor(-1, 0), Action.capture(1, 0, 0), Action.place(41, 40, 0),
                   Action.ransom(0), Action.tower_top(-1, 0)):
        game.apply(action)
    frames = page_data(replay_html(game))["frames"]
    assert [f["action"] for f in frames[1:]] == [
        "Red placed “city cap” (base/C) at (3,0), turned 270°",
        "Red built a normal floor on the tower at (-1,0) (height 2)",
        "Red captured Blue's follower on the city at (1,0)",
        "Blue placed “monastery” (base/L) at (41,40)",
        "Blue paid Red a ransom of 3 points to free a follower",
        "Blue put a follower on top of the tower at (-1,0), closing it",
    ]
    assert frames[3]["players"][0]["prisoners"] == [0, 1, 0, 0] and frames[3]["events"] == []
    assert frames[5]["events"] == [[1, -3, "ransom paid"], [0, 3, "ransom received"]]
    assert frames[5]["players"][0]["prisoners"] == [0, 0, 0, 0]
    assert frames[6]["towers"] == [[-1, 0, [0, 0], 1]] and frames[6]["events"] == frames[5]["events"]
    assert [p["score"] for p in frames[6]["players"]] == [3, 2, 0, 0]


def test_the_scoring_events_of_each_turn_add_up_to_the_score_changes(game: Game) -> None:
    frames = page_data(replay_html(game))["frames"]
    for before, after in itertools.pairwise(frames):
        earlier = before["events"] if before["turn"] == after["turn"] else []
        assert after["events"][:len(earlier)] == earlier  # the turn's list only grows
        change = [a["score"] - b["score"] for a, b in zip(after["players"], before["players"], strict=True)]
        new = [sum(pts for seat, pts, _ in after["events"][len(earlier):] if seat == p) for p in range(2)]
        assert new == change
    assert any("at the end" in words for _, _, words in frames[-1]["events"])


def test_the_page_is_self_contained(game: Game) -> None:
    page = replay_html(game, title="A <test> game")
    assert "<title>A &lt;test&gt; game</title>" in page
    assert re.findall(r"https?://[^\"' ]+", page) == ["http://www.w3.org/2000/svg"] * page.count("w3.org/2000/svg")
    assert " src=" not in page and "<link" not in page
    for symbol in {t[2] for t in page_data(page)["tiles"]}:
        assert f'<symbol id="{symbol}"' in page


def test_every_kind_of_source_gives_the_same_snapshots(game: Game, tmp_path: Path) -> None:
    line = {"index": 3, "group": 0, "seats": ["random", "greedy"], "record": game.record().to_dict()}
    expected = page_data(replay_html(game))["frames"]
    for source in (game.record(), game.record().to_dict(), game.to_dict(), line):
        assert page_data(replay_html(source))["frames"] == expected
    assert [p["agent"] for p in page_data(replay_html(line))["players"]] == ["random", "greedy"]
    games = tmp_path / "games.jsonl"
    other = {**line, "index": 4, "record": _random_game(6).record().to_dict()}
    games.write_text(json.dumps(line) + "\n" + json.dumps(other) + "\n" + json.dumps(other)[:40])  # last line cut
    assert load_record(games, game=3) == game.record()
    assert load_document(games, game=4)["index"] == 4
    saved = tmp_path / "save.json"
    saved.write_text(game.to_json())
    assert load_record(saved) == game.record()
    out = write_replay_html(load_document(games, game=3), tmp_path / "sub" / "page.html")
    assert page_data(out.read_text(encoding="utf-8"))["frames"] == expected


@pytest.mark.parametrize(("content", "game_index", "message"), [
    (None, None, "no such file"),
    ("", None, "the file is empty"),
    ("not json", None, "not JSON"),
    ("[1, 2]", None, "not a game record"),
    ('{"index": 1, "record": {}}\n{"index": 2, "record": {}}\n', None, "holds 2 games (indices 1..2): choose one"),
    ('{"index": 1, "record": {}}\n{"index": 2, "record": {}}\n', 7, "no game with index 7 (indices 1..2)"),
    ('{"index": 1, "record": {}}\nxx\n{"index": 2, "record": {}}\n', None, "line 2 is not JSON"),
    ('{"config": {"players": 2}, "actions": []}', 2, "--game chooses a game of a tournament"),
    ('{"index": 1, "record": {}}\n{"index": "abc", "record": {}}\n', None,
     "line 2: the game index must be an int, got 'abc'"),
    ('{"index": 1, "record": {}}\n{"index": null, "record": {}}\n', None,
     "line 2: the game index must be an int, got None"),
    ('{"index": 1, "record": {}}\n{"index": 1, "record": {}}\n', 1, "line 2: game 1 was already recorded on line 1"),
])
def test_bad_files_are_refused_naming_the_file(tmp_path: Path, content: str | None, game_index: int | None,
                                               message: str) -> None:
    path = tmp_path / "in.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(RecordError, match=re.escape(message)) as info:
        load_document(path, game=game_index)
    assert str(path) in str(info.value)


def test_bad_records_are_refused(game: Game) -> None:
    with pytest.raises(RecordError, match="not a game record: expected"):
        replay_html({"hello": 1})
    with pytest.raises(RecordError, match="expected a GameRecord, a Game or a dict, got int"):
        replay_html(7)  # type: ignore[arg-type]
    record = game.record().to_dict()
    record["actions"][0] = [0, 50, 50, 0]  # a placement with no neighbour
    with pytest.raises(RecordError, match=r"action 0 .* cannot be replayed: .*no orthogonal neighbour"):
        replay_html(record)
    with pytest.raises(RecordError, match="not a valid game record"):
        replay_html({"config": {"players": 9}, "actions": []})
    for bad in (None, "hello"):
        with pytest.raises(RecordError, match="'record' must be a dict"):
            replay_html({"index": 0, "record": bad})


def test_untrusted_names_and_titles_stay_text(game: Game) -> None:
    """Seat names from a game file and the title cannot inject markup or break the page: the
    embedded data holds no raw "<", the title is escaped, and a placeholder name in the title is
    not filled in again. (The script builds the player cards and events from text nodes.)"""
    line = {"index": 0, "seats": ["<img src=x onerror=alert(1)>", "</script><!--"], "record": game.record().to_dict()}
    page = replay_html(line, title="a __DATA__ <b>")
    script = page[page.index('id="replay-data"'):]
    script = script[:script.index("</script>")]
    assert "<" not in script.split(">", 1)[1]
    assert "<title>a __DATA__ &lt;b&gt;</title>" in page
    assert page_data(page)["players"][0]["agent"] == "<img src=x onerror=alert(1)>"
    assert ".innerHTML" not in page.replace('events.innerHTML = \'<li class="none">', "")


def test_replay_command_writes_the_page_and_reports_bad_input_in_one_line(
    game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.arena.match import play_match

    played = play_match(game.config, ["random", "greedy"], seed=3)  # a whole tournament line: replay checks it
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps({"index": 7, "group": 7, **played.to_dict()}) + "\n")
    out = tmp_path / "g.html"
    assert main(["replay", str(games), "--game", "7", "-o", str(out)]) == 0
    assert page_data(out.read_text(encoding="utf-8"))["final_scores"] == list(played.scores)
    capsys.readouterr()
    assert main(["replay", str(games), "--game", "8", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("carcassonne replay: error: ") and "no game with index 8" in err and err.count("\n") == 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"config": {"players": 2}, "seed": 0, "actions": [[0, 50, 50, 0]]}')
    assert main(["replay", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"error: {bad}: " in err and "cannot be replayed" in err and "Traceback" not in err


def test_the_gif_has_one_frame_per_turn_and_the_start(game: Game, tmp_path: Path) -> None:
    path = tmp_path / "g.gif"
    turns = game.turn + 1
    assert write_gif(game.record(), path, frame_ms=300, last_ms=2000) == turns + 1
    with Image.open(path) as gif:
        assert gif.n_frames == turns + 1
        sizes, durations = set(), []
        for i in range(gif.n_frames):
            gif.seek(i)
            sizes.add(gif.size)
            durations.append(gif.info["duration"])
    assert len(sizes) == 1 and durations == [300] * turns + [2000]
    frames = game_frames(game.record())
    with Image.open(path) as gif:  # the GIF holds the renderer's pictures exactly (no dithering)
        for i in (0, turns // 2, turns):
            gif.seek(i)
            assert np.array_equal(np.asarray(gif.convert("RGB")), frames[i]), f"frame {i}"
    assert not np.array_equal(frames[0], frames[-1])
    encoder = Encoder(game.config, 31)
    encoder.reset(game)  # the finished game itself: the last frame is its picture
    assert np.array_equal(frames[-1], render_rgb(game, encoder, encoder.mirror.box))


def test_play_writes_the_page_and_the_gif_of_the_same_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    html, gif = tmp_path / "p.html", tmp_path / "p.gif"
    assert main(["play", "random", "random", "--seed", "2", "--expansions", "", "--quiet", "--html", str(html),
                 "--gif", str(gif)]) == 0
    printed = re.search(r"final scores \[(.*)\]", capsys.readouterr().out)
    assert printed is not None
    data = page_data(html.read_text(encoding="utf-8"))
    assert data["final_scores"] == [int(v) for v in printed.group(1).split(",")]
    assert [p["agent"] for p in data["players"]] == ["random", "random"]
    with Image.open(gif) as image:
        assert image.n_frames == data["frames"][-1]["turn"] + 1
