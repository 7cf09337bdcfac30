"""Weng–Lin ratings of 3–6-player games: the Plackett–Luce model of ``openskill`` on each game's whole finishing order.

Rules (docs/tournament.md, "The multiplayer ladder"):

* **Prior.** Every agent starts at ``mu`` = 25, ``sigma`` = 25/3 (openskill's defaults; ``beta`` = 25/6
  is the spread of one game's performance around an agent's skill).
* **Order.** Games are rated one at a time in game-index order (the schedule's order, whatever order
  the workers finished them in). The online update depends on the order, so fixing it makes the same
  games always give the same ratings. A game without an index, or two with one, is an error.
* **Teams.** A game is one match whose teams are its agents, each a team of one. An agent holding
  several seats of one game (a gauntlet's field copies) enters once, with its best seat's rank: the
  convention of the head-to-heads (:func:`training.arena.ratings.head_to_heads`: each agent's score
  is its best seat's score). A game whose seats are all one agent's (self-play) compares no one and
  is not rated.
* **Ties.** The ranks are the game record's: competition ranking (tied seats share the best rank of
  the tie, so ranks 1, 2, 2, 4), passed to openskill as ``ranks=``, which rates tied teams as tied.
  A forfeited game counts by its recorded ranks: the seat that forfeited ranks last.
* **No drift** (``tau`` = 0). An agent is a fixed program: its skill does not change from game to
  game. openskill's default ``tau`` = 25/300 adds ``tau²`` to every ``sigma²`` before each game, for
  players whose skill drifts; it would keep ``sigma`` from shrinking below a floor however many games
  are played, and weigh the last games more than the first.
* **Report.** Per agent: ``mu``, ``sigma``, the 95 % interval ``mu ± 1.96 sigma`` and openskill's
  conservative ``ordinal`` ``mu − 3 sigma``.

Reading the numbers: with the agents' ``mu``, the model puts agent ``i`` ahead of agent ``j`` in a game
of ``N`` teams with probability ``1 / (1 + exp(−(mu_i − mu_j) / c))`` and first with probability
``exp(mu_i / c) / Σ_q exp(mu_q / c)``, where ``c = √(N beta² + Σ_q sigma_q²)`` (about ``beta √N``
once the sigmas are small). ``sigma`` is the model's own uncertainty, which takes every game as
independent evidence: the games of one group share their tiles, so the interval is narrower than the
spread over tile orders (the Bradley–Terry bootstrap of :mod:`training.arena.ratings` resamples groups).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from .placings import agent_seats
from .ratings import Z95

__all__ = ["BETA", "MU", "SIGMA", "TAU", "WengLin", "model", "weng_lin"]

#: The prior mean and standard deviation of every agent's skill, the performance spread of one game
#: and the drift added per game (module docstring).
MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = 0.0


def model() -> PlackettLuce:
    """The Plackett–Luce model the ratings use: prior :data:`MU`, :data:`SIGMA`, performance spread
    :data:`BETA`, no drift (:data:`TAU`); openskill's other settings at their defaults."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


@dataclass(frozen=True)
class WengLin:
    """One agent's Weng–Lin rating after ``games`` rated games: ``mu`` ± ``sigma``, the 95 % interval
    ``mu_ci`` (``mu ± 1.96 sigma``) and the conservative ``ordinal`` (``mu − 3 sigma``)."""

    agent: str
    games: int
    mu: float
    sigma: float
    mu_ci: tuple[float, float]
    ordinal: float


def weng_lin(games: Iterable[Mapping[str, Any]], agents: Sequence[str]) -> list[WengLin]:
    """The Weng–Lin ratings (module docstring) of the agents of ``agents`` that were rated in ``games``
    (tournament game dicts with ``index``, ``seats`` and ``ranks``), in the order of ``agents``.
    ValueError for a game without an integer index, two games with one index, or games
    :func:`~training.arena.placings.agent_seats` refuses (different player counts, a seat whose agent is
    not in ``agents``, bad ranks)."""
    listed = list(games)
    if not all(isinstance(g.get("index"), int) for g in listed):
        raise ValueError("weng_lin: every game needs an integer index (its place in the schedule)")
    ordered = sorted(listed, key=lambda g: g["index"])
    for before, after in itertools.pairwise(ordered):
        if before["index"] == after["index"]:
            raise ValueError(f"weng_lin: two games with index {after['index']}")
    plackett_luce = model()
    ratings: dict[str, PlackettLuceRating] = {}
    counts: dict[str, int] = {}
    for g, mine in agent_seats(ordered, agents, "weng_lin"):
        if len(mine) < 2:
            continue  # one agent in every seat: no one to compare
        names = list(mine)
        # ints, as recorded: openskill 6.0 reads a rank that is no int as its team's position (ties lost)
        ranks: list[float] = [min(g["ranks"][seat] for seat in mine[name]) for name in names]
        teams = [[ratings[name] if name in ratings else plackett_luce.rating(name=name)] for name in names]
        for name, [rated] in zip(names, plackett_luce.rate(teams, ranks=ranks), strict=True):
            ratings[name] = rated
            counts[name] = counts.get(name, 0) + 1
    return [WengLin(name, counts[name], r.mu, r.sigma, (r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma), r.ordinal())
            for name in agents if (r := ratings.get(name)) is not None]
