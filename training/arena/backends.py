"""Where a tournament's games are played: back-ends that take fixtures and yield finished games.

A back-end is a function ``(config, fixtures, workers) -> iterator of (fixture, result)``: ``config``
is ``GameConfig.to_dict()``, each result is :func:`~training.arena.match.play_match_data`'s JSON dict,
yielded in completion order. Closing the iterator early cancels the games still running; a worker
lost while it plays is a :class:`WorkerLost`, the games yielded before it stand. Everything
else (progress bar, JSONL output, resume, SPRT stop) is the tournament loop's
(:func:`training.arena.tournament.play_fixtures`, :func:`training.arena.tournament.run`), the same for every
back-end; since a game is a function of (config, seats, seed), every back-end gives the same games.

=========  ==========================================================================================
name       where
=========  ==========================================================================================
process    this process (``workers`` ≤ 1), or a pool of ``workers`` processes (:func:`in_workers`)
ray        Ray tasks (one CPU each) on a local Ray of ``workers`` cores or on the cluster at ``address``
=========  ==========================================================================================
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, cast

from agents.extras import optional_imports
from agents.isolation import ctrl_c_blocked

from .ctrl_c import ctrl_c_deferred
from .match import play_match_data
from .schedule import Fixture

__all__ = [
    "BACKENDS", "DEFAULT_WORKERS", "Backend", "GameStream", "WorkerLost", "in_workers", "inline",
    "make_backend", "process_pool", "ray_tasks", "single_threaded",
]

GameStream = Generator[tuple[Fixture, dict[str, Any]], None, None]  # closed when a run stops early
Backend = Callable[[dict[str, Any], Sequence[Fixture], "int | None"], GameStream]
#: The back-end names of ``carcassonne tournament --backend``.
BACKENDS = ("process", "ray")
#: Games in flight per Ray worker: one running, one queued, so that no worker waits for the next game.
IN_FLIGHT_PER_WORKER = 2
#: Times the Ray back-end plays a game again when its node or worker process is lost (not when the
#: game itself raises): enough for a node or two lost during a run.
RAY_GAME_RETRIES = 3
#: The worker processes of ``--backend process`` when ``--workers`` is not given (1: the games are played
#: in the command's own process, one after the other).
DEFAULT_WORKERS = 1
#: Seconds the workers of a stopped pool get to end (and end the agent processes they started)
#: before they are killed.
STOP_GRACE_SECONDS = 2.0


class WorkerLost(RuntimeError):
    """A worker process ended while it had a game to play: killed (e.g. by the out-of-memory killer)
    or exited. The games finished before it are unaffected."""


def single_threaded() -> None:
    """Worker initializer: numerical libraries (torch, for ``ppo:`` agents) run one thread per game
    process, since the workers are the parallelism; several threads per worker on a small machine
    are several times slower. Set before the worker imports them. (Ray does the same for its tasks:
    it sets ``OMP_NUM_THREADS`` to the task's one CPU.)"""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def inline(config: dict[str, Any], fixtures: Sequence[Fixture], workers: int | None = None) -> GameStream:
    """Every game in this process, in schedule order (``workers`` is ignored), on one thread of the
    numerical libraries as in a worker (:func:`single_threaded`; torch, if already imported, is set to
    ``OMP_NUM_THREADS``): a ``ppo:`` agent on torch's default threads was 15–100 times slower a decision
    here beside another CPU job, its threads waiting for each other."""
    single_threaded()
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    for f in fixtures:
        yield f, play_match_data(config, f.seats, f.seed, f.index)


def process_pool(config: dict[str, Any], fixtures: Sequence[Fixture], workers: int | None = None) -> GameStream:
    """The games in a pool of ``workers`` processes (:func:`in_workers`); a lost worker is a
    :class:`WorkerLost` naming its game."""
    tasks = [(config, f.seats, f.seed, f.index) for f in fixtures]
    for i, result in in_workers(play_match_data, tasks, workers or DEFAULT_WORKERS,
                                lambda i: f"game {fixtures[i].index} (seed {fixtures[i].seed})"):
        yield fixtures[i], result


# ------------------------------------------------------------------------------ the process pool
def in_workers(fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], workers: int,
               describe: Callable[[int], str] = lambda i: f"task {i}") -> Generator[tuple[int, Any], None, None]:
    """``fn(*tasks[i])`` in ``workers`` ``spawn`` processes (at most one per task), yielding ``(i,
    result)`` in completion order; ``fn`` must be importable by name. Each worker has a pipe of its
    own, so no worker ever waits on a lock another one holds, and is sent its next task before its
    result is yielded. ``fn``'s exception is raised here; a worker that ends while it has a task is
    a :class:`WorkerLost` naming ``describe(i)`` and how it ended.

    Ctrl-C is the caller's alone: a worker starts with SIGINT blocked, then leads a process group of
    its own (what it starts, such as agent processes, joins it) and ignores SIGINT. However the
    generator ends (exhausted, closed early, an error, a Ctrl-C), nothing of the pool runs when it
    returns: on an early end each worker is sent SIGTERM, under which it unwinds its task (whose
    ``finally`` blocks end what the task started) and exits; then every worker's process group still
    running after at most :data:`STOP_GRACE_SECONDS` is killed. A second Ctrl-C meanwhile cuts the
    grace short, and is raised once the pool has ended."""
    context = multiprocessing.get_context("spawn")
    todo = deque(range(len(tasks)))
    pool: list[_Worker] = []
    finished = False
    try:
        with ctrl_c_blocked():
            pool.extend(_Worker(context, fn) for _ in range(min(workers, len(tasks))))
        busy: dict[Connection, tuple[_Worker, int]] = {}

        def assign(worker: _Worker) -> None:
            if todo:
                i = todo.popleft()
                worker.give(tasks[i], describe(i))
                busy[worker.conn] = (worker, i)

        for worker in pool:
            assign(worker)
        while busy:
            for conn in wait(list(busy)):
                worker, i = busy.pop(cast(Connection, conn))
                result = worker.result(describe(i))
                assign(worker)
                yield i, result
        finished = True
    finally:
        _stop(pool, at_once=not finished)


