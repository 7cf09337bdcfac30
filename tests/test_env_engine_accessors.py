"""The engine's read-only accessors for encoders agree with its other public queries.

Feature membership is re-derived from tile data alone: the tests' own union-find over segment ids joins
segments that own touching edges, or touching half-edges paired as in docs/rules.md C2.
"""

from __future__ import annotations

import random

from playout_invariants import Labels

from carcassonne_env.engine import Game, GameConfig, PlacedTile
from carcassonne_env.engine.registry import with_requirements


def _components(tiles: list[PlacedTile], bases: list[int]) -> list[int]:
    """Component label of every segment id."""
    total = bases[-1] + tiles[-1].tile.segment_count
    labels = Labels(total)
    at = {(t.x, t.y): i for i, t in enumerate(tiles)}
    for i, t in enumerate(tiles):
        for edge, (dx, dy) in ((0, (0, 1)), (1, (1, 0))):
            j = at.get((t.x + dx, t.y + dy))
            if j is None:
                continue
            u = tiles[j]
            my_edges, my_halves = t.tile.segment_edges[t.rotation], t.tile.segment_half_edges[t.rotation]
            their_edges, their_halves = u.tile.segment_edges[u.rotation], u.tile.segment_half_edges[u.rotation]
            for a in range(t.tile.segment_count):
                for b in range(u.tile.segment_count):
                    edges = edge in my_edges[a] and (edge + 2) % 4 in their_edges[b]
                    halves = any(h // 2 == edge and ((h + 4) % 8) ^ 1 in their_halves[b] for h in my_halves[a])
                    if edges or halves:
                        labels.link(bases[i] + a, bases[j] + b)
    return [labels.find(n) for n in range(total)]


def test_accessors_agree_with_tiles_features_and_followers() -> None:
    game = Game(GameConfig(players=3, expansions=with_requirements("tower", "watchtowers")), seed=9)
    rng = random.Random(9)
    for step in range(400):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        if step % 25:
            continue
        tiles = game.tiles()
        assert [game.placed_tile(i) for i in range(game.tiles_placed)] == tiles
        bases = [game.segment_base(i) for i in range(len(tiles))]
        where = {}
        for i, t in enumerate(tiles):
            assert i == 0 or bases[i] == bases[i - 1] + tiles[i - 1].tile.segment_count
            for slot in range(t.tile.segment_count):
                where[bases[i] + slot] = (t.x, t.y, slot)
        for g, (x, y, slot) in where.items():
            f = game.feature(x, y, slot)
            assert game.feature_totals(g) == (f.open_edges, f.size, f.pennants)
        component = _components(tiles, bases)
        keys = [game.feature_key(g) for g in range(len(component))]
        pairs = {(component[g], keys[g]) for g in range(len(component))}
        assert len(pairs) == len(set(component)) == len(set(keys))  # the two partitions are equal
        followers = {(f.x, f.y, f.slot): f.owner for f in game.followers()}
        assert {where[g]: owner for g, owner in game.segment_followers().items()} == followers
