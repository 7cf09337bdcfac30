"""Quarter turns of an encoded sample: the observation, the action indices and a policy over them,
turned as the whole board is turned. A trainer fits turned copies of its samples (augmentation);
``tests/test_env_turns.py`` checks that a turned sample is exactly the encoding of the turned game.

**The turn.** ``k`` ∈ {1, 2, 3} quarter turns clockwise of the whole board about the start tile
(:func:`turn_point`: (x, y) → (y, −x) each), every tile's rotation r → r + k (mod 4): rotation r
turns a tile r quarter turns clockwise (:mod:`carcassonne_env.engine.tiles`). The rules name no
direction of the table (matching edges, rings and straight lines are all the same turned), so the
turned game is a game of the same config with the same tiles, pile, followers, towers, scores and
supplies; a segment's slot is its tile's own and does not change.

**The sample** turns entry by entry (:class:`QuarterTurns`):

* ``board`` (3W × 3W sub-cells): the picture turned on its last two axes. A tile's 3×3 picture in
  rotation r, turned k times, is its picture in rotation r + k (:func:`~.subcell_planes.stamp`; the
  tests check every catalogue tile). ``link_east`` and ``link_south`` are planes of edges: a link
  with the east neighbour turns into one with the south neighbour, a south link into one with the
  west neighbour, written at that neighbour (one sub-cell over).
* ``cells``: turned; ``rotation`` (r + 1) becomes ``(r + k) % 4 + 1``.
* ``vector``: the one-hot ``rotation`` of the tile just placed moves by k; nothing else names a
  direction (phase, seats, tile type, counts, scores, supplies, prisoners, rules).
* Actions: PLACE ``4·cell + r`` goes to the turned cell with rotation ``(r + k) % 4``; FLOOR
  ``3·cell + colour``, TOWER_TOP ``cell`` and CAPTURE ``(S + 1)·cell + slot`` to the turned cell with
  the same colour or slot (a slot is the tile's own; slot S is the tower top); DEPLOY ``slot``,
  NO_CAPTURE, RANSOM ``seat`` and PASS name no position and stay (DEPLOY names a slot of the tile
  just placed). A mask, or a policy over the legal actions, goes with its indices.

**The window.** The observation is cut at :meth:`.Window.around` the bounding box of the placed
tiles, whose centre is rounded down on each axis: when the box spans an even number of cells on an
axis, the turned window is not the window of the turned box but one or two cells beside it (and an
even W is not symmetric about its centre at all). The turned sample is shifted by that offset
(:class:`Turn`), which :meth:`QuarterTurns.turn` computes with :meth:`.Window.around` itself.

The shift moves nothing out of the sample exactly when the window covers the frontier
(:meth:`.Window.covers_frontier`: no tile in the window's border cells). Every nonzero entry and every
legal action lies on a tile or beside one (R11), so inside the window of the box and of the turned
box alike: covering depends only on the box's extents (each at most W − 2 for an odd W, W − 3 for an
even one), which a turn swaps. A sample whose window does not cover the frontier (the board overflows
the window: tiles or legal actions lie outside it) is not turned: :meth:`QuarterTurns.turn` returns
None. It is recognised from the ``tile`` plane alone: a played game's tiles are 4-connected (R11), so
some tile in the window and none in its border cells means every tile lies inside; a window that is
not the unclamped window of those tiles (no played game's, whose box holds the start tile) is refused
too.

Index maps are precomputed per window size and k and cached; turning a sample is a few gathers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..engine import Action, ActionKind
from .codec import ActionCodec
from .layout import Layout
from .window import BoundingBox, Window

__all__ = ["QuarterTurns", "Turn", "turn_action", "turn_point"]

_NONE = -1


def turn_point(x: int, y: int, k: int) -> tuple[int, int]:
    """(x, y) after ``k`` quarter turns clockwise about (0, 0) (north up: north turns to east)."""
    for _ in range(k % 4):
        x, y = y, -x
    return x, y


def turn_action(action: Action, k: int) -> Action:
    """``action`` in the game turned by ``k``: its position turned, a placement's rotation + k, the rest
    as it is (the actions that name no position carry (0, 0), which a turn keeps)."""
    kind, x, y, arg = action
    return Action(kind, *turn_point(x, y, k), (arg + k) % 4 if kind == ActionKind.PLACE else arg)


class Turn(NamedTuple):
    """``k`` quarter turns clockwise of one sample, then a shift: entry ``(row, col)`` of the turned
    game's window is entry ``(row + rows, col + cols)`` of the turned window (module docstring)."""

    k: int
    rows: int
    cols: int


