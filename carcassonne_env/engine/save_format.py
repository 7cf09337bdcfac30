"""A saved game as its validators read it: :class:`SaveError`, the typed field readers, the checked
document (:class:`SavedPosition`) and the roles actions play in a turn of the history (T2–T4).

The generic validator (:mod:`.save_validation`) and the expansions' validation hooks
(:class:`~.expansion.Expansion`, "saved games") share this module: an expansion parses and checks
its own saved state with the same readers, so every error names its field the same way (a path such
as ``tiles[3]`` or ``expansions.<name>.<key>[4]``). It sits below the expansions and the validator
and imports neither.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from .actions import Action, ActionKind, Phase
from .geometry import OFFSET, pack

if TYPE_CHECKING:
    from .config import GameConfig
    from .expansion import ExpansionState
    from .tiles import TileType

__all__ = [
    "REACH", "HistoryAction", "SaveError", "SavedPosition", "TurnRole", "by_position", "fail", "read_action",
    "read_coords", "read_int", "read_ints", "read_keys", "read_seq",
]

#: Largest |x| or |y| the packed coordinates represent (C1).
REACH = OFFSET - 1
_KINDS = tuple(ActionKind)
_SEQUENCES = (list, tuple)


class SaveError(ValueError):
    """A saved game breaks an invariant. ``field`` is the path of the offending part."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


def fail(field_name: str, message: str) -> NoReturn:
    """Raise :class:`SaveError` for ``field_name``."""
    raise SaveError(field_name, message)


# ---------------------------------------------------------------------------------- field readers
def read_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in [lo, hi]; bools, floats and numpy scalars are refused."""
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        fail(name, f"must be an int, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        fail(name, f"must be in {lo if lo is not None else '-∞'}..{hi if hi is not None else '∞'}, got {value}")
    return value


def read_seq(value: Any, name: str, length: int | None = None) -> Sequence[Any]:
    """``value`` as a list (of ``length`` entries, when given)."""
    if not isinstance(value, _SEQUENCES):
        fail(name, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        fail(name, f"must have {length} entries, got {len(value)}")
    return value


def read_ints(value: Any, name: str, length: int, lo: int | None = None, hi: int | None = None) -> list[int]:
    """``value`` as a list of ``length`` ints in [lo, hi]."""
    return [read_int(v, f"{name}[{i}]", lo, hi) for i, v in enumerate(read_seq(value, name, length))]


def read_keys(data: Any, at: str, keys: frozenset[str]) -> Mapping[str, Any]:
    """``data`` as a dict with exactly ``keys``; ``at`` is the path prefix ending in ``.``."""
    if not isinstance(data, dict):
        fail(at.rstrip("."), "must be a dict")
    for key in sorted(keys - data.keys()):
        fail(at + key, "missing")
    for key in sorted(str(k) for k in data.keys() - keys):
        fail(at + key, "unknown key")
    return data


def read_coords(x: Any, y: Any, name: str) -> int:
    """Packed (x, y) of a position the board can represent (C1)."""
    read_int(x, name, -REACH, REACH)
    read_int(y, name, -REACH, REACH)
    return pack(x, y)


def read_action(value: Any, name: str) -> Action:
    """``value`` as an Action: a list of four ints with a known kind."""
    if type(value) in _SEQUENCES and len(value) == 4:
        kind, x, y, arg = value
        if type(kind) is int and type(x) is int and type(y) is int and type(arg) is int and 0 <= kind < len(_KINDS):
            return Action(_KINDS[kind], x, y, arg)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value) and 0 <= kind < len(_KINDS):
            return Action(_KINDS[kind], int(x), int(y), int(arg))  # int subclasses such as ActionKind
    fail(name, f"must be an action [kind, x, y, arg] of ints with a known kind, got {value!r}")


_V = TypeVar("_V")


def by_position(entries: Any, at: str, clash: str, parse: Callable[[Any, str], _V]) -> dict[int, _V]:
    """``[x, y, value]`` entries as packed position → ``parse(value, name)``; a position given twice
    fails with ``clash`` (e.g. "two stacks") and the coordinates."""
    out: dict[int, _V] = {}
    for i, entry in enumerate(read_seq(entries, at)):
        name = f"{at}[{i}]"
        x, y, value = read_seq(entry, name, 3)
        p = read_coords(x, y, name)
        if p in out:
            fail(name, f"{clash} at ({x},{y})")
        out[p] = parse(value, name)
    return out


# ---------------------------------------------------------------------------------- the checked document
@dataclass
class SavedPosition:
    """A ``Game.to_dict`` document whose structure and types are checked; ``at`` prefixes every
    field path (``""``, or ``"start_position."`` for a built start position). Validation hooks read
    it and change nothing."""

    at: str
    config: GameConfig
    seed: int | None
    explicit_order: bool
    pile: list[TileType]
    drawn: int
    tiles: list[tuple[TileType, int, int]]  # (type, packed position, rotation) in placement order
    discarded: list[TileType]
    followers: dict[tuple[int, int], int]  # (packed position, slot) -> owner
    supply: list[int]
    scores: list[int]
    current: int
    turn: int
    phase: Phase
    tile: TileType | None
    history: list[Action]
    states: dict[str, ExpansionState]  # expansion name -> its parsed state (Expansion.parse_state)
    start_position: dict[str, Any] | None
    board: dict[int, int]  # packed position -> placement index


class TurnRole(Enum):
    """What an action other than PLACE is in its turn of the history (T2–T4). A turn is a PLACE,
    at most one PRELUDE, one CHOICE or OPENING choice (DEPLOY and PASS are choices) and, after an
    OPENING choice, at most one DECISION: the answer to the T4 decision that choice may open."""

    PRELUDE = "before the choice, at most once per turn"
    CHOICE = "the phase-2 choice"
    OPENING = "a phase-2 choice that may open the T4 decision"
    DECISION = "the answer to the T4 decision"


#: An action of the saved history as the walk saw it: (its index in ``history``, the action, the seat
#: that took it, the turn: the game's ``turn`` counter then). A plain tuple: the walk builds one per
#: expansion action of every load.
HistoryAction = tuple[int, Action, int, int]
