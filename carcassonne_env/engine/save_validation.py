"""Loading validates: every invariant of a saved game that the engine relies on.

``Game.from_dict`` calls :func:`validate_document` before it rebuilds anything and
:func:`validate_loaded` on the rebuilt game. A document that breaks a rule raises
:class:`SaveError`, whose ``field`` names the offending part of the document as a path
(``tiles[3]``, ``expansions.tower.floors[4]``, ``start_position.followers[0]``) and whose message
says what is wrong. What is checked:

=====================  ======================================================================
part                   invariant
=====================  ======================================================================
structure              every key of ``Game.to_dict`` present and no other; ints are ``int``
                       (never ``bool``), tile ids exist and belong to the configured sets;
                       ``explicit_order`` is true exactly when ``seed`` is None
board                  positions distinct and in range, rotations 0–3 (C2); the start tile at
                       (0,0) rotation 0 first (R4); every later tile touches an earlier one and
                       every touching edge matches (R11)
tiles                  the first ``drawn`` tiles of the pile are the tiles placed since the
                       start, the discarded ones and the tile in hand (R10, R13); a seeded
                       pile plus the start tile is exactly the configured tile sets (R1, R31, R60)
history                every entry an action of this game's expansions, in turn order (T2–T4:
                       PLACE, at most one RANSOM, one choice, CAPTURE/NO_CAPTURE only after a
                       FLOOR); the PLACEs are the placed tiles in order; DEPLOY on that turn's
                       tile; ``turn`` and ``current_player`` follow the number of turns (T6)
phase                  PLACE holds the last tile drawn and it has a legal placement (R12, R13);
                       ACTION/CAPTURE hold the tile placed this turn; CAPTURE follows a normal or
                       black FLOOR and its targets are exactly the followers the tower reaches
                       (R39–R42, R55); GAME_OVER has an empty pile and no tile (R26)
followers              on an existing segment, one per segment (R42), put there by a DEPLOY of
                       their owner; none on a road, city or monastery completed before this
                       turn (R24); supply 0–7 and supply + board + prisoners = 7 (R46)
scores                 one non-negative int per player (R2)
tower                  state present exactly when the expansion is on; a stack on every
                       foundation and nowhere else; each stack is the FLOORs played there, white
                       only on top of a floor (R54, R56); floor supplies are the deal (R32,
                       R51–R52) minus the floors each player placed; tops only on towers of
                       h ≥ 1 that are not white (R37), put there by a TOWER_TOP of their owner;
                       prisoners P[c][o] ≥ 0, P[p][p] = 0, never both P[a][b] and P[b][a] (R46,
                       R47); ``ransom_turn`` the turn of the last RANSOM; ``pending`` only in T4
=====================  ======================================================================

**Built positions.** :class:`~.position.PositionBuilder` sets up rulebook examples that play
never reaches (RULES.md §8: any tiles, anywhere, holes allowed, any scores and floor supplies).
Such a game keeps its build as ``start_position``, and a document with a ``start_position`` is
checked relative to it: the start position itself (``start_position.…``) only for what holds in
every position (touching edges match, segments exist, one follower per segment, R46, the tower
shapes), and everything since — tiles, history, followers, floors — as strictly as a game grown
from the start tile. A document without ``start_position`` gets every check above.

Not checked, because only replaying the history would tell: scores, prisoner counts beyond R46
and R47, which feature a follower joined (R15), and whether a discarded tile really fitted nowhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from .actions import NO_CAPTURE, Action, ActionKind, FloorColour, Phase
from .black_tower import floor_supply
from .config import FOLLOWERS_PER_PLAYER, ConfigError, GameConfig
from .geometry import DELTAS, OFFSET, pack, unpack
from .tiles import SegmentKind, TileCatalogue, TileType, load_catalogue

if TYPE_CHECKING:
    from .game import Game

__all__ = ["SaveError", "validate_document", "validate_loaded"]

#: Keys of a ``Game.to_dict`` document and of the tower state.
DOCUMENT_KEYS = frozenset({
    "format", "version", "config", "seed", "explicit_order", "pile", "drawn", "tiles", "discarded",
    "followers", "supply", "scores", "current_player", "turn", "phase", "tile", "history", "expansions",
    "start_position",
})
TOWER_KEYS = frozenset({"stacks", "tops", "floors", "prisoners", "ransom_turn", "pending"})
_TOWER_KINDS = frozenset({ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.CAPTURE,
                          ActionKind.NO_CAPTURE, ActionKind.RANSOM})
_T4_KINDS = frozenset({ActionKind.CAPTURE, ActionKind.NO_CAPTURE})
_KINDS = tuple(ActionKind)
#: Stages of a turn in the history: what may come next (T2–T4).
_PLACE, _ACTION, _CHOICE, _AFTER_FLOOR = "PLACE next", "phase-2 choice next", "choice after a RANSOM", "after a FLOOR"
_SEQUENCES = (list, tuple)
#: Largest |x| or |y| the packed coordinates represent (C1).
_REACH = OFFSET - 1


class SaveError(ValueError):
    """A saved game breaks an invariant. ``field`` is the path of the offending part."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


