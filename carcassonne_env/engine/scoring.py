"""What features are worth and who scores them (docs/rules.md R23, R24, R27, R28).

Pure functions of a feature's totals: the game's union-find (``union_find.py``, laid by
``board.py``) finds the features and their totals, ``valuation.py`` scores them *when* scoring
happens (T5, the end of the game, the end-now value) and returns followers; this module holds the
rules that turn totals into points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, Literal, NamedTuple

from .tiles import SegmentKind

__all__ = ["ScoreEvent", "ScoreReason", "award", "completed_value", "field_value", "final_value", "majority_counts"]

#: Why points changed hands: a feature of that kind scored (completed in T5, or at the end of the
#: game when ``ScoreEvent.final``), a watchtower bonus (R64), or a ransom (R48: the payer's event
#: has negative points, the captor's positive).
ScoreReason = Literal["city", "road", "monastery", "field", "watchtower", "ransom"]
"""What a :class:`ScoreEvent` scored: a feature (a field for its farmers), a watchtower's bonus or a ransom."""


class ScoreEvent(NamedTuple):
    """One change of one player's score, as ``Game.score_log`` records it.

    ``(x, y)`` is a tile of the feature that scored (the root's tile), the watchtower's tile, or
    (0, 0) for a ransom; ``final`` marks the end-game scoring of R27–R29.
    """

    turn: int
    player: int
    points: int
    reason: ScoreReason
    x: int
    y: int
    final: bool = False

_ROAD: Final = SegmentKind.ROAD
_MONASTERY: Final = SegmentKind.MONASTERY

#: R23: a completed monastery.
MONASTERY_VALUE = 9
#: R28: points per completed city bordering a field.
POINTS_PER_FIELD_CITY = 3


def completed_value(kind: SegmentKind, size: int, pennants: int, *, legacy_small_city: bool) -> int:
    """R23: a road scores its size, a city 2 × size + 2 × pennants (a 2-tile city 2 + pennants
    under ``legacy_small_city``, D16), a monastery 9. ``size`` counts distinct tiles (R7)."""
    if kind is _MONASTERY:
        return MONASTERY_VALUE
    if kind is _ROAD:
        return size
    if size == 2 and legacy_small_city:
        return 2 + pennants
    return 2 * size + 2 * pennants


def final_value(kind: SegmentKind, size: int, pennants: int) -> int:
    """R27, for a road, city or monastery still holding followers at the end: a road 1 per tile,
    a city 1 per tile plus 1 per pennant, a monastery 1 plus 1 per occupied ring position, i.e.
    ``size`` = the tiles of its 3×3 area. Fields score by :func:`field_value`."""
    if kind is SegmentKind.CITY:
        return size + pennants
    return size


def field_value(completed_cities: int) -> int:
    """R28: 3 per distinct completed city bordering the field."""
    return POINTS_PER_FIELD_CITY * completed_cities


def majority_counts(
    followers: Mapping[int, int],
    feature_of: Callable[[int], int],
    features: Iterable[int],
    players: int,
) -> dict[int, list[int]]:
    """Followers per player on each of ``features`` that holds any (R24).

    ``followers`` maps a segment to its follower's owner; ``feature_of`` maps a segment to its
    feature's key. Features without followers are left out: nobody scores them (R24, R25).
    """
    wanted = set(features)
    counts: dict[int, list[int]] = {}
    for segment, owner in followers.items():
        key = feature_of(segment)
        if key in wanted:
            c = counts.get(key)
            if c is None:
                c = counts[key] = [0] * players
            c[owner] += 1
    return counts


def award(scores: list[int], counts: Sequence[int], value: int) -> None:
    """R24: every player with the highest follower count scores ``value`` in full (``counts``: the
    followers per player on the feature; two players, the common case, compared without ``max``)."""
    if len(counts) == 2:
        a, b = counts
        if a >= b:
            scores[0] += value
        if b >= a:
            scores[1] += value
        return
    best = max(counts)
    for player, k in enumerate(counts):
        if k == best:
            scores[player] += value
