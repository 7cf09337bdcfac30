"""Random playouts, and the invariants checked after every action of them by independent recounts.

The feature recount walks the board from the tile data alone (a flood fill over segments through
matching ports), never through the engine's union-find, and compares every component with the
totals the engine keeps at its root; :class:`Labels` is the tests' own union-find for such recounts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from carcassonne_env.engine import FOLLOWERS_PER_PLAYER, Game, GameConfig, Phase, SegmentKind
from carcassonne_env.engine.geometry import DELTAS
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements

_EDGE_KINDS = (SegmentKind.CITY, SegmentKind.ROAD)
#: The player counts and the rule sets (by name) every playout test covers, each with each.
PLAYER_COUNTS = (2, 3, 4, 5, 6)
COMBINATIONS = {
    "base": (),
    "tower": ("tower",),
    "tower+black_tower": with_requirements("black_tower"),
    "watchtowers": ("watchtowers",),
    "all": TOWER_VARIANT,
}


def random_game(seed: int, players: int = 2, stop_after: int | None = None,
                expansions: tuple[str, ...] = TOWER_VARIANT) -> Game:
    """A game of uniformly random legal actions (``random.Random(seed)``, pile seed ``seed``), played to
    its end or until ``stop_after`` actions are in its history."""
    rng = random.Random(seed)
    game = Game(GameConfig(players=players, expansions=expansions), seed=seed)
    while not game.is_over and (stop_after is None or len(game.history) < stop_after):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


class Labels:
    """A union-find over ``0 .. size - 1`` with path halving: :meth:`find` names the set of ``n`` by
    one member of it, the same for every member, until :meth:`link` joins two sets."""

    def __init__(self, size: int) -> None:
        self._label = list(range(size))

    def find(self, n: int) -> int:
        label = self._label
        while label[n] != n:
            label[n] = label[label[n]]
            n = label[n]
        return n

    def link(self, a: int, b: int) -> None:
        self._label[self.find(a)] = self.find(b)


@dataclass
class PlayoutTracker:
    """Carries what an invariant needs from one step to the next (scores before the action)."""

    total_tiles: int
    floors_dealt: int = 0
    last_scores: tuple[int, ...] = field(default_factory=tuple)


def start(game: Game) -> PlayoutTracker:
    catalogue = game.catalogue
    total = sum(t.count for s in game.config.tile_sets or () for t in catalogue.sets[s])
    tracker = PlayoutTracker(total_tiles=total)
    if "tower" in game.config.expansions:
        st = game.expansion_state("tower")
        tracker.floors_dealt = sum(st.floors)
    tracker.last_scores = game.scores
    return tracker


def recount_features(game: Game) -> None:
    """Re-derive every feature from tile data alone and compare it with the engine's root totals.

    A local union-find links the ports of every pair of touching tiles (N and E neighbours, so
    each contact is seen once); it shares no code with the engine's.
    """
    board = game._board
    node_count = len(game._parent)
    labels = Labels(node_count)
    find, link = labels.find, labels.link
    types, rots, bases = game._tile_type, game._tile_rot, game._tile_base
    for i, p in enumerate(game._tile_pos):
        mine = types[i].ports[rots[i]]
        for d in (0, 1):
            j = board.get(p + DELTAS[d])
            if j is None:
                continue
            theirs = types[j].ports[rots[j]][d + 2]
            if mine[d][0] >= 0:
                link(bases[i] + mine[d][0], bases[j] + theirs[0])
            if mine[d][1] >= 0:
                link(bases[i] + mine[d][1], bases[j] + theirs[2])
                link(bases[i] + mine[d][2], bases[j] + theirs[1])
    components: dict[int, list[int]] = {}
    for n in range(node_count):
        components.setdefault(find(n), []).append(n)
    followers = game._followers
    engine_roots: set[int] = set()
    for component in components.values():
        root = game._find(component[0])
        assert all(game._find(n) == root for n in component), "a feature is split across roots"
        assert root not in engine_roots, "two features share one root"
        engine_roots.add(root)
        assert game._occupants[root] == sum(1 for n in component if n in followers), "occupants differ"
        if game._kind[root] not in _EDGE_KINDS:
            continue
        tiles = set()
        open_edges = pennants = 0
        for n in component:
            i = game._node_tile[n]
            slot = n - bases[i]
            tiles.add(i)
            pennants += types[i].segment_pennants[slot]
            p = game._tile_pos[i]
            open_edges += sum(1 for e in types[i].segment_edges[rots[i]][slot] if p + DELTAS[e] not in board)
        assert game._open[root] == open_edges, f"open edges {game._open[root]} != {open_edges}"
        assert game._tiles[root].bit_count() == len(tiles), "size differs from the distinct tiles (R7)"
        assert game._pennants[root] == pennants, "pennants differ"


def check(game: Game, tracker: PlayoutTracker, last_action_kind: str | None) -> None:
    """All invariants of the playouts (R2, R13, R24, R46, R47, tower floors), after one action."""
    n = game.num_players
    in_hand = 1 if game.phase is Phase.PLACE else 0
    assert game.tiles_placed + len(game.discarded) + game.tiles_left + in_hand == tracker.total_tiles
    on_segments = [0] * n
    for f in game.followers():
        on_segments[f.owner] += 1
    on_tops = [0] * n
    for _, _, owner in game.board_figures():
        on_tops[owner] += 1
    held = [0] * n
    if "tower" in game.config.expansions:
        st = game.expansion_state("tower")
        for c in range(n):
            for o in range(n):
                if c != o:
                    held[o] += st.prisoner_count(c, o)
                    assert not (st.prisoner_count(c, o) and st.prisoner_count(o, c)), "R47 violated"
                else:
                    assert st.prisoner_count(c, c) == 0
        floors_on_board = sum(len(s) for s in st.stacks.values())
        assert sum(st.floors) + floors_on_board == tracker.floors_dealt, "floors lost or created"
        assert min(st.floors) >= 0
    for p in range(n):
        total = game.supply[p] + on_segments[p] + on_tops[p] + held[p]
        assert total == FOLLOWERS_PER_PLAYER, f"player {p}: {total} followers (R46)"
        assert game.supply[p] >= 0
    scores = game.scores
    assert min(scores) >= 0
    for p in range(n):
        if scores[p] < tracker.last_scores[p]:
            assert last_action_kind == "RANSOM" and tracker.last_scores[p] - scores[p] == 3, "score decreased"
    tracker.last_scores = scores
    if not game.is_over:
        assert len(game.legal_actions()) > 0
        assert game.phase in (Phase.PLACE, Phase.ACTION, Phase.CAPTURE)
    recount_features(game)
