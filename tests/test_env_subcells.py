"""The 3×3 sub-cell picture of every tile type in every rotation."""

from __future__ import annotations

import pytest

from carcassonne_env.engine import SegmentKind, load_catalogue
from carcassonne_env.environment.subcell_planes import EDGE_CELLS, border_links, slot_grid, stamp

TYPES = load_catalogue().types


@pytest.mark.parametrize("tile", TYPES, ids=lambda t: t.id)
def test_every_segment_shows_and_edges_show_their_owner(tile) -> None:  # type: ignore[no-untyped-def]
    for rot in range(4):
        grid = slot_grid(tile, rot)
        assert {s for row in grid for s in row} - {-1} == set(range(tile.segment_count))
        for e, (r, c) in enumerate(EDGE_CELLS):
            s = grid[r][c]
            assert e in tile.segment_edges[rot][s] or 2 * e in tile.segment_half_edges[rot][s]
        if tile.monastery_slot >= 0:
            assert grid[1][1] == tile.monastery_slot


@pytest.mark.parametrize("tile", TYPES, ids=lambda t: t.id)
def test_rotating_the_tile_rotates_its_picture(tile) -> None:  # type: ignore[no-untyped-def]
    base = slot_grid(tile, 0)
    for rot in range(1, 4):
        grid = slot_grid(tile, rot)
        turned = base
        for _ in range(rot):  # a quarter turn clockwise: new[r][c] = old[2 - c][r]
            turned = tuple(tuple(turned[2 - c][r] for c in range(3)) for r in range(3))
        assert grid == turned


def test_stamp_planes_match_the_slot_grid() -> None:
    tile = load_catalogue()["base/CRr"]
    st = stamp(tile, 1)
    for r in range(3):
        for c in range(3):
            s = st.slots[r][c]
            assert st.planes[4, r, c] == s + 1
            assert st.planes[:4, r, c].sum() == 1 and st.planes[int(tile.segment_kinds[s]), r, c] == 1
    assert sorted(k for cells in st.cells for k in cells) == list(range(9))


def test_border_links_join_matching_roads_and_fields_only() -> None:
    catalogue = load_catalogue()
    straight = catalogue["base/RFr"]  # road E-W, fields N and S
    # two straight roads side by side: the field corners, the road and the other field corners join
    assert border_links(straight, 0, straight, 0, east=True) == (1, 1, 1)
    cap = catalogue["base/C"]  # city N
    # the cap above a cap rotated to face it (city S): only the city edge touches; corners are fields of
    # different sides of the two city caps' borders, which do not touch through any half-edge
    assert border_links(cap, 2, cap, 0, east=False) == (0, 1, 0)
    assert SegmentKind.CITY in cap.segment_kinds
