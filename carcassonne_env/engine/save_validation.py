"""Loading validates: every invariant of a saved game that the engine relies on.

``Game.from_dict`` calls :func:`validate_document` before it rebuilds anything and
:func:`validate_loaded` on the rebuilt game. A document that breaks a rule raises
:class:`~.save_format.SaveError`, whose ``field`` names the offending part of the document as a
path (``tiles[3]``, ``expansions.<name>.<key>[4]``, ``start_position.followers[0]``) and whose
message says what is wrong. This module knows no expansion: each checks its own state through the
saved-game hooks of :class:`~.expansion.Expansion` (its module docstring says what it checks).
What is checked here:

=====================  ======================================================================
part                   invariant
=====================  ======================================================================
structure              every key of ``Game.to_dict`` present and no other; ints are ``int``
                       (never ``bool``), tile ids exist and belong to the configured sets;
                       ``explicit_order`` is true exactly when ``seed`` is None; a state under
                       ``expansions`` exactly for each enabled expansion that keeps one, parsed
                       by it (``parse_state``)
board                  positions distinct and in range, rotations 0–3 (C2); the start tile at
                       (0,0) rotation 0 first (R4); every later tile touches an earlier one and
                       every touching edge matches (R11)
tiles                  the first ``drawn`` tiles of the pile are the tiles placed since the
                       start, the discarded ones and the tile in hand (R10, R13); a seeded
                       pile is exactly the pile its seed gives, in that order (``seeded_pile``:
                       the configured tile sets less the start tile, R1, R31, R60); a custom
                       pile is saved with ``explicit_order`` true and no seed
history                every entry an action of this game's expansions, in turn order (T2–T4:
                       PLACE, at most one prelude, one choice, the answer to a T4 decision only
                       after a choice that opens one; each expansion gives its actions' roles,
                       ``turn_role``); the PLACEs are the placed tiles in order; DEPLOY on that
                       turn's tile; ``turn`` and ``current_player`` follow the number of turns (T6)
phase                  PLACE holds the last tile drawn and it has a legal placement (R12, R13);
                       ACTION/DECISION hold the tile placed this turn; DECISION follows an
                       opening choice of an expansion that has decisions; GAME_OVER has an
                       empty pile and no tile (R26)
followers              on an existing segment, one per segment (R42), put there by a DEPLOY of
                       their owner; none on a road, city or monastery completed before this
                       turn (R24); supply 0–7 and supply + segments + followers the expansions
                       hold off the segments (``held_followers``) = 7 (R46)
scores                 one non-negative int per player (R2)
expansions             each expansion's ``check_position`` (every position),
                       ``check_history`` (its state = its state at the origin plus its actions
                       of the history) and ``check_loaded`` (on the rebuilt game)
replay                 the history replayed from the pile (or the built start position) gives
                       exactly the loaded position: followers, supplies, scores, expansion
                       states (a follower taken off with its supply raised adds up in R46 but
                       is refused here)
=====================  ======================================================================

**Built positions.** :class:`~.position.PositionBuilder` sets up rulebook examples that play
never reaches (docs/rules.md §8: any tiles, anywhere, holes allowed, any scores and expansion states).
Such a game keeps its build as ``start_position``, and a document with a ``start_position`` is
checked relative to it: the start position itself (``start_position.…``) only for what holds in
every position (touching edges match, segments exist, one follower per segment, R46, each
expansion's ``check_position``), and everything since — tiles, history, followers, expansion
states — as strictly as a game grown from the start tile, whose expansion states start as their
``new_state``. A document without ``start_position`` gets every check above.

The replay, last, covers what the checks above cannot tell: scores, which feature a follower joined
(R15), whether a discarded tile really fitted nowhere, and what the expansions leave unchecked. The
checks before it give the precise error for every invariant they know.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .actions import ActionKind, Phase
from .config import FOLLOWERS_PER_PLAYER, ConfigError, GameConfig
from .expansion import Expansion, ExpansionState
from .geometry import DELTAS, pack, unpack
from .registry import PLUGINS, build_expansions
from .save_format import (
    REACH,
    HistoryAction,
    SavedPosition,
    SaveError,
    TurnRole,
    fail,
    read_action,
    read_coords,
    read_int,
    read_ints,
    read_seq,
)
from .tiles import SegmentKind, TileCatalogue, TileType, load_catalogue, seeded_pile

if TYPE_CHECKING:
    from .game import Game

__all__ = ["SaveError", "validate_document", "validate_loaded"]

#: Keys of a ``Game.to_dict`` document.
DOCUMENT_KEYS = frozenset({
    "format", "version", "config", "seed", "explicit_order", "pile", "drawn", "tiles", "discarded",
    "followers", "supply", "scores", "current_player", "turn", "phase", "tile", "history", "expansions",
    "start_position",
})
#: Stages of a turn in the history: what may come next (T2–T4).
_PLACE, _ACTION, _CHOICE, _ANSWER = "PLACE next", "phase-2 choice next", "choice after a prelude", \
    "after an opening choice"
_SEQUENCES = (list, tuple)
_PHASES = tuple(p.name for p in Phase)
#: The plug-in that carries out each action kind, and those that answer a T4 decision: what a
#: document that lacks them needs (the registry's declarations, R50).
_KIND_PLUGIN = {k: name for name, cls in reversed(PLUGINS.items()) for k in cls.action_kinds}
_DECIDERS = tuple(name for name, cls in PLUGINS.items() if cls.decision_kinds)

# ---------------------------------------------------------------------------------- field readers
def _tile_list(value: Any, name: str, allowed: dict[str, TileType]) -> list[TileType]:
    """A list of tile ids as tile types."""
    tiles = [allowed.get(t) if type(t) is str else None for t in read_seq(value, name)]
    for i, t in enumerate(tiles):
        if t is None:
            _tile_id(value[i], f"{name}[{i}]", allowed)
    return tiles  # type: ignore[return-value]  # no None is left


def _tile_id(value: Any, name: str, allowed: dict[str, TileType]) -> TileType:
    tile = allowed.get(value) if isinstance(value, str) else None
    if tile is None:
        fail(name, f"{value!r} is not a tile of the configured sets")
    return tile


def _placed(entry: Any, name: str, allowed: dict[str, TileType]) -> tuple[TileType, int, int]:
    """A ``tiles`` entry [id, x, y, rotation] as (type, packed position, rotation)."""
    if type(entry) in _SEQUENCES and len(entry) == 4:
        tid, x, y, rot = entry
        tile = allowed.get(tid) if type(tid) is str else None
        if (tile is not None and type(x) is int and type(y) is int and type(rot) is int
                and -REACH <= x <= REACH and -REACH <= y <= REACH and 0 <= rot <= 3):
            return tile, pack(x, y), rot
    tid, x, y, rot = read_seq(entry, name, 4)
    _tile_id(tid, name, allowed)
    read_coords(x, y, name)
    read_int(rot, name + " rotation", 0, 3)
    raise AssertionError("unreachable: the fast path accepts every valid entry")


@cache
def _tiles_of(tile_sets: tuple[str, ...]) -> dict[str, TileType]:
    """Tile id → type for the tiles of ``tile_sets``."""
    return {t.id: t for s in tile_sets for t in load_catalogue().sets[s]}


# ---------------------------------------------------------------------------------- parsed document
_Doc = SavedPosition


@dataclass
class _Origin:
    """Where the history starts: the start tile (R4) or a built position."""

    placed: int  # tiles on the board before the first PLACE of the history
    current: int
    followers: dict[tuple[int, int], int]
    states: Mapping[str, ExpansionState]  # each expansion's state there


def _parse(data: Any, at: str, catalogue: TileCatalogue) -> _Doc:
    """Structure and types of a ``Game.to_dict`` document (see the module table, "structure")."""
    if not isinstance(data, dict):
        fail(at.rstrip(".") or "document", f"must be a dict, got {type(data).__name__}")
    missing = sorted(DOCUMENT_KEYS - data.keys())
    if missing:
        fail(at + missing[0], "missing")
    extra = sorted(str(k) for k in data.keys() - DOCUMENT_KEYS)
    if extra:
        fail(at + extra[0], "unknown key")
    if not isinstance(data["config"], dict):
        fail(at + "config", "must be a dict")
    try:
        config = GameConfig.from_dict(data["config"])
    except ConfigError as exc:
        raise SaveError(f"{at}config.{exc.field}", str(exc).removeprefix(f"{exc.field}: ")) from None
    except TypeError as exc:
        raise SaveError(f"{at}config", str(exc)) from None
    n = config.players
    allowed = _tiles_of(config.tile_sets or ())

    seed = data["seed"]
    if seed is not None:
        read_int(seed, at + "seed", 0)
    explicit = data["explicit_order"]
    if type(explicit) is not bool:
        fail(at + "explicit_order", f"must be a bool, got {explicit!r}")
    if explicit != (seed is None):
        fail(at + "explicit_order", "must be true exactly when seed is None (a seed fixes the pile)")
    pile = _tile_list(data["pile"], at + "pile", allowed)
    drawn = read_int(data["drawn"], at + "drawn", 0, len(pile))

    tiles = [_placed(e, f"{at}tiles[{i}]", allowed) for i, e in enumerate(read_seq(data["tiles"], at + "tiles"))]
    discarded = _tile_list(data["discarded"], at + "discarded", allowed)
    board: dict[int, int] = {}
    for i, (_, p, _) in enumerate(tiles):
        if p in board:
            fail(f"{at}tiles[{i}]", f"two tiles on one square ({data['tiles'][i][1]},{data['tiles'][i][2]})")
        board[p] = i

    followers: dict[tuple[int, int], int] = {}
    for i, entry in enumerate(read_seq(data["followers"], at + "followers")):
        name = f"{at}followers[{i}]"
        x, y, slot, owner = read_seq(entry, name, 4)
        p = read_coords(x, y, name)
        if p not in board:
            fail(name, f"no tile at ({x},{y})")
        tile = tiles[board[p]][0]
        read_int(slot, name + " slot", 0, tile.segment_count - 1)
        read_int(owner, name + " owner", 0, n - 1)
        if (p, slot) in followers:
            fail(name, f"segment {slot} at ({x},{y}) holds two followers (R42)")
        followers[p, slot] = owner

    supply = read_ints(data["supply"], at + "supply", n, 0, FOLLOWERS_PER_PLAYER)
    scores = read_ints(data["scores"], at + "scores", n, 0)
    current = read_int(data["current_player"], at + "current_player", 0, n - 1)
    turn = read_int(data["turn"], at + "turn", 0)
    phase_name = data["phase"]
    if not isinstance(phase_name, str) or phase_name not in _PHASES:
        fail(at + "phase", f"must be one of {', '.join(_PHASES)}, got {phase_name!r}")
    phase = Phase[phase_name]
    in_hand = None if data["tile"] is None else _tile_id(data["tile"], at + "tile", allowed)
    history = [read_action(a, f"{at}history[{i}]") for i, a in enumerate(read_seq(data["history"], at + "history"))]

    expansions = data["expansions"]
    if not isinstance(expansions, dict):
        fail(at + "expansions", "must be a dict")
    stateful = [e for e in build_expansions(config, catalogue) if e.keeps_state()]
    wanted = {e.name for e in stateful}
    for name in sorted(wanted - expansions.keys()):
        fail(f"{at}expansions.{name}", "missing: the expansion is enabled")
    for name in sorted(str(k) for k in expansions.keys() - wanted):
        fail(f"{at}expansions.{name}", "this game has no such expansion state")
    states = {e.name: e.parse_state(expansions[e.name], f"{at}expansions.{e.name}.") for e in stateful}

    start = data["start_position"]
    if start is not None and not isinstance(start, dict):
        fail(at + "start_position", "must be None or a saved position")
    return _Doc(at, config, seed, explicit, pile, drawn, tiles, discarded, followers, supply, scores, current,
                turn, phase, in_hand, history, states, start, board)


# ---------------------------------------------------------------------------------- invariants
def _check_board(doc: _Doc, free: int) -> None:
    """R11 for every tile in placement order: touching edges match; tiles from ``free`` on touch
    an earlier tile (the first ``free`` tiles are the start tile or a built position)."""
    board: dict[int, int] = {}
    for i, (tile, p, rot) in enumerate(doc.tiles):
        code = tile.edge_code[rot]
        touching = False
        for d, delta in enumerate(DELTAS):
            j = board.get(p + delta)
            if j is None:
                continue
            touching = True
            other, _, other_rot = doc.tiles[j]
            d2 = (d + 2) & 3
            if (code >> 2 * d) & 3 != (other.edge_code[other_rot] >> 2 * d2) & 3:
                fail(f"{doc.at}tiles[{i}]", f"{tile.id} rotation {rot} does not match the edge of "
                      f"tiles[{j}] {other.id} it touches (R11)")
        if i >= free and not touching:
            fail(f"{doc.at}tiles[{i}]", f"{tile.id} touches no tile placed before it (R11)")
        board[p] = i


def _check_tiles(doc: _Doc, free: int) -> None:
    """Tile accounting and the tile of the phase (R10, R13, R26)."""
    pile, drawn, phase, at = doc.pile, doc.drawn, doc.phase, doc.at
    if phase is Phase.GAME_OVER:
        if drawn != len(pile) or doc.tile is not None:
            fail(at + "phase", f"GAME_OVER needs an empty pile and no tile (R26), but {len(pile) - drawn} "
                  f"tiles are left and the tile is {doc.tile}")
    else:
        last = pile[drawn - 1] if drawn else None
        if doc.tile is None or doc.tile is not last:
            fail(at + "tile", f"{phase.name} needs the tile drawn last ({last and last.id}), got {doc.tile}")
        if phase is not Phase.PLACE and (len(doc.tiles) <= free or doc.tiles[-1][0] is not doc.tile):
            fail(at + "phase", f"{phase.name} needs the tile of this turn ({doc.tile.id}) to be the last placed")
    in_hand = [doc.tile.id] if doc.tile is not None and phase is Phase.PLACE else []
    taken = Counter(t.id for t in pile[:drawn])
    used = Counter([t.id for t, _, _ in doc.tiles[free:]] + [t.id for t in doc.discarded] + in_hand)
    if taken != used:
        surplus, short = sorted((used - taken).elements()), sorted((taken - used).elements())
        fail(at + "pile", f"the first {drawn} tiles drawn from the pile are not the tiles placed since the "
              f"start, the discarded ones and the tile in hand: unaccounted {surplus}, drawn but missing {short}")


def _check_seeded_pile(doc: _Doc, catalogue: TileCatalogue) -> None:
    """A seeded pile is the pile its seed gives, in that order (``seeded_pile``): every tile of the
    configured sets once per copy, less the start tile (R1, R4, R31, R60). A changed seed or a
    reordered pile is refused; a custom pile is saved as ``explicit_order`` with no seed."""
    assert doc.seed is not None
    want = seeded_pile(catalogue, doc.config.tile_sets or (), doc.seed)
    if doc.pile == want:
        return
    have_n, want_n = Counter(t.id for t in doc.pile), Counter(t.id for t in want)
    if have_n != want_n:
        surplus, short = sorted((have_n - want_n).elements()), sorted((want_n - have_n).elements())
        fail(doc.at + "pile", f"a seeded pile must hold every tile of the sets {doc.config.tile_sets} "
              f"once per copy: too many {surplus}, too few {short}")
    k = next(i for i, (a, b) in enumerate(zip(doc.pile, want, strict=True)) if a is not b)
    fail(doc.at + "pile", f"not the order seed {doc.seed} gives (pile[{k}] is {doc.pile[k].id}, the seed draws "
         f"{want[k].id}): a changed seed or pile; a custom pile is saved with explicit_order true and seed null")


def _check_followers_supply(doc: _Doc, expansions: Sequence[Expansion]) -> None:
    """R46: supply + followers on segments + followers the expansions hold off the segments = 7."""
    n = doc.config.players
    held = [0] * n
    for owner in doc.followers.values():
        held[owner] += 1
    for e in expansions:
        if e.overrides("held_followers"):
            for p, count in enumerate(e.held_followers(doc.states[e.name])):
                held[p] += count
    for p in range(n):
        if doc.supply[p] + held[p] != FOLLOWERS_PER_PLAYER:
            fail(f"{doc.at}supply[{p}]", f"player {p} has {doc.supply[p]} in supply and {held[p]} on the board "
                 f"or held off it: {doc.supply[p] + held[p]} followers, not {FOLLOWERS_PER_PLAYER} (R46)")


@dataclass
class _Played:
    """What the history put on the board since the origin."""

    deploys: dict[tuple[int, int], int]  # (packed position, slot) -> owner
    actions: dict[str, list[HistoryAction]]  # expansion name -> its actions, in order


def _check_history(doc: _Doc, origin: _Origin, expansions: Sequence[Expansion]) -> _Played:
    """Turn order T2–T4 (each expansion tells the role of its actions in a turn), PLACEs = the tiles
    placed since the origin, ``turn`` and ``current_player`` (T6)."""
    at = doc.at
    n = doc.config.players
    owners = {k: e for e in expansions for k in e.action_kinds}
    played = _Played({}, {e.name: [] for e in expansions})
    turns = 0  # PLACEs seen
    stage = _PLACE  # what may come next
    pos = -1
    tile: TileType | None = None
    seat = origin.current
    tiles = doc.tiles
    place_kind, deploy_kind, pass_kind = ActionKind.PLACE, ActionKind.DEPLOY, ActionKind.PASS
    for i, a in enumerate(doc.history):
        kind = a[0]
        if kind is place_kind:
            if stage is not _PLACE and stage is not _ANSWER:
                fail(f"{at}history[{i}]", f"{a}: a PLACE before the turn's choice was made (T3)")
            k = origin.placed + turns
            # packed positions are equal exactly when (x, y) are, for y within the board (C1)
            if k >= len(tiles) or tiles[k][1] != pack(a[1], a[2]) or tiles[k][2] != a[3] or abs(a[2]) > REACH:
                fail(f"{at}history[{i}]", f"{a}: not tiles[{k}], the tile this PLACE put on the board")
            tile, pos, _ = tiles[k]
            seat = (origin.current + turns) % n
            turns += 1
            stage = _ACTION
            continue
        owner = owners.get(kind)
        if owner is None and kind is not deploy_kind and kind is not pass_kind:
            fail(f"{at}history[{i}]", f"{a}: needs the '{_KIND_PLUGIN[kind]}' expansion")
        if not a.unused_fields_are_zero():
            fail(f"{at}history[{i}]", f"{a}: fields this kind does not use must be 0")
        role = TurnRole.CHOICE if owner is None else owner.turn_role(a, seat, f"{at}history[{i}]")
        if stage is _PLACE or (stage is _ANSWER and role is not TurnRole.DECISION):
            fail(f"{at}history[{i}]", f"{a}: the turn's choice is already made; the next action must be a PLACE")
        assert tile is not None
        if owner is not None:
            played.actions[owner.name].append((i, a, seat, turns - 1))
        if stage is _ANSWER:
            stage = _PLACE
        elif role is TurnRole.DECISION:
            fail(f"{at}history[{i}]", f"{a}: answers a T4 decision, only right after the choice that opened it (T4)")
        elif role is TurnRole.PRELUDE:
            if stage is not _ACTION:
                fail(f"{at}history[{i}]", f"{a}: at most one such action per turn, before the choice")
            stage = _CHOICE
        else:
            stage = _ANSWER if role is TurnRole.OPENING else _PLACE
            if kind is deploy_kind:
                if unpack(pos) != (a.x, a.y) or not 0 <= a.arg < tile.segment_count:
                    fail(f"{at}history[{i}]", f"{a}: followers go on a segment of the tile just placed (R14)")
                played.deploys[pos, a.arg] = seat
    placed = len(doc.tiles) - origin.placed
    if turns != placed:
        fail(at + "history", f"{turns} PLACE actions but {placed} tiles placed since the start")

    phase = doc.phase
    in_turn = phase is Phase.ACTION or phase is Phase.DECISION
    expected_turns = (turns - 1,) if in_turn else (turns,) if phase is Phase.PLACE else (turns - 1, turns)
    if doc.turn not in expected_turns:
        fail(at + "turn", f"{doc.turn} but the history holds {turns} turns and the phase is {phase.name} (T6)")
    if doc.current != (origin.current + doc.turn) % n:
        fail(at + "current_player", f"{doc.current}, but turn {doc.turn} belongs to player "
             f"{(origin.current + doc.turn) % n} (T6)")
    ended = stage is _PLACE or stage is _ANSWER
    if (phase is Phase.ACTION and stage is not _ACTION and stage is not _CHOICE) or (in_turn and not turns) or \
            (phase is Phase.DECISION and stage is not _ANSWER) or (not in_turn and not ended):
        fail(at + "phase", f"{phase.name} does not follow the last action of the history "
             f"({doc.history[-1] if doc.history else 'none'})")
    return played


def _check_against_history(doc: _Doc, origin: _Origin, played: _Played, expansions: Sequence[Expansion]) -> None:
    """Followers are the origin's plus the DEPLOYs of the history; each expansion checks its state
    against the origin's and its actions of the history."""
    at = doc.at
    for i, ((p, slot), owner) in enumerate(doc.followers.items()):
        if origin.followers.get((p, slot)) != owner and played.deploys.get((p, slot)) != owner:
            fail(f"{at}followers[{i}]", f"no DEPLOY of player {owner} put a follower on this segment (R14)")
    for e in expansions:
        if e.overrides("check_history"):
            e.check_history(doc, doc.states.get(e.name), origin.states.get(e.name), played.actions[e.name])


