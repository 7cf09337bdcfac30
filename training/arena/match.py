"""Play one game on the engine between agents named by spec strings.

Everything is a function of (config, seat specs, game seed): the tile order comes from the game
seed, and the agent in seat ``s`` is built afresh for the game with :func:`agent_seed` (game seed,
seat), so a game replays identically in any process and any order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import make_agent
from carcassonne_env.engine import Action, Game, GameConfig, GameRecord, IllegalActionError
from carcassonne_env.players import EngineAgent

__all__ = ["MatchError", "MatchResult", "Move", "agent_seed", "competition_ranks", "play_match", "play_match_data",
           "play_out"]


class MatchError(RuntimeError):
    """An agent broke the protocol: an illegal action, or it changed the game it was shown."""


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in ``seat`` for the game of ``game_seed`` (numpy ``SeedSequence``)."""
    return int(np.random.SeedSequence([game_seed, seat]).generate_state(1, dtype=np.uint32)[0])


def competition_ranks(scores: Sequence[int]) -> tuple[int, ...]:
    """1 for the best score; tied seats share the best rank of the tie (R30: a tie is a shared win)."""
    return tuple(1 + sum(other > s for other in scores) for s in scores)


@dataclass(frozen=True)
class MatchResult:
    """One finished game: who sat where, the final scores, ranks, decision times and its record."""

    seats: tuple[str, ...]
    seed: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    decisions: tuple[int, ...]
    seconds: tuple[float, ...]
    max_seconds: tuple[float, ...]
    record: GameRecord

    def to_dict(self) -> dict[str, Any]:
        return {
            "seats": list(self.seats), "seed": self.seed, "scores": list(self.scores), "ranks": list(self.ranks),
            "decisions": list(self.decisions), "seconds": list(self.seconds), "max_seconds": list(self.max_seconds),
            "record": self.record.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        return cls(
            seats=tuple(data["seats"]), seed=int(data["seed"]), scores=tuple(data["scores"]),
            ranks=tuple(data["ranks"]), decisions=tuple(data["decisions"]), seconds=tuple(data["seconds"]),
            max_seconds=tuple(data["max_seconds"]), record=GameRecord.from_dict(data["record"]),
        )


@dataclass(frozen=True)
class Move:
    """One decision of :func:`play_out`: the ``seat`` that chose ``action`` on ``turn`` (0-based, the
    turn it was chosen in) and the seconds the agent took."""

    seat: int
    turn: int
    action: Action
    seconds: float


def play_out(game: Game, agents: Sequence[EngineAgent], names: Sequence[str]) -> Iterator[Move]:
    """Play ``game`` to its end, ``agents[s]`` choosing for seat ``s``; yields each move once it is
    applied. Raises :class:`MatchError` (naming ``names[s]``) when an agent chooses an illegal action
    or changes the game it is shown."""
    while not game.is_over:
        seat, turn = game.current_player, game.turn
        before = len(game.history)
        start = time.perf_counter()
        action = agents[seat].choose_action(game)
        spent = time.perf_counter() - start
        if len(game.history) != before:
            raise MatchError(f"agent {names[seat]!r} (seat {seat}) changed the game it was asked about")
        try:
            game.apply(action)
        except IllegalActionError as e:
            raise MatchError(f"agent {names[seat]!r} (seat {seat}) chose an illegal action: {e}") from None
        yield Move(seat, turn, action, spent)


def play_match(config: GameConfig, seats: Sequence[str], seed: int) -> MatchResult:
    """Play the game of ``seed`` with ``seats[s]`` (an agent spec) in seat ``s``."""
    if len(seats) != config.players:
        raise ValueError(f"seats: {len(seats)} agents for a {config.players}-player game")
    agents = [make_agent(spec, seed=agent_seed(seed, s)) for s, spec in enumerate(seats)]
    game = Game(config, seed=seed)
    n = config.players
    decisions, seconds, longest = [0] * n, [0.0] * n, [0.0] * n
    for move in play_out(game, agents, seats):
        decisions[move.seat] += 1
        seconds[move.seat] += move.seconds
        longest[move.seat] = max(longest[move.seat], move.seconds)
    return MatchResult(
        seats=tuple(seats), seed=seed, scores=game.scores, ranks=competition_ranks(game.scores),
        decisions=tuple(decisions), seconds=tuple(seconds), max_seconds=tuple(longest), record=game.record(),
    )


def play_match_data(config: dict[str, Any], seats: tuple[str, ...], seed: int) -> dict[str, Any]:
    """:func:`play_match` on JSON data: the worker entry point of process pools (this module imports
    only the engine and the agents, so spawned workers start fast)."""
    return play_match(GameConfig.from_dict(config), seats, seed).to_dict()
