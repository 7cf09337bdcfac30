"""Play one game on the engine between agents named by spec strings.

Everything is a function of (config, seat specs, game seed): the tile order comes from the game
seed, and the agent in seat ``s`` is built afresh for the game with :func:`agent_seed` (game seed,
seat), so a game replays identically in any process and any order.

Invariants (docs/reliability.md):

* the game that is scored is the runner's own and only the runner applies actions to it. The
  project's own agents (registered names) play in this process on a copy (``Game.clone``), so nothing
  an agent does to what it is shown (``add_score``, ``apply``) reaches the result; an agent named by
  a file or module plays from a process of its own and is shown its seat's view only (the unseen
  tiles reshuffled, no seed: :mod:`agents.isolation`);
* an agent that fails — raises, calls ``sys.exit``, chooses an illegal action, changes its copy, takes
  longer than the move time limit (default :data:`~agents.isolation.DEFAULT_MOVE_TIME_LIMIT`) or ends
  its process — *forfeits* the game (:class:`Forfeit`: seat, agent, kind, message) with
  ``on_error="forfeit"``, or stops the run with :class:`AgentFailure` (naming game, seed, seat and
  agent) with ``on_error="stop"``. Every agent is stopped when the limit passes, whatever it is doing:
  an agent in its own process is killed; the project's search agents are told the limit
  (:func:`agents.thinking_limit.limit_thinking`) and stop their search there; the others end a decision
  in well under a second by construction (one turn of look-ahead, one forward pass). The seconds charged
  are measured here, around the agent's own ``choose_action``.

Two clocks time each decision: the wall clock (``seconds``, what the move time limit is checked against)
and the CPU time of the agent's process (``cpu_seconds``: ``time.process_time`` around ``choose_action``
in this process for the project's agents, every thread of the process counted, torch's included; for an
agent in a process of its own, the CPU time its process reports for the decision). CPU time is what
thinking time means when agents are compared: a busy machine stretches the wall clock, not the CPU time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from agents.extras import MissingExtra
from agents.isolation import (
    DEFAULT_MOVE_TIME_LIMIT,
    AgentBuildError,
    AgentProcessFailure,
    ProcessAgent,
    close_agent,
    evidence,
    seat_agent,
)
from agents.thinking_limit import ThinkingTimeout, limit_thinking
from carcassonne_env.engine import Action, Game, GameConfig, GameRecord, IllegalActionError
from carcassonne_env.players import EngineAgent

__all__ = ["ON_ERROR", "TIMINGS", "AgentFailure", "Forfeit", "MatchError", "MatchResult", "Move", "agent_seed",
           "build_agents", "close_agents", "competition_ranks", "play_match", "play_match_data", "play_out"]

#: What a failing agent does to a tournament: lose the game (``forfeit``) or stop the run (``stop``).
ON_ERROR = ("forfeit", "stop")
#: The key of a back-end's config dict that carries the match options (popped by :func:`play_match_data`).
MATCH_OPTIONS = "_match"


class MatchError(RuntimeError):
    """An agent broke the protocol: an illegal action, or it changed the game it was shown."""


class AgentFailure(MatchError):
    """The agent in ``seat`` failed (``kind``: exception, exit, illegal, changed, timeout, crash).
    ``action``: for ``illegal``, the evidence (:func:`evidence`)."""

    def __init__(self, seat: int, agent: str, kind: str, message: str, where: str = "",
                 action: list[int] | str | None = None) -> None:
        super().__init__(f"{where}agent {agent!r} (seat {seat}) {message}")
        self.seat, self.agent, self.kind, self.message, self.where = seat, agent, kind, message, where
        self.action = action

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across worker processes with all its fields
        return (AgentFailure, (self.seat, self.agent, self.kind, self.message, self.where, self.action))


@dataclass(frozen=True)
class Forfeit:
    """The agent in ``seat`` lost the game by failing (:class:`AgentFailure`); the game stopped there.
    An ``illegal`` forfeit carries its evidence, the ``action`` chosen (:func:`evidence`), which a
    reader checks is illegal where the game stopped; the other kinds carry none (the engine cannot
    check an exception, a time-out or a dead process)."""

    seat: int
    agent: str
    kind: str
    message: str
    action: list[int] | str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "agent": self.agent, "kind": self.kind, "message": self.message}
        if self.action is not None:
            data["action"] = self.action
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Forfeit:
        action = data.get("action")
        if not (action is None or isinstance(action, str) or (
                isinstance(action, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in action))):
            raise ValueError(f"action: must be a list of ints or a string, got {action!r}")
        return cls(int(data["seat"]), str(data["agent"]), str(data["kind"]), str(data["message"]), action)


TIMINGS = ("seconds", "max_seconds", "cpu_seconds")
"""The fields of a game (:meth:`MatchResult.to_dict`) that are measured, not a function of its seed and
seats: the same game played again, in any process or back-end, differs in these alone."""


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in ``seat`` for the game of ``game_seed`` (numpy ``SeedSequence``)."""
    return int(np.random.SeedSequence([game_seed, seat]).generate_state(1, dtype=np.uint32)[0])


