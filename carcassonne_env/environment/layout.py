"""The observation layout: every plane and vector entry, its bound and its meaning.

This module is the single source of the observation's shape. :class:`Layout` lists the planes of
``board`` (3×3 sub-cells per board cell), ``cells`` (one value per board cell) and the entries of
``vector``; the encoder writes by these names, the spaces take their bounds from here, and
:mod:`.doc_tables` prints the tables of docs/env.md from here. "Seat k" always means
the player k seats after the observer (seat 0 is the observer, who is the player to move whenever
the observer has a decision).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from ..engine import FOLLOWERS_PER_PLAYER, GameConfig, load_catalogue
from ..engine.black_tower import floor_supply
from ..engine.registry import EXPANSIONS
from .subcell_planes import Stamp

__all__ = ["LAYOUT_VERSION", "VARIANT_FLAGS", "Entry", "Layout", "rules_entries"]

#: The version of the observation layout (this module: every plane, vector entry and bound, and their
#: order) and of the action layout (:mod:`.codec`: its segments and what an index means). A trained
#: policy reads observations and writes actions by position, so one made under another version reads this
#: env wrongly even where the shapes agree. Raise it with any change to either layout; the manifest of
#: the shipped models (``agents/pretrained/manifest.json``) records the version each policy was trained
#: under and refuses to load one of another version.
LAYOUT_VERSION = 1

#: Watchtower subjects in the order of their planes (R60).
WATCHTOWER_SUBJECTS = ("meeple", "coat-of-arms", "road", "monastery", "city")
#: Values that count things saturate here (uint8 planes).
SATURATE = 255
#: Bound of the ``scores`` entries: far above any reachable score (every tile of every set completing
#: its features, all farmers and watchtowers and every ransom together stay in the low thousands).
SCORE_BOUND = 10_000
#: The boolean variant flags of :class:`GameConfig`, in the order of their vector entries.
VARIANT_FLAGS = tuple(name for name in GameConfig.variant_docs() if name != "extra_foundation_tiles")
#: Bound of the ``extra_foundation_tiles`` entry (R52 stops changing the supply at E = 8 for white
#: floors but keeps adding black and normal floors per 4 tiles; no house deck goes past this).
EXTRA_FOUNDATIONS_BOUND = 255

_STATIC_DOCS = {
    "city": "the sub-cell shows a city segment",
    "road": "the sub-cell shows a road segment",
    "field": "the sub-cell shows a field segment",
    "monastery": "the sub-cell shows a monastery",
    "slot": "segment slot + 1 (0: no segment); within one tile, equal values = the same segment",
    "pennants": "pennants of the city segment shown",
    "link_east": "the sub-cell and its east neighbour show the same or directly joined segments",
    "link_south": "the sub-cell and its south neighbour show the same or directly joined segments",
}


@dataclass(frozen=True)
class Entry:
    """One plane (``size`` 1) or one block of vector entries: name, position, upper bound, meaning."""

    name: str
    start: int
    size: int
    high: float
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


def _entries(rows: list[tuple[str, int, float, str]]) -> tuple[Entry, ...]:
    out = []
    start = 0
    for name, size, high, doc in rows:
        out.append(Entry(name, start, size, high, doc))
        start += size
    return tuple(out)


class Layout:
    """Planes and vector entries for ``config`` and a window of ``window`` cells."""

    def __init__(self, config: GameConfig, window: int) -> None:
        n = config.players
        self.players = n
        self.window = window
        catalogue = load_catalogue()
        self.tile_types = len(catalogue.types)
        seats = [f"_s{k}" for k in range(n)]
        static_high = {
            "slot": catalogue.max_segments,
            "pennants": max(max(tt.segment_pennants) for tt in catalogue.types),
        }
        board: list[tuple[str, int, float, str]] = [
            (name, 1, static_high.get(name, 1), _STATIC_DOCS[name]) for name in Stamp.STATIC_PLANES
        ]
        board += [
            (f"follower{s}", 1, 1, f"a follower of seat {k} stands on the segment shown") for k, s in enumerate(seats)
        ]
        board += [
            ("complete", 1, 1, "the feature shown is complete (road/city: no open edge; monastery: full ring)"),
            ("open", 1, SATURATE, "open edges of a road/city; empty ring positions of a monastery; 0 for fields"),
            ("size", 1, SATURATE, "tiles of the feature shown (a monastery: 1 + tiles in its ring)"),
        ]
        board += [
            (f"feature_followers{s}", 1, FOLLOWERS_PER_PLAYER, f"followers of seat {k} on the whole feature shown")
            for k, s in enumerate(seats)
        ]
        cells: list[tuple[str, int, float, str]] = [
            ("tile", 1, 1, "a tile lies here"),
            ("tile_type", 1, len(catalogue.types), "catalogue index + 1 of the tile here (0: none); with "
             "`rotation` it names the exact tile, e.g. which cities each field borders (R28)"),
            ("rotation", 1, 4, "rotation + 1 of the tile here (0: none)"),
            ("foundation", 1, 1, "the tile has a tower foundation"),
            ("height", 1, SATURATE, "floors on the foundation (tower height h)"),
            ("normal", 1, 1, "the top floor is normal"),
            ("black", 1, 1, "the top floor is black"),
            ("white", 1, 1, "the top floor is white (capped for good)"),
            ("open_tower", 1, 1, "open tower: h ≥ 1, nobody on top, not white (R33)"),
            ("placed", 1, 1, "this turn's tile (T3/T4 only)"),
            ("capture_origin", 1, 1, "the tower that just got the floor whose capture is decided now (T4 only)"),
        ]
        cells += [
            (f"watchtower_{w.replace('-', '_')}", 1, 1, f"a {w} watchtower stands here") for w in WATCHTOWER_SUBJECTS
        ]
        cells += [
            (f"tower_top{s}", 1, 1, f"a follower of seat {k} stands on top of the tower") for k, s in enumerate(seats)
        ]
        t = self.tile_types
        remaining_high = max(tt.count for tt in catalogue.types)
        tile_sets = config.tile_sets or ()
        pile = sum(tt.count - tt.is_start for s in tile_sets for tt in catalogue.sets[s])
        floors_high = float(max(1, *floor_supply(config))) if config.has("tower") else 1.0
        vector: list[tuple[str, int, float, str]] = [
            ("phase", 4, 1, "one-hot decision: PLACE (T2), ACTION (T3), CAPTURE (T4), game over"),
            ("to_move", n, 1, "one-hot seat of the player deciding now (all 0 once the game is over)"),
            ("tile", t, 1, "one-hot catalogue index of this turn's tile (to place in T2, just placed in T3/T4)"),
            ("rotation", 4, 1, "one-hot rotation of the tile just placed (T3/T4 only)"),
            ("remaining", t, remaining_high, "tiles of each catalogue type still in the pile (public, R4)"),
            ("tiles_left", 1, pile, "tiles left in the pile"),
            ("scores", n, SCORE_BOUND, "score of each seat"),
            ("supply", n, FOLLOWERS_PER_PLAYER, "followers in each seat's supply"),
            ("floors", 3 * n, floors_high, "floors in each seat's supply: normal, black, white per seat"),
            ("prisoners", n * n, FOLLOWERS_PER_PLAYER, "P[captor seat][owner seat], row-major (R46)"),
            ("ransom_paid", 1, 1, "the player to move has paid a ransom this turn (R48)"),
            ("expansions", len(EXPANSIONS), 1, "enabled expansions: " + ", ".join(EXPANSIONS)),
            ("variants", len(VARIANT_FLAGS), 1, "variant flags set (docs/rules.md §6): " + ", ".join(VARIANT_FLAGS)),
            ("extra_foundation_tiles", 1, EXTRA_FOUNDATIONS_BOUND, "`extra_foundation_tiles` (R52)"),
        ]
        self.board = _entries(board)
        self.cells = _entries(cells)
        self.vector = _entries(vector)
        self.board_index = {e.name: e.start for e in self.board}
        self.cells_index = {e.name: e.start for e in self.cells}
        self.vector_entry = {e.name: e for e in self.vector}
        self.vector_size = self.vector[-1].stop
        self.board_shape = (len(self.board), 3 * window, 3 * window)
        self.cells_shape = (len(self.cells), window, window)

    def observation_space(self) -> spaces.Dict:
        """``Dict(board=Box(uint8), cells=Box(uint8), vector=Box(float32))`` with per-plane bounds."""
        board_high = np.empty(self.board_shape, dtype=np.uint8)
        for e in self.board:
            board_high[e.start] = e.high
        cells_high = np.empty(self.cells_shape, dtype=np.uint8)
        for e in self.cells:
            cells_high[e.start] = e.high
        vector_high = np.empty(self.vector_size, dtype=np.float32)
        for e in self.vector:
            vector_high[e.start:e.stop] = e.high
        return spaces.Dict({
            "board": spaces.Box(0, board_high, dtype=np.uint8),
            "cells": spaces.Box(0, cells_high, dtype=np.uint8),
            "vector": spaces.Box(np.float32(0), vector_high, dtype=np.float32),
        })

    def markdown(self) -> str:
        """The three tables of docs/env.md."""
        out = []
        for title, entries, what in (
            (f"`board`: uint8 {self.board_shape}", self.board, "plane"),
            (f"`cells`: uint8 {self.cells_shape}", self.cells, "plane"),
            (f"`vector`: float32 ({self.vector_size},)", self.vector, "entries"),
        ):
            out += [f"#### {title}", "", f"| {what} | name | max | meaning |", "|---|---|---|---|"]
            for e in entries:
                where = str(e.start) if e.size == 1 else f"{e.start}–{e.stop - 1}"
                out.append(f"| {where} | `{e.name}` | {e.high:g} | {e.doc} |")
            out.append("")
        return "\n".join(out)


def rules_entries(config: GameConfig) -> np.ndarray:
    """The ``expansions``, ``variants`` and ``extra_foundation_tiles`` entries of ``config``, in order."""
    values = [float(config.has(e)) for e in EXPANSIONS]
    values += [float(getattr(config, flag)) for flag in VARIANT_FLAGS]
    values.append(float(config.extra_foundation_tiles))
    return np.array(values, dtype=np.float32)
