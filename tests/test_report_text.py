"""An infinite Elo is printed as a bound with its reason (training/arena/report.py's ``elo_text``):
a clean sweep's paired Elo is ±inf, which the tables print as the bound the Wilson interval of the
win share gives, ``> +N (won every game)``; ``summary.json`` keeps its ``"+inf"`` / ``"-inf"``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena.ratings import HeadToHead, Rating, elo_from_score, pair_stats, rate, wilson
from training.arena.report import Report, build_report, elo_text, print_report, write_report
from training.arena.tournament import Settings
from training.common.evaluation import elo_words


def _sweep(games: int, groups: int) -> list[HeadToHead]:
    """``greedy`` beats ``random`` in every one of ``games`` games over ``groups`` tile orders."""
    return [HeadToHead(i % groups, "greedy", "random", 1.0, 40) for i in range(games)]


def test_a_clean_sweep_is_a_bound_from_the_wilson_interval() -> None:
    bound = round(elo_from_score(wilson(10, 10)[0]))
    assert elo_text(1.0, (1.0, 1.0), wilson(10, 10)) == f"> +{bound} (won every game)"
    assert elo_text(0.0, (0.0, 0.0), wilson(0, 10)) == f"< -{bound} (lost every game)"


def test_a_finite_elo_keeps_its_interval_and_an_open_end_says_so() -> None:
    assert elo_text(0.5, (0.25, 0.75), (0.2, 0.8)) == "+0 [-191, +191]"
    assert elo_text(0.75, (0.5, 1.0), (0.4, 0.9)) == "+191 [+0, no upper bound]"
    assert elo_text(0.25, (0.0, 0.5), (0.1, 0.6)) == "-191 [no lower bound, +0]"


def test_the_printed_tables_hold_no_inf_and_the_summary_keeps_it(tmp_path: Path) -> None:
    h2h = _sweep(4, 2)
    pairing = pair_stats(h2h, "random", "greedy")
    assert pairing.elo == -float("inf")  # the number the summary keeps
    report = Report(anchor="random", games=4, game="base game, 2 players",
                    ratings=rate(h2h, ["greedy", "random"], "random", 2),
                    pairings=[pairing], ms_per_decision={"greedy": 1.0, "random": 0.1}, sprt=None)
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    text = out.getvalue()
    assert "inf" not in text
    assert f"< {round(elo_from_score(pairing.win_ci[1])):+d} (lost every game)" in text
    write_report(report, tmp_path, Settings(agents=("greedy", "random")))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["pairings"][0]["elo"] == "-inf"


def test_the_ratings_of_a_clean_sweep_stay_finite() -> None:
    """Bradley–Terry's virtual draw keeps every rating finite: only the paired Elo needs words."""
    ratings: list[Rating] = rate(_sweep(6, 3), ["greedy", "random"], "random", 2)
    assert all(abs(x) < 2000 for r in ratings for x in (r.elo, r.low, r.high))


@pytest.mark.parametrize(("rating", "printed"), [
    ({"score": 1.0, "low": 1.0, "high": 1.0, "elo": 1000.0, "win_low": 0.8, "win_high": 1.0},
     f"> +{round(elo_from_score(0.8))} (won every game)"),
    ({"score": 0.5, "low": 0.5, "high": 0.5, "elo": 0.0, "win_low": 0.5, "win_high": 0.5}, "+0 [+0, +0]"),
])
def test_a_trainer_prints_the_bound_not_the_clipped_elo(rating: dict[str, float], printed: str) -> None:
    assert elo_words(rating) == printed


@pytest.mark.parametrize(("config", "words"), [
    (GameConfig(expansions=TOWER_VARIANT),
     "tower variant (tower, black_tower, watchtowers), 2 players"),
    (GameConfig(players=2, expansions=("tower",), no_ransom=True), "expansions (tower), 2 players; rules: no_ransom"),
])
def test_the_printed_tables_the_summary_and_the_figure_name_the_game(
        config: GameConfig, words: str, tmp_path: Path, figure_titles: list[str]) -> None:
    settings = Settings(agents=("greedy", "random"), seeds=1, config=config.to_dict())
    games = [{"index": i, "group": 0, "seats": seats, "scores": [50, 20][::1 - 2 * i], "ranks": [1, 2][::1 - 2 * i],
              "decisions": [1, 1], "seconds": [0.001, 0.001]} for i, seats in enumerate((["greedy", "random"],
                                                                                         ["random", "greedy"]))]
    report = build_report(settings, games, "random")
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    assert out.getvalue().splitlines()[0] == f"game: {words}"
    write_report(report, tmp_path, settings)
    assert json.loads((tmp_path / "summary.json").read_text())["game"] == words
    assert len(figure_titles) == 1 and figure_titles[0].endswith(f"\n{words}")
