"""Measure a value network's noise on games it was not fitted on, and record it in the network: the
standard deviation of its errors on the final scores, per pile share
(:class:`agents.first_place.MeasuredNoise`). An afterstate agent at 3 or more players aims at first
place under it (:mod:`agents.first_place`). ``carcassonne train afterstate`` records the noise of each
fit on its held-out games; this is for a network made before it did, or adopted from another player
count (whose noise is not carried over).

    python scripts/maintainer/record_noise.py agents/pretrained/afterstate_tower_4p.npz \\
        runs/table4_seed1/gen_001/self_play [--write]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np

from agents.nets.value_net import ValueNet
from training.afterstate.value_iteration import _read_records, heldout_noise, samples_from_games


def main() -> None:
    """Print the network's noise per pile share on the games; with --write, store it in the network."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("network", type=Path, help="a value network (.npz) of carcassonne train afterstate")
    parser.add_argument("games", type=Path, nargs="+", help="tournament folders of games of the network's game")
    parser.add_argument("--write", action="store_true", help="record the noise in the network's info")
    args = parser.parse_args()
    net = ValueNet.load(args.network)
    records = _read_records(args.games)
    for record in records:
        net.check_config(record.config.to_dict())
    samples = samples_from_games(records)
    noise = heldout_noise(net, samples, np.ones(len(samples.t), dtype=bool))
    print(f"{args.network}: {len(records)} games of {samples.players} players, "
          f"{len(samples.t) // samples.players} positions; final-score noise per pile share:")
    for t, sd in zip(noise.t, noise.sd, strict=True):
        print(f"  t {t:.3f}  sd {sd:5.1f} points")
    if args.write:
        info = {k: v for k, v in net.info.items() if k not in ("spread", "spread_measured_on")}
        measured_on = f"{len(records)} games: {', '.join(map(str, args.games))}"
        info |= {"noise": noise.to_info(), "noise_measured_on": measured_on}
        replace(net, info=info).save(args.network)
        print(f"recorded in {args.network}")


if __name__ == "__main__":
    main()
