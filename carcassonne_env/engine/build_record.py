"""The build record of a compiled package: which source each of its compiled modules was built from.

``setup.py`` writes one record (:data:`RECORD_NAME`, JSON) into each package it compiles, next to the
extensions (in the wheel, or in the source tree for ``pip install -e .``), and
:mod:`carcassonne_env.engine.compiled_core` reads it at import. A compiled module runs only while the
SHA-256 of its source file equals the one recorded when it was built: file times prove nothing, since
pip unpacks a wheel's ``.so`` before its ``.py``, and a checkout rewrites sources without a rebuild.
A record without sources says why nothing was compiled: ``failure`` names what broke (no C compiler,
no Python headers, a mypyc error), or is None when the pure-Python engine was asked for.

This module is stdlib-only and imports nothing of the package: ``setup.py`` loads it by its path in
a build environment that has none of the project's dependencies.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["RECORD_NAME", "BuildRecord", "read", "source_hash", "write"]

#: The record's file name, inside the compiled package's directory.
RECORD_NAME = "_compiled_sources.json"


@dataclass(frozen=True)
class BuildRecord:
    """What the last build of one package compiled: module name → SHA-256 (hex) of the source file
    it was built from (empty when nothing was), and why nothing was when the build failed."""

    sources: dict[str, str] = field(default_factory=dict)
    failure: str | None = None


def source_hash(path: Path) -> str:
    """The SHA-256 (hex) of a source file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write(directory: Path, sources: list[Path], failure: str | None) -> Path:
    """Record in ``directory`` that ``sources`` (module source files) were compiled, or, when
    ``sources`` is empty, that nothing was and why (``failure``; None: the pure engine was asked for)."""
    record = {"sources": {path.stem: source_hash(path) for path in sources}, "failure": failure}
    directory.mkdir(parents=True, exist_ok=True)
    out = directory / RECORD_NAME
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return out


def read(directory: Path) -> BuildRecord | None:
    """The record of ``directory``, or None when it has none, or none that can be read (as from a
    build older than the records): its compiled modules then count as built from unknown sources."""
    try:
        data = json.loads((directory / RECORD_NAME).read_text())
        sources, failure = data["sources"], data["failure"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (isinstance(sources, dict) and all(isinstance(v, str) for v in sources.values())):
        return None
    return BuildRecord(sources={str(k): v for k, v in sources.items()},
                       failure=failure if isinstance(failure, str) else None)
