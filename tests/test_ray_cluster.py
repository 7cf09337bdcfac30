"""The Ray back-ends on a multi-node cluster simulated on one machine (``ray_cluster``): work lands
on every node, and a node lost mid-run costs no game and no training progress."""

import functools
import json
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import CLUSTER_NODE
from game_lines import without_timings

from carcassonne_env.engine import GameConfig
from training.arena.backends import Backend, make_backend, ray_tasks
from training.arena.schedule import Fixture
from training.arena.tournament import GAMES_FILE, Settings, run


def _games(out: Path) -> list[dict[str, Any]]:
    """The games of ``out`` in file order, without their timings (the only part a back-end changes)."""
    games = [json.loads(line) for line in (out / GAMES_FILE).read_text().splitlines()]
    return without_timings(games)


@pytest.mark.xdist_group("ray")
def test_a_tournament_on_two_nodes_loses_one_and_plays_every_game_once(ray_cluster: Any, tmp_path: Path) -> None:
    """Games run on both nodes; when the first game finished on the second node comes back, that
    node is removed with games still queued or running on it: they are played again on the head,
    and the tournament writes every game once, the same games as the process back-end."""
    import ray

    worker = ray_cluster.add_node(**CLUSTER_NODE)
    ray_cluster.wait_for_nodes()
    nodes: list[tuple[int, str]] = []

    def on_node(fixture: Fixture, node: str) -> None:
        nodes.append((fixture.index, node))
        if node == worker.node_id and worker in ray_cluster.worker_nodes:
            ray_cluster.remove_node(worker)

    settings = Settings(agents=("random", "greedy:fast=1"), seeds=4, first_seed=5,
                        config=GameConfig(players=2).to_dict())
    run(settings, tmp_path / "ray", workers=2, progress=False, backend=functools.partial(ray_tasks, on_node=on_node))
    assert worker not in ray_cluster.worker_nodes  # removed mid-run
    assert {node for _, node in nodes} == {ray.get_runtime_context().get_node_id(), worker.node_id}
    run(settings, tmp_path / "process", workers=1, progress=False, backend=make_backend("process"))
    ray_games, process_games = _games(tmp_path / "ray"), _games(tmp_path / "process")
    assert sorted(g["index"] for g in ray_games) == list(range(8))  # none lost, none twice
    assert sorted(ray_games, key=lambda g: g["index"]) == process_games


@pytest.mark.xdist_group("ray")
@pytest.mark.slow
def test_training_samples_on_every_node_survives_losing_one_and_resumes_from_its_checkpoint(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """Two EnvRunners of one CPU on two nodes of one CPU: one on each. The second node is removed
    once the first checkpoint is written: RLlib takes its runner out and the run finishes on the
    head; ``--resume`` on a cluster with a new node continues from the run's last checkpoint, its
    runners on both nodes again."""
    import ray

    from training.rllib.selfplay import Settings as TrainSettings
    from training.rllib.selfplay import train

    worker = ray_cluster.add_node(**CLUSTER_NODE)
    ray_cluster.wait_for_nodes()
    head = ray.get_runtime_context().get_node_id()
    out = tmp_path / "run"
    first = TrainSettings(out=str(out), env_runners=2, iterations=3, window=11, train_batch=64, minibatch=32,
                          epochs=1, eval_every=0, checkpoint_every=1, channels=8, blocks=1, head_hidden=16)

    def remove_after_first_checkpoint() -> None:
        while not (out / "state.json").exists():
            time.sleep(0.05)
        ray_cluster.remove_node(worker)

    remover = threading.Thread(target=remove_after_first_checkpoint, daemon=True)
    remover.start()
    train(first)
    remover.join()
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [p["iteration"] for p in progress] == [1, 2, 3]
    assert set(progress[0]["sampling_nodes"]) == {head, worker.node_id}
    assert set(progress[-1]["sampling_nodes"]) == {head}

    replacement = ray_cluster.add_node(**CLUSTER_NODE)
    ray_cluster.wait_for_nodes()
    train(replace(first, resume=True, iterations=4))
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [p["iteration"] for p in progress] == [1, 2, 3, 4]
    assert progress[3]["env_steps"] >= progress[2]["env_steps"] + 64  # the counters go on from the checkpoint
    assert set(progress[3]["sampling_nodes"]) == {head, replacement.node_id}
    assert json.loads((out / "state.json").read_text())["iteration"] == 4


@pytest.mark.xdist_group("ray")
def test_the_afterstate_trainer_plays_its_self_play_games_on_every_node(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_torch_thread: None
) -> None:
    """``carcassonne train afterstate --backend ray --address CLUSTER``: every tournament of the run
    (ratings, self-play, gate) is played by the Ray back-end on that cluster, a generation's
    self-play games on both nodes, and the run finishes: generations 0 and 1 rated, its state at
    the end."""
    import ray

    from training.afterstate import value_iteration
    from training.common import evaluation

    worker = ray_cluster.add_node(**CLUSTER_NODE)
    ray_cluster.wait_for_nodes()
    backends: list[tuple[str, str | None]] = []
    self_play_nodes: set[str] = set()

    def on_node(fixture: Fixture, node: str) -> None:
        if len(set(fixture.seats)) == 1:  # self-play (the best in every seat); gates and ratings pit two agents
            self_play_nodes.add(node)

    def recording(name: str, address: str | None = None) -> Backend:
        backends.append((name, address))
        return functools.partial(ray_tasks, address=address, on_node=on_node)

    monkeypatch.setattr(evaluation, "make_backend", recording)  # every tournament of a trainer plays through it
    out = tmp_path / "run"
    value_iteration.main(["quick", "--expansions", "", "--games-per-generation", "4", "--gate-seeds", "1",
                          "--anchor-seeds", "1", "--anchors", "random", "--epochs", "2", "--generations", "1",
                          "--workers", "2", "--backend", "ray", "--address", ray_cluster.address, "--no-progress",
                          "--out", str(out)])
    assert set(backends) == {("ray", ray_cluster.address)}
    assert self_play_nodes == {ray.get_runtime_context().get_node_id(), worker.node_id}
    state = json.loads((out / "state.json").read_text())
    assert (state["generation"], state["step"]) == (2, "play")  # past generation 1: the run is done
    assert [h["generation"] for h in state["history"]] == [0, 1]
    assert len((out / "gen_001" / "self_play" / GAMES_FILE).read_text().splitlines()) == 4