def _fail(field_name: str, message: str) -> NoReturn:
    raise SaveError(field_name, message)


# ---------------------------------------------------------------------------------- field readers
def _int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in [lo, hi]; bools, floats and numpy scalars are refused."""
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        _fail(name, f"must be an int, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        _fail(name, f"must be in {lo if lo is not None else '-∞'}..{hi if hi is not None else '∞'}, got {value}")
    return value


def _seq(value: Any, name: str, length: int | None = None) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        _fail(name, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        _fail(name, f"must have {length} entries, got {len(value)}")
    return value


def _ints(value: Any, name: str, length: int, lo: int | None = None, hi: int | None = None) -> list[int]:
    return [_int(v, f"{name}[{i}]", lo, hi) for i, v in enumerate(_seq(value, name, length))]


def _tile_list(value: Any, name: str, allowed: dict[str, TileType]) -> list[TileType]:
    """A list of tile ids as tile types."""
    tiles = [allowed.get(t) if type(t) is str else None for t in _seq(value, name)]
    for i, t in enumerate(tiles):
        if t is None:
            _tile_id(value[i], f"{name}[{i}]", allowed)
    return tiles  # type: ignore[return-value]  # no None is left


def _tile_id(value: Any, name: str, allowed: dict[str, TileType]) -> TileType:
    tile = allowed.get(value) if isinstance(value, str) else None
    if tile is None:
        _fail(name, f"{value!r} is not a tile of the configured sets")
    return tile


def _coords(x: Any, y: Any, name: str) -> int:
    """Packed (x, y) of a position the board can represent (C1)."""
    _int(x, name, -_REACH, _REACH)
    _int(y, name, -_REACH, _REACH)
    return pack(x, y)


def _action(value: Any, name: str) -> Action:
    """``value`` as an Action: a list of four ints with a known kind."""
    if type(value) in _SEQUENCES and len(value) == 4:
        kind, x, y, arg = value
        if type(kind) is int and type(x) is int and type(y) is int and type(arg) is int and 0 <= kind < len(_KINDS):
            return Action(_KINDS[kind], x, y, arg)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value) and 0 <= kind < len(_KINDS):
            return Action(_KINDS[kind], int(x), int(y), int(arg))  # int subclasses such as ActionKind
    _fail(name, f"must be an action [kind, x, y, arg] of ints with a known kind, got {value!r}")


def _placed(entry: Any, name: str, allowed: dict[str, TileType]) -> tuple[TileType, int, int]:
    """A ``tiles`` entry [id, x, y, rotation] as (type, packed position, rotation)."""
    if type(entry) in _SEQUENCES and len(entry) == 4:
        tid, x, y, rot = entry
        tile = allowed.get(tid) if type(tid) is str else None
        if (tile is not None and type(x) is int and type(y) is int and type(rot) is int
                and -_REACH <= x <= _REACH and -_REACH <= y <= _REACH and 0 <= rot <= 3):
            return tile, pack(x, y), rot
    tid, x, y, rot = _seq(entry, name, 4)
    _tile_id(tid, name, allowed)
    _coords(x, y, name)
    _int(rot, name + " rotation", 0, 3)
    raise AssertionError("unreachable: the fast path accepts every valid entry")


@cache
def _tiles_of(tile_sets: tuple[str, ...]) -> dict[str, TileType]:
    """Tile id → type for the tiles of ``tile_sets``."""
    return {t.id: t for s in tile_sets for t in load_catalogue().sets[s]}


# ---------------------------------------------------------------------------------- parsed document
@dataclass
class _Tower:
    stacks: dict[int, tuple[int, ...]]
    tops: dict[int, int]
    floors: list[int]
    prisoners: list[int]
    ransom_turn: int
    pending: list[Action]


@dataclass
class _Doc:
    """A document whose types are checked; ``at`` prefixes every field path."""

    at: str
    config: GameConfig
    seed: int | None
    explicit_order: bool
    pile: list[TileType]
    drawn: int
    tiles: list[tuple[TileType, int, int]]  # (type, packed position, rotation)
    discarded: list[TileType]
    followers: dict[tuple[int, int], int]  # (packed position, slot) -> owner
    supply: list[int]
    scores: list[int]
    current: int
    turn: int
    phase: Phase
    tile: TileType | None
    history: list[Action]
    tower: _Tower | None
    start_position: dict[str, Any] | None
    board: dict[int, int]  # packed position -> placement index


@dataclass
class _Origin:
    """Where the history starts: the start tile (R4) or a built position."""

    placed: int  # tiles on the board before the first PLACE of the history
    current: int
    followers: dict[tuple[int, int], int]
    tops: dict[int, int]
    stacks: dict[int, tuple[int, ...]]
    floors: list[int] | None  # None: the deal of R32/R51–R52
    ransom_turn: int


def _parse(data: Any, at: str, catalogue: TileCatalogue) -> _Doc:
    """Structure and types of a ``Game.to_dict`` document (see the module table, "structure")."""
    if not isinstance(data, dict):
        _fail(at.rstrip(".") or "document", f"must be a dict, got {type(data).__name__}")
    missing = sorted(DOCUMENT_KEYS - data.keys())
    if missing:
        _fail(at + missing[0], "missing")
    extra = sorted(str(k) for k in data.keys() - DOCUMENT_KEYS)
    if extra:
        _fail(at + extra[0], "unknown key")
    if not isinstance(data["config"], dict):
        _fail(at + "config", "must be a dict")
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
        _int(seed, at + "seed", 0)
    explicit = data["explicit_order"]
    if type(explicit) is not bool:
        _fail(at + "explicit_order", f"must be a bool, got {explicit!r}")
    if explicit != (seed is None):
        _fail(at + "explicit_order", "must be true exactly when seed is None (a seed fixes the pile)")
    pile = _tile_list(data["pile"], at + "pile", allowed)
    drawn = _int(data["drawn"], at + "drawn", 0, len(pile))

    tiles = [_placed(e, f"{at}tiles[{i}]", allowed) for i, e in enumerate(_seq(data["tiles"], at + "tiles"))]
    discarded = _tile_list(data["discarded"], at + "discarded", allowed)
    board: dict[int, int] = {}
    for i, (_, p, _) in enumerate(tiles):
        if p in board:
            _fail(f"{at}tiles[{i}]", f"two tiles on one square ({data['tiles'][i][1]},{data['tiles'][i][2]})")
        board[p] = i

    followers: dict[tuple[int, int], int] = {}
    for i, entry in enumerate(_seq(data["followers"], at + "followers")):
        name = f"{at}followers[{i}]"
        x, y, slot, owner = _seq(entry, name, 4)
        p = _coords(x, y, name)
        if p not in board:
            _fail(name, f"no tile at ({x},{y})")
        tile = tiles[board[p]][0]
        _int(slot, name + " slot", 0, tile.segment_count - 1)
        _int(owner, name + " owner", 0, n - 1)
        if (p, slot) in followers:
            _fail(name, f"segment {slot} at ({x},{y}) holds two followers (R42)")
        followers[p, slot] = owner

    supply = _ints(data["supply"], at + "supply", n, 0, FOLLOWERS_PER_PLAYER)
    scores = _ints(data["scores"], at + "scores", n, 0)
    current = _int(data["current_player"], at + "current_player", 0, n - 1)
    turn = _int(data["turn"], at + "turn", 0)
    phase_name = data["phase"]
    if not isinstance(phase_name, str) or phase_name not in Phase.__members__:
        _fail(at + "phase", f"must be one of {', '.join(Phase.__members__)}, got {phase_name!r}")
    phase = Phase[phase_name]
    in_hand = None if data["tile"] is None else _tile_id(data["tile"], at + "tile", allowed)
    history = [_action(a, f"{at}history[{i}]") for i, a in enumerate(_seq(data["history"], at + "history"))]

    expansions = data["expansions"]
    if not isinstance(expansions, dict):
        _fail(at + "expansions", "must be a dict")
    wanted = {"tower"} if config.has("tower") else set()
    for name in sorted(wanted - expansions.keys()):
        _fail(f"{at}expansions.{name}", "missing: the expansion is enabled")
    for name in sorted(str(k) for k in expansions.keys() - wanted):
        _fail(f"{at}expansions.{name}", "this game has no such expansion state")
    tower = _parse_tower(expansions["tower"], at + "expansions.tower.", n) if wanted else None

    start = data["start_position"]
    if start is not None and not isinstance(start, dict):
        _fail(at + "start_position", "must be None or a saved position")
    return _Doc(at, config, seed, explicit, pile, drawn, tiles, discarded, followers, supply, scores, current,
                turn, phase, in_hand, history, tower, start, board)


_V = TypeVar("_V")


def _by_position(entries: Any, at: str, clash: str, parse: Callable[[Any, str], _V]) -> dict[int, _V]:
    """``[x, y, value]`` entries as packed position → ``parse(value, name)``; a position given twice
    fails with ``clash`` (e.g. "two stacks") and the coordinates."""
    out: dict[int, _V] = {}
    for i, entry in enumerate(_seq(entries, at)):
        name = f"{at}[{i}]"
        x, y, value = _seq(entry, name, 3)
        p = _coords(x, y, name)
        if p in out:
            _fail(name, f"{clash} at ({x},{y})")
        out[p] = parse(value, name)
    return out


def _parse_tower(data: Any, at: str, n: int) -> _Tower:
    if not isinstance(data, dict):
        _fail(at.rstrip("."), "must be a dict")
    for key in sorted(TOWER_KEYS - data.keys()):
        _fail(at + key, "missing")
    for key in sorted(str(k) for k in data.keys() - TOWER_KEYS):
        _fail(at + key, "unknown key")
    stacks = _by_position(data["stacks"], at + "stacks", "two stacks",
                          lambda floors, name: tuple(_int(c, f"{name} floor {j}", 0, 2)
                                                     for j, c in enumerate(_seq(floors, name))))
    tops = _by_position(data["tops"], at + "tops", "two followers on top of the tower",
                        lambda owner, name: _int(owner, name + " owner", 0, n - 1))
    return _Tower(
        stacks=stacks,
        tops=tops,
        floors=_ints(data["floors"], at + "floors", 3 * n, 0),
        prisoners=_ints(data["prisoners"], at + "prisoners", n * n, 0),
        ransom_turn=_int(data["ransom_turn"], at + "ransom_turn", -1),
        pending=[_action(a, f"{at}pending[{i}]") for i, a in enumerate(_seq(data["pending"], at + "pending"))],
    )


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
                _fail(f"{doc.at}tiles[{i}]", f"{tile.id} rotation {rot} does not match the edge of "
                      f"tiles[{j}] {other.id} it touches (R11)")
        if i >= free and not touching:
            _fail(f"{doc.at}tiles[{i}]", f"{tile.id} touches no tile placed before it (R11)")
        board[p] = i


def _check_tiles(doc: _Doc, free: int) -> None:
    """Tile accounting and the tile of the phase (R10, R13, R26)."""
    pile, drawn, phase, at = doc.pile, doc.drawn, doc.phase, doc.at
    if phase is Phase.GAME_OVER:
        if drawn != len(pile) or doc.tile is not None:
            _fail(at + "phase", f"GAME_OVER needs an empty pile and no tile (R26), but {len(pile) - drawn} "
                  f"tiles are left and the tile is {doc.tile}")
    else:
        last = pile[drawn - 1] if drawn else None
        if doc.tile is None or doc.tile is not last:
            _fail(at + "tile", f"{phase.name} needs the tile drawn last ({last and last.id}), got {doc.tile}")
        if phase is not Phase.PLACE and (len(doc.tiles) <= free or doc.tiles[-1][0] is not doc.tile):
            _fail(at + "phase", f"{phase.name} needs the tile of this turn ({doc.tile.id}) to be the last placed")
    in_hand = [doc.tile.id] if doc.tile is not None and phase is Phase.PLACE else []
    taken = Counter(t.id for t in pile[:drawn])
    used = Counter([t.id for t, _, _ in doc.tiles[free:]] + [t.id for t in doc.discarded] + in_hand)
    if taken != used:
        surplus, short = sorted((used - taken).elements()), sorted((taken - used).elements())
        _fail(at + "pile", f"the first {drawn} tiles drawn from the pile are not the tiles placed since the "
              f"start, the discarded ones and the tile in hand: unaccounted {surplus}, drawn but missing {short}")


def _check_full_pile(doc: _Doc, catalogue: TileCatalogue) -> None:
    """A seeded pile plus the start tile is every tile of the configured sets (R1, R4, R31, R60)."""
    want = Counter({t.id: t.count for s in doc.config.tile_sets or () for t in catalogue.sets[s]})
    have = Counter(t.id for t in doc.pile) + Counter([catalogue.start.id])
    if want != have:
        surplus, short = sorted((have - want).elements()), sorted((want - have).elements())
        _fail(doc.at + "pile", f"a seeded pile must hold every tile of the sets {doc.config.tile_sets} "
              f"once per copy: too many {surplus}, too few {short}")


def _check_followers_supply(doc: _Doc) -> None:
    """R46: supply + followers on segments and tower tops + prisoners held by others = 7."""
    n = doc.config.players
    held = [0] * n
    for owner in doc.followers.values():
        held[owner] += 1
    tower = doc.tower
    if tower is not None:
        for owner in tower.tops.values():
            held[owner] += 1
        for c in range(n):
            for o in range(n):
                held[o] += tower.prisoners[c * n + o]
    for p in range(n):
        if doc.supply[p] + held[p] != FOLLOWERS_PER_PLAYER:
            _fail(f"{doc.at}supply[{p}]", f"player {p} has {doc.supply[p]} in supply and {held[p]} on the board "
                  f"or held as prisoners: {doc.supply[p] + held[p]} followers, not {FOLLOWERS_PER_PLAYER} (R46)")


def _check_tower_shapes(doc: _Doc, tower: _Tower) -> None:
    """Stacks, tops, floors and prisoners that hold in every position (R33, R37, R46, R47, R54, R56)."""
    at = doc.at + "expansions.tower."
    n = doc.config.players
    coloured = doc.config.has("black_tower")
    foundations = {p for t, p, _ in doc.tiles if t.tower_foundation}
    for i, (p, stack) in enumerate(tower.stacks.items()):
        if p not in foundations:
            _fail(f"{at}stacks[{i}]", "a stack on a square without a tower foundation")
        if not coloured and any(stack):
            _fail(f"{at}stacks[{i}]", "black and white floors need the 'black_tower' expansion (R51)")
        if FloorColour.WHITE in stack[:-1] or stack[:1] == (FloorColour.WHITE,):
            _fail(f"{at}stacks[{i}]", "a white floor caps a tower: never on a bare foundation, nothing above (R54)")
    if len(tower.stacks) != len(foundations):
        _fail(at + "stacks", f"{len(foundations)} tower foundations on the board but {len(tower.stacks)} stacks")
    for i, p in enumerate(tower.tops):
        under = tower.stacks.get(p)
        if not under or under[-1] == FloorColour.WHITE:
            _fail(f"{at}tops[{i}]", "a follower on top needs a tower of height ≥ 1 that is not white (R37, R56)")
    if not coloured and any(tower.floors[3 * p + c] for p in range(n) for c in (1, 2)):
        _fail(at + "floors", "black and white floors need the 'black_tower' expansion (R51)")
    for a in range(n):
        if tower.prisoners[a * n + a]:
            _fail(f"{at}prisoners[{a * n + a}]", f"player {a} holds their own followers (R43, R46)")
        for b in range(a + 1, n):
            if tower.prisoners[a * n + b] and tower.prisoners[b * n + a]:
                _fail(f"{at}prisoners[{a * n + b}]", f"players {a} and {b} hold each other's followers (R47)")
    if doc.phase is Phase.CAPTURE:
        pending = tower.pending
        if len(pending) < 2 or pending[-1] != NO_CAPTURE or any(a.kind != ActionKind.CAPTURE for a in pending[:-1]):
            _fail(at + "pending", "CAPTURE needs the capture targets followed by NO_CAPTURE (R39)")
    elif tower.pending:
        _fail(at + "pending", f"capture targets outside the CAPTURE phase (phase {doc.phase.name})")


@dataclass
class _Played:
    """What the history put on the board since the origin."""

    deploys: dict[tuple[int, int], int]  # (packed position, slot) -> owner
    tops: set[tuple[int, int]]  # (packed position, owner)
    floors: dict[int, list[int]]  # packed position -> colours in order
    floors_used: list[int]  # [3 * player + colour]
    ransom_turn: int


def _check_history(doc: _Doc, origin: _Origin) -> _Played:
    """Turn order T2–T4, PLACEs = the tiles placed since the origin, ``turn`` and ``current_player``."""
    at = doc.at
    config = doc.config
    n = config.players
    tower_on = config.has("tower")
    coloured = config.has("black_tower")
    played = _Played({}, set(), {}, [0] * (3 * n), origin.ransom_turn)
    turns = 0  # PLACEs seen
    stage = _PLACE  # what may come next
    pos = -1
    tile: TileType | None = None
    seat = origin.current
    tiles = doc.tiles
    place_kind = ActionKind.PLACE
    for i, a in enumerate(doc.history):
        kind = a[0]
        if kind is place_kind:
            if stage is not _PLACE and stage is not _AFTER_FLOOR:
                _fail(f"{at}history[{i}]", f"{a}: a PLACE before the turn's choice was made (T3)")
            k = origin.placed + turns
            # packed positions are equal exactly when (x, y) are, for y within the board (C1)
            if k >= len(tiles) or tiles[k][1] != pack(a[1], a[2]) or tiles[k][2] != a[3] or abs(a[2]) > _REACH:
                _fail(f"{at}history[{i}]", f"{a}: not tiles[{k}], the tile this PLACE put on the board")
            tile, pos, _ = tiles[k]
            seat = (origin.current + turns) % n
            turns += 1
            stage = _ACTION
            continue
        if kind in _TOWER_KINDS and not tower_on:
            _fail(f"{at}history[{i}]", f"{a}: needs the 'tower' expansion")
        if not a.unused_fields_are_zero():
            _fail(f"{at}history[{i}]", f"{a}: fields this kind does not use must be 0")
        if stage is _PLACE or (stage is _AFTER_FLOOR and kind not in _T4_KINDS):
            _fail(f"{at}history[{i}]", f"{a}: the turn's choice is already made; the next action must be a PLACE")
        assert tile is not None
        if stage is _AFTER_FLOOR:
            stage = _PLACE
        elif kind in _T4_KINDS:
            _fail(f"{at}history[{i}]", f"{a}: CAPTURE and NO_CAPTURE only right after a FLOOR (T4)")
        elif kind is ActionKind.RANSOM:
            if stage is not _ACTION or config.no_ransom or not 0 <= a.arg < n or a.arg == seat:
                _fail(f"{at}history[{i}]", f"{a}: not a ransom player {seat} may pay here (R48)")
            played.ransom_turn = turns - 1
            stage = _CHOICE
        else:
            stage = _PLACE
            if kind is ActionKind.DEPLOY:
                if unpack(pos) != (a.x, a.y) or not 0 <= a.arg < tile.segment_count:
                    _fail(f"{at}history[{i}]", f"{a}: followers go on a segment of the tile just placed (R14)")
                played.deploys[pos, a.arg] = seat
            elif kind is ActionKind.TOWER_TOP:
                played.tops.add((_coords(a.x, a.y, f"{at}history[{i}]"), seat))
            elif kind is ActionKind.FLOOR:
                if a.arg not in (0, 1, 2) or (a.arg and not coloured):
                    _fail(f"{at}history[{i}]", f"{a}: not a floor colour of this game (R51)")
                played.floors.setdefault(_coords(a.x, a.y, f"{at}history[{i}]"), []).append(a.arg)
                played.floors_used[3 * seat + a.arg] += 1
                if a.arg != FloorColour.WHITE:
                    stage = _AFTER_FLOOR
    placed = len(doc.tiles) - origin.placed
    if turns != placed:
        _fail(at + "history", f"{turns} PLACE actions but {placed} tiles placed since the start")

    phase = doc.phase
    in_turn = phase in (Phase.ACTION, Phase.CAPTURE)
    expected_turns = (turns - 1,) if in_turn else (turns,) if phase is Phase.PLACE else (turns - 1, turns)
    if doc.turn not in expected_turns:
        _fail(at + "turn", f"{doc.turn} but the history holds {turns} turns and the phase is {phase.name} (T6)")
    if doc.current != (origin.current + doc.turn) % n:
        _fail(at + "current_player", f"{doc.current}, but turn {doc.turn} belongs to player "
              f"{(origin.current + doc.turn) % n} (T6)")
    ended = stage is _PLACE or stage is _AFTER_FLOOR
    if (phase is Phase.ACTION and stage is not _ACTION and stage is not _CHOICE) or (in_turn and not turns) or \
            (phase is Phase.CAPTURE and stage is not _AFTER_FLOOR) or (not in_turn and not ended):
        _fail(at + "phase", f"{phase.name} does not follow the last action of the history "
              f"({doc.history[-1] if doc.history else 'none'})")
    return played


def _check_against_history(doc: _Doc, origin: _Origin, played: _Played) -> None:
    """Followers, tops, stacks and floor supplies are the origin's plus what the history did."""
    at = doc.at
    for i, ((p, slot), owner) in enumerate(doc.followers.items()):
        if origin.followers.get((p, slot)) != owner and played.deploys.get((p, slot)) != owner:
            _fail(f"{at}followers[{i}]", f"no DEPLOY of player {owner} put a follower on this segment (R14)")
    tower = doc.tower
    if tower is None:
        return
    at += "expansions.tower."
    for i, (p, owner) in enumerate(tower.tops.items()):
        if origin.tops.get(p) != owner and (p, owner) not in played.tops:
            _fail(f"{at}tops[{i}]", f"no TOWER_TOP of player {owner} put a follower on this tower (R35)")
    for i, (p, stack) in enumerate(tower.stacks.items()):
        if stack != origin.stacks.get(p, ()) + tuple(played.floors.get(p, ())):
            _fail(f"{at}stacks[{i}]", f"floors {list(stack)} are not the FLOORs the history placed here")
    if played.floors.keys() - tower.stacks.keys():
        _fail(at + "stacks", "a FLOOR of the history went onto a square that has no stack")
    dealt = origin.floors if origin.floors is not None else list(floor_supply(doc.config)) * doc.config.players
    for k, left in enumerate(tower.floors):
        if left != dealt[k] - played.floors_used[k]:
            _fail(f"{at}floors[{k}]", f"player {k // 3} holds {left} {FloorColour(k % 3).name.lower()} floors, "
                  f"but was dealt {dealt[k]} and placed {played.floors_used[k]} (R32, R51, R52)")
    if tower.ransom_turn != played.ransom_turn:
        _fail(at + "ransom_turn", f"{tower.ransom_turn}, but the last RANSOM was in turn {played.ransom_turn}")


