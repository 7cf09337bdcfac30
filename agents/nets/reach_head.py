"""The FLOOR logit from what the new floor puts in the tower's reach (:class:`ReachHead`).

A floor is worth what it lets its builder capture (R39–R41, R55) or deny: after a normal floor
the tower reaches h positions up, down, left and right (R40), after a black floor h positions
along each diagonal (R55), after a white floor nothing (R56), where h is the height *after* the
floor; the tower's own position is in every area but a white one's. The board network's plain
FLOOR logit is a 1×1 head over the trunk's features of the tower's cell, which see a few cells
around it and cannot count where the reach ends. Here, for a FLOOR of colour k on the tower at
cell c, each of the eight rays from c is read position by position (d = 1 … :data:`REACH`): the
followers of each seat there (on the tile's segments and on a tower top), what each seat's followers
there hold (the board planes, scaled as the trunk scales them, averaged over the sub-cells where that
seat's followers stand: the feature's terrain, size, open edges, completion and followers per seat —
what a capture takes from its owner), whether a tile lies there, and whether d ≤ h and the ray's
direction belongs to colour k — the capture area, exactly. One MLP
shared by the rays encodes each; their sum, the cell's trunk features, the pooled features and the
floor's own terms (colour, h, the followers on the tower's tile) give a correction added to the
plain logit. Its output layer starts at zero, so a network that gains this head plays as before
until it is fitted.

With ``to_deploy`` (``deploy_sees_floors``), the same encoding also reaches the DEPLOY logits: a
follower competes with the floors on offer in one softmax, and the DEPLOY head alone sees nothing
of them, so a follower could be chosen where a floor captures more. Per observation the element-wise
maximum of the hidden layer over its legal floors (zero where none is legal; the layer is a ReLU's
output, so never negative) goes through ``to_deploy`` into the hidden layer of every DEPLOY logit
(:meth:`~agents.nets.action_heads.ActionHeads.deploy`). ``to_deploy`` starts at zero as well.

Nothing here looks ahead: the inputs are the observation and the action's own index.
"""

from __future__ import annotations

import numpy as np
import torch as th
from torch import nn
from torch.nn import functional as F

from carcassonne_env.environment.layout import Layout

__all__ = ["RAYS", "REACH", "ReachHead"]

#: Positions read along each ray: heights beyond it are rare (every floor in a 2-player supply
#: would have to go onto one tower); a reach past it still counts every position it sees.
REACH = 8
#: (row, column) steps of the eight rays: the four orthogonal ones (normal floors) then the four
#: diagonal ones (black floors).
RAYS = np.array([(-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1)], dtype=np.int64)
#: FLOOR colours (the codec's order: normal, black, white) and the rays each one reaches along.
_COLOURS = 3
_REACHES = np.array([[d < 4 for d in range(8)], [d >= 4 for d in range(8)], [False] * 8])


