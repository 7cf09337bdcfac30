"""Results that cannot be forged into the ratings (item 4 of issue 51, point 5 of issue 74): saved games
whose seed, pile or followers were changed; ``games.jsonl`` lines whose forfeit, decisions or seconds are
not what their moves reach, and lines copied to another game, refused on every read path (resume,
evaluate, a ladder store, replay); a forfeit shown as one on its replay page."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from carcassonne_env.engine import ActionKind, Game, GameConfig, GameRecord, SaveError
from carcassonne_env.viewer import RecordError, replay_html
from faults.helpers import assert_clear_error, bad, cli, copy_run, tiny
from training.arena.ladder import SHIPPED_NAME
from training.arena.match import TIMINGS, competition_ranks
from training.arena.tournament import GAMES_FILE, SETTINGS_FILE, TournamentError, find_game, load_games, run

Doc = dict[str, Any]


def _played(config: GameConfig | None = None, **pile: Any) -> Game:
    """A game 12 turns in whose players put a follower wherever they can."""
    game = Game(config or GameConfig(players=2), **(pile or {"seed": 5}))
    rng = random.Random(1)
    while game.turn < 12:
        legal = game.legal_actions()
        deploys = [a for a in legal if a.kind is ActionKind.DEPLOY]
        game.apply(deploys[0] if deploys else rng.choice(list(legal)))
    assert len(game.followers()) >= 3
    return game


def _changed_seed(d: Doc) -> None:
    d["seed"] += 1


def _reordered_pile(d: Doc) -> None:
    rest = d["pile"][d["drawn"]:]
    j = next(i for i, t in enumerate(rest) if t != rest[0])
    rest[0], rest[j] = rest[j], rest[0]
    d["pile"][d["drawn"]:] = rest


def _follower_back_to_supply(d: Doc) -> None:
    owner = d["followers"].pop(0)[3]
    d["supply"][owner] += 1


def _points_added(d: Doc) -> None:
    d["scores"][0] += 1000


@pytest.mark.fault("clear error", count=4)
@pytest.mark.parametrize(("forge", "field", "message"), [
    (_changed_seed, "pile", "not the order seed 6 gives"),
    (_reordered_pile, "pile", "not the order seed 5 gives"),
    (_follower_back_to_supply, "followers", "does not follow from the history"),
    (_points_added, "scores", "does not follow from the history"),
])
def test_a_forged_saved_game_is_refused_naming_the_field(forge: Callable[[Doc], None], field: str,
                                                         message: str) -> None:
    doc = _played().to_dict()
    Game.from_dict(json.loads(json.dumps(doc)))  # the genuine document loads
    forge(doc)
    with pytest.raises(SaveError, match=message) as e:
        Game.from_dict(doc)
    assert e.value.field == field
    assert "\n" not in str(e.value)


@pytest.mark.fault("handled")
def test_a_custom_pile_is_marked_as_such_and_still_loads() -> None:
    seeded = [t.id for t in Game(GameConfig(players=2), seed=5).pile_in_draw_order()]
    game = _played(tile_order=seeded[::-1])
    doc = game.to_dict()
    assert (doc["seed"], doc["explicit_order"]) == (None, True)
    assert Game.from_dict(doc).to_dict() == doc
    doc["seed"], doc["explicit_order"] = 5, False  # claimed as the seed's pile: it is not
    with pytest.raises(SaveError, match="not the order seed 5 gives"):
        Game.from_dict(doc)


# ------------------------------------------------------------------------------------- tournaments
HONEST = ("random", bad("First"))
ILLEGAL = ("random", bad("Illegal"))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament of random against the first-legal-action agent."""
    out = tmp_path_factory.mktemp("played")
    run(tiny(1, *HONEST), out, progress=False)
    return out


