"""The capture area as a pure function (docs/rules.md R40, R55, R56, §6 range variants, D8–D10, D26).

Every expected area below is drawn by hand on a 7×7 picture centred on the tower, north up
(row 1 is y = +3, column 1 is x = −3):

* ``T`` the tower's own position, in the area; ``t`` the tower's own position, not in the area;
* ``#`` a position in the area; ``.`` a position outside it.

The board used for ``blocked_by_holes`` is drawn the same way (``#``/``T`` = holds a tile).
"""

from __future__ import annotations

import pytest

from carcassonne_env.engine import CaptureRules, FloorColour, capture_area

Pos = tuple[int, int]
NORMAL, BLACK, WHITE = FloorColour.NORMAL, FloorColour.BLACK, FloorColour.WHITE


def picture(text: str, centre: Pos = (0, 0)) -> frozenset[Pos]:
    """The positions marked ``#`` or ``T`` in a square picture centred on ``centre``."""
    rows = [row.split() for row in text.strip().splitlines()]
    half = len(rows) // 2
    marked: set[Pos] = set()
    for i, row in enumerate(rows):
        assert len(row) == len(rows), f"picture row {i} is not {len(rows)} wide"
        for j, mark in enumerate(row):
            assert mark in "#T.t", f"unknown mark {mark!r}"
            if mark in "#T":
                marked.add((centre[0] + j - half, centre[1] + half - i))
    return frozenset(marked)


def area(
    height: int,
    colour: FloorColour,
    *,
    no_surprises: bool = False,
    manhattan: bool = False,
    blocked_by_holes: bool = False,
    black_excludes_own_tile: bool = False,
    occupied: frozenset[Pos] = frozenset(),
    centre: Pos = (0, 0),
) -> frozenset[Pos]:
    rules = CaptureRules(
        no_surprises=no_surprises,
        manhattan=manhattan,
        blocked_by_holes=blocked_by_holes,
        black_excludes_own_tile=black_excludes_own_tile,
    )
    return frozenset(capture_area(centre, height, colour, rules, occupied=sorted(occupied)))


# ---------------------------------------------------------------------------------------------
# The board for the full table: a 3-floor tower at (0,0) with holes on some rays.
#   E ray: (1,0) empty, (2,0) (3,0) tiles      W ray: (−1,0) tile, (−2,0) empty, (−3,0) tile
#   N ray: (0,1) (0,2) tiles, (0,3) empty      S ray: (0,−1) (0,−2) (0,−3) tiles
#   NE: (1,1) empty, (2,2) (3,3) tiles         NW: (−1,1) tile, (−2,2) empty, (−3,3) tile
#   SE: (1,−1) (2,−2) tiles, (3,−3) empty      SW: (−1,−1) (−2,−2) (−3,−3) tiles
BOARD = picture("""
    # . . . . . #
    . . . # . # .
    . . # # . . .
    # . # T . # #
    . . # # # . .
    . # . # . # .
    # . . # . . .
""")
HEIGHT = 3

