"""Rendering: ansi text, rgb_array pictures and the PNG writer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment import raw_env, render
from carcassonne_env.environment.render import SEAT_COLOURS, SUB, TILE, render_rgb, write_png
from carcassonne_env.viewer.palette import FLOOR_COLOURS, NO_SEGMENT, TERRAIN


def _played(render_mode: str, steps: int = 120, players: int = 3) -> raw_env:
    env = raw_env(players=players, expansions=TOWER_VARIANT, render_mode=render_mode)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    return env


def test_ansi_is_the_engine_text_board() -> None:
    env = _played("ansi")
    text = env.render()
    assert isinstance(text, str) and text == env.game.render_text()


def test_rgb_array_draws_the_bounding_box_followers_and_scores() -> None:
    env = _played("rgb_array")
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    box = env.encoder.mirror.box
    assert img.shape[0] > (box.y1 - box.y0 + 1) * TILE
    assert img.shape[1] >= (box.x1 - box.x0 + 1) * TILE
    colours = {tuple(int(v) for v in c) for c in img.reshape(-1, 3)[::7]}
    for f in env.game.followers():
        assert SEAT_COLOURS[f.owner] in colours


def test_render_needs_no_render_mode_to_be_callable_directly() -> None:
    env = raw_env(players=2)
    env.reset(seed=0)
    assert render_rgb(env.game, env.encoder).shape[2] == 3
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_the_labels_add_no_colour() -> None:
    """The labels are drawn without anti-aliasing: every pixel is one of the palette's colours."""
    img = _played("rgb_array").render()
    palette = {*SEAT_COLOURS, *TERRAIN.values(), NO_SEGMENT, *FLOOR_COLOURS.values(), render._BACKGROUND,
               render._INK, render._LIGHT_INK, render._SCORE_INK, render._PENNANT}
    assert {tuple(int(v) for v in c) for c in np.unique(img.reshape(-1, 3), axis=0)} <= palette


def test_each_score_is_written_beside_its_seat_colour() -> None:
    env = _played("rgb_array")
    img = env.render()
    bar = img[img.shape[0] - 2 * SUB:]
    for seat in range(env.game.num_players):
        left = SUB // 2 + seat * 4 * SUB
        assert (bar[:, left:left + SUB] == SEAT_COLOURS[seat]).all(axis=2).any()
        written = (bar[:, left + SUB:left + 4 * SUB] == render._SCORE_INK).all(axis=2)
        assert written.sum() > 20, f"seat {seat}: no score"  # the ink of one digit or more


def test_a_label_is_centred_and_clipped_to_the_picture() -> None:
    img = np.zeros((12, 12, 3), dtype=np.uint8)
    render._text(img, "8", 6, 6, None, (1, 2, 3))
    rows, cols = np.nonzero((img == (1, 2, 3)).all(axis=2))
    assert abs((rows.min() + rows.max()) / 2 - 6) <= 1 and abs((cols.min() + cols.max()) / 2 - 6) <= 1
    render._text(img, "188", 0, -4, render._SCORE_SIZE, (9, 9, 9), centred=False)  # off the corner: clipped
    assert (img == (9, 9, 9)).all(axis=2).any()


def test_png_writer_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    path = tmp_path / "x.png"
    write_png(path, image)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as saved:
        assert (saved.format, saved.mode, saved.size) == ("PNG", "RGB", (5, 7))
        np.testing.assert_array_equal(np.asarray(saved), image)


@pytest.mark.parametrize("image", [np.zeros((4, 4, 3), dtype=np.float32), np.zeros((4, 4), dtype=np.uint8),
                                   np.zeros((4, 4, 4), dtype=np.uint8)])
def test_png_writer_takes_only_rgb_bytes(tmp_path: Path, image: np.ndarray) -> None:
    with pytest.raises(ValueError, match="uint8"):
        write_png(tmp_path / "x.png", image)
