"""Build a game position directly: the way tests and analyses set up a rulebook example.

RULES.md §8: "A test may build the position directly with any tiles that carry those facts; it
need not grow the board from the start tile." A built board may have holes and need not contain
the start tile, but touching edges must still match (R11), so features stay well-formed.

>>> from carcassonne_env.engine import GameConfig
>>> b = PositionBuilder(GameConfig(players=2))
>>> b = b.tile("base/C", 0, 0).follower(1, 0, 0, slot=0)
>>> game = b.build(pile=["base/C"])
>>> game.supply, game.phase.name
((7, 6), 'PLACE')

Followers, tower tops and prisoners come out of their owner's supply. Nothing scores while
building; the first tile of ``pile`` is drawn for ``current_player`` as in T1 (an empty pile ends
the game at once, which runs the final scoring).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .actions import FloorColour
from .config import GameConfig
from .game import Game, GameSetup, PositionError
from .geometry import pack
from .tower import TowerState

__all__ = ["PositionBuilder", "PositionError"]


@dataclass
class PositionBuilder:
    config: GameConfig = field(default_factory=GameConfig)
    _tiles: list[tuple[str, int, int, int]] = field(default_factory=list)
    _followers: list[tuple[int, int, int, int]] = field(default_factory=list)
    _towers: list[tuple[int, int, tuple[FloorColour, ...]]] = field(default_factory=list)
    _tops: list[tuple[int, int, int]] = field(default_factory=list)
    _prisoners: list[tuple[int, int, int]] = field(default_factory=list)
    _scores: dict[int, int] = field(default_factory=dict)
    _floors: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    def tile(self, tile_id: str, x: int, y: int, rotation: int = 0) -> PositionBuilder:
        """Put a tile at (x, y); its edges must match the tiles already next to it."""
        self._tiles.append((tile_id, x, y, rotation))
        return self

    def follower(self, player: int, x: int, y: int, slot: int) -> PositionBuilder:
        """A follower of ``player`` on segment ``slot`` of the tile at (x, y)."""
        self._followers.append((x, y, slot, player))
        return self

    def tower(self, x: int, y: int, floors: Sequence[FloorColour]) -> PositionBuilder:
        """Floors (bottom first) on the foundation at (x, y); needs the ``tower`` expansion."""
        self._towers.append((x, y, tuple(floors)))
        return self

    def tower_top(self, player: int, x: int, y: int) -> PositionBuilder:
        """A follower of ``player`` on top of the tower at (x, y)."""
        self._tops.append((x, y, player))
        return self

    def prisoners(self, captor: int, owner: int, count: int = 1) -> PositionBuilder:
        """``captor`` holds ``count`` followers of ``owner`` (P[captor][owner])."""
        self._prisoners.append((captor, owner, count))
        return self

    def score(self, player: int, points: int) -> PositionBuilder:
        self._scores[player] = points
        return self

    def floors(self, player: int, normal: int, black: int = 0, white: int = 0) -> PositionBuilder:
        """Set a player's floor supply (by default everyone holds the full deal of R32/R51)."""
        self._floors[player] = (normal, black, white)
        return self

    def build(self, pile: Sequence[str] = (), current_player: int = 0) -> Game:
        """The position as a game (through :class:`~.game.GameSetup`): ``current_player`` has drawn
        the first tile of ``pile``."""
        config = self.config
        setup = GameSetup(config, pile)
        for tid, x, y, rot in self._tiles:
            setup.put_tile(tid, x, y, rot)
        for x, y, slot, player in self._followers:
            setup.put_follower(player, x, y, slot)
        if self._towers or self._tops or self._prisoners or self._floors:
            if not config.has("tower"):
                raise PositionError("towers, floors and prisoners need the 'tower' expansion")
            st: TowerState = setup.expansion_state("tower")
            coloured = config.has("black_tower")
            for x, y, floors in self._towers:
                p = pack(x, y)
                if p not in st.stacks:
                    raise PositionError(f"no tower foundation at ({x},{y})")
                if not coloured and any(c != FloorColour.NORMAL for c in floors):
                    raise PositionError("black and white floors need the 'black_tower' expansion (R51)")
                if FloorColour.WHITE in floors[:-1] or floors[:1] == (FloorColour.WHITE,):
                    raise PositionError("a white floor caps a tower: never on a foundation, nothing above (R54, R56)")
                st.stacks[p] = tuple(int(c) for c in floors)
            for x, y, player in self._tops:
                p = pack(x, y)
                if not st.stacks.get(p) or st.stacks[p][-1] == FloorColour.WHITE:
                    raise PositionError(f"no open tower at ({x},{y}) to stand on (R37)")
                st.tops[p] = player
                setup.take_follower(player, reason=f"tower top at ({x},{y})")
            n = config.players
            for captor, owner, count in self._prisoners:
                if captor == owner:
                    raise PositionError("a player never holds their own followers (R43)")
                st.prisoners[captor * n + owner] += count
                for _ in range(count):
                    setup.take_follower(owner, reason=f"prisoner held by {captor}")
                if st.prisoners[captor * n + owner] and st.prisoners[owner * n + captor]:
                    raise PositionError(f"players {captor} and {owner} hold each other's followers (R47)")
            for player, supply in self._floors.items():
                if not coloured and (supply[1] or supply[2]):
                    raise PositionError("black and white floors need the 'black_tower' expansion (R51)")
                st.floors[3 * player:3 * player + 3] = list(supply)
        for player, points in self._scores.items():
            setup.set_score(player, points)
        return setup.start(current_player)
