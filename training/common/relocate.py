"""A run directory copied or renamed resumes where it is now.

A run records paths: its state names its files (snapshots, networks, checkpoints) and its
tournaments' settings name the agents they play by spec (``afterstate:OUT/gen_001/candidate.npz``).
When a run resumes in another directory than the one it was started in, :func:`relocate_run`
rewrites those paths to the new place. The rule: a path moves when it lies under the old place and
names a file that exists under the new one; the user's own paths (``--init``, agent files) stay,
and relocating twice changes nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from carcassonne_env.jsonio import JSONInputError, load

from .storage import atomic_write_bytes, atomic_write_text, dumps

__all__ = ["relocate_run"]

_PATH_SEPARATORS = re.compile(r"([:,=])")


def _relocated_text(text: str, old: Path, new: Path) -> str:
    """``text`` (a path, or an agent spec with paths between ``:``, ``,`` and ``=``) with every path
    under ``old`` whose file exists under ``new`` named there (so moving twice changes nothing). A run
    in ``.`` names its files ``DIR/FILE``: a word alone (``random``, ``snapshots``) is no path of it."""
    def move(token: str) -> str:
        path = Path(token)
        if not token or not path.is_relative_to(old) or (not old.parts and len(path.parts) < 2):
            return token
        moved = new / path.relative_to(old)
        return str(moved) if moved.exists() else token

    return "".join(move(token) for token in _PATH_SEPARATORS.split(text))


def _relocated(data: Any, old: Path, new: Path) -> Any:
    """JSON ``data`` with every string, keys included, relocated (:func:`_relocated_text`)."""
    if isinstance(data, str):
        return _relocated_text(data, old, new)
    if isinstance(data, list):
        return [_relocated(v, old, new) for v in data]
    if isinstance(data, dict):
        return {_relocated(k, old, new): _relocated(v, old, new) for k, v in data.items()}
    return data


def _relocate_tournament(folder: Path, old: Path, new: Path) -> None:
    """``folder``'s tournament with its agent specs relocated: each spec's JSON string replaced whole
    in ``games.jsonl``, then ``tournament.json`` (a kill between the two leaves the old settings,
    which the next pass relocates the same way). A settings file the tournament cannot read is left
    for the tournament's own reader to name."""
    from training.arena.tournament import GAMES_FILE, SETTINGS_FILE

    try:
        settings = load(folder / SETTINGS_FILE)
    except (OSError, JSONInputError):
        return
    if not isinstance(settings, dict) or not isinstance(settings.get("agents"), list):
        return
    moved = _relocated(settings, old, new)
    if moved == settings:
        return
    games = folder / GAMES_FILE
    if games.exists():
        data = games.read_bytes()
        for spec, relocated in zip(settings["agents"], moved["agents"], strict=True):
            data = data.replace(json.dumps(spec).encode(), json.dumps(relocated).encode())
        atomic_write_bytes(games, data)
    atomic_write_text(folder / SETTINGS_FILE, dumps(moved, indent=1) + "\n")


def relocate_run(data: Any, old: str, out: Path) -> Any:
    """A run started in ``old`` and resumed in ``out`` (its directory copied or renamed): every
    tournament under ``out`` is rewritten with the agent specs it plays named in ``out``, and ``data``
    (the run's saved state, JSON) is returned so moved. A path moves when it lies under ``old`` and
    names a file that exists under ``out``: the user's own paths (``--init``, agent files) stay."""
    from training.arena.tournament import SETTINGS_FILE

    if Path(old) == out:
        return data
    for settings in sorted(out.rglob(SETTINGS_FILE)):
        _relocate_tournament(settings.parent, Path(old), out)
    return _relocated(data, Path(old), out)