class _Worker:
    """A pool process running :func:`_serve`, and the parent's end of its pipe."""

    def __init__(self, context: Any, fn: Callable[..., Any]) -> None:
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, fn), name="carcassonne-worker")
        self.process.start()
        theirs.close()

    def give(self, task: tuple[Any, ...], what: str) -> None:
        """Send ``task``; :class:`WorkerLost` if the worker is gone."""
        try:
            self.conn.send(task)
        except OSError:
            raise self._lost(what) from None

    def result(self, what: str) -> Any:
        """The result of the task sent last (its exception raised); :class:`WorkerLost` if the worker
        ended without one."""
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            raise self._lost(what) from None
        if kind == "error":
            raise value
        return value

    def kill(self) -> None:
        """SIGKILL to the worker's process group: the worker, if it still runs, and whatever it
        started (its group outlives it while a member runs, so its id is never another's)."""
        pid = self.process.pid
        if pid is None:
            return
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # no group yet (still starting) or none left
            self.process.kill()

    def _lost(self, what: str) -> WorkerLost:
        self.process.join(1.0)
        code = self.process.exitcode
        if code is None:
            how = "closed its pipe"
        elif code < 0:
            how = f"was killed by {_signal_name(-code)}" + (
                " (as the out-of-memory killer does)" if -code == signal.SIGKILL else "")
        else:
            how = f"exited with status {code}"
        return WorkerLost(f"{what}: the worker process playing it {how}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _serve(conn: Connection, fn: Callable[..., Any]) -> None:
    """A pool worker (:func:`in_workers`): answers each task ``args`` received with ``("done",
    fn(*args))`` or ``("error", exception)`` until its pipe closes. SIGTERM unwinds the task like a
    Ctrl-C would (:func:`_terminated`) and ends the worker; so does the runner's end
    (:func:`_end_with_the_runner`)."""
    if hasattr(os, "setpgrp"):
        os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by the parent at the start
    signal.signal(signal.SIGTERM, _terminated)
    _end_with_the_runner()
    single_threaded()
    try:
        while True:
            try:
                args = conn.recv()
            except EOFError:
                return
            try:
                reply = ("done", fn(*args))
            except KeyboardInterrupt:
                raise
            except BaseException as e:
                reply = ("error", _portable(e))
            try:
                conn.send(reply)
            except OSError:  # the runner is gone (killed without stopping its workers): nothing to answer
                return
    except KeyboardInterrupt:  # stopped (SIGTERM)
        return


def _end_with_the_runner() -> None:
    """A runner that ends without stopping its pool (SIGKILL) ends its workers at once: a thread
    waits on the runner's sentinel (ready when it exits) and sends this worker SIGTERM, which
    unwinds its game as the pool's own stop does, instead of playing it to its end for no one."""
    runner = multiprocessing.parent_process()
    if runner is None:
        return
    sentinel = runner.sentinel

    def watch() -> None:
        wait([sentinel])
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="runner-watch", daemon=True).start()


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM in a worker: a KeyboardInterrupt, which the match runner lets through (so the game's
    ``finally`` blocks end its agent processes); a second SIGTERM ends the worker at once."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt


def _portable(error: BaseException) -> BaseException:
    """``error``, or a RuntimeError with its text when it does not survive pickling."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _stop(pool: Sequence[_Worker], at_once: bool) -> None:
    """End the pool, Ctrl-C deferred (:func:`in_workers`): SIGTERM to each worker when ``at_once``,
    its pipe closed (an idle worker exits), then its process group killed once it has exited or the
    grace is over."""
    with ctrl_c_deferred() as caught:
        for worker in pool:
            if at_once:
                worker.process.terminate()
            worker.conn.close()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for worker in pool:
            while worker.process.is_alive() and not caught and time.monotonic() < deadline:
                worker.process.join(0.05)
        for worker in pool:
            worker.kill()
        for worker in pool:
            worker.process.join(1.0)


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
                    except ray.exceptions.RayError as e:  # its node or worker lost more often than retried
                        raise WorkerLost(f"game {f.index} (seed {f.seed}): lost by Ray {RAY_GAME_RETRIES + 1} "
                                         f"times ({type(e).__name__})") from None
                    if on_node is not None:
                        on_node(f, node)
                    yield f, result
        finally:
            for ref in running:
                ray.cancel(ref)


def _play_on_node(config: dict[str, Any], seats: tuple[str, ...], seed: int, index: int) -> tuple[dict[str, Any], str]:
    """:func:`~training.arena.match.play_match_data` in a Ray task, and the id of the node it ran on."""
    with optional_imports("--backend ray", "ray"):
        import ray

    return play_match_data(config, seats, seed, index), ray.get_runtime_context().get_node_id()


def make_backend(name: str, address: str | None = None) -> Backend:
    """The back-end called ``name`` (:data:`BACKENDS`); ``address`` is the Ray cluster's (ray only)."""
    if name == "process":
        if address is not None:
            raise ValueError("--address: only --backend ray runs on a cluster")
        return lambda config, fixtures, workers: (inline if (workers or DEFAULT_WORKERS) <= 1 else process_pool)(
            config, fixtures, workers)
    if name == "ray":
        return functools.partial(ray_tasks, address=address)
    raise ValueError(f"backend: must be one of {', '.join(BACKENDS)}, got {name!r}")
