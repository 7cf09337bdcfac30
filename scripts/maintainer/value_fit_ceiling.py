"""How much of an afterstate run's value targets its inputs explain: the held-out mean squared error
(points², of the centred targets *final − end-now score*) of the end-now value (correction 0), of the
trainer's linear term over :data:`agents.value.FEATURES`, of a linear term over all the network's
inputs (:data:`agents.nets.value_net.INPUTS`) and of the trainer's network fit (linear term + MLP), on
the self-play games of a run, whole games held out as the trainer holds them out (its ``--seed``).
If the last three are close, the inputs carry no more than a linear value reads: a better value needs
other inputs or less noisy targets, not a bigger network.

    python scripts/maintainer/value_fit_ceiling.py runs/afterstate_4p_seed0
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from agents.nets.value_net import INPUTS
from agents.value import FEATURES, design_row
from training.afterstate.value_iteration import Settings, fit_value_net, read_records, samples_from_games
from training.value.fit_linear import fit as fit_linear


def main(run: Path) -> None:
    """Print the four held-out errors for the self-play games of ``run``."""
    folders = sorted(run.glob("gen_*/self_play"))
    if not folders:
        raise SystemExit(f"{run}: no gen_*/self_play folders (not an afterstate run?)")
    samples = samples_from_games(read_records(folders))
    players = samples.players
    settings = Settings(players=players)

    def centred(a: np.ndarray) -> np.ndarray:
        grouped = a.reshape(-1, players, *a.shape[1:])
        return np.asarray(grouped - grouped.mean(axis=1, keepdims=True)).reshape(a.shape)

    games = np.unique(samples.game)
    held = np.random.default_rng(settings.seed).choice(games, size=round(settings.holdout * len(games)), replace=False)
    test = np.isin(samples.game, held)
    y = centred(samples.y)
    t = samples.t[:, None]
    print(f"{run}: {len(games)} games, {len(y) // players} positions of {players} players")
    print(f"  end-now (no correction)        {float((y[test] ** 2).mean()):8.2f}")
    inputs = (("linear over FEATURES", samples.x[:, :len(FEATURES)]), ("linear over all inputs", samples.x[:, :-2]))
    for name, x in inputs:
        design = centred(design_row(x, t))
        w = fit_linear(design[~test], y[~test], settings.ridge)
        print(f"  {name:<30} {float(((design[test] @ w - y[test]) ** 2).mean()):8.2f}  ({design.shape[1]} weights)")
    _, losses = fit_value_net(samples, settings, settings.seed, {"players": players})
    print(f"  the trainer's network          {losses['heldout_mse']:8.2f}  (linear term + MLP {len(INPUTS)}→"
          f"{'→'.join(map(str, settings.hidden))}→1, best epoch {int(losses['epochs'])})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/maintainer/value_fit_ceiling.py RUN_FOLDER")
    main(Path(sys.argv[1]))