def _fresh_states(expansions: Sequence[Expansion]) -> dict[str, ExpansionState]:
    """The expansions' states at setup (``Expansion.new_state``), where a history grown from the
    start tile begins."""
    states: dict[str, ExpansionState] = {}
    for e in expansions:
        state = e.new_state(states)
        if state is not None:
            states[e.name] = state
    return states


def _origin(doc: _Doc, catalogue: TileCatalogue, expansions: Sequence[Expansion]) -> _Origin:
    """The origin of ``doc``: the start tile (R4) or its checked built start position."""
    start = doc.start_position
    if start is None:
        if not doc.tiles or doc.tiles[0] != (catalogue.start, pack(0, 0), 0):
            fail(doc.at + "tiles[0]", f"must be the start tile {catalogue.start.id} at (0,0) rotation 0 (R4)")
        return _Origin(1, 0, {}, _fresh_states(expansions))
    built = _parse(start, doc.at + "start_position.", catalogue)
    at = built.at
    if built.start_position is not None:
        fail(at + "start_position", "a built start position has no start position of its own")
    if built.history or built.turn or built.phase not in (Phase.PLACE, Phase.GAME_OVER):
        fail(at + "history", "a built start position is before any turn: no history, turn 0, phase PLACE")
    _check_position(built, len(built.tiles), build_expansions(built.config, catalogue))
    if built.config != doc.config:
        fail(doc.at + "config", "differs from the start position's")
    if (built.seed, built.explicit_order) != (doc.seed, doc.explicit_order):
        fail(doc.at + "seed", "differs from the start position's")
    if Counter(t.id for t in built.pile) != Counter(t.id for t in doc.pile):
        fail(doc.at + "pile", "not the tiles of the start position's pile")
    if doc.tiles[:len(built.tiles)] != built.tiles:
        fail(doc.at + "tiles", "does not begin with the tiles of the start position")
    if doc.discarded[:len(built.discarded)] != built.discarded:
        fail(doc.at + "discarded", "does not begin with the discarded tiles of the start position")
    return _Origin(placed=len(built.tiles), current=built.current, followers=built.followers, states=built.states)


