"""What a user meets before any game: the registrations ``import carcassonne_env`` makes, the one
version, the licence, the classifiers and the package data (``pyproject.toml``; the wheel itself:
``tests/test_wheel_install.py``)."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import carcassonne_env

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (CI runs 3.11)

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def _run(code: str) -> str:
    """``code`` in a fresh interpreter (the registries start empty), warnings as errors, from
    outside the repository."""
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True,
                         cwd=ROOT.parent, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


MAKE = "type(gymnasium.make({id!r}, players=2).unwrapped).__name__"


@pytest.mark.parametrize(
    "imports, gym_id",
    [
        ("import carcassonne_env, gymnasium", "carcassonne_env/Carcassonne-v1"),  # gymnasium imported after
        ("import gymnasium, carcassonne_env", "carcassonne_env/Carcassonne-v1"),  # gymnasium imported before
        ("import gymnasium", "carcassonne_env:carcassonne_env/Carcassonne-v1"),  # gymnasium imports the package
        ("import gymnasium", "carcassonne_env.environment:carcassonne_env/Carcassonne-v1"),
    ],
)
def test_gymnasium_makes_the_single_agent_env_after_import_carcassonne_env(imports: str, gym_id: str) -> None:
    assert _run(f"{imports}; print({MAKE.format(id=gym_id)})") == "SingleAgentEnv"


def test_without_the_import_gymnasium_does_not_know_the_env() -> None:
    """The registration is the package's import, not a side effect of something else."""
    code = "import gymnasium; print('carcassonne_env/Carcassonne-v1' in gymnasium.registry)"
    assert _run(code) == "False"


@pytest.mark.parametrize("order", ["import carcassonne_env, pettingzoo", "import pettingzoo, carcassonne_env"])
def test_pettingzoo_makes_the_aec_env_after_import_carcassonne_env(order: str) -> None:
    for name in ("carcassonne_v1", "carcassonne_v0"):
        code = f"{order}; print(pettingzoo.make('aec', {name!r}, players=3).unwrapped.metadata['name'])"
        assert _run(f"import warnings; warnings.simplefilter('ignore'); {code}") == name


def test_the_version_has_one_source() -> None:
    """pyproject.toml reads the version from ``carcassonne_env.__version__``: the installed metadata
    (editable here, a wheel in test_wheel_install.py) says the same, and nothing else states it."""
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert carcassonne_env.__version__ == importlib.metadata.version("carcassonne-env")
    assert re.fullmatch(r"\d+\.\d+\.\d+", carcassonne_env.__version__)


def test_the_licence_is_the_mit_text_the_metadata_names() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Copyright (c) 2026 the carcassonne_env authors" in text
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]


def test_the_python_classifiers_are_the_versions_tested() -> None:
    """Python 3.N classifiers: each version from requires-python's floor (the version ruff and mypy
    check the code for) on, without a gap, and the one running these tests (CI's) among them."""
    floor = re.fullmatch(r">=3\.(\d+)", PROJECT["requires-python"])
    assert floor, PROJECT["requires-python"]
    classifiers = PROJECT["classifiers"]
    pattern = re.compile(r"Programming Language :: Python :: 3\.(\d+)")
    minors = sorted(int(m[1]) for c in classifiers if (m := pattern.fullmatch(c)))
    assert minors == list(range(int(floor[1]), max(minors) + 1)), minors
    assert sys.version_info.minor in minors, f"the classifiers do not name Python 3.{sys.version_info.minor}"
    for wanted in ("Topic :: Games/Entertainment :: Board Games", "Typing :: Typed",
                   "Topic :: Scientific/Engineering :: Artificial Intelligence"):
        assert wanted in classifiers
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    # PEP 639: the SPDX licence expression replaces the License classifiers (setuptools rejects both)
    assert not any(c.startswith("License :: ") for c in classifiers)
    assert sorted(PROJECT["urls"]) == ["Documentation", "Issues", "Source"]


def test_every_shipped_model_and_its_manifest_are_package_data() -> None:
    """A wheel ships every file of ``agents/pretrained/``, the manifest included: without it no shipped
    key loads (agents/manifest.py)."""
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["agents"]
    shipped = sorted(p.relative_to(ROOT / "agents").as_posix() for p in (ROOT / "agents" / "pretrained").iterdir())
    assert "pretrained/manifest.json" in shipped
    assert [name for name in shipped if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)] == []
