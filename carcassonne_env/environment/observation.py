"""The observation encoder: egocentric numpy observations of one game (layout in :mod:`.layout`).

``observation(game, observer)`` returns ``{"board", "cells", "vector"}``: fresh arrays every call,
shapes and dtypes fixed by the config and window, seats rotated so that the observer is seat 0.
The planes come from the :class:`~.mirror.Mirror` (kept up to date by :meth:`Encoder.sync`) and are
cut out at the current window; the transient ``placed``/``capture_origin`` cells and the vector
are written per call. Nothing here reads the hidden order of the pile.
"""

from __future__ import annotations

import copy

import numpy as np

from ..engine import Game, GameConfig, Phase
from .layout import Layout, rules_entries
from .mirror import Mirror
from .window import Window

__all__ = ["Encoder"]


def _seat_perm(size: int, firsts: tuple[int, ...], players: int, observer: int) -> np.ndarray:
    """Channel order that rotates each block of seat planes (starting at ``firsts``) to the observer."""
    perm = list(range(size))
    for first in firsts:
        for k in range(players):
            perm[first + k] = first + (observer + k) % players
    return np.array(perm, dtype=np.intp)


class Encoder:
    """Observations of one game at a time for any observer; call :meth:`reset`, then :meth:`sync`
    after every step.

    Invariant: after ``sync``, :attr:`window` is the window of the current decision
    (:meth:`.Window.around` the bounding box) and every observation reflects the game as it is.
    """

    def __init__(self, config: GameConfig, window: int) -> None:
        self.config = config
        self.layout = layout = Layout(config, window)
        self.size = window
        self.mirror = Mirror(layout, limit=window)
        self.window = Window.around(window, self.mirror.box, window)
        n = config.players
        self.players = n
        self._tower = config.has("tower")
        b, c = layout.board_index, layout.cells_index
        seats = [[(o + k) % n for k in range(n)] for o in range(n)]
        self._seats = seats
        board_seats = (b["follower_s0"], b["feature_followers_s0"])
        self._board_perm = [_seat_perm(len(layout.board), board_seats, n, o) for o in range(n)]
        self._cells_perm = [_seat_perm(len(layout.cells), (c["tower_top_s0"],), n, o) for o in range(n)]
        self._floors_idx = [np.array([3 * p + k for p in s for k in range(3)], dtype=np.intp) for s in seats]
        self._prisoners_idx = [np.array([a * n + o for a in s for o in s], dtype=np.intp) for s in seats]
        self._placed_plane = c["placed"]
        self._origin_plane = c["capture_origin"]
        v = layout.vector_entry
        self._v = {name: v[name].start for name in v}
        self._capture_origin: tuple[int, int] | None = None
        rules = v["expansions"].start
        self._rules = slice(rules, v["extra_foundation_tiles"].stop)
        self._rules_values = rules_entries(config)

    def reset(self, game: Game) -> None:
        """Mirror ``game`` from scratch (a new game, or any game in any phase)."""
        self.mirror.reset(game)
        self._update(game)

    def sync(self, game: Game) -> None:
        """Catch up with ``game`` after any number of actions were applied to it."""
        self.mirror.sync(game)
        self._update(game)

    def copy(self) -> Encoder:
        """An independent encoder of the same position (:meth:`.Mirror.copy`): :meth:`sync` on the copy
        leaves this one as it is. A search encodes each leaf by syncing a copy of its root's encoder."""
        new = copy.copy(self)
        new.mirror = self.mirror.copy()
        return new

    def continues_into(self, game: Game) -> bool:
        """Whether :meth:`sync` can bring this encoder to ``game``, another object than the one it
        mirrors (a copy played on): same config, and :meth:`.Mirror.continues_into`."""
        return game.config == self.config and self.mirror.continues_into(game)

    def _update(self, game: Game) -> None:
        self.window = Window.around(self.size, self.mirror.box, self.size)
        # T4 always follows the FLOOR that was just applied (docs/rules.md §5).
        last = game.last_action
        self._capture_origin = (last.x, last.y) if game.phase is Phase.CAPTURE and last is not None else None

    @property
    def frontier_inside(self) -> bool:
        """Whether every possible PLACE position lies in the window (so every action encodes)."""
        return self.window.covers_frontier(self.mirror.box)

    def observation(self, game: Game, observer: int) -> dict[str, np.ndarray]:
        """``{"board", "cells", "vector"}`` for ``observer`` (seat 0), as fresh arrays."""
        w = self.window
        size = self.size
        row0 = self.mirror.limit - w.top
        col0 = w.left + self.mirror.limit
        board = self.mirror.board[self._board_perm[observer], 3 * row0:3 * (row0 + size), 3 * col0:3 * (col0 + size)]
        cells = self.mirror.cells[self._cells_perm[observer], row0:row0 + size, col0:col0 + size]
        if game.phase is Phase.ACTION or game.phase is Phase.CAPTURE:
            x, y = self.mirror.placed[-1][:2]
            if w.contains(x, y):
                cells[self._placed_plane, w.top - y, x - w.left] = 1
            if self._capture_origin is not None and w.contains(*self._capture_origin):
                x, y = self._capture_origin
                cells[self._origin_plane, w.top - y, x - w.left] = 1
        return {"board": board, "cells": cells, "vector": self._vector(game, observer)}

    def _vector(self, game: Game, observer: int) -> np.ndarray:
        v = self._v
        n = self.players
        out = np.zeros(self.layout.vector_size, dtype=np.float32)
        phase = game.phase
        out[v["phase"] + phase] = 1
        over = phase is Phase.GAME_OVER
        if not over:
            out[v["to_move"] + (game.current_player - observer) % n] = 1
            tile = game.current_tile
            if tile is not None:
                out[v["tile"] + tile.index] = 1
            if phase is not Phase.PLACE:
                out[v["rotation"] + self.mirror.placed[-1][3]] = 1
        t = self.layout.tile_types
        out[v["remaining"]:v["remaining"] + t] = game.remaining_counts
        out[v["tiles_left"]] = game.tiles_left
        out[self._rules] = self._rules_values
        seats = self._seats[observer]
        scores = game.scores
        supply = game.supply
        out[v["scores"]:v["scores"] + n] = [scores[p] for p in seats]
        out[v["supply"]:v["supply"] + n] = [supply[p] for p in seats]
        if self._tower:
            st = game.expansion_state("tower")
            out[v["floors"]:v["floors"] + 3 * n] = np.asarray(st.floors)[self._floors_idx[observer]]
            out[v["prisoners"]:v["prisoners"] + n * n] = np.asarray(st.prisoners)[self._prisoners_idx[observer]]
            out[v["ransom_paid"]] = not over and st.ransom_turn == game.turn
        return out