def _check_position(doc: _Doc, free: int, expansions: Sequence[Expansion]) -> None:
    """Invariants that hold in every position, built or played; then each expansion's."""
    _check_board(doc, free)
    _check_tiles(doc, free)
    _check_followers_supply(doc, expansions)
    if doc.phase is Phase.DECISION and not any(e.decision_kinds for e in expansions):
        fail(doc.at + "phase", f"{doc.phase.name} needs the {' or '.join(map(repr, _DECIDERS))} expansion")
    for e in expansions:
        if e.overrides("check_position"):
            e.check_position(doc, doc.states.get(e.name))


def validate_document(data: Any) -> None:
    """Raise :class:`SaveError` unless ``data`` is a consistent ``Game.to_dict`` document.

    Format and version are checked by the caller. See the module docstring for the invariants.
    """
    catalogue = load_catalogue()
    doc = _parse(data, "", catalogue)
    expansions = build_expansions(doc.config, catalogue)
    origin = _origin(doc, catalogue, expansions)
    _check_position(doc, origin.placed, expansions)
    if not doc.explicit_order and doc.start_position is None:
        _check_seeded_pile(doc, catalogue)
    played = _check_history(doc, origin, expansions)
    _check_against_history(doc, origin, played, expansions)


def validate_loaded(game: Game) -> None:
    """Checks that need the rebuilt game loaded from a checked document: the tile in hand can be
    placed (R12, R13), each expansion's (``Expansion.check_loaded``), no follower stands on a
    feature completed before this turn (R22, R24), and the history replays to this position."""
    _check_rebuilt(game)
    _check_replayed(game)


