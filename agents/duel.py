"""A quick strength check, not the tournament tool: seat-swapped 2-player games between two agents.

``python -m agents.duel greedy random --pairs 20`` plays each tile order (seed) twice, once with
each agent in each seat, on the tower variant (tower + black_tower + watchtowers) by default, and
prints the first agent's win rate (a draw counts half) and its mean score margin. The official
figures, with intervals and ratings, come from the tournament command.

Agents are named ``random``, ``greedy``, ``greedy-fast``, ``mcts`` (with ``--sims`` / ``--seconds``).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from carcassonne_env.engine import Action, Game, GameConfig

from .greedy import GreedyAgent
from .mcts import MCTSAgent

TOWER_VARIANT = ("tower", "black_tower", "watchtowers")
AGENT_NAMES = ("random", "greedy", "greedy-fast", "mcts")


class _EngineAgent(Protocol):
    def choose_action(self, game: Game) -> Action: ...


class _UniformRandom:
    """Uniform over the legal actions (stand-in for ``carcassonne_env.players.RandomAgent``)."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def choose_action(self, game: Game) -> Action:
        legal = game.legal_actions()
        return legal[int(self._rng.integers(len(legal)))]


@dataclass(frozen=True)
class AgentChoice:
    """An agent by name and budget; ``build(seed)`` makes a fresh one."""

    name: str
    sims: int | None = None
    seconds: float | None = None

    def build(self, seed: int) -> _EngineAgent:
        if self.name == "random":
            return _UniformRandom(seed)
        if self.name in ("greedy", "greedy-fast"):
            return GreedyAgent(seed=seed, fast=self.name == "greedy-fast")
        if self.name == "mcts":
            sims = self.sims if self.sims is not None or self.seconds is not None else 400
            return MCTSAgent(seed=seed, sims=sims, seconds=self.seconds)
        raise ValueError(f"agent must be one of {', '.join(AGENT_NAMES)}, got {self.name!r}")


def play_game(config: GameConfig, seed: int, seats: Sequence[AgentChoice]) -> tuple[int, ...]:
    """Final scores of one game on the tile order of ``seed``; seat i is played by ``seats[i]``."""
    game = Game(config, seed=seed)
    players = [choice.build(seed * 10 + i) for i, choice in enumerate(seats)]
    while not game.is_over:
        game.apply(players[game.current_player].choose_action(game))
    return game.scores


def _pair(job: tuple[GameConfig, int, AgentChoice, AgentChoice]) -> list[int]:
    """The first agent's margins in both seats of one tile order."""
    config, seed, a, b = job
    first = play_game(config, seed, (a, b))
    second = play_game(config, seed, (b, a))
    return [first[0] - first[1], second[1] - second[0]]


def duel(
    a: AgentChoice, b: AgentChoice, pairs: int, *, config: GameConfig | None = None, seed: int = 0, workers: int = 1
) -> list[int]:
    """Agent ``a``'s score margins over ``pairs`` seat-swapped pairs of games against ``b``."""
    config = config or GameConfig(players=2, expansions=TOWER_VARIANT)
    jobs = [(config, seed + i, a, b) for i in range(pairs)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_pair, jobs))
    else:
        results = [_pair(job) for job in jobs]
    return [m for pair in results for m in pair]


def summary(margins: Sequence[int]) -> str:
    wins = sum(m > 0 for m in margins) + 0.5 * sum(m == 0 for m in margins)
    se = statistics.stdev(margins) / len(margins) ** 0.5 if len(margins) > 1 else float("nan")
    return (
        f"games {len(margins)}: win rate {wins / len(margins):.1%}, "
        f"mean margin {statistics.mean(margins):+.1f} ± {se:.1f} (SE)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agents.duel", description=__doc__.split("\n\n")[0])
    parser.add_argument("a", choices=AGENT_NAMES, help="the agent whose win rate is printed")
    parser.add_argument("b", choices=AGENT_NAMES, help="its opponent")
    parser.add_argument("--pairs", type=int, default=10, help="seat-swapped pairs of games (default 10)")
    parser.add_argument("--sims", type=int, help="MCTS simulations per decision (default 400 without --seconds)")
    parser.add_argument("--seconds", type=float, help="MCTS seconds per decision")
    parser.add_argument("--base", action="store_true", help="base game instead of the tower variant")
    parser.add_argument("--seed", type=int, default=0, help="first tile-order seed (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    config = GameConfig(players=2, expansions=() if args.base else TOWER_VARIANT)
    a, b = AgentChoice(args.a, args.sims, args.seconds), AgentChoice(args.b, args.sims, args.seconds)
    for choice in (a, b):
        try:
            choice.build(0)
        except ValueError as error:
            parser.error(str(error))
    margins = duel(
        a,
        b,
        args.pairs,
        config=config,
        seed=args.seed,
        workers=args.workers,
    )
    print(f"{args.a} vs {args.b} ({'base' if args.base else 'tower variant'}): {summary(margins)}")


if __name__ == "__main__":
    main()
