"""The noise floor of an afterstate run's value targets: how much of the final score is still the game
to be played, whatever the value knows.

The trainer fits each player's *final − end-now* score (Monte Carlo targets, centred over the
players) and reports a held-out mean squared error. Part of that error no value of the position can
remove: the tiles still to come and the players' tie-breaks. This script measures that part directly.
It draws positions at the start of a turn (uniformly over the turns of self-play games, as the
trainer's rows are), plays each to its end ``--continuations`` times with the unseen tiles reshuffled
(:meth:`Game.determinize`) and fresh agent seeds, the same agent in every seat, and prints the mean
over positions of the variance of the centred final score — the error of the best value a fit could
find for that agent's games, in the trainer's units (points², per player). A held-out error near it
means the value is as exact as its targets allow: a better player then needs targets with less noise
(what a search finds from the position), not a bigger value. With ``--value`` it also splits that
value's own error at the same positions into the floor and what a better value could still remove:
the squared gap between its prediction and the playouts' mean, less the mean's sampling variance.

    python scripts/maintainer/noise_floor.py runs/long_seed0/gen_004/self_play \\
        'afterstate:runs/long_seed0/gen_001/candidate.npz,fast=1' --value runs/long_seed0/gen_001/candidate.npz \\
        --positions 80 --continuations 16 --seed 1 --workers 2 --out runs/noise_floor/gen1.json
    # the same positions and playouts, other values:
    python scripts/maintainer/noise_floor.py runs/long_seed0/gen_004/self_play \\
        'afterstate:runs/long_seed0/gen_001/candidate.npz,fast=1' --playouts runs/noise_floor/gen1.json \\
        --value runs/long_seed0/gen_005/candidate.npz

Games are played the way the tournaments play them (:func:`training.arena.match.play_out`); the
summary goes to ``--out`` (JSON) when given.
"""

from __future__ import annotations

import argparse
import json
import math
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from agents.afterstate import load_value_net
from carcassonne_env.engine import GameRecord, Phase
from training.afterstate.value_iteration import read_records
from training.arena.match import build_agents, close_agents, play_out


def turn_starts(record: GameRecord) -> list[int]:
    """The action counts at which ``record``'s game stands at the start of a turn (PLACE)."""
    game, starts = record.replay(0), []
    for k, action in enumerate(record.actions):
        if game.phase is Phase.PLACE:
            starts.append(k)
        game.apply(action)
    return starts


def continuations(record: dict[str, Any], upto: int, spec: str, count: int, seed: int) -> list[list[int]]:
    """The final scores of ``count`` playouts of the recorded game (``GameRecord.to_dict``) from its first
    ``upto`` actions, each with the unseen pile reshuffled and the agents seeded afresh."""
    position = GameRecord.from_dict(record).replay(upto)
    rng = np.random.default_rng(seed)
    finals = []
    for c in range(count):
        game = position.determinize(rng)
        players = game.config.players
        agents = build_agents([spec] * players, seed * 1_000 + c, game.config)
        try:
            for _ in play_out(game, agents, [spec] * players):
                pass
        finally:
            close_agents(agents)
        finals.append([int(s) for s in game.scores])
    return finals


def played_rows(records: list[GameRecord], spec: str, positions: int, count: int, seed: int,
                workers: int) -> list[dict[str, Any]]:
    """One row per drawn position: its game's seed, the actions played, the turn share, and the mean
    and the variance (per player, centred as the trainer's targets) of ``count`` playouts."""
    rng = np.random.default_rng(seed)
    jobs = []
    for i, index in enumerate(rng.choice(len(records), size=min(positions, len(records)), replace=False)):
        starts = turn_starts(records[index])
        jobs.append((records[index].to_dict(), int(starts[rng.integers(len(starts))]), spec, count,
                     seed * 1_000_000 + i))
    with ProcessPoolExecutor(workers) as pool:
        results = list(pool.map(continuations, *zip(*jobs, strict=True)))
    rows = []
    for (data, upto, *_), finals in zip(jobs, results, strict=True):
        record = GameRecord.from_dict(data)
        scores = np.array(finals, dtype=np.float64)
        centred = scores - scores.mean(axis=1, keepdims=True)  # the trainer's relative targets
        starts = turn_starts(record)
        rows.append({"seed": record.seed, "actions": upto, "turn_share": starts.index(upto) / len(starts),
                     "variance": float(centred.var(axis=0, ddof=1).mean()), "mean_final": scores.mean(axis=0).tolist()})
    return rows