# R40: orthogonal rays of reach 3 (4h+1 = 13 positions).
NORMAL_R3 = picture("""
    . . . # . . .
    . . . # . . .
    . . . # . . .
    # # # T # # #
    . . . # . . .
    . . . # . . .
    . . . # . . .
""")
# tower_blocked_by_holes: a ray's first empty position is still reached, nothing behind it.
NORMAL_R3_BLOCKED = picture("""
    . . . # . . .
    . . . # . . .
    . . . # . . .
    . # # T # . .
    . . . # . . .
    . . . # . . .
    . . . # . . .
""")
# no_surprises: reach h−1 = 2.
NORMAL_R2 = picture("""
    . . . . . . .
    . . . # . . .
    . . . # . . .
    . # # T # # .
    . . . # . . .
    . . . # . . .
    . . . . . . .
""")
NORMAL_R2_BLOCKED = picture("""
    . . . . . . .
    . . . # . . .
    . . . # . . .
    . # # T # . .
    . . . # . . .
    . . . # . . .
    . . . . . . .
""")
# tower_range_manhattan: every position with |dx|+|dy| ≤ 3 (25 positions).
MANHATTAN_R3 = picture("""
    . . . # . . .
    . . # # # . .
    . # # # # # .
    # # # T # # #
    . # # # # # .
    . . # # # . .
    . . . # . . .
""")
# manhattan + blocked: paths of ≤ 3 orthogonal steps whose intermediate positions hold tiles.
# (2,0), (3,0) and (2,1) are only reachable through the hole (1,0) or (1,1); (−3,0) only
# through the hole (−2,0).
MANHATTAN_R3_BLOCKED = picture("""
    . . . # . . .
    . . # # # . .
    . # # # # . .
    . # # T # . .
    . # # # # # .
    . . # # # . .
    . . . # . . .
""")
MANHATTAN_R2 = picture("""
    . . . . . . .
    . . . # . . .
    . . # # # . .
    . # # T # # .
    . . # # # . .
    . . . # . . .
    . . . . . . .
""")
MANHATTAN_R2_BLOCKED = picture("""
    . . . . . . .
    . . . # . . .
    . . # # # . .
    . # # T # . .
    . . # # # . .
    . . . # . . .
    . . . . . . .
""")
# R55: the four diagonal rays of reach 3 plus the tower itself (4h+1 = 13 positions).
BLACK_R3 = picture("""
    # . . . . . #
    . # . . . # .
    . . # . # . .
    . . . T . . .
    . . # . # . .
    . # . . . # .
    # . . . . . #
""")
BLACK_R3_BLOCKED = picture("""
    . . . . . . .
    . # . . . . .
    . . # . # . .
    . . . T . . .
    . . # . # . .
    . # . . . # .
    # . . . . . #
""")
BLACK_R2 = picture("""
    . . . . . . .
    . # . . . # .
    . . # . # . .
    . . . T . . .
    . . # . # . .
    . # . . . # .
    . . . . . . .
""")
BLACK_R2_BLOCKED = picture("""
    . . . . . . .
    . # . . . . .
    . . # . # . .
    . . . T . . .
    . . # . # . .
    . # . . . # .
    . . . . . . .
""")
# black_tower_excludes_own_tile: the same rays without the tower's own position (4h positions).
BLACK_R3_NO_OWN = picture("""
    # . . . . . #
    . # . . . # .
    . . # . # . .
    . . . t . . .
    . . # . # . .
    . # . . . # .
    # . . . . . #
""")
BLACK_R3_BLOCKED_NO_OWN = picture("""
    . . . . . . .
    . # . . . . .
    . . # . # . .
    . . . t . . .
    . . # . # . .
    . # . . . # .
    # . . . . . #
""")
BLACK_R2_NO_OWN = picture("""
    . . . . . . .
    . # . . . # .
    . . # . # . .
    . . . t . . .
    . . # . # . .
    . # . . . # .
    . . . . . . .
""")
BLACK_R2_BLOCKED_NO_OWN = picture("""
    . . . . . . .
    . # . . . . .
    . . # . # . .
    . . . t . . .
    . . # . # . .
    . # . . . # .
    . . . . . . .
""")
NOTHING: frozenset[Pos] = frozenset()

