"""An animated GIF of a game: one frame of :func:`~.render.render_rgb` per turn (Pillow).

Frame 0 is the start tile; frame ``t`` (1-based) the board after turn ``t``, the last one after the
final scoring, so a game of T turns has T + 1 frames. Every frame draws the final board's bounding
box, so the board does not move; all frames share one exact palette (the renderer uses fewer than
256 colours), so nothing is dithered.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from ..engine import GameRecord
from .observation import Encoder
from .render import render_rgb

__all__ = ["game_frames", "write_gif"]

#: Milliseconds each turn is shown, and the last frame.
FRAME_MS = 400
LAST_FRAME_MS = 4000


def game_frames(record: GameRecord, *, window: int = 31) -> list[np.ndarray]:
    """The pictures of the start and of the board after every turn of ``record`` (module docstring)."""
    final = record.replay()
    encoder = Encoder(final.config, window)
    encoder.reset(final)
    box = encoder.mirror.box
    game = record.replay(0)
    encoder.reset(game)
    frames = [render_rgb(game, encoder, box)]
    for action in record.actions:
        turn = game.turn
        game.apply(action)
        if game.turn != turn or game.is_over:
            encoder.sync(game)
            frames.append(render_rgb(game, encoder, box))
    return frames


def write_gif(record: GameRecord, path: str | Path, *, frame_ms: int = FRAME_MS, last_ms: int = LAST_FRAME_MS) -> int:
    """Write the GIF of ``record`` to ``path``; returns its frame count."""
    frames = game_frames(record)
    packed = [(f[..., 0].astype(np.uint32) << 16) | (f[..., 1].astype(np.uint32) << 8) | f[..., 2] for f in frames]
    colours = np.unique(np.concatenate([np.unique(p) for p in packed]))
    if len(colours) > 256:
        raise ValueError(f"the frames use {len(colours)} colours; a GIF holds 256")
    rgb = np.stack([colours >> 16, (colours >> 8) & 255, colours & 255], axis=1).astype(np.uint8)
    images = []
    for p in packed:
        image = Image.fromarray(np.searchsorted(colours, p).astype(np.uint8))  # mode L; the palette makes it P
        image.putpalette(rgb.ravel().tolist())
        images.append(image)
    durations = [frame_ms] * (len(images) - 1) + [last_ms]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False)
    return len(images)
