"""Placings of 3–6-player games (training/arena/placings.py): first-place share (a tie for first shares
it), mean rank (competition ranks), margin over the best other seat, rank shares, and their 95 %
intervals over tile-order groups; the tournament report's placings table and files."""

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from training.arena.match import competition_ranks
from training.arena.placings import placings
from training.arena.report import build_report, print_report, write_report
from training.arena.tournament import Settings
from training.arena.weng_lin import weng_lin
from training.cli.main import main

T975_1, T975_3 = 12.7062, 3.18245  # Student's t, 97.5 % quantile, 1 and 3 degrees of freedom (a printed t-table)


def game(group: int, seats: tuple[str, ...], scores: list[int], ranks: list[int] | None = None,
         forfeit_seat: int | None = None) -> dict[str, Any]:
    """A tournament game dict: the ranks as written by hand, or those of the scores."""
    g: dict[str, Any] = {"index": 0, "group": group, "seats": list(seats), "scores": scores,
                         "ranks": ranks or list(competition_ranks(scores, forfeit_seat)),
                         "decisions": [1] * len(seats), "seconds": [0.001] * len(seats)}
    if forfeit_seat is not None:
        g["forfeit"] = {"seat": forfeit_seat, "agent": seats[forfeit_seat], "kind": "exception"}
    return g


# One tile order in its three seat rotations: a and b tie for first, then a wins alone, then c and a tie.
TIE_GROUP = [
    game(0, ("a", "b", "c"), [10, 10, 4], ranks=[1, 1, 3]),
    game(0, ("c", "a", "b"), [7, 12, 3], ranks=[2, 1, 3]),
    game(0, ("b", "c", "a"), [5, 9, 9], ranks=[3, 1, 1]),
]


def test_the_hand_written_ranks_are_competition_ranks() -> None:
    assert [g["ranks"] for g in TIE_GROUP] == [list(competition_ranks(g["scores"])) for g in TIE_GROUP]


def test_a_tie_for_first_is_a_shared_first_place_and_rank_1_for_each() -> None:
    a, b, c = placings(TIE_GROUP, ["a", "b", "c"])
    # a: ½ (tie with b) + 1 + ½ (tie with c); b: ½; c: ½. The shares of a game sum to 1.
    assert (a.first, b.first, c.first) == pytest.approx((2 / 3, 1 / 6, 1 / 6))
    # ranks a 1, 1, 1; b 1, 3, 3; c 3, 2, 1
    assert (a.mean_rank, b.mean_rank, c.mean_rank) == pytest.approx((1.0, 7 / 3, 2.0))
    # own score minus the best other: a 10−10, 12−7, 9−9; b 10−10, 3−12, 5−9; c 4−10, 7−12, 9−9
    assert (a.margin, b.margin, c.margin) == pytest.approx((5 / 3, -13 / 3, -11 / 3))
    assert a.rank_shares == pytest.approx((1.0, 0.0, 0.0))
    assert b.rank_shares == pytest.approx((1 / 3, 0.0, 2 / 3))
    assert c.rank_shares == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert (a.games, a.groups) == (3, 1)


def test_one_group_gives_intervals_as_wide_as_the_ranges() -> None:
    a = placings(TIE_GROUP, ["a", "b", "c"])[0]
    assert a.first_ci == (0.0, 1.0)
    assert a.mean_rank_ci == (1.0, 3.0)
    assert a.margin_ci == (-math.inf, math.inf)


def test_four_players_with_a_forfeit_count_by_the_recorded_scores_and_ranks() -> None:
    # a forfeits with 30 points, as many as c: a ranks last, c is first alone, both margins 0.
    g = game(7, ("a", "b", "c", "d"), [30, 12, 30, 5], ranks=[4, 2, 1, 3], forfeit_seat=0)
    assert g["ranks"] == list(competition_ranks(g["scores"], 0))
    a, b, c, d = placings([g], ["a", "b", "c", "d"])
    assert [(p.first, p.mean_rank, p.margin) for p in (a, b, c, d)] == [
        (0.0, 4.0, 0.0), (0.0, 2.0, -18.0), (1.0, 1.0, 0.0), (0.0, 3.0, -25.0)]
    assert a.rank_shares == (0.0, 0.0, 0.0, 1.0)
    assert c.rank_shares == (1.0, 0.0, 0.0, 0.0)


def test_an_agent_on_several_seats_counts_per_copy() -> None:
    # a gauntlet table: x against two copies of y
    x, y = placings([game(0, ("x", "y", "y"), [10, 8, 6], ranks=[1, 2, 3])], ["x", "y"])
    assert (x.games, x.first, x.mean_rank, x.margin) == (1, 1.0, 1.0, 2.0)
    assert (y.games, y.first, y.mean_rank, y.margin) == (1, 0.0, 2.5, -3.0)  # margins 8−10 and 6−10
    assert y.rank_shares == (0.0, 0.5, 0.5)


