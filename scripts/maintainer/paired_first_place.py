"""Compare two agents' first-place shares on the same tile orders: two gauntlets of 3–6 players played
on the same seeds (``--seed``, ``--seeds``, ``--players`` and opponents alike), each with its candidate
in the first seat spec. Per tile order (its games in every seat rotation) the difference of the two
candidates' first-place shares (a tie for first shared, as in ``training/arena/placings.py``); the mean
difference with a 95 % t-interval over the tile orders, so the variation between tile orders, which
both runs share, drops out.

    python scripts/maintainer/paired_first_place.py runs/targets_noise/4p runs/targets_noise/4p_sqrt
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

from training.arena import tournament
from training.arena.placings import seat_values


def first_place_by_seed(folder: Path) -> tuple[str, dict[int, float]]:
    """The gauntlet's candidate (its first spec) and its mean first-place share per tile order."""
    settings = json.loads((folder / "tournament.json").read_text())
    if settings.get("mode") != "gauntlet":
        raise SystemExit(f"{folder}: not a gauntlet")
    candidate = str(settings["agents"][0])
    shares: dict[int, list[float]] = defaultdict(list)
    for game in tournament.iter_games(folder):
        for seat, spec in enumerate(game["seats"]):
            if spec == candidate:
                shares[int(game["seed"])].append(seat_values(game["scores"], game["ranks"], seat)[0])
    if not shares:
        raise SystemExit(f"{folder}: no games of its candidate")
    return candidate, {seed: float(np.mean(v)) for seed, v in shares.items()}


def main(a: Path, b: Path) -> None:
    """Print the paired difference of the two folders' candidates' first-place shares."""
    name_a, first_a = first_place_by_seed(a)
    name_b, first_b = first_place_by_seed(b)
    seeds = sorted(first_a.keys() & first_b.keys())
    if len(seeds) < 2:
        raise SystemExit("fewer than two tile orders in common: not the same seeds?")
    d = np.array([first_a[s] - first_b[s] for s in seeds])
    half = float(stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d)))
    print(f"{len(seeds)} tile orders in common: {name_a} {np.mean([first_a[s] for s in seeds]):.1%}, "
          f"{name_b} {np.mean([first_b[s] for s in seeds]):.1%} first places")
    print(f"difference {d.mean():+.1%} [{d.mean() - half:+.1%}, {d.mean() + half:+.1%}] (95 % t over tile orders)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python scripts/maintainer/paired_first_place.py GAUNTLET_A GAUNTLET_B")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
