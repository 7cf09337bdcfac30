"""Where each agent finishes in 3–6-player games: first-place share, mean rank, margin over the best other seat.

Definitions (docs/tournament.md), for every seat an agent holds in a game:

* **First-place share**: a seat ranked 1 alone takes the whole first place (1); a seat among ``k``
  seats tied for first takes ``1/k`` (so the shares of one game sum to 1); any other seat 0.
* **Rank**: the game record's ``ranks`` (competition ranking: tied seats share the best rank of
  the tie, 1 = best, so a two-way tie for first in 3 players gives ranks 1, 1, 3).
* **Margin over the best other**: the seat's score minus the best score among the other seats
  (negative unless the seat has the best score; 0 for a seat tied for the best score).
* **Rank shares**: the share of seats at rank 1, 2, …, ``players`` (competition ranks, so a tie for
  first counts as rank 1 for each tied seat here, unlike the first-place share).

An agent holding several seats of one game (a gauntlet's field copies) counts that game once, with
the mean over its seats: the figures are per copy, so in a gauntlet the candidate's first-place
share plus every copy's sums to 1. A forfeited game counts like any other, by its recorded scores
and ranks: the seat that forfeited ranks last (never first), and its margin is that of the scores
when it failed.

**Intervals** (95 %): the games of one *group* (one table and tile order in every seat rotation)
are one sample. With ``S_g`` an agent's summed values and ``n_g`` its games in group ``g`` (``G``
groups), the estimate is the plain mean ``m = Σ S_g / Σ n_g`` over all its games and the interval
``m ± t(0.975, G − 1) · SE`` with ``SE`` the standard deviation (ddof 1) of ``(S_g − m n_g) / n̄``
over ``√G`` (``n̄`` the mean ``n_g``): a t-interval over group means when every group is complete,
weighted by games when some are not. Several tables are pooled unstratified (between-table spread
widens the interval: conservative). One group gives an unbounded interval; first-place share and
mean rank intervals are clipped to their ranges [0, 1] and [1, players].
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

__all__ = ["Placing", "agent_seats", "placings", "seat_values"]


@dataclass(frozen=True)
class Placing:
    """One agent's placings over ``games`` games in ``groups`` groups, each figure with its 95 % interval
    (module docstring); ``rank_shares[r - 1]`` is the share of its seats at rank ``r``."""

    agent: str
    games: int
    groups: int
    first: float
    first_ci: tuple[float, float]
    mean_rank: float
    mean_rank_ci: tuple[float, float]
    margin: float
    margin_ci: tuple[float, float]
    rank_shares: tuple[float, ...]


def agent_seats(games: Iterable[Mapping[str, Any]], agents: Sequence[str], who: str
                ) -> Iterator[tuple[Mapping[str, Any], dict[str, list[int]]]]:
    """Each game of ``games`` (tournament game dicts with ``seats`` and ``ranks``) with the seats each
    agent holds in it: agent -> its seat indices, the agents in the order of their first seat.
    ValueError starting with ``who`` for games of different player counts, a seat whose agent is not
    in ``agents``, or ranks that are not one rank from 1 to the player count per seat."""
    known = set(agents)
    players: int | None = None
    for g in games:
        seats, ranks = list(g["seats"]), list(g["ranks"])
        if players is None:
            players = len(seats)
        if len(seats) != players:
            raise ValueError(f"{who}: game {g.get('index')} has {len(seats)} seats, earlier games {players}")
        if len(ranks) != players or not all(isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= players
                                            for r in ranks):
            raise ValueError(f"{who}: game {g.get('index')} has ranks {ranks}, not one rank from 1 to {players} "
                             "per seat")
        mine: dict[str, list[int]] = defaultdict(list)
        for seat, name in enumerate(seats):
            if name not in known:
                raise ValueError(f"{who}: game {g.get('index')} seats {name!r}, not one of {list(agents)}")
            mine[name].append(seat)
        yield g, mine


def seat_values(scores: Sequence[int], ranks: Sequence[int], seat: int) -> tuple[float, float, float]:
    """(first-place share, rank, margin over the best other) of ``seat`` in one game."""
    first = 1.0 / ranks.count(1) if ranks[seat] == 1 else 0.0
    best_other = max(s for i, s in enumerate(scores) if i != seat)
    return first, float(ranks[seat]), float(scores[seat] - best_other)


def _interval(sums: np.ndarray, counts: np.ndarray, low: float, high: float) -> tuple[float, tuple[float, float]]:
    """The mean of per-group ``sums`` over ``counts`` games and its 95 % t-interval over groups, clipped to
    [``low``, ``high``] (module docstring)."""
    groups = len(counts)
    mean = float(sums.sum() / counts.sum())
    if groups < 2:
        return mean, (low, high)
    residuals = (sums - mean * counts) / counts.mean()
    half = float(stats.t.ppf(0.975, groups - 1)) * float(residuals.std(ddof=1)) / math.sqrt(groups)
    return mean, (max(low, mean - half), min(high, mean + half))


def placings(games: Iterable[Mapping[str, Any]], agents: Sequence[str]) -> list[Placing]:
    """The placings of every agent of ``agents`` that played in ``games`` (tournament game dicts with
    ``group``, ``seats``, ``scores`` and ``ranks``), in the order of ``agents``. ValueError for games
    :func:`agent_seats` refuses."""
    # agent -> group -> [games, Σ first, Σ rank, Σ margin]; agent -> Σ seats at each rank
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0] * 4))
    at_rank: dict[str, np.ndarray] = {}
    for g, mine in agent_seats(games, agents, "placings"):
        scores, ranks = list(g["scores"]), list(g["ranks"])
        for name, held in mine.items():
            values = np.mean([seat_values(scores, ranks, seat) for seat in held], axis=0)
            cell = sums[name][int(g["group"])]
            cell[0] += 1.0
            for i, v in enumerate(values, 1):
                cell[i] += float(v)
            shares = at_rank.setdefault(name, np.zeros(len(ranks)))
            for seat in held:
                shares[ranks[seat] - 1] += 1.0 / len(held)
    out: list[Placing] = []
    for name in agents:
        if name not in sums:
            continue
        table = np.array(list(sums[name].values()), dtype=np.float64)
        counts = table[:, 0]
        first, first_ci = _interval(table[:, 1], counts, 0.0, 1.0)
        rank, rank_ci = _interval(table[:, 2], counts, 1.0, float(len(at_rank[name])))
        margin, margin_ci = _interval(table[:, 3], counts, -math.inf, math.inf)
        n = int(counts.sum())
        out.append(Placing(name, n, len(counts), first, first_ci, rank, rank_ci, margin, margin_ci,
                           tuple(float(s) / n for s in at_rank[name])))
    return out
