"""Tournament schedules: which agents sit where on which tile order.

A *table* is the ordered list of agents that play together. Every table plays every seed once
per cyclic seat rotation, so each agent sits in every seat on the same tiles (for 2 players: the
seat-swapped pair of games). The games of one (table, seed) form a *group*: the unit that paired
statistics resample.

* round robin: one table per set of ``players`` distinct agents (every pair meets, for 2 players);
* gauntlet: one table per opponent of the field, the candidate in seat 0 and ``players - 1``
  copies of that opponent in the others (for 2 players: candidate vs each opponent);
* self play: one agent in every seat, one game per seed (a trainer's games, not a rating).

Fixtures are ordered seed-major, so a tournament stopped early has played every table about
equally often. A schedule holds at most :data:`MAX_GAMES` games: more seeds are refused (naming
``--seeds`` and the most these tables allow) before any fixture is built, never a MemoryError.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from carcassonne_env.engine import GameConfig

__all__ = ["MAX_GAMES", "Fixture", "ScheduleError", "gauntlet", "rotations", "round_robin", "self_play"]

#: The most games one schedule holds (its fixtures are built in memory, a few hundred bytes each).
MAX_GAMES = 1_000_000


class ScheduleError(ValueError):
    """A schedule cannot be built from these agents and settings."""


@dataclass(frozen=True)
class Fixture:
    """Game ``index`` of a tournament: ``seats[s]`` is the spec of the agent in seat ``s``.
    ``group`` numbers the (table, seed) whose rotations are played together."""

    index: int
    group: int
    seed: int
    seats: tuple[str, ...]


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic seat rotations of ``table``: agent ``table[i]`` sits in seat ``(i + r) % n`` in rotation r."""
    n = len(table)
    return [tuple(table[(s - r) % n] for s in range(n)) for r in range(n)]


def _check(agents: Sequence[str], players: int) -> None:
    if not GameConfig.MIN_PLAYERS <= players <= GameConfig.MAX_PLAYERS:
        raise ScheduleError(f"players: must be {GameConfig.MIN_PLAYERS}–{GameConfig.MAX_PLAYERS} (R3), got {players}")
    repeated = sorted({a for a in agents if list(agents).count(a) > 1})
    if repeated:
        raise ScheduleError(f"agents: each agent may be named once, repeated: {', '.join(repeated)}")


def _check_seeds(seeds: Sequence[int], games_per_seed: int) -> None:
    """At least one seed, and at most :data:`MAX_GAMES` games in all."""
    if not seeds:
        raise ScheduleError("seeds: at least one seed is needed")
    if len(seeds) * games_per_seed > MAX_GAMES:
        raise ScheduleError(f"seeds: {len(seeds):,} seeds make {len(seeds) * games_per_seed:,} games, more than the "
                            f"{MAX_GAMES:,} a schedule holds: at most {MAX_GAMES // games_per_seed:,} seeds (--seeds) "
                            "for these agents")


def _fixtures(tables: Sequence[tuple[str, ...]], seeds: Sequence[int]) -> list[Fixture]:
    _check_seeds(seeds, sum(len(table) for table in tables))
    fixtures: list[Fixture] = []
    for s, seed in enumerate(seeds):
        for t, table in enumerate(tables):
            group = s * len(tables) + t
            fixtures.extend(Fixture(len(fixtures), group, seed, seats) for seats in rotations(table))
    return fixtures


def round_robin(agents: Sequence[str], players: int, seeds: Sequence[int]) -> list[Fixture]:
    """Every set of ``players`` distinct agents plays every seed in every rotation."""
    _check(agents, players)
    if len(agents) < players:
        raise ScheduleError(f"agents: a round robin of {players}-player games needs at least {players} agents, "
                            f"got {len(agents)}")
    return _fixtures(list(itertools.combinations(agents, players)), seeds)


def gauntlet(candidate: str, field: Sequence[str], players: int, seeds: Sequence[int]) -> list[Fixture]:
    """The candidate against each opponent of ``field`` (``players - 1`` copies of it per game)."""
    _check([candidate, *field], players)
    if not field:
        raise ScheduleError("field: a gauntlet needs at least one opponent")
    return _fixtures([(candidate, *[opponent] * (players - 1)) for opponent in field], seeds)


def self_play(agent: str, players: int, seeds: Sequence[int]) -> list[Fixture]:
    """``agent`` in every seat, one game per seed (its own group): the games a self-play trainer learns
    from. Every seat is the same agent, so seat rotations would replay the same game."""
    _check([agent], players)
    _check_seeds(seeds, 1)
    return [Fixture(i, i, seed, (agent,) * players) for i, seed in enumerate(seeds)]
