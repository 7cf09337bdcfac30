"""Measure how large the board window must be: ``python -m carcassonne_env.environment.measure_window``.

Plays uniformly random games with every expansion (tower, black_tower, watchtowers; all tile sets)
and player counts cycling through 2–6 (game ``g`` has ``2 + g % 5`` players and seed ``g``). At
every decision it computes, with :func:`.window.required_size`, the smallest window that encodes
every legal action of that decision under the env's recentring rule. It prints the largest board
extent seen and, for a range of window sizes, how many decisions and games had a legal action
outside the window. The env's default W is the smallest size with zero such decisions (docs/env.md
records the figures).
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from .. import argtypes
from ..engine import Game, GameConfig
from ..engine.actions import Action, ActionKind
from ..engine.playout import random_playout
from ..engine.registry import TOWER_VARIANT
from .window import BoundingBox, required_size

__all__ = ["WindowStats", "main", "measure"]

_NO_POSITION = (ActionKind.NO_CAPTURE, ActionKind.RANSOM, ActionKind.PASS)


@dataclass
class WindowStats:
    """Figures of a batch of games; batches add up with :meth:`merge`."""

    games: int = 0
    decisions: int = 0
    #: final bounding-box extent (max of width and height) → games
    extents: Counter[int] = field(default_factory=Counter)
    #: largest window a decision needed → decisions
    decision_need: Counter[int] = field(default_factory=Counter)
    #: largest window any decision of a game needed → games
    game_need: Counter[int] = field(default_factory=Counter)

    def merge(self, other: WindowStats) -> None:
        self.games += other.games
        self.decisions += other.decisions
        self.extents.update(other.extents)
        self.decision_need.update(other.decision_need)
        self.game_need.update(other.game_need)

    def outside(self, size: int) -> tuple[int, int]:
        """(decisions, games) with a legal action outside a window of ``size``."""
        decisions = sum(n for need, n in self.decision_need.items() if need > size)
        games = sum(n for need, n in self.game_need.items() if need > size)
        return decisions, games

    def smallest_safe_size(self) -> int:
        """The smallest window size no measured decision exceeded."""
        return max(self.decision_need)


def _play(seed: int) -> tuple[int, int, Counter[int]]:
    """One random game: (final extent, decisions, window needed → decisions)."""
    config = GameConfig(players=2 + seed % 5, expansions=TOWER_VARIANT)
    box = BoundingBox(0, 0, 0, 0)
    needs: Counter[int] = Counter()

    def measure_decision(legal: Sequence[Action], action: Action) -> None:
        nonlocal box
        needs[required_size(box, ((a.x, a.y) for a in legal if a.kind not in _NO_POSITION))] += 1
        if action.kind == ActionKind.PLACE:
            box = box.grow(action.x, action.y)

    decisions = random_playout(Game(config, seed=seed), random.Random(seed), measure_decision)
    return box.extent, decisions, needs


def _batch(seeds: range) -> WindowStats:
    stats = WindowStats()
    for seed in seeds:
        extent, decisions, needs = _play(seed)
        stats.games += 1
        stats.decisions += decisions
        stats.extents[extent] += 1
        stats.decision_need.update(needs)
        stats.game_need[max(needs)] += 1
    return stats


def measure(games: int, workers: int = 1, first_seed: int = 0) -> WindowStats:
    """Play ``games`` random games (seeds ``first_seed`` …) on ``workers`` processes."""
    chunks = max(1, workers) * 8
    bounds = [first_seed + games * i // chunks for i in range(chunks + 1)]
    batches = [range(a, b) for a, b in itertools.pairwise(bounds) if b > a]
    total = WindowStats()
    if workers <= 1:
        for seeds in batches:
            total.merge(_batch(seeds))
    else:
        with ProcessPoolExecutor(workers) as pool:
            for stats in pool.map(_batch, batches):
                total.merge(stats)
    return total


def report(stats: WindowStats) -> str:
    """The figures as a Markdown table plus a summary line."""
    extents = sorted(stats.extents.elements())
    median = extents[len(extents) // 2]
    p99 = extents[min(len(extents) - 1, len(extents) * 99 // 100)]
    safe = stats.smallest_safe_size()
    lines = [
        f"{stats.games} games, {stats.decisions} decisions; final board extent (max of width, height): "
        f"median {median}, 99th percentile {p99}, largest {extents[-1]} cells",
        "",
        "| window W | decisions with a legal action outside | games affected |",
        "|---|---|---|",
    ]
    for size in range(max(1, safe - 8), safe + 1):
        decisions, games = stats.outside(size)
        lines.append(f"| {size} | {decisions} ({decisions / stats.decisions:.2e}) | {games} |")
    lines.append("")
    lines.append(f"smallest window with no legal action outside: W = {safe}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m carcassonne_env.environment.measure_window", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=argtypes.count, default=10_000, help="random games (default %(default)s)")
    parser.add_argument("--workers", type=argtypes.count, default=2, help="processes (default %(default)s)")
    parser.add_argument("--seed", type=argtypes.seed, default=0, help="seed of the first game (default %(default)s)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    stats = measure(args.games, args.workers, args.seed)
    print(report(stats))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