class ReachHead(nn.Module):
    """The correction to the FLOOR logit of the module docstring, for a trunk of ``channels``
    features per cell and pooled features of ``pooled_dim``; ``hidden`` units in its hidden layers.
    The observation is egocentric, so seat 0 is the player choosing the floor."""

    reaches: th.Tensor
    steps: th.Tensor
    sub_rows: th.Tensor
    sub_columns: th.Tensor

    def __init__(self, layout: Layout, channels: int, pooled_dim: int, hidden: int, board_scale: nn.Module,
                 deploy_sees_floors: bool = False) -> None:
        super().__init__()
        self.board_scale = board_scale
        n = layout.players
        self.followers = [layout.board_index[f"follower_s{k}"] for k in range(n)]
        self.tops = [layout.cells_index[f"tower_top_s{k}"] for k in range(n)]
        self.tile_plane = layout.cells_index["tile"]
        self.height_plane = layout.cells_index["height"]
        self.register_buffer("reaches", th.from_numpy(_REACHES), persistent=False)
        d = np.arange(1, REACH + 1)
        self.register_buffer("steps", th.from_numpy(RAYS[:, None, :] * d[None, :, None]), persistent=False)  # (8, R, 2)
        sub = np.arange(3)
        self.register_buffer("sub_rows", th.from_numpy(np.repeat(sub, 3)), persistent=False)  # (9,) row-major
        self.register_buffer("sub_columns", th.from_numpy(np.tile(sub, 3)), persistent=False)
        # followers per seat on the tile, on a tower top; a tile lies there; what each seat's followers hold
        per_position = 2 * n + 1 + n * len(layout.board)
        self.ray = nn.Sequential(nn.Linear(REACH * (per_position + 1), hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden, bias=False))
        self.cell = nn.Linear(channels, hidden)
        self.pooled = nn.Linear(pooled_dim, hidden, bias=False)
        self.own = nn.Linear(_COLOURS + 1 + n, hidden, bias=False)
        self.out = nn.Linear(hidden, 1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)
        self.to_deploy: nn.Linear | None = None
        if deploy_sees_floors:
            self.to_deploy = nn.Linear(hidden, hidden, bias=False)
            nn.init.zeros_(self.to_deploy.weight)

    def position_features(self, board: th.Tensor, cells: th.Tensor) -> th.Tensor:
        """(B, 2n + 1, W, W): per cell, each seat's followers on the tile's segments and on a tower
        top, and whether a tile lies there (raw counts, 0/1)."""
        segments = F.avg_pool2d(board[:, self.followers].float(), 3) * 9
        return th.cat([segments, cells[:, self.tops].float(), cells[:, [self.tile_plane]].float()], 1)

    def holdings(self, board: th.Tensor, rows: th.Tensor, ys: th.Tensor, xs: th.Tensor) -> th.Tensor:
        """What each seat's followers hold at window cells (``ys``, ``xs``) (A, …) of observations
        ``rows`` (A,): for seat k, the mean of the uncropped ``board``'s planes (B, P, 3W, 3W), unscaled,
        over the cell's sub-cells where a follower of seat k stands (zero where none does); shape
        (A, n, P, …)."""
        shape = ys.shape
        sy = (3 * ys.reshape(len(ys), -1))[:, :, None] + self.sub_rows  # (A, M, 9)
        sx = (3 * xs.reshape(len(xs), -1))[:, :, None] + self.sub_columns
        planes = th.arange(board.shape[1], device=board.device)[None, :, None, None]
        patch = board[rows[:, None, None, None], planes, sy[:, None], sx[:, None]].float()  # (A, P, M, 9)
        stands = (patch[:, self.followers] > 0).float()  # (A, n, M, 9)
        total = th.einsum("apms,akms->akpm", patch, stands)
        held = total / stands.sum(3).clamp(min=1.0)[:, :, None]
        return held.reshape(len(ys), len(self.followers), board.shape[1], *shape[1:])

    def area(self, cells: th.Tensor, rows: th.Tensor, cell: th.Tensor, colour: th.Tensor
             ) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor, th.Tensor]:
        """For FLOOR actions of colours ``colour`` (A,) on window cells ``cell`` (A,, row-major) of
        observations ``rows`` (A,): the window row and column of each ray position (A, 8, R, clamped
        into the window), whether it lies inside the window (A, 8, R), whether it is in the capture
        area of the tower after that floor (A, 8, R; R40, R55, R56 under the default rules), and
        that height h (A,)."""
        w = cells.shape[-1]
        r, c = cell // w, cell % w
        ys = r[:, None, None] + self.steps[None, :, :, 0]
        xs = c[:, None, None] + self.steps[None, :, :, 1]
        inside = (ys >= 0) & (ys < w) & (xs >= 0) & (xs < w)
        height = cells[rows, self.height_plane, r, c].float() + 1.0
        d = th.arange(1, REACH + 1, device=cells.device, dtype=th.float32)
        reached = (d[None, None, :] <= height[:, None, None]) & self.reaches[colour][:, :, None] & inside
        return ys.clamp(0, w - 1), xs.clamp(0, w - 1), inside, reached, height

    def hidden(self, board: th.Tensor, cells: th.Tensor, rows: th.Tensor, cell: th.Tensor, colour: th.Tensor,
               cell_features: th.Tensor, pooled: th.Tensor) -> th.Tensor:
        """The hidden layer (A, hidden; after its ReLU, so ≥ 0) of FLOOR actions of colours ``colour``
        (A,) on window cells ``cell`` (A,, row-major) of observations ``rows`` (A,), from the uncropped
        ``board`` (B, P, 3W, 3W) and ``cells`` (B, Q, W, W), the trunk features of those cells (A, C)
        and ``pooled`` (B, D)."""
        w = cells.shape[-1]
        at = self.position_features(board, cells)  # (B, F, W, W)
        ys, xs, inside, reached, height = self.area(cells, rows, cell, colour)
        planes = th.arange(at.shape[1], device=at.device)[None, :, None, None]
        seen = at[rows[:, None, None, None], planes, ys[:, None], xs[:, None]]  # (A, F, 8, R)
        held = self.board_scale(self.holdings(board, rows, ys, xs).flatten(0, 1)).view(len(rows), -1, *ys.shape[1:])
        positions = th.cat([seen, held], 1) * inside[:, None].float()  # (A, F + n·P, 8, R)
        rays = th.cat([positions, reached.float()[:, None]], 1).permute(0, 2, 1, 3).flatten(2)  # (A, 8, R·(F′ + 1))
        own = at[rows, :len(self.followers), cell // w, cell % w] * (colour < 2).float()[:, None]
        terms = th.cat([F.one_hot(colour, _COLOURS).float(), (height / REACH)[:, None], own], 1)
        hidden = (self.ray(rays).sum(1) + self.cell(cell_features) + self.pooled(pooled)[rows] + self.own(terms))
        return F.relu(hidden)

    def correction(self, hidden: th.Tensor) -> th.Tensor:
        """The FLOOR logits' corrections (A,) from their :meth:`hidden` layers."""
        correction: th.Tensor = self.out(hidden).squeeze(1)
        return correction

    def deploy_terms(self, hidden: th.Tensor, rows: th.Tensor, batch: int) -> th.Tensor:
        """(``batch``, hidden): what ``to_deploy`` adds to the DEPLOY head's hidden layer in each
        observation, from the :meth:`hidden` layers (A, hidden) of the legal floors of observations
        ``rows`` (A,): their element-wise maximum, zero where no floor is legal (module docstring)."""
        assert self.to_deploy is not None
        best = hidden.new_zeros(batch, hidden.shape[1]).scatter_reduce(
            0, rows[:, None].expand_as(hidden), hidden, "amax")
        terms: th.Tensor = self.to_deploy(best)
        return terms
