"""The game: turn phases, legal actions, apply, features, when scoring happens, clone (docs/rules.md §1,
§5), and ``GameSetup``, the public way to construct a game in a given position. What features are
worth is in :mod:`.scoring`; saving and loading are in :mod:`.persistence`; ``GameRecord``, what it
takes to replay a game, is here.

State layout (all plain Python lists and dicts of ints, because this engine's hot path is scalar
access, where lists beat numpy arrays by an order of magnitude; ``clone()`` copies them shallowly):

* the board: ``_board`` maps a packed position (see :mod:`.geometry`) to the placement index of
  its tile; per placement index ``_tile_pos``, ``_tile_type``, ``_tile_rot``, ``_tile_base`` (the
  union-find node of the tile's segment 0: segment ``s`` is node ``base + s``);
* the frontier: ``_frontier`` maps each empty position next to a tile to its requirement, the
  terrains its edges must show, packed two bits per edge like ``TileType.edge_code`` (the low
  :data:`_REQ_BITS` bits), and above them the position's slot in :data:`_PLACE_ACTIONS` (its PLACE
  action per rotation), so that listing the legal placements looks nothing up by position;
* features: one union-find node per placed segment (R6). The root of a feature keeps its totals:
  ``_open`` (open edges, R8), ``_tiles`` (a bitmask of placement indices, so ``bit_count`` is the
  size of R7), ``_pennants``, ``_occupants`` (followers on it) and, for fields, ``_adj`` (a
  bitmask of bordering city nodes, R28). A road or city is complete when ``_open`` reaches 0
  (R19); nothing is ever flood-filled;
* followers on segments: ``_followers`` maps a node to its owner.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NamedTuple, NoReturn, SupportsIndex, cast

import numpy as np

from .actions import PASS, Action, ActionKind, IllegalActionError, Phase
from .config import FOLLOWERS_PER_PLAYER, GameConfig, as_int
from .expansion import Expansion, ExpansionState
from .geometry import AREA, DELTAS, RING, check_coords, pack, unpack
from .persistence import game_from_dict, game_from_json, game_to_dict, game_to_json
from .registry import build_expansions
from .scoring import ScoreEvent, ScoreReason, award, completed_value, field_value, final_value, majority_counts
from .tiles import SegmentKind, TileCatalogue, TileType, load_catalogue, seeded_pile

__all__ = [
    "FOLLOWERS_PER_PLAYER", "Feature", "Follower", "Game", "GameRecord", "GameSetup", "PlaceUndo", "PlacedTile",
    "PositionError",
]

# Final (here and below): the compiled module reads these as constants, not from the module's dict.
_CITY: Final = SegmentKind.CITY
_ROAD: Final = SegmentKind.ROAD
_FIELD: Final = SegmentKind.FIELD
_MONASTERY: Final = SegmentKind.MONASTERY
#: The score-log reason of a feature, by SegmentKind.
_FEATURE_REASONS: Final[tuple[ScoreReason, ...]] = ("city", "road", "field", "monastery")

#: The PLACE actions of a position, one per rotation, by the position's slot (legal lists reuse these
#: objects). (A variable-length tuple type: compiled, a fixed-length one is unboxed on every read.)
_PLACE_ACTIONS: Final[list[tuple[Action, ...]]] = []
#: Packed position → its slot in :data:`_PLACE_ACTIONS` (given the first time it joins a frontier).
_PLACE_SLOT: Final[dict[int, int]] = {}
_PLACE_SLOT_LOCK: Final = threading.Lock()
#: A frontier value is ``requirement | slot << _REQ_BITS`` (the requirement: 2 bits an edge).
_REQ_BITS: Final = 8
_REQ_MASK: Final = 0xFF
#: Cached DEPLOY actions per packed position, one per segment slot.
_DEPLOY_CACHE: Final[dict[int, tuple[Action, ...]]] = {}


#: The state that only ``_put_tile`` changes (the board, the frontier and the union-find with its
#: totals): ``clone`` shares these containers and sets ``_cow`` on both games, and ``_put_tile``
#: copies them (``_unshare``) before its first change. Invariant: a game with ``_cow`` False owns
#: them alone. Path compression in ``_find`` writes to a shared ``_parent``, which is harmless:
#: games that share it have the same forest, and compression keeps every root. ``_value_cache``
#: (feature root → its end-game value, R27–R28, filled by ``_end_now``) goes with the group: the
#: value of a feature depends on the group (and the completed-city masks, which only ``_put_tile``
#: changes too) alone. Invariant: every entry keyed by a current root is that feature's value now;
#: ``_put_tile`` drops the roots it merges into, the monasteries around the tile, and everything
#: when a city completes (fields bordering it gain 3 points).
_BOARD_GROUP: tuple[str, ...] = (
    "_board", "_tile_pos", "_tile_type", "_tile_rot", "_tile_base", "_frontier", "_monasteries", "_parent",
    "_kind", "_node_tile", "_open", "_tiles", "_pennants", "_adj", "_value_cache",
)


#: Per tile type (catalogue index): the slots of its roads and cities, the segments that complete (R19).
_EDGE_SLOTS: Final[dict[int, tuple[int, ...]]] = {}


def _place_slot(p: int) -> int:
    """The slot of position ``p`` in :data:`_PLACE_ACTIONS`, shifted into a frontier value.

    A position's slot is given once per process, under a lock (games played in threads share the
    tables), its actions stored before the slot is."""
    slot = _PLACE_SLOT.get(p)
    if slot is None:
        x, y = unpack(p)
        acts = tuple(Action(ActionKind.PLACE, x, y, r) for r in range(4))
        with _PLACE_SLOT_LOCK:
            slot = _PLACE_SLOT.get(p)
            if slot is None:  # the actions first: a reader that finds the slot finds its actions
                slot = len(_PLACE_ACTIONS)
                _PLACE_ACTIONS.append(acts)
                _PLACE_SLOT[p] = slot
    return slot << _REQ_BITS


def _deploy_actions_at(p: int) -> tuple[Action, ...]:
    x, y = unpack(p)
    acts = tuple(Action(ActionKind.DEPLOY, x, y, s) for s in range(load_catalogue().max_segments))
    _DEPLOY_CACHE[p] = acts
    return acts


#: This module runs compiled (mypyc): its file is the C extension, not the source.
_COMPILED = not __file__.endswith(".py")


def _is_action_class(value: object) -> bool:
    """``type(value) is Action``, in a function of its own: inline, a compiled engine (mypyc) would
    take the fields of ``value`` as Action's (ints) from then on and refuse a float with its own
    TypeError, before :meth:`Action.coerce` can name what is wrong."""
    return type(value) is Action


def _as_action(action: Action | Sequence[int]) -> Action:
    """``action`` as an :class:`Action`: itself when it is one with plain fields (the fast path of
    ``apply``), else :meth:`Action.coerce`, which names what is wrong."""
    if not _is_action_class(action):
        return Action.coerce(action)
    # An Action is a tuple: its fields read as objects (a compiled engine neither unboxes them nor
    # indexes through the generic sequence protocol).
    raw = cast("tuple[object, ...]", action)
    if (
        type(raw[0]) is not ActionKind
        or type(raw[1]) is not int
        or type(raw[2]) is not int
        or type(raw[3]) is not int
    ):
        return Action.coerce(action)
    return cast(Action, action)


class PlacedTile(NamedTuple):
    x: int
    y: int
    tile: TileType
    rotation: int


class Follower(NamedTuple):
    """A follower on a segment: ``slot`` is the segment's index on the tile at (x, y)."""

    x: int
    y: int
    slot: int
    owner: int


@dataclass(frozen=True)
class Feature:
    """A feature as the rules see it (R6–R8): derived on request, never stored."""

    kind: SegmentKind
    positions: frozenset[tuple[int, int]]
    pennants: int
    open_edges: int
    followers: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.positions)

    @property
    def complete(self) -> bool:
        """Roads and cities complete at 0 open edges (R19); see ``Game.monastery_complete``."""
        return self.kind in (SegmentKind.CITY, SegmentKind.ROAD) and self.open_edges == 0


class PositionError(ValueError):
    """The requested position cannot exist under the rules."""


