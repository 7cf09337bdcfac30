"""The afterstate agent: the one-turn search of :class:`~agents.greedy.GreedyAgent` on a learned
value network (:class:`~agents.nets.value_net.ValueNet`, trained by ``carcassonne train afterstate``).

Spec ``afterstate:PATH`` (a ``.npz`` written by the trainer) or ``afterstate:pretrained`` (the
network shipped in ``agents/pretrained/``); ``fast=1`` prunes the tower look-ahead at PLACE as
greedy's option does. The agent refuses a game whose configuration the network was not trained for.
"""

from __future__ import annotations

import functools
from pathlib import Path

from carcassonne_env.engine import Action, Game

from .greedy import GreedyAgent
from .nets.value_net import ValueNet

__all__ = ["PRETRAINED", "AfterstateAgent", "load_value_net"]

#: The network that ``afterstate:pretrained`` names.
PRETRAINED = Path(__file__).with_name("pretrained") / "afterstate_tower_2p.npz"


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> ValueNet:
    return ValueNet.load(path)


def load_value_net(path: str | Path) -> ValueNet:
    """The network at ``path`` (``pretrained`` names :data:`PRETRAINED`), loaded once per file version."""
    resolved = PRETRAINED if str(path) == "pretrained" else Path(path)
    try:
        mtime = resolved.stat().st_mtime_ns
    except OSError as e:
        raise ValueError(f"afterstate: no value network at {resolved} ({e.strerror})") from None
    return _load(str(resolved), mtime)


class AfterstateAgent(GreedyAgent):
    """Greedy's one-turn search, valued by ``net``; checks the game's configuration once per game."""

    def __init__(self, seed: int, net: ValueNet, fast: bool = False) -> None:
        super().__init__(seed, fast=fast, value=net)
        self.net = net
        self._checked: int | None = None

    def choose_action(self, game: Game) -> Action:
        key = id(game.config)
        if self._checked != key:
            self.net.check_config(game.config.to_dict())
            self._checked = key
        return super().choose_action(game)
