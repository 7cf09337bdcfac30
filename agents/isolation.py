"""Agents named by a file or a module play from a process of their own (docs/reliability.md).

The project's own agents (the registered names: ``greedy``, ``mcts:…``, ``afterstate:…``) are trusted
and play in the runner's process, on a copy of the game (``Game.clone``). An agent named by a file or a
module (``path/to/file.py:Class``, ``module:Class``) is code the runner has never seen: it is built and
asked in a child process, a :class:`ProcessAgent` stands in for it, and the runner keeps the only real
game. Invariants:

* the child receives, for each decision, the position as data (``Game.to_dict``) whose unseen tiles are
  reshuffled by the runner and whose seed is removed: a uniform draw of the order given what the seat
  has seen (R4), so no attribute, method or private field of what the agent holds predicts the next tile
  better than chance, and nothing it changes is the runner's;
* the child answers in JSON, read with a bound on its size (never ``pickle``, which would run code the
  agent chose in the runner);
* an agent that raises anything (``KeyboardInterrupt`` and ``SystemExit`` included), ends its process,
  answers with no action or takes more than the move time limit makes :meth:`ProcessAgent.choose_action`
  raise :class:`AgentProcessFailure` (``kind``: exception, exit, crash, timeout, illegal) and the child is
  killed; the runner turns that into a forfeit with the agent's name;
* the child ignores SIGINT: the user's Ctrl-C reaches the runner alone, which stops the children;
* with each move the child reports the CPU seconds its process spent in ``choose_action``
  (:attr:`ProcessAgent.last_cpu_seconds`, the thinking time a tournament reports); a move without a
  finite non-negative figure fails as an ``exception``. The move time limit is the runner's wall clock.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import operator
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

import numpy as np

from carcassonne_env.engine import Action, Game, GameConfig, IllegalActionError
from carcassonne_env.players import EngineAgent

from .compat import check_fits
from .spec import AgentSpecError, Origin, check_spec, is_user_spec, make_agent

__all__ = [
    "ANSWER_BYTES",
    "DEFAULT_MOVE_TIME_LIMIT",
    "STARTUP_SECONDS",
    "AgentBuildError",
    "AgentProcessFailure",
    "ProcessAgent",
    "close_agent",
    "context",
    "ctrl_c_blocked",
    "evidence",
    "hidden_position",
    "seat_agent",
    "send",
]

#: Seconds a decision may take when no ``--move-time-limit`` is given: generous (the slowest shipped
#: search, ``mcts:seconds=…``, is told its own budget), yet a hanging agent cannot hang a run.
DEFAULT_MOVE_TIME_LIMIT = 60.0
#: Seconds an agent's process may take to start and build its agent (imports, loading models).
STARTUP_SECONDS = 120.0
#: The largest answer read from an agent's process, in bytes (an action is a few dozen).
ANSWER_BYTES = 4096


class AgentProcessFailure(RuntimeError):
    """The agent behind a :class:`ProcessAgent` failed: ``kind`` is exception, exit, crash, timeout or
    illegal; ``action``: for illegal, what it answered (:func:`evidence`)."""

    def __init__(self, kind: str, message: str, action: list[int] | str | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.action = kind, message, action


class AgentBuildError(AgentSpecError):
    """The agent of a spec could not be built in its process: its code raised (``kind`` exception),
    exited (exit), ended the process (crash) or took more than the start-up time (timeout)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def evidence(action: Any) -> list[int] | str:
    """What an agent chose, as a forfeit's evidence: four ints, or the ``repr`` (at most 200
    characters) of a value that is no action."""
    if isinstance(action, list | tuple | np.ndarray) and len(action) == 4:
        try:
            return [operator.index(v) for v in action]
        except TypeError:
            pass
    return repr(action)[:200]


def hidden_position(game: Game, rng: np.random.Generator) -> dict[str, Any]:
    """``game.to_dict()`` with the tiles not yet drawn in a fresh uniform order from ``rng`` and no
    seed: what a seat may know (board, followers, scores, this turn's tile, the multiset left)."""
    data = game.to_dict()
    drawn = data["drawn"]
    unseen = data["pile"][drawn:]
    data["pile"][drawn:] = [unseen[i] for i in rng.permutation(len(unseen))]
    data["seed"] = None
    data["explicit_order"] = True
    return data