class GameSetup:
    """The public way to construct a game in a given position, used by ``PositionBuilder`` (positions
    set up directly, docs/rules.md §8) and by the loader of saved games (:mod:`.persistence`).

    It starts from an empty board with full supplies and the config's expansion states, and
    nothing scores while setting up. Each ``put_…``/``take_…`` call checks what a position needs
    (R11 for touching edges, R2 and R15/R42 for followers) and raises :class:`PositionError` naming
    what is wrong. A built board may have holes and need not contain the start tile. :meth:`start`
    draws the first tile (T1) and hands out the game; :meth:`resume`, for loaders, hands it out in
    the middle of play exactly as saved. Either way the setup is then spent.
    """

    def __init__(self, config: GameConfig, pile: Sequence[str] = (), *, seed: int | None = None) -> None:
        """``pile``: tile ids in draw order. ``seed``: for loaders, the seed that shuffled this pile
        (``Game(config, seed=…)``); None means the pile is an explicit order."""
        catalogue = load_catalogue()
        game = Game(_blank=True)
        game._init_empty(config, catalogue, seed, [catalogue[t] for t in pile])
        self._game: Game | None = game

    def refuse(self, message: str) -> NoReturn:
        """Raise ``PositionError(message)``: the position cannot exist, for the reason ``message``
        (what expansion steps call on a ``PositionSetup``)."""
        raise PositionError(message)

    def _live(self) -> Game:
        if self._game is None:
            raise RuntimeError("this setup has already started its game")
        return self._game

    def expansion_state(self, name: str) -> Any:
        """The state of an enabled expansion, to set up (``Expansion.new_state`` made it)."""
        return self._live().expansion_state(name)

    def load_expansion_state(self, name: str, data: dict[str, Any]) -> None:
        """Replace the state of expansion ``name`` by one read from its ``to_dict`` data (loaders).

        Call it after the tiles are put: placing a tile may update the state (``on_tile_placed``)."""
        g = self._live()
        state = g.expansion(name).state_from_dict(data)
        if state is not None:
            g._ext[name] = state

    def put_tile(self, tile_id: str, x: int, y: int, rotation: int = 0) -> None:
        """Put a tile at (x, y): on an empty position, its edges matching its neighbours (R11)."""
        g = self._live()
        tile = g._catalogue[tile_id]
        p = pack(x, y)
        if p in g._board:
            raise PositionError(f"two tiles at ({x},{y})")
        req = g._frontier.get(p, 0) & _REQ_MASK
        if req and rotation not in tile.fits[req]:
            raise PositionError(f"{tile_id} rotation {rotation} at ({x},{y}) does not match its neighbours (R11)")
        if not req and any(p + d in g._board for d in DELTAS):
            raise PositionError(f"({x},{y}) is not on the frontier")
        g._put_tile(tile, p, rotation)

    def put_follower(self, player: int, x: int, y: int, slot: int) -> None:
        """A follower of ``player``, from their supply, on segment ``slot`` of the tile at (x, y)."""
        g = self._live()
        i = g._board.get(pack(x, y))
        if i is None or not 0 <= slot < g._tile_type[i].segment_count:
            raise PositionError(f"no segment {slot} at ({x},{y})")
        node = g._tile_base[i] + slot
        if node in g._followers:
            raise PositionError(f"segment {slot} at ({x},{y}) already holds a follower (R42)")
        g._followers[node] = player
        g._occupants[g._find(node)] += 1
        g._final_memo = None
        self.take_follower(player, reason=f"follower at ({x},{y})")

    def take_follower(self, player: int, *, reason: str) -> None:
        """Take a follower out of ``player``'s supply for ``reason`` (one an expansion keeps off the
        segments)."""
        g = self._live()
        if g._supply[player] == 0:
            raise PositionError(f"player {player} has no follower left for the {reason} (R2)")
        g._supply[player] -= 1

    def set_supply(self, player: int, followers: int) -> None:
        """Set ``player``'s supply outright (loaders: the saved count, after the followers are put)."""
        self._live()._supply[player] = followers

    def set_score(self, player: int, points: int) -> None:
        self._live()._scores[player] = points

    def start(self, current_player: int = 0) -> Game:
        """Draw the first tile of the pile for ``current_player`` (T1; an empty pile ends the game
        at once, with the final scoring) and return the game, which records this start position."""
        g = self._live()
        g._current = current_player
        g._draw()
        g._start_position = g.to_dict()
        self._game = None
        return g

    def resume(
        self,
        *,
        drawn: int,
        discarded: Sequence[str],
        current_player: int,
        turn: int,
        phase: Phase,
        tile: str | None,
        history: Sequence[Action],
        start_position: dict[str, Any] | None,
    ) -> Game:
        """For loaders only: return the game in the middle of play, exactly as saved, drawing nothing.

        The first ``drawn`` tiles of the pile are gone (placed, ``discarded`` or ``tile``, the one in
        hand). In ACTION and DECISION the last tile put is this turn's: the features it completed
        score at the end of the turn, and DECISION is answered by the expansion whose action, the
        last of the history, opened it.
        ``start_position`` is the position a built game started from (``Game.start_position``).
        Nothing here is checked against the rules: the loader checks the document before
        (``save_validation.validate_document``) and the game after (``validate_loaded``).
        """
        g = self._live()
        catalogue = g._catalogue
        g._drawn = drawn
        g._remaining = [0] * len(catalogue.types)
        for t in g._pile[drawn:]:
            g._remaining[t.index] += 1
        g._discarded = [catalogue[t] for t in discarded]
        g._current = current_player
        g._turn = turn
        g._phase = phase
        g._tile = None if tile is None else catalogue[tile]
        g._history = list(history)
        g._start_position = start_position
        if phase in (Phase.ACTION, Phase.DECISION):
            g._completed = g._completions(len(g._tile_pos) - 1)
        if phase is Phase.DECISION:  # the last action opened the decision: its owner answers it
            g._decision_owner = g._action_owner[g._history[-1].kind]
        g._final_memo = None
        self._game = None
        return g