def competition_ranks(scores: Sequence[int], forfeit_seat: int | None = None) -> tuple[int, ...]:
    """1 for the best score; tied seats share the best rank of the tie (R30: a tie is a shared win).
    A seat that forfeited ranks last alone; the others are ranked among themselves."""
    if forfeit_seat is None:
        return tuple(1 + sum(other > s for other in scores) for s in scores)
    rest = [s for i, s in enumerate(scores) if i != forfeit_seat]
    return tuple(len(scores) if i == forfeit_seat else 1 + sum(other > s for other in rest)
                 for i, s in enumerate(scores))


@dataclass(frozen=True)
class MatchResult:
    """One finished game: who sat where, the final scores, ranks, decision times and its record.
    A forfeited game holds the scores and record at the moment of the failure and its :class:`Forfeit`."""

    seats: tuple[str, ...]
    seed: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    decisions: tuple[int, ...]
    seconds: tuple[float, ...]
    max_seconds: tuple[float, ...]
    record: GameRecord
    forfeit: Forfeit | None = None
    cpu_seconds: tuple[float, ...] | None = None
    """Each seat's CPU seconds over its decisions (module docstring); None in games recorded before
    the CPU time was (2026-12-07)."""

    def to_dict(self) -> dict[str, Any]:
        data = {
            "seats": list(self.seats), "seed": self.seed, "scores": list(self.scores), "ranks": list(self.ranks),
            "decisions": list(self.decisions), "seconds": list(self.seconds), "max_seconds": list(self.max_seconds),
            "record": self.record.to_dict(),
        }
        if self.forfeit is not None:
            data["forfeit"] = self.forfeit.to_dict()
        if self.cpu_seconds is not None:
            data["cpu_seconds"] = list(self.cpu_seconds)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        forfeit, cpu = data.get("forfeit"), data.get("cpu_seconds")
        return cls(
            seats=tuple(data["seats"]), seed=int(data["seed"]), scores=tuple(data["scores"]),
            ranks=tuple(data["ranks"]), decisions=tuple(data["decisions"]), seconds=tuple(data["seconds"]),
            max_seconds=tuple(data["max_seconds"]), record=GameRecord.from_dict(data["record"]),
            forfeit=None if forfeit is None else Forfeit.from_dict(forfeit),
            cpu_seconds=None if cpu is None else tuple(float(v) for v in cpu),
        )


@dataclass(frozen=True)
class Move:
    """One decision of :func:`play_out`: the ``seat`` that chose ``action`` on ``turn`` (0-based, the
    turn it was chosen in), the wall seconds the agent took and its CPU seconds (module docstring)."""

    seat: int
    turn: int
    action: Action
    seconds: float
    cpu_seconds: float


def _decide(agent: EngineAgent, game: Game, seat: int, name: str, limit: float) -> tuple[Action, float, float]:
    """``agent``'s action for ``game``, its wall seconds and its CPU seconds (module docstring);
    :class:`AgentFailure` when it raises, exits, changes the copy it was shown, answers no action or
    takes longer than ``limit``."""
    view = game.clone()
    before = len(view.history)
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        action = agent.choose_action(view)
    except AgentProcessFailure as e:
        raise AgentFailure(seat, name, e.kind, e.message, action=e.action) from None
    except ThinkingTimeout as e:
        raise AgentFailure(seat, name, "timeout", f"was stopped at the {limit:g} s move time limit ({e})") from None
    except KeyboardInterrupt:  # the user's Ctrl-C (an agent of its own process cannot raise it here)
        raise
    except SystemExit as e:
        raise AgentFailure(seat, name, "exit", f"called sys.exit({e.code!r})") from None
    except BaseException as e:
        raise AgentFailure(seat, name, "exception", f"raised {type(e).__name__}: {e}") from None
    spent = time.perf_counter() - start
    cpu = agent.last_cpu_seconds if isinstance(agent, ProcessAgent) else time.process_time() - cpu_start
    if len(view.history) != before:
        raise AgentFailure(seat, name, "changed", "changed the game it was asked about")
    if spent > limit:
        raise AgentFailure(seat, name, "timeout", f"took {spent:.3g} s for a decision, more than the "
                           f"{limit:g} s move time limit")
    return action, spent, cpu


def _apply(game: Game, action: Any, seat: int, name: str) -> None:
    try:
        game.apply(action)
    except (IllegalActionError, TypeError, ValueError) as e:
        raise AgentFailure(seat, name, "illegal", f"chose an illegal action: {e}", action=evidence(action)) from None


def play_out(game: Game, agents: Sequence[EngineAgent], names: Sequence[str],
             move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT) -> Iterator[Move]:
    """Play ``game`` to its end, ``agents[s]`` choosing for seat ``s`` on a copy of ``game``; yields
    each move once it is applied. Raises :class:`AgentFailure` (a :class:`MatchError`, naming
    ``names[s]``) when an agent fails (module docstring); ``game`` then stands before that decision."""
    while not game.is_over:
        seat, turn = game.current_player, game.turn
        action, spent, cpu = _decide(agents[seat], game, seat, names[seat], move_time_limit)
        _apply(game, action, seat, names[seat])
        yield Move(seat, turn, game.history[-1], spent, cpu)


