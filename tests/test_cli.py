"""The carcassonne command end to end (training/cli/main.py)."""

import argparse
import csv
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import legal_agents
import pytest
from game_lines import without_timings

from carcassonne_env.demo import main as demo_main
from carcassonne_env.engine import GameConfig, GameRecord
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena.match import play_match
from training.cli.dialect import spec_list
from training.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
#: How every output names the default game, the 2-player tower variant.
TOWER_2P = "game: tower variant (tower, black_tower, watchtowers), 2 players"


@pytest.mark.slow


def test_tiny_tournament_in_two_worker_processes_writes_replayable_games(tmp_path: Path) -> None:
    user = legal_agents.spec("FirstLegal")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "training.cli", "tournament", "random", user, "--seeds", "2", "--workers", "2",
               "--out", str(out), "--no-progress"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Ratings" in done.stdout and "Pairings" in done.stdout
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert sorted(g["index"] for g in games) == [0, 1, 2, 3]
    for g in games:
        record = GameRecord.from_dict(g["record"])
        assert record.config.expansions == TOWER_VARIANT  # the default variant
        assert record.seed == g["seed"]
        assert list(record.replay().scores) == g["scores"]
    assert {tuple(g["seats"]) for g in games} == {("random", user), (user, "random")}
    with (out / "ratings.csv").open() as f:
        ratings = {row["agent"]: row for row in csv.DictReader(f)}
    assert set(ratings) == {"random", user} and float(ratings["random"]["elo"]) == 0.0
    summary = json.loads((out / "summary.json").read_text())
    pairing = summary["pairings"][0]
    wins_of_random = sum(g["scores"][g["seats"].index("random")] > g["scores"][g["seats"].index(user)] for g in games)
    assert (pairing["a"], pairing["b"], pairing["games"], pairing["wins"]) == ("random", user, 4, wins_of_random)
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = subprocess.run([*command, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert len((out / "games.jsonl").read_text().splitlines()) == 4  # nothing replayed twice


def test_a_tournament_names_the_game_it_played_in_its_tables_and_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "random", "greedy:fast=1", "--expansions", "", "--rules", "legacy_small_city",
                 "--seeds", "1", "--workers", "1", "--no-progress", "--out", str(tmp_path)]) == 0
    game = "base game, 2 players; rules: legacy_small_city"
    assert capsys.readouterr().out.startswith(f"game: {game}\n")
    assert json.loads((tmp_path / "summary.json").read_text())["game"] == game
    assert json.loads((tmp_path / "tournament.json").read_text())["game"] == game


@pytest.mark.parametrize("command", [[], ["play"], ["tournament"], ["evaluate"], ["bench"]])
def test_every_subcommand_explains_its_options(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: carcassonne")
    if command == ["tournament"]:
        for option in ("--players", "--seeds", "--games", "--workers", "--out", "--resume", "--sprt", "--expansions"):
            assert option in text


def test_every_option_and_argument_has_help() -> None:
    subcommands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in subcommands.choices.items():
        for action in parser._actions:
            assert action.help, f"carcassonne {name}: {action.dest} has no help"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tournament", "random", "--players", "7"], "invalid choice: 7"),
        (["tournament", "random", "random:x=1"], "random: unknown option 'x'"),
        (["tournament", "random", "missing/agent.py:Agent"], "no such file 'missing/agent.py'"),
        (["tournament", "random", "random"], "repeated: random"),
        (["tournament", "random", "nosuch"], "unknown agent 'nosuch'"),
        (["tournament", "random", "x.py:A", "--sprt", "0,10"], "expected elo0,elo1,alpha,beta"),
        (["tournament", "random", "--seeds", "0"], "expected a positive integer"),
        (["tournament", "random", "--expansions", "towers"], "unknown name 'towers'"),
        (["tournament", "random", "--rules", "no_such_rule"], "unknown variant flag 'no_such_rule'"),
        (["tournament", "random", "greedy", "--address", "auto"], "--address: only --backend ray runs on a cluster"),
        (["play", "random"] * 1 + ["random"] * 6, "players: must be 2–6"),
        (["play", "random"], "players: must be 2–6"),
        (["play", "random", "greedy", "--boards", "--quiet"], "--boards prints the board after every turn and "
                                                              "--quiet only the final one: choose one"),
    ],
)
def test_bad_arguments_give_one_line_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(argv)
    except SystemExit as e:  # argparse's own errors: usage plus one error line
        status = e.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert message in err.strip().splitlines()[-1]


