"""Action-conditioned heads for :class:`~agents.nets.board_net.BoardNet` (``action_heads=True``):
the logit of a PLACE or DEPLOY action is computed from what that action puts on the board.

The plain heads give each PLACE rotation a fixed channel of a 1×1 convolution over the cell's
features and each DEPLOY slot a fixed output of an MLP over pooled features: which of the tile's
sides faces which neighbour in rotation r, or which feature slot k of the placed tile belongs to,
must then be learned separately for every tile type. Here both are inputs:

* **PLACE** (cell c, rotation r) of tile t:
  ``v · relu(A·h(c) + B·stamp(t, r) + P·pooled + Σ_sides side(border, facing)) + b``, where
  ``stamp(t, r)`` is the tile's own static sub-cell picture in that rotation (the 8 planes of
  :class:`~carcassonne_env.environment.subcell_planes.Stamp`, 3×3 each, scaled by their bounds),
  ``h(c)`` the trunk's features of the (empty) cell, and for each of the four sides ``side`` (a
  small MLP shared by the sides) reads the tile's three border sub-cells on that side with the
  three sub-cells of the neighbour that face them (every board plane: the neighbour's terrain, and
  its feature's size, open edges, completion and followers per seat), both read clockwise: what the
  placement joins, side by side.
* **DEPLOY** of slot k on the tile just placed: the same form over the trunk's features of the
  placed cell, the mean of the board planes (scaled as the trunk scales them) over the sub-cells
  that show segment k, and which of the 9 sub-cells those are. The feature-level planes
  (``complete``, ``open``, ``size``, followers per seat) thus reach the logit of the follower that
  would claim that very feature.

Nothing here looks ahead: the inputs are the observation and the action's own index. Every other
action keeps the plain heads' logit.
"""

from __future__ import annotations

import numpy as np
import torch as th
from torch import nn
from torch.nn import functional as F

from carcassonne_env.engine import load_catalogue
from carcassonne_env.environment.layout import Layout
from carcassonne_env.environment.subcell_planes import Stamp, stamp

__all__ = ["ActionHeads", "stamp_table"]


def stamp_table(layout: Layout) -> np.ndarray:
    """(tile types, 4, 8·9) float32: each tile's static stamp planes in each rotation, flattened,
    every plane divided by its bound in ``layout`` (so values lie in [0, 1])."""
    high = np.array([layout.board[i].high for i in range(len(Stamp.STATIC_PLANES))], dtype=np.float32)
    types = load_catalogue().types
    out = np.zeros((len(types), 4, len(high) * 9), dtype=np.float32)
    for t, tile in enumerate(types):
        for r in range(4):
            out[t, r] = (stamp(tile, r).planes.astype(np.float32) / np.maximum(high, 1)[:, None, None]).reshape(-1)
    return out