def _check(k: int) -> None:
    if k not in (1, 2, 3):
        raise ValueError(f"a quarter turn is k = 1, 2 or 3 clockwise, got {k}")


@cache
def _board_scatter(planes: int, east: int, south: int, window: int, k: int) -> npt.NDArray[np.int32]:
    """Flat index of the ``board`` tensor (``planes`` × 3W × 3W) → its flat index after ``k`` turns
    (no shift), ``-1`` for a link across the window's border that turns out of it."""
    n = 3 * window
    size = planes * n * n
    once = np.rot90(np.arange(size, dtype=np.intp).reshape(planes, n, n), -1, axes=(1, 2)).copy()
    # once[d] = the source of entry d after one clockwise turn (a gather); fix the two link planes:
    # a south link turns into the east link of the west neighbour, an east link into a south link.
    turned_south = once[south].copy()
    once[south] = once[east]
    once[east, :, :-1] = turned_south[:, 1:]
    once[east, :, -1] = _NONE
    gather = np.arange(size, dtype=np.intp)
    flat_once = once.reshape(-1)
    for _ in range(k):
        gather = np.where(flat_once < 0, _NONE, gather[flat_once])
    scatter = np.full(size, _NONE, dtype=np.int32)
    kept = gather >= 0
    scatter[gather[kept]] = np.flatnonzero(kept)
    return scatter


