"""The position values shipped in ``agents/pretrained/``, one file per player count.

A value is fitted on games of one player count, so one name stands for a family of files:
``linear`` (the linear value of ``greedy:value=linear`` and ``mcts:…,value=linear``) and
``afterstate`` (the network of ``afterstate:pretrained`` and ``mcts:…,value=afterstate``) and
``afterstate_long`` (the long run's network, of ``mcts:pretrained``: 2 players only). The
family is a :class:`~agents.evaluation.PositionValue` itself (:class:`PerPlayerCount`): a game of n
players is valued by the file made for n players.

Every file is checked against the manifest of the shipped models before it is loaded
(:func:`agents.manifest.verified`): a file dropped into the folder or changed there is refused.

Invariant: a count without a file is refused before the first move, by
:func:`agents.compat.check_value_fits` (through :meth:`PerPlayerCount.for_players`), with a message
naming the counts there are — never valued by a file made for another count.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from carcassonne_env.engine import Game

from .evaluation import LeafValues, PositionValue, leaf_values
from .manifest import PRETRAINED_DIR, verified

__all__ = ["AFTERSTATE_FILES", "AFTERSTATE_LONG_FILES", "LINEAR_FILES", "PRETRAINED_DIR", "FinalScoreValue",
           "PerPlayerCount"]

#: The linear values by player count (2 players: the first fit, whose file name predates the others).
LINEAR_FILES: Mapping[int, str] = {2: "value_linear.json", 3: "value_linear_3p.json", 4: "value_linear_4p.json",
                                   5: "value_linear_5p.json", 6: "value_linear_6p.json"}
#: The afterstate value networks by player count (all for the tower variant: tower, black tower, watchtowers).
AFTERSTATE_FILES: Mapping[int, str] = {2: "afterstate_tower_2p.npz", 3: "afterstate_tower_3p.npz",
                                       4: "afterstate_tower_4p.npz", 5: "afterstate_tower_5p.npz",
                                       6: "afterstate_tower_6p.npz"}
#: The long run's best network (seed 0, generation 5, fitted on 5,000 self-play games), the
#: value of ``mcts:pretrained``; 2 players on the tower variant.
AFTERSTATE_LONG_FILES: Mapping[int, str] = {2: "afterstate_long_2p.npz"}


class FinalScoreValue(PositionValue, Protocol):
    """A position value that also gives each player's expected final score (the shipped ones do)."""

    def final_scores(self, game: Game) -> list[float]:
        """Each player's expected final score (the final scores once the game is over)."""
        ...


class PerPlayerCount:
    """The value ``files[n]`` (loaded by ``load`` on first use) for a game of n players.

    ``name`` is what the user wrote (``linear``, ``afterstate``), used in the messages."""

    def __init__(self, name: str, files: Mapping[int, Path], load: Callable[[Path], FinalScoreValue]) -> None:
        self.name = name
        self.files = dict(sorted(files.items()))
        self._load = load
        self._loaded: dict[int, FinalScoreValue] = {}

    @property
    def counts(self) -> tuple[int, ...]:
        """The player counts with a value, smallest first."""
        return tuple(self.files)

    def for_players(self, players: int) -> FinalScoreValue:
        """The value made for games of ``players`` players (ValueError naming the counts there are)."""
        value = self._loaded.get(players)
        if value is None:
            path = self.files.get(players)
            if path is None:
                have = ", ".join(map(str, self.counts))
                raise ValueError(f"the shipped {self.name} value is made for games of {have} players, not {players} "
                                 f"(train one: carcassonne train afterstate full --players {players})")
            value = self._loaded[players] = self._load(path)
        return value

    def final_scores(self, game: Game) -> list[float]:
        """Each player's expected final score, by the value made for this game's player count."""
        return self.for_players(game.num_players).final_scores(game)

    def margins(self, game: Game) -> list[float]:
        """Each player's expected final margin, by the value made for this game's player count."""
        return self.for_players(game.num_players).margins(game)

    def margin(self, game: Game, player: int) -> float:
        """``player``'s expected final margin, by the value made for this game's player count."""
        return self.for_players(game.num_players).margin(game, player)

    def leaf_values(self, game: Game) -> LeafValues:
        """The batched form of the value made for this game's player count, where it has one."""
        return leaf_values(self.for_players(game.num_players), game)

    @classmethod
    def shipped(cls, name: str, files: Mapping[int, str], load: Callable[[Path], FinalScoreValue]) -> PerPlayerCount:
        """The family of :data:`PRETRAINED_DIR`'s ``files``, each loaded only once the manifest vouches for it
        (:func:`agents.manifest.verified`)."""
        return cls(name, {n: PRETRAINED_DIR / f for n, f in files.items()}, functools.partial(_load_verified, load))

    def __repr__(self) -> str:
        return f"PerPlayerCount({self.name!r}, players {list(self.counts)})"


def _load_verified(load: Callable[[Path], FinalScoreValue], path: Path) -> FinalScoreValue:
    """``load(path)`` once the manifest vouches for ``path`` (a module function: a family still pickles)."""
    return load(verified(path))