def reducible(rows: list[dict[str, Any]], count: int, records: list[GameRecord], path: str) -> np.ndarray:
    """Per row, the squared gap between the value at ``path``'s prediction and the playouts' mean
    (both centred), less the mean's sampling variance: E[gap²] = bias² + variance / count."""
    value = load_value_net(path)
    by_seed = {record.seed: record for record in records}
    out = []
    for row in rows:
        predicted = np.array(value.final_scores(by_seed[row["seed"]].replay(row["actions"])), dtype=np.float64)
        mean = np.array(row["mean_final"], dtype=np.float64)
        gap = (mean - mean.mean()) - (predicted - predicted.mean())
        out.append(float((gap ** 2).mean()) - row["variance"] / count)
    return np.array(out, dtype=np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=Path, help="a self-play tournament folder (a run's gen_NNN/self_play)")
    parser.add_argument("spec", help="the agent that played them, in every seat of the playouts")
    parser.add_argument("--positions", type=int, default=40, help="positions drawn, one per game (default %(default)s)")
    parser.add_argument("--continuations", type=int, default=16, help="playouts of each position (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="picks the games, the turns and the playouts")
    parser.add_argument("--workers", type=int, default=2, help="processes (default %(default)s)")
    parser.add_argument("--value", action="append", default=[],
                        help="a value network (.npz) whose error to split; repeat for several")
    parser.add_argument("--playouts", type=Path,
                        help="take the positions and their playouts from this summary (an earlier --out) "
                             "instead of playing them")
    parser.add_argument("--out", type=Path, help="write the summary here (JSON)")
    args = parser.parse_args()
    if args.positions < 2 or args.continuations < 2:
        parser.error("--positions and --continuations need at least 2")
    records = read_records([args.games])
    if args.playouts is not None:
        saved = json.loads(args.playouts.read_text())
        if saved["games"] != str(args.games) or saved["spec"] != args.spec:
            parser.error(f"{args.playouts} holds playouts of {saved['spec']} from {saved['games']}")
        rows, count = saved["rows"], int(saved["continuations"])
    else:
        rows, count = played_rows(records, args.spec, args.positions, args.continuations, args.seed,
                                  args.workers), args.continuations
    variances = np.array([r["variance"] for r in rows])
    floor, se = float(variances.mean()), float(variances.std(ddof=1) / math.sqrt(len(variances)))
    print(f"{args.games}: {len(rows)} positions × {count} playouts of {args.spec}")
    print(f"  noise floor (mean variance of the centred final score) {floor:.1f} ± {se:.1f} points² "
          f"(RMS {math.sqrt(floor):.1f} points)")
    for half, part in (("first", [r for r in rows if r["turn_share"] < 0.5]),
                       ("second", [r for r in rows if r["turn_share"] >= 0.5])):
        if part:
            print(f"  {half} half of the game: {np.mean([r['variance'] for r in part]):.1f} over {len(part)} positions")
    split = {}
    for path in args.value:
        bias2 = reducible(rows, count, records, path)
        split[path] = {"reducible": float(bias2.mean()),
                       "reducible_se": float(bias2.std(ddof=1) / math.sqrt(len(bias2)))}
        print(f"  {path}: error {floor + bias2.mean():.1f} points² = noise floor {floor:.1f} + what a better "
              f"value could remove {split[path]['reducible']:.1f} ± {split[path]['reducible_se']:.1f}")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        summary = {"games": str(args.games), "spec": args.spec, "positions": len(rows), "continuations": count,
                   "seed": args.seed, "noise_floor": floor, "noise_floor_se": se, "values": split, "rows": rows}
        args.out.write_text(json.dumps(summary, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
