"""The terminal's board: the engine's text board framed with coordinates, with the spots where the
tile to place fits marked and the players named.

The engine draws every tile as a 3×3 block, north up (:mod:`carcassonne_env.engine.text_board`);
this module adds, around that grid and never inside a tile:

* the x of every column of tiles above and below the board, the y of every row on both sides: the
  ``x,y`` that placements are typed and listed with (y grows northward, so the top row has the
  largest y);
* :data:`SPOT` in the centre of each empty cell listed in ``spots`` (the grid widens by one cell
  where a spot lies outside the tiles);
* a legend naming the seat of each follower digit, and the engine's expansion lines with their
  ``P0``, ``P1`` … written as the seats' colours.

Invariant: each tile's block is the engine's, unchanged, at the column of its x and the row of its y.
The engine's score and supply lines are left out: the table says them once, with the seats' names.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ..engine import Game
from ..viewer.palette import SEAT_NAMES

__all__ = ["SPOT", "board_lines", "name_players"]

#: The mark of an empty cell where the tile to place fits in some rotation.
SPOT = "*"
#: The width of a tile's block, in characters and in lines.
_CELL = 3
_PLAYER = re.compile(r"\bP(\d)\b")


def name_players(line: str) -> str:
    """``line`` of the engine's text view with every player token ``P0``, ``P1`` … written as the
    seat's colour (``floors Red=3 Blue=2``, ``prisoners Red<-Blue:1``)."""
    return _PLAYER.sub(lambda m: SEAT_NAMES[int(m.group(1))], line)


def _framed(grid: list[str], x_range: range, y_top: int, label_width: int) -> list[str]:
    """``grid`` (one line per text row, tile rows from ``y_top`` down, columns ``x_range``) with the
    x of each column above and below and the y of each tile row on both sides."""
    margin = " " * (label_width + 1)
    axis = (margin + "".join(f"{x:^{_CELL}}" for x in x_range)).rstrip()
    lines = [axis]
    for r, row in enumerate(grid):
        if r % _CELL == _CELL // 2:
            y = str(y_top - r // _CELL)
            lines.append(f"{y:>{label_width}} {row} {y}")
        else:
            lines.append((margin + row).rstrip())
    lines.append(axis)
    return lines


def board_lines(game: Game, names: Sequence[str], spots: Collection[tuple[int, int]] = ()) -> list[str]:
    """The board of ``game`` framed with coordinates, ``spots`` (empty cells) marked with
    :data:`SPOT`, a legend naming each follower digit's seat (``names[p]`` for seat p) and the
    lines the game's expansions add, players named (module docstring)."""
    tiles = game.tiles()
    text = game.render_text().splitlines()
    x0, x1 = min(t.x for t in tiles), max(t.x for t in tiles)
    y0, y1 = min(t.y for t in tiles), max(t.y for t in tiles)
    rows = _CELL * (y1 - y0 + 1)
    grid, below = text[:rows], text[rows:]  # below: the engine's extent line, scores, supply, expansions
    left = min([x0, *(x for x, _ in spots)])
    right = max([x1, *(x for x, _ in spots)])
    top = max([y1, *(y for _, y in spots)])
    bottom = min([y0, *(y for _, y in spots)])
    width = _CELL * (right - left + 1)
    canvas = [[" "] * width for _ in range(_CELL * (top - bottom + 1))]
    for r, line in enumerate(grid):
        row = canvas[_CELL * (top - y1) + r]
        start = _CELL * (x0 - left)
        row[start:start + len(line)] = line
    for x, y in spots:
        canvas[_CELL * (top - y) + _CELL // 2][_CELL * (x - left) + _CELL // 2] = SPOT
    label_width = max(len(str(y)) for y in (top, bottom))
    lines = _framed(["".join(row) for row in canvas], range(left, right + 1), top, label_width)
    digits = ", ".join(f"{p} {name}" for p, name in enumerate(names))
    lines.append(f"north up; a digit is a follower of seat {digits}"
                 + (f"; {SPOT} where the tile fits" if spots else ""))
    lines.extend(name_players(line) for line in below if not line.startswith(("x ", "scores ", "supply ")))
    return lines