# (colour, no_surprises, manhattan, blocked_by_holes, black_excludes_own_tile) → expected area.
# Written out for all 3 × 2⁴ = 48 combinations on BOARD with a 3-floor tower.
F, T = False, True
EXPECTED: dict[tuple[FloorColour, bool, bool, bool, bool], frozenset[Pos]] = {
    # normal: black_excludes_own_tile never applies (R55 flag is about black towers only)
    (NORMAL, F, F, F, F): NORMAL_R3,
    (NORMAL, F, F, F, T): NORMAL_R3,
    (NORMAL, F, F, T, F): NORMAL_R3_BLOCKED,
    (NORMAL, F, F, T, T): NORMAL_R3_BLOCKED,
    (NORMAL, F, T, F, F): MANHATTAN_R3,
    (NORMAL, F, T, F, T): MANHATTAN_R3,
    (NORMAL, F, T, T, F): MANHATTAN_R3_BLOCKED,
    (NORMAL, F, T, T, T): MANHATTAN_R3_BLOCKED,
    (NORMAL, T, F, F, F): NORMAL_R2,
    (NORMAL, T, F, F, T): NORMAL_R2,
    (NORMAL, T, F, T, F): NORMAL_R2_BLOCKED,
    (NORMAL, T, F, T, T): NORMAL_R2_BLOCKED,
    (NORMAL, T, T, F, F): MANHATTAN_R2,
    (NORMAL, T, T, F, T): MANHATTAN_R2,
    (NORMAL, T, T, T, F): MANHATTAN_R2_BLOCKED,
    (NORMAL, T, T, T, T): MANHATTAN_R2_BLOCKED,
    # black: manhattan never applies (D26); no_surprises and blocked_by_holes do
    (BLACK, F, F, F, F): BLACK_R3,
    (BLACK, F, F, F, T): BLACK_R3_NO_OWN,
    (BLACK, F, F, T, F): BLACK_R3_BLOCKED,
    (BLACK, F, F, T, T): BLACK_R3_BLOCKED_NO_OWN,
    (BLACK, F, T, F, F): BLACK_R3,
    (BLACK, F, T, F, T): BLACK_R3_NO_OWN,
    (BLACK, F, T, T, F): BLACK_R3_BLOCKED,
    (BLACK, F, T, T, T): BLACK_R3_BLOCKED_NO_OWN,
    (BLACK, T, F, F, F): BLACK_R2,
    (BLACK, T, F, F, T): BLACK_R2_NO_OWN,
    (BLACK, T, F, T, F): BLACK_R2_BLOCKED,
    (BLACK, T, F, T, T): BLACK_R2_BLOCKED_NO_OWN,
    (BLACK, T, T, F, F): BLACK_R2,
    (BLACK, T, T, F, T): BLACK_R2_NO_OWN,
    (BLACK, T, T, T, F): BLACK_R2_BLOCKED,
    (BLACK, T, T, T, T): BLACK_R2_BLOCKED_NO_OWN,
    # white: placing the white floor captures nothing, whatever the variants (R56, D10)
    (WHITE, F, F, F, F): NOTHING,
    (WHITE, F, F, F, T): NOTHING,
    (WHITE, F, F, T, F): NOTHING,
    (WHITE, F, F, T, T): NOTHING,
    (WHITE, F, T, F, F): NOTHING,
    (WHITE, F, T, F, T): NOTHING,
    (WHITE, F, T, T, F): NOTHING,
    (WHITE, F, T, T, T): NOTHING,
    (WHITE, T, F, F, F): NOTHING,
    (WHITE, T, F, F, T): NOTHING,
    (WHITE, T, F, T, F): NOTHING,
    (WHITE, T, F, T, T): NOTHING,
    (WHITE, T, T, F, F): NOTHING,
    (WHITE, T, T, F, T): NOTHING,
    (WHITE, T, T, T, F): NOTHING,
    (WHITE, T, T, T, T): NOTHING,
}
assert len(EXPECTED) == 3 * 16, "the table must cover every colour × variant combination"


def _case_id(key: tuple[FloorColour, bool, bool, bool, bool]) -> str:
    colour, *flags = key
    names = ("no_surprises", "manhattan", "blocked_by_holes", "black_excludes_own_tile")
    on = [name for name, flag in zip(names, flags, strict=True) if flag]
    return f"{colour.name.lower()}-" + ("+".join(on) or "default")


@pytest.mark.parametrize("key", list(EXPECTED), ids=[_case_id(k) for k in EXPECTED])
def test_r40_r55_r56_area_for_every_colour_and_variant_combination(
    key: tuple[FloorColour, bool, bool, bool, bool],
) -> None:
    """R40 (normal), R55 (black), R56 (white) with every §6 range variant, h = 3 on BOARD."""
    colour, no_surprises, manhattan, blocked, excludes_own = key
    got = area(
        HEIGHT,
        colour,
        no_surprises=no_surprises,
        manhattan=manhattan,
        blocked_by_holes=blocked,
        black_excludes_own_tile=excludes_own,
        occupied=BOARD,
    )
    assert got == EXPECTED[key]


# ---------------------------------------------------------------------------------------------
# Single rules, with their counts spelled out.


def test_r40_normal_area_has_4h_plus_1_positions_and_ignores_holes() -> None:
    """R40: (x,y) plus (x±d, y), (x, y±d) for d = 1..h; reach passes over empty positions."""
    for h in (1, 2, 3, 4):
        got = area(h, NORMAL)  # no tile anywhere: every position but the tower's is a hole
        assert len(got) == 4 * h + 1
        assert (0, h) in got and (0, -h) in got and (h, 0) in got and (-h, 0) in got
        assert (0, h + 1) not in got and (1, 1) not in got


def test_r40_e1_area_of_a_two_floor_tower() -> None:
    """E1: a tower at (0,0) with h = 2 reaches {(0,0), (±1,0), (±2,0), (0,±1), (0,±2)}."""
    assert area(2, NORMAL) == {(0, 0), (1, 0), (-1, 0), (2, 0), (-2, 0), (0, 1), (0, -1), (0, 2), (0, -2)}
    assert not {(1, 1), (2, 1), (3, 0)} & area(2, NORMAL)


