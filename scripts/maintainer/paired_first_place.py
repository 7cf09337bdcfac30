"""Compare two agents' first-place shares on the same tile orders: two gauntlets of 3–6 players played
on the same seeds (``--seed``, ``--seeds``, ``--players`` and opponents alike), each with its candidate
in the first seat spec, or two 2-player tournaments of a candidate against the same opponent (its first
spec; the first-place share is then the score share, a draw half). Per tile order (its games in every
seat rotation) the difference of the two candidates' first-place shares (a tie for first shared, as in
``training/arena/placings.py``); the mean difference with a 95 % t-interval over the tile orders, so the
variation between tile orders, which both runs share, drops out. More pairs of folders are each
compared, then pooled over all their tile orders (e.g. three seeds of one change).

    python scripts/maintainer/paired_first_place.py runs/targets_noise/4p runs/targets_noise/4p_sqrt
    python scripts/maintainer/paired_first_place.py runs/new_s1 runs/old_s1 runs/new_s2 runs/old_s2
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy import stats

from training.arena import tournament
from training.arena.placings import seat_values


def first_place_by_seed(folder: Path) -> tuple[str, dict[int, float]]:
    """The gauntlet's candidate (its first spec) and its mean first-place share per tile order."""
    settings = json.loads((folder / "tournament.json").read_text())
    if settings.get("mode") != "gauntlet" and len(settings["agents"]) != 2:
        raise SystemExit(f"{folder}: neither a gauntlet nor a tournament of two agents")
    candidate = str(settings["agents"][0])
    shares: dict[int, list[float]] = defaultdict(list)
    for game in tournament.iter_games(folder):
        for seat, spec in enumerate(game["seats"]):
            if spec == candidate:
                shares[int(game["seed"])].append(seat_values(game["scores"], game["ranks"], seat)[0])
    if not shares:
        raise SystemExit(f"{folder}: no games of its candidate")
    return candidate, {seed: float(np.mean(v)) for seed, v in shares.items()}


def differences(a: Path, b: Path) -> npt.NDArray[np.float64]:
    """Print the paired difference of the two folders' candidates' first-place shares; return it per tile order."""
    name_a, first_a = first_place_by_seed(a)
    name_b, first_b = first_place_by_seed(b)
    seeds = sorted(first_a.keys() & first_b.keys())
    if len(seeds) < 2:
        raise SystemExit(f"{a}, {b}: fewer than two tile orders in common: not the same seeds?")
    d = np.array([first_a[s] - first_b[s] for s in seeds])
    print(f"{len(seeds)} tile orders in common: {name_a} {np.mean([first_a[s] for s in seeds]):.1%}, "
          f"{name_b} {np.mean([first_b[s] for s in seeds]):.1%} first places")
    print(f"difference {_interval(d)}")
    return d


def _interval(d: npt.NDArray[np.float64]) -> str:
    half = float(stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d)))
    return f"{d.mean():+.1%} [{d.mean() - half:+.1%}, {d.mean() + half:+.1%}] (95 % t over tile orders)"


def main(folders: list[Path]) -> None:
    """Each pair of ``folders`` compared; with more than one pair, all their tile orders pooled."""
    pooled = np.concatenate([differences(a, b) for a, b in zip(folders[::2], folders[1::2], strict=True)])
    if len(folders) > 2:
        print(f"pooled over {len(pooled)} tile orders: difference {_interval(pooled)}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        raise SystemExit("usage: python scripts/maintainer/paired_first_place.py A B [A B ...] (folders)")
    main([Path(arg) for arg in sys.argv[1:]])
