"""A network made for the Carcassonne board, in plain torch (docs/training.md, "Network"): one
definition, :class:`BoardNet`, used by both trainers, Stable-Baselines3 (:class:`agents.nets.policy.
CarcassonnePolicy`) and RLlib (:class:`agents.nets.rllib_module.CarcassonneRLModule`).

``BoardNet(observation_space)`` for the env's ``{"board", "cells", "vector"}`` observation space
(any player count 2–6 and any window W: every size is read from the observation space);
``net.legal_logits(obs, legal)`` gives the logits of the legal actions and the values.

* **Inputs are scaled inside the network** (:class:`PlaneScale`): a plane or vector entry whose
  bound in the observation space is at most :data:`LINEAR_BOUND` is divided by its bound; larger
  bounds (counts that saturate at 255, scores bounded by 10,000, tiles left) are log-scaled,
  ``log1p(x) / log1p(bound)``, so small counts stay distinguishable. The catalogue index and
  rotation of each tile are categorical: they index an embedding instead of being scaled.
* **Less compute on empty board** (:func:`crop_sizes`): the window is centred on the placed tiles,
  so each observation is cut to the smallest centred square of a fixed ladder (W, W − 4, W − 8, …)
  that holds its tiles grown by ``margin`` cells (and every cell of a legal action, when the mask is
  known). Every legal action lies on a tile or one cell beside one (PLACE needs an occupied
  neighbour, R11; FLOOR, TOWER_TOP and CAPTURE name tiles on the board), so ``margin ≥ 1`` never
  drops a legal action; the mask check only enlarges the crop should that ever fail. The crop size
  is a function of the observation alone, so rollout and training evaluate the same function. A
  batch is split into groups of equal crop size (at most one per ladder rung).
* **Trunk at tile resolution**: the 3×3 sub-cells of each cell are read by one stride-3 convolution,
  added to a 1×1 convolution of ``cells``, an embedding of (tile type, rotation) and a projection of
  ``vector``; then residual 3×3 convolutions.
* **Heads**: a 1×1 convolution gives the 17 per-cell logits (4 PLACE, 3 FLOOR, 1 TOWER_TOP, 9
  CAPTURE: the codec's per-cell segments in order), a small MLP on pooled features (mean over the
  tiles, the features of the tile just placed, the vector) gives the 15 others (8 DEPLOY,
  NO_CAPTURE, 5 RANSOM, PASS) and the value. :func:`codec_index_map` scatters both into the codec's
  ``Discrete(N)`` order; cells outside the crop get :data:`OUTSIDE_CROP`.

No flat N-way layer is ever built.

How it is computed (the same function, up to float rounding; docs/training.md, "How it is
computed"): the board stem only at cells whose sub-cells are not all 0, the input scaling folded
into the first layers' weights, per-cell logits only at the legal actions' cells, legal actions as
index lists (:class:`LegalActions`), small batches in one merged crop
(:data:`MERGED_BATCH`), ``torch.inference_mode`` where gradients are off (the SB3 policy).
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import numpy as np
import torch as th
from gymnasium import spaces
from torch import nn
from torch.nn import functional as F

from carcassonne_env.engine import ActionKind, GameConfig
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.layout import Layout

from .action_heads import ActionHeads
from .prior import PRIOR_KEY
from .reach_head import ReachHead

__all__ = [
    "LINEAR_BOUND",
    "MERGED_BATCH",
    "OUTSIDE_CROP",
    "BoardEncoder",
    "BoardFeatures",
    "BoardNet",
    "LegalActions",
    "LegalIndex",
    "LegalLogits",
    "Observation",
    "PlaneScale",
    "codec_index_map",
    "crop_sizes",
    "gather_legal",
    "head_channels",
    "layout_of",
    "legal_cell_extent",
    "legal_index",
    "pad_legal",
    "scale_terms",
]

#: A batch of the env's observations as tensors: ``board`` (B, P, 3W, 3W), ``cells`` (B, C, W, W),
#: ``vector`` (B, V).
Observation = dict[str, th.Tensor]

class LegalActions(NamedTuple):
    """The allowed actions of a batch of B observations, as ``mask.nonzero(as_tuple=True)`` of its
    (B, N) mask would give them: ``rows[j]`` is the observation and ``actions[j]`` the action index
    of the j-th allowed action, in row-major order (observations ascending, then actions)."""

    rows: th.Tensor
    actions: th.Tensor

    @classmethod
    def from_mask(cls, mask: np.ndarray, n: int) -> LegalActions:
        """From a (B, N) (or flat B·N) mask of any dtype; nonzero = allowed.

        Word by word: the mask's bytes are read eight at a time as ``uint64`` words and only the
        nonzero words are expanded to their bytes. A decision has a few dozen legal actions of
        N = 16,352, so this scans 1/8 of the elements a 2-D ``nonzero`` does (4.7× faster than
        ``np.flatnonzero`` row by row for 256 recorded masks, 2.9× for 2)."""
        flags = np.ascontiguousarray(mask).reshape(-1, n)
        if flags.dtype.itemsize != 1:
            flags = flags != 0
        if n % 8:
            flags = np.pad(flags, ((0, 0), (0, 8 - n % 8)))
        rows, words = np.nonzero(flags.view(np.uint64))
        hits, byte = np.nonzero(flags.reshape(len(flags), flags.shape[1] // 8, 8)[rows, words])
        return cls(th.from_numpy(rows[hits]), th.from_numpy(words[hits] * 8 + byte))

    @classmethod
    def from_lists(cls, legal: list[np.ndarray]) -> LegalActions:
        """From each observation's ascending legal action indices."""
        counts = np.fromiter((len(a) for a in legal), dtype=np.int64, count=len(legal))
        rows = np.repeat(np.arange(len(legal), dtype=np.int64), counts)
        actions = np.concatenate(legal) if legal else np.empty(0, dtype=np.int64)
        return cls(th.from_numpy(rows), th.from_numpy(actions))


