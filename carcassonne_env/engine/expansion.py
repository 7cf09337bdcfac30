"""The interface through which an expansion plugs into the engine.

An expansion is a stateless rules object built from the config; its per-game mutable state is a
separate :class:`ExpansionState` that the game stores under the expansion's name, copies on
``clone()`` and serialises in ``to_dict()``. The game calls only the hooks a subclass overrides, so
an expansion that does not take part in a step costs nothing there.

Hooks, in turn order:

* :meth:`Expansion.on_tile_placed` — T2, after the tile joined the board (e.g. register a tower
  foundation).
* :meth:`Expansion.add_action_options` — T3, extra options next to DEPLOY and PASS.
* :meth:`Expansion.apply` — T3/T4, carry out one of the expansion's own :attr:`action_kinds`.
* :meth:`Expansion.decision_actions` — T4, the legal actions of a decision phase the expansion
  opened (the game sets ``phase`` and remembers the owner).
* :meth:`Expansion.before_scoring` — T5, before completed features score and followers return.

Queries other expansions rely on:

* :meth:`Expansion.board_figures` — followers standing on the board but not on a segment
  (tower tops): they count for the follower invariant (R46) and for the meeple watchtower (R63).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from .actions import Action, ActionKind
from .config import GameConfig
from .tiles import TileCatalogue, TileType

if TYPE_CHECKING:
    from .game import Game

__all__ = ["Expansion", "ExpansionState"]


class ExpansionState(Protocol):
    """Mutable per-game state of one expansion."""

    def copy(self) -> ExpansionState: ...

    def to_dict(self) -> dict[str, Any]: ...


class Expansion:
    """Base class of the expansion plug-ins; every hook defaults to doing nothing."""

    name: ClassVar[str] = ""
    #: Action kinds this expansion carries out in :meth:`apply`.
    action_kinds: ClassVar[frozenset[ActionKind]] = frozenset()

    def __init__(self, config: GameConfig, catalogue: TileCatalogue) -> None:
        self.config = config
        self.catalogue = catalogue

    def new_state(self, game: Game) -> ExpansionState | None:
        """The state at setup (e.g. floor supplies), or None for a stateless expansion."""
        return None

    def state_from_dict(self, data: dict[str, Any]) -> ExpansionState | None:
        """Inverse of ``ExpansionState.to_dict``."""
        return None

    def on_tile_placed(self, game: Game, pos: int, tile: TileType) -> None:
        """A tile was put at packed position ``pos`` (also during ``from_dict`` rebuilds)."""

    def add_action_options(self, game: Game, out: list[Action]) -> None:
        """Append this expansion's legal T3 options for the current player to ``out``."""

    def apply(self, game: Game, action: Action) -> bool:
        """Carry out one of :attr:`action_kinds`, raising ``IllegalActionError`` if it is illegal.

        Returns True when the phase-2 choice of the turn is complete and scoring may follow.
        """
        raise AssertionError(f"{type(self).__name__} declares no action kinds")

    def decision_actions(self, game: Game) -> list[Action]:
        """Legal actions of the decision phase this expansion opened."""
        raise AssertionError(f"{type(self).__name__} opens no decision phase")

    def before_scoring(self, game: Game, completed: list[int]) -> None:
        """T5 step (a): ``completed`` holds the union-find roots of the features completed this turn."""

    def board_figures(self, game: Game) -> Iterable[tuple[int, int]]:
        """(packed position, owner) of followers on the board that stand on no segment."""
        return ()

    @classmethod
    def overrides(cls, hook: str) -> bool:
        """Whether this expansion implements ``hook`` (the game skips hooks that are not)."""
        return getattr(cls, hook) is not getattr(Expansion, hook)