class Game:
    """One game of Carcassonne with the configured expansions.

    Create it from a seed (the tile pile is shuffled by ``np.random.default_rng(seed)``) or from an
    explicit ``tile_order`` of tile ids. The start tile is placed at (0,0) rotation 0 (R4) and the
    first player's tile is drawn, so the game starts in ``Phase.PLACE``.
    """

    def __init__(
        self,
        config: GameConfig | None = None,
        *,
        seed: SupportsIndex | None = None,
        tile_order: Sequence[str] | None = None,
        _blank: bool = False,
    ) -> None:
        if _blank:  # internal (clone, GameSetup): no state yet, the caller sets every attribute
            return
        if config is None:
            config = GameConfig()
        elif not isinstance(config, GameConfig):
            raise TypeError(
                f"config must be a GameConfig (GameConfig(**fields) or GameConfig.from_dict(mapping)), got {config!r}"
            )
        catalogue = load_catalogue()
        if seed is not None and tile_order is not None:
            raise ValueError("give a seed or a tile_order, not both")
        number: int | None = None
        if tile_order is None:
            number = secrets.randbits(63) if seed is None else as_int(seed)
            if number is None:
                raise TypeError(f"seed must be an int, got {seed!r}")
            if number < 0:
                raise ValueError(f"seed must be a non-negative int, got {seed!r}")
            pile = seeded_pile(catalogue, config.tile_sets or (), number)
        else:
            allowed = {t.id for s in config.tile_sets or () for t in catalogue.sets[s]}
            for tid in tile_order:
                if tid not in allowed:
                    raise ValueError(f"tile_order: {tid!r} is not a tile of the sets {config.tile_sets}")
            pile = [catalogue.by_id[tid] for tid in tile_order]
        self._init_empty(config, catalogue, number, pile)
        self._put_tile(catalogue.start, pack(0, 0), 0)
        self._draw()

    def _init_empty(
        self,
        config: GameConfig,
        catalogue: TileCatalogue,
        seed: int | None,
        pile: list[TileType],
    ) -> None:
        """Empty board, full supplies, new expansion states; ``seed`` None: ``pile`` is an explicit order."""
        n = config.players
        self._config = config
        self._catalogue = catalogue
        self._seed = seed
        self._pile = pile
        self._drawn = 0
        self._remaining = [0] * len(catalogue.types)
        for t in pile:
            self._remaining[t.index] += 1
        self._discarded: list[TileType] = []
        self._board: dict[int, int] = {}
        self._tile_pos: list[int] = []
        self._tile_type: list[TileType] = []
        self._tile_rot: list[int] = []
        self._tile_base: list[int] = []
        self._frontier: dict[int, int] = {}
        self._monasteries: dict[int, int] = {}
        self._parent: list[int] = []
        self._kind: list[SegmentKind] = []
        self._node_tile: list[int] = []
        self._open: list[int] = []
        self._tiles: list[int] = []
        self._pennants: list[int] = []
        self._occupants: list[int] = []
        self._adj: list[int] = []
        self._closed_nodes = 0
        self._closed_cities: tuple[int, ...] = ()
        self._cow = False
        self._parent_log: list[int] | None = None
        self._root_log: list[int] | None = None
        self._value_cache: dict[int, int] = {}
        self._final_memo: list[int] | None = None
        self._followers: dict[int, int] = {}
        self._supply = [FOLLOWERS_PER_PLAYER] * n
        self._scores = [0] * n
        self._current = 0
        self._turn = 0
        self._phase = Phase.PLACE
        self._tile: TileType | None = None
        self._completed: list[int] = []
        self._legal: list[Action] | None = None
        self._decision_owner: Expansion | None = None
        self._history: list[Action] = []
        self._start_position: dict[str, Any] | None = None
        self._score_log: list[ScoreEvent] | None = None
        self._assemble_expansions()
        self._ext: dict[str, ExpansionState] = {}
        for e in self._expansions:
            state = e.new_state(self._ext)
            if state is not None:
                self._ext[e.name] = state

    def _assemble_expansions(self) -> None:
        """The one place that turns the config's expansion names into hooks."""
        self._expansions: tuple[Expansion, ...] = build_expansions(self._config, self._catalogue)
        exps = self._expansions
        self._placed_hooks = tuple(e.on_tile_placed for e in exps if e.overrides("on_tile_placed"))
        self._option_hooks = tuple(e.add_action_options for e in exps if e.overrides("add_action_options"))
        self._scoring_hooks = tuple(e.before_scoring for e in exps if e.overrides("before_scoring"))
        self._figure_sources = tuple(e.board_figures for e in exps if e.overrides("board_figures"))
        self._action_owner: dict[ActionKind, Expansion] = {k: e for e in exps for k in e.action_kinds}
        self._neutral_endings = frozenset(k for e in exps for k in e.neutral_endings)

    # ------------------------------------------------------------------ public read API
    @property
    def config(self) -> GameConfig:
        return self._config

    @property
    def catalogue(self) -> TileCatalogue:
        return self._catalogue

    @property
    def num_players(self) -> int:
        return self._config.players

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.GAME_OVER

    @property
    def current_player(self) -> int:
        """The player who makes the current decision; after the game, the seat whose turn it was
        when it ended (which may be a seat that found the pile empty, R26)."""
        return self._current

    @property
    def turn(self) -> int:
        """Number of turns begun so far, counting from 0 for the first player's first turn."""
        return self._turn

    @property
    def current_tile(self) -> TileType | None:
        """The tile drawn this turn (None once the game is over)."""
        return self._tile

    @property
    def placed_position(self) -> tuple[int, int] | None:
        """Where this turn's tile went, during T3/T4; None otherwise."""
        if self._phase in (Phase.ACTION, Phase.DECISION):
            return unpack(self._tile_pos[-1])
        return None

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    @property
    def supply(self) -> tuple[int, ...]:
        """Followers in each player's supply."""
        return tuple(self._supply)

    @property
    def tiles_left(self) -> int:
        return len(self._pile) - self._drawn

    @property
    def remaining_counts(self) -> tuple[int, ...]:
        """Tiles still in the pile, per catalogue index: public information (R4)."""
        return tuple(self._remaining)

    @property
    def discarded(self) -> tuple[TileType, ...]:
        """Tiles removed from the game as unplaceable (R13), in order."""
        return tuple(self._discarded)

    @property
    def tiles_placed(self) -> int:
        return len(self._tile_pos)

    @property
    def history(self) -> tuple[Action, ...]:
        return tuple(self._history)

    @property
    def last_action(self) -> Action | None:
        """The most recent action applied (O(1), unlike :attr:`history`)."""
        return self._history[-1] if self._history else None

    @property
    def seed(self) -> int | None:
        """The seed that shuffled the pile; None when the pile is an explicit order."""
        return self._seed

    @property
    def start_position(self) -> dict[str, Any] | None:
        """The position (a :meth:`to_dict` document) a game set up by ``GameSetup.start`` began in;
        None for a game grown from the start tile."""
        return self._start_position

    @property
    def expansion_states(self) -> Mapping[str, ExpansionState]:
        """Expansion name → its per-game state, for every expansion that keeps one (read-only view)."""
        return MappingProxyType(self._ext)

    def pile_in_draw_order(self) -> tuple[TileType, ...]:
        """The whole pile in draw order: the tiles drawn so far, then the unseen rest.

        Hidden information: the order of the tiles not yet drawn is the future. It is public for
        saving and records (:mod:`.persistence`); players use :attr:`remaining_counts`,
        :meth:`chance_outcomes` and :meth:`determinize` instead.
        """
        return tuple(self._pile)

    def winners(self) -> tuple[int, ...]:
        """Players with the highest score; a tie is a shared win (R30). Only after the game."""
        if not self.is_over:
            raise RuntimeError("the game is not over")
        best = max(self._scores)
        return tuple(p for p, s in enumerate(self._scores) if s == best)

    def expansion(self, name: str) -> Expansion:
        """The rules object (plug-in) of an enabled expansion, by its registry name."""
        for e in self._expansions:
            if e.name == name:
                return e
        raise KeyError(f"expansion {name!r} is not enabled in this game")

    def expansion_state(self, name: str) -> Any:
        """The mutable state object of an enabled expansion, by its registry name."""
        try:
            return self._ext[name]
        except KeyError:
            raise KeyError(f"expansion {name!r} has no state in this game") from None

    def tiles(self) -> list[PlacedTile]:
        """Placed tiles in placement order (the start tile first)."""
        return [
            PlacedTile(*unpack(p), t, r)
            for p, t, r in zip(self._tile_pos, self._tile_type, self._tile_rot, strict=True)
        ]

    def tile_at(self, x: int, y: int) -> PlacedTile | None:
        i = self._board.get(pack(x, y))
        if i is None:
            return None
        return PlacedTile(x, y, self._tile_type[i], self._tile_rot[i])

    def followers(self) -> list[Follower]:
        """Followers on segments (those an expansion keeps elsewhere are in its state)."""
        out = []
        for node, owner in self._followers.items():
            i = self._node_tile[node]
            x, y = unpack(self._tile_pos[i])
            out.append(Follower(x, y, node - self._tile_base[i], owner))
        return out

    def board_figures(self) -> list[tuple[int, int, int]]:
        """(x, y, owner) of followers that stand on the board but on no segment (``Expansion.board_figures``)."""
        return [(*unpack(p), o) for source in self._figure_sources for p, o in source(self)]

    def feature(self, x: int, y: int, slot: int) -> Feature:
        """The feature containing segment ``slot`` of the tile at (x, y)."""
        i = self._board.get(pack(x, y))
        if i is None:
            raise KeyError(f"no tile at ({x},{y})")
        if not 0 <= slot < self._tile_type[i].segment_count:
            raise KeyError(f"tile at ({x},{y}) has no segment {slot}")
        root = self._find(self._tile_base[i] + slot)
        counts = [0] * self.num_players
        for node, owner in self._followers.items():
            if self._find(node) == root:
                counts[owner] += 1
        positions = frozenset(
            unpack(self._tile_pos[j]) for j in range(len(self._tile_pos)) if self._tiles[root] >> j & 1
        )
        return Feature(self._kind[root], positions, self._pennants[root], self._open[root], tuple(counts))

    def monastery_complete(self, x: int, y: int) -> bool:
        """Whether all 8 ring positions of (x, y) hold tiles (R20)."""
        p = pack(x, y)
        return all(p + d in self._board for d in RING)

    # ------------------------------------------------------------------ read-only accessors for encoders
    # Added for the env's observation encoder, which mirrors the board incrementally. None of these
    # changes the game. Segment ids number every placed segment in placement order: the segments of
    # placement i are ``segment_base(i) + slot``, and an id never changes. A feature's key is the id
    # of one of its segments; two segments lie in the same feature exactly when their keys are
    # equal. Keys change only when a PLACE merges features (the merged feature keeps one of the old
    # keys, or a new segment's id when it merges nothing).

    def placed_tile(self, index: int) -> PlacedTile:
        """The tile of placement ``index`` (0 is the start tile); O(1), unlike :meth:`tiles`."""
        x, y = unpack(self._tile_pos[index])
        return PlacedTile(x, y, self._tile_type[index], self._tile_rot[index])

    def segment_base(self, index: int) -> int:
        """Segment id of slot 0 of placement ``index``."""
        return self._tile_base[index]

    def feature_key(self, segment: int) -> int:
        """Key of the feature that contains segment id ``segment``."""
        return self._find(segment)

    def feature_totals(self, segment: int) -> tuple[int, int, int]:
        """(open edges, tiles, pennants) of the feature containing segment id ``segment`` (R7, R8)."""
        root = self._find(segment)
        return self._open[root], self._tiles[root].bit_count(), self._pennants[root]

    def segment_followers(self) -> Mapping[int, int]:
        """Segment id → owner of every follower on a segment: a live, read-only view."""
        return MappingProxyType(self._followers)

    # ------------------------------------------------------------------ the expansion interface
    # What expansion hooks use besides the read API above (``ExpansionHost`` in .expansion lists the
    # whole surface; docs/engine.md "The expansion interface"). Positions are packed ints (see
    # .geometry), segments are segment ids. The views hand out the game's own containers, so hot
    # loops pay no call per element: they are read-only (typed so), live, and never to be kept.
    # The mutators are for hooks only: agents and other callers change a game through ``apply``.

    @property
    def board_index(self) -> Mapping[int, int]:
        """Packed position → placement index of the tile there (read-only view)."""
        return self._board

    @property
    def tile_positions(self) -> Sequence[int]:
        """Placement index → packed position of that tile (read-only view)."""
        return self._tile_pos

    @property
    def tile_types(self) -> Sequence[TileType]:
        """Placement index → type of that tile (read-only view)."""
        return self._tile_type

    @property
    def segment_tiles(self) -> Sequence[int]:
        """Segment id → placement index of the tile it lies on (read-only view)."""
        return self._node_tile

    @property
    def segment_kinds(self) -> Sequence[SegmentKind]:
        """Segment id → kind of that segment (read-only view)."""
        return self._kind

    def score_of(self, player: int) -> int:
        """``player``'s score (O(1), unlike :attr:`scores`)."""
        return self._scores[player]

    def supply_of(self, player: int) -> int:
        """Followers in ``player``'s supply (O(1), unlike :attr:`supply`)."""
        return self._supply[player]

    def add_score(self, player: int, points: int, reason: ScoreReason, pos: int | None = None) -> None:
        """Add ``points`` (negative to pay) to ``player``'s score; ``reason`` and the
        packed position ``pos`` (None: (0, 0)) are what :attr:`score_log` records."""
        self._scores[player] += points
        if self._score_log is not None:
            x, y = (0, 0) if pos is None else unpack(pos)
            self._score_log.append(ScoreEvent(self._turn, player, points, reason, x, y))

    def keep_score_log(self) -> None:
        """Record every score change from now on in :attr:`score_log` (off by default, so that
        playing, cloning and search pay nothing for it; a clone keeps a copy of the log). The log
        is not saved: ``to_dict``/``from_dict`` and pickling give a game without it (replay the
        record with the log on to rebuild it, as the replay viewer does)."""
        if self._score_log is None:
            self._score_log = []

    @property
    def score_log(self) -> tuple[ScoreEvent, ...]:
        """Every score change since :meth:`keep_score_log`, in order: who, how many points, why and
        where (:class:`~.scoring.ScoreEvent`); their sum per player is the change of :attr:`scores`."""
        return tuple(self._score_log or ())

    def _award_logged(self, counts: Sequence[int], value: int, root: int, final: bool) -> None:
        """:func:`~.scoring.award` for the feature rooted at ``root``, logging each score it changed
        (the log is on; the plain path calls ``award`` alone, so that it pays nothing)."""
        assert self._score_log is not None
        before = self._scores.copy()
        award(self._scores, counts, value)
        x, y = unpack(self._tile_pos[self._node_tile[root]])
        reason = _FEATURE_REASONS[self._kind[root]]
        self._score_log.extend(ScoreEvent(self._turn, p, b - a, reason, x, y, final)
                               for p, (a, b) in enumerate(zip(before, self._scores, strict=True)) if a != b)

    def take_follower(self, player: int) -> None:
        """Take one follower from ``player``'s supply (the hook checked that there is one)."""
        if not self._supply[player]:
            raise ValueError(f"player {player} has no follower in supply")
        self._supply[player] -= 1

    def return_follower(self, player: int) -> None:
        """Put one follower back into ``player``'s supply."""
        self._supply[player] += 1

    def remove_follower(self, segment: int) -> int:
        """Take the follower off segment id ``segment`` and return its owner; it goes nowhere
        (the calling hook puts it into a supply or keeps it in its state)."""
        owner = self._followers.pop(segment)
        self._occupants[self._find(segment)] -= 1
        self._final_memo = None
        return owner

    def open_decision(self, expansion: Expansion) -> None:
        """Open the T4 decision (``Phase.DECISION``): its legal actions come from
        ``expansion.decision_actions`` and its answer goes to ``expansion.apply``."""
        self._phase = Phase.DECISION
        self._decision_owner = expansion

    # ------------------------------------------------------------------ decisions
    def legal_actions(self) -> Sequence[Action]:
        """Every legal action of the current decision (never empty while the game runs).

        The returned list is cached until the next ``apply``; do not mutate it.
        """
        legal = self._legal
        if legal is None:
            phase = self._phase
            if phase is Phase.ACTION:
                legal = self._action_options()
            elif phase is Phase.PLACE:
                assert self._tile is not None
                legal = self._placements(self._tile)
            elif phase is Phase.DECISION:
                assert self._decision_owner is not None
                legal = self._decision_owner.decision_actions(self)
            else:
                legal = []
            self._legal = legal
        return legal

    def apply(self, action: Action | Sequence[int]) -> None:
        """Carry out ``action`` for the current player; an illegal one raises IllegalActionError.

        Nothing changes when an action is refused.
        """
        if self._parent_log is not None:
            raise RuntimeError("apply: a placement of apply_place_undoable is open; undo_place it first")
        action = _as_action(action)
        self._final_memo = None
        phase = self._phase
        kind = action[0]
        if phase is Phase.PLACE:
            if kind != ActionKind.PLACE:
                raise IllegalActionError(f"{action}: the current decision is PLACE (T2)")
            self._apply_place(action)
            self._legal = None
            self._history.append(action)
            return
        if phase is Phase.ACTION:
            if kind == ActionKind.PASS:
                if action != PASS:  # a field not 0 (unused_fields_are_zero, without a method call by name)
                    raise IllegalActionError(f"{action}: PASS takes no arguments")
                done = True
            elif kind == ActionKind.DEPLOY:
                self._apply_deploy(action)
                done = True
            else:
                owner = self._action_owner.get(kind)
                if owner is None:
                    raise IllegalActionError(
                        f"{action}: not a phase-2 option in this game (expansions: "
                        f"{', '.join(self._config.expansions) or 'none'})"
                    )
                done = owner.apply(self, action)
        elif phase is Phase.DECISION:
            owner = self._decision_owner
            assert owner is not None
            if kind not in owner.decision_kinds:
                raise IllegalActionError(f"{action}: the current decision is {phase.name} (T4)")
            owner.apply(self, action)
            self._decision_owner = None
            done = True
        else:
            raise IllegalActionError(f"{action}: the game is over")
        self._history.append(action)
        self._legal = None
        if done:
            self._finish_turn()

    def _apply_place(self, action: Action) -> None:
        _, x, y, rot = action
        p = check_coords(x, y)
        cell = self._frontier.get(p)
        tile = self._tile
        assert tile is not None
        if cell is None:
            where = "is occupied" if p in self._board else "has no orthogonal neighbour (R11)"
            raise IllegalActionError(f"{action}: position ({x},{y}) {where}")
        if rot not in tile.fits[cell & _REQ_MASK]:
            raise IllegalActionError(
                f"{action}: {tile.id} with rotation {rot} does not match the "
                f"neighbouring edges at ({x},{y}) (R11)"
            )
        idx = self._put_tile(tile, p, rot)
        self._completed = self._completions(idx)
        self._phase = Phase.ACTION

    def _apply_deploy(self, action: Action) -> None:
        _, x, y, slot = action
        p = self._tile_pos[-1]
        tile = self._tile
        assert tile is not None
        if (x, y) != unpack(p):
            raise IllegalActionError(f"{action}: followers go on the tile just placed at {unpack(p)} (R14)")
        if not 0 <= slot < tile.segment_count:
            raise IllegalActionError(f"{action}: {tile.id} has segments 0..{tile.segment_count - 1}")
        player = self._current
        if self._supply[player] == 0:
            raise IllegalActionError(f"{action}: player {player} has no follower in supply")
        node = self._tile_base[-1] + slot
        root = self._find(node)
        if self._occupants[root]:
            raise IllegalActionError(f"{action}: that feature already holds a follower (R15)")
        self._followers[node] = player
        self._occupants[root] += 1
        self._supply[player] -= 1

    # ------------------------------------------------------------------ legal action lists
    def _placements(self, tile: TileType) -> list[Action]:
        """PLACE actions of ``tile``: per frontier cell, the rotations its requirement admits (R11).

        The order is the frontier's (insertion order: the search agents' tie-breaks depend on it).
        """
        fits = tile.fits
        actions = _PLACE_ACTIONS
        out: list[Action] = []
        # Over a list of the values: compiled, a loop over the dict itself costs ~100 instructions a
        # cell (a size check and a call per step), the list ~20 (a copy in C, then indexed reads).
        for cell in list(self._frontier.values()):
            rotations = fits[cell & _REQ_MASK]
            if rotations:
                acts = actions[cell >> _REQ_BITS]
                for r in rotations:
                    out.append(acts[r])
        return out

    def _action_options(self) -> list[Action]:
        out: list[Action] = []
        if self._supply[self._current]:
            p = self._tile_pos[-1]
            acts = _DEPLOY_CACHE.get(p) or _deploy_actions_at(p)
            base = self._tile_base[-1]
            occupants = self._occupants
            for s in range(self._tile_type[-1].segment_count):
                if not occupants[self._find(base + s)]:
                    out.append(acts[s])
        for hook in self._option_hooks:
            hook(self, out)
        out.append(PASS)
        return out

    # ------------------------------------------------------------------ board and features
    def _find(self, n: int) -> int:
        """The root of node ``n``, halving the path on the way (a write only where it shortens
        it; logged while a placement is undoable, see :meth:`apply_place_undoable`)."""
        parent = self._parent
        while True:
            p = parent[n]
            if p == n:
                return n
            gp = parent[p]
            if gp != p:
                log = self._parent_log
                if log is not None:
                    log.append(n)
                    log.append(p)
                parent[n] = gp
            n = gp

    def _log_merge(self, log: list[int], a: int, b: int) -> None:
        """Before ``_put_tile`` merges root ``b`` into root ``a`` (or closes two edges of one
        feature, ``a == b``) while a placement is undoable: ``a``'s totals into ``log`` and ``b``'s
        parent into the parent log, for :meth:`undo_place`."""
        log.extend((a, self._open[a], self._tiles[a], self._pennants[a], self._occupants[a], self._adj[a]))
        parents = self._parent_log
        assert parents is not None
        parents.append(b)
        parents.append(b)

    def _unshare(self) -> None:
        """Take private copies of the board group (see :meth:`clone`) before changing it."""
        self._board = self._board.copy()
        self._tile_pos = self._tile_pos.copy()
        self._tile_type = self._tile_type.copy()
        self._tile_rot = self._tile_rot.copy()
        self._tile_base = self._tile_base.copy()
        self._frontier = self._frontier.copy()
        self._monasteries = self._monasteries.copy()
        self._parent = self._parent.copy()
        self._kind = self._kind.copy()
        self._node_tile = self._node_tile.copy()
        self._open = self._open.copy()
        self._tiles = self._tiles.copy()
        self._pennants = self._pennants.copy()
        self._adj = self._adj.copy()
        self._value_cache = self._value_cache.copy()
        self._cow = False

    def _put_tile(self, tile: TileType, p: int, rot: int) -> int:
        """Add ``tile`` at ``p`` to the board, frontier and union-find; no legality, no scoring.

        The only writer of the board group (:data:`_BOARD_GROUP`, shared between clones until one
        of them writes: it takes private copies first), and of the completed-city masks
        ``_closed_nodes`` / ``_closed_cities`` (invariant: one mask of segment ids per city with no
        open edge, and their union; a completed city never changes again, R19).
        """
        if self._cow:
            self._unshare()
        self._final_memo = None
        cache = self._value_cache
        board = self._board
        tile_pos = self._tile_pos
        idx = len(tile_pos)
        board[p] = idx
        tile_pos.append(p)
        self._tile_type.append(tile)
        self._tile_rot.append(rot)
        parent = self._parent
        base = len(parent)
        tile_base = self._tile_base
        tile_base.append(base)
        kind = self._kind
        kind.extend(tile.segment_kinds)
        open_ = self._open
        open_.extend(tile.segment_edge_counts)
        pennants = self._pennants
        pennants.extend(tile.segment_pennants)
        node_tile = self._node_tile
        tiles = self._tiles
        occupants = self._occupants
        adj = self._adj
        bit = 1 << idx
        for city_bits in tile.field_city_bits:  # one a segment: a loop, not temporary lists
            parent.append(len(parent))
            node_tile.append(idx)
            tiles.append(bit)
            occupants.append(0)
            adj.append(city_bits << base)
        monasteries = self._monasteries
        if tile.monastery_slot >= 0:
            monasteries[p] = base + tile.monastery_slot
        if cache and monasteries:
            for off in AREA:
                m = monasteries.get(p + off)
                if m is not None:
                    cache.pop(m, None)

        frontier = self._frontier
        if p in frontier:  # not frontier.pop(p, None): compiled, that is a method call by name
            del frontier[p]
        code = tile.edge_code[rot]
        ports = tile.ports[rot]
        types = self._tile_type
        rots = self._tile_rot
        undo_log = self._root_log
        closed: list[int] = []
        for d in range(4):
            q = p + DELTAS[d]
            j = board.get(q)
            d2 = (d + 2) & 3
            if j is None:
                cell = frontier.get(q)
                if cell is None:
                    cell = _place_slot(q)
                frontier[q] = cell | (((code >> (2 * d)) & 3) << (2 * d2))
                continue
            jbase = tile_base[j]
            theirs = types[j].ports[rots[j]][d2]
            mine = ports[d]
            m = mine[0]
            if m >= 0:
                a = self._find(jbase + theirs[0])
                b = self._find(base + m)
                if cache:
                    cache.pop(a, None)
                if undo_log is not None:
                    self._log_merge(undo_log, a, b)
                if a != b:
                    parent[b] = a
                    open_[a] += open_[b]
                    tiles[a] |= tiles[b]
                    pennants[a] += pennants[b]
                    occupants[a] += occupants[b]
                open_[a] -= 2
                if not open_[a] and kind[a] is _CITY:
                    closed.append(a)  # final: a feature at 0 open edges takes no more merges (R19)
            m = mine[1]
            if m >= 0:
                a = self._find(jbase + theirs[2])
                b = self._find(base + m)
                if a != b:
                    if cache:
                        cache.pop(a, None)
                    if undo_log is not None:
                        self._log_merge(undo_log, a, b)
                    parent[b] = a
                    occupants[a] += occupants[b]
                    tiles[a] |= tiles[b]
                    adj[a] |= adj[b]
            m = mine[2]
            if m >= 0:
                a = self._find(jbase + theirs[1])
                b = self._find(base + m)
                if a != b:
                    if cache:
                        cache.pop(a, None)
                    if undo_log is not None:
                        self._log_merge(undo_log, a, b)
                    parent[b] = a
                    occupants[a] += occupants[b]
                    tiles[a] |= tiles[b]
                    adj[a] |= adj[b]
        for root in closed:
            self._close_city(root)
        for hook in self._placed_hooks:
            hook(self, p, tile)
        return idx

    def _close_city(self, root: int) -> None:
        """Record the city rooted at ``root``, just completed, in the completed-city masks."""
        kind = self._kind
        tile_base = self._tile_base
        types = self._tile_type
        mask = 0
        tiles = self._tiles[root]
        while tiles:
            low = tiles & -tiles
            i = low.bit_length() - 1
            tiles ^= low
            base = tile_base[i]
            for node in range(base, base + types[i].segment_count):
                if kind[node] is _CITY and self._find(node) == root:
                    mask |= 1 << node
        self._closed_nodes |= mask
        self._closed_cities = (*self._closed_cities, mask)
        self._value_cache.clear()  # the fields bordering this city are worth more

    def _completions(self, idx: int) -> list[int]:
        """Roots of the features that tile ``idx`` completes (R19, R20, R22)."""
        tile = self._tile_type[idx]
        base = self._tile_base[idx]
        out: list[int] = []
        open_ = self._open
        slots = _EDGE_SLOTS.get(tile.index)
        if slots is None:
            slots = _EDGE_SLOTS[tile.index] = tuple(s for s, k in enumerate(tile.segment_kinds) if k <= _ROAD)
        if slots:
            for s in slots:
                root = self._find(base + s)
                if open_[root] == 0 and root not in out:
                    out.append(root)
        monasteries = self._monasteries
        if monasteries:
            board = self._board
            p = self._tile_pos[idx]
            for off in AREA:
                m = monasteries.get(p + off)
                if m is not None:
                    q = p + off
                    for d in RING:
                        if q + d not in board:
                            break
                    else:
                        out.append(m)
        return out

    # ------------------------------------------------------------------ turn flow
    def _finish_turn(self) -> None:
        """T5 scoring (R22–R25, R64) then T6."""
        self._score_completed()
        self._legal = None
        if self._drawn == len(self._pile):
            self._end_game()
            return
        self._current = (self._current + 1) % self.num_players
        self._turn += 1
        self._draw()

    def _score_completed(self) -> None:
        """T5: the features completed this turn score and their followers return (R22–R25, R64)."""
        completed = self._completed
        if completed:
            for hook in self._scoring_hooks:
                hook(self, completed)
            occupants = self._occupants
            if any(occupants[r] for r in completed):
                log = self._score_log
                counts = majority_counts(self._followers, self._find, completed, self.num_players)
                legacy = self._config.legacy_small_city
                for root, c in counts.items():
                    value = completed_value(
                        self._kind[root], self._tiles[root].bit_count(), self._pennants[root], legacy_small_city=legacy
                    )
                    if log is None:
                        award(self._scores, c, value)
                    else:
                        self._award_logged(c, value, root, False)
                done = set(counts)
                for node in [n for n in self._followers if self._find(n) in done]:
                    self._supply[self.remove_follower(node)] += 1
            self._completed = []

    def _draw(self) -> None:
        """T1: draw, discarding unplaceable tiles (R10, R13); an empty pile ends the game (R26)."""
        pile = self._pile
        while self._drawn < len(pile):
            tile = pile[self._drawn]
            self._drawn += 1
            self._remaining[tile.index] -= 1
            fits = tile.fits
            for cell in self._frontier.values():
                if fits[cell & _REQ_MASK]:  # placeable: its legal list is built when asked (search lines rarely ask)
                    self._tile = tile
                    self._phase = Phase.PLACE
                    self._legal = None
                    return
            self._discarded.append(tile)
        self._end_game()

    def _end_game(self) -> None:
        """Final scoring (R27–R29); followers stay where they are."""
        self._phase = Phase.GAME_OVER
        self._tile = None
        self._legal = []
        find = self._find
        counts = majority_counts(self._followers, find, {find(n) for n in self._followers}, self.num_players)
        if self._score_log is None:
            for root, c in counts.items():
                award(self._scores, c, self._final_value(root))
        else:
            for root, c in counts.items():
                self._award_logged(c, self._final_value(root), root, True)

    def _final_value(self, root: int) -> int:
        """End-game value of the feature rooted at ``root`` (R27, R28), from its totals."""
        kind = self._kind[root]
        if kind is _MONASTERY:
            p = self._tile_pos[self._node_tile[root]]
            return final_value(kind, 1 + sum(p + d in self._board for d in RING), 0)
        if kind is not _FIELD:
            return final_value(kind, self._tiles[root].bit_count(), self._pennants[root])
        bits = self._adj[root] & self._closed_nodes
        if not bits:
            return 0
        return field_value(sum(1 for mask in self._closed_cities if mask & bits))

    # ------------------------------------------------------------------ hidden information and evaluation
    def determinize(self, rng: np.random.Generator) -> Game:
        """A copy whose unseen pile is reshuffled from ``rng`` (OpenSpiel's ``ResampleFromInfostate``).

        Everything a player may know is identical: the board, followers, supplies, scores, the tile
        drawn this turn and the multiset of tiles left (R4); only the order of the tiles not yet
        drawn is a fresh uniform permutation. Search agents play on such copies: :meth:`clone` keeps
        the true order and so sees the future. The copy's record names its pile as an explicit tile
        order, so it replays exactly.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        g = self.clone()
        drawn = g._drawn
        pile = g._pile
        unseen = pile[drawn:]
        order: list[int] = rng.permutation(len(unseen)).tolist()  # typed: the compiled loop reads ints
        g._pile = pile[:drawn] + [unseen[i] for i in order]
        g._seed = None
        return g

    def public_copy(self) -> Game:
        """A copy whose unseen pile lists the tiles left in catalogue order (R4: only their multiset is
        public), so that the copy is a function of the public state alone; like :meth:`determinize`, its
        record names its pile as an explicit tile order."""
        g = self.clone()
        types = self._catalogue.types
        g._pile = self._pile[:self._drawn] + [types[i] for i, count in enumerate(self._remaining) for _ in range(count)]
        g._seed = None
        return g

    def with_next_draw(self, tile_id: str) -> Game:
        """A copy whose next draw (T1) is a tile of type ``tile_id``, one of :meth:`chance_outcomes`: the
        first unseen tile of that type is moved to the front of the unseen pile, the others keep their
        order. A search that treats the next draw as a chance event applies the turn's last action to
        such a copy, once per outcome it explores. ValueError when no tile of that type is left.
        """
        pile = self._pile
        for i in range(self._drawn, len(pile)):
            if pile[i].id == tile_id:
                g = self.clone()
                g._pile = [*pile[:self._drawn], pile[i], *pile[self._drawn:i], *pile[i + 1:]]
                g._seed = None
                return g
        raise ValueError(f"with_next_draw: no {tile_id!r} tile is left to draw")

    def chance_outcomes(self) -> dict[str, float]:
        """The distribution of the next draw: tile id → probability, from the tiles left (R4).

        Empty when the pile is. A drawn tile that cannot be placed is discarded and another drawn
        (R13); this is the distribution of the draw itself, before that check.
        """
        left = len(self._pile) - self._drawn
        if left == 0:
            return {}
        types = self._catalogue.types
        return {types[i].id: c / left for i, c in enumerate(self._remaining) if c}

    def scores_if_ended_now(self) -> tuple[int, ...]:
        """Each player's score if the game ended at this moment; the game itself is untouched.

        The features completed by this turn's tile that have not scored yet score as in T5
        (R22–R25, after the expansions' ``before_scoring``; between T2 and T5 this is the turn
        finished with the choices made so far), then the end-game scoring of R27–R29 applies to every follower
        left on the board. After the game it is :attr:`scores`. This is the evaluation greedy and
        search agents use.

        It is computed from the feature totals at the roots, without copying the game or playing
        the end out (see :meth:`_end_now`); ``tests/test_engine_end_now.py`` checks it against
        actually finishing a copy of the game.
        """
        if self._phase is Phase.GAME_OVER:
            return tuple(self._scores)
        return tuple(self._end_now(None))

    def scores_if_ended_after(self, action: Action) -> tuple[int, ...]:
        """:meth:`scores_if_ended_now` of the game after the current player plays ``action``, an
        action that ends the turn (T3: PASS, DEPLOY, an expansion's choice; T4: its answer), for a
        search that values a turn's last choice by its end-now scores. The game itself is untouched.

        Without a copy for PASS, for a DEPLOY (counted as a follower on its segment for this turn's
        pending scoring, where a ``before_scoring`` hook sees it too, and the end-game scoring) and
        for an expansion's :attr:`~.expansion.Expansion.neutral_endings` when no ``before_scoring``
        hook runs this turn. Other actions are played on a copy. An illegal action raises
        :class:`IllegalActionError`; one that does not end the turn ValueError.
        """
        kind = action[0]
        phase = self._phase
        if kind == ActionKind.PASS and phase is Phase.ACTION:
            return self.scores_if_ended_now()
        if (kind in self._neutral_endings and action in self.legal_actions()
                and not (self._completed and self._scoring_hooks)):
            return self.scores_if_ended_now()
        if kind != ActionKind.DEPLOY or phase is not Phase.ACTION:
            after = self.clone()
            after.apply(action)
            if not after.is_over and after._current == self._current:
                raise ValueError(f"scores_if_ended_after: {action} does not end the turn")
            return after.scores_if_ended_now()
        _, x, y, slot = action
        if (x, y) != unpack(self._tile_pos[-1]) or not 0 <= slot < self._tile_type[-1].segment_count:
            raise IllegalActionError(f"{action}: not a segment of the tile just placed (R14)")
        player = self._current
        node = self._tile_base[-1] + slot
        root = self._find(node)
        if self._supply[player] == 0 or self._occupants[root]:
            raise IllegalActionError(f"{action}: not a legal DEPLOY (R15, R2)")
        completed = self._completed
        if completed and (self._scoring_hooks or root in completed):  # this turn's scoring sees it
            followers = self._followers
            followers[node] = player  # as _apply_deploy puts it (last in the dict), taken off below
            self._occupants[root] += 1
            try:
                return tuple(self._end_now(None, use_memo=False))
            finally:
                del followers[node]
                self._occupants[root] -= 1
        # Otherwise the follower changes only the end-game scoring, of its own feature, which holds
        # no other follower (R15): the end-now scores plus that feature's value for the player.
        scores = self._end_now(None)
        cache = self._value_cache
        value = cache.get(root)
        if value is None:
            value = cache[root] = self._final_value(root)
        scores[player] += value
        return tuple(scores)

    def end_now_events(self) -> tuple[ScoreEvent, ...]:
        """The score changes that :meth:`scores_if_ended_now` adds to :attr:`scores`, as score-log
        events: this turn's pending T5 scoring (``final`` False), then the end-game scoring of
        R27–R29 (``final`` True). Empty after the game. The game itself is untouched; this is the
        end-now value broken down by player and reason (a value function's features)."""
        if self._phase is Phase.GAME_OVER:
            return ()
        events: list[ScoreEvent] = []
        self._end_now(events)
        return tuple(events)

    def end_now_breakdown(self) -> tuple[tuple[int, ...], tuple[tuple[int, int, int, int], ...]]:
        """:meth:`scores_if_ended_now`, and each player's end-game points (R27–R29, the ``final``
        events of :meth:`end_now_events`) by feature kind, indexed by :class:`SegmentKind` (city,
        road, field, monastery): the sums of those events, without making them (a value
        function's features at every leaf of a search). After the game: the scores and zeros."""
        n = self._config.players
        if self._phase is Phase.GAME_OVER:
            return tuple(self._scores), ((0, 0, 0, 0),) * n
        by_kind = [[0, 0, 0, 0] for _ in range(n)]
        scores = self._end_now(None, by_kind)
        return tuple(scores), tuple((k[0], k[1], k[2], k[3]) for k in by_kind)

    def _end_now(
        self, events: list[ScoreEvent] | None, by_kind: list[list[int]] | None = None, *, use_memo: bool = True
    ) -> list[int]:
        """The scores if the game ended now, read off the union-find roots of the live game.

        Exactly what ``_score_completed`` then ``_end_game`` would do to a copy, in the same order
        (so ``events``, when given, receives the same score-log events): the ``before_scoring``
        hooks run on this game with its scores and score log swapped for scratch ones (the hook
        contract: they change nothing but scores, through ``add_score``, as every hook of this
        package does);
        the completed features with followers score their completed value and are then left out;
        every other feature with followers scores its end-game value (R27–R29), added to
        ``by_kind[player][kind]`` too when given. Nothing of the game changes: followers are
        counted, not removed.

        ``_final_memo`` keeps that end-game part (points per player) for the plain scores (no
        ``events``, no ``by_kind``): invariant, when not None it is the end-game part of the game as
        it stands; everything that changes followers, features or this turn's completed features
        resets it (``apply``, ``_put_tile``, ``remove_follower``, ``GameSetup``). ``use_memo=False``
        while a follower is put in for a what-if (:meth:`scores_if_ended_after`).
        """
        scores = self._scores.copy()
        find = self._find
        followers = self._followers
        n = self._config.players
        completed = self._completed
        done: set[int] = set()
        if completed:
            if self._scoring_hooks:
                saved_scores, saved_log = self._scores, self._score_log
                self._scores, self._score_log = scores, events
                try:
                    for hook in self._scoring_hooks:
                        hook(self, completed)
                finally:
                    self._scores, self._score_log = saved_scores, saved_log
            occupants = self._occupants
            if any(occupants[r] for r in completed):
                counts = majority_counts(followers, find, completed, n)
                legacy = self._config.legacy_small_city
                for root, tc in counts.items():
                    points = completed_value(
                        self._kind[root], self._tiles[root].bit_count(), self._pennants[root], legacy_small_city=legacy
                    )
                    if events is None:
                        award(scores, tc, points)
                    else:
                        self._award_into(scores, events, tc, points, root, False)
                done = set(counts)
        plain = use_memo and events is None and by_kind is None
        if plain:
            memo = self._final_memo
            if memo is None:
                memo = self._final_memo = self._final_part(done)
            for p in range(n):
                scores[p] += memo[p]
            return scores
        for root, c, value in self._followed_values(done):
            if by_kind is not None:
                best = max(c)
                kind = self._kind[root]
                for p, k in enumerate(c):
                    if k == best:
                        scores[p] += value
                        by_kind[p][kind] += value
            elif events is not None:
                self._award_into(scores, events, c, value, root, True)
            else:
                award(scores, c, value)
        return scores

    def _followed_values(self, done: set[int]) -> list[tuple[int, list[int], int]]:
        """``(root, followers per player, end-game value)`` of every feature with followers, but the
        roots in ``done`` and those worth nothing (R27–R29; values cached in ``_value_cache``)."""
        n = self._config.players
        on: dict[int, list[int]] = {}
        parent = self._parent
        for segment, owner in self._followers.items():
            root = parent[segment]
            if parent[root] != root:
                root = self._find(segment)
            if root in done:
                continue
            c = on.get(root)
            if c is None:
                c = on[root] = [0] * n
            c[owner] += 1
        cache = self._value_cache
        out = []
        for root, c in on.items():
            value = cache.get(root)
            if value is None:
                value = cache[root] = self._final_value(root)
            if value:
                out.append((root, c, value))
        return out

    def _final_part(self, done: set[int]) -> list[int]:
        """The end-game points (R27–R29) per player of the features with followers, but ``done``."""
        n = self._config.players
        out = [0] * n
        for _, c, value in self._followed_values(done):
            award(out, c, value)
        return out

    def _award_into(
        self, scores: list[int], events: list[ScoreEvent], counts: Sequence[int], value: int, root: int, final: bool
    ) -> None:
        """:func:`~.scoring.award` into ``scores``, appending to ``events`` each score it changed
        (as :meth:`_award_logged` logs the game's own scores: one event per player with the most
        followers, in seat order; none when ``value`` is 0)."""
        if not value:
            return
        best = max(counts)
        x, y = unpack(self._tile_pos[self._node_tile[root]])
        reason = _FEATURE_REASONS[self._kind[root]]
        turn = self._turn
        for p, k in enumerate(counts):
            if k == best:
                scores[p] += value
                events.append(ScoreEvent(turn, p, value, reason, x, y, final))

    # ------------------------------------------------------------------ search lines: a placement undone
    @property
    def place_undoable(self) -> bool:
        """Whether :meth:`apply_place_undoable` can play this decision: a PLACE decision, no placement
        open, and no expansion with an ``on_tile_placed`` hook (its state would need undoing too)."""
        return self._phase is Phase.PLACE and not self._placed_hooks and self._parent_log is None

    def apply_place_undoable(self, action: Action | Sequence[int]) -> PlaceUndo:
        """``apply(action)`` for a PLACE action, made in this game and undone by :meth:`undo_place`:
        a search line that values placements needs no copy of the board per placement (``clone``
        then ``apply`` copies the board group, :data:`_BOARD_GROUP`).

        While the placement is open the game may be read, valued, asked what-ifs
        (``scores_if_ended_after``) and cloned, but not played on: ``apply`` refuses. ``undo_place``
        puts back every attribute as it was, the order of the frontier (the order of the legal
        PLACE actions) included. Invariant while open: every write to the union-find parents of
        this game (merges and path compression) is in the parent log, and every root's totals
        before a merge are in the root log; a clone takes its own parents, so that its path
        compression stays out of them.

        Expansion states are not logged: a game qualifies only when no expansion hooks the
        placement, and the hooks that may run while it is open (``add_action_options``,
        ``before_scoring``, ``board_figures``) must not change their state, as those of this
        package do not. Likewise a value read while it is open must not change the game.
        """
        if not self.place_undoable:
            raise ValueError(
                "apply_place_undoable: needs a PLACE decision with no placement open, in a game whose "
                f"expansions have no on_tile_placed hook (phase {self._phase.name}, expansions: "
                f"{', '.join(self._config.expansions) or 'none'})"
            )
        action = _as_action(action)
        if action.kind != ActionKind.PLACE:
            raise IllegalActionError(f"{action}: the current decision is PLACE (T2)")
        if self._cow:
            self._unshare()
        undo = PlaceUndo(self)
        self._frontier = undo.frontier.copy()
        self._value_cache = undo.value_cache.copy()
        self._parent_log = undo.parent_log
        self._root_log = undo.root_log
        try:
            self._apply_place(action)
        except IllegalActionError:  # refused before any change (R11): the game as it was
            self._parent_log = self._root_log = None
            self._frontier = undo.frontier
            self._value_cache = undo.value_cache
            raise
        self._final_memo = None
        self._legal = None
        self._history.append(action)
        return undo

    def undo_place(self, undo: PlaceUndo) -> None:
        """Undo the open placement of :meth:`apply_place_undoable` that returned ``undo``."""
        if undo.parent_log is not self._parent_log:
            raise ValueError("undo_place: not the placement open in this game")
        self._parent_log = self._root_log = None
        if self._cow:  # a clone taken while the placement was open shares the board group
            self._unshare()
        open_ = self._open
        tiles = self._tiles
        pennants = self._pennants
        occupants = self._occupants
        adj = self._adj
        log = undo.root_log
        i = len(log)
        while i:  # newest first: a root merged into twice gets its oldest totals back
            i -= 6
            a = log[i]
            open_[a] = log[i + 1]
            tiles[a] = log[i + 2]
            pennants[a] = log[i + 3]
            occupants[a] = log[i + 4]
            adj[a] = log[i + 5]
        parent = self._parent
        log = undo.parent_log
        i = len(log)
        while i:
            i -= 2
            parent[log[i]] = log[i + 1]
        base = undo.nodes
        for nodes in (parent, self._kind, self._node_tile, open_, tiles, pennants, occupants, adj):
            del nodes[base:]
        idx = undo.tiles
        p = self._tile_pos[idx]
        del self._board[p]
        if self._tile_type[idx].monastery_slot >= 0:
            del self._monasteries[p]
        del self._tile_pos[idx:]
        del self._tile_type[idx:]
        del self._tile_rot[idx:]
        del self._tile_base[idx:]
        self._frontier = undo.frontier
        self._value_cache = undo.value_cache
        self._closed_nodes = undo.closed_nodes
        self._closed_cities = undo.closed_cities
        self._final_memo = undo.final_memo
        self._completed = undo.completed
        self._legal = undo.legal
        self._phase = Phase.PLACE
        del self._history[undo.history:]

    # ------------------------------------------------------------------ copies
    def clone(self) -> Game:
        """An independent copy: shallow copies of the flat state lists and dicts.

        The copy keeps the true order of the pile; use :meth:`determinize` for a copy that does not
        know the future. The pile list is shared with the copy: nothing changes a game's pile in
        place (``determinize`` gives its copy a new list), so sharing it is invisible. So is the
        board group (:data:`_BOARD_GROUP`), copy-on-write: both games share it until one of them
        puts a tile, which search lines that only make a turn's choices after the placement never do.
        """
        g = Game(_blank=True)
        if _COMPILED:  # a compiled game keeps its attributes in a C struct, not in its __dict__
            g._share_from(self)
        else:  # the Python source: the shared attributes in one step (2.5× faster)
            g.__dict__.update(self.__dict__)
            self._cow = g._cow = True
        # copied: changed in place by play
        g._remaining = self._remaining.copy()
        g._discarded = self._discarded.copy()
        g._occupants = self._occupants.copy()
        g._followers = self._followers.copy()
        g._supply = self._supply.copy()
        g._scores = self._scores.copy()
        g._completed = self._completed.copy()
        g._history = self._history.copy()
        g._ext = {k: v.copy() for k, v in self._ext.items()}
        log = self._score_log
        g._score_log = None if log is None else log.copy()
        g._root_log = g._parent_log = None
        if self._parent_log is not None:  # a placement is open: the copy's path compression must
            g._parent = self._parent.copy()  # not write, unlogged, into the list undo_place restores
        return g

    def _share_from(self, other: Game) -> None:
        """:meth:`clone`'s first step when compiled (attributes in a C struct): take every attribute of
        ``other`` that a clone shares with it, and turn copy-on-write on in both (see ``_unshare``)."""
        # immutable, or never changed in place (the pile, the expansion hooks)
        self._config = other._config
        self._catalogue = other._catalogue
        self._seed = other._seed
        self._pile = other._pile
        self._drawn = other._drawn
        self._start_position = other._start_position
        self._expansions = other._expansions
        self._placed_hooks = other._placed_hooks
        self._option_hooks = other._option_hooks
        self._scoring_hooks = other._scoring_hooks
        self._figure_sources = other._figure_sources
        self._action_owner = other._action_owner
        self._neutral_endings = other._neutral_endings
        # the board group, copy-on-write (_unshare), and what is derived from it
        other._cow = self._cow = True
        self._board = other._board
        self._tile_pos = other._tile_pos
        self._tile_type = other._tile_type
        self._tile_rot = other._tile_rot
        self._tile_base = other._tile_base
        self._frontier = other._frontier
        self._monasteries = other._monasteries
        self._parent = other._parent
        self._kind = other._kind
        self._node_tile = other._node_tile
        self._open = other._open
        self._tiles = other._tiles
        self._pennants = other._pennants
        self._adj = other._adj
        self._value_cache = other._value_cache
        self._closed_nodes = other._closed_nodes
        self._closed_cities = other._closed_cities
        self._final_memo = other._final_memo
        # the turn: plain values, or lists no one changes in place (a new one each time)
        self._current = other._current
        self._turn = other._turn
        self._phase = other._phase
        self._tile = other._tile
        self._legal = other._legal
        self._decision_owner = other._decision_owner

    # ------------------------------------------------------------------ saving, loading, records (.persistence)
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the saved position (:meth:`to_dict`): loading re-lays the board through the
        same code path as play, so a game unpickled in a fresh process (a ``spawn`` pool) has every
        per-process cache it needs."""
        return (Game.from_dict, (self.to_dict(),))

    def record(self) -> GameRecord:
        """(config, seed or tile order, actions): replays to an identical game."""
        seed = self._seed
        return GameRecord(
            config=self._config,
            seed=seed,
            tile_order=tuple(t.id for t in self._pile) if seed is None else None,
            actions=tuple(self._history),
            start_position=self._start_position,
        )

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-safe data; :meth:`from_dict` restores it exactly."""
        return game_to_dict(self)

    def to_json(self) -> str:
        return game_to_json(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game saved by :meth:`to_dict`; continuing it equals continuing the original.

        A document that breaks a rule invariant raises :class:`~.save_validation.SaveError` naming
        the field (see :mod:`.save_validation`).
        """
        return game_from_dict(data, GameSetup)

    @classmethod
    def from_json(cls, text: str) -> Game:
        return game_from_json(text, GameSetup)

    def render_text(self) -> str:
        """The board as a character grid (see :mod:`.text_board`)."""
        from .text_board import render_board

        return render_board(self)


class PlaceUndo:
    """What :meth:`Game.apply_place_undoable` changes and :meth:`Game.undo_place` restores: the
    sizes of the board and union-find before the placement, the logs of what the placement wrote
    over, and the attributes it replaces (kept, not copied: the game works on copies meanwhile)."""

    def __init__(self, game: Game) -> None:
        self.tiles = len(game._tile_pos)
        self.nodes = len(game._parent)
        self.frontier = game._frontier
        self.value_cache = game._value_cache
        self.closed_nodes = game._closed_nodes
        self.closed_cities = game._closed_cities
        self.final_memo = game._final_memo
        self.completed = game._completed
        self.legal = game._legal
        self.history = len(game._history)
        #: (node, parent) per write to the union-find parents, oldest first.
        self.parent_log: list[int] = []
        #: (root, open, tiles, pennants, occupants, adj) per merge, oldest first.
        self.root_log: list[int] = []


@dataclass(frozen=True)
class GameRecord:
    """What it takes to replay a game exactly: its config, its pile and its actions.

    A game set up by :class:`~.position.PositionBuilder` also keeps that start position
    (a ``Game.to_dict`` document), from which its replay starts.
    """

    config: GameConfig
    seed: int | None
    tile_order: tuple[str, ...] | None
    actions: tuple[Action, ...]
    start_position: dict[str, Any] | None = None

    def replay(self, upto: int | None = None) -> Game:
        """A fresh game with the first ``upto`` actions (all by default) applied."""
        if self.start_position is not None:  # the built position, as the game that starts there
            game = Game.from_dict({**self.start_position, "start_position": self.start_position})
        else:
            game = Game(self.config, seed=self.seed, tile_order=self.tile_order)
        for action in self.actions[:upto]:
            game.apply(action)
        return game

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "seed": self.seed,
            "tile_order": None if self.tile_order is None else list(self.tile_order),
            "actions": [[int(v) for v in a] for a in self.actions],
            "start_position": self.start_position,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """The record of a :meth:`to_dict` document; a ValueError if it names no pile (a record
        without a seed, a tile order or a start position would replay on some other pile)."""
        order = data.get("tile_order")
        if data.get("seed") is None and order is None and data.get("start_position") is None:
            raise ValueError("a game record needs a seed, a tile_order or a start_position: it names no pile")
        return cls(
            config=GameConfig.from_dict(data["config"]),
            seed=data.get("seed"),
            tile_order=None if order is None else tuple(order),
            actions=tuple(Action.coerce(a) for a in data["actions"]),
            start_position=data.get("start_position"),
        )
