"""``carcassonne evaluate SPEC --players N``: the ladder of each player count and its stored games
(training/arena/ladder.py, training/cli/main.py)."""

import csv
import gzip
import hashlib
import json
import shutil
from collections.abc import Generator
from importlib import metadata
from pathlib import Path
from typing import Any

import legal_agents
import pytest
from game_lines import without_timings

from agents.shipped_values import PRETRAINED_DIR
from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena import ladder, tournament
from training.arena.tournament import Settings
from training.cli import main as cli
from training.cli.main import main


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Two instant agents (the first and the last legal action), an empty cache in ``tmp_path`` and no
    shipped store."""
    monkeypatch.setattr(ladder, "SHIPPED", tmp_path / "shipped.jsonl.gz")
    monkeypatch.setenv("CARCASSONNE_CACHE", str(tmp_path / "cache"))
    return legal_agents.spec("FirstLegal"), legal_agents.spec("LastLegal")


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of games each tournament run plays (the stored games it was given are not played)."""
    counts: list[int] = []
    play = tournament.play_fixtures

    def counting(config: GameConfig, fixtures: Any, *args: Any, **kwargs: Any) -> Generator[Any, None, None]:
        counts.append(len(fixtures))
        yield from play(config, fixtures, *args, **kwargs)

    monkeypatch.setattr(tournament, "play_fixtures", counting)
    return counts


def _games(out: Path) -> list[dict[str, Any]]:
    return sorted((json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()),
                  key=lambda g: int(g["index"]))


def _header(store: Path) -> dict[str, Any]:
    with gzip.open(store, "rt", encoding="utf-8") as f:
        header: dict[str, Any] = json.loads(f.readline())
    return header


COMMON = ["--seeds", "1", "--workers", "1", "--no-progress"]


# ------------------------------------------------------------------------------ the ladder of each count
def test_the_two_player_ladder_ends_with_the_shipped_network_whose_file_and_torch_its_fingerprint_covers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ladder.ladder_for(2) == (("random", "greedy", "mcts:sims=200", "az:pretrained,guide_tree=0"), [])
    mine = ladder.fingerprint_for(2)
    assert mine.torch == metadata.version("torch") and (mine.python, mine.numpy) == (
        ladder.fingerprint().python, ladder.fingerprint().numpy)
    assert mine.code != ladder.fingerprint().code  # the network's bytes are in it
    other = tmp_path / "az.pt"
    other.write_bytes(ladder.SHIPPED_AZ.read_bytes() + b"\0")
    monkeypatch.setattr(ladder, "SHIPPED_AZ", other)
    assert ladder.fingerprint_for(2).code != mine.code
    # a store written without a network agent (no torch in its header) is another code's, said in words
    assert mine.differs(ladder.Fingerprint(mine.code, mine.python, mine.numpy)) == \
        f"torch none (this is {mine.torch})"


def test_a_fingerprint_without_torch_keeps_its_key() -> None:
    # the multiplayer ladders have no network agent: their cached stores keep their names
    assert ladder.Fingerprint("c", "3.11", "2.0").key == hashlib.sha256(b"c 3.11 2.0").hexdigest()[:16]
    assert ladder.Fingerprint("c", "3.11", "2.0", "2.13.0").key != ladder.Fingerprint("c", "3.11", "2.0").key


def test_five_and_six_players_seat_every_shipped_agent_then_fill_in_reserves() -> None:
    # the shipped linear value and afterstate network have a file for every count from 2 to 6: the
    # 5-player ladder is the four members and the first reserve, the 6-player one the first two reserves
    assert ladder.ladder_for(5) == (("random", "greedy", "greedy:value=linear", "afterstate:pretrained",
                                     "greedy:fast=1"), [])
    assert ladder.ladder_for(6)[0] == ("random", "greedy", "greedy:value=linear", "afterstate:pretrained",
                                       "greedy:fast=1", "mcts:sims=50")


