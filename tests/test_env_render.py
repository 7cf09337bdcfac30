"""Rendering: ansi text, rgb_array pictures and the PNG writer."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment import raw_env
from carcassonne_env.environment.render import SEAT_COLOURS, TILE, render_rgb, write_png


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


def test_png_writer_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    path = tmp_path / "x.png"
    write_png(path, image)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    chunks: dict[bytes, bytes] = {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        tag = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks[tag] = chunks.get(tag, b"") + body
        pos += 12 + length
    width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
    assert (width, height) == (5, 7)
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), dtype=np.uint8).reshape(7, 1 + 15)
    assert not raw[:, 0].any()
    np.testing.assert_array_equal(raw[:, 1:].reshape(7, 5, 3), image)
