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

Saved games (:mod:`.save_validation` calls these; the generic validator knows no expansion): an
expansion that keeps state parses it (:meth:`Expansion.parse_state`), says which followers it holds
off the segments for R46 (:meth:`Expansion.held_followers`), checks what holds in every position
(:meth:`Expansion.check_position`), tells the history walk the role of each of its actions in a
turn (:meth:`Expansion.turn_role`), checks its state against the history
(:meth:`Expansion.check_history`) and, on the rebuilt game, what needs the features
(:meth:`Expansion.check_loaded`).

Views and set-up (the generic text view and position builder know no expansion): the centre mark
of a tile in the text view (:meth:`Expansion.text_mark`), the lines an expansion adds below it
(:meth:`Expansion.text_lines`), and the steps it adds to ``PositionBuilder``
(:attr:`Expansion.builder_steps`, a :class:`BuilderSteps` class). docs/engine.md has the table of
every hook.

Hooks see the game only through :class:`ExpansionHost`, the narrow public surface ``Game``
implements for them (mypy checks that expansions use nothing else): the public read API, read-only
views of the board and segment tables for hot loops, and the few changes an expansion makes —
score, supply, followers off segments, opening the T4 decision. Positions in this interface are
packed ints (:mod:`.geometry`); a segment is a segment id (``segment_base(i) + slot``) and a
feature is named by its key (``feature_key(segment)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, Protocol

from mypy_extensions import mypyc_attr

from .actions import Action, ActionKind, Phase
from .save_format import HistoryAction, SavedPosition, TurnRole
from .scoring import ScoreReason
from .tiles import SegmentKind, TileCatalogue, TileType

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["BuilderSteps", "Expansion", "ExpansionHost", "ExpansionState", "PositionSetup"]


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

    @property
    def last_action(self) -> Action | None:
        """The most recent action applied."""
        ...

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


class PositionSetup(Protocol):
    """A position being set up by ``PositionBuilder``, as an expansion's :class:`BuilderSteps` see it:
    a ``GameSetup`` (:mod:`.game`) whose tiles and followers are already put."""

    def expansion_state(self, name: str) -> Any:
        """The state of an enabled expansion, to set up (``Expansion.new_state`` made it)."""
        ...

    def take_follower(self, player: int, *, reason: str) -> None:
        """Take a follower out of ``player``'s supply for ``reason``; ``PositionError`` (R2) if the
        supply is empty."""
        ...

    def refuse(self, message: str) -> NoReturn:
        """Raise ``PositionError(message)``: the position cannot exist, for the reason ``message``."""
        ...


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class BuilderSteps:
    """The steps an expansion adds to ``PositionBuilder`` (:mod:`.position`), which knows no expansion.

    ``PositionBuilder(config).<step>(...)`` with a name listed in :attr:`steps` calls that method of
    this class with the same arguments and returns the builder, so steps chain like the builder's
    own; a step of an expansion the config lacks raises ``PositionError`` naming the expansion. One
    instance per builder records the steps (a step only records; it does not check), and
    :meth:`apply` sets them up in ``build()``, after the tiles and followers and before the scores,
    checking what the position needs. Step names are unique across the registry and differ from the
    builder's own methods.
    """

    #: Names of the public methods of this class that are builder steps; each returns None.
    steps: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: GameConfig) -> None:
        self.config = config

    def apply(self, setup: PositionSetup) -> None:
        """Set up the recorded steps in ``setup``: change the states of this expansion (and of those
        it requires) and take from the supplies the followers it holds off the segments, raising
        through ``setup.refuse`` what cannot exist."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class Expansion:
    """Base class of the expansion plug-ins; every hook defaults to doing nothing."""

    #: The declarative spec the registry (:mod:`.registry`) and ``GameConfig`` read: the config name,
    #: the tile set the expansion brings (None: none of its own) and the expansions it requires (R50).
    name: ClassVar[str] = ""
    tile_set: ClassVar[str | None] = None
    requires: ClassVar[tuple[str, ...]] = ()
    #: Action kinds this expansion carries out in :meth:`apply`.
    action_kinds: ClassVar[frozenset[ActionKind]] = frozenset()
    #: Those of :attr:`action_kinds` that answer the T4 decision this expansion opens.
    decision_kinds: ClassVar[frozenset[ActionKind]] = frozenset()
    #: Those of :attr:`action_kinds` that end the turn and change nothing the end-now scoring reads
    #: (no follower on a segment, no feature, no score) — except what a ``before_scoring`` hook may
    #: count: a search values them as the turn ended as it stands (``Game.scores_if_ended_after``).
    neutral_endings: ClassVar[frozenset[ActionKind]] = frozenset()
    #: The steps this expansion adds to ``PositionBuilder`` (None: none).
    builder_steps: ClassVar[type[BuilderSteps] | None] = None

    def __init__(self, config: GameConfig, catalogue: TileCatalogue) -> None:
        self.config = config
        self.catalogue = catalogue

    def new_state(self, states: Mapping[str, ExpansionState]) -> ExpansionState | None:
        """The state at setup, before any tile is put (e.g. floor supplies), or None for a stateless
        expansion. ``states`` holds the fresh states of the expansions built before this one: called
        in the registry's order, an expansion may adjust the state of one it requires (the black
        tower deals the tower's floors). The game calls it, and so does the validator of saved games
        (the state a history grown from the start tile begins with)."""
        return None

    def state_from_dict(self, data: dict[str, Any]) -> ExpansionState | None:
        """Inverse of ``ExpansionState.to_dict``. An expansion keeps state exactly when it overrides
        this (:meth:`keeps_state`)."""
        return None

    @classmethod
    def keeps_state(cls) -> bool:
        """Whether games save a state of this expansion under ``expansions.<name>``."""
        return cls.overrides("state_from_dict")

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

    # ------------------------------------------------------------------ text view
    # Called by .text_board (Game.render_text), which draws no expansion's pieces itself.

    @staticmethod
    def text_mark(tile: TileType) -> str | None:
        """The character the text view draws in the centre of a tile of type ``tile`` that has no
        monastery (e.g. a tower foundation), or None when this expansion marks nothing there. A
        property of the tile: asked of every registered plug-in in registry order, whatever the
        game's config; the first mark wins, and a follower drawn there hides it."""
        return None

    def text_lines(self, game: ExpansionHost) -> Sequence[str]:
        """Lines the text view appends below the scores and supplies for this expansion of the game
        (e.g. its pieces off the board tiles and per-player supplies), in registry order."""
        return ()

    # ------------------------------------------------------------------ saved games
    # Called by .save_validation while it checks a document, before anything is rebuilt. ``at`` and
    # ``field`` are paths of the document for SaveError (.save_format); ``state`` is what
    # parse_state returned. Hooks that check raise SaveError and otherwise change nothing.

    def parse_state(self, data: Any, at: str) -> ExpansionState:
        """The state saved as ``data`` (``ExpansionState.to_dict``) with its structure and types
        checked, for an expansion that :meth:`keeps_state`; ``at`` is its path prefix
        (``expansions.<name>.``)."""
        raise AssertionError(f"{type(self).__name__} keeps no state")

    def held_followers(self, state: Any) -> Sequence[int]:
        """Per player, the followers this expansion keeps off the segments (e.g. on tower tops, held
        as prisoners): with the supply and the followers on segments they make up the 7 of R46."""
        return ()

    def check_position(self, position: SavedPosition, state: Any) -> None:
        """Check what holds in every position, played or built (docs/rules.md §8): run on the document
        and on its built ``start_position``, after the board, the tiles and R46 are checked."""

    def turn_role(self, action: Action, seat: int, field: str) -> TurnRole:
        """The role in its turn of ``action``, one of :attr:`action_kinds` taken by player ``seat``
        at ``field`` of a saved history; SaveError if no such action is ever legal in this game.
        The default: DECISION for :attr:`decision_kinds`, CHOICE for the others."""
        return TurnRole.DECISION if action.kind in self.decision_kinds else TurnRole.CHOICE

    def check_history(
        self, position: SavedPosition, state: Any, origin: Any, actions: Sequence[HistoryAction]
    ) -> None:
        """Check ``state`` against the history: ``origin`` is this expansion's state where the history
        starts (a fresh :meth:`new_state`, or that of the built start position) and ``actions`` are
        the history's actions of :attr:`action_kinds`, in order, after the walk checked turn order."""

    def check_loaded(self, game: ExpansionHost) -> None:
        """Check what needs the rebuilt features, on the game loaded from a checked document."""

    @classmethod
    def overrides(cls, hook: str) -> bool:
        """Whether this expansion implements ``hook`` (the game skips hooks that are not)."""
        return getattr(cls, hook) is not getattr(Expansion, hook)