def rotations_with_margin(group: int, margin: int) -> list[dict[str, Any]]:
    """Agent a ``margin`` points ahead of b (and of c, who scores 0) in every seat rotation."""
    return [game(group, seats, [{"a": 10 + margin, "b": 10, "c": 0}[s] for s in seats])
            for seats in (("a", "b", "c"), ("c", "a", "b"), ("b", "c", "a"))]


def test_the_interval_is_a_t_interval_over_group_means_and_shrinks_with_more_groups() -> None:
    four = [g for i, m in enumerate((2, 4, 6, 8)) for g in rotations_with_margin(i, m)]
    a = placings(four, ["a", "b", "c"])[0]
    # group means 2, 4, 6, 8: mean 5, SD √(20/3), 4 groups, t(0.975, 3)
    half = T975_3 * math.sqrt(20 / 3) / 2
    assert (a.games, a.groups) == (12, 4)
    assert a.margin == pytest.approx(5.0)
    assert a.margin_ci == pytest.approx((5 - half, 5 + half), rel=1e-5)
    eight = four + [dict(g, group=g["group"] + 4) for g in four]
    wider, narrower = a.margin_ci, placings(eight, ["a", "b", "c"])[0].margin_ci
    assert narrower[1] - narrower[0] < wider[1] - wider[0]


def test_an_unfinished_group_weighs_by_its_games() -> None:
    games = rotations_with_margin(0, 2) + rotations_with_margin(1, 8)[:1]
    a = placings(games, ["a", "b", "c"])[0]
    assert a.margin == pytest.approx((2 + 2 + 2 + 8) / 4)  # the plain mean of its games: 3.5
    # group sums 6 and 8 of 3 and 1 games (mean 2 games): residuals (6 − 3·3.5)/2 = −2.25 and
    # (8 − 3.5)/2 = +2.25, SD 2.25·√2, SE 2.25
    assert a.margin_ci == pytest.approx((3.5 - T975_1 * 2.25, 3.5 + T975_1 * 2.25), rel=1e-5)


def test_bad_games_are_one_clear_error() -> None:
    with pytest.raises(ValueError, match="has 4 seats, earlier games 3"):
        placings([*TIE_GROUP, game(1, ("a", "b", "c", "a"), [1, 2, 3, 4])], ["a", "b", "c"])
    with pytest.raises(ValueError, match="seats 'z', not one of"):
        placings([game(0, ("a", "b", "z"), [1, 2, 3])], ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"has ranks \[0, 1, 2\], not one rank from 1 to 3 per seat"):
        placings([game(0, ("a", "b", "c"), [1, 2, 3], ranks=[0, 1, 2])], ["a", "b", "c"])


def test_a_two_player_report_has_no_placings(tmp_path: Path) -> None:
    games = [game(0, ("a", "b"), [10, 4]), game(0, ("b", "a"), [6, 6])]
    report = build_report(Settings(agents=("a", "b"), seeds=1), games, "a")
    assert report.placings is None
    printed = io.StringIO()
    print_report(report, Console(file=printed, width=180))
    assert "Pairings" in printed.getvalue()
    assert "Placings" not in printed.getvalue() and "head-to-heads" not in printed.getvalue()
    paths = write_report(report, tmp_path, Settings(agents=("a", "b"), seeds=1))
    assert [p.name for p in paths] == ["ratings.csv", "pairings.csv", "summary.json", "ratings.png"]
    assert "placings" not in json.loads((tmp_path / "summary.json").read_text())


def test_a_three_player_tournament_reports_placings_that_agree_with_its_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agents = ["greedy", "greedy:fast=1", "random"]
    assert main(["tournament", *agents, "--players", "3", "--seeds", "2", "--workers", "1",
                 "--out", str(tmp_path), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "Placings (3-player games" in printed
    assert "margin over best other" in printed and "Weng-Lin μ [95 %]" in printed
    assert "head-to-heads" in printed  # a 3-player game is three head-to-heads, not one game, in the ratings
    games = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    summary = json.loads((tmp_path / "summary.json").read_text())
    rows = {r["agent"]: r for r in csv.DictReader((tmp_path / "placings.csv").open())}
    assert [p["agent"] for p in summary["placings"]] == agents
    assert [(r["agent"], r["games"], r["mu"]) for r in summary["weng_lin"]["ratings"]] == [
        (r.agent, 6, r.mu) for r in weng_lin(games, agents)]
    for p in summary["placings"]:
        seats = [(g, g["seats"].index(p["agent"])) for g in games]
        firsts = [1 / g["ranks"].count(1) if g["ranks"][s] == 1 else 0 for g, s in seats]
        ranks = [g["ranks"][s] for g, s in seats]
        assert p["games"] == len(seats) == 6
        assert p["groups"] == 2
        assert p["first"] == pytest.approx(sum(firsts) / 6)
        assert p["mean_rank"] == pytest.approx(sum(ranks) / 6)
        assert p["rank_shares"] == pytest.approx([ranks.count(r) / 6 for r in (1, 2, 3)])
        assert p["first_ci"][0] <= p["first"] <= p["first_ci"][1]
        assert float(rows[p["agent"]]["mean_rank"]) == pytest.approx(p["mean_rank"])
