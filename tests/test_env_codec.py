"""The action codec and the board window: layout, round trips, descriptions, recentring."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from carcassonne_env.engine import TOWER_TOP_SLOT, Action, ActionKind, IllegalActionError
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.window import BoundingBox, Window, required_size

W = 7
CODEC = ActionCodec(W)
WINDOW = Window(W, left=-3, top=4)


def test_layout_is_seventeen_w_squared_plus_fifteen_in_named_segments() -> None:
    assert CODEC.n == 17 * W * W + 15
    assert ActionCodec(31).n == 16352
    assert [s.kind for s in CODEC.segments] == [
        ActionKind.PLACE, ActionKind.DEPLOY, ActionKind.FLOOR, ActionKind.TOWER_TOP,
        ActionKind.CAPTURE, ActionKind.NO_CAPTURE, ActionKind.RANSOM, ActionKind.PASS,
    ]
    starts = [s.start for s in CODEC.segments]
    assert starts[0] == 0 and all(a.stop == b.start for a, b in itertools.pairwise(CODEC.segments))
    assert CODEC.segments[-1].stop == CODEC.n


def _every_action(players: int, player: int) -> list[Action]:
    out = [Action(ActionKind.NO_CAPTURE), Action(ActionKind.PASS)]
    out += [Action(ActionKind.DEPLOY, 1, 2, s) for s in range(CODEC.slots)]
    out += [Action(ActionKind.RANSOM, 0, 0, c) for c in range(players) if c != player]
    for cell in range(W * W):
        x, y = WINDOW.position(cell)
        out += [Action(ActionKind.PLACE, x, y, r) for r in range(4)]
        out += [Action(ActionKind.FLOOR, x, y, c) for c in range(3)]
        out.append(Action(ActionKind.TOWER_TOP, x, y, 0))
        out += [Action(ActionKind.CAPTURE, x, y, s) for s in (*range(CODEC.slots), TOWER_TOP_SLOT)]
    return out


@pytest.mark.parametrize(("players", "player"), [(2, 0), (2, 1), (4, 3), (6, 2)])
def test_every_action_round_trips_through_a_distinct_index(players: int, player: int) -> None:
    actions = _every_action(players, player)
    indices = [CODEC.encode(a, WINDOW, player, players) for a in actions]
    assert None not in indices
    assert len(set(indices)) == len(indices)
    for action, index in zip(actions, indices, strict=True):
        assert index is not None
        assert CODEC.decode(index, WINDOW, player, players, placed=(1, 2)) == action
        assert CODEC.describe(index, WINDOW)


def test_ransom_uses_the_captor_seat_relative_to_the_payer() -> None:
    start = CODEC.segment[ActionKind.RANSOM].start
    assert CODEC.encode(Action.ransom(0), WINDOW, 2, 3) == start  # 0 is one seat after 2 of 3
    assert CODEC.encode(Action.ransom(1), WINDOW, 2, 3) == start + 1
    with pytest.raises(IllegalActionError, match="3 players"):
        CODEC.decode(start + 2, WINDOW, 0, 3, None)


def test_positions_outside_the_window_do_not_encode() -> None:
    assert CODEC.encode(Action.place(4, 0, 0), WINDOW, 0, 2) is None
    assert CODEC.encode(Action.capture(0, -3, TOWER_TOP_SLOT), WINDOW, 0, 2) is None
    indices, dropped = CODEC.encode_all([Action.place(4, 0, 0), Action.place(3, 0, 1)], WINDOW, 0, 2, inside=False)
    assert dropped == 1 and len(indices) == 1


def test_fast_place_path_equals_the_checked_path() -> None:
    legal = [Action.place(*WINDOW.position(c), r) for c in range(0, W * W, 5) for r in (0, 3)]
    assert CODEC.encode_all(legal, WINDOW, 0, 2, inside=True) == CODEC.encode_all(legal, WINDOW, 0, 2, inside=False)


def test_bad_indices_raise_descriptive_errors() -> None:
    with pytest.raises(IllegalActionError, match="outside"):
        CODEC.split(CODEC.n)
    deploy = CODEC.segment[ActionKind.DEPLOY].start
    with pytest.raises(IllegalActionError, match="no tile was placed"):
        CODEC.decode(deploy, WINDOW, 0, 2, placed=None)


def test_descriptions_name_the_segment_and_the_position() -> None:
    place = CODEC.encode(Action.place(-3, 4, 2), WINDOW, 0, 2)
    assert place == 2
    assert CODEC.describe(2, WINDOW) == "PLACE cell 0 (row 0, col 0) = (-3,4) rotation 2"
    top = CODEC.encode(Action.capture(0, 0, TOWER_TOP_SLOT), WINDOW, 0, 2)
    assert top is not None and CODEC.describe(top).endswith("tower top")


def test_window_is_centred_on_the_bounding_box_and_clamped() -> None:
    w = Window.around(5, BoundingBox(-1, 2, 0, 0), limit=10)
    assert (w.left, w.top) == (-2, 2)  # centre x = 0, columns -2..2; rows 2..-2
    assert Window.around(5, BoundingBox(50, 50, 0, 0), limit=10).left == 6  # clamped: 6..10
    assert w.cell(-2, 2) == 0 and w.position(w.cell(1, -1)) == (1, -1)


@given(
    x0=st.integers(-20, 0), dx=st.integers(0, 20), y0=st.integers(-20, 0), dy=st.integers(0, 20),
    points=st.lists(st.tuples(st.integers(-25, 25), st.integers(-25, 25)), min_size=1, max_size=8),
)
def test_required_size_is_the_smallest_window_that_contains_the_points(
    x0: int, dx: int, y0: int, dy: int, points: list[tuple[int, int]]
) -> None:
    box = BoundingBox(x0, x0 + dx, y0, y0 + dy)
    need = required_size(box, points)
    fits = Window.around(need, box, limit=1000)
    assert all(fits.contains(x, y) for x, y in points)
    if need > 1:
        smaller = Window.around(need - 1, box, limit=1000)
        assert not all(smaller.contains(x, y) for x, y in points)


@given(
    x0=st.integers(-9, 0), dx=st.integers(0, 9), y0=st.integers(-9, 0), dy=st.integers(0, 9), size=st.integers(3, 25)
)
def test_covers_frontier_means_every_neighbour_is_inside(x0: int, dx: int, y0: int, dy: int, size: int) -> None:
    box = BoundingBox(x0, x0 + dx, y0, y0 + dy)
    w = Window.around(size, box, limit=100)
    ring = [(x, y) for x in range(box.x0 - 1, box.x1 + 2) for y in range(box.y0 - 1, box.y1 + 2)]
    assert w.covers_frontier(box) == all(w.contains(x, y) for x, y in ring)