def _origin(doc: _Doc, catalogue: TileCatalogue) -> _Origin:
    """The origin of ``doc``: the start tile (R4) or its checked built start position."""
    start = doc.start_position
    if start is None:
        if not doc.tiles or doc.tiles[0] != (catalogue.start, pack(0, 0), 0):
            _fail(doc.at + "tiles[0]", f"must be the start tile {catalogue.start.id} at (0,0) rotation 0 (R4)")
        return _Origin(1, 0, {}, {}, {}, None, -1)
    built = _parse(start, doc.at + "start_position.", catalogue)
    at = built.at
    if built.start_position is not None:
        _fail(at + "start_position", "a built start position has no start position of its own")
    if built.history or built.turn or built.phase not in (Phase.PLACE, Phase.GAME_OVER):
        _fail(at + "history", "a built start position is before any turn: no history, turn 0, phase PLACE")
    _check_position(built, len(built.tiles))
    if built.config != doc.config:
        _fail(doc.at + "config", "differs from the start position's")
    if (built.seed, built.explicit_order) != (doc.seed, doc.explicit_order):
        _fail(doc.at + "seed", "differs from the start position's")
    if Counter(t.id for t in built.pile) != Counter(t.id for t in doc.pile):
        _fail(doc.at + "pile", "not the tiles of the start position's pile")
    if doc.tiles[:len(built.tiles)] != built.tiles:
        _fail(doc.at + "tiles", "does not begin with the tiles of the start position")
    if doc.discarded[:len(built.discarded)] != built.discarded:
        _fail(doc.at + "discarded", "does not begin with the discarded tiles of the start position")
    tower = built.tower
    return _Origin(
        placed=len(built.tiles),
        current=built.current,
        followers=built.followers,
        tops={} if tower is None else tower.tops,
        stacks={} if tower is None else tower.stacks,
        floors=None if tower is None else tower.floors,
        ransom_turn=-1 if tower is None else tower.ransom_turn,
    )


