"""Checkpoints a kill cannot spoil: a model file and the run's state beside it, saved as a pair.

Invariants (the self-play trainer's ``checkpoint.zip`` + ``state.json``):

* a checkpoint is written to pending files first, and the state records the SHA-256 of its model
  file; the current pair becomes the previous one (``checkpoint.prev.zip`` + ``state.prev.json``),
  the pending pair the current one, each step one ``os.replace``;
* :func:`find_checkpoint` takes the newest (model, state) pair whose hash matches, among the
  current, previous and pending files: a kill at any moment leaves a loadable checkpoint;
* a model saved on its own (a snapshot, the final model) is written atomically (:func:`save_model`);
* every model zip the trainers save records the game it was trained on (:func:`save_model`:
  :func:`agents.ppo.record_game`), so that ``ppo:PATH`` is refused in another game, naming both.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agents.ppo import record_game
from carcassonne_env.engine import GameConfig

from .settings import is_int
from .storage import atomic_path, atomic_write_text, dumps, file_sha256

__all__ = ["CHECKPOINT", "PREVIOUS", "find_checkpoint", "save_checkpoint", "save_model"]

CHECKPOINT, PREVIOUS = ("checkpoint.zip", "state.json"), ("checkpoint.prev.zip", "state.prev.json")
_PENDING = (".checkpoint.pending.zip", ".state.pending.json")


def save_checkpoint(out: Path, save_model: Callable[[Path], None], state: dict[str, Any]) -> None:
    """Write a checkpoint (``save_model(path)`` writes the zip; ``state`` the JSON next to it) so that a
    kill at any moment leaves a loadable one (module docstring)."""
    zip_tmp, state_tmp = (out / name for name in _PENDING)
    save_model(zip_tmp)
    with zip_tmp.open("rb+") as f:
        os.fsync(f.fileno())
    state = {**state, "checkpoint_sha256": file_sha256(zip_tmp)}
    atomic_write_text(state_tmp, dumps(state, indent=1))
    for now, before in zip(CHECKPOINT, PREVIOUS, strict=True):
        if (out / now).exists():
            os.replace(out / now, out / before)
    os.replace(zip_tmp, out / CHECKPOINT[0])
    os.replace(state_tmp, out / CHECKPOINT[1])


def find_checkpoint(out: Path) -> tuple[Path, dict[str, Any]] | None:
    """The newest (zip, state) pair of ``out`` whose state names the zip's SHA-256 (any of the current,
    previous and pending files; newest: the most ``num_timesteps``); a state saved before hashes pairs
    with ``checkpoint.zip`` when that is a whole zip. None when there is none."""
    zips = [out / name for name in (CHECKPOINT[0], PREVIOUS[0], _PENDING[0]) if (out / name).is_file()]
    digests = {file_sha256(z): z for z in zips}
    found: list[tuple[int, Path, dict[str, Any]]] = []
    for name in (CHECKPOINT[1], PREVIOUS[1], _PENDING[1]):
        try:
            state = json.loads((out / name).read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(state, dict):
            continue
        digest = state.get("checkpoint_sha256")
        steps = state.get("num_timesteps", 0)
        if not is_int(steps):
            continue
        if digest is None and name == CHECKPOINT[1] and (out / CHECKPOINT[0]).is_file() \
                and zipfile.is_zipfile(out / CHECKPOINT[0]):
            found.append((steps, out / CHECKPOINT[0], state))
        elif digest in digests:
            found.append((steps, digests[digest], state))
    if not found:
        return None
    _, path, state = max(found, key=lambda t: t[0])
    return path, state


def save_model(model: Any, path: Path, exclude: Iterable[str], game: GameConfig) -> None:
    """``model.save`` (a Stable-Baselines3 model) into ``path`` atomically (through memory, then a
    temporary file), without the attributes ``exclude`` names, recording ``game``, the game it was
    trained on (:func:`agents.ppo.record_game`)."""
    buffer = io.BytesIO()
    model.save(buffer, exclude=list(exclude))
    record_game(buffer, game.to_dict())
    with atomic_path(path) as tmp:
        tmp.write_bytes(buffer.getvalue())
