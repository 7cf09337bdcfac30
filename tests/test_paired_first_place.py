"""``scripts/maintainer/paired_first_place.py`` on 2-player tournaments: a candidate's first-place share
per tile order is its score share (a win 1, a draw ½), and pairs of folders pool their tile orders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from source_module import load_module

REPO = Path(__file__).parents[1]
SCRIPT = REPO / "scripts" / "maintainer" / "paired_first_place.py"


@pytest.fixture(scope="module")
def paired() -> ModuleType:
    return load_module("paired_first_place", SCRIPT)


def tournament(out: Path, *specs: str) -> Path:
    result = subprocess.run([sys.executable, "-m", "training.cli", "tournament", *specs, "--seeds", "3", "--seed",
                             "40", "--workers", "1", "--out", str(out), "--no-progress"], cwd=REPO,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.slow


def test_a_head_to_heads_share_is_the_candidates_score_share_and_pairs_pool(
        paired: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    greedy = tournament(tmp_path / "greedy", "greedy", "random")
    other_run = tournament(tmp_path / "random", "random", "greedy")
    expected: dict[int, list[float]] = {}
    for line in (greedy / "games.jsonl").read_text().splitlines():
        game = json.loads(line)
        me = game["seats"].index("greedy")
        mine, theirs = game["scores"][me], game["scores"][1 - me]
        expected.setdefault(game["seed"], []).append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    name, shares = paired.first_place_by_seed(greedy)
    assert name == "greedy" and shares == {seed: float(np.mean(v)) for seed, v in expected.items()}
    assert len(shares) == 3 and all(len(v) == 2 for v in expected.values())  # both seats of each tile order
    assert not paired.differences(greedy, greedy).any()
    d = paired.differences(greedy, other_run)
    _, other = paired.first_place_by_seed(other_run)
    assert list(d) == [shares[s] - other[s] for s in sorted(shares)]
    capsys.readouterr()
    paired.main([greedy, other_run, greedy, greedy])
    assert "pooled over 6 tile orders: difference " + f"{np.concatenate([d, np.zeros(3)]).mean():+.1%}" in (
        capsys.readouterr().out)
