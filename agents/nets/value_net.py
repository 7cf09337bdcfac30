"""An afterstate value network: each player's expected final score as the end-now score plus a
correction computed by a small multilayer perceptron over features of the position.

It is the value that ``carcassonne train afterstate`` learns by self-play (TD-Gammon's recipe: the
one-turn search of :class:`~agents.greedy.GreedyAgent` is the policy, the network values the positions at
the end of each line, the tile draw that follows is chance). Like :class:`~agents.value.LinearValue`
it is a :class:`~agents.evaluation.PositionValue`:

    final[p] ≈ end_now[p] + linear(f[p], t) + t · mlp(x[p])

where ``t`` is the share of the pile still to be drawn (the correction vanishes at the end of the
game, where the end-now score *is* the final score), ``linear`` is an optional linear correction of
:class:`~agents.value.LinearValue`'s form over p's :data:`~agents.value.FEATURES` ``f[p]`` (the
trainer fits it by least squares, then the network on what it leaves), and ``x[p]`` is player p's row of
:func:`value_inputs`: the features of :data:`agents.value.FEATURES`, the :data:`FOLLOWER_FEATURES`
(which unfinished features p leads and how open they are), the same for the strongest other player
(the element-wise maximum over the others) and ``t, t²``. A *relative* network's correction is
centred over the players (``c[p] − mean_q c[q]``): it moves the players' expected scores against each
other, which is all a margin-maximising search reads (own minus best other), and leaves their sum at
the end-now scores' sum: it values who gains on whom, not the points every player gains alike.
Everything it reads is public: scores,
supplies, the board and how many tiles are left, never the order of the pile.

Inference runs in numpy (no torch at play time); the network is stored as ``.npz``
(:meth:`ValueNet.save`, :meth:`ValueNet.load`) with its input normalisation and the game
configuration it was trained for.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from carcassonne_env.engine import Game
from carcassonne_env.engine.geometry import RING
from carcassonne_env.engine.tiles import SegmentKind

from ..evaluation import LeafValues, margins
from ..value import FEATURES, design_row, feature_rows

__all__ = ["FOLLOWER_FEATURES", "INPUTS", "NetLeaves", "ValueNet", "value_inputs"]

#: Per-player features read from the followers on the board, after :data:`agents.value.FEATURES`.
FOLLOWER_FEATURES: tuple[str, ...] = (
    "city_led",            # unfinished cities where p has the most followers (ties included)
    "city_led_open",       # … their open edges in total (fewer: closer to completion)
    "city_led_tiles",      # … their tiles in total
    "city_behind",         # unfinished cities where p has followers but fewer than another player
    "road_led",
    "road_led_open",
    "road_led_tiles",
    "road_behind",
    "monasteries",         # p's monks on unfinished monasteries
    "monastery_missing",   # … the empty positions around them in total
    "farmers",             # p's followers on fields
    "on_board",            # p's followers on segments
)

_OWN = (*FEATURES, *FOLLOWER_FEATURES)
#: The names of the network's inputs, in order.
INPUTS: tuple[str, ...] = (*_OWN, *(f"other_{name}" for name in _OWN), "t", "t2")

_CITY, _ROAD, _FIELD, _MONASTERY = SegmentKind.CITY, SegmentKind.ROAD, SegmentKind.FIELD, SegmentKind.MONASTERY


def _follower_features(game: Game) -> list[list[float]]:
    """:data:`FOLLOWER_FEATURES` of every player (one pass over the followers on segments)."""
    n = game.num_players
    rows = [[0.0] * len(FOLLOWER_FEATURES) for _ in range(n)]
    kinds = game.segment_kinds
    # feature key -> (kind, open edges, tiles, followers per player) of unfinished cities and roads
    groups: dict[int, tuple[SegmentKind, int, int, list[int]]] = {}
    board = game.board_index
    for segment, owner in game.segment_followers().items():
        kind = kinds[segment]
        row = rows[owner]
        row[11] += 1.0
        if kind is _FIELD:
            row[10] += 1.0
        elif kind is _MONASTERY:
            pos = game.tile_positions[game.segment_tiles[segment]]
            missing = sum(1 for d in RING if pos + d not in board)
            if missing:
                row[8] += 1.0
                row[9] += missing
        else:
            key = game.feature_key(segment)
            group = groups.get(key)
            if group is None:
                open_edges, tiles, _ = game.feature_totals(segment)
                group = groups[key] = (kind, open_edges, tiles, [0] * n)
            group[3][owner] += 1
    for kind, open_edges, tiles, counts in groups.values():
        if open_edges == 0:
            continue  # completed this turn: its points are in the end-now score already
        base = 0 if kind is _CITY else 4
        best = max(counts)
        for p, c in enumerate(counts):
            if c == 0:
                continue
            row = rows[p]
            if c == best:
                row[base] += 1.0
                row[base + 1] += open_edges
                row[base + 2] += tiles
            else:
                row[base + 3] += 1.0
    return rows


def value_inputs(game: Game) -> tuple[npt.NDArray[np.float64], list[float], float]:
    """The network's inputs: ``(x, end_now, t)``, ``x`` of shape (players, len(INPUTS)) with one
    row per player (see the module docstring), ``end_now`` the scores if the game ended now and
    ``t`` the share of the pile left at the next turn (0 once the game is over)."""
    rows, end_now, t = _input_rows(game)
    return np.array(rows, dtype=np.float64), end_now, t


def _input_rows(game: Game) -> tuple[list[list[float]], list[float], float]:
    """:func:`value_inputs` with ``x`` as lists (built as lists and converted once: this runs at every
    leaf of a search, and a batch converts all of its positions at once)."""
    f, end_now, t = feature_rows(game)
    own = [a + b for a, b in zip(f, _follower_features(game), strict=True)]
    n = len(own)
    if n == 2:
        other = own[::-1]
    else:
        table = np.array(own, dtype=np.float64)
        other = [np.delete(table, p, axis=0).max(axis=0).tolist() for p in range(n)]
    return [a + b + [t, t * t] for a, b in zip(own, other, strict=True)], end_now, t


def _corrected(end_now: list[float], corrections: list[float]) -> list[float]:
    """Each player's expected final score: the end-now score plus the network's correction."""
    return [e + c for e, c in zip(end_now, corrections, strict=True)]


@dataclass(frozen=True)
class ValueNet:
    """Expected final scores from :func:`value_inputs` and an MLP (ReLU hidden layers).

    ``layers`` are (weight, bias) pairs, weights of shape (inputs, outputs); the last layer has one
    output. ``mean`` and ``std`` normalise the inputs. ``config`` is the game configuration
    (``GameConfig.to_dict()``) the network was trained on; ``info`` whatever the trainer recorded.
    ``linear``: the weights of the linear term (``2 · len(FEATURES)``, as
    :class:`~agents.value.LinearValue`'s), None for none; ``relative``: the correction is centred
    over the players (module docstring).
    """

    layers: tuple[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], ...]
    mean: npt.NDArray[np.float64]
    std: npt.NDArray[np.float64]
    config: dict[str, Any]
    info: dict[str, Any]
    linear: npt.NDArray[np.float64] | None = None
    relative: bool = False

    def __post_init__(self) -> None:
        width = len(INPUTS)
        if self.mean.shape != (width,) or self.std.shape != (width,) or not np.all(self.std > 0):
            raise ValueError(f"ValueNet: mean and std must be {width} numbers (std > 0)")
        for i, (w, b) in enumerate(self.layers):
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(f"ValueNet: layer {i} has shape {w.shape} / {b.shape}, expected ({width}, k) / (k,)")
            if not (np.all(np.isfinite(w)) and np.all(np.isfinite(b))):
                raise ValueError(f"ValueNet: layer {i} holds a non-finite weight")
            width = w.shape[1]
        if not self.layers or width != 1:
            raise ValueError("ValueNet: the last layer must have one output")
        if self.linear is not None and (self.linear.shape != (2 * len(FEATURES),)
                                        or not np.all(np.isfinite(self.linear))):
            raise ValueError(f"ValueNet: the linear term must be {2 * len(FEATURES)} finite weights")

    def corrections(self, x: npt.NDArray[np.float64], t: npt.NDArray[np.float64] | float) -> npt.NDArray[np.float64]:
        """The expected final minus end-now score of rows ``x`` at pile shares ``t`` (broadcast to
        ``x.shape[:-1]``): the linear term plus ``t · mlp(x)``. For a relative network the
        second-to-last axis of ``x`` must be the players of one position (the correction is centred
        over it)."""
        h = (x - self.mean) / self.std
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w
            h += b
            if i < last:
                np.maximum(h, 0.0, out=h)
        out = h[..., 0] * t
        if self.linear is not None:
            out = out + design_row(x[..., :len(FEATURES)], np.asarray(t)[..., None]) @ self.linear
        if self.relative:
            # the mean as numpy computes it (sum, then divide), without np.mean's per-call overhead
            out = out - np.add.reduce(out, axis=-1, keepdims=True) / out.shape[-1]
        return np.asarray(out, dtype=np.float64)

    def final_scores(self, game: Game) -> list[float]:
        """Each player's expected final score (the final scores once the game is over)."""
        if game.is_over:
            return [float(s) for s in game.scores]
        x, end_now, t = value_inputs(game)
        return _corrected(end_now, self.corrections(x, t).tolist())

    def margins(self, game: Game) -> list[float]:
        """Each player's expected final score minus the best other player's."""
        return margins(self.final_scores(game))

    def margin(self, game: Game, player: int) -> float:
        """``player``'s expected final margin (a :class:`~agents.greedy.GreedyAgent` ``value``)."""
        return self.margins(game)[player]

    def leaf_values(self, game: Game) -> NetLeaves:
        """The batched form for positions of ``game``'s player count (:func:`agents.evaluation.leaf_values`)."""
        return NetLeaves(self)

    def check_config(self, config: dict[str, Any]) -> None:
        """Raise ValueError when ``config`` (``GameConfig.to_dict()``) is not the one trained for."""
        if config != self.config:
            raise ValueError(f"ValueNet: trained for the game configuration {json.dumps(self.config, sort_keys=True)},"
                             f" not {json.dumps(config, sort_keys=True)}")

    def save(self, path: str | Path) -> None:
        """Write the network to ``path`` (.npz; the inputs' names are stored and checked on load)."""
        arrays: dict[str, Any] = {"mean": self.mean, "std": self.std}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        if self.linear is not None:
            arrays["linear"] = self.linear
        meta = {"inputs": list(INPUTS), "layers": len(self.layers), "config": self.config, "info": self.info,
                "relative": self.relative}
        with open(path, "wb") as sink:
            np.savez(sink, meta=np.array(json.dumps(meta)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        """The network saved at ``path`` (ValueError naming the file when it is not one)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta.get("inputs") != list(INPUTS):
                    raise ValueError("it was trained on other inputs than this version's")
                layers = tuple((data[f"w{i}"].astype(np.float64), data[f"b{i}"].astype(np.float64))
                               for i in range(int(meta["layers"])))
                linear = data["linear"].astype(np.float64) if "linear" in data.files else None
                return cls(layers, data["mean"].astype(np.float64), data["std"].astype(np.float64),
                           dict(meta["config"]), dict(meta.get("info", {})), linear, bool(meta.get("relative", False)))
        except (OSError, KeyError, TypeError, ValueError, EOFError, zipfile.BadZipFile) as e:  # a truncated file too
            raise ValueError(f"ValueNet: cannot load {path}: {type(e).__name__}: {e}") from None


class NetLeaves(LeafValues):
    """:class:`~agents.evaluation.LeafValues` of a :class:`ValueNet`: each position's inputs are read
    when it is added, the network runs once over all of them in :meth:`values`. The numbers are
    :meth:`ValueNet.margin`'s: the batch is stacked as (positions, players, inputs), so numpy's matrix
    product runs each position's (players, inputs) block as ``margin`` does, and a relative network
    centres over a position's players alone."""

    def __init__(self, net: ValueNet) -> None:
        super().__init__(net)
        self._net = net
        self._pending: list[int] = []
        self._players: list[int] = []
        self._rows: list[list[list[float]]] = []
        self._end_now: list[list[float]] = []
        self._t: list[float] = []

    def add(self, game: Game, player: int) -> int:
        if game.is_over:  # the final scores, no network
            return self.add_margin(self._net.margin(game, player))
        rows, end_now, t = _input_rows(game)
        index = self.add_margin(0.0)  # its place, filled by values()
        self._pending.append(index)
        self._players.append(player)
        self._rows.append(rows)
        self._end_now.append(end_now)
        self._t.append(t)
        return index

    def values(self) -> list[float]:
        if self._pending:
            x = np.array(self._rows, dtype=np.float64)
            corrections = self._net.corrections(x, np.array(self._t, dtype=np.float64)[:, None]).tolist()
            for index, player, end_now, c in zip(self._pending, self._players, self._end_now, corrections,
                                                 strict=True):
                self._margins[index] = margins(_corrected(end_now, c))[player]
            self._pending, self._players, self._rows, self._end_now, self._t = [], [], [], [], []
        return super().values()