#: The failure kinds a child reports (:func:`_failure`); the others are the runner's to charge.
_CHILD_KINDS = ("exception", "exit")


def _failure(e: BaseException, doing: str) -> tuple[str, str]:
    """(kind, message) for what an agent raised while ``doing``."""
    if isinstance(e, SystemExit):
        return "exit", f"called sys.exit({e.code!r}){doing}"
    return "exception", f"raised {type(e).__name__}: {e}{doing}"


def send(conn: Connection, message: dict[str, Any]) -> None:
    """``message`` as one JSON message on ``conn`` (never pickle: the other end may not be trusted)."""
    conn.send_bytes(json.dumps(message).encode())


def _serve(conn: Connection, spec: str, seed: int, config: dict[str, Any]) -> None:
    """The child: build ``spec``'s agent, then answer each ``decide`` with ``move`` or ``fail``; ends
    quietly when the runner has gone (its end of the pipe closed)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # BrokenPipeError included: the runner stopped or was killed
        _answer_runner(conn, spec, seed, config)


def _answer_runner(conn: Connection, spec: str, seed: int, config: dict[str, Any]) -> None:
    try:
        agent = make_agent(spec, seed=seed)
        check_fits(agent, GameConfig.from_dict(config), spec)
    except AgentSpecError as e:  # names what is wrong with the spec already
        send(conn, {"op": "fail", "kind": "exception", "message": str(e)})
        return
    except BaseException as e:
        kind, message = _failure(e, " while being built")
        send(conn, {"op": "fail", "kind": kind, "message": f"{spec!r} {message}"})
        return
    send(conn, {"op": "ready"})
    while True:
        try:
            request = json.loads(conn.recv_bytes())
        except EOFError:
            return
        if request.get("op") != "decide":
            return
        game = Game.from_dict(request["game"])
        start = time.process_time()
        try:
            action = agent.choose_action(game)
        except BaseException as e:
            kind, message = _failure(e, "")
            send(conn, {"op": "fail", "kind": kind, "message": message})
            return
        send(conn, {"op": "move", "action": evidence(action), "cpu": time.process_time() - start})


def context() -> Any:
    """forkserver where there is one (fast; its children hold nothing of the runner's memory, unlike
    ``fork``), else spawn."""
    if sys.platform.startswith("linux"):
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["agents.isolation"])
        return ctx
    return multiprocessing.get_context("spawn")


def _forget_inherited_forkserver() -> None:
    """In a child of ``os.fork``: drop the parent's fork server, which is not this process's child
    (multiprocessing would fail with ChildProcessError checking on it), so that this process starts
    its own. Uses multiprocessing's private state: there is no public reset."""
    from multiprocessing import forkserver

    server: Any = getattr(forkserver, "_forkserver", None)
    if server is None or getattr(server, "_forkserver_pid", None) is None:
        return
    if server._forkserver_alive_fd is not None:
        os.close(server._forkserver_alive_fd)
    server._forkserver_pid = server._forkserver_alive_fd = server._forkserver_address = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_forkserver)


