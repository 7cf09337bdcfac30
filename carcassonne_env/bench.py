"""Benchmarks (not tests): ``python -m carcassonne_env.bench {engine,env} [options]``.

``engine`` plays random games on the engine: at every decision the agent picks uniformly among
all legal actions of that decision. Last line:
``engine: <games/s> games/s, <decisions/s> decisions/s, <mean decisions/game> decisions/game``.

``env`` steps the PettingZoo AEC env with random legal actions, building the observation and
mask at every ``last()``. Last line:
``env: <steps/s> steps/s (last()+step() with observation and mask)``.

``--profile`` prints the top of a cProfile of the run before the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable, Sequence

from . import argtypes
from .engine import Game, GameConfig
from .engine.playout import random_playout

#: Games per measurement when ``--games`` is not given, by target.
DEFAULT_GAMES: dict[str, int] = {"engine": 300, "env": 50}


def _names(text: str) -> tuple[str, ...]:
    return tuple(n for n in text.split(",") if n)


def _config(args: argparse.Namespace) -> GameConfig:
    tile_sets = _names(args.tiles) if args.tiles else None
    return GameConfig(players=args.players, expansions=_names(args.expansions), tile_sets=tile_sets)


def bench_engine(config: GameConfig, games: int, seed: int) -> tuple[float, int]:
    """Seconds and decisions for ``games`` uniformly random games."""
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        decisions += random_playout(Game(config, seed=seed + g), rng)
    return time.perf_counter() - start, decisions


def bench_env(config: GameConfig, games: int, seed: int) -> tuple[float, int]:
    """Seconds and AEC steps for ``games`` random games through ``last()`` + ``step()``."""
    import numpy as np

    from .environment import raw_env

    env = raw_env(**config.to_dict())
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc or obs is None:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"].view(bool))  # a bool view: nonzero() is 10x faster
                env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return time.perf_counter() - start, steps


def _run(fn: Callable[[], tuple[float, int]], profile: bool) -> tuple[float, int]:
    if not profile:
        return fn()
    profiler = cProfile.Profile()
    result = profiler.runcall(fn)
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m carcassonne_env.bench", description=__doc__.split("\n")[0])
    parser.add_argument("target", choices=("engine", "env"), help="what to measure: the engine alone, or the "
                        "PettingZoo env with its observations and masks")
    parser.add_argument("--players", type=int, default=2, metavar="N",
                        help="players per game, 2–6 (default %(default)s)")
    parser.add_argument("--tiles", default="", metavar="NAME,NAME",
                        help="comma-separated tile sets (default: the base set and the expansions')")
    parser.add_argument("--expansions", default="", metavar="NAME,NAME",
                        help="comma-separated expansions: tower, black_tower, watchtowers (default: '', the base game)")
    parser.add_argument("--games", type=argtypes.count, default=None, metavar="N",
                        help=f"games to play (default: {', '.join(f'{t} {n}' for t, n in DEFAULT_GAMES.items())})")
    parser.add_argument("--seed", type=argtypes.seed, default=0, metavar="N",
                        help="the first game's seed; game g plays seed N+g (default %(default)s)")
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=False,
                        help="print the top of a cProfile of the run before the figures (default: off)")
    args = parser.parse_args(argv)
    try:
        config = _config(args)
    except ValueError as e:  # ConfigError: --players, --tiles or --expansions
        parser.error(str(e))
    if args.target == "engine":
        games = args.games or DEFAULT_GAMES["engine"]
        seconds, decisions = _run(lambda: bench_engine(config, games, args.seed), args.profile)
        print(
            f"engine: {games / seconds:.1f} games/s, {decisions / seconds:.0f} decisions/s, "
            f"{decisions / games:.1f} decisions/game"
        )
    else:
        games = args.games or DEFAULT_GAMES["env"]
        seconds, steps = _run(lambda: bench_env(config, games, args.seed), args.profile)
        print(f"env: {steps / seconds:.0f} steps/s (last()+step() with observation and mask)")


if __name__ == "__main__":
    main()
