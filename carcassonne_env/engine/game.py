"""The game's face: one game of Carcassonne as its players and the rest of the package see it
(docs/rules.md §1, §5): its state, the legal actions of the current decision, ``apply``, undo,
``clone``, the scores and the end-now value, saving and records.

``Game`` owns the state and the turn's order (T1 draw, T2 place, T3 act, T4 decide, T5 score, T6
next); each job on that state lives in a module of its own, as functions of the game:

* :mod:`.board` lays a tile on the board, the frontier and the features' union-find
  (:mod:`.union_find`; the frontier's action tables: :mod:`.frontier`);
* :mod:`.valuation` scores features: T5, the final scoring and the end-now value;
* :mod:`.undo` is the journal of a placement made and taken back;
* :mod:`.game_setup` makes a new game's pile and sets positions up (``GameSetup``);
* :mod:`.record` replays a game (``GameRecord``); :mod:`.persistence` saves and loads it;
* :mod:`.views` holds the values the read API hands out (``PlacedTile``, ``Follower``, ``Feature``).

State layout (all plain Python lists and dicts of ints, because this engine's hot path is scalar
access, where lists beat numpy arrays by an order of magnitude; ``clone()`` copies them shallowly):
the board group, which only :func:`.board.put_tile` changes (its layout and invariants are
:mod:`.board`'s); followers on segments, ``_followers`` (node → owner) with ``_occupants`` (followers
per feature root); supplies, scores, the pile and the turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, SupportsIndex

import numpy as np

from .actions import PASS, Action, ActionKind, IllegalActionError, Phase, as_action
from .board import place, put_tile
from .config import FOLLOWERS_PER_PLAYER, GameConfig
from .copying import copy_into
from .expansion import Expansion, ExpansionState
from .followers import deploy, deploy_options, lift
from .frontier import placements
from .game_setup import GameSetup, PositionError, new_pile, register_game
from .geometry import RING, pack, unpack
from .persistence import game_from_dict, game_from_json, game_to_dict, game_to_json
from .pile import chance_outcomes, determinized, draw, public_copied, with_drawn_next
from .record import GameRecord
from .registry import build_expansions
from .scoring import ScoreEvent, ScoreReason
from .tiles import SegmentKind, TileCatalogue, TileType, load_catalogue
from .undo import PlaceUndo, open_placement, undo_placement
from .union_find import find
from .valuation import end_game, end_now, score_completed, scores_after
from .views import Feature, Follower, PlacedTile, feature_at, followers_on_segments

# The classes saved games, pickles and records name by this module's path stay importable from it.
__all__ = [
    "FOLLOWERS_PER_PLAYER", "Feature", "Follower", "Game", "GameRecord", "GameSetup", "PlaceUndo", "PlacedTile",
    "PositionError",
]

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
        number, pile = new_pile(config, catalogue, seed, tile_order)
        self._init_empty(config, catalogue, number, pile)
        put_tile(self, catalogue.start, pack(0, 0), 0)
        draw(self)

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
        """The whole pile in draw order, the tiles drawn then the unseen rest: hidden information (the
        future), public for saving and records (:mod:`.persistence`); players use :attr:`remaining_counts`,
        :meth:`chance_outcomes` and :meth:`determinize` instead."""
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
        return followers_on_segments(self)

    def board_figures(self) -> list[tuple[int, int, int]]:
        """(x, y, owner) of followers that stand on the board but on no segment (``Expansion.board_figures``)."""
        return [(*unpack(p), o) for source in self._figure_sources for p, o in source(self)]

    def feature(self, x: int, y: int, slot: int) -> Feature:
        """The feature containing segment ``slot`` of the tile at (x, y)."""
        return feature_at(self, x, y, slot)

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
        return lift(self, segment)

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
                legal = []
                deploy_options(self, legal)
                for hook in self._option_hooks:
                    hook(self, legal)
                legal.append(PASS)
            elif phase is Phase.PLACE:
                assert self._tile is not None
                legal = placements(self._frontier, self._tile)
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
        action = as_action(action)
        self._final_memo = None
        phase = self._phase
        kind = action[0]
        if phase is Phase.PLACE:
            if kind != ActionKind.PLACE:
                raise IllegalActionError(f"{action}: the current decision is PLACE (T2)")
            place(self, action)
            self._legal = None
            self._history.append(action)
            return
        if phase is Phase.ACTION:
            if kind == ActionKind.PASS:
                if action != PASS:  # a field not 0 (unused_fields_are_zero, without a method call by name)
                    raise IllegalActionError(f"{action}: PASS takes no arguments")
                done = True
            elif kind == ActionKind.DEPLOY:
                deploy(self, action)
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

    def _find(self, n: int) -> int:
        """The root of union-find node ``n`` (:func:`.union_find.find` on this game's forest)."""
        return find(self._parent, n, self._parent_log)

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
        draw(self)

    def _score_completed(self) -> None:
        """T5: the features completed this turn score and their followers return (R22–R25, R64)."""
        score_completed(self)

    def _end_game(self) -> None:
        """Final scoring (R27–R29); followers stay where they are."""
        end_game(self)

    # ------------------------------------------------------------------ hidden information and evaluation
    def determinize(self, rng: np.random.Generator) -> Game:
        """A copy whose unseen pile is reshuffled from ``rng`` (OpenSpiel's ``ResampleFromInfostate``).

        Everything a player may know is identical: the board, followers, supplies, scores, the tile
        drawn this turn and the multiset of tiles left (R4); only the order of the tiles not yet
        drawn is a fresh uniform permutation. Search agents play on such copies: :meth:`clone` keeps
        the true order and so sees the future. The copy's record names its pile as an explicit tile
        order, so it replays exactly.
        """
        return determinized(self, rng)

    def public_copy(self) -> Game:
        """A copy that is a function of the public state alone: its unseen pile in catalogue order (R4)."""
        return public_copied(self)

    def with_next_draw(self, tile_id: str) -> Game:
        """A copy whose next draw (T1) is a tile of type ``tile_id``, one of :meth:`chance_outcomes`
        (a search's chance outcome); ValueError when none is left (:func:`.pile.with_drawn_next`)."""
        return with_drawn_next(self, tile_id)

    def chance_outcomes(self) -> dict[str, float]:
        """The next draw's distribution, tile id → probability, from the tiles left (R4; empty when the
        pile is): the draw's own, before a drawn tile that cannot be placed is discarded (R13)."""
        return chance_outcomes(self)

    def scores_if_ended_now(self) -> tuple[int, ...]:
        """Each player's score if the game ended at this moment; the game itself is untouched.

        The features completed by this turn's tile that have not scored yet score as in T5
        (R22–R25, after the expansions' ``before_scoring``; between T2 and T5 this is the turn
        finished with the choices made so far), then the end-game scoring of R27–R29 applies to every follower
        left on the board. After the game it is :attr:`scores`. This is the evaluation greedy and
        search agents use.

        It is computed from the feature totals at the roots, without copying the game or playing
        the end out (see :func:`.valuation.end_now`); ``tests/test_engine_end_now.py`` checks it against
        actually finishing a copy of the game.
        """
        if self._phase is Phase.GAME_OVER:
            return tuple(self._scores)
        return tuple(end_now(self, None))

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
        return scores_after(self, action)

    def end_now_events(self) -> tuple[ScoreEvent, ...]:
        """The score changes that :meth:`scores_if_ended_now` adds to :attr:`scores`, as score-log
        events: this turn's pending T5 scoring (``final`` False), then the end-game scoring of
        R27–R29 (``final`` True). Empty after the game. The game itself is untouched; this is the
        end-now value broken down by player and reason (a value function's features)."""
        if self._phase is Phase.GAME_OVER:
            return ()
        events: list[ScoreEvent] = []
        end_now(self, events)
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
        scores = end_now(self, None, by_kind)
        return tuple(scores), tuple((k[0], k[1], k[2], k[3]) for k in by_kind)

    # ------------------------------------------------------------------ search lines: a placement undone
    @property
    def place_undoable(self) -> bool:
        """Whether :meth:`apply_place_undoable` can play this decision: a PLACE decision, no placement
        open, and no expansion with an ``on_tile_placed`` hook (its state would need undoing too)."""
        return self._phase is Phase.PLACE and not self._placed_hooks and self._parent_log is None

    def apply_place_undoable(self, action: Action | Sequence[int]) -> PlaceUndo:
        """``apply(action)`` for a PLACE action, made in this game and undone by :meth:`undo_place`:
        a search line that values placements needs no copy of the board per placement (``clone``
        then ``apply`` copies the board group, :data:`.board.BOARD_GROUP`).

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
        return open_placement(self, as_action(action))

    def undo_place(self, undo: PlaceUndo) -> None:
        """Undo the open placement of :meth:`apply_place_undoable` that returned ``undo``."""
        undo_placement(self, undo)

    # ------------------------------------------------------------------ copies
    def clone(self) -> Game:
        """An independent copy: shallow copies of the flat state lists and dicts.

        The copy keeps the true order of the pile; use :meth:`determinize` for a copy that does not
        know the future. The pile list is shared with the copy: nothing changes a game's pile in
        place (``determinize`` gives its copy a new list), so sharing it is invisible. So is the
        board group (:data:`.board.BOARD_GROUP`), copy-on-write: both games share it until one of them
        puts a tile, which search lines that only make a turn's choices after the placement never do.
        """
        g = Game(_blank=True)
        copy_into(g, self)
        return g

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


register_game(Game)