def test_a_member_without_a_model_for_the_count_is_left_out_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    # mcts:pretrained searches on the long run's value, made for 2 players only
    monkeypatch.setattr(ladder, "MULTIPLAYER_LADDER", ("random", "mcts:pretrained", "greedy"))
    members, notes = ladder.ladder_for(5)
    assert members == ("random", "greedy", "greedy:fast=1", "mcts:sims=50", "mcts:sims=100")
    assert notes[0].startswith("the 5-player ladder leaves out mcts:pretrained: ") and "not 5" in notes[0]
    assert notes[1] == "the 5-player ladder: random, greedy, greedy:fast=1, mcts:sims=50, mcts:sims=100"


def test_the_fingerprint_of_three_players_covers_the_shipped_values_of_three(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder, "PRETRAINED_DIR", tmp_path)
    base = ladder.fingerprint()
    assert ladder.fingerprint_for(3) == base  # no 3-player file there
    (tmp_path / "value_linear_3p.json").write_text('{"weights": [1]}')
    first = ladder.fingerprint_for(3)
    (tmp_path / "value_linear_3p.json").write_text('{"weights": [2]}')
    second = ladder.fingerprint_for(3)
    assert len({base.code, first.code, second.code}) == 3 and first.python == base.python
    assert ladder.fingerprint_for(4) == base  # another count's files do not count


