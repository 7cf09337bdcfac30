"""Master planes of the whole board, kept in step with a game incrementally.

The mirror holds the ``board`` and ``cells`` planes of :mod:`.layout` for every position with
|x|, |y| ≤ ``limit`` (the window is always cut out of this area), with seat planes in absolute
player order; the encoder rotates them to the observer. :meth:`Mirror.sync` brings the planes up to
date after any number of engine steps by looking only at what can have changed:

* tiles placed since the last sync (the engine numbers placements): their static stamp, the links
  across their borders, and the features they merged (:meth:`Game.feature_key`);
* the followers on segments (a dict compare against the engine's live view);
* tower stacks and tops (dict compares against the tower state).

Feature-level planes (``complete``, ``open``, ``size``, ``feature_followers_*``) are rewritten
over all sub-cells of every feature that a new tile merged, completed or surrounded (monasteries)
or whose followers changed. Invariant after ``sync(game)``: the planes equal a from-scratch
encoding of ``game`` (the tests check this against the engine's own queries). Tiles outside the
area are tracked for features and the bounding box but not drawn.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import numpy as np

from ..engine import FloorColour, Game, SegmentKind, TileType
from ..engine.geometry import unpack
from .layout import SATURATE, WATCHTOWER_SUBJECTS, Layout
from .subcell_planes import Stamp, border_links, stamp
from .window import BoundingBox

__all__ = ["Mirror"]

_RING = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_EMPTY = np.zeros(0, dtype=np.intp)
_WHITE = FloorColour.WHITE


class Mirror:
    """Board planes for positions within ±``limit`` of the start tile, in absolute seats."""

    def __init__(self, layout: Layout, limit: int) -> None:
        self.layout = layout
        self.limit = limit
        side = 2 * limit + 1
        self.side = side
        self.board = np.zeros((len(layout.board), 3 * side, 3 * side), dtype=np.uint8)
        self.cells = np.zeros((len(layout.cells), side, side), dtype=np.uint8)
        self._board_flat = self.board.reshape(len(layout.board), -1)
        stride = 3 * side
        self._offsets = np.array([r * stride + c for r in range(3) for c in range(3)], dtype=np.intp)
        b, c = layout.board_index, layout.cells_index
        self._static = len(Stamp.STATIC_PLANES)
        self._link_east = b["link_east"]
        self._link_south = b["link_south"]
        self._follower = b["follower_s0"]
        self._feature = b["complete"]
        self._feature_rows = len(layout.board) - self._feature
        self._tile = c["tile"]
        self._tile_type = c["tile_type"]
        self._rotation = c["rotation"]
        self._foundation = c["foundation"]
        self._height = c["height"]
        self._colour = c["normal"]
        self._open_tower = c["open_tower"]
        self._top = c["tower_top_s0"]
        self._watch = {w: c["watchtower_" + w.replace("-", "_")] for w in WATCHTOWER_SUBJECTS}
        self._rel_cache: dict[Stamp, tuple[np.ndarray, ...]] = {}
        self._clear()

    def _clear(self) -> None:
        self.board.fill(0)
        self.cells.fill(0)
        self.box = BoundingBox(0, 0, 0, 0)
        self.placed: list[tuple[int, int, TileType, int]] = []  # (x, y, tile, rotation) per placement
        self.index_at: dict[tuple[int, int], int] = {}  # (x, y) → placement index
        self._counts: list[int] = []
        self._bases: list[int] = []
        self._kind: list[SegmentKind] = []
        self._seg_cells: list[np.ndarray] = []
        self._key_of: list[int] = []
        self._members: dict[int, list[int]] = {}
        self._feature_cells: dict[int, np.ndarray] = {}
        self._monastery_at: dict[tuple[int, int], int] = {}
        self._monastery_pos: dict[int, tuple[int, int]] = {}
        self._followers: dict[int, int] = {}
        self._stacks: dict[int, tuple[int, ...]] = {}
        self._tops: dict[int, int] = {}

    def continues_into(self, game: Game) -> bool:
        """Whether :meth:`sync` can catch up with ``game``: the tiles mirrored so far are the first
        tiles of ``game`` (same positions, types and rotations, in order). Then ``game`` differs from
        the mirrored position only by what ``sync`` looks at (later tiles, followers, towers), as a copy
        of the mirrored game played on does, or another line from a common position that placed the
        same tiles; any game of another tile order or line fails here."""
        return len(self.placed) <= game.tiles_placed and all(
            game.placed_tile(i) == placed for i, placed in enumerate(self.placed))

    def copy(self) -> Mirror:
        """An independent mirror of the same position, for a search that syncs copies of one
        position into different lines (much cheaper than :meth:`reset` on the line's game).

        The planes and every container that :meth:`sync` mutates in place are copied; what it only
        replaces (the followers, stacks and tops dicts, the feature cells' arrays) and the constant
        tables (the stamp cache included) are shared."""
        new = copy.copy(self)
        new.board = self.board.copy()
        new.cells = self.cells.copy()
        new._board_flat = new.board.reshape(len(self.layout.board), -1)
        new.placed = list(self.placed)
        new.index_at = dict(self.index_at)
        new._counts = list(self._counts)
        new._bases = list(self._bases)
        new._kind = list(self._kind)
        new._seg_cells = list(self._seg_cells)
        new._key_of = list(self._key_of)
        new._members = {key: list(members) for key, members in self._members.items()}
        new._feature_cells = dict(self._feature_cells)
        new._monastery_at = dict(self._monastery_at)
        new._monastery_pos = dict(self._monastery_pos)
        return new

    def reset(self, game: Game) -> None:
        """Forget everything and mirror ``game`` from scratch."""
        self._clear()
        self.sync(game)

    # ------------------------------------------------------------------ sync
    def sync(self, game: Game) -> None:
        """Bring the planes up to date with ``game`` (see the module docstring)."""
        affected: set[int] = set()
        for i in range(len(self.placed), game.tiles_placed):
            self._add_tile(game, i, affected)
        view = game.segment_followers()
        if view != self._followers:
            self._sync_followers(view, affected)
        for key in {self._key_of[k] for k in affected}:
            self._write_feature(game, key)
        if game.config.has("tower"):
            st = game.expansion_state("tower")
            if st.stacks != self._stacks or st.tops != self._tops:
                self._sync_towers(st.stacks, st.tops)

    def inside(self, x: int, y: int) -> bool:
        """Whether (x, y) lies in the mirrored area."""
        return -self.limit <= x <= self.limit and -self.limit <= y <= self.limit

    def _add_tile(self, game: Game, i: int, affected: set[int]) -> None:
        x, y, tile, rot = game.placed_tile(i)
        self.placed.append((x, y, tile, rot))
        self.index_at[(x, y)] = i
        self.box = self.box.grow(x, y) if i else BoundingBox(x, x, y, y)
        base = game.segment_base(i)
        count = tile.segment_count
        self._bases.append(base)
        self._counts.append(count)
        st = stamp(tile, rot)
        if self.inside(x, y):
            row, col = self.limit - y, x + self.limit
            self.board[:self._static, 3 * row:3 * row + 3, 3 * col:3 * col + 3] = st.planes
            origin = 3 * row * 3 * self.side + 3 * col
            seg_cells = [origin + rel for rel in self._relative_cells(st)]
            self.cells[self._tile, row, col] = 1
            self.cells[self._tile_type, row, col] = tile.index + 1
            self.cells[self._rotation, row, col] = rot + 1
            self.cells[self._foundation, row, col] = tile.tower_foundation
            if tile.watchtower is not None:
                self.cells[self._watch[tile.watchtower.subject], row, col] = 1
            self._draw_links(x, y, tile, rot)
        else:
            seg_cells = [_EMPTY] * count
        for s in range(count):
            g = base + s
            self._kind.append(tile.segment_kinds[s])
            self._seg_cells.append(seg_cells[s])
            self._key_of.append(g)
            self._members[g] = [g]
            self._feature_cells[g] = seg_cells[s]
        keys = set(range(base, base + count))
        for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            j = self.index_at.get((x + dx, y + dy))
            if j is not None:
                keys.update(self._key_of[h] for h in range(self._bases[j], self._bases[j] + self._counts[j]))
        # Group the touched keys by the engine's feature. When the mirror catches up with several
        # placements at once (an encoder reset on a game in progress), the engine's root may be a
        # segment of a placement not mirrored yet: the group then keeps one of its own keys, and
        # the merge into that root happens when its placement is mirrored.
        groups: dict[int, list[int]] = {}
        for key in keys:
            groups.setdefault(game.feature_key(key), []).append(key)
        for root, members in groups.items():
            keep = root if root in self._members else members[0]
            for key in members:
                if key != keep:
                    self._merge(key, keep)
        affected.update(self._key_of[g] for g in range(base, base + count))
        if tile.monastery_slot >= 0:
            self._monastery_at[(x, y)] = base + tile.monastery_slot
            self._monastery_pos[base + tile.monastery_slot] = (x, y)
        if self._monastery_at:
            for dx, dy in ((0, 0), *_RING):
                m = self._monastery_at.get((x + dx, y + dy))
                if m is not None:
                    affected.add(m)

    def _relative_cells(self, st: Stamp) -> tuple[np.ndarray, ...]:
        """Per segment, the flat master offsets of its sub-cells from the tile's top-left sub-cell."""
        rel = self._rel_cache.get(st)
        if rel is None:
            rel = self._rel_cache[st] = tuple(self._offsets[list(cells)] for cells in st.cells)
        return rel

    def _draw_links(self, x: int, y: int, tile: TileType, rot: int) -> None:
        """Links across the borders of the new tile at (x, y) with its placed neighbours."""
        for dx, dy, east in ((1, 0, True), (-1, 0, True), (0, -1, False), (0, 1, False)):
            j = self.index_at.get((x + dx, y + dy))
            if j is None or not self.inside(x + dx, y + dy):
                continue
            nx, ny, neighbour, nrot = self.placed[j]
            # ``first`` is the west (east links) or north (south links) tile of the pair.
            if dx > 0 or dy < 0:
                fx, fy, links = x, y, border_links(tile, rot, neighbour, nrot, east)
            else:
                fx, fy, links = nx, ny, border_links(neighbour, nrot, tile, rot, east)
            row, col = self.limit - fy, fx + self.limit
            if east:
                self.board[self._link_east, 3 * row:3 * row + 3, 3 * col + 2] = links
            else:
                self.board[self._link_south, 3 * row + 2, 3 * col:3 * col + 3] = links

    def _merge(self, key: int, root: int) -> None:
        """Refile feature ``key`` under ``root``, which the engine merged it into."""
        moved = self._members.pop(key)
        for s in moved:
            self._key_of[s] = root
        self._members[root].extend(moved)
        self._feature_cells[root] = np.concatenate((self._feature_cells[root], self._feature_cells.pop(key)))

    def _sync_followers(self, view: Mapping[int, int], affected: set[int]) -> None:
        old = self._followers
        new = dict(view)
        flat = self._board_flat
        for s, owner in old.items():
            if new.get(s) != owner:
                flat[self._follower + owner, self._seg_cells[s]] = 0
                affected.add(self._key_of[s])
        for s, owner in new.items():
            if old.get(s) != owner:
                flat[self._follower + owner, self._seg_cells[s]] = 1
                affected.add(self._key_of[s])
        self._followers = new

    def _write_feature(self, game: Game, key: int) -> None:
        """Rewrite the feature-level planes over every sub-cell of feature ``key``."""
        cells = self._feature_cells[key]
        if not cells.size:
            return
        kind = self._kind[key]
        if kind is SegmentKind.MONASTERY:
            x, y = self._monastery_pos[key]
            ring = sum((x + dx, y + dy) in self.index_at for dx, dy in _RING)
            complete, open_, size = ring == 8, 8 - ring, 1 + ring
        else:
            open_, size, _ = game.feature_totals(key)
            complete = kind is not SegmentKind.FIELD and open_ == 0
        values = [0] * self._feature_rows
        values[0] = complete
        values[1] = min(open_, SATURATE)
        values[2] = min(size, SATURATE)
        key_of = self._key_of
        for s, owner in self._followers.items():
            if key_of[s] == key:
                values[3 + owner] += 1
        self._board_flat[self._feature:, cells] = np.array(values, dtype=np.uint8)[:, None]

    def _sync_towers(self, stacks: dict[int, tuple[int, ...]], tops: dict[int, int]) -> None:
        changed = {p for p, s in stacks.items() if self._stacks.get(p) != s}
        changed.update(p for p in tops.keys() | self._tops.keys() if tops.get(p) != self._tops.get(p))
        cells = self.cells
        n = self.layout.players
        for p in changed:
            x, y = unpack(p)
            if not self.inside(x, y):
                continue
            row, col = self.limit - y, x + self.limit
            stack = stacks[p]
            top = tops.get(p)
            cells[self._height, row, col] = min(len(stack), SATURATE)
            cells[self._colour:self._colour + 3, row, col] = 0
            if stack:
                cells[self._colour + stack[-1], row, col] = 1
            cells[self._open_tower, row, col] = bool(stack) and top is None and stack[-1] != _WHITE
            cells[self._top:self._top + n, row, col] = 0
            if top is not None:
                cells[self._top + top, row, col] = 1
        self._stacks = dict(stacks)
        self._tops = dict(tops)