@contextmanager
def ctrl_c_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread for the block: the processes started in it inherit the mask, so
    a Ctrl-C, which the terminal sends to the whole process group, never reaches them (until they
    unblock it); one pressed meanwhile is delivered here after the block."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no process group gets the Ctrl-C
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # started in the block (by multiprocessing), it unblocks SIGINT
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class ProcessAgent:
    """An :class:`~carcassonne_env.players.EngineAgent` that asks the agent of ``spec`` in a child process
    (module docstring). Raises :class:`AgentProcessFailure` when the agent fails to build within
    ``startup_seconds`` or fails a decision; the child is then gone. Close it (or use ``with``)."""

    def __init__(self, spec: str, *, seed: int, config: GameConfig, time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
                 startup_seconds: float = STARTUP_SECONDS) -> None:
        if not (math.isfinite(time_limit) and time_limit > 0):
            raise ValueError(f"time_limit: must be a positive number of seconds, got {time_limit!r}")
        self.spec, self.time_limit = spec, time_limit
        self.last_cpu_seconds = 0.0
        """The CPU seconds of the last decision, as the child measured them in its process."""
        self._rng = np.random.default_rng(np.random.SeedSequence([seed, 0x15_0A7E]))
        ctx = context()
        self._conn, theirs = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(theirs, spec, seed, config.to_dict()), daemon=True,
                                    name=f"agent {spec}")
        with ctrl_c_blocked():  # the fork server, if this starts it, must not take the terminal's Ctrl-C
            self._process.start()
        theirs.close()
        try:
            answer = self._answer(startup_seconds, f"{spec!r} was not built within {startup_seconds:g} s")
            if answer.get("op") != "ready":
                self._fail(answer)
        except AgentProcessFailure as e:
            raise AgentBuildError(e.kind, e.message if e.kind != "crash" else f"{spec!r} {e.message} while being built"
                                  ) from None

    def choose_action(self, game: Game) -> Action:
        """The agent's action for ``game`` (shown as :func:`hidden_position`)."""
        if not self._process.is_alive() and self._conn.closed:
            raise AgentProcessFailure("crash", "is no longer running (it failed before)")
        try:
            send(self._conn, {"op": "decide", "game": hidden_position(game, self._rng)})
        except OSError:
            self._fail({"op": "crash"})
        answer = self._answer(self.time_limit, f"took more than {self.time_limit:g} s for a decision")
        if answer.get("op") != "move":
            self._fail(answer)
        cpu = answer.get("cpu")
        if not (isinstance(cpu, int | float) and not isinstance(cpu, bool) and math.isfinite(cpu) and cpu >= 0):
            self.close()  # only the agent's own code, writing to the pipe, sends a move without it
            raise AgentProcessFailure("exception", f"answered a move without its CPU seconds (got {cpu!r})")
        self.last_cpu_seconds = float(cpu)
        chosen = answer.get("action")
        try:
            if not isinstance(chosen, list):
                raise IllegalActionError(f"{chosen} is no action")
            return Action.coerce(chosen)
        except (IllegalActionError, TypeError, ValueError) as e:
            raise AgentProcessFailure("illegal", f"chose an illegal action: {e}",
                                      chosen if isinstance(chosen, list | str) else repr(chosen)) from None

    def _answer(self, seconds: float, late: str) -> dict[str, Any]:
        """The child's next message within ``seconds``, else :class:`AgentProcessFailure` (timeout)."""
        if not self._conn.poll(seconds):
            self.close()
            raise AgentProcessFailure("timeout", late)
        try:
            answer = json.loads(self._conn.recv_bytes(ANSWER_BYTES))
        except (EOFError, OSError, ValueError):
            return {"op": "crash"}
        return answer if isinstance(answer, dict) else {"op": "crash"}

    def _fail(self, answer: dict[str, Any]) -> None:
        """Close the child and raise the failure ``answer`` reports (a dead child: crash). The child
        reports only what its agent raised (``exception``, ``exit``): any other kind it claims is the
        agent's code writing to the pipe, and counts as an exception, never as a kind the runner
        itself charges (``illegal``, ``timeout``, ``crash``), whose evidence a record must carry."""
        if answer.get("op") == "fail":
            self.close()
            kind = answer.get("kind")
            raise AgentProcessFailure(kind if kind in _CHILD_KINDS else "exception", str(answer.get("message"))[:500])
        self._process.join(1.0)
        code = self._process.exitcode
        self.close()
        raise AgentProcessFailure("crash", f"ended its process (exit code {code})")

    def close(self) -> None:
        """Stop the child (idempotent)."""
        self._conn.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join(5.0)

    def __enter__(self) -> ProcessAgent:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_process", None) is not None and self._process.is_alive():
            self._process.kill()


def seat_agent(spec: str, *, seed: int, config: GameConfig, time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
               in_process: bool = False, origin: Origin = Origin.COMMAND_LINE) -> EngineAgent:
    """The agent of a seat: the project's own agents (registered names) built here, anything named by a
    file or module behind a :class:`ProcessAgent` (unless ``in_process``); both checked to fit
    ``config`` (:func:`~agents.compat.check_fits`: a ValueError naming both configurations). ``origin``:
    where ``spec`` came from (:func:`~agents.spec.check_spec`, checked before anything is started)."""
    check_spec(spec, origin)
    if is_user_spec(spec) and not in_process:
        return ProcessAgent(spec, seed=seed, config=config, time_limit=time_limit)
    agent = make_agent(spec, seed=seed, origin=origin)
    check_fits(agent, config, spec)
    return agent


def close_agent(agent: object) -> None:
    """Stop ``agent``'s process if it has one."""
    if isinstance(agent, ProcessAgent):
        agent.close()
