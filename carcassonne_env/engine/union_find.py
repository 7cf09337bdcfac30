"""The features' union-find (R6): one node per placed segment, plain lists indexed by node.

``parent[n]`` is the parent of node ``n``; a root is its own parent and keeps its feature's totals
in lists of the same length: ``open_`` (open edges, R8), ``tiles`` (a bitmask of placement indices,
so ``bit_count`` is the size of R7), ``pennants``, ``occupants`` (followers on it) and, for
fields, ``adj`` (a bitmask of bordering city nodes, R28). A road or city is complete when its
``open_`` reaches 0 (R19); nothing is ever flood-filled.

The functions here read and write those lists and nothing else: :mod:`.board` calls them as it lays
a tile (the lists are the game's), the undo journal replays their logs (:mod:`.undo`). While a
placement is undoable every write is logged first: ``parent_log`` holds ``(node, old parent)``
pairs and ``root_log`` ``(root, open, tiles, pennants, occupants, adj)`` rows of
:data:`ROOT_ROW` ints, oldest first; replaying them newest first puts every list back.
"""

from __future__ import annotations

from typing import Final

__all__ = ["ROOT_ROW", "find", "join_edges", "join_fields", "log_root", "restore_parents", "restore_roots"]

#: Ints per row of the root log: the root, then its open edges, tiles, pennants, occupants, adj.
ROOT_ROW: Final = 6


def find(parent: list[int], n: int, log: list[int] | None) -> int:
    """The root of node ``n``, halving the path on the way (a write only where it shortens it,
    appended to ``log`` as ``(node, old parent)`` when a placement is undoable)."""
    while True:
        p = parent[n]
        if p == n:
            return n
        gp = parent[p]
        if gp != p:
            if log is not None:
                log.append(n)
                log.append(p)
            parent[n] = gp
        n = gp


def log_root(
    root_log: list[int], parent_log: list[int], a: int, b: int,
    open_: list[int], tiles: list[int], pennants: list[int], occupants: list[int], adj: list[int],
) -> None:
    """Before root ``b`` is joined to root ``a`` (or two edges of one feature close, ``a == b``):
    ``a``'s totals into ``root_log`` and ``b``'s parent, itself, into ``parent_log``."""
    root_log.extend((a, open_[a], tiles[a], pennants[a], occupants[a], adj[a]))
    parent_log.append(b)
    parent_log.append(b)


def join_edges(
    parent: list[int], open_: list[int], tiles: list[int], pennants: list[int], occupants: list[int], a: int, b: int
) -> None:
    """Two roads or two cities meet across one edge: root ``b`` joins root ``a`` with its totals
    (unless they are one feature already), and the edge they share closes on both sides (R8)."""
    if a != b:
        parent[b] = a
        open_[a] += open_[b]
        tiles[a] |= tiles[b]
        pennants[a] += pennants[b]
        occupants[a] += occupants[b]
    open_[a] -= 2


def join_fields(parent: list[int], tiles: list[int], occupants: list[int], adj: list[int], a: int, b: int) -> None:
    """Two fields meet: root ``b`` (a different root) joins root ``a`` with its tiles, followers and
    bordering cities (R28); fields have no open edges to count."""
    parent[b] = a
    occupants[a] += occupants[b]
    tiles[a] |= tiles[b]
    adj[a] |= adj[b]


def restore_roots(
    root_log: list[int], open_: list[int], tiles: list[int], pennants: list[int], occupants: list[int], adj: list[int]
) -> None:
    """Put back every root's totals logged by :func:`log_root`, newest first: a root joined twice
    gets its oldest totals back."""
    i = len(root_log)
    while i:
        i -= ROOT_ROW
        a = root_log[i]
        open_[a] = root_log[i + 1]
        tiles[a] = root_log[i + 2]
        pennants[a] = root_log[i + 3]
        occupants[a] = root_log[i + 4]
        adj[a] = root_log[i + 5]


def restore_parents(parent_log: list[int], parent: list[int]) -> None:
    """Put back every parent logged as ``(node, old parent)``, newest first."""
    i = len(parent_log)
    while i:
        i -= 2
        parent[parent_log[i]] = parent_log[i + 1]
