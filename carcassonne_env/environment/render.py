"""Pictures of the board: ``rgb_array`` rendering (numpy, with Pillow's own font for the labels) and
PNG files (Pillow).

:func:`render_rgb` draws the bounding box of the placed tiles from the encoder's master planes,
:data:`TILE` pixels per tile (3×3 sub-cells), north up:

* sub-cells in terrain colours (the palette of :mod:`carcassonne_env.viewer.palette`, shared with
  the replay viewer) (city, road, field, monastery; grey where a tile shows no segment),
  a dark line between neighbouring sub-cells that are not linked, a pennant as a small blue square
  on the first sub-cell of its city segment;
* followers as discs in their seat's colour (:data:`SEAT_COLOURS`, absolute seats) on their
  segment's anchor sub-cell (:func:`~carcassonne_env.engine.subcells.anchor_cell`);
* towers as a square in the colour of the top floor with the height written on it, a follower
  on top as a disc on the square; bare foundations as an outlined square;
* watchtowers as a letter (M meeple, A coat of arms, R road, O monastery, C city);
* a score bar below the board: each seat's colour and score.

Labels are drawn in the font Pillow ships (``ImageFont.load_default``: no system font, no download)
without anti-aliasing, so every pixel of a picture is one of the palette's colours: a game's frames
share one exact GIF palette (:mod:`.gif`).
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from .. import argtypes
from ..engine import Game, GameConfig
from ..engine.registry import TOWER_VARIANT
from ..engine.subcells import anchor_cell
from ..viewer.palette import FLOOR_COLOURS, NO_SEGMENT, SEAT_COLOURS, TERRAIN, WATCHTOWER_LETTERS
from .codec import ActionCodec
from .observation import Encoder
from .options import DEFAULT_WINDOW
from .subcell_planes import stamp
from .window import BoundingBox

__all__ = ["SEAT_COLOURS", "TILE", "render_rgb", "write_png"]

#: Pixels per sub-cell and per tile.
SUB = 12
TILE = 3 * SUB
_BACKGROUND = (36, 38, 46)
_INK = (16, 16, 16)
#: The height on a black tower, and the scores.
_LIGHT_INK = (250, 250, 250)
_SCORE_INK = (240, 240, 240)
_PENNANT = (30, 60, 200)
#: The labels' fonts (:func:`_font`): a tower's height and a watchtower's letter in Pillow's bitmap
#: font (size None), whose glyphs fit a sub-cell pixel for pixel; the scores in Aileron at this size.
_TILE_LABEL: int | None = None
_SCORE_SIZE = 16


@functools.cache
def _font(size: int | None) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's own fonts: its bitmap font (``size`` None), or Aileron, the scalable font it ships, at
    ``size`` pixels."""
    return ImageFont.load_default_imagefont() if size is None else ImageFont.load_default(size)


@functools.cache
def _ink(text: str, size: int | None) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], int]:
    """The pixels (rows, columns) of ``text`` in :func:`_font` ``(size)``, without anti-aliasing,
    relative to the middle of the ink's left edge; and the ink's width."""
    font = _font(size)
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    canvas = Image.new("1", (right - left, bottom - top))
    draw = ImageDraw.Draw(canvas)
    draw.fontmode = "1"  # no anti-aliasing: the ink is the one colour
    draw.text((-left, -top), text, fill=1, font=font)
    rows, cols = np.nonzero(np.asarray(canvas))
    return rows - (rows.min() + rows.max() + 1) // 2, cols - cols.min(), int(cols.max() - cols.min() + 1)


