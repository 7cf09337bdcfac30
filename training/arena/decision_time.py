"""What one decision of an agent costs: CPU time of ``choose_action`` on one core (``carcassonne bench agent``).

For a search agent (one that reports ``last_simulations``: ``mcts``, ``az``) :func:`simulation_rate`
also counts its simulations per CPU second of ``choose_action`` on positions recorded once
(:func:`recorded_positions`), so that every search agent of one run is timed on the same positions.

The agent plays itself in every seat of seeded games in this process (no workers), and each
decision's CPU time (``time.process_time``, so a busy machine changes it less than the wall clock)
is taken around ``choose_action`` alone: the runner's copy of the game (:func:`~.match.play_out`)
is not counted; the agent's own work is, observation encoding and network pass included. Torch,
when an agent uses it, runs on ``threads`` threads (default 1: "one core").
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agents import make_agent
from carcassonne_env.engine import Game, GameConfig

from .match import agent_seed, play_out

__all__ = ["DecisionTimes", "decision_times", "recorded_positions", "simulation_rate"]


@dataclass(frozen=True)
class DecisionTimes:
    """CPU milliseconds of every decision of ``games`` self-play games of ``spec``."""

    spec: str
    games: int
    ms: npt.NDArray[np.float64]

    def line(self) -> str:
        """One line: decisions, mean, median, 95th percentile and maximum in ms."""
        mean, median, p95, top = (float(v) for v in (self.ms.mean(), np.median(self.ms),
                                                     np.percentile(self.ms, 95), self.ms.max()))
        return (f"agent: {self.spec}: {mean:.2f} ms CPU a decision (median {median:.2f}, 95th percentile "
                f"{p95:.2f}, max {top:.2f}) over {self.ms.size} decisions of {self.games} self-play games")


def decision_times(spec: str, games: int, config: GameConfig, first_seed: int = 0, threads: int = 1) -> DecisionTimes:
    """``spec`` in every seat of the games of seeds ``first_seed …`` (module docstring); the agents are
    seeded as the tournament seeds them (:func:`~.match.agent_seed`), so a game is a tournament game."""
    if games < 1:
        raise ValueError(f"games: must be at least 1, got {games}")
    times: list[float] = []  # each move's CPU seconds, as play_out measures them around choose_action
    for seed in range(first_seed, first_seed + games):
        seats = (spec,) * config.players
        agents = [make_agent(spec, seed=agent_seed(seed, s)) for s in range(config.players)]
        if "torch" in sys.modules:  # imported by the agent: its threads are set before it thinks
            sys.modules["torch"].set_num_threads(threads)
        times.extend(move.cpu_seconds for move in play_out(Game(config, seed=seed), agents, seats))
    return DecisionTimes(spec, games, np.array(times, dtype=np.float64) * 1000)


def recorded_positions(config: GameConfig, games: int, every: int = 4, first_seed: int = 0) -> list[Game]:
    """Every ``every``-th decision with more than one legal action of ``games`` seeded ``greedy:fast=1``
    self-play games: the same positions for every agent a run times."""
    positions: list[Game] = []
    for seed in range(first_seed, first_seed + games):
        game = Game(config, seed=seed)
        agents = [make_agent("greedy:fast=1", seed=agent_seed(seed, s)) for s in range(config.players)]
        k = 0
        while not game.is_over:
            if len(game.legal_actions()) > 1:
                if k % every == 0:
                    positions.append(game.clone())
                k += 1
            game.apply(agents[game.current_player].choose_action(game))
    return positions


def simulation_rate(spec: str, positions: list[Game], threads: int = 1) -> float | None:
    """Simulations per CPU second of ``choose_action`` of ``spec`` over ``positions`` (a copy of each,
    in order, one agent), or None when the agent reports no simulations (not a search)."""
    agent = make_agent(spec, seed=0)
    if not hasattr(agent, "last_simulations"):
        return None
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    simulations, seconds = 0, 0.0
    for position in positions:
        game = position.clone()
        start = time.process_time()
        agent.choose_action(game)
        seconds += time.process_time() - start
        simulations += int(agent.last_simulations)
    return simulations / seconds if seconds else 0.0