@cache
def _action_scatter(window: int, k: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(codec index → its index after ``k`` turns with no shift, codec index → cells per index step
    of its segment: 0 for the segments that name no cell)."""
    codec = ActionCodec(window)
    cells = window * window
    source = np.rot90(np.arange(cells, dtype=np.int64).reshape(window, window), -k).reshape(-1)
    cell_to = np.empty(cells, dtype=np.int64)
    cell_to[source] = np.arange(cells, dtype=np.int64)  # cell → the cell it turns to, as the planes turn
    turned = np.arange(codec.n, dtype=np.int64)
    per_cell = np.zeros(codec.n, dtype=np.int64)
    for seg in codec.segments:
        if not seg.per_cell:
            continue
        cell, arg = np.divmod(np.arange(seg.size, dtype=np.int64), seg.per_cell)
        if seg.kind == ActionKind.PLACE:
            arg = (arg + k) % 4
        turned[seg.start:seg.stop] = seg.start + seg.per_cell * cell_to[cell] + arg
        per_cell[seg.start:seg.stop] = seg.per_cell
    return turned, per_cell


def _shifted(planes: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """``out[..., r, c] = planes[..., r + rows, c + cols]``, 0 where that lies outside."""
    out = np.zeros_like(planes)
    h, w = planes.shape[-2:]
    out[..., max(-rows, 0):h - max(rows, 0), max(-cols, 0):w - max(cols, 0)] = \
        planes[..., max(rows, 0):h - max(-rows, 0), max(cols, 0):w - max(-cols, 0)]
    return out


class QuarterTurns:
    """The quarter turns of samples encoded under ``layout`` (its window W and planes): find a
    sample's :class:`Turn` with :meth:`turn`, then turn its parts with it."""

    def __init__(self, layout: Layout) -> None:
        self.size = layout.window
        self._board = (len(layout.board), layout.board_index["link_east"], layout.board_index["link_south"],
                       layout.window)
        self._tile = layout.cells_index["tile"]
        self._rotation = layout.cells_index["rotation"]
        entry = layout.vector_entry["rotation"]
        self._vector_rotation = slice(entry.start, entry.stop)

    def turn(self, cells: np.ndarray, k: int) -> Turn | None:
        """The turn by ``k`` of the sample whose ``cells`` planes are given, or None when its window
        does not cover the frontier (module docstring: the turned game would not fit the sample)."""
        _check(k)
        w = self.size
        tiles = cells[self._tile]
        rows = np.flatnonzero(tiles.any(axis=1))
        cols = np.flatnonzero(tiles.any(axis=0))
        if not rows.size or rows[0] == 0 or cols[0] == 0 or rows[-1] == w - 1 or cols[-1] == w - 1:
            return None
        # In the sample's own frame, entry (row, col) lies at (x, y) = (col, −row): its window is
        # Window(w, 0, 0). Far limits: no clamp (a covered frontier is never clamped, window.py).
        far = 4 * w
        box = BoundingBox(int(cols[0]), int(cols[-1]), -int(rows[-1]), -int(rows[0]))
        if Window.around(w, box, far) != Window(w, 0, 0):
            return None  # not the window of its own tiles: a sample of no played game
        corners = [turn_point(x, y, k) for x, y in ((box.x0, box.y0), (box.x1, box.y1))]
        turned_box = BoundingBox(min(x for x, _ in corners), max(x for x, _ in corners),
                                 min(y for _, y in corners), max(y for _, y in corners))
        square = [turn_point(x, y, k) for x, y in ((0, 0), (w - 1, 1 - w))]
        left, top = min(x for x, _ in square), max(y for _, y in square)
        window = Window.around(w, turned_box, far)
        return Turn(k, top - window.top, window.left - left)

    def board_indices(self, flat: npt.NDArray[np.integer], turn: Turn) -> npt.NDArray[np.int32]:
        """Flat indices into the ``board`` tensor turned by ``turn`` (the nonzero entries of a board
        kept sparse: their values stay as they are)."""
        n = 3 * self.size
        turned: npt.NDArray[np.int32] = _board_scatter(*self._board, turn.k)[flat] - 3 * (turn.rows * n + turn.cols)
        return turned

    def board(self, board: np.ndarray, turn: Turn) -> np.ndarray:
        """The ``board`` planes turned by ``turn``."""
        flat = board.reshape(-1)
        nonzero = np.flatnonzero(flat)
        out = np.zeros_like(flat)
        out[self.board_indices(nonzero, turn)] = flat[nonzero]
        return out.reshape(board.shape)

    def cells(self, cells: np.ndarray, turn: Turn) -> np.ndarray:
        """The ``cells`` planes turned by ``turn``."""
        out = _shifted(np.rot90(cells, -turn.k, axes=(1, 2)), turn.rows, turn.cols)
        rotation = out[self._rotation]
        placed = rotation > 0
        rotation[placed] = (rotation[placed] - 1 + turn.k) % 4 + 1
        return out

    def vector(self, vector: np.ndarray, turn: Turn) -> np.ndarray:
        """The ``vector`` turned by ``turn`` (only the just-placed tile's rotation changes)."""
        out: np.ndarray = vector.copy()
        out[self._vector_rotation] = np.roll(vector[self._vector_rotation], turn.k)
        return out

    def observation(self, observation: Mapping[str, np.ndarray], turn: Turn) -> dict[str, np.ndarray]:
        """``{"board", "cells", "vector"}`` turned by ``turn``."""
        return {"board": self.board(observation["board"], turn), "cells": self.cells(observation["cells"], turn),
                "vector": self.vector(observation["vector"], turn)}

    def actions(self, indices: npt.NDArray[np.integer], turn: Turn) -> npt.NDArray[np.int64]:
        """Codec indices turned by ``turn``, in the order given (a policy over them keeps its order)."""
        scatter, per_cell = _action_scatter(self.size, turn.k)
        turned: npt.NDArray[np.int64] = scatter[indices] - per_cell[indices] * (turn.rows * self.size + turn.cols)
        return turned

    def mask(self, mask: np.ndarray, turn: Turn) -> np.ndarray:
        """An action mask (or any array over the codec's indices) turned by ``turn``."""
        nonzero = np.flatnonzero(mask)
        out = np.zeros_like(mask)
        out[self.actions(nonzero, turn)] = mask[nonzero]
        return out
