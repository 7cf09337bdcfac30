"""Benchmarks (not tests): ``python -m carcassonne_env.bench {engine,env} [options]``.

``engine`` plays random games on the engine: at every decision the agent picks uniformly among
all legal actions of that decision. Last line:
``engine: <games/s> games/s, <decisions/s> decisions/s, <mean decisions/game> decisions/game; game: <game>``.

``env`` steps the PettingZoo AEC env with random legal actions, building the observation and
mask at every ``last()``. Last line:
``env: <steps/s> steps/s (last()+step() with observation and mask); game: <game>``.

Both play the tower variant by default (``--expansions``, ``--rules``, ``--tiles`` and ``--players``
choose another game), as every command does. The first line names the setup the figures belong
to (:func:`setup_line`): the game (:func:`~carcassonne_env.engine.describe_game`), the agents, the
games and seeds, one thread, and which engine ran (the compiled core or the Python source,
:func:`engine_words`), e.g. ``setup: game: tower variant (tower, black_tower, watchtowers), 2
players; uniformly random legal actions on the engine; 300 games from seed 0; 1 thread in this
process; the compiled engine core``; each figure's line names the game again, so that a line quoted
alone still says what it measured.

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
from .engine import COMPILED, Game, GameConfig, describe_game
from .engine.playout import random_playout

__all__ = ["AGENTS", "DEFAULT_GAMES", "add_arguments", "bench_engine", "bench_env", "config_of", "engine_words",
           "main", "run", "setup_line"]

#: Games per measurement when ``--games`` is not given, by target.
DEFAULT_GAMES: dict[str, int] = {"engine": 300, "env": 50}
#: What plays each target's games, in words.
AGENTS: dict[str, str] = {
    "engine": "uniformly random legal actions on the engine",
    "env": "uniformly random legal actions through the PettingZoo AEC env (last() + step(), with the "
           "observation and the action mask at every step)",
}


def engine_words() -> str:
    """Which engine runs in this process: ``the compiled engine core`` or ``the pure-Python engine``
    (:data:`~carcassonne_env.engine.COMPILED`)."""
    return "the compiled engine core" if COMPILED else "the pure-Python engine"


def setup_line(config: GameConfig, agents: str, games: int, seed: int) -> str:
    """The first line of a benchmark's output (module docstring)."""
    return (f"setup: game: {describe_game(config)}; {agents}; {games} game{'s' if games != 1 else ''} from seed "
            f"{seed}; 1 thread in this process; {engine_words()}")


def config_of(args: argparse.Namespace) -> GameConfig:
    """The game of the options of :func:`add_arguments` (:func:`~carcassonne_env.argtypes.game_config`)."""
    return argtypes.game_config(args.players, args.expansions, args.rules, args.tiles)


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


def add_arguments(parser: argparse.ArgumentParser, target: str | None = None) -> None:
    """The options of ``target`` (``engine`` or ``env``; None: either, the default games said per target)."""
    parser.add_argument("--players", type=int, default=2, metavar="N",
                        help="players per game, 2–6 (default %(default)s)")
    argtypes.add_game_arguments(parser)
    parser.add_argument("--tiles", default="", metavar="NAME,NAME",
                        help="comma-separated tile sets (default: the base set and the expansions')")
    if target is None:
        parser.add_argument("--games", type=argtypes.count, default=None, metavar="N",
                            help=f"games to play (default: {', '.join(f'{t} {n}' for t, n in DEFAULT_GAMES.items())})")
    else:
        parser.add_argument("--games", type=argtypes.count, default=DEFAULT_GAMES[target], metavar="N",
                            help="games to play (default %(default)s)")
    parser.add_argument("--seed", type=argtypes.seed, default=0, metavar="N",
                        help="the first game's seed; game g plays seed N+g (default %(default)s)")
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=False,
                        help="print the top of a cProfile of the run before the figures (default: off)")


def run(target: str, args: argparse.Namespace) -> None:
    """Measure ``target`` (``engine`` or ``env``) with the options of :func:`add_arguments`: the setup
    line, then the figures (module docstring). A bad --players, --tiles, --expansions or --rules
    raises :class:`~carcassonne_env.engine.ConfigError` before anything runs."""
    config = config_of(args)
    games = args.games or DEFAULT_GAMES[target]
    print(setup_line(config, AGENTS[target], games, args.seed), flush=True)
    if target == "engine":
        seconds, decisions = _run(lambda: bench_engine(config, games, args.seed), args.profile)
        print(
            f"engine: {games / seconds:.1f} games/s, {decisions / seconds:.0f} decisions/s, "
            f"{decisions / games:.1f} decisions/game; game: {describe_game(config)}"
        )
    else:
        seconds, steps = _run(lambda: bench_env(config, games, args.seed), args.profile)
        print(f"env: {steps / seconds:.0f} steps/s (last()+step() with observation and mask); "
              f"game: {describe_game(config)}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m carcassonne_env.bench", description=__doc__.split("\n")[0])
    parser.add_argument("target", choices=("engine", "env"), help="what to measure: the engine alone, or the "
                        "PettingZoo env with its observations and masks")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config_of(args)
    except ValueError as e:  # ConfigError: --players, --tiles, --expansions or --rules
        parser.error(str(e))
    run(args.target, args)


if __name__ == "__main__":
    main()