def build_agents(seats: Sequence[str], seed: int, config: GameConfig,
                 move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT) -> list[EngineAgent]:
    """The agents of the game of ``seed`` (:func:`agents.isolation.seat_agent`, seeded by
    :func:`agent_seed`); :class:`AgentFailure` naming the seat whose agent cannot be built (the agents
    already built are closed). Close them with :func:`close_agents`."""
    agents: list[EngineAgent] = []
    try:
        for s, spec in enumerate(seats):
            agents.append(seat_agent(spec, seed=agent_seed(seed, s), config=config, time_limit=move_time_limit))
            limit_thinking(agents[-1], move_time_limit)
    except BaseException as e:
        close_agents(agents)
        if isinstance(e, KeyboardInterrupt):
            raise
        s, spec = len(agents), seats[len(agents)]
        if isinstance(e, AgentBuildError):
            raise AgentFailure(s, spec, e.kind, str(e)) from None
        if isinstance(e, SystemExit):
            raise AgentFailure(s, spec, "exit", f"called sys.exit({e.code!r}) while being built") from None
        if isinstance(e, MissingExtra):  # says what to install
            raise AgentFailure(s, spec, "exception", f"could not be built: {e}") from None
        raise AgentFailure(s, spec, "exception", f"could not be built: {type(e).__name__}: {e}") from None
    return agents


def close_agents(agents: Sequence[EngineAgent]) -> None:
    """Stop the processes of the agents that have one."""
    for agent in agents:
        close_agent(agent)


class _Tally:
    def __init__(self, n: int) -> None:
        self.decisions, self.seconds, self.longest, self.cpu = [0] * n, [0.0] * n, [0.0] * n, [0.0] * n

    def add(self, move: Move) -> None:
        self.decisions[move.seat] += 1
        self.seconds[move.seat] += move.seconds
        self.longest[move.seat] = max(self.longest[move.seat], move.seconds)
        self.cpu[move.seat] += move.cpu_seconds


def play_match(
    config: GameConfig, seats: Sequence[str], seed: int, *, on_error: Literal["forfeit", "stop"] = "stop",
    move_time_limit: float | None = None, index: int | None = None,
) -> MatchResult:
    """Play the game of ``seed`` with ``seats[s]`` (an agent spec) in seat ``s``.

    A failing agent (module docstring) raises :class:`AgentFailure` with ``on_error="stop"`` or loses
    the game with ``on_error="forfeit"``. ``move_time_limit``: seconds a decision may take (None:
    :data:`~agents.isolation.DEFAULT_MOVE_TIME_LIMIT`)."""
    if len(seats) != config.players:
        raise ValueError(f"seats: {len(seats)} agents for a {config.players}-player game")
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error: must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
    if move_time_limit is not None and not (math.isfinite(move_time_limit) and move_time_limit > 0):
        raise ValueError(f"move_time_limit: must be a positive number of seconds, got {move_time_limit!r}")
    limit = DEFAULT_MOVE_TIME_LIMIT if move_time_limit is None else move_time_limit
    game = Game(config, seed=seed)
    tally = _Tally(config.players)
    forfeit: Forfeit | None = None
    agents: list[EngineAgent] = []
    try:
        agents = build_agents(seats, seed, config, limit)
        for move in play_out(game, agents, seats, limit):
            tally.add(move)
    except AgentFailure as e:
        if on_error == "stop":
            where = f"game {index} (seed {seed}): " if index is not None else f"game of seed {seed}: "
            raise AgentFailure(e.seat, e.agent, e.kind, e.message, where) from None
        forfeit = Forfeit(e.seat, e.agent, e.kind, e.message, e.action)
    finally:
        close_agents(agents)
    return MatchResult(
        seats=tuple(seats), seed=seed, scores=game.scores,
        ranks=competition_ranks(game.scores, None if forfeit is None else forfeit.seat),
        decisions=tuple(tally.decisions), seconds=tuple(tally.seconds), max_seconds=tuple(tally.longest),
        record=game.record(), forfeit=forfeit, cpu_seconds=tuple(tally.cpu),
    )


def play_match_data(config: dict[str, Any], seats: tuple[str, ...], seed: int, index: int | None = None
                    ) -> dict[str, Any]:
    """:func:`play_match` on JSON data: the worker entry point of process pools (this module imports
    only the engine and the agents, so spawned workers start fast). ``config`` may carry the match
    options under :data:`MATCH_OPTIONS` (``on_error``, ``move_time_limit``; default: stop, the default limit)."""
    config = dict(config)
    options = config.pop(MATCH_OPTIONS, None) or {}
    return play_match(GameConfig.from_dict(config), seats, seed, index=index, **options).to_dict()
