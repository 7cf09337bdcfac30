"""The policy-value network of the ``az`` search (:mod:`agents.az`), stored as data.

It is :class:`~agents.nets.board_net.BoardNet` (the conv trunk over the env's own observation: board
sub-cells, tower heights and colours, prisoners, supplies, the drawn tile; per-cell and pooled heads
over the codec's action space; crops that shrink the work on a small board), not a new network: the
search needs exactly what BoardNet computes, ``legal_logits(obs, legal)``, and a second definition
would duplicate its crops, scaling and heads. What this module adds:

* **Value: a correction to a named position value.** A position's value is the player to move's
  expected final margin over the other player (2 players: own score minus the opponent's, points):
  ``base.margin(game, mover) + head``, where ``base`` is a shipped position value named in the file
  (``afterstate_long``, the value of ``mcts:pretrained``: end-now scores computed by the engine plus a
  learned correction, 0.07 ms a position) and ``head`` the value head × :data:`VALUE_SCALE`
  (:meth:`PVNet.evaluate` returns the head in points). A CNN cannot compute the end-now scores as
  exactly as the engine does; it only has to learn what the base value misses. A new network's head is
  0 (its last layer starts at zero), so before any training its value *is* the base value. Two players
  only: one scalar per position is all a zero-sum search of two needs (the other seat's value is its
  negation); more seats would need a value per seat (``PVNet`` refuses other player counts).
* **Sized for search.** ``channels``/``blocks`` are small (the shipped net: 32 × 3; table in
  docs/experiments/2026-12-06-az-search.md) and the heads are BoardNet's optional ones.
* **Weights as data.** :meth:`PVNet.save` writes ``torch.save`` of plain tensors, ints, strings and
  lists: the state dict, the network's sizes, the game it was trained on (``GameConfig.to_dict()``),
  the window, the observation layout version and the base value's key; :meth:`PVNet.load` reads it with
  ``weights_only=True`` (no code runs) and refuses a file made for another game, window or layout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch as th

from carcassonne_env.engine import GameConfig
from carcassonne_env.environment.layout import LAYOUT_VERSION, Layout

from .board_net import BoardNet, LegalActions

__all__ = ["BASE_VALUES", "FORMAT", "VALUE_SCALE", "NetSize", "PVNet"]

#: Points of margin per unit of the value head's output (the head stays near unit scale).
VALUE_SCALE = 20.0
#: The ``format`` entry of a saved file.
FORMAT = "carcassonne-az-pv/1"
#: The position values a network may correct (keys of :func:`agents.position_value` made for 2 players).
BASE_VALUES = ("afterstate_long", "end_now")


@dataclass(frozen=True)
class NetSize:
    """The sizes of a :class:`PVNet` (BoardNet's arguments of the same names)."""

    channels: int = 32
    blocks: int = 3
    head_hidden: int = 64
    action_heads: bool = True
    reach_head: bool = False


class PVNet:
    """A :class:`BoardNet` for ``config`` (2 players) and ``window``, in evaluation mode on the CPU; its
    value head corrects the position value ``base`` (a key of :data:`BASE_VALUES`)."""

    def __init__(self, config: GameConfig, window: int, size: NetSize = NetSize(), base: str = "afterstate_long"
                 ) -> None:
        if config.players != 2:
            raise ValueError(f"PVNet: 2 players only (the value is the margin over the one opponent), "
                             f"got {config.players}")
        if base not in BASE_VALUES:
            raise ValueError(f"PVNet: base must be one of {', '.join(BASE_VALUES)}, got {base!r}")
        self.config = config
        self.window = window
        self.size = size
        self.base = base
        space = Layout(config, window).observation_space()
        self.net = BoardNet(space, channels=size.channels, blocks=size.blocks, head_hidden=size.head_hidden,
                            action_heads=size.action_heads, reach_head=size.reach_head)
        last = self.net.value_net[-1]
        assert isinstance(last, th.nn.Linear)
        th.nn.init.zeros_(last.weight)
        th.nn.init.zeros_(last.bias)
        self.net.eval()

    def evaluate(
        self, observations: Sequence[Mapping[str, np.ndarray]], legal: Sequence[npt.NDArray[np.int64]]
    ) -> tuple[list[npt.NDArray[np.float64]], npt.NDArray[np.float64]]:
        """The logits of each position's legal actions, in the order of ``legal[i]`` (ascending action
        indices, each list non-empty), and each position's value head in points (the correction to the
        base value). One network pass for the whole batch."""
        obs = {key: th.from_numpy(np.stack([o[key] for o in observations])) for key in ("board", "cells", "vector")}
        with th.inference_mode():
            logits, values = self.net.legal_logits(obs, LegalActions.from_lists(list(legal)))
        padded = logits.logits.numpy()
        out = [padded[i, :len(actions)].astype(np.float64) for i, actions in enumerate(legal)]
        return out, values[:, 0].double().numpy() * VALUE_SCALE

    def save(self, path: str | Path) -> None:
        """Write the weights and what they were trained on as data (module docstring)."""
        th.save({"format": FORMAT, "game": self.config.to_dict(), "window": self.window,
                 "layout_version": LAYOUT_VERSION, "size": asdict(self.size), "base": self.base,
                 "state_dict": self.net.state_dict()}, Path(path))

    @classmethod
    def load(cls, path: str | Path, config: GameConfig | None = None) -> PVNet:
        """The network saved at ``path``, read as data; ValueError when it is not such a file, or when
        ``config`` is given and is not the game it was trained on, or its layout is not this env's."""
        try:
            data: dict[str, Any] = th.load(Path(path), map_location="cpu", weights_only=True)
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
            trained = GameConfig.from_dict(data["game"])
            size = NetSize(**data["size"])
        except (OSError, RuntimeError, KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{path}: not the weights of an az network ({type(e).__name__}: {e})") from None
        if data["layout_version"] != LAYOUT_VERSION:
            raise ValueError(f"{path}: trained under observation layout {data['layout_version']}, this env's is "
                             f"{LAYOUT_VERSION}")
        if config is not None and config != trained:
            raise ValueError(f"{path}: trained on {trained.to_dict()}, not on this game {config.to_dict()}")
        pv = cls(trained, int(data["window"]), size, str(data["base"]))
        pv.net.load_state_dict(data["state_dict"])
        return pv
