"""The Ray back-ends on a multi-node cluster simulated on this machine (``ray.cluster_utils.Cluster``,
one CPU per node): a tournament and an RLlib training run, with where their work ran.

    PYTHONPATH=. python scripts/maintainer/bench_cluster.py --nodes 2 --seeds 4 --iterations 2

Prints the tournament's games/s and games per node (``greedy:fast=1`` against ``random``, each tile
order in both seats), then the training run's env steps/s per iteration and the nodes its EnvRunners
(one per node) sampled on. On one machine the nodes share its cores: this shows placement and the
back-ends' overhead, not a cluster's speed.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2, help="nodes of one CPU, the head included")
    parser.add_argument("--seeds", type=int, default=4, help="tile orders of the tournament")
    parser.add_argument("--iterations", type=int, default=2, help="training iterations (0: no training run)")
    args = parser.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    from carcassonne_env.engine import GameConfig
    from training.arena.backends import ray_tasks
    from training.arena.schedule import Fixture
    from training.arena.tournament import Settings, run
    from training.rllib.selfplay import Settings as TrainSettings
    from training.rllib.selfplay import train

    node: dict[str, Any] = {"num_cpus": 1, "object_store_memory": 100 * 1024**2}
    cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    for _ in range(args.nodes - 1):
        cluster.add_node(**node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level=logging.WARNING)
    try:
        games: Counter[str] = Counter()

        def on_node(fixture: Fixture, node_id: str) -> None:
            games[node_id[:8]] += 1

        settings = Settings(agents=("greedy:fast=1", "random"), seeds=args.seeds,
                            config=GameConfig(players=2).to_dict())
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            run(settings, Path(out), workers=args.nodes, progress=False,
                backend=functools.partial(ray_tasks, on_node=on_node))
            seconds = time.perf_counter() - start
        print(f"tournament: {sum(games.values())} games in {seconds:.1f} s, "
              f"{sum(games.values()) / seconds:.2f} games/s; games per node {dict(games)}", flush=True)
        if args.iterations:
            with tempfile.TemporaryDirectory() as out:
                train(TrainSettings(out=out, env_runners=args.nodes, iterations=args.iterations, train_batch=512,
                                    eval_every=0, checkpoint_every=0))
                for line in (Path(out) / "progress.jsonl").read_text().splitlines():
                    row = json.loads(line)
                    print(f"training iteration {row['iteration']}: {row['env_steps_per_s']:.1f} env steps/s, "
                          f"EnvRunners on nodes {sorted(n[:8] for n in row['sampling_nodes'])}", flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]  # Ray leaves it unannotated


if __name__ == "__main__":
    main()
