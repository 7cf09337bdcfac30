"""Actions and decision phases (docs/rules.md §5).

An :class:`Action` is a plain named tuple ``(kind, x, y, arg)`` so that legal-action lists are cheap
to build and actions serialise as JSON lists; its docstring says what each field means for each
:class:`ActionKind`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from enum import IntEnum
from typing import Final, NamedTuple, SupportsIndex, cast

__all__ = [
    "TOWER_TOP_SLOT",
    "Action",
    "ActionKind",
    "FloorColour",
    "IllegalActionError",
    "Phase",
    "as_action",
]

TOWER_TOP_SLOT: Final = -1
"""Slot of a follower standing on top of a tower (R42): the ``arg`` of a CAPTURE of that follower."""


class ActionKind(IntEnum):
    """What an :class:`Action` does: the first field of every action, an answer to one of the turn's
    decisions (docs/rules.md §5): PLACE to T2, RANSOM, DEPLOY, FLOOR, TOWER_TOP and PASS to T3,
    CAPTURE and NO_CAPTURE to T4."""

    PLACE = 0
    """T2: put the drawn tile on the board (R11, R12)."""
    DEPLOY = 1
    """T3: put a follower on a segment of the tile just placed (R14)."""
    FLOOR = 2
    """T3: a floor on a bare foundation or an open tower (R35 B, C; black or white with Black Tower)."""
    TOWER_TOP = 3
    """T3: a follower from the supply onto an open tower, closing it (R35 D)."""
    CAPTURE = 4
    """T4: capture a follower in the capture area of the tower that just got a floor (R39–R42)."""
    NO_CAPTURE = 5
    """T4: capture nothing (capturing is optional, R39)."""
    RANSOM = 6
    """T3, before the choice: pay 3 points to take back a follower a player holds prisoner (R48)."""
    PASS = 7
    """T3: no follower and no floor (R35 E)."""


class FloorColour(IntEnum):
    """Colour of a tower floor (R51). Without Black Tower every floor is NORMAL."""

    NORMAL = 0
    BLACK = 1
    WHITE = 2


class Phase(IntEnum):
    """The decision the current player faces (T2, T3, T4), or the end of the game.

    ``DECISION`` is another name of ``CAPTURE``: the T4 decision an expansion opens, under the name
    the generic engine uses (an alias, so it is neither listed nor saved: ``Phase.DECISION.name`` is
    ``"CAPTURE"``, the Tower's capture decision, the only T4 decision of the rules)."""

    PLACE = 0
    ACTION = 1
    CAPTURE = 2
    GAME_OVER = 3
    DECISION = 2


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the message says why."""


class Action(NamedTuple):
    """One decision: ``(kind, x, y, arg)``, what ``Game.legal_actions()`` lists and ``Game.apply`` takes.

    ============  =================  ============================================
    kind          (x, y)             arg
    ============  =================  ============================================
    PLACE         target position    rotation 0..3 (C2)
    DEPLOY        placed tile        segment slot on that tile
    FLOOR         foundation         floor colour (:class:`FloorColour`)
    TOWER_TOP     tower              0
    CAPTURE       follower position  segment slot, or :data:`TOWER_TOP_SLOT`
    NO_CAPTURE    0, 0               0
    RANSOM        0, 0               the captor paid (seat)
    PASS          0, 0               0
    ============  =================  ============================================

    Fields a kind does not use are 0. The constructors below build each kind
    (``Action.place(0, 1, 3)``); :meth:`coerce` reads any ``(kind, x, y, arg)`` sequence (a JSON list).
    """

    kind: ActionKind
    x: int = 0
    y: int = 0
    arg: int = 0

    @classmethod
    def place(cls, x: int, y: int, rotation: int) -> Action:
        """PLACE the drawn tile at (x, y), turned ``rotation`` quarter-turns clockwise (0..3, C2)."""
        return cls(ActionKind.PLACE, x, y, rotation)

    @classmethod
    def deploy(cls, x: int, y: int, slot: int) -> Action:
        """DEPLOY a follower on segment ``slot`` of the tile just placed at (x, y)."""
        return cls(ActionKind.DEPLOY, x, y, slot)

    @classmethod
    def floor(cls, x: int, y: int, colour: FloorColour = FloorColour.NORMAL) -> Action:
        """Add a FLOOR of ``colour`` to the tower foundation at (x, y)."""
        return cls(ActionKind.FLOOR, x, y, colour)

    @classmethod
    def tower_top(cls, x: int, y: int) -> Action:
        """Put a follower on TOWER_TOP of the tower at (x, y)."""
        return cls(ActionKind.TOWER_TOP, x, y, 0)

    @classmethod
    def capture(cls, x: int, y: int, slot: int) -> Action:
        """CAPTURE the follower on segment ``slot`` of the tile at (x, y) (:data:`TOWER_TOP_SLOT`: the one
        on the tower top there)."""
        return cls(ActionKind.CAPTURE, x, y, slot)

    @classmethod
    def ransom(cls, captor: int) -> Action:
        """Pay a RANSOM to ``captor`` (a seat) for a follower it holds prisoner."""
        return cls(ActionKind.RANSOM, 0, 0, captor)

    @classmethod
    def coerce(cls, data: Sequence[int]) -> Action:
        """The canonical Action for any (kind, x, y, arg) sequence of integers (e.g. a JSON list
        or numpy ints). Floats, strings and unknown kinds raise IllegalActionError."""
        try:  # read as SupportsIndex, not int: compiled, an int-typed unpacking refuses numpy ints
            kind, x, y, arg = cast("Sequence[SupportsIndex]", data)
            return cls(ActionKind(operator.index(kind)), operator.index(x), operator.index(y), operator.index(arg))
        except (TypeError, ValueError):
            raise IllegalActionError(f"malformed action {data!r}: expected (kind, x, y, arg) integers") from None

    def __str__(self) -> str:
        try:
            k = ActionKind(self.kind)
        except ValueError:
            return repr(tuple(self))
        where = f"({self.x},{self.y})"
        if k is ActionKind.PLACE:
            return f"PLACE {where} rot {self.arg}"
        if k is ActionKind.DEPLOY:
            return f"DEPLOY {where} slot {self.arg}"
        if k is ActionKind.FLOOR:
            colour = FloorColour(self.arg).name.lower() if self.arg in (0, 1, 2) else f"colour {self.arg}"
            return f"FLOOR {where} {colour}"
        if k is ActionKind.TOWER_TOP:
            return f"TOWER_TOP {where}"
        if k is ActionKind.CAPTURE:
            slot = "top" if self.arg == TOWER_TOP_SLOT else f"slot {self.arg}"
            return f"CAPTURE {where} {slot}"
        if k is ActionKind.RANSOM:
            return f"RANSOM to player {self.arg}"
        return k.name if not (self.x or self.y or self.arg) else f"{k.name} {tuple(self)[1:]}"

    def unused_fields_are_zero(self) -> bool:
        """Whether the fields this action's kind does not use are 0 (the table of :class:`Action`)."""
        k = self.kind
        if k == ActionKind.PASS or k == ActionKind.NO_CAPTURE:
            return not (self.x or self.y or self.arg)
        if k == ActionKind.RANSOM:
            return not (self.x or self.y)
        if k == ActionKind.TOWER_TOP:
            return not self.arg
        return True


PASS: Final = Action(ActionKind.PASS)
NO_CAPTURE: Final = Action(ActionKind.NO_CAPTURE)


def _is_action_class(value: object) -> bool:
    """``type(value) is Action``, in a function of its own: inline, a compiled engine (mypyc) would
    take the fields of ``value`` as Action's (ints) from then on and refuse a float with its own
    TypeError, before :meth:`Action.coerce` can name what is wrong."""
    return type(value) is Action


def as_action(action: Action | Sequence[int]) -> Action:
    """``action`` as an :class:`Action`: itself when it is one with plain fields (the fast path of
    ``apply``), else :meth:`Action.coerce`, which names what is wrong."""
    if not _is_action_class(action):
        return Action.coerce(action)
    # An Action is a tuple: its fields read as objects (a compiled engine neither unboxes them nor
    # indexes through the generic sequence protocol).
    raw = cast("tuple[object, ...]", action)
    if (
        type(raw[0]) is not ActionKind
        or type(raw[1]) is not int
        or type(raw[2]) is not int
        or type(raw[3]) is not int
    ):
        return Action.coerce(action)
    return cast(Action, action)