@pytest.fixture(scope="module")
def forfeited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament of random against an agent that always plays an illegal action."""
    out = tmp_path_factory.mktemp("forfeited")
    run(tiny(1, *ILLEGAL), out, progress=False)
    return out


def test_a_genuine_illegal_forfeit_carries_its_action_and_verifies(forfeited: Path) -> None:
    games = load_games(forfeited)
    assert games and all(g["forfeit"]["kind"] == "illegal" for g in games)
    assert all(g["forfeit"]["action"] == [0, 999, 999, 0] for g in games)


def _cut_short(game: Doc) -> Doc:
    """The line's game cut after its first few moves, the seat to move charged an illegal action
    that is legal there; scores, ranks and decisions made consistent."""
    record = GameRecord.from_dict(game["record"])
    short = GameRecord(record.config, record.seed, None, record.actions[:6])
    there = short.replay()
    seat = there.current_player
    game["record"] = short.to_dict()
    game["scores"] = list(there.scores)
    game["ranks"] = list(competition_ranks(there.scores, seat))
    game["decisions"] = _moves_per_seat(short)
    game["forfeit"] = {"seat": seat, "agent": game["seats"][seat], "kind": "illegal", "message": "forged",
                       "action": [int(v) for v in there.legal_actions()[0]]}
    return game


def _moves_per_seat(record: GameRecord) -> list[int]:
    """How many of ``record``'s moves each seat made: the decisions a run records."""
    game, made = record.replay(0), [0] * record.config.players
    for action in record.actions:
        made[game.current_player] += 1
        game.apply(action)
    return made


def _no_evidence(game: Doc) -> Doc:
    del game["forfeit"]["action"]
    return game


@pytest.mark.fault("clear error", count=2)
@pytest.mark.parametrize(("tournament", "agents", "forge", "message"), [
    ("played", HONEST, _cut_short, r"illegal-action forfeit of seat \d charges \[.*\], a legal action there"),
    ("forfeited", ILLEGAL, _no_evidence, r"illegal-action forfeit of seat \d records no action"),
])
def test_a_forfeit_the_engine_refutes_is_refused_naming_the_line(
    request: pytest.FixtureRequest, tmp_path: Path, tournament: str, agents: tuple[str, str],
    forge: Callable[[Doc], Doc], message: str,
) -> None:
    out = copy_run(request.getfixturevalue(tournament), tmp_path)
    lines = (out / GAMES_FILE).read_text().splitlines()
    lines[1] = json.dumps(forge(json.loads(lines[1])))
    (out / GAMES_FILE).write_text("\n".join(lines) + "\n")
    with pytest.raises(TournamentError, match=message) as e:
        load_games(out)
    assert "line 2" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(TournamentError, match="line 2"):
        run(tiny(1, *agents), out, resume=True, progress=False)


# ------------------------------------------------------------------- copies, decisions, forfeits, pages
def _games(out: Path) -> list[Doc]:
    return [json.loads(line) for line in (out / GAMES_FILE).read_text().splitlines()]


def _write(out: Path, games: list[Doc], head: str = "") -> None:
    (out / GAMES_FILE).write_text(head + "".join(json.dumps(g) + "\n" for g in games))


def _copied_to(games: list[Doc], source: int, target: int) -> None:
    """Line ``target`` replaced by a copy of line ``source`` under the target's index, group and seats:
    a line the schedule takes, holding another game."""
    games[target] = {**games[source], **{k: games[target][k] for k in ("index", "group", "seats")}}


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name != ".lock"}