#: Bounds up to this are scaled linearly (x / bound), larger ones logarithmically.
LINEAR_BOUND = 16.0
#: Logit of every action outside the crop (such actions are never legal; finite, so that masked
#: entropies stay finite).
OUTSIDE_CROP = -1e8
#: Batches of up to this many observations (the rollout's) are computed as one group in the largest
#: of their crops instead of one group per crop size (the same function; fewer operations).
MERGED_BATCH = 8
#: Cells planes that are categorical (embedded, not scaled).
_CATEGORICAL = ("tile_type", "rotation")


def head_channels(codec: ActionCodec) -> tuple[list[tuple[ActionKind, int]], list[tuple[ActionKind, int]]]:
    """What each output of the two heads means: ``(kind, argument)`` per per-cell channel and per
    non-spatial logit, both in the codec's segment order (17 and 15 for the standard codec)."""
    spatial: list[tuple[ActionKind, int]] = []
    other: list[tuple[ActionKind, int]] = []
    for seg in codec.segments:
        if seg.per_cell:
            spatial += [(seg.kind, arg) for arg in range(seg.per_cell)]
        else:
            other += [(seg.kind, arg) for arg in range(seg.size)]
    return spatial, other


def codec_index_map(codec: ActionCodec) -> np.ndarray:
    """``source[i]`` for every action index i: where its logit lies in the concatenation of the
    spatial head flattened channel-major, ``(channel, cell)`` → ``channel * W² + cell``, and the
    non-spatial head. Built from ``codec.segments``, so it follows the codec if the codec changes."""
    cells = codec.size * codec.size
    spatial_total = sum(seg.per_cell for seg in codec.segments) * cells
    source = np.empty(codec.n, dtype=np.int64)
    channel = other = 0
    for seg in codec.segments:
        offsets = np.arange(seg.size, dtype=np.int64)
        if seg.per_cell:
            cell, arg = np.divmod(offsets, seg.per_cell)
            source[seg.start:seg.stop] = (channel + arg) * cells + cell
            channel += seg.per_cell
        else:
            source[seg.start:seg.stop] = spatial_total + other + offsets
            other += seg.size
    return source