def _text(img: np.ndarray, text: str, row: int, column: int, size: int | None, colour: tuple[int, int, int],
          *, centred: bool = True) -> None:
    """Draw ``text`` (:func:`_ink`) centred on (``row``, ``column``), or centred on ``row`` from
    ``column`` on when not ``centred``; clipped to the picture."""
    rows, cols, width = _ink(text, size)
    rows = rows + row
    cols = cols + (column - width // 2 if centred else column)
    inside = (rows >= 0) & (rows < img.shape[0]) & (cols >= 0) & (cols < img.shape[1])
    img[rows[inside], cols[inside]] = colour


def _disc(img: np.ndarray, cy: int, cx: int, radius: int, colour: tuple[int, int, int]) -> None:
    """A filled disc with a dark outline."""
    yy, xx = np.ogrid[-radius - 1:radius + 2, -radius - 1:radius + 2]
    d2 = yy * yy + xx * xx
    patch = img[cy - radius - 1:cy + radius + 2, cx - radius - 1:cx + radius + 2]
    patch[d2 <= (radius + 1) ** 2] = _INK
    patch[d2 <= radius * radius] = colour


def render_rgb(game: Game, encoder: Encoder, box: BoundingBox | None = None) -> np.ndarray:
    """The board of ``game`` as a uint8 (H, W, 3) picture (module docstring) of ``box`` (default:
    the placed tiles' bounding box; a game's final box keeps every frame of an animation one size)."""
    mirror = encoder.mirror
    layout = encoder.layout
    box = box or mirror.box
    cols = box.x1 - box.x0 + 1
    rows = box.y1 - box.y0 + 1
    bar = 2 * SUB
    img = np.empty((rows * TILE + bar, max(cols * TILE, (4 * game.num_players + 1) * SUB), 3), dtype=np.uint8)
    img[:] = _BACKGROUND
    b = layout.board_index
    link_e, link_s = b["link_east"], b["link_south"]

    def origin(x: int, y: int) -> tuple[int, int]:
        return (box.y1 - y) * TILE, (x - box.x0) * TILE

    for x, y, tile, rot in mirror.placed:
        top, left = origin(x, y)
        st = stamp(tile, rot)
        for r in range(3):
            for c in range(3):
                s = st.slots[r][c]
                colour = NO_SEGMENT if s < 0 else TERRAIN[tile.segment_kinds[s]]
                img[top + r * SUB:top + (r + 1) * SUB, left + c * SUB:left + (c + 1) * SUB] = colour
                if s >= 0 and tile.segment_pennants[s] and st.cells[s][0] == 3 * r + c:
                    y0, x0 = top + r * SUB + 2, left + c * SUB + 2
                    img[y0:y0 + 4, x0:x0 + 4] = _PENNANT
        if mirror.inside(x, y):
            mrow, mcol = 3 * (mirror.limit - y), 3 * (x + mirror.limit)
            for r in range(3):
                for c in range(3):
                    if not mirror.board[link_e, mrow + r, mcol + c] and (c < 2 or (x + 1, y) in mirror.index_at):
                        img[top + r * SUB:top + (r + 1) * SUB, left + (c + 1) * SUB - 1] = _INK
                    if not mirror.board[link_s, mrow + r, mcol + c] and (r < 2 or (x, y - 1) in mirror.index_at):
                        img[top + (r + 1) * SUB - 1, left + c * SUB:left + (c + 1) * SUB] = _INK
        if tile.watchtower is not None:
            _text(img, WATCHTOWER_LETTERS[tile.watchtower.subject], top + TILE // 2, left + TILE // 2, _TILE_LABEL,
                  _INK)
    for f in game.followers():
        tile, rot = game.tile_at(f.x, f.y)[2:]  # type: ignore[index]
        first = anchor_cell(tile, rot, f.slot)
        top, left = origin(f.x, f.y)
        cy, cx = top + (first // 3) * SUB + SUB // 2, left + (first % 3) * SUB + SUB // 2
        _disc(img, cy, cx, SUB // 3, SEAT_COLOURS[f.owner])
    if game.config.has("tower"):
        st_tower = game.expansion_state("tower")
        for x, y in st_tower.foundations():
            top, left = origin(x, y)
            y0, x0 = top + SUB - 2, left + SUB - 2
            square = img[y0:y0 + SUB + 4, x0:x0 + SUB + 4]
            colour = st_tower.colour(x, y)
            if colour is None:
                square[[0, -1], :] = _INK
                square[:, [0, -1]] = _INK
                continue
            square[:] = _INK
            square[1:-1, 1:-1] = FLOOR_COLOURS[colour]
            text_colour = _LIGHT_INK if colour == 1 else _INK
            _text(img, str(st_tower.height(x, y)), top + TILE // 2, left + TILE // 2, _TILE_LABEL,
                  text_colour)
            owner = st_tower.top(x, y)
            if owner is not None:
                _disc(img, y0 + 2, x0 + SUB + 1, SUB // 4, SEAT_COLOURS[owner])
    base = rows * TILE + SUB // 2
    for p, score in enumerate(game.scores):
        left = SUB // 2 + p * 4 * SUB
        img[base:base + SUB, left:left + SUB] = SEAT_COLOURS[p]
        _text(img, str(score), base + SUB // 2, left + SUB + 4, _SCORE_SIZE, _SCORE_INK, centred=False)
    return img


def write_png(path: str | Path, image: np.ndarray) -> None:
    """Save a uint8 (H, W, 3) array as an 8-bit RGB PNG (Pillow)."""
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("expected a uint8 array of shape (H, W, 3)")
    Image.fromarray(image).save(Path(path), format="PNG")


def main(argv: list[str] | None = None) -> None:
    """``python -m carcassonne_env.environment.render OUT.png``: play a seeded random game, save its picture.

    The game is the one ``raw_env`` plays after ``reset(seed=SEED)`` when each step picks uniformly
    from ``np.random.default_rng(SEED)`` among the mask's actions (the env's encoder and codec, at
    the default window), played here without the env.
    """
    import argparse

    parser = argparse.ArgumentParser(prog="python -m carcassonne_env.environment.render", description=main.__doc__)
    parser.add_argument("out", help="the PNG file to write")
    parser.add_argument("--players", type=int, default=3, help="2–6 (default %(default)s)")
    parser.add_argument("--expansions", default=",".join(TOWER_VARIANT))
    parser.add_argument("--seed", type=argtypes.seed, default=0)
    parser.add_argument("--steps", type=argtypes.count, metavar="N",
                        help="stop after this many steps (default: none, the game is played to its end)")
    args = parser.parse_args(argv)
    if Path(args.out).suffix.lower() != ".png" or Path(args.out).is_dir():
        parser.error(f"out: expected a .png file name, got {args.out!r}")
    try:
        config = GameConfig(players=args.players, expansions=tuple(e for e in args.expansions.split(",") if e))
    except ValueError as e:  # ConfigError: --players or --expansions
        parser.error(str(e))
    game = Game(config, seed=args.seed)
    encoder = Encoder(config, DEFAULT_WINDOW)
    encoder.reset(game)
    codec = ActionCodec(DEFAULT_WINDOW)
    rng = np.random.default_rng(args.seed)
    for _ in itertools.islice(itertools.count(), args.steps):  # all steps when --steps is None
        if game.is_over:
            break
        legal, _ = codec.legal_indices(game, encoder.window, encoder.frontier_inside)
        index = int(rng.choice(np.flatnonzero(codec.mask(legal))))
        game.apply(codec.decode_for(game, index, encoder.window))
        encoder.sync(game)
    try:
        write_png(args.out, render_rgb(game, encoder))
    except OSError as e:
        parser.error(f"out: cannot write {args.out}: {e.strerror or e}")


if __name__ == "__main__":
    main()
