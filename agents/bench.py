"""Agent benchmarks (not tests): ``python -m agents.bench [greedy|mcts|all] [options]``.

``greedy`` plays greedy-vs-greedy games and times every decision: median and mean milliseconds
per decision and decisions/s, for the base game and for all expansions (tower + black_tower +
watchtowers), 2 players.

``mcts`` times MCTS searches of ``--sims`` simulations at the opening (the first decision) and in
mid-game (a PLACE decision after ``--mid-tiles`` tiles laid by random play), base game and all
expansions, and prints simulations/s (median over ``--positions`` seeds). ``--mcts-options`` adds
options to the searched spec, e.g. ``guide=1,rollout_turns=0,value=linear``; ``--greedy-value``
times greedy on another position value (``linear``).

``--clock cpu`` times with this process's CPU time instead of the wall clock: on a shared,
loaded machine it shows what a quiet machine would (the two agree when nothing else runs).
``--profile`` prints the top of a cProfile of the run after the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from carcassonne_env.engine import Game, GameConfig, Phase

from .mcts import MCTSAgent
from .spec import AgentSpecError, make_agent

WORKLOADS = {"base": (), "all expansions": ("tower", "black_tower", "watchtowers")}
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


def run(args: argparse.Namespace) -> None:
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
    parser.add_argument("which", nargs="?", choices=("greedy", "mcts", "all"), default="all", help="what to time")
    parser.add_argument("--games", type=int, default=3, help="greedy-vs-greedy games per workload (default 3)")
    parser.add_argument("--sims", type=int, default=1000, help="MCTS simulations per search (default 1000)")
    parser.add_argument("--positions", type=int, default=3, help="MCTS positions (seeds) per stage (default 3)")
    parser.add_argument("--mid-tiles", type=int, default=35, help="tiles on the board at mid-game (default 35)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall", help="wall clock (default) or CPU time")
    parser.add_argument("--mcts-options", default="", metavar="OPTS",
                        help="more options of the MCTS spec, e.g. guide=1,rollout_turns=0,value=linear")
    parser.add_argument("--greedy-value", default="end_now", metavar="VALUE",
                        help="greedy's position value: end_now (default), linear or a weights file")
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile of the run")
    args = parser.parse_args(argv)
    for name in ("games", "sims", "positions", "mid_tiles"):
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
