"""The Tower (docs/rules.md §2), with the Black Tower colours (§3): floors, tower tops, capture,
prisoners, automatic exchange and ransom.

Phase-2 options added between the DEPLOY options and PASS (R35, R48, R54), in this order:

* ``RANSOM(c)`` — once per turn, before the choice, when P[c][p] ≥ 1 and p's score ≥ 3;
* ``FLOOR(x, y, colour)`` — normal/black on a bare foundation or an open normal/black tower,
  white only on an open normal/black tower;
* ``TOWER_TOP(x, y)`` — a follower onto an open tower (h ≥ 1), which closes it.

After a normal or black floor with at least one target the player decides T4:
``CAPTURE(x, y, slot)`` or ``NO_CAPTURE`` (R39–R44), followed by the automatic exchange (R47).

Saved games: the plug-in parses and checks its own state (``expansions.tower``), in every position
— a stack on every foundation and nowhere else, white only on top of a floor (R54, R56), tops only
on towers of h ≥ 1 that are not white (R37), P[p][p] = 0 and never both P[a][b] and P[b][a] (R46,
R47), ``pending`` only in T4 — and against the history: each stack is the FLOORs played there,
floor supplies are the deal (R32, R51–R52) minus the floors each player placed, tops were put
there by a TOWER_TOP of their owner (R35), ``ransom_turn`` is the turn of the last RANSOM (R48)
and the T4 targets are exactly the followers the last FLOOR reaches (R39–R42, R55). Its tops and
prisoners are the followers it holds off the segments (R46). Not checked: prisoner counts beyond
R46 and R47, which only replaying the history would tell.

Text view (``Game.render_text``): ``T`` in the centre of a foundation tile, and below the board one
line per tower (height, colour, top follower), the floor supplies and the prisoners held.
Position builder (docs/rules.md §8): the steps ``tower``, ``tower_top``, ``prisoners`` and ``floors`` of
:class:`TowerBuilderSteps`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, SupportsInt

from mypy_extensions import mypyc_attr

from .actions import NO_CAPTURE, TOWER_TOP_SLOT, Action, ActionKind, FloorColour, IllegalActionError, Phase
from .capture_area import CaptureRules, capture_area_packed
from .expansion import BuilderSteps, Expansion, ExpansionHost, ExpansionState, PositionSetup
from .geometry import check_coords, pack, unpack
from .save_format import (
    HistoryAction,
    SavedPosition,
    TurnRole,
    by_position,
    fail,
    read_action,
    read_coords,
    read_int,
    read_ints,
    read_keys,
    read_seq,
)
from .tiles import TileCatalogue, TileType

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["RANSOM_PRICE", "TOWER_FLOORS", "TowerBuilderSteps", "TowerExpansion", "TowerState", "state"]

#: R32: normal floors per player by player count.
TOWER_FLOORS: dict[int, int] = {2: 10, 3: 9, 4: 7, 5: 6, 6: 5}

#: Points a ransom costs the payer and earns the captor (R48).
RANSOM_PRICE = 3
# The floor colours as plain ints (equal to the FloorColour members): compiled, a Final int is a C
# constant and compares natively with the ints of the stacks.
_NORMAL: Final = int(FloorColour.NORMAL)
_BLACK: Final = int(FloorColour.BLACK)
_WHITE: Final = int(FloorColour.WHITE)
_COLOURS: Final = (_NORMAL, _BLACK, _WHITE)
#: Keys of the saved state (``TowerState.to_dict``).
STATE_KEYS = frozenset({"stacks", "tops", "floors", "prisoners", "ransom_turn", "pending"})
#: Per packed foundation position, built once so that the legal lists of T3 allocate nothing: the
#: FLOOR actions for every set of colours in supply (bit c of the index = colour c) and the
#: TOWER_TOP action.
_FLOOR_ACTIONS: dict[int, tuple[tuple[Action, ...], ...]] = {}
_TOP_ACTIONS: dict[int, Action] = {}


@dataclass
class TowerState:
    """Towers, floor supplies and prisoners.

    ``stacks`` maps the packed position of every foundation on the board to the colours of its
    floors, bottom first (an empty tuple is a bare foundation): the height is its length and the
    type its last colour (R53). ``floors[p * 3 + colour]`` is player p's supply;
    ``prisoners[c * n + o]`` is P[c][o] of R46.
    """

    players: int
    stacks: dict[int, tuple[int, ...]] = field(default_factory=dict)
    tops: dict[int, int] = field(default_factory=dict)
    floors: list[int] = field(default_factory=list)
    prisoners: list[int] = field(default_factory=list)
    ransom_turn: int = -1
    pending: list[Action] = field(default_factory=list)

    def copy(self) -> TowerState:
        return TowerState(
            self.players, self.stacks.copy(), self.tops.copy(), self.floors.copy(),
            self.prisoners.copy(), self.ransom_turn, self.pending.copy(),
        )

    # -- public read API (positions as (x, y))
    def height(self, x: int, y: int) -> int:
        return len(self.stacks[pack(x, y)])

    def colour(self, x: int, y: int) -> FloorColour | None:
        """Type of the tower at (x, y) (R53); None for a bare foundation."""
        stack = self.stacks[pack(x, y)]
        return FloorColour(stack[-1]) if stack else None

    def top(self, x: int, y: int) -> int | None:
        """Owner of the follower on top of the tower at (x, y), if any."""
        return self.tops.get(pack(x, y))

    def is_open(self, x: int, y: int) -> bool:
        """h ≥ 1, nobody on top, not white (R33)."""
        p = pack(x, y)
        stack = self.stacks[p]
        return bool(stack) and p not in self.tops and stack[-1] != _WHITE

    def foundations(self) -> list[tuple[int, int]]:
        return [unpack(p) for p in self.stacks]

    def floor_supply(self, player: int) -> tuple[int, int, int]:
        """Player's floors in supply by colour (normal, black, white)."""
        i = 3 * player
        return (self.floors[i], self.floors[i + 1], self.floors[i + 2])

    def prisoner_count(self, captor: int, owner: int) -> int:
        """P[captor][owner] (R46)."""
        return self.prisoners[captor * self.players + owner]

    def to_dict(self) -> dict[str, Any]:
        return {
            "stacks": [[*unpack(p), list(s)] for p, s in self.stacks.items()],
            "tops": [[*unpack(p), o] for p, o in self.tops.items()],
            "floors": list(self.floors),
            "prisoners": list(self.prisoners),
            "ransom_turn": self.ransom_turn,
            "pending": [[int(v) for v in a] for a in self.pending],
        }

    @classmethod
    def from_dict(cls, players: int, data: dict[str, Any]) -> TowerState:
        return cls(
            players=players,
            stacks={pack(x, y): tuple(s) for x, y, s in data["stacks"]},
            tops={pack(x, y): o for x, y, o in data["tops"]},
            floors=list(data["floors"]),
            prisoners=list(data["prisoners"]),
            ransom_turn=data["ransom_turn"],
            pending=[Action.coerce(a) for a in data["pending"]],
        )


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class TowerBuilderSteps(BuilderSteps):
    """``PositionBuilder`` steps of The Tower: ``.tower(x, y, floors)``, ``.tower_top(player, x, y)``,
    ``.prisoners(captor, owner, count)`` and ``.floors(player, normal, black, white)``. Tower tops and
    prisoners come out of their owner's supply; without a ``floors`` step a player holds the full
    deal of R32 (R51 with the black tower)."""

    steps = ("tower", "tower_top", "prisoners", "floors")

    def __init__(self, config: GameConfig) -> None:
        super().__init__(config)
        self._towers: list[tuple[int, int, tuple[int, ...]]] = []
        self._tops: list[tuple[int, int, int]] = []
        self._prisoners: list[tuple[int, int, int]] = []
        self._floors: dict[int, tuple[int, int, int]] = {}

    def tower(self, x: int, y: int, floors: Sequence[SupportsInt]) -> None:
        """Floors (bottom first) on the foundation at (x, y): :class:`FloorColour` members or their
        ints (normal 0, black 1, white 2; numpy's too: compiled, a parameter typed ``int`` would
        refuse those)."""
        self._towers.append((x, y, tuple(int(c) for c in floors)))

    def tower_top(self, player: int, x: int, y: int) -> None:
        """A follower of ``player`` on top of the tower at (x, y)."""
        self._tops.append((x, y, player))

    def prisoners(self, captor: int, owner: int, count: int = 1) -> None:
        """``captor`` holds ``count`` followers of ``owner`` (P[captor][owner])."""
        self._prisoners.append((captor, owner, count))

    def floors(self, player: int, normal: int, black: int = 0, white: int = 0) -> None:
        """Set a player's floor supply (by default everyone holds the full deal of R32/R51)."""
        self._floors[player] = (normal, black, white)

    def apply(self, setup: PositionSetup) -> None:
        """Towers, then tops (R37), prisoners (R43, R47) and floor supplies (R51, R54, R56)."""
        config = self.config
        st: TowerState = setup.expansion_state(TowerExpansion.name)
        coloured = config.has("black_tower")
        for x, y, floors in self._towers:
            p = pack(x, y)
            if p not in st.stacks:
                setup.refuse(f"no tower foundation at ({x},{y})")
            if any(c not in _COLOURS for c in floors):
                setup.refuse(f"floors {list(floors)} at ({x},{y}): a floor is normal 0, black 1 or white 2")
            if not coloured and any(c != FloorColour.NORMAL for c in floors):
                setup.refuse("black and white floors need the 'black_tower' expansion (R51)")
            if FloorColour.WHITE in floors[:-1] or floors[:1] == (FloorColour.WHITE,):
                setup.refuse("a white floor caps a tower: never on a foundation, nothing above (R54, R56)")
            st.stacks[p] = floors
        for x, y, player in self._tops:
            p = pack(x, y)
            if not st.stacks.get(p) or st.stacks[p][-1] == FloorColour.WHITE:
                setup.refuse(f"no open tower at ({x},{y}) to stand on (R37)")
            st.tops[p] = player
            setup.take_follower(player, reason=f"tower top at ({x},{y})")
        n = config.players
        for captor, owner, count in self._prisoners:
            if captor == owner:
                setup.refuse("a player never holds their own followers (R43)")
            st.prisoners[captor * n + owner] += count
            for _ in range(count):
                setup.take_follower(owner, reason=f"prisoner held by {captor}")
            if st.prisoners[captor * n + owner] and st.prisoners[owner * n + captor]:
                setup.refuse(f"players {captor} and {owner} hold each other's followers (R47)")
        for player, supply in self._floors.items():
            if not coloured and (supply[1] or supply[2]):
                setup.refuse("black and white floors need the 'black_tower' expansion (R51)")
            st.floors[3 * player:3 * player + 3] = list(supply)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class TowerExpansion(Expansion):
    name = "tower"
    tile_set = "tower"
    builder_steps = TowerBuilderSteps
    action_kinds = frozenset(
        {ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.CAPTURE, ActionKind.NO_CAPTURE, ActionKind.RANSOM}
    )
    decision_kinds = frozenset({ActionKind.CAPTURE, ActionKind.NO_CAPTURE})
    #: a tower top holds a follower off the segments and NO_CAPTURE changes nothing: the end-now
    #: scores stand (a meeple watchtower, a ``before_scoring`` hook, may count a tower top)
    neutral_endings = frozenset({ActionKind.TOWER_TOP, ActionKind.NO_CAPTURE})

    def __init__(self, config: GameConfig, catalogue: TileCatalogue) -> None:
        super().__init__(config, catalogue)
        self.capture_rules = CaptureRules.from_config(config)
        self.floors_dealt = (TOWER_FLOORS[config.players], 0, 0)  # R32; black_tower deals its own (R51)
        self.ransom_allowed = not config.no_ransom
        self.tops_capturable = not config.tower_top_followers_immune
        self.own_capturable = not config.capture_opponents_only

    def new_state(self, states: Mapping[str, ExpansionState]) -> TowerState:
        n = self.config.players
        return TowerState(players=n, floors=list(self.floors_dealt) * n, prisoners=[0] * (n * n))

    def state_from_dict(self, data: dict[str, Any]) -> TowerState:
        return TowerState.from_dict(self.config.players, data)

    def on_tile_placed(self, game: ExpansionHost, pos: int, tile: TileType) -> None:
        if tile.tower_foundation:
            state(game).stacks[pos] = ()
            if pos not in _TOP_ACTIONS:
                x, y = unpack(pos)
                acts = [Action(ActionKind.FLOOR, x, y, c) for c in _COLOURS]
                _FLOOR_ACTIONS[pos] = tuple(tuple(a for a in acts if mask >> a.arg & 1) for mask in range(8))
                _TOP_ACTIONS[pos] = Action(ActionKind.TOWER_TOP, x, y, 0)

    def board_figures(self, game: ExpansionHost) -> Iterable[tuple[int, int]]:
        return state(game).tops.items()

    # ------------------------------------------------------------------ text view
    @staticmethod
    def text_mark(tile: TileType) -> str | None:
        return "T" if tile.tower_foundation else None

    def text_lines(self, game: ExpansionHost) -> list[str]:
        """Each tower (height, colour, top follower), the floor supplies, the prisoners held."""
        st = state(game)
        out = []
        for x, y in st.foundations():
            h = st.height(x, y)
            colour = st.colour(x, y)
            desc = f"h={h}" + ("" if colour is None else f" {colour.name.lower()}")
            top = st.top(x, y)
            if top is not None:
                desc += f" top=P{top}"
            out.append(f"tower ({x},{y}) {desc}")
        n = game.num_players
        out.append("floors " + " ".join(f"P{p}={st.floor_supply(p)}" for p in range(n)))
        held = [f"P{c}<-P{o}:{st.prisoner_count(c, o)}" for c in range(n) for o in range(n) if st.prisoner_count(c, o)]
        out.append("prisoners " + (" ".join(held) if held else "none"))
        return out

    # ------------------------------------------------------------------ T3 options
    def add_action_options(self, game: ExpansionHost, out: list[Action]) -> None:
        st = state(game)
        player = game.current_player
        n = st.players
        prisoners = st.prisoners
        if self.ransom_allowed:
            for c in range(n):
                if prisoners[c * n + player]:  # someone holds one of the player's followers (R48)
                    if st.ransom_turn != game.turn and game.score_of(player) >= RANSOM_PRICE:
                        out.extend(Action(ActionKind.RANSOM, 0, 0, c) for c in range(n) if prisoners[c * n + player])
                    break
        # Typed Any, the packed positions stay the stack dict's own key objects: compiled, a local
        # typed int is unboxed, and boxed again (a new heap object) at every lookup by position.
        stacks: dict[Any, tuple[int, ...]] = st.stacks
        if not stacks:
            return
        tops: dict[Any, int] = st.tops
        floors = st.floors
        f = 3 * player
        on_tower = (floors[f] > 0) | (floors[f + 1] > 0) << 1 | (floors[f + 2] > 0) << 2
        on_bare = on_tower & 3  # R54: white only onto a tower, never onto a bare foundation
        top_ok = -1  # whether the player has a follower for a tower top: asked at the first open tower
        floor_actions: dict[Any, tuple[tuple[Action, ...], ...]] = _FLOOR_ACTIONS
        tower_tops: list[Action] = []
        for p, stack in stacks.items():
            if stack:
                if stack[-1] == _WHITE or p in tops:
                    continue
                acts = floor_actions[p][on_tower]
                if top_ok < 0:
                    top_ok = 1 if game.supply_of(player) > 0 else 0
                if top_ok:
                    tower_tops.append(_TOP_ACTIONS[p])
            else:
                acts = floor_actions[p][on_bare]
            if acts:
                out.extend(acts)
        if tower_tops:
            out.extend(tower_tops)

    # ------------------------------------------------------------------ apply
    def apply(self, game: ExpansionHost, action: Action) -> bool:
        kind = action.kind
        if game.phase is Phase.CAPTURE:
            self._capture(game, action)
            return True
        if kind == ActionKind.RANSOM:
            self._ransom(game, action)
            return False
        if kind == ActionKind.FLOOR:
            return self._floor(game, action)
        if kind == ActionKind.TOWER_TOP:
            self._tower_top(game, action)
            return True
        raise IllegalActionError(f"{action}: there is no capture decision now (T4 follows a FLOOR)")

    def _ransom(self, game: ExpansionHost, action: Action) -> None:
        """R48: −3 for the payer, +3 for the captor, one follower back to the payer's supply."""
        st = state(game)
        payer = game.current_player
        captor = action.arg
        n = st.players
        if not action.unused_fields_are_zero():
            raise IllegalActionError(f"{action}: RANSOM takes only the captor's seat")
        if not self.ransom_allowed:
            raise IllegalActionError(f"{action}: ransom is off in this game (no_ransom)")
        if st.ransom_turn == game.turn:
            raise IllegalActionError(f"{action}: only one ransom per turn (R48)")
        if not (0 <= captor < n and captor != payer and st.prisoners[captor * n + payer]):
            raise IllegalActionError(f"{action}: player {captor} holds no follower of player {payer}")
        if game.score_of(payer) < RANSOM_PRICE:
            raise IllegalActionError(f"{action}: ransom needs a score of at least {RANSOM_PRICE} (R48)")
        game.add_score(payer, -RANSOM_PRICE, "ransom")
        game.add_score(captor, RANSOM_PRICE, "ransom")
        st.prisoners[captor * n + payer] -= 1
        game.return_follower(payer)
        st.ransom_turn = game.turn

    def _open_tower(self, st: TowerState, action: Action) -> int:
        p = check_coords(action.x, action.y)
        stack = st.stacks.get(p)
        if stack is None:
            raise IllegalActionError(f"{action}: no tower foundation at ({action.x},{action.y})")
        if p in st.tops:
            raise IllegalActionError(f"{action}: the tower is closed by a follower on top (R38)")
        if stack and stack[-1] == _WHITE:
            raise IllegalActionError(f"{action}: a white floor capped this tower for good (R56)")
        return p

    def _floor(self, game: ExpansionHost, action: Action) -> bool:
        st = state(game)
        p = self._open_tower(st, action)
        colour = action.arg
        player = game.current_player
        if colour not in _COLOURS:
            raise IllegalActionError(f"{action}: floor colour must be 0 (normal), 1 (black) or 2 (white)")
        if not st.floors[3 * player + colour]:
            raise IllegalActionError(f"{action}: player {player} has no {FloorColour(colour).name.lower()} floor (R36)")
        stack = st.stacks[p] + (colour,)
        if colour == _WHITE and len(stack) == 1:
            raise IllegalActionError(f"{action}: a white floor goes only onto a tower, not a bare foundation (R54)")
        st.stacks[p] = stack
        st.floors[3 * player + colour] -= 1
        if colour == _WHITE:
            return True
        targets = self.capture_targets(game, st, p, len(stack), colour)
        if not targets:
            return True
        targets.append(NO_CAPTURE)
        st.pending = targets
        game.open_decision(self)
        return False

    def capture_targets(
        self, game: ExpansionHost, st: TowerState, p: int, height: int, colour: int
    ) -> list[Action]:
        """CAPTURE actions for every follower the current player may capture with a tower of
        ``height`` and ``colour`` at packed position ``p`` (R40–R42, R55)."""
        # Typed Any, segment ids, placement indexes and packed positions stay the objects the views
        # hold: compiled, a local typed int is unboxed, and boxed again at every lookup.
        followers: Mapping[Any, int] = game.segment_followers()
        tops: dict[Any, int] = st.tops
        if not followers and not tops:
            return []
        area = set(capture_area_packed(p, height, colour, self.capture_rules, game.board_index))
        player = game.current_player
        own_ok = self.own_capturable
        out: list[Action] = []
        tile_pos: Sequence[Any] = game.tile_positions
        segment_tile: Sequence[Any] = game.segment_tiles
        for segment, owner in followers.items():
            i = segment_tile[segment]
            q = tile_pos[i]
            if q in area and (own_ok or owner != player):
                x, y = unpack(q)
                out.append(Action(ActionKind.CAPTURE, x, y, segment - game.segment_base(i)))
        if self.tops_capturable:
            for q, owner in tops.items():
                if q in area and (own_ok or owner != player):
                    x, y = unpack(q)
                    out.append(Action(ActionKind.CAPTURE, x, y, TOWER_TOP_SLOT))
        return out

    def decision_actions(self, game: ExpansionHost) -> list[Action]:
        return list(state(game).pending)

    def _capture(self, game: ExpansionHost, action: Action) -> None:
        """R43 and R47: the follower leaves; own → supply, other → prisoner, then exchange."""
        st = state(game)
        if action not in st.pending:
            raise IllegalActionError(f"{action}: not a capture target of this tower (R40–R42)")
        st.pending = []
        if action.kind == ActionKind.NO_CAPTURE:
            return
        # Targets were built from the board, so the position and slot exist.
        p = pack(action.x, action.y)
        if action.arg == TOWER_TOP_SLOT:
            owner = st.tops.pop(p)
        else:
            owner = game.remove_follower(game.segment_base(game.board_index[p]) + action.arg)
        captor = game.current_player
        if owner == captor:
            game.return_follower(captor)
            return
        n = st.players
        prisoners = st.prisoners
        if prisoners[owner * n + captor]:
            prisoners[owner * n + captor] -= 1
            game.return_follower(captor)
            game.return_follower(owner)
        else:
            prisoners[captor * n + owner] += 1

    def _tower_top(self, game: ExpansionHost, action: Action) -> None:
        st = state(game)
        if not action.unused_fields_are_zero():
            raise IllegalActionError(f"{action}: TOWER_TOP takes no argument")
        p = self._open_tower(st, action)
        if not st.stacks[p]:
            raise IllegalActionError(f"{action}: no follower may stand on a bare foundation (R37)")
        player = game.current_player
        if not game.supply_of(player):
            raise IllegalActionError(f"{action}: player {player} has no follower in supply (R36)")
        st.tops[p] = player
        game.take_follower(player)


    # ------------------------------------------------------------------ saved games
    def parse_state(self, data: Any, at: str) -> TowerState:
        """Structure and types of ``expansions.tower``: positions on the board's range (C1),
        colours 0–2, owners and captors seats, counts ≥ 0, ``ransom_turn`` ≥ −1."""
        n = self.config.players
        data = read_keys(data, at, STATE_KEYS)
        stacks = by_position(data["stacks"], at + "stacks", "two stacks",
                             lambda floors, name: tuple(read_int(c, f"{name} floor {j}", 0, 2)
                                                        for j, c in enumerate(read_seq(floors, name))))
        tops = by_position(data["tops"], at + "tops", "two followers on top of the tower",
                           lambda owner, name: read_int(owner, name + " owner", 0, n - 1))
        return TowerState(
            players=n,
            stacks=stacks,
            tops=tops,
            floors=read_ints(data["floors"], at + "floors", 3 * n, 0),
            prisoners=read_ints(data["prisoners"], at + "prisoners", n * n, 0),
            ransom_turn=read_int(data["ransom_turn"], at + "ransom_turn", -1),
            pending=[read_action(a, f"{at}pending[{i}]")
                     for i, a in enumerate(read_seq(data["pending"], at + "pending"))],
        )

    def held_followers(self, state: TowerState) -> list[int]:
        """R46: each player's followers on tower tops and held as prisoners by others."""
        n = state.players
        held = [0] * n
        for owner in state.tops.values():
            held[owner] += 1
        prisoners = state.prisoners
        for k in range(n * n):
            held[k % n] += prisoners[k]
        return held

    def check_position(self, position: SavedPosition, state: TowerState) -> None:
        """Stacks, tops, floors and prisoners that hold in every position (R33, R37, R46, R47, R54,
        R56); ``pending`` holds T4's targets then NO_CAPTURE in CAPTURE and nothing otherwise (R39)."""
        at = f"{position.at}expansions.{self.name}."
        n = self.config.players
        coloured = self.config.has("black_tower")
        foundations = {p for t, p, _ in position.tiles if t.tower_foundation}
        for i, (p, stack) in enumerate(state.stacks.items()):
            if p not in foundations:
                fail(f"{at}stacks[{i}]", "a stack on a square without a tower foundation")
            if not coloured and any(stack):
                fail(f"{at}stacks[{i}]", "black and white floors need the 'black_tower' expansion (R51)")
            if _WHITE in stack[:-1] or stack[:1] == (_WHITE,):
                fail(f"{at}stacks[{i}]", "a white floor caps a tower: never on a bare foundation, nothing above (R54)")
        if len(state.stacks) != len(foundations):
            fail(at + "stacks", f"{len(foundations)} tower foundations on the board but {len(state.stacks)} stacks")
        for i, p in enumerate(state.tops):
            under = state.stacks.get(p)
            if not under or under[-1] == _WHITE:
                fail(f"{at}tops[{i}]", "a follower on top needs a tower of height ≥ 1 that is not white (R37, R56)")
        if not coloured and any(state.floors[3 * p + c] for p in range(n) for c in (1, 2)):
            fail(at + "floors", "black and white floors need the 'black_tower' expansion (R51)")
        for a in range(n):
            if state.prisoners[a * n + a]:
                fail(f"{at}prisoners[{a * n + a}]", f"player {a} holds their own followers (R43, R46)")
            for b in range(a + 1, n):
                if state.prisoners[a * n + b] and state.prisoners[b * n + a]:
                    fail(f"{at}prisoners[{a * n + b}]", f"players {a} and {b} hold each other's followers (R47)")
        pending = state.pending
        if position.phase is Phase.CAPTURE:
            if len(pending) < 2 or pending[-1] != NO_CAPTURE or any(a.kind != ActionKind.CAPTURE for a in pending[:-1]):
                fail(at + "pending", "CAPTURE needs the capture targets followed by NO_CAPTURE (R39)")
        elif pending:
            fail(at + "pending", f"capture targets outside the CAPTURE phase (phase {position.phase.name})")

    def turn_role(self, action: Action, seat: int, field: str) -> TurnRole:
        """RANSOM comes before the choice (R48); a normal or black FLOOR may open T4 (R39), a white
        one never does (R56)."""
        kind = action.kind
        if kind == ActionKind.RANSOM:
            if not self.ransom_allowed or not 0 <= action.arg < self.config.players or action.arg == seat:
                fail(field, f"{action}: not a ransom player {seat} may pay here (R48)")
            return TurnRole.PRELUDE
        if kind == ActionKind.FLOOR:
            if action.arg not in _COLOURS or (action.arg and not self.config.has("black_tower")):
                fail(field, f"{action}: not a floor colour of this game (R51)")
            read_coords(action.x, action.y, field)
            return TurnRole.CHOICE if action.arg == _WHITE else TurnRole.OPENING
        if kind == ActionKind.TOWER_TOP:
            read_coords(action.x, action.y, field)
        return super().turn_role(action, seat, field)

    def check_history(
        self, position: SavedPosition, state: TowerState, origin: TowerState, actions: Sequence[HistoryAction]
    ) -> None:
        """Tops, stacks, floor supplies and ``ransom_turn`` are the origin's plus what the history did
        (R32, R35, R48, R51, R52)."""
        at = f"{position.at}expansions.{self.name}."
        n = self.config.players
        tops: set[tuple[int, int]] = set()
        floors: dict[int, list[int]] = {}
        used = [0] * (3 * n)
        ransom_turn = origin.ransom_turn
        floor, top, ransom = ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.RANSOM
        for _, (kind, x, y, arg), seat, turn in actions:
            if kind is floor:
                floors.setdefault(pack(x, y), []).append(arg)
                used[3 * seat + arg] += 1
            elif kind is top:
                tops.add((pack(x, y), seat))
            elif kind is ransom:
                ransom_turn = turn
        for i, (p, owner) in enumerate(state.tops.items()):
            if origin.tops.get(p) != owner and (p, owner) not in tops:
                fail(f"{at}tops[{i}]", f"no TOWER_TOP of player {owner} put a follower on this tower (R35)")
        for i, (p, stack) in enumerate(state.stacks.items()):
            if stack != origin.stacks.get(p, ()) + tuple(floors.get(p, ())):
                fail(f"{at}stacks[{i}]", f"floors {list(stack)} are not the FLOORs the history placed here")
        if floors.keys() - state.stacks.keys():
            fail(at + "stacks", "a FLOOR of the history went onto a square that has no stack")
        dealt = origin.floors
        for k, left in enumerate(state.floors):
            if left != dealt[k] - used[k]:
                fail(f"{at}floors[{k}]", f"player {k // 3} holds {left} {FloorColour(k % 3).name.lower()} floors, "
                     f"but was dealt {dealt[k]} and placed {used[k]} (R32, R51, R52)")
        if state.ransom_turn != ransom_turn:
            fail(at + "ransom_turn", f"{state.ransom_turn}, but the last RANSOM was in turn {ransom_turn}")

    def check_loaded(self, game: ExpansionHost) -> None:
        """In CAPTURE the targets are exactly the followers the last FLOOR reaches (R39–R42, R55)."""
        if game.phase is not Phase.CAPTURE:
            return
        st = state(game)
        floor = game.last_action
        assert floor is not None and floor.kind == ActionKind.FLOOR  # the history walk saw to it
        p = pack(floor.x, floor.y)
        targets = self.capture_targets(game, st, p, len(st.stacks[p]), floor.arg)
        if not targets:
            fail("phase", f"CAPTURE after {floor}, which reaches no follower (T4 is skipped then)")
        if set(st.pending) != {*targets, NO_CAPTURE}:
            fail(f"expansions.{self.name}.pending", f"{[str(a) for a in st.pending]} are not the followers "
                 f"{floor} reaches: {[str(a) for a in targets]} (R40–R42, R55)")


def state(game: ExpansionHost) -> TowerState:
    """The tower state of ``game``."""
    st: TowerState = game.expansion_state("tower")
    return st
