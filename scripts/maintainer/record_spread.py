"""Measure a value network's spread on games it was not fitted on, and record it in the network: the
standard deviation of the final scores still to come (points at the game's start, scaled by √t) that
explains the network's mean squared error on those games (:func:`agents.first_place.spread_of_residuals`).
An afterstate agent at 3 or more players aims at first place with it (:mod:`agents.first_place`).
``carcassonne train afterstate`` records the spread of each fit on its held-out games; this is for a
network made before it did, or adopted from another player count (whose spread is not carried over).

    python scripts/maintainer/record_spread.py agents/pretrained/afterstate_tower_4p.npz \\
        runs/table4_seed1/gen_001/self_play [--write]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from agents.first_place import spread_of_residuals
from agents.nets.value_net import ValueNet
from training.afterstate.value_iteration import read_records, samples_from_games


def main() -> None:
    """Print the network's error and spread on the games; with --write, store the spread in the network."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("network", type=Path, help="a value network (.npz) of carcassonne train afterstate")
    parser.add_argument("games", type=Path, nargs="+", help="tournament folders of games of the network's game")
    parser.add_argument("--write", action="store_true", help="record the spread in the network's info")
    args = parser.parse_args()
    net = ValueNet.load(args.network)
    records = read_records(args.games)
    for record in records:
        net.check_config(record.config.to_dict())
    samples = samples_from_games(records)
    n = samples.players
    x = samples.x.reshape(-1, n, samples.x.shape[1])
    t = samples.t.reshape(-1, n)
    y = samples.y.reshape(-1, n)
    if net.relative:
        y = y - y.mean(axis=1, keepdims=True)
    mse = float(((net.corrections(x, t) - y) ** 2).mean())
    spread = spread_of_residuals(mse, float(t.mean()), n, net.relative)
    print(f"{args.network}: {len(records)} games of {n} players, {len(y)} positions: mean squared error "
          f"{mse:.1f}, mean pile share {t.mean():.3f}, spread {spread:.1f} points")
    if args.write:
        info = {**net.info, "spread": round(spread, 2),
                "spread_measured_on": f"{len(records)} games: {', '.join(map(str, args.games))}"}
        replace(net, info=info).save(args.network)
        print(f"recorded in {args.network}")


if __name__ == "__main__":
    main()