@pytest.mark.fault("clear error")
def test_a_copied_line_is_refused_on_resume_naming_both_lines_and_nothing_is_rewritten(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # game 0 carries game 1's moves with game 0's seats: its seat 0 (random) takes game 1's seat 0 score
    out = copy_run(played, tmp_path)
    games = _games(out)
    _copied_to(games, source=1, target=0)
    _write(out, games)
    before = _files(out)
    code, err = cli(["tournament", *HONEST, "--seeds", "1", "--expansions", "", "--out", str(out), "--resume",
                     "--no-progress"], capsys)
    assert code == 2
    assert_clear_error(code, err, "line 2: game 1 repeats line 1", "one line is a copy")
    assert _files(out) == before, "data loss: a refused resume rewrote the tournament"


@pytest.fixture(scope="module")
def three_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin of three agents: three tables play seed 0, two games each."""
    out = tmp_path_factory.mktemp("three")
    run(tiny(1, "random", bad("First"), "greedy:fast=1"), out, progress=False)
    return out


def _at_another_table(games: list[Doc]) -> None:
    """Game 2 (random against greedy) holds the moves of game 0 (random against First)."""
    _copied_to(games, source=0, target=2)


def _seat_times_swapped(games: list[Doc]) -> None:
    """As :func:`_at_another_table`, with each seat's seconds moved to the other seat."""
    _at_another_table(games)
    for key in TIMINGS:
        games[2][key] = games[2][key][::-1]


@pytest.mark.fault("clear error", count=6)
@pytest.mark.parametrize("copy", [_at_another_table, _seat_times_swapped])
@pytest.mark.parametrize("read", ["load_games", "replay", "replay without tournament.json"])
def test_a_game_copied_under_another_index_is_refused_on_every_read_path(
    three_tables: Path, tmp_path: Path, copy: Callable[[list[Doc]], None], read: str,
) -> None:
    out = copy_run(three_tables, tmp_path)
    games = _games(out)
    copy(games)
    _write(out, games)
    with pytest.raises(TournamentError, match=r"line 3: game 2 repeats line 1: the same moves on seed 0") as e:
        if read == "load_games":
            load_games(out)
        else:
            if read == "replay without tournament.json":
                (out / SETTINGS_FILE).unlink()
            find_game(out / GAMES_FILE, 5)  # every line is checked before one is shown
    assert "\n" not in str(e.value)


@pytest.mark.fault("clear error")
def test_a_games_file_that_starts_with_a_blank_line_is_still_checked_on_replay(played: Path, tmp_path: Path) -> None:
    out = copy_run(played, tmp_path)
    games = _games(out)
    _copied_to(games, source=1, target=0)
    _write(out, games, head="\n")
    with pytest.raises(TournamentError, match="line 3: game 1 repeats line 2"):
        find_game(out / GAMES_FILE, 0)


def test_agents_that_choose_alike_play_the_same_moves_in_both_seats_and_those_games_stand(tmp_path: Path) -> None:
    # the same agent twice, one of them in its own process: the two games of a seed are one game, timed apart
    run(tiny(1, "random", "carcassonne_env.players:RandomAgent"), tmp_path, progress=False)
    games = load_games(tmp_path)
    assert games[0]["record"]["actions"] == games[1]["record"]["actions"]
    assert games[0]["ranks"] == games[1]["ranks"]  # the same seat won: one win each


def _decisions_moved(game: Doc) -> None:
    game["decisions"] = [game["decisions"][0] + 1, game["decisions"][1] - 1]  # the same total


def _longest_above_total(game: Doc) -> None:
    game["max_seconds"][0] = game["seconds"][0] + 1


@pytest.mark.fault("clear error", count=2)
@pytest.mark.parametrize(("forge", "message"), [
    (_decisions_moved, r"recorded decisions \[\d+, \d+\] differ from the moves each seat made"),
    (_longest_above_total, r"seat 0's .* s \(the longest decision .* s\) cannot be the time of its \d+ decisions"),
])
def test_decisions_and_seconds_must_be_those_of_each_seats_moves(
    played: Path, tmp_path: Path, forge: Callable[[Doc], None], message: str,
) -> None:
    out = copy_run(played, tmp_path)
    games = _games(out)
    forge(games[1])
    _write(out, games)
    with pytest.raises(TournamentError, match=f"line 2: game 1: {message}"):
        load_games(out)


def _on_the_winner(game: Doc) -> None:
    """The winner of a finished game said to have forfeited it."""
    seat = game["ranks"].index(1)
    game["forfeit"] = {"seat": seat, "agent": game["seats"][seat], "kind": "exception", "message": "forged"}
    game["ranks"] = list(competition_ranks(game["scores"], seat))


def _on_another_agent(game: Doc) -> None:
    """An illegal-action forfeit charged to the seat to move, naming the other seat's agent."""
    game["forfeit"]["agent"] = game["seats"][1 - game["forfeit"]["seat"]]


@pytest.mark.fault("clear error", count=2)
@pytest.mark.parametrize(("tournament", "forge", "message"), [
    ("played", _on_the_winner, r"records a forfeit of seat \d, but its moves reach the end of the game"),
    ("forfeited", _on_another_agent, r"the forfeit of seat \d names 'random', but that seat is '.*Illegal'"),
])
def test_a_forfeit_must_stop_an_unfinished_game_and_name_the_seat_to_move(
    request: pytest.FixtureRequest, tmp_path: Path, tournament: str, forge: Callable[[Doc], None], message: str,
) -> None:
    out = copy_run(request.getfixturevalue(tournament), tmp_path)
    games = _games(out)
    forge(games[0])
    _write(out, games)
    with pytest.raises(TournamentError, match=f"line 1: game 0: {message}"):
        load_games(out)


@pytest.mark.fault("handled")
def test_the_replay_page_of_a_forfeited_game_shows_the_forfeit_where_the_game_stopped(
    forfeited: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    page = tmp_path / "page.html"
    code, err = cli(["replay", str(forfeited / GAMES_FILE), "--game", "1", "-o", str(page)], capsys)
    assert code == 0, err
    game = _games(forfeited)[1]
    seat = game["forfeit"]["seat"]
    colour = ("Red", "Blue")[seat]
    title = page.read_text().split("<title>")[1].split("</title>")[0]
    assert title.endswith(f"; {colour} ({bad('Illegal')}) forfeited (illegal)")
    last = json.loads(page.read_text().split('id="replay-data">')[1].split("</script>")[0])["frames"][-1]
    assert last["next"].startswith(f"{colour} ({bad('Illegal')}) forfeited (illegal): chose an illegal action")
    assert last["next"].endswith(f"The game stopped here; {colour} ranks last.")


@pytest.mark.fault("clear error")
def test_a_replay_page_will_not_show_a_finished_game_as_forfeited(played: Path) -> None:
    game = _games(played)[0]
    _on_the_winner(game)
    with pytest.raises(RecordError, match=r"the record reaches the end of the game, yet seat \d is said to have"):
        replay_html(game)


@pytest.fixture
def small_ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """evaluate's ladder made cheap (random, greedy:fast=1), with its cache in ``tmp_path``; the path
    of its shipped store, not written yet."""
    from training.arena import ladder

    monkeypatch.setattr(ladder, "LADDER", ("random", "greedy:fast=1"))
    monkeypatch.setattr(ladder, "SHIPPED", tmp_path / "shipped.jsonl.gz")
    monkeypatch.setenv("CARCASSONNE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "shipped.jsonl.gz"


EVALUATE = ["evaluate", "random", "--seeds", "1", "--workers", "1", "--no-progress"]


@pytest.mark.fault("clear error", count=2)
def test_evaluate_refuses_a_copied_line_in_its_folder_and_in_a_ladder_store(
    small_ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "e"
    code, err = cli([*EVALUATE, "--out", str(out), "--store-ladder", str(small_ladder)], capsys)
    assert code == 0, err
    games = _games(out)
    _copied_to(games, source=1, target=0)
    _write(out, games)
    before = _files(out)
    code, err = cli([*EVALUATE, "--out", str(out), "--resume"], capsys)
    assert code == 2
    assert_clear_error(code, err, "line 2: game 1 repeats line 1")
    assert _files(out) == before, "data loss: a refused resume rewrote the evaluation"

    header, *lines = gzip.decompress(small_ladder.read_bytes()).decode().splitlines()
    stored = [json.loads(line) for line in lines]  # games 0 and 1, on lines 2 and 3
    _copied_to(stored, source=1, target=0)
    text = "".join(f"{line}\n" for line in [header, *map(json.dumps, stored)])
    small_ladder.write_bytes(gzip.compress(text.encode()))
    code, err = cli([*EVALUATE, "--out", str(tmp_path / "again")], capsys)
    assert code == 0, err  # the games come from the cache's store, or are played again
    assert f"the shipped store {SHIPPED_NAME} is not used: unreadable ({SHIPPED_NAME}, line 3: game 1 repeats " \
           "line 2" in err
