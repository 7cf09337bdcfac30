"""``pip wheel .`` gives a user the fast engine: the wheel, installed into a fresh virtual environment,
runs the compiled core (``setup.py``) with no warning at import, and a game plays to its end.

The wheel is built as a user builds it from a clone (``pip wheel . --no-deps``, in pip's isolated
build environment with the build requirements of ``pyproject.toml``: mypyc compiles), from a copy of
the working tree's files that git lists: the repository's own ``build/`` may hold leftovers of other
builds, and another build there at the same moment would share mypyc's C sources (``build/mypyc``).
The copy takes mypyc's type-check cache along (``build/mypy-cache``, :data:`MYPYC_CACHE`, written by
the editable install's own mypyc run: ``scripts/setup.sh`` points ``MYPY_CACHE_DIR`` there): mypy
trusts a cached module only while its source's hash is unchanged, so the wheel is the same, and its
type check of the whole program (two of the three minutes of a first build on two cores) is not
done again. Where this machine cannot compile (no C compiler or no Python headers) the
wheel holds the Python engine, whose first import must say so in one warning, and the test fails
only where CI requires the compiled core (``CARCASSONNE_REQUIRE_COMPILED=1``, ``scripts/test.sh``).

The fresh venv gets the project's dependencies from this test environment, by a ``.pth`` line naming
its site-packages, not from the package index: installing numpy, gymnasium, pettingzoo, scipy and
matplotlib anew takes minutes and tests pip's resolver rather than the wheel, while the lower
bounds of the declared dependencies have their own check (``scripts/test_lower_bounds.sh``). A
``.pth`` line adds a directory without running that directory's own ``.pth`` files, so this
environment's editable install of the project stays out: the project can only come from the wheel
(the check asserts where its modules load from).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
#: mypyc's type-check cache, apart from the strict ``mypy`` run's ``.mypy_cache`` (``scripts/setup.sh``).
MYPYC_CACHE = Path("build") / "mypy-cache"

#: Run in the fresh venv, from a directory outside the repository: which engine runs, and a game.
CHECK = r"""
import importlib.metadata, json
import gymnasium
import agents, carcassonne_env
from carcassonne_env.engine import COMPILED, Game, GameConfig
from carcassonne_env.engine import game as game_module
from agents.spec import make_agent

game = Game(GameConfig(players=2, expansions=("tower",)), seed=5)
players = [make_agent("greedy", seed=s) for s in range(2)]
while not game.is_over:
    game.apply(players[game.current_player].choose_action(game))
env = gymnasium.make("carcassonne_env/Carcassonne-v1", players=2)
print(json.dumps({
    "compiled": COMPILED, "agents": agents.COMPILED, "game_module": game_module.__file__,
    "package": carcassonne_env.__file__, "scores": list(game.scores), "env": type(env.unwrapped).__name__,
    "version": carcassonne_env.__version__, "metadata_version": importlib.metadata.version("carcassonne-env"),
}))
"""


def _can_compile() -> bool:
    """Whether this interpreter can build C extensions: its C compiler and its headers are here."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(compiler) is not None and (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file()


def _copy_working_tree(to: Path) -> None:
    """The files of the working tree that git lists (tracked, or new and not ignored): a clone's;
    and mypyc's cache, where there is one."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)
    try:
        shutil.copytree(ROOT / MYPYC_CACHE, to / MYPYC_CACHE)
    except (OSError, shutil.Error):  # none, or a build rewriting it: the build type-checks afresh
        shutil.rmtree(to / MYPYC_CACHE, ignore_errors=True)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{' '.join(args)}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.mark.slow


def test_a_wheel_installed_in_a_fresh_venv_runs_the_compiled_core(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CARCASSONNE_PURE_PYTHON", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    source, dist, venv, elsewhere = (tmp_path / name for name in ("source", "dist", "venv", "elsewhere"))
    elsewhere.mkdir()
    _copy_working_tree(source)
    env["MYPY_CACHE_DIR"] = str(source / MYPYC_CACHE)
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q", "-w", str(dist)], source, env)
    (wheel,) = dist.glob("carcassonne_env-*.whl")

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    for package in ("carcassonne_env/engine", "agents"):  # the build records travel with the modules
        assert f"{package}/_compiled_sources.json" in names
    assert "agents/pretrained/manifest.json" in names  # no shipped key loads without it (agents/manifest.py)

    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], elsewhere, env)
    python = venv / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        elsewhere, env).stdout.strip())
    (purelib / "test_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
          str(wheel)], elsewhere, env)

    compiles = _can_compile()
    if not compiles and os.environ.get("CARCASSONNE_REQUIRE_COMPILED", "") not in ("", "0"):
        pytest.fail("no C compiler or no Python headers here, and CARCASSONNE_REQUIRE_COMPILED is set")
    # the compiled core imports without a single warning; the fallback, with exactly one
    out = _run([str(python), *(["-W", "error"] if compiles else []), "-c", CHECK], elsewhere, env)
    report = json.loads(out.stdout.splitlines()[-1])
    assert Path(report["package"]).is_relative_to(venv), report["package"]  # the wheel's, not the source tree's
    assert report["compiled"] is compiles and report["agents"] is compiles, report
    assert report["game_module"].endswith(".py") is not compiles, report["game_module"]
    if not compiles:
        assert out.stderr.count("RuntimeWarning") == 1, out.stderr
        assert "the compiled core was not built when this package was installed" in out.stderr
    assert report["env"] == "SingleAgentEnv" and len(report["scores"]) == 2
    assert report["version"] == report["metadata_version"]
