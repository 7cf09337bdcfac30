"""The shipped models, known by content: the manifest ``agents/pretrained/manifest.json``.

Every file of ``agents/pretrained/`` is listed there with its SHA-256, its size, its format (and
whether that format can carry code), the game it was trained on, the observation/action layout
version it reads and the spec keys that load it (:data:`FIELDS`). It is written by
:mod:`agents.manifest_writer`, never by hand:

    python scripts/maintainer/pretrained_manifest.py --write   # after adding, replacing or removing a file
    python scripts/maintainer/pretrained_manifest.py           # check: one line per difference

and ``tests/test_pretrained_manifest.py`` fails while it is out of date.

Invariant: a shipped key (``ppo:pooled``, ``afterstate:pretrained``, ``value=linear`` ...) loads a
file only through :func:`verified`, which refuses it, before anything reads it as a model, unless
the manifest lists it, its SHA-256 is the manifest's and, for a policy, the layout version it was
trained under is this env's: a file dropped into the folder, or one changed there, is never loaded
by a key. (The manifest lies in the same folder: it guards against a stray or damaged file, not
against someone who can rewrite the package.) A path given in a spec (``ppo:PATH``) is not a
shipped key and is not checked here.

:func:`trained_games` gives the games the models of a key were trained on, for a caller to warn when
a model is seated in another game. The loaders (:mod:`agents.ppo`, :mod:`agents.shipped_values`)
import this module; it imports none of them.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["FIELDS", "FORMATS", "MANIFEST_NAME", "PRETRAINED_DIR", "ShippedFileError", "read_manifest",
           "sha256_of", "trained_games", "verified"]

#: Where the shipped models live (found through the package: some of its modules are compiled).
PRETRAINED_DIR = Path(str(resources.files("agents").joinpath("pretrained")))
#: The manifest's file name in that folder (the one file there that is not a model).
MANIFEST_NAME = "manifest.json"
#: The fields of a manifest entry: the file's name, its SHA-256 (hex) and size in bytes, its format and
#: whether that format can carry code (:data:`FORMATS`), the spec keys that load it, the game it was
#: trained on (``GameConfig.to_dict()``), where that game comes from (``"file"``: the model records it;
#: ``"documented"``: docs/training.md states it) and the observation/action layout version
#: (:data:`carcassonne_env.environment.layout.LAYOUT_VERSION`) of a policy (null for a position value,
#: which reads the engine's features, not the env's observation: its file names them and its loader
#: checks them).
FIELDS = ("file", "sha256", "size", "format", "carries_code", "keys", "game", "game_source", "layout_version")
#: Suffix → (format, whether loading it can run code). ``npz`` loads with ``allow_pickle=False``,
#: ``json`` is parsed and ``pt`` (the az network) loads with ``torch.load(weights_only=True)``: data.
#: An SB3 zip's ``data`` entry holds cloudpickled objects (the policy class, the spaces), which
#: loading unpickles: code.
FORMATS: Mapping[str, tuple[str, bool]] = {".npz": ("npz", False), ".json": ("json", False),
                                           ".pt": ("torch-weights", False), ".zip": ("sb3-zip", True)}
_CHUNK = 1 << 20


class ShippedFileError(ValueError):
    """A shipped file refused by :func:`verified` (or an unreadable manifest): one line naming the file
    and what differs."""


def sha256_of(path: Path) -> str:
    """The SHA-256 (hex) of the file at ``path``, computed once per (path, modification time, size), so a
    tournament building one agent per game hashes each shipped file once."""
    stat = path.stat()
    return _digest(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_manifest(directory: Path = PRETRAINED_DIR) -> Mapping[str, Mapping[str, Any]]:
    """File name → entry (:data:`FIELDS`) of ``directory``'s manifest, read once per version of the file;
    ShippedFileError when it is missing or not a manifest."""
    path = directory / MANIFEST_NAME
    try:
        stat = path.stat()
    except OSError as e:
        raise ShippedFileError(f"{path}: cannot read the manifest of the shipped models ({e.strerror}); "
                               "reinstall the package") from None
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4)
def _parsed(path: str, mtime_ns: int, size: int) -> Mapping[str, Mapping[str, Any]]:
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))["files"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) and set(e) == set(FIELDS) for e in entries):
            raise ValueError(f"each entry must have exactly the fields {', '.join(FIELDS)}")
        return {str(e["file"]): e for e in entries}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ShippedFileError(f"{path}: not a manifest of the shipped models ({type(e).__name__}: {e}); "
                               "reinstall the package") from None


def verified(path: Path) -> Path:
    """``path``, a shipped model, once it is what the manifest of its folder lists (module docstring);
    ShippedFileError naming the file and what differs otherwise. Reads the file only to hash it."""
    entry = read_manifest(path.parent).get(path.name)
    if entry is None:
        raise ShippedFileError(f"{path}: not in the manifest of the shipped models ({MANIFEST_NAME}), so no shipped "
                               "name loads it; reinstall the package or restore the folder")
    try:
        digest = sha256_of(path)
    except OSError as e:
        raise ShippedFileError(f"{path}: cannot be read ({e.strerror}); reinstall the package or restore the "
                               "file") from None
    if digest != entry["sha256"]:
        raise ShippedFileError(f"{path}: its SHA-256 is not the manifest's; reinstall the package or restore the file")
    version = entry["layout_version"]
    if version is not None:
        from carcassonne_env.environment.layout import LAYOUT_VERSION

        if version != LAYOUT_VERSION:
            raise ShippedFileError(f"{path}: trained under observation/action layout {version}, and this env's is "
                                   f"{LAYOUT_VERSION}: it would misread every observation; retrain it")
    return path


def trained_games(key: str) -> list[dict[str, Any]]:
    """The games (``GameConfig.to_dict()``) the models of the shipped ``key`` (``ppo:pooled``,
    ``value=linear``, ``afterstate:pretrained`` ...: an entry's ``keys``) were trained on, fewest players
    first, from the manifest: one for a single model, one per player count for a family. A caller seating
    the key in a game not among them can warn. ValueError for a key no shipped model has."""
    games = [dict(e["game"]) for e in read_manifest().values() if key in e["keys"]]
    if not games:
        known = sorted({k for e in read_manifest().values() for k in e["keys"]})
        raise ValueError(f"{key!r} is not a shipped key (shipped: {', '.join(known)})")
    return sorted(games, key=lambda game: int(game["players"]))