def test_demo_refuses_seven_players_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        demo_main(["--players", "7"])
    assert exit_.value.code == 2
    assert "players: must be 2–6" in capsys.readouterr().err


def test_play_prints_a_line_a_turn_and_writes_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "random", "random", "--expansions", "", "--seed", "3", "--frames", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "turn 1:" in out and "final scores" in out
    frames = sorted(tmp_path.glob("turn_*.png"))
    same_game = play_match(GameConfig(players=2), ["random", "random"], seed=3)  # play seeds agents the same way
    assert len(frames) == same_game.record.replay().turn + 1  # one picture per turn
    assert frames[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------ evaluate: the stored ladder games
def _games(out: Path) -> list[dict[str, Any]]:
    return sorted((json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()),
                  key=lambda g: int(g["index"]))


def test_a_game_between_agents_is_one_line_a_turn_without_boards(capsys: pytest.CaptureFixture[str]) -> None:
    """Watching ``play random greedy``: a line per turn saying who placed what where and what scored,
    the end-of-game scoring, the final scores and their breakdown; no board."""
    specs = ["random", "greedy"]
    assert main(["play", *specs, "--expansions", "", "--seed", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    game = play_match(GameConfig(players=2), specs, seed=5).record.replay()
    winners = ", ".join(f"{specs[w]} (seat {w})" for w in game.winners())
    turns = [line for line in lines if line.startswith("turn ")]
    assert [line.split(":")[0] for line in turns] == [f"turn {t + 1}" for t in range(game.turn + 1)]
    assert turns[0].startswith("turn 1: Red (random) placed “") and turns[1].startswith("turn 2: Blue (greedy) placed")
    scoring = next(line for line in turns if " — " in line)  # a turn that scored: who, how many, why, where
    assert re.search(r" — (Red|Blue) [+-]\d+: \w+ at \(-?\d+,-?\d+\)", scoring) and "(scores " in scoring
    assert lines[len(turns)].startswith("end-of-game scoring: Red +")
    assert lines[len(turns) + 1:len(turns) + 3] == [f"final scores {list(game.scores)}; winner {winners}",
                                                    "the scores by category:"]
    assert len(lines) == len(turns) + 3 + 3  # the table: a heading and a row per player
    assert game.render_text().splitlines()[0] not in lines  # no board


def test_play_boards_prints_the_board_after_every_turn(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "random", "random", "--expansions", "", "--seed", "3", "--boards"]) == 0
    out = capsys.readouterr().out
    game = play_match(GameConfig(players=2), ["random", "random"], seed=3).record.replay()
    assert out.count("\nscores [") == game.turn + 1
    assert game.render_text() + f"\nscores {list(game.scores)}" in out


def test_play_quiet_prints_the_final_board_and_scores_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "random", "random", "--expansions", "", "--seed", "3", "--quiet"]) == 0
    game = play_match(GameConfig(players=2), ["random", "random"], seed=3).record.replay()
    winners = ", ".join(f"random (seat {w})" for w in game.winners())
    assert capsys.readouterr().out == f"{game.render_text()}\nfinal scores {list(game.scores)}; winner {winners}\n"


