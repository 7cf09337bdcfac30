"""Followers on segments: T3's DEPLOY options and the DEPLOY itself (R14, R15, R2), and a follower
taken off its segment.

``_followers`` maps a segment's union-find node to its follower's owner; ``_occupants[root]`` counts
the followers on the feature rooted there (invariant: the followers whose segment's root is
``root``); ``_supply`` counts each player's followers in hand. Followers an expansion keeps
elsewhere are in its state, not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import Action, IllegalActionError
from .frontier import deploy_actions
from .geometry import unpack
from .union_find import find

if TYPE_CHECKING:
    from .game import Game

__all__ = ["deploy", "deploy_options", "lift"]


def deploy_options(game: Game, out: list[Action]) -> None:
    """Append to ``out`` the DEPLOY actions of the current player: one per segment of the tile just
    placed whose feature holds no follower (R14, R15), none with an empty supply (R2)."""
    if game._supply[game._current]:
        acts = deploy_actions(game._tile_pos[-1])
        base = game._tile_base[-1]
        occupants = game._occupants
        parent = game._parent
        log = game._parent_log
        for s in range(game._tile_type[-1].segment_count):
            if not occupants[find(parent, base + s, log)]:
                out.append(acts[s])


def deploy(game: Game, action: Action) -> None:
    """Put a follower of the current player on the segment ``action`` names, or raise
    :class:`IllegalActionError` saying which rule it breaks (R14, R2, R15), changing nothing."""
    _, x, y, slot = action
    p = game._tile_pos[-1]
    tile = game._tile
    assert tile is not None
    if (x, y) != unpack(p):
        raise IllegalActionError(f"{action}: followers go on the tile just placed at {unpack(p)} (R14)")
    if not 0 <= slot < tile.segment_count:
        raise IllegalActionError(f"{action}: {tile.id} has segments 0..{tile.segment_count - 1}")
    player = game._current
    if game._supply[player] == 0:
        raise IllegalActionError(f"{action}: player {player} has no follower in supply")
    node = game._tile_base[-1] + slot
    root = find(game._parent, node, game._parent_log)
    if game._occupants[root]:
        raise IllegalActionError(f"{action}: that feature already holds a follower (R15)")
    game._followers[node] = player
    game._occupants[root] += 1
    game._supply[player] -= 1


def lift(game: Game, segment: int) -> int:
    """Take the follower off segment id ``segment`` and return its owner; it goes nowhere (the caller
    puts it into a supply or keeps it)."""
    owner = game._followers.pop(segment)
    game._occupants[find(game._parent, segment, game._parent_log)] -= 1
    game._final_memo = None
    return owner
