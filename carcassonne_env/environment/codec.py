"""The action codec: one flat ``Discrete(N)`` over named segments ↔ engine actions.

Segments in index order: PLACE (4 per window cell), DEPLOY (S = 8 slots), FLOOR (3 per cell),
TOWER_TOP (1 per cell), CAPTURE (S + 1 per cell, the last for the tower top), NO_CAPTURE (1),
RANSOM (5 relative seats) and PASS (1); :data:`INDEX_MEANING` says what an offset within each
segment means, and cell ``c = row * W + col`` is addressed through the :class:`~.window.Window`
of the decision. N = 17·W² + 15 (16,352 for the default W = 31). The layout depends on W only, so
every config with the same W shares it; indices a config can never use (FLOOR without The Tower,
RANSOM seats beyond the player count) are simply never legal.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..engine import (
    TOWER_TOP_SLOT,
    Action,
    ActionKind,
    FloorColour,
    Game,
    GameConfig,
    IllegalActionError,
    load_catalogue,
)
from .window import Window

__all__ = ["INDEX_MEANING", "ActionCodec", "Segment"]

_RANSOM_SEATS = GameConfig.MAX_PLAYERS - 1
#: What the offset of an index within its segment means (docs/env.md).
INDEX_MEANING: dict[ActionKind, str] = {
    ActionKind.PLACE: "`4 * cell + rotation`",
    ActionKind.DEPLOY: "segment `slot` of the tile just placed",
    ActionKind.FLOOR: "`3 * cell + colour` (0 normal, 1 black, 2 white)",
    ActionKind.TOWER_TOP: "`cell`",
    ActionKind.CAPTURE: "`(S + 1) * cell + slot`; slot S = the follower on the tower top",
    ActionKind.NO_CAPTURE: "0",
    ActionKind.RANSOM: "relative seat of the captor paid − 1 (seats 1..5 after the payer)",
    ActionKind.PASS: "0",
}


class Segment(NamedTuple):
    """A named block of action indices: ``per_cell`` > 0 for segments spread over window cells."""

    kind: ActionKind
    start: int
    size: int
    per_cell: int

    @property
    def stop(self) -> int:
        return self.start + self.size


class ActionCodec:
    """Index ↔ :class:`~carcassonne_env.engine.Action` for windows of ``size`` cells.

    Encoding and decoding take the window of the decision and the seat of the player to move (for
    RANSOM's relative seat); the codec itself holds no game state.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.slots = load_catalogue().max_segments
        cells = size * size
        layout = (
            (ActionKind.PLACE, 4),
            (ActionKind.DEPLOY, -self.slots),
            (ActionKind.FLOOR, 3),
            (ActionKind.TOWER_TOP, 1),
            (ActionKind.CAPTURE, self.slots + 1),
            (ActionKind.NO_CAPTURE, -1),
            (ActionKind.RANSOM, -_RANSOM_SEATS),
            (ActionKind.PASS, -1),
        )
        segments = []
        start = 0
        for kind, width in layout:
            size_ = width * cells if width > 0 else -width
            segments.append(Segment(kind, start, size_, max(width, 0)))
            start += size_
        self.segments: tuple[Segment, ...] = tuple(segments)
        self.segment = {s.kind: s for s in segments}
        self.n = start
        self._starts = [s.start for s in segments]

    # ------------------------------------------------------------------ encode
    def encode(self, action: Action, window: Window, player: int, players: int) -> int | None:
        """Index of ``action``, or None when its position lies outside ``window``."""
        kind, x, y, arg = action
        seg = self.segment[kind]
        if seg.per_cell:
            if not window.contains(x, y):
                return None
            if kind == ActionKind.CAPTURE and arg == TOWER_TOP_SLOT:
                arg = self.slots
            return seg.start + seg.per_cell * window.cell(x, y) + arg
        if kind == ActionKind.RANSOM:
            return seg.start + (arg - player) % players - 1
        return seg.start + arg

    def encode_all(
        self, legal: Sequence[Action], window: Window, player: int, players: int, inside: bool
    ) -> tuple[list[int], int]:
        """Indices of the encodable ``legal`` actions and how many could not be encoded.

        ``inside`` promises that every position of ``legal`` lies in ``window`` (the caller knows
        when the window covers the frontier); a PLACE-only list is then encoded without checks.
        """
        if inside and legal and legal[0][0] == ActionKind.PLACE:
            w = window.size
            k0 = self.segment[ActionKind.PLACE].start + 4 * (window.top * w - window.left)
            w4 = 4 * w
            return [k0 + 4 * x - w4 * y + r for _, x, y, r in legal], 0
        out = []
        for action in legal:
            index = self.encode(action, window, player, players)
            if index is not None:
                out.append(index)
        return out, len(legal) - len(out)

    def legal_indices(self, game: Game, window: Window, inside: bool) -> tuple[list[int], int]:
        """:meth:`encode_all` of ``game``'s legal actions for the player to move."""
        return self.encode_all(game.legal_actions(), window, game.current_player, game.num_players, inside)

    def mask(self, indices: list[int]) -> np.ndarray:
        """The int8 action mask with a 1 at each of ``indices``."""
        mask = np.zeros(self.n, dtype=np.int8)
        if indices:
            mask[indices] = 1
        return mask

    # ------------------------------------------------------------------ decode
    def split(self, index: int) -> tuple[Segment, int, int]:
        """(segment, cell, argument) of ``index``; cell is -1 for segments not spread over cells."""
        if not 0 <= index < self.n:
            raise IllegalActionError(f"action {index} is outside 0..{self.n - 1}")
        seg = self.segments[bisect_right(self._starts, index) - 1]
        offset = index - seg.start
        if seg.per_cell:
            cell, arg = divmod(offset, seg.per_cell)
            return seg, cell, arg
        return seg, -1, offset

    def decode(
        self, index: int, window: Window, player: int, players: int, placed: tuple[int, int] | None
    ) -> Action:
        """The engine action of ``index``; ``placed`` is where this turn's tile lies (for DEPLOY).

        Raises IllegalActionError for an index that names no action in this state.
        """
        seg, cell, arg = self.split(index)
        kind = seg.kind
        if seg.per_cell:
            x, y = window.position(cell)
            if kind == ActionKind.CAPTURE and arg == self.slots:
                arg = TOWER_TOP_SLOT
            return Action(kind, x, y, arg)
        if kind == ActionKind.DEPLOY:
            if placed is None:
                raise IllegalActionError(f"action {index} ({self.describe(index)}): no tile was placed this turn")
            return Action(kind, placed[0], placed[1], arg)
        if kind == ActionKind.RANSOM:
            if arg + 1 >= players:
                raise IllegalActionError(f"action {index} ({self.describe(index)}): this game has {players} players")
            return Action(kind, 0, 0, (player + arg + 1) % players)
        return Action(kind)

    def decode_for(self, game: Game, index: int, window: Window) -> Action:
        """:meth:`decode` of ``index`` in ``game``'s current decision."""
        return self.decode(index, window, game.current_player, game.num_players, game.placed_position)

    def markdown(self) -> str:
        """The segment table of docs/env.md for this window size."""
        rows = ["| segment | first index | size | offset within the segment |", "|---|---|---|---|"]
        rows += [f"| {s.kind.name} | {s.start} | {s.size} | {INDEX_MEANING[s.kind]} |" for s in self.segments]
        return "\n".join(rows) + "\n"

    def describe(self, index: int, window: Window | None = None) -> str:
        """``index`` in words; with a window, positions are board coordinates too."""
        seg, cell, arg = self.split(index)
        kind = seg.kind
        where = ""
        if seg.per_cell:
            row, col = divmod(cell, self.size)
            where = f" cell {cell} (row {row}, col {col})"
            if window is not None:
                where += " = ({},{})".format(*window.position(cell))
        if kind == ActionKind.PLACE:
            return f"PLACE{where} rotation {arg}"
        if kind == ActionKind.DEPLOY:
            return f"DEPLOY slot {arg} of the tile just placed"
        if kind == ActionKind.FLOOR:
            return f"FLOOR{where} {FloorColour(arg).name.lower()}"
        if kind == ActionKind.TOWER_TOP:
            return f"TOWER_TOP{where}"
        if kind == ActionKind.CAPTURE:
            return f"CAPTURE{where} " + ("tower top" if arg == self.slots else f"slot {arg}")
        if kind == ActionKind.RANSOM:
            return f"RANSOM to the captor {arg + 1} seat(s) after the payer"
        return kind.name
