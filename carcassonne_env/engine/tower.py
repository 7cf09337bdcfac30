"""The Tower (RULES.md §2), with the Black Tower colours (§3): floors, tower tops, capture,
prisoners, automatic exchange and ransom.

Phase-2 options added between the DEPLOY options and PASS (R35, R48, R54), in this order:

* ``RANSOM(c)`` — once per turn, before the choice, when P[c][p] ≥ 1 and p's score ≥ 3;
* ``FLOOR(x, y, colour)`` — normal/black on a bare foundation or an open normal/black tower,
  white only on an open normal/black tower;
* ``TOWER_TOP(x, y)`` — a follower onto an open tower (h ≥ 1), which closes it.

After a normal or black floor with at least one target the player decides T4:
``CAPTURE(x, y, slot)`` or ``NO_CAPTURE`` (R39–R44), followed by the automatic exchange (R47).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .actions import NO_CAPTURE, TOWER_TOP_SLOT, Action, ActionKind, FloorColour, IllegalActionError, Phase
from .capture_area import CaptureRules, capture_area_packed
from .expansion import Expansion, ExpansionHost
from .geometry import check_coords, pack, unpack
from .tiles import TileCatalogue, TileType

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["RANSOM_PRICE", "TOWER_FLOORS", "TowerExpansion", "TowerState", "state"]

#: R32: normal floors per player by player count.
TOWER_FLOORS: dict[int, int] = {2: 10, 3: 9, 4: 7, 5: 6, 6: 5}

#: Points a ransom costs the payer and earns the captor (R48).
RANSOM_PRICE = 3
_NORMAL = FloorColour.NORMAL
_BLACK = FloorColour.BLACK
_WHITE = FloorColour.WHITE
_COLOURS = (_NORMAL, _BLACK, _WHITE)
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


class TowerExpansion(Expansion):
    name = "tower"
    tile_set = "tower"
    action_kinds = frozenset(
        {ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.CAPTURE, ActionKind.NO_CAPTURE, ActionKind.RANSOM}
    )

    def __init__(self, config: GameConfig, catalogue: TileCatalogue) -> None:
        super().__init__(config, catalogue)
        self.capture_rules = CaptureRules.from_config(config)
        self.floors_dealt = (TOWER_FLOORS[config.players], 0, 0)  # R32; black_tower deals its own (R51)
        self.ransom_allowed = not config.no_ransom
        self.tops_capturable = not config.tower_top_followers_immune
        self.own_capturable = not config.capture_opponents_only

    def new_state(self, game: ExpansionHost) -> TowerState:
        n = game.num_players
        return TowerState(players=n, floors=list(self.floors_dealt) * n, prisoners=[0] * (n * n))

    def state_from_dict(self, data: dict[str, Any]) -> TowerState:
        return TowerState.from_dict(self.config.players, data)

    def on_tile_placed(self, game: ExpansionHost, pos: int, tile: TileType) -> None:
        if tile.tower_foundation:
            state(game).stacks[pos] = ()
            if pos not in _TOP_ACTIONS:
                x, y = unpack(pos)
                acts = [Action(ActionKind.FLOOR, x, y, int(c)) for c in _COLOURS]
                _FLOOR_ACTIONS[pos] = tuple(tuple(a for a in acts if mask >> a.arg & 1) for mask in range(8))
                _TOP_ACTIONS[pos] = Action(ActionKind.TOWER_TOP, x, y, 0)

    def board_figures(self, game: ExpansionHost) -> Iterable[tuple[int, int]]:
        return state(game).tops.items()

    # ------------------------------------------------------------------ T3 options
    def add_action_options(self, game: ExpansionHost, out: list[Action]) -> None:
        st = state(game)
        player = game.current_player
        n = st.players
        if self.ransom_allowed and st.ransom_turn != game.turn and game.score_of(player) >= RANSOM_PRICE:
            prisoners = st.prisoners
            out.extend(Action(ActionKind.RANSOM, 0, 0, c) for c in range(n) if prisoners[c * n + player])
        stacks = st.stacks
        if not stacks:
            return
        tops = st.tops
        floors = st.floors
        f = 3 * player
        on_tower = (floors[f] > 0) | (floors[f + 1] > 0) << 1 | (floors[f + 2] > 0) << 2
        on_bare = on_tower & 3  # R54: white only onto a tower, never onto a bare foundation
        top_ok = game.supply_of(player) > 0
        floor_actions = _FLOOR_ACTIONS
        tower_tops = []
        for p, stack in stacks.items():
            if stack:
                if stack[-1] == _WHITE or p in tops:
                    continue
                out.extend(floor_actions[p][on_tower])
                if top_ok:
                    tower_tops.append(_TOP_ACTIONS[p])
            else:
                out.extend(floor_actions[p][on_bare])
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
        followers = game.segment_followers()
        if not followers and not st.tops:
            return []
        area = set(capture_area_packed(p, height, colour, self.capture_rules, game.board_index))
        player = game.current_player
        own_ok = self.own_capturable
        out: list[Action] = []
        tile_pos = game.tile_positions
        segment_tile = game.segment_tiles
        segment_base = game.segment_base
        for segment, owner in followers.items():
            i = segment_tile[segment]
            q = tile_pos[i]
            if q in area and (own_ok or owner != player):
                x, y = unpack(q)
                out.append(Action(ActionKind.CAPTURE, x, y, segment - segment_base(i)))
        if self.tops_capturable:
            for q, owner in st.tops.items():
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


def state(game: ExpansionHost) -> TowerState:
    """The tower state of ``game``."""
    st: TowerState = game.expansion_state("tower")
    return st
