"""The features' union-find (``union_find.py``) on plain lists, as the board lays tiles into it:
roots keep their feature's totals (R6–R8), joins add them up, and every write can be journalled and
taken back (the undo of a placement)."""

from __future__ import annotations

from carcassonne_env.engine.union_find import (
    ROOT_ROW,
    find,
    join_edges,
    join_fields,
    log_root,
    restore_parents,
    restore_roots,
)


def totals(n: int) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """Open edges, tile masks, pennants, occupants and bordering cities of ``n`` lone segments: each
    a road of 2 open edges on its own tile (tile i), no pennant, no follower."""
    return [2] * n, [1 << i for i in range(n)], [0] * n, [0] * n, [0] * n


def test_find_halves_the_path_and_journals_each_write() -> None:
    parent = [0, 0, 1, 2, 3]  # a chain 4 → 3 → 2 → 1 → 0
    log: list[int] = []
    assert find(parent, 4, log) == 0
    assert parent == [0, 0, 0, 2, 2]  # 4 and 2 now point at their grandparents
    assert log == [4, 3, 2, 1]  # (node, old parent) per write
    restore_parents(log, parent)
    assert parent == [0, 0, 1, 2, 3]


def test_find_on_a_root_or_a_short_path_writes_nothing() -> None:
    parent = [0, 0]
    log: list[int] = []
    assert find(parent, 0, log) == 0 and find(parent, 1, log) == 0
    assert log == [] and find(parent, 1, None) == 0


def test_r7_r8_two_roads_joined_across_an_edge_add_their_totals_and_close_that_edge() -> None:
    parent = [0, 1]
    open_, tiles, pennants, occupants, _ = totals(2)
    occupants[1] = 1  # a thief on the second road
    join_edges(parent, open_, tiles, pennants, occupants, 0, 1)
    assert parent == [0, 0]
    assert (open_[0], tiles[0].bit_count(), occupants[0]) == (2, 2, 1)  # 2 + 2 - 2 open edges, 2 tiles


def test_r19_a_road_that_meets_itself_closes_two_edges_without_a_join() -> None:
    parent = [0]
    open_, tiles, pennants, occupants, _ = totals(1)
    join_edges(parent, open_, tiles, pennants, occupants, 0, 0)
    assert parent == [0] and open_ == [0] and tiles == [1]


def test_r28_joined_fields_keep_every_city_either_bordered() -> None:
    parent = [0, 1]
    _, tiles, _, occupants, adj = totals(2)
    adj[0], adj[1] = 0b0100, 0b1000
    join_fields(parent, tiles, occupants, adj, 0, 1)
    assert parent == [0, 0] and adj[0] == 0b1100 and tiles[0] == 0b11


def test_a_journalled_join_is_taken_back_exactly() -> None:
    parent = [0, 1, 2]
    open_, tiles, pennants, occupants, adj = totals(3)
    pennants[2] = 1
    before = [list(x) for x in (parent, open_, tiles, pennants, occupants, adj)]
    root_log: list[int] = []
    parent_log: list[int] = []
    for a, b in ((0, 1), (0, 2)):  # root 0 joined twice: the restore gives its oldest totals back
        log_root(root_log, parent_log, a, b, open_, tiles, pennants, occupants, adj)
        join_edges(parent, open_, tiles, pennants, occupants, a, b)
    assert len(root_log) == 2 * ROOT_ROW and (open_[0], pennants[0]) == (2, 1)
    restore_roots(root_log, open_, tiles, pennants, occupants, adj)
    restore_parents(parent_log, parent)
    assert [parent, open_, tiles, pennants, occupants, adj] == before