def scale_terms(high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(factor, log)`` per channel of bound ``high``: the scaled value is ``x * factor`` where
    ``log`` is False (high ≤ :data:`LINEAR_BOUND`: factor 1 / high) and ``log1p(x) * factor``
    where it is True (factor 1 / log1p(high)). Bounds below 1 count as 1."""
    high = np.maximum(np.asarray(high, dtype=np.float64), 1.0)
    log = high > LINEAR_BOUND
    return np.where(log, 1.0 / np.log1p(high), 1.0 / high), log


class PlaneScale(nn.Module):
    """Scales channel ``c`` of a tensor by its bound ``high[c]`` (:func:`scale_terms`): x / high
    when high ≤ :data:`LINEAR_BOUND`, else log1p(x) / log1p(high). Channels are axis 1."""

    linear: th.Tensor
    log_index: th.Tensor
    log_scale: th.Tensor

    def __init__(self, high: np.ndarray, spatial: bool) -> None:
        super().__init__()
        factor, log = scale_terms(high)
        shape = (1, -1, 1, 1) if spatial else (1, -1)
        linear = np.where(log, 0.0, factor)
        self.register_buffer("linear", th.tensor(linear, dtype=th.float32).view(shape), persistent=False)
        self.register_buffer("log_index", th.tensor(np.flatnonzero(log), dtype=th.long), persistent=False)
        self.register_buffer("log_scale", th.tensor(factor[log], dtype=th.float32).view(shape), persistent=False)

    def forward(self, x: th.Tensor) -> th.Tensor:
        x = x.float()
        y = x * self.linear
        if len(self.log_index):
            y[:, self.log_index] = th.log1p(x[:, self.log_index]) * self.log_scale
        return y


def crop_sizes(
    tiles: th.Tensor, legal_extent: tuple[th.Tensor, th.Tensor] | None, ladder: th.Tensor, margin: int
) -> th.Tensor:
    """Index into ``ladder`` (ascending crop sizes, the last = W) of each observation's crop.

    ``tiles`` (B, W, W) bool: occupied cells; ``legal_extent`` None or ``(lo, hi)`` (B,): the
    smallest and largest row or column index of the cells of each observation's legal actions
    (W and −1 when it has none: :func:`legal_cell_extent`). The crop of size K is the centred square
    of rows/columns ``(W - K) // 2 …`` + K − 1; the chosen K is the smallest holding every tile
    grown by ``margin`` and every legal cell.
    """
    w = tiles.shape[-1]
    # the smallest and largest row or column index of a tile: a row or a column with a tile
    lo, hi = _extent(tiles.any(2) | tiles.any(1), margin)
    if legal_extent is not None:
        lo, hi = th.minimum(lo, legal_extent[0]), th.maximum(hi, legal_extent[1])
    lo = lo.clamp(min=0)
    hi = hi.clamp(max=w - 1)
    first = (w - ladder) // 2
    fits = (first[None, :] <= lo[:, None]) & (first[None, :] + ladder[None, :] - 1 >= hi[:, None])
    return fits.int().argmax(1)  # the last rung (W) always fits


def _extent(any_line: th.Tensor, margin: int) -> tuple[th.Tensor, th.Tensor]:
    """First and last True index of each row of ``any_line`` (B, W), grown by ``margin``; a row
    with no True gives an empty extent (W, -1)."""
    w = any_line.shape[1]
    has = any_line.any(1)
    first = any_line.int().argmax(1)
    last = w - 1 - any_line.flip(1).int().argmax(1)
    first = th.where(has, first - margin, th.full_like(first, w))
    last = th.where(has, last + margin, th.full_like(last, -1))
    return first, last


def legal_cell_extent(rows: th.Tensor, cells: th.Tensor, batch: int, window: int) -> tuple[th.Tensor, th.Tensor]:
    """``(lo, hi)`` (batch,) for :func:`crop_sizes`: the smallest and largest row or column index
    among the cells ``cells`` (flat, row-major in the W×W window) of observations ``rows``; W and −1
    for an observation with none."""
    row, col = cells // window, cells % window
    lo = th.full((batch,), window, dtype=th.long, device=cells.device)
    hi = th.full((batch,), -1, dtype=th.long, device=cells.device)
    lo = lo.scatter_reduce(0, rows, th.minimum(row, col), "amin")
    hi = hi.scatter_reduce(0, rows, th.maximum(row, col), "amax")
    return lo, hi


class CropGroup(NamedTuple):
    """Observations ``members`` of a batch, cropped to rows/columns ``first … first + size − 1``;
    ``trunk`` (len(members), C, size, size) are their cell features."""

    members: th.Tensor
    first: int
    size: int
    trunk: th.Tensor


class BoardFeatures(NamedTuple):
    """What :class:`BoardEncoder` gives the heads."""

    groups: list[CropGroup]
    crop: th.Tensor  # (B,) each observation's own crop size (a group may hold it in a larger one)
    pooled: th.Tensor  # (B, features_dim): tile-mean, placed-tile features and vector embedding


class BoardEncoder(nn.Module):
    """Tile-resolution convolutional trunk over the cropped board (module docstring).

    ``channels`` features per cell, ``blocks`` residual 3×3 convolutions, crops grown by ``margin``
    (≥ 1) cells around the tiles, crop sizes W, W − ``crop_step``, … .
    """

    ladder: th.Tensor
    cells_other: th.Tensor
    board_factor: th.Tensor
    cells_factor: th.Tensor

    def __init__(
        self, observation_space: spaces.Dict, channels: int = 16, blocks: int = 2, margin: int = 1, crop_step: int = 4
    ) -> None:
        if margin < 1:
            raise ValueError(f"margin must be ≥ 1 (PLACE reaches one cell beyond the tiles), got {margin}")
        if crop_step < 1:
            raise ValueError(f"crop_step must be ≥ 1, got {crop_step}")
        layout = layout_of(observation_space)
        super().__init__()
        self.features_dim = 3 * channels
        w = layout.window
        self.window = w
        self.margin = margin
        ladder = sorted({w - crop_step * j for j in range(w) if w - crop_step * j >= 1 + 2 * margin} | {w})
        self.register_buffer("ladder", th.tensor(ladder, dtype=th.long), persistent=False)
        c = layout.cells_index
        self.tile_plane = c["tile"]
        self.placed_plane = c["placed"]
        self.type_plane, self.rotation_plane = (c[name] for name in _CATEGORICAL)
        other = [e.start for e in layout.cells if e.name not in _CATEGORICAL]
        self.register_buffer("cells_other", th.tensor(other, dtype=th.long), persistent=False)
        board_high = np.array([e.high for e in layout.board])
        cells_high = np.array([layout.cells[i].high for i in other])
        vector_high = np.concatenate([np.full(e.size, e.high) for e in layout.vector])
        self.rotations = int(layout.cells[self.rotation_plane].high) + 1
        types = int(layout.cells[self.type_plane].high) + 1
        # The input scaling multiplies the weights of the first convolutions (after log1p of the
        # log-scaled planes): the same function, without a pass over the (large) scaled board.
        board_factor, self.board_log = _scale_plan(board_high)
        cells_factor, self.cells_log = _scale_plan(cells_high)
        self.register_buffer("board_factor", board_factor.view(1, -1, 1, 1), persistent=False)
        self.register_buffer("cells_factor", cells_factor.view(1, -1, 1, 1), persistent=False)
        self.vector_scale = PlaneScale(vector_high, spatial=False)
        self.board_in = nn.Conv2d(len(layout.board), channels, kernel_size=3, stride=3)
        self.cells_in = nn.Conv2d(len(other), channels, kernel_size=1)
        self.tile_embedding = nn.Embedding(types * self.rotations, channels, padding_idx=0)
        self.vector_in = nn.Linear(layout.vector_size, channels)
        self.blocks = nn.ModuleList(nn.Conv2d(channels, channels, kernel_size=3, padding=1) for _ in range(blocks))
        self.channels = channels

    def forward(
        self, observations: Observation, legal_extent: tuple[th.Tensor, th.Tensor] | None = None
    ) -> BoardFeatures:
        """Features of a batch; ``legal_extent`` (:func:`legal_cell_extent`) makes every crop hold
        its observation's legal cells."""
        board, cells, vector = observations["board"], observations["cells"], observations["vector"]
        vec = F.relu(self.vector_in(self.vector_scale(vector)))
        tiles = cells[:, self.tile_plane] > 0
        rung = crop_sizes(tiles, legal_extent, self.ladder, self.margin)
        crop = self.ladder[rung]
        rungs = th.unique(rung).tolist()
        if len(rung) <= MERGED_BATCH:  # one group, in the largest crop: fewer, larger operations
            members = [th.arange(len(rung), device=rung.device)]
            rungs = rungs[-1:]
        else:
            members = [(rung == r).nonzero().squeeze(1) for r in rungs]
        groups: list[CropGroup] = []
        pooled: list[th.Tensor] = []
        for r, index in zip(rungs, members, strict=True):
            size = int(self.ladder[r])
            first = (self.window - size) // 2
            rows = slice(first, first + size)
            sub = slice(3 * first, 3 * (first + size))
            own = crop.index_select(0, index)
            inside = None
            if bool((own < size).any()):  # cells outside an observation's own crop are held at 0
                line = th.arange(first, first + size, device=rung.device) - (self.window - own[:, None]) // 2
                fits = (line >= 0) & (line < own[:, None])
                inside = (fits[:, :, None] & fits[:, None, :]).unsqueeze(1).float()
            trunk, pool = self._trunk(
                board[:, :, sub, sub].index_select(0, index),
                cells[:, :, rows, rows].index_select(0, index),
                vec.index_select(0, index),
                inside,
            )
            groups.append(CropGroup(index, first, size, trunk))
            pooled.append(pool)
        order = th.empty_like(rung)
        order[th.cat(members)] = th.arange(len(rung), device=rung.device)
        return BoardFeatures(groups, crop, th.cat([th.cat(pooled)[order], vec], dim=1))

    def _board_in(self, board: th.Tensor) -> th.Tensor:
        """``board_in`` of the scaled ``board`` (B, P, 3K, 3K), less its bias: (B, C, K, K).

        The stride-3 convolution reads each cell's own 3×3 sub-cells and scaling maps 0 to 0, so a
        cell whose sub-cells are all 0 (an empty cell) gives 0: it is computed as a matrix product
        over the other cells only (a fraction of the crop: its empty margin and holes are skipped)."""
        n, planes, k = board.shape[0], board.shape[1], board.shape[2] // 3
        board = board.contiguous()
        active = board.any(1).view(n, k, 3, k, 3).any(4).any(2)
        rows, r, c = active.nonzero(as_tuple=True)
        # flat index of every (plane, sub-row, sub-column) of a cell's 3×3 block, from its top left
        block = (th.arange(planes, device=board.device)[:, None, None] * (9 * k * k)
                 + th.arange(3, device=board.device)[:, None] * (3 * k) + th.arange(3, device=board.device)).view(-1)
        top_left = rows * (planes * 9 * k * k) + r * (9 * k) + c * 3
        patches = _log_planes(th.take(board, top_left[:, None] + block).view(-1, planes, 3, 3), self.board_log)
        weight = self.board_in.weight * self.board_factor
        out = F.linear(patches.flatten(1), weight.flatten(1))
        cells = out.new_zeros(n, k * k, weight.shape[0]).index_put((rows, r * k + c), out)
        return cells.view(n, k, k, -1).permute(0, 3, 1, 2)

    def _trunk(
        self, board: th.Tensor, cells: th.Tensor, vec: th.Tensor, inside: th.Tensor | None = None
    ) -> tuple[th.Tensor, th.Tensor]:
        """Cell features (B, C, K, K) of cropped inputs and their pooled summary (B, 2C).

        ``inside`` (B, 1, K, K), 1 on the cells of each observation's own crop when it is smaller
        than K: the features elsewhere are held at 0 after every layer, which is what the zero
        padding of the 3×3 convolutions would read around the own crop (the same function)."""
        tile_id = cells[:, self.type_plane].long() * self.rotations + cells[:, self.rotation_plane].long()
        h = (
            self._board_in(board)
            + F.conv2d(_log_planes(cells.index_select(1, self.cells_other), self.cells_log),
                       self.cells_in.weight * self.cells_factor, _bias(self.cells_in) + _bias(self.board_in))
            + self.tile_embedding(tile_id).permute(0, 3, 1, 2)
            + vec[:, :, None, None]
        )
        h = F.relu(h)
        if inside is not None:
            h = h * inside
        for conv in self.blocks:
            h = h + F.relu(conv(h))
            if inside is not None:
                h = h * inside
        tiles = cells[:, self.tile_plane].float()
        placed = cells[:, self.placed_plane].float()
        mean = th.einsum("bchw,bhw->bc", h, tiles) / tiles.sum((1, 2)).clamp(min=1.0)[:, None]
        at_placed = th.einsum("bchw,bhw->bc", h, placed)
        return h, th.cat([mean, at_placed], dim=1)


def _bias(layer: nn.Conv2d) -> th.Tensor:
    """The bias of ``layer`` (every layer of this network has one)."""
    if layer.bias is None:
        raise ValueError(f"{layer} has no bias")
    return layer.bias


def _scale_plan(high: np.ndarray) -> tuple[th.Tensor, list[tuple[int, int]]]:
    """:func:`scale_terms` as (factor per channel, runs ``(a, b)`` of log-scaled channels a … b − 1)."""
    factor, log = scale_terms(high)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], log.astype(np.int8), [0]])))
    runs = [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
    return th.tensor(factor, dtype=th.float32), runs


def _log_planes(x: th.Tensor, runs: list[tuple[int, int]]) -> th.Tensor:
    """A float copy of ``x`` (B, C, H, W) with log1p applied to the channels of ``runs``."""
    y = x.to(th.float32, copy=True)
    for a, b in runs:
        y[:, a:b].log1p_()
    return y


def layout_of(observation_space: spaces.Space[Any]) -> Layout:
    """The env's layout for this observation space (player count from the ``cells`` planes).

    The space may also hold the residual policy's ``prior`` (N,) entry (:mod:`agents.nets.prior`)."""
    if not isinstance(observation_space, spaces.Dict) or \
            set(observation_space.spaces) - {PRIOR_KEY} != {"board", "cells", "vector"}:
        raise ValueError(
            f"observation_space must be the env's Dict(board, cells, vector[, prior]), got {observation_space}"
        )
    cells_shape = observation_space["cells"].shape
    if cells_shape is None or len(cells_shape) != 3:
        raise ValueError(f"observation_space['cells'] must be (C, W, W), got {cells_shape}")
    window = cells_shape[-1]
    players = cells_shape[0] - Layout(GameConfig(players=2), window).cells_shape[0] + 2
    if not GameConfig.MIN_PLAYERS <= players <= GameConfig.MAX_PLAYERS:
        raise ValueError(f"observation_space['cells'] has {cells_shape[0]} planes: no player count 2–6 gives that")
    layout = Layout(GameConfig(players=players), window)
    for key, shape in (("board", layout.board_shape), ("cells", layout.cells_shape), ("vector", (layout.vector_size,))):
        if observation_space[key].shape != shape:
            raise ValueError(f"observation_space[{key!r}] is {observation_space[key].shape}, expected {shape}")
    n = ActionCodec(window).n
    if PRIOR_KEY in observation_space.spaces and observation_space[PRIOR_KEY].shape != (n,):
        raise ValueError(f"observation_space[{PRIOR_KEY!r}] is {observation_space[PRIOR_KEY].shape}, expected ({n},)")
    return layout


class LegalLogits(NamedTuple):
    """The logits of each observation's allowed actions, padded to the longest list.

    ``actions`` (B, L): action indices in ascending order; ``valid`` (B, L): which entries are real
    (the others are padding); ``logits`` (B, L)."""

    actions: th.Tensor
    valid: th.Tensor
    logits: th.Tensor


class LegalIndex(NamedTuple):
    """Where the logit of each allowed action lies (:func:`legal_index`), per allowed action:
    ``spatial`` whether it is a per-cell action; for those, ``channel`` (its per-cell head channel)
    and ``cell`` (its cell's row in the concatenation of the groups' cropped cells, each group
    (members, K, K) row-major); for the others, ``column`` in the non-spatial head. ``slot`` is its
    position in its observation's padded list of ``length`` entries."""

    rows: th.Tensor
    actions: th.Tensor
    slot: th.Tensor
    length: int
    spatial: th.Tensor
    channel: th.Tensor
    cell: th.Tensor
    column: th.Tensor


def legal_index(
    groups: list[tuple[th.Tensor, int, int]],
    batch: int,
    allowed: tuple[th.Tensor, th.Tensor],
    source: th.Tensor,
    window: int,
    spatial_channels: int,
) -> LegalIndex:
    """Where each allowed action's logit lies in the heads' output.

    ``groups`` are ``(index, first, size)``: observations ``index`` cropped at rows/columns ``first
    … first + size − 1``; ``allowed`` is ``mask.nonzero(as_tuple=True)`` of the (batch, N) mask
    (:class:`LegalActions`); ``source`` is :func:`codec_index_map`;
    ``spatial_channels`` the per-cell head's channels. Every allowed spatial action must lie in its
    observation's crop (:func:`crop_sizes` ensures it when given the legal cells' extent).
    """
    cells = window * window
    row_of, action = allowed
    device = source.device
    counts = th.bincount(row_of, minlength=batch)
    length = max(int(counts.max()), 1) if batch else 1
    slot = th.arange(len(action), device=device) - (th.cumsum(counts, 0) - counts)[row_of]
    src = source[action]
    spatial = src < spatial_channels * cells
    # where each observation's cropped cells start in the concatenation of the groups
    start = th.empty(batch, dtype=th.long, device=device)
    first = th.empty(batch, dtype=th.long, device=device)
    size = th.empty(batch, dtype=th.long, device=device)
    offset = 0
    for index, first_g, size_g in groups:
        start[index] = offset + size_g * size_g * th.arange(len(index), device=device)
        first[index] = first_g
        size[index] = size_g
        offset += size_g * size_g * len(index)
    channel, cell = src // cells, src % cells
    k, top = size[row_of], first[row_of]
    at = start[row_of] + (cell // window - top) * k + (cell % window - top)
    column = src - spatial_channels * cells
    return LegalIndex(row_of, action, slot, length, spatial, th.where(spatial, channel, 0),
                      th.where(spatial, at, 0), th.where(spatial, 0, column))


def pad_legal(index: LegalIndex, values: th.Tensor, batch: int) -> LegalLogits:
    """:class:`LegalLogits` from the logit ``values`` of the allowed actions of ``index``."""
    device = values.device
    actions = th.zeros(batch, index.length, dtype=th.long, device=device)
    valid = th.zeros(batch, index.length, dtype=th.bool, device=device)
    actions[index.rows, index.slot] = index.actions
    valid[index.rows, index.slot] = True
    padded = th.full((batch, index.length), OUTSIDE_CROP, dtype=values.dtype, device=device)
    padded = padded.index_put((index.rows, index.slot), values)
    return LegalLogits(actions, valid, padded)


def gather_legal(
    groups: list[tuple[th.Tensor, int, int, th.Tensor]],
    other: th.Tensor,
    allowed: tuple[th.Tensor, th.Tensor],
    source: th.Tensor,
    window: int,
) -> LegalLogits:
    """The logits of the allowed actions in codec order, read from the heads' output.

    ``groups`` are ``(index, first, size, logits)`` with per-cell logits (len(index), S, size, size)
    of observations ``index`` cropped at rows/columns ``first …``; ``other`` (B, 15) the non-spatial
    logits; the rest as in :func:`legal_index`.
    """
    batch = other.shape[0]
    channels = groups[0][3].shape[1] if groups else 0
    index = legal_index([g[:3] for g in groups], batch, allowed, source, window, channels)
    if groups:
        per_cell = th.cat([logits.permute(0, 2, 3, 1).reshape(-1, channels) for *_, logits in groups])
        spatial = per_cell[index.cell, index.channel]
    else:
        spatial = th.zeros(len(index.rows), dtype=other.dtype, device=other.device)
    values = th.where(index.spatial, spatial, other[index.rows, index.column])
    return pad_legal(index, values, batch)


class BoardNet(nn.Module):
    """The whole network: the trunk (:class:`BoardEncoder`, attribute ``features_extractor``), the
    per-cell action head ``spatial_head``, the non-spatial action head ``other_head`` after
    ``pi_hidden``, and ``value_net`` (module docstring). ``head_hidden`` units in the hidden layer of
    the non-spatial and value heads; ``encoder`` reuses an existing trunk (SB3 builds its own).
    Without legal actions, every action inside the crop is allowed.

    When the observation space has a ``prior`` entry (:mod:`agents.nets.prior`), the logit of each
    allowed action is ``β · prior + head logit`` with β = exp(``prior_log_scale``), a learned
    parameter that starts at 1 / ``prior_temperature``.

    ``action_heads``: the logits of PLACE and DEPLOY actions come from
    :class:`~agents.nets.action_heads.ActionHeads`, conditioned on the tile's picture in each
    rotation and on the feature each follower would claim. ``reach_head``: the logit of a FLOOR
    action is corrected by :class:`~agents.nets.reach_head.ReachHead` from the followers in the
    reach that floor gives the tower; ``deploy_sees_floors`` (with both): the DEPLOY logits also read
    that head's encoding of the floors on offer."""

    source: th.Tensor
    place_rotation: th.Tensor  # with action heads: the rotation of each per-cell channel (−1: not PLACE)
    deploy_slot: th.Tensor  # with action heads: the slot of each non-spatial logit (−1: not DEPLOY)
    floor_colour: th.Tensor  # with the reach head: the colour of each per-cell channel (−1: not FLOOR)

    def __init__(
        self, observation_space: spaces.Dict, channels: int = 16, blocks: int = 2, margin: int = 1,
        head_hidden: int = 64, encoder: BoardEncoder | None = None, prior_temperature: float = 1.0,
        action_heads: bool = False, reach_head: bool = False, deploy_sees_floors: bool = False,
    ) -> None:
        super().__init__()
        if deploy_sees_floors and not (action_heads and reach_head):
            raise ValueError("deploy_sees_floors needs action_heads and reach_head "
                             "(the DEPLOY head reads the reach head's floors)")
        if not prior_temperature > 0:
            raise ValueError(f"prior_temperature must be > 0 (points), got {prior_temperature}")
        self.prior_log_scale = (nn.Parameter(th.tensor(-float(np.log(prior_temperature))))
                                if PRIOR_KEY in observation_space.spaces else None)
        self.features_extractor = encoder or BoardEncoder(observation_space, channels, blocks, margin)
        trunk = self.features_extractor
        self.codec = ActionCodec(trunk.window)
        spatial, other = head_channels(self.codec)
        self.spatial_channels = len(spatial)
        self.spatial_head = nn.Conv2d(trunk.channels, len(spatial), kernel_size=1)
        self.pi_hidden = nn.Sequential(nn.Linear(trunk.features_dim, head_hidden), nn.ReLU())
        self.other_head = nn.Linear(head_hidden, len(other))
        self.value_net = nn.Sequential(nn.Linear(trunk.features_dim, head_hidden), nn.ReLU(), nn.Linear(head_hidden, 1))
        self.register_buffer("source", th.tensor(codec_index_map(self.codec)), persistent=False)
        layout = layout_of(observation_space)
        board_scale = PlaneScale(np.array([e.high for e in layout.board]), spatial=True)
        self.action_heads: ActionHeads | None = None
        if action_heads:
            self.action_heads = ActionHeads(layout, trunk.channels, trunk.features_dim, head_hidden, board_scale)
            self.register_buffer("place_rotation", th.tensor(
                [arg if kind is ActionKind.PLACE else -1 for kind, arg in spatial]), persistent=False)
            self.register_buffer("deploy_slot", th.tensor(
                [arg if kind is ActionKind.DEPLOY else -1 for kind, arg in other]), persistent=False)
        self.reach_head: ReachHead | None = None
        if reach_head:
            self.reach_head = ReachHead(layout, trunk.channels, trunk.features_dim, head_hidden, board_scale,
                                        deploy_sees_floors)
            self.register_buffer("floor_colour", th.tensor(
                [arg if kind is ActionKind.FLOOR else -1 for kind, arg in spatial]), persistent=False)

    def orthogonal_init(self) -> None:
        """Stable-Baselines3's initialisation: orthogonal weights of every linear and convolution
        layer, gain √2 in the trunk and hidden layers, 0.01 in the action heads, 1 at the value
        output; zero biases (the embedding keeps its own)."""
        for module, gain in (
            (self.features_extractor, np.sqrt(2)), (self.pi_hidden, np.sqrt(2)), (self.value_net, np.sqrt(2)),
            (self.spatial_head, 0.01), (self.other_head, 0.01), (self.value_net[-1], 1.0),
        ):
            module.apply(partial(_orthogonal, gain=float(gain)))
        if self.action_heads is not None:
            heads = self.action_heads
            heads.apply(partial(_orthogonal, gain=float(np.sqrt(2))))
            for out in (heads.place_out, heads.deploy_out):
                out.apply(partial(_orthogonal, gain=0.01))
        if self.reach_head is not None:  # its output layer stays at zero (reach_head.py)
            for part in (self.reach_head.ray, self.reach_head.cell, self.reach_head.pooled, self.reach_head.own):
                part.apply(partial(_orthogonal, gain=float(np.sqrt(2))))

    def legal_logits(
        self, obs: Observation, legal: np.ndarray | th.Tensor | LegalActions | None = None
    ) -> tuple[LegalLogits, th.Tensor]:
        """Logits of the allowed actions and values (B, 1). ``legal``: a (B, N) mask, the
        :class:`LegalActions` of the batch, or None (every action in the crop).

        The per-cell logits are computed at the allowed actions' cells only: the 1×1 head is, at
        each cell, a linear map of that cell's features."""
        w, n = self.codec.size, self.codec.n
        device = self.source.device
        spatial_cells = self.spatial_channels * w * w
        allowed: LegalActions | None = None
        extent = None
        if legal is not None:
            if not isinstance(legal, LegalActions):
                masks = legal.cpu().numpy() if isinstance(legal, th.Tensor) else legal
                legal = LegalActions.from_mask(masks, n)
            allowed = LegalActions(legal.rows.to(device), legal.actions.to(device))
            src = self.source[allowed.actions]
            spatial = src < spatial_cells
            extent = legal_cell_extent(allowed.rows[spatial], src[spatial] % (w * w), len(obs["cells"]), w)
        features: BoardFeatures = self.features_extractor(obs, extent)
        values = self.value_net(features.pooled)
        batch = len(features.crop)
        if allowed is None:
            allowed = LegalActions(*self._crop_mask(features).nonzero(as_tuple=True))
        groups = [(g.members, g.first, g.size) for g in features.groups]
        index = legal_index(groups, batch, (allowed.rows, allowed.actions), self.source, w, self.spatial_channels)
        cells = th.cat([g.trunk.permute(0, 2, 3, 1).reshape(-1, g.trunk.shape[1]) for g in features.groups])
        weight = self.spatial_head.weight.flatten(1)
        bias = _bias(self.spatial_head)
        spatial_logits = (cells[index.cell] * weight[index.channel]).sum(1) + bias[index.channel]
        other = self.other_head(self.pi_hidden(features.pooled))
        logits = th.where(index.spatial, spatial_logits, other[index.rows, index.column])
        floors = self._floor_hidden(obs, features, index, cells) if self.reach_head is not None else None
        if self.action_heads is not None:
            deploy_floors = None
            if floors is not None and self.reach_head is not None and self.reach_head.to_deploy is not None:
                deploy_floors = self.reach_head.deploy_terms(floors[1], index.rows[floors[0]], batch)
            logits = self._action_head_logits(obs, features, index, cells, logits, deploy_floors)
        if floors is not None and self.reach_head is not None:
            logits = logits.index_put((floors[0],), logits[floors[0]] + self.reach_head.correction(floors[1]))
        if self.prior_log_scale is not None:
            prior = obs[PRIOR_KEY].to(logits.dtype)
            logits = logits + self.prior_log_scale.exp() * prior[index.rows, index.actions]
        return pad_legal(index, logits, batch), values

    def _action_head_logits(self, obs: Observation, features: BoardFeatures, index: LegalIndex, cells: th.Tensor,
                            logits: th.Tensor, floors: th.Tensor | None) -> th.Tensor:
        """``logits`` with those of PLACE and DEPLOY actions from :attr:`action_heads` (``floors``: the
        DEPLOY head's terms from the floors on offer, or None)."""
        heads = self.action_heads
        assert heads is not None
        rotation = th.where(index.spatial, self.place_rotation[index.channel], -1)
        place = (rotation >= 0).nonzero().squeeze(1)
        if len(place):
            w = self.codec.size
            window_cell = self.source[index.actions[place]] % (w * w)
            logits = logits.index_put((place,), heads.place(
                cells[index.cell[place]], index.rows[place], window_cell, rotation[place], obs["board"],
                obs["vector"], features.pooled))
        slot = th.where(index.spatial, -1, self.deploy_slot[index.column])
        deploy = (slot >= 0).nonzero().squeeze(1)
        if len(deploy):
            c = self.features_extractor.channels
            logits = logits.index_put((deploy,), heads.deploy(
                obs["board"], obs["cells"], index.rows[deploy], slot[deploy], features.pooled[:, c:2 * c],
                features.pooled, floors))
        return logits

    def _floor_hidden(self, obs: Observation, features: BoardFeatures, index: LegalIndex, cells: th.Tensor
                      ) -> tuple[th.Tensor, th.Tensor] | None:
        """The positions in ``index`` of the FLOOR actions and their :attr:`reach_head` hidden layers,
        or None when no floor is legal."""
        assert self.reach_head is not None
        colour = th.where(index.spatial, self.floor_colour[index.channel], -1)
        floor = (colour >= 0).nonzero().squeeze(1)
        if not len(floor):
            return None
        w = self.codec.size
        window_cell = self.source[index.actions[floor]] % (w * w)
        return floor, self.reach_head.hidden(obs["board"], obs["cells"], index.rows[floor], window_cell, colour[floor],
                                             cells[index.cell[floor]], features.pooled)

    def values(self, obs: Observation) -> th.Tensor:
        """The value head alone (B, 1)."""
        features: BoardFeatures = self.features_extractor(obs)
        values: th.Tensor = self.value_net(features.pooled)
        return values

    def _crop_mask(self, features: BoardFeatures) -> th.Tensor:
        """Every action inside each observation's crop, as a (B, N) mask."""
        w = self.codec.size
        device = self.source.device
        first = (w - features.crop[:, None]) // 2
        line = th.arange(w, device=device)
        fits = (line >= first) & (line < first + features.crop[:, None])
        inside = (fits[:, :, None] & fits[:, None, :]).view(len(fits), 1, -1)
        batch = len(fits)
        other = th.ones(batch, self.codec.n - self.spatial_channels * w * w, dtype=th.bool, device=device)
        flat = th.cat([inside.expand(-1, self.spatial_channels, -1).reshape(batch, -1), other], 1)
        return flat[:, self.source]


def _orthogonal(module: nn.Module, gain: float) -> None:
    if isinstance(module, (nn.Linear, nn.Conv2d)):
        nn.init.orthogonal_(module.weight, gain=gain)
        if module.bias is not None:
            module.bias.data.fill_(0.0)