def _check_position(doc: _Doc, free: int) -> None:
    """Invariants that hold in every position, built or played."""
    _check_board(doc, free)
    _check_tiles(doc, free)
    _check_followers_supply(doc)
    if doc.tower is not None:
        _check_tower_shapes(doc, doc.tower)
    elif doc.phase is Phase.CAPTURE:
        _fail(doc.at + "phase", "CAPTURE needs the 'tower' expansion")


def validate_document(data: Any) -> None:
    """Raise :class:`SaveError` unless ``data`` is a consistent ``Game.to_dict`` document.

    Format and version are checked by the caller. See the module docstring for the invariants.
    """
    catalogue = load_catalogue()
    doc = _parse(data, "", catalogue)
    origin = _origin(doc, catalogue)
    _check_position(doc, origin.placed)
    if not doc.explicit_order and doc.start_position is None:
        _check_full_pile(doc, catalogue)
    played = _check_history(doc, origin)
    _check_against_history(doc, origin, played)


def validate_loaded(game: Game) -> None:
    """Checks that need the rebuilt features (union-find) of a game loaded from a checked document:
    the tile in hand can be placed (R12, R13), no follower stands on a feature completed before this
    turn (R22, R24), and the CAPTURE targets are exactly those of the last FLOOR (R39–R42, R55)."""
    phase = game.phase
    if phase is Phase.PLACE and not game.legal_actions():
        _fail("tile", f"{game.current_tile} has no legal placement: it would have been discarded (R13)")
    if phase is Phase.CAPTURE:
        _check_capture_targets(game)
    in_turn = phase in (Phase.ACTION, Phase.CAPTURE)
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
            _fail(f"followers[{k}]", f"({x},{y}) slot {slot} is on a {kind.name.lower()} completed before this "
                  "turn: scoring would have returned it (R24)")


def _check_capture_targets(game: Game) -> None:
    from .tower import TowerExpansion, TowerState

    st: TowerState = game.expansion_state("tower")
    floor = game.last_action
    assert floor is not None and floor.kind == ActionKind.FLOOR  # _check_history saw to it
    tower = game.expansion("tower")
    assert isinstance(tower, TowerExpansion)
    p = pack(floor.x, floor.y)
    targets = tower.capture_targets(game, st, p, len(st.stacks[p]), floor.arg)
    if not targets:
        _fail("phase", f"CAPTURE after {floor}, which reaches no follower (T4 is skipped then)")
    if set(st.pending) != {*targets, NO_CAPTURE}:
        _fail("expansions.tower.pending", f"{[str(a) for a in st.pending]} are not the followers "
              f"{floor} reaches: {[str(a) for a in targets]} (R40–R42, R55)")