class ActionHeads(nn.Module):
    """The PLACE and DEPLOY logits of the module docstring for a trunk of ``channels`` features per
    cell and pooled features of ``pooled_dim``; ``hidden`` units in each head's hidden layer;
    ``board_scale`` scales the board planes as the trunk does (a
    :class:`~agents.nets.board_net.PlaneScale`)."""

    stamps: th.Tensor
    outer: th.Tensor
    inner: th.Tensor

    def __init__(self, layout: Layout, channels: int, pooled_dim: int, hidden: int, board_scale: nn.Module) -> None:
        super().__init__()
        table = stamp_table(layout)
        self.register_buffer("stamps", th.from_numpy(table), persistent=False)
        # clockwise around a cell from its top-left sub-cell (row, column): the neighbours' facing
        # sub-cells (outer) and the tile's own border (inner, flat 3·row + column), side by side
        k = np.arange(3)
        outer = np.stack([np.stack(rc, 1) for rc in (
            (np.full(3, -1), k), (k, np.full(3, 3)), (np.full(3, 3), 2 - k), (2 - k, np.full(3, -1)))])
        inner = np.stack([3 * 0 + k, 3 * k + 2, 3 * 2 + (2 - k), 3 * (2 - k) + 0])
        self.register_buffer("outer", th.from_numpy(outer).long(), persistent=False)
        self.register_buffer("inner", th.from_numpy(inner).long(), persistent=False)
        tile = layout.vector_entry["tile"]
        self.tile_entries = slice(tile.start, tile.stop)
        self.placed_plane = layout.cells_index["placed"]
        self.slot_plane = layout.board_index["slot"]
        self.board_scale = board_scale
        self.place_cell = nn.Linear(channels, hidden)
        self.place_stamp = nn.Linear(table.shape[-1], hidden, bias=False)
        self.place_pooled = nn.Linear(pooled_dim, hidden, bias=False)
        self.place_out = nn.Linear(hidden, 1)
        planes = len(layout.board)
        self.side = nn.Sequential(nn.Linear(3 * (planes + len(Stamp.STATIC_PLANES)), hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden, bias=False))
        self.deploy_cell = nn.Linear(channels, hidden)
        self.deploy_segment = nn.Linear(planes + 9, hidden, bias=False)
        self.deploy_pooled = nn.Linear(pooled_dim, hidden, bias=False)
        self.deploy_out = nn.Linear(hidden, 1)

    def place(self, cell_features: th.Tensor, rows: th.Tensor, cell: th.Tensor, rotation: th.Tensor,
              board: th.Tensor, vector: th.Tensor, pooled: th.Tensor) -> th.Tensor:
        """Logits of PLACE actions: the trunk features of their cells (A, C), their observations
        ``rows`` (A,), window cells ``cell`` (A,, row-major) and rotations (A,); the uncropped
        ``board`` (B, P, 3W, 3W), ``vector`` (B, V) and ``pooled`` (B, D) of the batch."""
        tile = vector[:, self.tile_entries].argmax(1)
        stamps = self.stamps[tile[rows], rotation]
        hidden = (self.place_cell(cell_features) + self.place_stamp(stamps) + self.place_pooled(pooled)[rows]
                  + self._sides(board, rows, cell, stamps))
        logits: th.Tensor = self.place_out(F.relu(hidden)).squeeze(1)
        return logits

    def _sides(self, board: th.Tensor, rows: th.Tensor, cell: th.Tensor, stamps: th.Tensor) -> th.Tensor:
        """Σ over the four sides of ``side``(the tile's border sub-cells on that side, the neighbour's
        facing sub-cells): both read clockwise around the cell, so one encoder serves every side and
        sub-cell i of the tile's border touches sub-cell i of the neighbour's."""
        size = board.shape[-1]
        w = size // 3
        ys = (3 * (cell // w))[:, None, None] + self.outer[None, :, :, 0]  # (A, 4, 3)
        xs = (3 * (cell % w))[:, None, None] + self.outer[None, :, :, 1]
        inside = ((ys >= 0) & (ys < size) & (xs >= 0) & (xs < size)).float()
        planes = th.arange(board.shape[1], device=board.device)[None, :, None, None]
        outer = board[rows[:, None, None, None], planes, ys.clamp(0, size - 1)[:, None], xs.clamp(0, size - 1)[:, None]]
        outer = self.board_scale(outer) * inside[:, None]  # (A, P, 4, 3)
        picture = stamps.view(len(stamps), -1, 9)[:, :, self.inner]  # (A, 8, 4, 3)
        both = th.cat([outer, picture], 1).permute(0, 2, 1, 3).flatten(2)  # (A, 4, 3·(P + 8))
        summed: th.Tensor = self.side(both).sum(1)
        return summed

    def deploy(self, board: th.Tensor, cells: th.Tensor, rows: th.Tensor, slot: th.Tensor, placed_features: th.Tensor,
               pooled: th.Tensor, floors: th.Tensor | None = None) -> th.Tensor:
        """Logits of DEPLOY actions of slots ``slot`` (A,) in observations ``rows`` (A,), from the
        uncropped ``board`` (B, P, 3W, 3W) and ``cells`` (B, Q, W, W), the trunk features of each
        observation's placed cell (B, C) and ``pooled`` (B, D); ``floors`` (B, hidden), when given, is
        added to the hidden layer (the floors on offer:
        :meth:`~agents.nets.reach_head.ReachHead.deploy_terms`)."""
        w = cells.shape[-1]
        where = cells[rows, self.placed_plane].reshape(len(rows), -1).argmax(1)
        r, c = where // w, where % w
        sub = th.arange(3, device=board.device)
        ys = (3 * r)[:, None, None] + sub[None, :, None]
        xs = (3 * c)[:, None, None] + sub[None, None, :]
        patch = board[rows[:, None, None, None], th.arange(board.shape[1], device=board.device)[None, :, None, None],
                      ys[:, None], xs[:, None]]  # (A, P, 3, 3)
        shows = (patch[:, self.slot_plane] == (slot + 1)[:, None, None]).flatten(1).float()  # (A, 9)
        scaled = self.board_scale(patch).flatten(2)  # (A, P, 9)
        mean = (scaled * shows[:, None, :]).sum(2) / shows.sum(1, keepdim=True).clamp(min=1.0)
        hidden = (self.deploy_cell(placed_features[rows]) + self.deploy_segment(th.cat([mean, shows], 1))
                  + self.deploy_pooled(pooled)[rows])
        if floors is not None:
            hidden = hidden + floors[rows]
        logits: th.Tensor = self.deploy_out(F.relu(hidden)).squeeze(1)
        return logits


