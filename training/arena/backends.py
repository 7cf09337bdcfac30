"""Where a tournament's games are played: back-ends that take fixtures and yield finished games.

A back-end is a function ``(config, fixtures, workers) -> iterator of (fixture, result)``: ``config``
is ``GameConfig.to_dict()``, each result is :func:`~training.arena.match.play_match_data`'s JSON dict,
yielded in completion order. Closing the iterator early cancels the games still running. Everything
else (progress bar, JSONL output, resume, SPRT stop) is the tournament loop's
(:func:`training.arena.tournament.play_fixtures`, :func:`training.arena.tournament.run`), the same for every
back-end; since a game is a function of (config, seats, seed), every back-end gives the same games.

=========  ==========================================================================================
name       where
=========  ==========================================================================================
process    this process (``workers`` ≤ 1), or a ``spawn`` pool of ``workers`` processes
ray        Ray tasks (one CPU each) on a local Ray of ``workers`` cores or on the cluster at ``address``
=========  ==========================================================================================
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from .match import play_match_data
from .schedule import Fixture

__all__ = [
    "BACKENDS", "Backend", "GameStream", "inline", "make_backend", "process_pool", "ray_tasks", "single_threaded",
]

GameStream = Generator[tuple[Fixture, dict[str, Any]], None, None]  # closed when a run stops early
Backend = Callable[[dict[str, Any], Sequence[Fixture], "int | None"], GameStream]
#: The back-end names of ``carcassonne tournament --backend``.
BACKENDS = ("process", "ray")
#: Games in flight per worker: one running, one queued, so that no worker waits for the next game.
IN_FLIGHT_PER_WORKER = 2
#: Times the Ray back-end plays a game again when its node or worker process is lost (not when the
#: game itself raises): enough for a node or two lost during a run.
RAY_GAME_RETRIES = 3


def single_threaded() -> None:
    """Worker initializer: numerical libraries (torch, for ``ppo:`` agents) run one thread per game
    process, since the workers are the parallelism; several threads per worker on a small machine
    are several times slower. Set before the worker imports them. (Ray does the same for its tasks:
    it sets ``OMP_NUM_THREADS`` to the task's one CPU.)"""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def inline(config: dict[str, Any], fixtures: Sequence[Fixture], workers: int | None = None) -> GameStream:
    """Every game in this process, in schedule order (``workers`` is ignored)."""
    for f in fixtures:
        yield f, play_match_data(config, f.seats, f.seed, f.index)


def process_pool(config: dict[str, Any], fixtures: Sequence[Fixture], workers: int | None = None) -> GameStream:
    """The games in a ``spawn`` pool of ``workers`` processes, at most 2 in flight per worker."""
    workers = workers or 1
    todo = list(reversed(fixtures))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=single_threaded) as pool:
        running: dict[Future[dict[str, Any]], Fixture] = {}
        try:
            while todo or running:
                while todo and len(running) < IN_FLIGHT_PER_WORKER * workers:
                    f = todo.pop()
                    running[pool.submit(play_match_data, config, f.seats, f.seed, f.index)] = f
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield running.pop(future), future.result()
        finally:
            for future in running:
                future.cancel()


def ray_tasks(
    config: dict[str, Any], fixtures: Sequence[Fixture], workers: int | None = None, address: str | None = None,
    on_node: Callable[[Fixture, str], None] | None = None,
) -> GameStream:
    """The games as Ray tasks of one CPU each, at most 2 per worker in flight. Without ``address``
    a local Ray of ``workers`` cores (all when None) is started for the run; with one, the cluster
    there is used and ``workers`` defaults to its CPU count. Every node must have this project
    installed (the tasks import :mod:`training.arena.match` and the agents).

    A game lost with its node (the node died, or its worker process) is played again on another
    one, up to :data:`RAY_GAME_RETRIES` times: a game is a function of its fixture, so the replay is
    the same game, and each fixture is yielded once. A game's own error is not retried.
    ``on_node(fixture, node_id)`` is called for each finished game, before it is yielded, with the
    Ray node id it was played on."""
    from .ray_support import ray_session

    with ray_session(address, num_cpus=workers) as ray:
        play = ray.remote(num_cpus=1, max_retries=RAY_GAME_RETRIES)(_play_on_node)
        slots = IN_FLIGHT_PER_WORKER * (workers or max(1, int(ray.cluster_resources().get("CPU", 1))))
        todo = list(reversed(fixtures))
        running: dict[Any, Fixture] = {}
        try:
            while todo or running:
                while todo and len(running) < slots:
                    f = todo.pop()
                    running[play.remote(config, f.seats, f.seed, f.index)] = f
                finished, _ = ray.wait(list(running), num_returns=1)
                for ref in finished:
                    f = running.pop(ref)
                    try:
                        result, node = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:  # the game's own error, not Ray's wrapper
                        raise e.cause from None
                    if on_node is not None:
                        on_node(f, node)
                    yield f, result
        finally:
            for ref in running:
                ray.cancel(ref)


def _play_on_node(config: dict[str, Any], seats: tuple[str, ...], seed: int, index: int) -> tuple[dict[str, Any], str]:
    """:func:`~training.arena.match.play_match_data` in a Ray task, and the id of the node it ran on."""
    import ray

    return play_match_data(config, seats, seed, index), ray.get_runtime_context().get_node_id()


def make_backend(name: str, address: str | None = None) -> Backend:
    """The back-end called ``name`` (:data:`BACKENDS`); ``address`` is the Ray cluster's (ray only)."""
    if name == "process":
        if address is not None:
            raise ValueError("--address: only --backend ray runs on a cluster")
        return lambda config, fixtures, workers: (inline if (workers or 1) <= 1 else process_pool)(
            config, fixtures, workers)
    if name == "ray":
        return functools.partial(ray_tasks, address=address)
    raise ValueError(f"backend: must be one of {', '.join(BACKENDS)}, got {name!r}")
