"""Agent benchmarks (not tests): ``python -m agents.bench [greedy|mcts|all] [options]``.

``greedy`` plays greedy-vs-greedy games and times every decision: median and mean milliseconds
per decision and decisions/s, for the base game and for all expansions (tower + black_tower +
watchtowers), 2 players.

``mcts`` times MCTS searches of ``--sims`` simulations at the opening (the first decision) and in
mid-game (a PLACE decision after ``--mid-tiles`` tiles laid by random play), base game and all
expansions, and prints simulations/s (median over ``--positions`` seeds). ``--mcts-options`` adds
options to the searched spec, e.g. ``guide=1,rollout_turns=0,value=linear``; ``--greedy-value``
times greedy on another position value (``linear``).

``speed`` prints the table of docs/experiments/2026-11-search-speed.md on CPU time: greedy decisions/s (end-now
and ``value=linear``), MCTS simulations/s (``rollout_turns=0,value=linear`` at the opening and in
mid-game, and guided, ``guide=1``), all expansions and the base game, 2 players, and the engine's
random games/s (base game, 2 players). Run it on the old and the new code back to back, on the
same machine, to compare (``--repeat`` takes the best of several runs of each figure); its first line
says which engine and search agents ran: compiled or, with ``CARCASSONNE_PURE_PYTHON=1``, the Python source.

``--clock cpu`` times with this process's CPU time instead of the wall clock: on a shared,
loaded machine it shows what a quiet machine would (the two agree when nothing else runs).
``--profile`` prints the top of a cProfile of the run after the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from carcassonne_env.engine import COMPILED, Game, GameConfig, Phase
from carcassonne_env.engine.playout import random_playout
from carcassonne_env.engine.registry import TOWER_VARIANT

from .compiled_search import COMPILED as SEARCH_COMPILED
from .mcts import MCTSAgent
from .spec import AgentSpecError, make_agent

WORKLOADS = {"base": (), "all expansions": TOWER_VARIANT}
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def greedy_decision_times(
    config: GameConfig, games: int, fast: bool, clock: Callable[[], float] = time.perf_counter, seed: int = 0,
    value: str = "end_now",
) -> list[float]:
    """Seconds per decision over ``games`` greedy-vs-greedy games."""
    times = []
    for g in range(games):
        game = Game(config, seed=seed + g)
        agents = [make_agent(f"greedy:fast={int(fast)},value={value}", seed=seed + g * 10 + p)
                  for p in range(config.players)]
        while not game.is_over:
            start = clock()
            action = agents[game.current_player].choose_action(game)
            times.append(clock() - start)
            game.apply(action)
    return times


def position(config: GameConfig, seed: int, tiles: int) -> Game:
    """A PLACE decision after ``tiles`` tiles (start tile included) laid by uniformly random play."""
    game = Game(config, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over and (game.tiles_placed < tiles or game.phase is not Phase.PLACE):
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    if game.is_over:
        raise ValueError(f"--mid-tiles {tiles}: the game ended before that many tiles were laid")
    return game


def mcts_rate(
    config: GameConfig, sims: int, tiles: int, positions: int, clock: Callable[[], float] = time.perf_counter,
    options: str = "",
) -> tuple[float, int]:
    """Median simulations/s over ``positions`` seeds, and the median number of legal actions."""
    rates, branching = [], []
    for seed in range(positions):
        game = position(config, seed, tiles)
        agent = make_agent(_mcts_spec(sims, options), seed=seed)
        assert isinstance(agent, MCTSAgent)
        start = clock()
        agent.choose_action(game)
        rates.append(agent.last_simulations / (clock() - start))
        branching.append(len(game.legal_actions()))
    return statistics.median(rates), int(statistics.median(branching))


def _mcts_spec(sims: int, options: str) -> str:
    return f"mcts:sims={sims}" + (f",{options}" if options else "")


def engine_games_per_second(config: GameConfig, games: int, clock: Callable[[], float], seed: int = 0) -> float:
    """Uniformly random games per second (:func:`~carcassonne_env.engine.playout.random_playout`)."""
    rng = random.Random(seed)
    start = clock()
    for g in range(games):
        random_playout(Game(config, seed=seed + g), rng)
    return games / (clock() - start)


def speed_table(args: argparse.Namespace) -> list[tuple[str, str, float]]:
    """(figure, workload, rate) rows of the ``speed`` table, each the best of ``--repeat`` runs."""
    clock = CLOCKS[args.clock]
    rows: list[tuple[str, str, float]] = []

    def best(measure: Callable[[], float]) -> float:
        return max(measure() for _ in range(args.repeat))

    def greedy(config: GameConfig, value: str) -> float:
        times = greedy_decision_times(config, args.games, False, clock, value=value)
        return len(times) / sum(times)

    def mcts(config: GameConfig, sims: int, tiles: int, options: str) -> float:
        return mcts_rate(config, sims, tiles, args.positions, clock, options)[0]

    for label, expansions in WORKLOADS.items():
        config = GameConfig(players=2, expansions=expansions)
        for value in ("end_now", "linear"):
            rows.append((f"greedy decisions/s, value={value}", label, best(partial(greedy, config, value))))
        for guided, sims, options in ((False, args.sims, "rollout_turns=0,value=linear"),
                                      (True, args.guided_sims, "guide=1,rollout_turns=0,value=linear")):
            for stage, tiles in (("opening", 1), ("mid-game", args.mid_tiles)):
                figure = f"mcts{' guided' if guided else ''} simulations/s, {stage}"
                rows.append((figure, label, best(partial(mcts, config, sims, tiles, options))))
    engine = partial(engine_games_per_second, GameConfig(players=2), args.engine_games, clock)
    rows.append(("engine random games/s", "base", best(engine)))
    return rows


def run(args: argparse.Namespace) -> None:
    if args.which == "speed":
        print(f"engine: {'compiled (mypyc)' if COMPILED else 'Python source'}, "
              f"search agents: {'compiled' if SEARCH_COMPILED else 'Python source'}")
        for figure, label, rate in speed_table(args):
            print(f"{figure:42} {label:15} {rate:10.1f}")
        return
    clock = CLOCKS[args.clock]
    for label, expansions in WORKLOADS.items():
        config = GameConfig(players=2, expansions=expansions)
        if args.which in ("greedy", "all"):
            for fast in (False, True):
                times = greedy_decision_times(config, args.games, fast, clock, value=args.greedy_value)
                name = ("greedy:fast=1" if fast else "greedy") + (f",value={args.greedy_value}"
                                                                   if args.greedy_value != "end_now" else "")
                print(
                    f"{name:14} {label:15} {len(times):5d} decisions: median {statistics.median(times) * 1e3:6.2f} ms, "
                    f"mean {statistics.mean(times) * 1e3:6.2f} ms, {len(times) / sum(times):7.0f} decisions/s"
                )
        if args.which in ("mcts", "all"):
            for stage, tiles in (("opening", 1), ("mid-game", args.mid_tiles)):
                rate, legal = mcts_rate(config, args.sims, tiles, args.positions, clock, args.mcts_options)
                print(f"{_mcts_spec(args.sims, args.mcts_options):14} {label:15} {stage:8} ({legal:3d} legal): "
                      f"{rate:7.0f} simulations/s")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m agents.bench", description=__doc__.split("\n\n")[0],
        epilog="Figures depend on the machine and its load: compare runs on the same quiet machine.",
    )
    parser.add_argument("which", nargs="?", choices=("greedy", "mcts", "all", "speed"), default="all",
                        help="what to time")
    parser.add_argument("--games", type=int, default=3, help="greedy-vs-greedy games per workload (default 3)")
    parser.add_argument("--sims", type=int, default=1000, help="MCTS simulations per search (default 1000)")
    parser.add_argument("--positions", type=int, default=3, help="MCTS positions (seeds) per stage (default 3)")
    parser.add_argument("--mid-tiles", type=int, default=35, help="tiles on the board at mid-game (default 35)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall", help="wall clock (default) or CPU time")
    parser.add_argument("--mcts-options", default="", metavar="OPTS",
                        help="more options of the MCTS spec, e.g. guide=1,rollout_turns=0,value=linear")
    parser.add_argument("--greedy-value", default="end_now", metavar="VALUE",
                        help="greedy's position value: end_now (default), linear or a weights file")
    parser.add_argument("--guided-sims", type=int, default=100,
                        help="speed: simulations per guided MCTS search (default 100)")
    parser.add_argument("--engine-games", type=int, default=200,
                        help="speed: random games for the engine (default 200)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="speed: best of this many runs of each figure (default 1)")
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile of the run")
    args = parser.parse_args(argv)
    for name in ("games", "sims", "positions", "mid_tiles", "guided_sims", "engine_games", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    try:
        make_agent(_mcts_spec(args.sims, args.mcts_options), seed=0)
        make_agent(f"greedy:value={args.greedy_value}", seed=0)
    except AgentSpecError as e:
        parser.error(str(e))
    if not args.profile:
        run(args)
        return
    profile = cProfile.Profile()
    profile.runcall(run, args)
    pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
