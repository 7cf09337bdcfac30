"""Writing the manifest of the shipped models (:mod:`agents.manifest`): what each file of
``agents/pretrained/`` is (:func:`build_manifest`), how the manifest differs from the folder
(:func:`differences`), and the manifest written afresh (:func:`write_manifest`). It reads the tables
the loaders use (:func:`shipped_keys`), so it imports them; the loaders import only
:mod:`agents.manifest`.

The game of a model is read from the model's file where it records one (a value network's
``config``, the az network's ``game``, a zip's :data:`~agents.ppo.GAME_ENTRY` written by the
project's trainers); the SB3 zips saved before the trainers recorded it and the linear values
(which record only their player count) take the game docs/training.md states for them: the tower
variant (:data:`~carcassonne_env.engine.registry.TOWER_VARIANT`) of the player count the linear value
records, or for a zip the count its file name ends in (``_2p.zip``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT

from . import MCTS_PRETRAINED
from .az import SHIPPED_AZ
from .manifest import FIELDS, FORMATS, MANIFEST_NAME, PRETRAINED_DIR, ShippedFileError, read_manifest, sha256_of
from .ppo import SHIPPED, recorded_game
from .shipped_values import AFTERSTATE_FILES, AFTERSTATE_LONG_FILES, LINEAR_FILES

__all__ = ["build_manifest", "differences", "shipped_keys", "write_manifest"]


def shipped_keys() -> dict[str, list[str]]:
    """File name → the spec keys that load it, from the tables the loaders use (:data:`agents.ppo.SHIPPED`,
    :mod:`agents.shipped_values`, :data:`agents.MCTS_PRETRAINED`'s value)."""
    families: dict[str, Mapping[int, str]] = {
        "afterstate:pretrained": AFTERSTATE_FILES, "value=afterstate": AFTERSTATE_FILES,
        "value=afterstate_long": AFTERSTATE_LONG_FILES, "value=linear": LINEAR_FILES,
    }
    families["mcts:pretrained"] = families[next(o for o in MCTS_PRETRAINED.split(",") if o.startswith("value="))]
    keys: dict[str, list[str]] = {}
    for name, path in SHIPPED.items():
        keys.setdefault(path.name, []).append(f"ppo:{name}")
    keys.setdefault(SHIPPED_AZ.name, []).append("az:pretrained")
    for key, files in families.items():
        for file in files.values():
            keys.setdefault(file, []).append(key)
    return {file: sorted(k) for file, k in keys.items()}


def _game(path: Path) -> tuple[dict[str, Any], str]:
    """(the game the model at ``path`` was trained on, ``"file"`` or ``"documented"``: module docstring)."""
    if path.suffix == ".npz":
        from .nets.value_net import ValueNet

        return dict(ValueNet.load(path).config), "file"
    if path.suffix == ".pt":
        from .az import load_net

        return load_net(path).config.to_dict(), "file"
    if path.suffix == ".json":
        from .value import LinearValue

        players = LinearValue.load(path).players
    else:
        game = recorded_game(path)
        if game is not None:
            return game, "file"
        named = re.search(r"_(\d+)p$", path.stem)
        players = int(named.group(1)) if named else None
    if players is None:
        raise ValueError(f"{path}: records no game and its name ends in no player count (_2p{path.suffix})")
    return GameConfig(players=players, expansions=TOWER_VARIANT).to_dict(), "documented"


def build_manifest(directory: Path = PRETRAINED_DIR,
                   previous: Mapping[str, Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The entries (:data:`FIELDS`) of every file in ``directory`` but the manifest, by name. A policy's
    layout version is fixed when its bytes are first listed: an entry of ``previous`` with the same
    SHA-256 keeps its version, a new or changed file gets this env's. ValueError for a file of no
    format of :data:`FORMATS`."""
    from carcassonne_env.environment.layout import LAYOUT_VERSION

    keys = shipped_keys()
    entries = []
    for path in sorted(p for p in directory.iterdir() if p.name != MANIFEST_NAME and not p.name.startswith(".")):
        if path.suffix not in FORMATS or not path.is_file():
            raise ValueError(f"{path}: not a shipped model's format ({', '.join(FORMATS)})")
        form, carries_code = FORMATS[path.suffix]
        digest = sha256_of(path)
        game, source = _game(path)
        before = (previous or {}).get(path.name)
        version = None if not carries_code else (
            before["layout_version"] if before is not None and before["sha256"] == digest else LAYOUT_VERSION)
        entries.append({"file": path.name, "sha256": digest, "size": path.stat().st_size, "format": form,
                        "carries_code": carries_code, "keys": keys.get(path.name, []), "game": game,
                        "game_source": source, "layout_version": version})
    return entries


def differences(directory: Path = PRETRAINED_DIR) -> list[str]:
    """One line per way ``directory``'s manifest differs from what :func:`build_manifest` makes of the folder
    now: a file it does not list, a listed file gone, a field that differs (empty: up to date)."""
    try:
        listed = read_manifest(directory)
    except ShippedFileError as e:
        return [str(e)]
    fresh = {e["file"]: e for e in build_manifest(directory, listed)}
    return ([f"{name}: in {directory} but not in the manifest" for name in sorted(fresh.keys() - listed.keys())]
            + [f"{name}: in the manifest but not in {directory}" for name in sorted(listed.keys() - fresh.keys())]
            + [f"{name}: its {field} is not the manifest's" for name in sorted(fresh.keys() & listed.keys())
               for field in FIELDS if fresh[name][field] != listed[name][field]])


def write_manifest(directory: Path = PRETRAINED_DIR) -> Path:
    """Write ``directory``'s manifest afresh from its files (atomically), keeping the layout versions of
    unchanged files (:func:`build_manifest`); its path."""
    try:
        previous: Mapping[str, Mapping[str, Any]] = read_manifest(directory)
    except ShippedFileError:
        previous = {}
    document = {"about": "The shipped models, known by content (agents/manifest.py). Written by "
                         "`python scripts/maintainer/pretrained_manifest.py --write`: never edit it by hand.",
                "files": build_manifest(directory, previous)}
    path = directory / MANIFEST_NAME
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
