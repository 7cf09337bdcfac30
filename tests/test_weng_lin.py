"""Weng–Lin ratings of 3–6-player games (training/arena/weng_lin.py): openskill's Plackett–Luce model on
each game's finishing order, checked against openskill's published examples, then rule by rule; and
the tournament report's Weng–Lin column and ``summary.json`` key."""

import io
import json
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce
from rich.console import Console

from training.arena.match import competition_ranks
from training.arena.report import build_report, print_report, write_report
from training.arena.tournament import Settings
from training.arena.weng_lin import MU, SIGMA, model, weng_lin

PRINTED = 1e-12  # the examples print 16–17 significant digits: equal to the last few


def game(index: int, seats: tuple[str, ...], scores: list[int], forfeit_seat: int | None = None,
         group: int = 0) -> dict[str, Any]:
    """A tournament game dict whose ranks are those the tournament records for these scores."""
    g: dict[str, Any] = {"index": index, "group": group, "seats": list(seats), "scores": scores,
                         "ranks": list(competition_ranks(scores, forfeit_seat)),
                         "decisions": [1] * len(seats), "seconds": [0.001] * len(seats)}
    if forfeit_seat is not None:
        g["forfeit"] = {"seat": forfeit_seat, "agent": seats[forfeit_seat], "kind": "exception"}
    return g


def by_agent(games: list[dict[str, Any]], agents: list[str]) -> dict[str, tuple[float, float]]:
    return {r.agent: (r.mu, r.sigma) for r in weng_lin(games, agents)}


# ------------------------------------------------------------------------------ openskill's published examples
def test_the_package_reproduces_its_manual() -> None:
    # https://openskill.me/en/stable/manual.html (openskill 6): two teams of two fresh players, the
    # first team wins; then p1.ordinal() and p3.ordinal()
    plackett_luce = PlackettLuce()
    r = plackett_luce.rating
    [[p1, p2], [p3, p4]] = plackett_luce.rate([[r(), r()], [r(), r()]])
    assert (p1.mu, p1.sigma) == pytest.approx((26.964294621803063, 8.177962604389991), rel=PRINTED)
    assert (p2.mu, p2.sigma) == pytest.approx((26.964294621803063, 8.177962604389991), rel=PRINTED)
    assert (p3.mu, p3.sigma) == pytest.approx((23.035705378196937, 8.177962604389991), rel=PRINTED)
    assert (p4.mu, p4.sigma) == pytest.approx((23.035705378196937, 8.177962604389991), rel=PRINTED)
    assert (p1.ordinal(), p3.ordinal()) == pytest.approx((2.4304068086330872, -1.4981824349730388), rel=PRINTED)


def test_a_four_player_game_gives_the_readmes_artificial_ranks_example() -> None:
    # https://github.com/vivekjoshy/openskill.py/blob/v4.0.0/README.md#artificial-ranks (also on
    # https://pypi.org/project/openskill/4.0.0/): four fresh players ranked 4, 1, 3, 2. openskill 4
    # added no drift (tau) unless asked, as these ratings do not.
    g = game(0, ("a", "b", "c", "d"), [10, 40, 20, 30])
    assert g["ranks"] == [4, 1, 3, 2]
    assert by_agent([g], ["a", "b", "c", "d"]) == {
        "a": pytest.approx((20.96265504062538, 8.083731307186588), rel=PRINTED),
        "b": pytest.approx((27.795084971874736, 8.263160757613477), rel=PRINTED),
        "c": pytest.approx((24.68943500312503, 8.083731307186588), rel=PRINTED),
        "d": pytest.approx((26.552824984374855, 8.179213704945203), rel=PRINTED),
    }


def test_a_tie_for_second_gives_the_readmes_tie_example_and_equal_updates() -> None:
    # The same README's ties: scores 37, 19, 37, 42, so ranks 2, 4, 2, 1. Seated in finishing order,
    # the game record reads ranks 1, 2, 2, 4: the two agents tied for second get equal ratings.
    g = game(0, ("d", "a", "c", "b"), [42, 37, 37, 19])
    assert g["ranks"] == [1, 2, 2, 4]
    ratings = by_agent([g], ["a", "b", "c", "d"])
    assert ratings == {
        "a": pytest.approx((24.68943500312503, 8.179213704945203), rel=PRINTED),
        "b": pytest.approx((22.826045021875203, 8.179213704945203), rel=PRINTED),
        "c": pytest.approx((24.68943500312503, 8.179213704945203), rel=PRINTED),
        "d": pytest.approx((27.795084971874736, 8.263160757613477), rel=PRINTED),
    }
    assert ratings["a"] == ratings["c"]


# ------------------------------------------------------------------------------ the rules
def test_the_winner_rises_the_last_falls_and_every_sigma_shrinks() -> None:
    ratings = by_agent([game(0, ("a", "b", "c"), [30, 20, 10])], ["a", "b", "c"])
    assert ratings["a"][0] > MU > ratings["c"][0]
    assert all(sigma < SIGMA for _, sigma in ratings.values())


