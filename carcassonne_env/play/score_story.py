"""Every score explained: a table's score log as lines, as the page's JSON and as a breakdown by category.

The engine records each change of a score in :attr:`Game.score_log <carcassonne_env.engine.Game.score_log>`
(a :class:`~carcassonne_env.engine.ScoreEvent`: turn, player, points, reason, where, and ``final``
for the end-of-game scoring of R27–R29); the table keeps that log on from the game's first move
(:class:`~.session.PlaySession`). Each reason the engine has falls in one category:

===============  ===============  =========================================================
reason           category         points
===============  ===============  =========================================================
``city``         ``cities``       a city completed, or unfinished at the end of the game
``road``         ``roads``        a road completed, or unfinished at the end
``monastery``    ``monasteries``  a monastery completed, or unfinished at the end
``field``        ``fields``       a field (farmers) at the end of the game
``watchtower``   ``watchtowers``  a watchtower's bonus
``ransom``       ``ransoms``      a ransom: -3 for the payer, +3 for the captor (net per player)
===============  ===============  =========================================================

plus ``start`` (:data:`START`), the points a game began with (a built start position), a column
only when some player has them.

Invariant: a player's breakdown sums exactly to the player's score: ``start`` plus the points of
the player's events. The lines come from :func:`~carcassonne_env.viewer.snapshots.describe_event`,
the replay viewer's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..engine import ScoreEvent, ScoreReason
from ..viewer.palette import SEAT_NAMES
from ..viewer.snapshots import describe_event

__all__ = ["CATEGORIES", "CATEGORY_OF", "START", "ScoreStory", "event_line"]

#: The category of each of the engine's score reasons (module docstring).
CATEGORY_OF: Final[dict[ScoreReason, str]] = {
    "city": "cities", "road": "roads", "monastery": "monasteries", "field": "fields",
    "watchtower": "watchtowers", "ransom": "ransoms",
}
#: The categories, in the order of the breakdown's columns.
CATEGORIES: Final[tuple[str, ...]] = tuple(CATEGORY_OF.values())
#: The category of the points a game started with (a built start position).
START: Final = "start"


def event_line(event: ScoreEvent) -> str:
    """``event`` in one line: who, how many, why and where (``Blue +8: city at (1,-2), completed``)."""
    return f"{SEAT_NAMES[event.player]} {event.points:+d}: {describe_event(event)}"


def _event_json(event: ScoreEvent) -> dict[str, Any]:
    """One entry of ``events`` in :meth:`ScoreStory.to_json` (``where`` null for a ransom)."""
    return {"turn": event.turn + 1, "player": event.player, "name": SEAT_NAMES[event.player],
            "points": event.points, "category": CATEGORY_OF[event.reason], "reason": event.reason,
            "where": None if event.reason == "ransom" else [event.x, event.y], "final": event.final,
            "text": event_line(event)}


@dataclass(frozen=True)
class ScoreStory:
    """The score changes of a game so far: ``events`` (oldest first, every one since the game's
    origin), ``start`` the scores at the origin (zeros, or a built position's) and whether the game
    is over (``final``: the breakdown is the final one)."""

    events: tuple[ScoreEvent, ...]
    start: tuple[int, ...]
    final: bool

    def categories(self) -> list[str]:
        """The breakdown's columns: :data:`CATEGORIES`, after :data:`START` when some score began above 0."""
        return ([START] if any(self.start) else []) + list(CATEGORIES)

    def by_category(self) -> list[dict[str, int]]:
        """Each player's points by category (every column of :meth:`categories`, zeros included)."""
        rows = [dict.fromkeys(self.categories(), 0) for _ in self.start]
        for player, points in enumerate(self.start):
            if points:
                rows[player][START] = points
        for event in self.events:
            rows[event.player][CATEGORY_OF[event.reason]] += event.points
        return rows

    def to_json(self) -> dict[str, Any]:
        """``{"events", "categories", "breakdown", "final"}`` for the page (docs/play.md): ``events``
        ``{"turn" (1-based), "player", "name", "points", "category", "reason", "where" ([x, y] or
        null), "final", "text"}``; ``breakdown`` ``{"player", "name", "by_category", "total"}``."""
        return {
            "events": [_event_json(e) for e in self.events],
            "categories": self.categories(),
            "breakdown": [{"player": p, "name": SEAT_NAMES[p], "by_category": row, "total": sum(row.values())}
                          for p, row in enumerate(self.by_category())],
            "final": self.final,
        }

    def table(self, names: list[str]) -> str:
        """The breakdown as a text table: a row per player (``names``), a column per category and the total."""
        columns = [*self.categories(), "total"]
        rows = [[*row.values(), sum(row.values())] for row in self.by_category()]
        first = max(len(name) for name in names)
        widths = [max(len(c), *(len(str(r[k])) for r in rows)) for k, c in enumerate(columns)]
        lines = ["  ".join([" " * first, *(c.rjust(w) for c, w in zip(columns, widths, strict=True))])]
        lines += ["  ".join([name.ljust(first), *(str(v).rjust(w) for v, w in zip(row, widths, strict=True))])
                  for name, row in zip(names, rows, strict=True)]
        return "\n".join(lines)
