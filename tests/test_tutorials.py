"""The tutorials of docs/tutorials/: every script runs end to end in its short mode, and every page shows its script.

Each script runs in a subprocess with ``CARCASSONNE_TUTORIAL_SHORT=1``, in a fresh working directory (its
``runs/tutorials/`` output lands there), and must print the line that shows it did its job: a rating, a
throughput, the same games three ways. A tutorial needs its library (an extra); where one is missing the
test is skipped, naming it, except under ``CARCASSONNE_REQUIRE_TUTORIALS=1`` (``scripts/test.sh``, which
installs every extra), where it fails.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "docs" / "tutorials"

#: Tutorial → (the modules it needs, with the extra that installs them; what its output must show).
EXPECTED: dict[str, tuple[dict[str, str], str]] = {
    "sb3_maskable_ppo": ({"sb3_contrib": "train"},
                         r"ppo:\S+model\.zip against random: score [\d.]+ % .*, 4 games"),
    "cleanrl_ppo": ({"torch": "train", "tyro": "train"},
                    r"(?s)iteration 1/1: 256 steps, \d+ steps/s, win rate [\d.]+ over the last \d+ games.*"
                    r"cleanrl_ppo against random: score [\d.]+ % .*, 4 games"),
    "tianshou_ppo": ({"tianshou": "tutorials"},
                     r"(?s)trained 256 env steps.*tianshou_ppo against random: score [\d.]+ % .*, 4 games"),
    "rllib": ({"ray": "ray"},
              r"(?s)iteration 1: 256 env steps.*one self-play game of the loaded module: scores \(\d+, \d+\)"
              r".*rllib against random: score [\d.]+ % .*, 4 games"),
    "turn_based": ({}, r"refuses: Converting from an AEC environment(?s:.*)the same 2 games all three ways"),
    "vectorised": ({"sb3_contrib": "train"},
                   r"(?s)(gymnasium (Sync|Async)VectorEnv: \d+ env steps/s .*){2}(SB3 (Dummy|Subproc)VecEnv: \d+ env "
                   r"steps/s .*){2}MaskablePPO on SB3 SubprocVecEnv: 256 env steps"),
    "my_agent_on_the_ladder": ({"torch": "train"},
                               r"(?s)carcassonne evaluate \S+my_agent_on_the_ladder\.py:MyAgent --seeds 1.*"
                               r"MyAgent on the ladder: Elo [-+]\d+ \[[-+]\d+, [-+]\d+\] \(random = 0\), score "
                               r"[\d.]+ % over 8 games"),
}


def test_every_tutorial_script_is_tested_and_shown_on_its_page_and_in_the_nav() -> None:
    scripts = {path.stem for path in TUTORIALS.glob("*.py")}
    assert scripts == set(EXPECTED)
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for name in sorted(scripts):
        page = (TUTORIALS / f"{name}.md").read_text(encoding="utf-8")
        assert f'--8<-- "docs/tutorials/{name}.py' in page, f"{name}.md includes no part of its script"
        assert f"CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/{name}.py" in page, name
        assert f"tutorials/{name}.md" in nav, f"{name}.md is not in the site's nav"
        script = (TUTORIALS / f"{name}.py").read_text(encoding="utf-8")
        assert 'os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"' in script, name


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    # the RLlib tutorial starts a local Ray: with the other Ray tests (xdist group "ray"), never beside them
    pytest.param(name, marks=pytest.mark.xdist_group("ray")) if name == "rllib" else name for name in sorted(EXPECTED)])
def test_the_tutorial_runs_in_its_short_mode(name: str, tmp_path: Path) -> None:
    needs, expected = EXPECTED[name]
    missing = [f"{module} (the {extra} extra)" for module, extra in needs.items()
               if importlib.util.find_spec(module) is None]
    if missing:
        message = f"docs/tutorials/{name}.py needs {', '.join(missing)}"
        if os.environ.get("CARCASSONNE_REQUIRE_TUTORIALS", "") not in ("", "0"):
            pytest.fail(f"{message}, and CARCASSONNE_REQUIRE_TUTORIALS is set")
        pytest.skip(message)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env = {**os.environ, "CARCASSONNE_TUTORIAL_SHORT": "1", "PYTHONPATH": path}
    done = subprocess.run([sys.executable, str(TUTORIALS / f"{name}.py")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert re.search(expected, done.stdout), done.stdout
