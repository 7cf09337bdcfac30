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

Hooks see the game only through :class:`ExpansionHost`, the narrow public surface ``Game``
implements for them (mypy checks that expansions use nothing else): the public read API, read-only
views of the board and segment tables for hot loops, and the few changes an expansion makes —
score, supply, followers off segments, opening the T4 decision. Positions in this interface are
packed ints (:mod:`.geometry`); a segment is a segment id (``segment_base(i) + slot``) and a
feature is named by its key (``feature_key(segment)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from .actions import Action, ActionKind, Phase
from .scoring import ScoreReason
from .tiles import SegmentKind, TileCatalogue, TileType

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["Expansion", "ExpansionHost", "ExpansionState"]


class ExpansionState(Protocol):
    """Mutable per-game state of one expansion."""

    def copy(self) -> ExpansionState: ...

    def to_dict(self) -> dict[str, Any]: ...


class ExpansionHost(Protocol):
    """The game as its expansions see it: everything a hook may read or change (``Game`` is one).

    Views (``board_index`` … ``segment_followers``) return the game's own containers so that hot
    loops pay no call per element: they are read-only, live, and not to be kept beyond the hook.
    """

    # -- reads
    @property
    def num_players(self) -> int: ...

    @property
    def current_player(self) -> int:
        """The player deciding now."""
        ...

    @property
    def turn(self) -> int:
        """Number of turns begun so far (tells one turn from the next, e.g. one ransom per turn)."""
        ...

    @property
    def phase(self) -> Phase: ...

    def expansion_state(self, name: str) -> Any:
        """The per-game state object of expansion ``name``."""
        ...

    def score_of(self, player: int) -> int: ...

    def supply_of(self, player: int) -> int:
        """Followers in ``player``'s supply."""
        ...

    @property
    def board_index(self) -> Mapping[int, int]:
        """Packed position → placement index of the tile there."""
        ...

    @property
    def tile_positions(self) -> Sequence[int]:
        """Placement index → packed position."""
        ...

    @property
    def tile_types(self) -> Sequence[TileType]:
        """Placement index → tile type."""
        ...

    def segment_base(self, index: int) -> int:
        """Segment id of slot 0 of placement ``index``."""
        ...

    @property
    def segment_tiles(self) -> Sequence[int]:
        """Segment id → placement index."""
        ...

    @property
    def segment_kinds(self) -> Sequence[SegmentKind]:
        """Segment id → segment kind."""
        ...

    def segment_followers(self) -> Mapping[int, int]:
        """Segment id → owner of every follower on a segment."""
        ...

    def feature_key(self, segment: int) -> int:
        """Key of the feature containing ``segment``; equal keys = same feature."""
        ...

    def board_figures(self) -> list[tuple[int, int, int]]:
        """(x, y, owner) of followers on the board but on no segment (tower tops)."""
        ...

    # -- changes
    def add_score(self, player: int, points: int, reason: ScoreReason, pos: int | None = None) -> None:
        """Add ``points`` (negative to pay) to ``player``'s score, for ``reason`` at packed ``pos``
        (None: no position; what ``Game.score_log`` records)."""
        ...

    def take_follower(self, player: int) -> None:
        """One follower out of ``player``'s supply (``ValueError`` if it is empty)."""
        ...

    def return_follower(self, player: int) -> None:
        """One follower back into ``player``'s supply."""
        ...

    def remove_follower(self, segment: int) -> int:
        """Take the follower off ``segment``; returns its owner (it goes to no supply)."""
        ...

    def open_decision(self, expansion: Expansion) -> None:
        """Open the T4 decision (``Phase.CAPTURE``), answered through ``expansion``."""
        ...


class Expansion:
    """Base class of the expansion plug-ins; every hook defaults to doing nothing."""

    #: The declarative spec the registry (:mod:`.registry`) and ``GameConfig`` read: the config name,
    #: the tile set the expansion brings (None: none of its own) and the expansions it requires (R50).
    name: ClassVar[str] = ""
    tile_set: ClassVar[str | None] = None
    requires: ClassVar[tuple[str, ...]] = ()
    #: Action kinds this expansion carries out in :meth:`apply`.
    action_kinds: ClassVar[frozenset[ActionKind]] = frozenset()

    def __init__(self, config: GameConfig, catalogue: TileCatalogue) -> None:
        self.config = config
        self.catalogue = catalogue

    def new_state(self, game: ExpansionHost) -> ExpansionState | None:
        """The state at setup (e.g. floor supplies), or None for a stateless expansion. Called in the
        registry's order, so an expansion may adjust the fresh state of one it requires (the black
        tower deals the tower's floors)."""
        return None

    def state_from_dict(self, data: dict[str, Any]) -> ExpansionState | None:
        """Inverse of ``ExpansionState.to_dict``."""
        return None

    def on_tile_placed(self, game: ExpansionHost, pos: int, tile: TileType) -> None:
        """A tile was put at packed position ``pos`` (also during ``from_dict`` rebuilds)."""

    def add_action_options(self, game: ExpansionHost, out: list[Action]) -> None:
        """Append this expansion's legal T3 options for the current player to ``out``."""

    def apply(self, game: ExpansionHost, action: Action) -> bool:
        """Carry out one of :attr:`action_kinds`, raising ``IllegalActionError`` if it is illegal.

        Returns True when the phase-2 choice of the turn is complete and scoring may follow.
        """
        raise AssertionError(f"{type(self).__name__} declares no action kinds")

    def decision_actions(self, game: ExpansionHost) -> list[Action]:
        """Legal actions of the decision phase this expansion opened."""
        raise AssertionError(f"{type(self).__name__} opens no decision phase")

    def before_scoring(self, game: ExpansionHost, completed: list[int]) -> None:
        """T5 step (a): ``completed`` holds the keys of the features completed this turn."""

    def board_figures(self, game: ExpansionHost) -> Iterable[tuple[int, int]]:
        """(packed position, owner) of followers on the board that stand on no segment."""
        return ()

    @classmethod
    def overrides(cls, hook: str) -> bool:
        """Whether this expansion implements ``hook`` (the game skips hooks that are not)."""
        return getattr(cls, hook) is not getattr(Expansion, hook)
