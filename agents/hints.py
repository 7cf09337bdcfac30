"""Hints at the table, thought out where they can be stopped: a pre-started process with a deadline.

A hint's spec comes from a request (typed at the terminal table or sent by the web page), so it
passes the trust boundary as one (:func:`~agents.spec.check_spec` with :attr:`~agents.spec.Origin.REQUEST`:
a built-in agent naming no file) before anything is sent. Invariants:

* every hint runs in the worker process, never in the table's: the table keeps answering, and the
  worker sees the position as a seat does (:func:`~agents.isolation.hidden_position`: the unseen tiles
  reshuffled, no seed), answering in JSON of bounded size;
* a hint that passes its cap of ``seconds`` is stopped whatever it is doing: the worker is killed (its
  CPU and memory are released at once) and a fresh one is started, so the next hint works at once;
  the same happens on a Ctrl-C during a hint (the worker ignores SIGINT: the table decides) and when
  the worker dies (its memory limit, :data:`HINT_MEMORY_MB`, turns a runaway allocation into that);
* a worker keeps the agents it built (a ``ppo:`` network loads once), each seeded 0 like the hints of
  earlier versions: the same position and spec give the same hint.
"""

from __future__ import annotations

import contextlib
import json
import math
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from carcassonne_env.engine import Action, Game, IllegalActionError
from carcassonne_env.play.server import HINT_SECONDS  # the table's cap, the default of --hint-seconds
from carcassonne_env.players import EngineAgent

from .isolation import ANSWER_BYTES, context, evidence, hidden_position, send
from .spec import Origin, check_spec, make_agent

__all__ = ["HINT_MEMORY_MB", "HINT_SECONDS", "HintAgent", "HintFailed", "HintTimeout", "HintWorker"]

#: The address space a hint's process may take, in MiB (a ``ppo:`` network with torch needs ~2,000).
HINT_MEMORY_MB = 8192
#: Seconds a fresh worker may take to start (imports included) before the hint waiting for it gives up.
STARTUP_SECONDS = 60.0


class HintFailed(ValueError):
    """A hint could not be given: its agent raised, answered no legal action, or its process died."""


class HintTimeout(TimeoutError):
    """A hint passed its cap and was stopped (a TimeoutError: the table says so as such)."""


def _serve(conn: Connection, memory_mb: int) -> None:
    """The worker: answer each ``hint`` request with ``move`` or ``fail`` until the table closes the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ImportError, ValueError, OSError):  # no resource module (Windows) or limit refused
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    built: dict[str, EngineAgent] = {}
    with contextlib.suppress(OSError, EOFError):  # the table closed the pipe or killed the worker
        send(conn, {"op": "ready"})
        while True:
            request = json.loads(conn.recv_bytes())
            spec = str(request["spec"])
            try:
                agent = built.get(spec)
                if agent is None:
                    agent = built[spec] = make_agent(spec, seed=0, origin=Origin.REQUEST)
                action = agent.choose_action(Game.from_dict(request["game"]))
            except MemoryError:
                send(conn, {"op": "fail", "message": f"ran out of its {memory_mb} MiB of memory"})
                return
            except Exception as e:
                send(conn, {"op": "fail", "message": f"{type(e).__name__}: {e}"})
                continue
            send(conn, {"op": "move", "action": evidence(action)})


class HintWorker:
    """The process that thinks out hints (module docstring): ``seconds`` caps each hint, ``memory_mb``
    the process. Thread-safe: one hint at a time. Close it (or use ``with``) to stop the process."""

    def __init__(self, seconds: float = HINT_SECONDS, memory_mb: int = HINT_MEMORY_MB) -> None:
        if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"hint seconds: must be a positive number, got {seconds!r}")
        self.seconds, self.memory_mb = float(seconds), memory_mb
        self._lock = threading.Lock()
        self._rng = np.random.default_rng()
        self._conn: Connection | None = None
        self._process: Any = None
        self._ready = False
        self._start()

    @property
    def process_id(self) -> int:
        """The worker process's id (0 before it is started)."""
        return int(getattr(self._process, "pid", 0) or 0)

    def agent(self, spec: str) -> HintAgent:
        """The hint agent of ``spec``, refused here (:class:`~agents.spec.AgentSpecError`) unless a
        request may name it: a built-in agent whose options name no file."""
        return HintAgent(self, check_spec(spec, Origin.REQUEST))

    def ask(self, spec: str, game: Game) -> Action:
        """What ``spec``'s agent plays in ``game``: a legal action, or :class:`HintTimeout` after
        :attr:`seconds`, :class:`HintFailed` naming what went wrong. A Ctrl-C (KeyboardInterrupt) stops
        the hint and goes on to the caller; the worker is then started afresh."""
        check_spec(spec, Origin.REQUEST)
        with self._lock:
            try:
                return self._ask(spec, game)
            except BaseException:
                self._restart()
                raise

    def _ask(self, spec: str, game: Game) -> Action:
        conn = self._connection()
        send(conn, {"op": "hint", "spec": spec, "game": hidden_position(game, self._rng)})
        if not conn.poll(self.seconds):
            raise HintTimeout(f"the hint took too long (more than {self.seconds:g} s for {spec!r}) and was stopped")
        try:
            answer = json.loads(conn.recv_bytes(ANSWER_BYTES))
        except (EOFError, OSError, ValueError):
            raise HintFailed(f"the hint's process for {spec!r} ended (memory limit {self.memory_mb} MiB?)") from None
        if not isinstance(answer, dict) or answer.get("op") != "move":
            message = answer.get("message") if isinstance(answer, dict) else None
            raise HintFailed(f"the hint's agent {spec!r} failed: {message or 'no answer'}")
        chosen = answer.get("action")
        try:
            action = Action.coerce(chosen) if isinstance(chosen, list) else None
        except (IllegalActionError, TypeError, ValueError):
            action = None
        if action is None or action not in game.legal_actions():
            raise HintFailed(f"the hint's agent {spec!r} chose no legal action ({answer.get('action')!r})")
        return action

    def _connection(self) -> Connection:
        """The worker's pipe once it has said it is ready (started afresh when it is gone)."""
        if self._process is None or not self._process.is_alive():
            self._restart()
        assert self._conn is not None
        if not self._ready:
            if not self._conn.poll(STARTUP_SECONDS):
                raise HintFailed(f"the hint's process did not start within {STARTUP_SECONDS:g} s")
            try:
                ready = json.loads(self._conn.recv_bytes(ANSWER_BYTES))
            except (EOFError, OSError, ValueError):
                raise HintFailed("the hint's process ended while starting") from None
            self._ready = ready == {"op": "ready"}
        return self._conn

    def _start(self) -> None:
        ctx = context()
        self._conn, theirs = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(theirs, self.memory_mb), daemon=True, name="carcassonne-hint")
        self._process.start()
        theirs.close()
        self._ready = False

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(5.0)
        self._conn = self._process = None

    def _restart(self) -> None:
        """Kill the worker (its CPU and memory are released at once) and start a fresh one."""
        self._stop()
        self._start()

    def close(self) -> None:
        """Stop the worker (idempotent)."""
        self._stop()

    def __enter__(self) -> HintWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HintAgent:
    """An engine-level agent that asks its :class:`HintWorker` (what the table's ``make_hint`` returns)."""

    def __init__(self, worker: HintWorker, spec: str) -> None:
        self.worker, self.spec = worker, spec

    def choose_action(self, game: Game) -> Action:
        return self.worker.ask(self.spec, game)
