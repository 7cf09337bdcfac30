"""What an ``az`` expert-iteration run's networks know about its held-out games: each network's
cross-entropy to the search's improved policy, argmax agreement and value RMSE (points, against the
residual of the final margin over the base value) on the games the trainer held out of one fit.

    python scripts/maintainer/az_heldout.py runs/az/seed1 --generations 2 3 \\
        --networks pretrained runs/az/seed1/gen_002/candidate.pt runs/az/seed1/gen_003/candidate.pt

The positions are those of the fit of the last generation named (its window): every recorded decision
of their self-play games, the same games held out as the trainer held out (``--holdout``, its default
0.1; :func:`training.az.expert_iteration.held_out`). ``pretrained`` (the shipped warm start) has a
value head of 0, so its value RMSE is that of the base value alone: what the fits could learn. Prints
a Markdown table (docs/experiments/2026-12-07-az-expert-iteration.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch as th

from agents.az import SHIPPED_AZ
from agents.manifest import verified
from agents.nets.pv_net import PVNet
from carcassonne_env.environment.layout import Layout
from training.az.expert_iteration import held_out, positions_of
from training.az.fit import Position, heldout_figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the run's --out")
    parser.add_argument("--generations", type=int, nargs="+", required=True, help="the fit's window")
    parser.add_argument("--networks", nargs="+", required=True, help="pretrained or .pt files PVNet.save wrote")
    parser.add_argument("--holdout", type=float, default=0.1)
    args = parser.parse_args()
    th.set_num_threads(1)
    networks = [PVNet.load(verified(SHIPPED_AZ) if n == "pretrained" else n) for n in args.networks]
    config, window = networks[0].config, networks[0].window
    positions: list[Position] = []
    for g in args.generations:
        folder = args.run / f"gen_{g:03d}"
        first = positions[-1].game + 1 if positions else 0
        positions += positions_of(folder / "self_play", folder / "records", config, window, first)
    _, heldout = held_out(positions, args.holdout)
    shape = Layout(config, window).board_shape
    print(f"{len(heldout)} held-out decisions of generations {args.generations}\n")
    print("| network | cross-entropy | argmax agreement | value RMSE (points) |\n|---|---:|---:|---:|")
    for name, pv in zip(args.networks, networks, strict=True):
        f = heldout_figures(pv, heldout, shape, "cpu")
        print(f"| {name} | {f['cross_entropy']:.3f} | {f['agreement']:.3f} | {f['value_rmse']:.2f} |")


if __name__ == "__main__":
    main()
