"""The afterstate agent: the one-turn search of :class:`~agents.greedy.GreedyAgent` on a learned
value network (:class:`~agents.nets.value_net.ValueNet`, trained by ``carcassonne train afterstate``).

Spec ``afterstate:PATH`` (a ``.npz`` written by the trainer) or ``afterstate:pretrained`` (the
networks shipped in ``agents/pretrained/``, one per player count: the game's count picks its network,
:mod:`agents.shipped_values`); ``fast=1`` prunes the tower look-ahead at PLACE as greedy's option
does; at 3 or more players it aims at first place with the spread its network recorded, and
``spread=S`` (points) sets that spread, ``spread=0`` aims at the margin (:mod:`agents.first_place`).
The agent refuses a game whose configuration the network was not trained for.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

from carcassonne_env.engine import Action, Game

from .first_place import FirstPlaceChance
from .greedy import GreedyAgent
from .nets.value_net import ValueNet
from .shipped_values import AFTERSTATE_FILES, PRETRAINED_DIR, PerPlayerCount

__all__ = ["PRETRAINED", "AfterstateAgent", "load_value_net", "pretrained_nets"]

#: The 2-player network of ``afterstate:pretrained``.
PRETRAINED = PRETRAINED_DIR / AFTERSTATE_FILES[2]


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> ValueNet:
    return ValueNet.load(path)


def load_value_net(path: str | Path) -> ValueNet:
    """The network at ``path``, loaded once per file version."""
    resolved = Path(path)
    try:
        mtime = resolved.stat().st_mtime_ns
    except OSError as e:
        raise ValueError(f"afterstate: no value network at {resolved} ({e.strerror})") from None
    return _load(str(resolved), mtime)


def pretrained_nets() -> PerPlayerCount:
    """The networks of ``afterstate:pretrained``, one per player count."""
    return PerPlayerCount.shipped("afterstate", AFTERSTATE_FILES, load_value_net)


class AfterstateAgent(GreedyAgent):
    """Greedy's one-turn search, valued by ``net`` (or, for the shipped family, by its network for the
    game's player count); checks the game's configuration once per game.

    What the search maximises: the expected margin over the best other player, or, with a ``spread``
    (points), the chance of first place (:class:`~agents.first_place.FirstPlaceChance`). ``spread``
    None: the spread the network recorded (``info["spread"]``, measured on games of its player count)
    at 3 or more players, the margin without one; at 2 players the margin (there the chance of first
    place ranks the lines as the margin does). ``spread`` 0: the margin at every count."""

    def __init__(self, seed: int, net: ValueNet | PerPlayerCount, fast: bool = False,
                 spread: float | None = None) -> None:
        if spread is not None and not (spread >= 0 and math.isfinite(spread)):
            raise ValueError(f"afterstate: spread must be a number of points ≥ 0 (0: the margin), got {spread!r}")
        super().__init__(seed, fast=fast, value=net)
        self.net = net
        self.spread = spread
        self._checked: int | None = None

    def choose_action(self, game: Game) -> Action:
        self._prepare(game)
        return super().choose_action(game)

    def action_values(self, game: Game) -> list[float]:
        self._prepare(game)
        return super().action_values(game)

    def _prepare(self, game: Game) -> None:
        """Check the game's configuration and pick the value for its player count (once per configuration)."""
        key = id(game.config)
        if self._checked == key:
            return
        net = self.net.for_players(game.num_players) if isinstance(self.net, PerPlayerCount) else self.net
        if not isinstance(net, ValueNet):
            raise ValueError(f"afterstate: {net!r} is not a value network")
        net.check_config(game.config.to_dict())
        spread = self.spread
        if spread is None:
            recorded = net.info.get("spread")
            spread = float(recorded) if game.num_players >= 3 and isinstance(recorded, (int, float)) else 0.0
        self.value = FirstPlaceChance(net, spread) if spread > 0 else net
        self._checked = key