#: Longest rendering of a replayed value an error quotes.
_QUOTE = 160


def _check_replayed(game: Game) -> None:
    """Replaying the history from the pile (or the built start position) gives exactly the loaded
    position: followers, supplies, scores, expansion states and all. A follower taken off the board
    with its supply raised, or points added, add up in every count yet are refused here. A game with
    no history is its own origin (a fresh game or a built position) and has nothing to replay."""
    if not game.history:
        return
    saved, replayed = game.to_dict(), game.record().replay().to_dict()
    for key, value in saved.items():
        if replayed[key] != value:
            quoted = repr(replayed[key])
            if len(quoted) > _QUOTE:
                quoted = quoted[:_QUOTE] + "…"
            fail(key, f"does not follow from the history: replaying it gives {quoted}")


def _check_rebuilt(game: Game) -> None:
    """The checks of :func:`validate_loaded` on the rebuilt features (union-find)."""
    phase = game.phase
    if phase is Phase.PLACE and not game.legal_actions():
        fail("tile", f"{game.current_tile} has no legal placement: it would have been discarded (R13)")
    for e in build_expansions(game.config, game.catalogue):
        if e.overrides("check_loaded"):
            e.check_loaded(game)
    in_turn = phase is Phase.ACTION or phase is Phase.DECISION
    this_turn: set[int] = set()
    if in_turn:  # the tile of this turn is the last one placed (validate_document saw to it)
        last = game.tiles_placed - 1
        last_pos = game.placed_tile(last)
        this_turn = {game.feature_key(game.segment_base(last) + s) for s in range(last_pos.tile.segment_count)}
    followers = game.followers()
    if not followers:
        return
    start = game.record().start_position
    built = {(x, y, slot) for x, y, slot, _ in start["followers"]} if start else set()
    index = {(t.x, t.y): i for i, t in enumerate(game.tiles())}
    for k, (x, y, slot, _) in enumerate(followers):
        if (x, y, slot) in built:
            continue
        i = index[x, y]
        node = game.segment_base(i) + slot
        kind = game.placed_tile(i).tile.segment_kinds[slot]
        if kind is SegmentKind.MONASTERY:
            complete = game.monastery_complete(x, y)
            now = in_turn and abs(x - last_pos.x) <= 1 and abs(y - last_pos.y) <= 1
        else:
            complete = kind is not SegmentKind.FIELD and game.feature_totals(node)[0] == 0
            now = in_turn and game.feature_key(node) in this_turn
        if complete and not now:
            fail(f"followers[{k}]", f"({x},{y}) slot {slot} is on a {kind.name.lower()} completed before this "
                  "turn: scoring would have returned it (R24)")