def test_r40_area_is_centred_on_the_tower_position() -> None:
    """R40: the area is taken around the tower's own (x, y), here (5, −2) with h = 1."""
    assert area(1, NORMAL, centre=(5, -2)) == {(5, -2), (6, -2), (4, -2), (5, -1), (5, -3)}


def test_e1_variants_of_the_two_floor_tower() -> None:
    """E1 variants: no_surprises → {(0,0), (±1,0), (0,±1)}; manhattan → 13 positions;
    blocked_by_holes with (1,0) empty drops (2,0)."""
    e1 = {(0, 0), (1, 0), (-1, 0), (2, 0), (-2, 0), (0, 1), (0, -1), (0, 2), (0, -2)}
    assert area(2, NORMAL, no_surprises=True) == {(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)}
    assert area(2, NORMAL, manhattan=True) == e1 | {(1, 1), (1, -1), (-1, 1), (-1, -1)}
    # every position of the E1 board holds a tile except (1,0)
    board = frozenset(e1 - {(1, 0)}) | {(1, 1), (2, 1), (3, 0)}
    assert area(2, NORMAL, blocked_by_holes=True, occupied=board) == e1 - {(2, 0)}


def test_r55_e2_black_area_of_a_two_floor_tower() -> None:
    """E2: a black tower with h = 2 reaches its own position and the 8 diagonal positions
    (±1,±1), (±2,±2); (1,0), (0,2) and (2,1) are out of reach."""
    expected = {(0, 0), (1, 1), (2, 2), (-1, 1), (-2, 2), (1, -1), (2, -2), (-1, -1), (-2, -2)}
    got = area(2, BLACK)
    assert got == expected
    assert not {(1, 0), (0, 2), (2, 1)} & got


def test_d9_black_reach_is_the_diagonal_rays_not_the_filled_square() -> None:
    """D9: with h = 2 the black area is 9 positions, not the 25 of the filled 5×5 square."""
    got = area(2, BLACK)
    assert len(got) == 9
    assert not {(1, 2), (2, 1), (-1, 2), (0, 1)} & got


def test_d8_black_tower_reaches_its_own_tile_by_default() -> None:
    """D8: the black tower's own position is in its area unless black_excludes_own_tile."""
    assert (0, 0) in area(1, BLACK)
    assert area(1, BLACK, black_excludes_own_tile=True) == {(1, 1), (1, -1), (-1, 1), (-1, -1)}


def test_d10_white_area_is_empty_even_at_zero_distance() -> None:
    """D10 / R56: a white floor captures nothing, not even on the tower's own tile."""
    assert area(1, WHITE) == frozenset()
    assert area(5, WHITE, occupied=frozenset({(0, 0), (1, 0)})) == frozenset()


def test_no_surprises_one_floor_tower_reaches_only_its_own_position() -> None:
    """§6 no_surprises: rays reach h−1, so a 1-floor tower reaches only its own position,
    for normal and black towers alike (D26)."""
    assert area(1, NORMAL, no_surprises=True) == {(0, 0)}
    assert area(1, BLACK, no_surprises=True) == {(0, 0)}
    assert area(1, NORMAL, no_surprises=True, manhattan=True) == {(0, 0)}
    assert area(1, BLACK, no_surprises=True, black_excludes_own_tile=True) == frozenset()


def test_d26_manhattan_changes_normal_towers_only() -> None:
    """D26: tower_range_manhattan affects normal towers only; black towers keep R55."""
    assert area(2, BLACK, manhattan=True) == area(2, BLACK)
    assert (1, 1) in area(2, NORMAL, manhattan=True)
    assert (1, 1) not in area(2, NORMAL)


def test_blocked_by_holes_first_empty_position_of_a_ray_is_still_reached() -> None:
    """§6 tower_blocked_by_holes: step d is reachable when steps 1..d−1 hold tiles, so the first
    hole itself is reached (it simply holds no follower) and nothing behind it is."""
    only_tower = frozenset({(0, 0)})
    assert area(3, NORMAL, blocked_by_holes=True, occupied=only_tower) == {
        (0, 0), (1, 0), (-1, 0), (0, 1), (0, -1),
    }
    assert area(3, BLACK, blocked_by_holes=True, occupied=only_tower) == {
        (0, 0), (1, 1), (-1, 1), (1, -1), (-1, -1),
    }