# ------------------------------------------------------------------------------ settings and errors
def test_the_settings_of_each_player_count(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[Settings] = []

    def capture(args: Any, settings: Settings, *rest: Any, **kwargs: Any) -> None:
        runs.append(settings)
        raise SystemExit(0)

    monkeypatch.setattr(cli, "_tournament", capture)
    for argv in (["greedy:fast=1"], ["greedy:fast=1", "--players", "3"], ["greedy:fast=1", "--players", "3",
                                                                          "--seeds", "100"]):
        with pytest.raises(SystemExit):
            main(["evaluate", *argv])
    two, three, three_given = runs
    # 2 players: what evaluate always played, fixture by fixture
    assert two == Settings(agents=("greedy:fast=1", "random", "greedy", "mcts:sims=200",
                                   "az:pretrained,guide_tree=0"), seeds=100,
                           config=GameConfig(players=2, expansions=TOWER_VARIANT).to_dict())
    assert len(two.fixtures()) == 10 * 2 * 100  # 10 pairings, both seats, 100 seeds
    assert three.game_config == GameConfig(players=3, expansions=TOWER_VARIANT)
    assert (three.seeds, three_given.seeds) == (ladder.DEFAULT_SEEDS[3], 100)
    assert three.agents == ("greedy:fast=1", *ladder.ladder_for(3)[0])


@pytest.mark.parametrize("argv", [
    ["random", "--players", "7"],
    [f"afterstate:{PRETRAINED_DIR / 'afterstate_tower_2p.npz'}", "--players", "3"],
    ["ppo:pretrained", "--players", "3"],
    ["az:pretrained", "--players", "3"],  # a policy-value network made for 2 players: refused, not forfeited
])
def test_what_cannot_be_evaluated_is_refused_in_one_line(argv: list[str], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] == "ppo:pretrained":
        pytest.importorskip("stable_baselines3")
    if argv[0] == "az:pretrained":
        pytest.importorskip("torch")
    try:
        code = main(["evaluate", *argv, "--out", str(tmp_path / "out")])
    except SystemExit as e:  # argparse
        code = e.code if isinstance(e.code, int) else 1
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("carcassonne evaluate: error: ")
    assert ("invalid choice: 7" in last) if argv[0] == "random" else (
        "made for the game [tower variant (tower, black_tower, watchtowers), 2 players]" in last
        and "not for this game [tower variant (tower, black_tower, watchtowers), 3 players]" in last)
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------ 3 and 4 players, stored games
@pytest.mark.slow
def test_a_three_player_evaluation_takes_the_ladders_games_from_the_cache(
        agents: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, played: list[int],
        capsys: pytest.CaptureFixture[str]) -> None:
    first, last = agents
    monkeypatch.setattr(ladder, "MULTIPLAYER_LADDER", ("random", "greedy:fast=1"))
    monkeypatch.setattr(ladder, "RESERVES", (last,))  # the third agent a 3-player ladder needs
    # a ladder agent as candidate: the ladder's one table of 3 (in the ladder's order: its 3 seat
    # rotations are those of the ladder's own games), stored in the cache
    assert main(["evaluate", "greedy:fast=1", "--players", "3", "--out", str(tmp_path / "ladder"), *COMMON]) == 0
    assert played == [3] and "stored the ladder's games in" in capsys.readouterr().err
    assert len(list((tmp_path / "cache").glob("ladder-3p-*-1.jsonl.gz"))) == 1
    # another candidate: 4 agents make 4 tables of 3; the ladder's table comes from the cache
    assert main(["evaluate", first, "--players", "3", "--out", str(tmp_path / "cached"), *COMMON]) == 0
    assert played == [3, 9] and "3 of 3 from the store" in capsys.readouterr().err
    assert main(["tournament", first, "random", "greedy:fast=1", last, "--players", "3", "--anchor", "random",
                 "--out", str(tmp_path / "full"), *COMMON]) == 0
    cached, full = _games(tmp_path / "cached"), _games(tmp_path / "full")
    assert len(cached) == 12 and without_timings(cached) == without_timings(full)
    assert (tmp_path / "cached" / "ratings.csv").read_text() == (tmp_path / "full" / "ratings.csv").read_text()
    # the stored games sit at the full round robin's indices: the Weng–Lin ratings, which rate the games
    # in index order, are the full round robin's too
    weng_lin = [json.loads((tmp_path / d / "summary.json").read_text())["weng_lin"] for d in ("cached", "full")]
    assert weng_lin[0] == weng_lin[1] and len(weng_lin[0]["ratings"]) == 4
    with (tmp_path / "cached" / "ratings.csv").open() as f:
        ratings = {row["agent"]: float(row["elo"]) for row in csv.DictReader(f)}
    assert set(ratings) == {first, "random", "greedy:fast=1", last} and ratings["random"] == 0.0


@pytest.mark.slow


def test_a_three_player_store_is_never_read_for_four_players(
        agents: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, played: list[int],
        capsys: pytest.CaptureFixture[str]) -> None:
    # the same 4 agents are the ladder of 3 and of 4 players: only the player count differs
    monkeypatch.setattr(ladder, "MULTIPLAYER_LADDER", ("random", "greedy:fast=1", *agents))
    assert main(["evaluate", "random", "--players", "3", "--out", str(tmp_path / "three"), *COMMON]) == 0
    assert played == [12]  # 4 tables of 3, 3 rotations each
    three = tmp_path / "cache" / f"ladder-3p-{ladder.fingerprint_for(3).key}-1.jsonl.gz"
    four = tmp_path / "cache" / f"ladder-4p-{ladder.fingerprint_for(4).key}-1.jsonl.gz"
    # even under the 4-player name, and were it played by the same code (the 3-player fingerprint also
    # covers the shipped values of 3 players), the 3-player store is refused: its games are another game's
    shutil.copy(three, four)
    members, config = ladder.ladder_for(4)[0], ladder.ladder_config(4).to_dict()
    assert ladder._read(four, members, 1, config, ladder.fingerprint_for(3)) == (
        [], "its games are another ladder's or another game's")
    capsys.readouterr()
    assert main(["evaluate", "random", "--players", "4", "--out", str(tmp_path / "four"), *COMMON]) == 0
    err = capsys.readouterr().err
    assert played == [12, 4] and "from the store" not in err and "stored the ladder's games in" in err
    assert {len(g["seats"]) for g in _games(tmp_path / "four")} == {4}
    assert (_header(three)["settings"]["config"]["players"], _header(four)["settings"]["config"]["players"]) == (3, 4)