def test_an_agent_on_several_seats_enters_once_with_its_best_seat() -> None:
    # a gauntlet table: x against three copies of y, the best copy first, x second: one game of two
    # agents in which y beat x
    g = game(0, ("x", "y", "y", "y"), [30, 40, 20, 10])
    rated = weng_lin([g], ["x", "y"])
    assert [(r.agent, r.games) for r in rated] == [("x", 1), ("y", 1)]
    plackett_luce = model()
    [[x], [y]] = plackett_luce.rate([[plackett_luce.rating()], [plackett_luce.rating()]], ranks=[2, 1])
    assert [(r.mu, r.sigma) for r in rated] == [(x.mu, x.sigma), (y.mu, y.sigma)]
    # where the copies that lost sit, and what they scored, does not matter
    assert weng_lin([game(0, ("x", "y", "y", "y"), [30, 5, 40, 29])], ["x", "y"]) == rated


def test_games_are_rated_in_index_order_whatever_order_they_come_in() -> None:
    games = [game(0, ("a", "b", "c"), [30, 20, 10]), game(1, ("c", "a", "b"), [30, 20, 10]),
             game(2, ("b", "c", "a"), [30, 20, 10])]
    agents = ["a", "b", "c"]
    rated = weng_lin(games, agents)
    assert weng_lin(games[::-1], agents) == rated
    # the order matters (each game starts from the ratings the earlier ones left): another index order
    # rates the same results otherwise
    renumbered = [dict(g, index=2 - g["index"]) for g in games]
    assert weng_lin(renumbered, agents) != rated


def test_a_forfeited_game_counts_by_its_recorded_ranks() -> None:
    # a forfeits with the best score: the record ranks it last
    g = game(0, ("a", "b", "c"), [50, 20, 10], forfeit_seat=0)
    assert g["ranks"] == [3, 1, 2]
    ratings = by_agent([g], ["a", "b", "c"])
    assert ratings["a"][0] < ratings["c"][0] < ratings["b"][0]


def test_self_play_rates_no_one_and_agents_without_rated_games_are_left_out() -> None:
    games = [game(0, ("a", "a", "a"), [3, 2, 1]), game(1, ("a", "b", "c"), [1, 2, 3])]
    assert [(r.agent, r.games) for r in weng_lin(games, ["a", "b", "c", "d"])] == [("a", 1), ("b", 1), ("c", 1)]
    assert weng_lin(games[:1], ["a"]) == []


def test_the_interval_and_the_ordinal() -> None:
    for r in weng_lin([game(0, ("a", "b", "c"), [30, 20, 10])], ["a", "b", "c"]):
        assert r.mu_ci == pytest.approx((r.mu - 1.959964 * r.sigma, r.mu + 1.959964 * r.sigma))
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)


def test_bad_games_are_one_clear_error() -> None:
    three = game(0, ("a", "b", "c"), [3, 2, 1])
    with pytest.raises(ValueError, match="weng_lin: every game needs an integer index"):
        weng_lin([{k: v for k, v in three.items() if k != "index"}], ["a", "b", "c"])
    with pytest.raises(ValueError, match="weng_lin: two games with index 0"):
        weng_lin([three, dict(three)], ["a", "b", "c"])
    with pytest.raises(ValueError, match="weng_lin: game 1 has 4 seats, earlier games 3"):
        weng_lin([three, game(1, ("a", "b", "c", "a"), [1, 2, 3, 4])], ["a", "b", "c"])
    with pytest.raises(ValueError, match="weng_lin: game 0 seats 'z', not one of"):
        weng_lin([game(0, ("a", "b", "z"), [1, 2, 3])], ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"weng_lin: game 0 has ranks \[1, 2, 4\], not one rank from 1 to 3"):
        weng_lin([dict(three, ranks=[1, 2, 4])], ["a", "b", "c"])


# ------------------------------------------------------------------------------ the report
def test_a_three_player_report_shows_and_writes_the_weng_lin_ratings(tmp_path: Path) -> None:
    games = [game(0, ("a", "b", "c"), [30, 20, 10]), game(1, ("c", "a", "b"), [10, 30, 20]),
             game(2, ("b", "c", "a"), [20, 10, 30])]
    settings = Settings(agents=("a", "b", "c"), seeds=1, config={"players": 3})
    report = build_report(settings, games, "c")
    printed = io.StringIO()
    print_report(report, Console(file=printed, width=200))
    text = printed.getvalue()
    assert "Weng-Lin μ [95 %]" in text
    rated = weng_lin(games, ["a", "b", "c"])
    assert report.weng_lin == rated
    placings = text[text.index("Placings ("):]  # the table after the ratings and pairings
    row = next(line for line in placings.splitlines() if line.startswith("│ a "))
    assert f"{rated[0].mu:.2f} [{rated[0].mu_ci[0]:.2f}, {rated[0].mu_ci[1]:.2f}]" in row
    write_report(report, tmp_path, settings)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["weng_lin"]["model"] == {"name": "PlackettLuce", "mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6,
                                            "tau": 0.0}
    assert summary["weng_lin"]["ratings"] == [
        {"agent": r.agent, "games": 3, "mu": r.mu, "sigma": r.sigma, "mu_ci": list(r.mu_ci), "ordinal": r.ordinal}
        for r in rated]


def test_a_two_player_report_has_no_weng_lin_ratings(tmp_path: Path) -> None:
    settings = Settings(agents=("a", "b"), seeds=1)
    report = build_report(settings, [game(0, ("a", "b"), [10, 4]), game(1, ("b", "a"), [6, 6])], "a")
    assert report.weng_lin is None
    printed = io.StringIO()
    print_report(report, Console(file=printed, width=180))
    assert "Weng-Lin" not in printed.getvalue()
    write_report(report, tmp_path, settings)
    assert "weng_lin" not in json.loads((tmp_path / "summary.json").read_text())
