"""docs/architecture.md stays in step with the packages: it names every top-level package and every
sub-package (a folder with an ``__init__.py``) of ``carcassonne_env``, ``agents`` and ``training``
as ``path/`` (``training/arena/``), and every module or folder path it names (``path/to/x.py``,
``path/to/``) exists in the repository."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "architecture.md"
#: The project's packages, each a layer (tests/test_import_graph.py).
PACKAGES = ("carcassonne_env", "agents", "training")
#: A repository path the page names: folders joined by ``/``, then a module ``x.py`` or a final ``/``.
#: Not part of a longer path, a link target (``](x.md)``) or a URL.
_PATH = re.compile(r"(?<![\w./:-])((?:\w+/)+(?:\w+\.py)?)(?![\w/])")


def packages(root: Path = REPO) -> set[str]:
    """Every package and sub-package of :data:`PACKAGES` under ``root``, as ``path/``."""
    return {f"{init.parent.relative_to(root).as_posix()}/"
            for name in PACKAGES for init in (root / name).rglob("__init__.py")}


def named_paths(text: str) -> set[str]:
    """The module paths (``x/y.py``) and folder paths (``x/y/``) that ``text`` names."""
    return set(_PATH.findall(text))


def test_the_page_names_every_package() -> None:
    missing = packages() - named_paths(PAGE.read_text(encoding="utf-8"))
    assert not missing, f"docs/architecture.md does not name {sorted(missing)}"


def test_every_path_the_page_names_exists() -> None:
    gone = {p for p in named_paths(PAGE.read_text(encoding="utf-8")) if not (REPO / p).exists()}
    assert not gone, f"docs/architecture.md names paths that do not exist: {sorted(gone)}"


def test_paths_are_read_as_meant() -> None:
    text = "`training/arena/` and `agents/spec.py`, [Engine](engine.md), https://x.org/a/b.py, a/b.pyc"
    assert named_paths(text) == {"training/arena/", "agents/spec.py"}