@pytest.fixture
def small_ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A cheap ladder (random, greedy:fast=1), an empty cache in ``tmp_path`` and no shipped store;
    the spec of an instant candidate (the first legal action)."""
    from training.arena import ladder

    monkeypatch.setattr(ladder, "LADDER", ("random", "greedy:fast=1"))
    monkeypatch.setattr(ladder, "SHIPPED", tmp_path / "shipped.jsonl.gz")
    monkeypatch.setenv("CARCASSONNE_CACHE", str(tmp_path / "cache"))
    return legal_agents.spec("FirstLegal")


@pytest.mark.slow


def test_evaluate_with_stored_ladder_games_reports_what_the_full_round_robin_reports(
        small_ladder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--seeds", "2", "--workers", "1", "--no-progress"]
    # a ladder member as candidate: every game is a ladder game; played here, then stored in the cache
    assert main(["evaluate", "random", "--out", str(tmp_path / "ladder"), *common]) == 0
    assert "stored the ladder's games in" in capsys.readouterr().err
    assert len(list((tmp_path / "cache").glob("ladder-*-2.jsonl.gz"))) == 1
    ladder_games = {(g["seed"], tuple(g["seats"])): g for g in _games(tmp_path / "ladder")}
    assert len(ladder_games) == 4

    assert main(["evaluate", small_ladder, "--out", str(tmp_path / "cached"), *common]) == 0
    assert "4 of 4 from the store" in capsys.readouterr().err
    assert main(["tournament", small_ladder, "random", "greedy:fast=1", "--anchor", "random",
                 "--out", str(tmp_path / "full"), *common]) == 0
    cached, full = _games(tmp_path / "cached"), _games(tmp_path / "full")
    assert len(cached) == 12 and without_timings(cached) == without_timings(full)
    for g in cached:  # the ladder's games were taken from the store, not played again
        if small_ladder not in g["seats"]:
            assert g["seconds"] == ladder_games[g["seed"], tuple(g["seats"])]["seconds"]
    reports = [json.loads((tmp_path / d / "summary.json").read_text()) for d in ("cached", "full")]
    for key in ("ratings", "pairings", "games", "anchor", "settings"):
        assert reports[0][key] == reports[1][key], key
    assert (tmp_path / "cached" / "ratings.csv").read_text() == (tmp_path / "full" / "ratings.csv").read_text()
    assert (tmp_path / "cached" / "pairings.csv").read_text() == (tmp_path / "full" / "pairings.csv").read_text()


def test_evaluate_ignores_ladder_games_of_other_code_and_will_not_resume_across_versions(
        small_ladder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from training.arena import ladder

    common = ["--seeds", "1", "--workers", "1", "--no-progress"]
    shipped = tmp_path / "shipped.jsonl.gz"
    assert main(["evaluate", "random", "--out", str(tmp_path / "a"), "--store-ladder", str(shipped), *common]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"{TOWER_2P}\n")  # the game, above the tables
    assert f"stored the ladder's games in {shipped}; {TOWER_2P}" in printed.err
    with gzip.open(shipped, "rt", encoding="utf-8") as f:
        assert json.loads(f.readline())["game"] == TOWER_2P.removeprefix("game: ")
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["game"] == TOWER_2P.removeprefix("game: ")
    assert main(["evaluate", "random", "--out", str(tmp_path / "b"), *common]) == 0
    assert "2 of 2 from the store" in capsys.readouterr().err  # the shipped store, current

    mine = ladder.fingerprint()
    other = ladder.Fingerprint("0" * 64, mine.python, "0.0")
    monkeypatch.setattr(ladder, "fingerprint", lambda: other)
    assert main(["evaluate", "random", "--out", str(tmp_path / "c"), *common]) == 0
    err = capsys.readouterr().err
    assert f"the shipped store {ladder.SHIPPED_NAME} is not used: its games were played by other engine or agent " \
           f"code, numpy {mine.numpy} (this is 0.0)" in err
    assert "from the store" not in err and "stored the ladder's games in" in err  # played anew, stored for `other`
    assert len(list((tmp_path / "cache").glob(f"ladder-{ladder.fingerprint_for(2).key}-1.jsonl.gz"))) == 1
    assert main(["evaluate", "random", "--out", str(tmp_path / "a"), "--resume", *common]) == 2
    assert "played by another version of the engine or agents" in capsys.readouterr().err


def test_the_shipped_store_holds_the_ladder_at_the_default_seeds() -> None:
    from training.arena import ladder
    from training.arena.tournament import Settings

    with gzip.open(ladder.SHIPPED, "rt", encoding="utf-8") as f:
        header = json.loads(f.readline())
    seeds = build_parser().parse_args(["evaluate", "random"]).seeds
    wanted = Settings(agents=ladder.LADDER, seeds=seeds, config=ladder.ladder_config().to_dict())
    assert Settings.from_dict(header["settings"]) == wanted  # rewrite it: docs/tournament.md, evaluate


def test_bench_specs_keep_each_agents_own_options() -> None:
    assert spec_list("random,greedy") == ("random", "greedy")
    assert spec_list("mcts:sims=20,guide=1,rollout_turns=0,value=linear,greedy:fast=1,random") == (
        "mcts:sims=20,guide=1,rollout_turns=0,value=linear", "greedy:fast=1", "random")
    assert spec_list("ppo:runs/a.zip,path/to/file.py:Agent,,afterstate:pretrained,fast=1") == (
        "ppo:runs/a.zip", "path/to/file.py:Agent", "afterstate:pretrained,fast=1")


def test_bench_agent_times_an_agent_with_several_options(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "agent", "--specs", "greedy:fast=1,value=linear,random", "--games", "1"])
    lines = capsys.readouterr().out.splitlines()[1:]  # after the setup
    assert len(lines) == 2
    assert lines[0].startswith("agent: greedy:fast=1,value=linear: ") and lines[1].startswith("agent: random: ")


@pytest.mark.parametrize(("target", "setup"), [
    ("engine", ["in the game of tower variant (tower, black_tower, watchtowers), 2 players (--expansions, --rules",
                "uniformly random legal actions", "One thread", "compiled engine core", "pure-Python engine"]),
    ("env", ["in the game of tower variant (tower, black_tower, watchtowers), 2 players", "PettingZoo AEC env",
             "One thread", "pure-Python engine"]),
    ("tournament", ["in the game of tower variant (tower, black_tower, watchtowers), 2 players",
                    "against itself", "1 and 2 workers", "pure-Python engine"]),
    ("agent", ["in the game of tower variant (tower, black_tower, watchtowers), 2 players", "every seat",
               "--threads threads", "pure-Python engine"]),
])
def test_every_bench_help_names_the_setup_it_measures(target: str, setup: list[str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", target, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in [*setup, "--expansions NAME,NAME", "--rules FLAG,FLAG"]:
        assert words in text, words


@pytest.mark.parametrize("target", ["engine", "env"])
def test_bench_engine_and_env_play_the_tower_variant_by_default(target: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", target, "--games", "1"]) == 0
    setup, *_, figures = capsys.readouterr().out.splitlines()
    assert setup.startswith(f"setup: {TOWER_2P}; ")
    assert figures.startswith(f"{target}: ") and figures.endswith(f"; {TOWER_2P}")


def test_bench_engine_prints_its_setup_before_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from carcassonne_env.bench import engine_words

    assert main(["bench", "engine", "--games", "1", "--players", "3", "--expansions", "tower", "--rules",
                 "no_ransom", "--seed", "4"]) == 0
    setup, figures = capsys.readouterr().out.splitlines()
    game = "game: expansions (tower), 3 players; rules: no_ransom"
    assert setup == (f"setup: {game}; uniformly random legal actions on the engine; 1 game from seed 4; 1 thread "
                     f"in this process; {engine_words()}")
    assert figures.startswith("engine: ") and "decisions/s" in figures and figures.endswith(f"; {game}")


def test_bench_refuses_an_unknown_rule_flag_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--rules", "no_such_rule"]) == 2
    assert capsys.readouterr().err == "carcassonne bench: error: --rules: unknown variant flag 'no_such_rule'\n"


def test_bench_tournament_of_one_game_prints_no_nan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "tournament", "--games", "1", "--specs", "random"]) == 0
    setup, *lines = capsys.readouterr().out.splitlines()
    assert setup.startswith(f"setup: {TOWER_2P}; ") and "each agent against itself (random)" in setup
    assert len(lines) == 2 and not any("nan" in line for line in lines)
    assert all("— games/s after the first game (one game: none after it; give --games 2 or more)" in line
               for line in lines)


def test_bench_agent_names_another_game_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "agent", "--specs", "random", "--games", "1", "--expansions", "", "--rules",
                 "legacy_small_city"]) == 0
    assert capsys.readouterr().out.startswith("setup: game: base game, 2 players; rules: legacy_small_city; ")
