"""What a position costs the ``az`` search: the network per position at batch 1, 8 and 32 for a few
sizes, the encoder from scratch against a copy of an earlier position's encoder synced forward, and
the base value the network corrects (``afterstate_long``).

    CARCASSONNE_PURE_PYTHON=1 python scripts/maintainer/az_costs.py --games 4

Positions are the decisions of ``greedy:fast=1`` self-play games (2 players, the tower variant), every
``--every``-th one; times are CPU seconds of this process (``time.process_time``) with one torch thread,
the best of ``--repeat`` passes over the positions. The networks are freshly initialised (weights do not
change the cost). Prints a Markdown table (docs/experiments/2026-12-06-az-search.md).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch as th

from agents import make_agent, position_value
from agents.nets.pv_net import NetSize, PVNet
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.observation import Encoder

SIZES = {"16×2, no action heads": NetSize(16, 2, 64, False, False),
         "32×3, no action heads": NetSize(32, 3, 64, False, False),
         "32×3, action heads": NetSize(32, 3, 64, True, False),
         "32×3, action + reach heads": NetSize(32, 3, 64, True, True),
         "64×4, action + reach heads (ppo:pooled's trunk)": NetSize(64, 4, 64, True, True)}
BATCHES = (1, 8, 32)
WINDOW = 31


def positions(config: GameConfig, games: int, every: int) -> list[tuple[Game, Game]]:
    """(position, the start of the turn before it) pairs from greedy self-play."""
    out = []
    for seed in range(games):
        game = Game(config, seed=seed)
        agent = make_agent("greedy:fast=1", seed=seed)
        turn_starts = [game.clone()]
        k = 0
        while not game.is_over:
            if k % every == 0 and len(turn_starts) > 1:
                out.append((game.clone(), turn_starts[-2]))
            game.apply(agent.choose_action(game))
            if game.phase.name == "PLACE":
                turn_starts.append(game.clone())
            k += 1
    return out


def best_ms(run: Callable[[], None], items: int, repeat: int) -> float:
    """The best of ``repeat`` runs, in CPU milliseconds per item."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times) * 1e3 / items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    th.set_num_threads(1)
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    pairs = positions(config, args.games, args.every)
    codec = ActionCodec(WINDOW)
    observations, legal = [], []
    for game, _ in pairs:
        encoder = Encoder(config, WINDOW)
        encoder.reset(game)
        observations.append(encoder.observation(game, game.current_player))
        legal.append(np.array(sorted(codec.legal_indices(game, encoder.window, encoder.frontier_inside)[0])))
    n = len(pairs) // 32 * 32
    print(f"{len(pairs)} positions ({n} in the batched rows) of {args.games} greedy:fast=1 games; ms CPU a position, "
          "one torch thread, best of", args.repeat)
    print("| network | parameters | batch 1 | batch 8 | batch 32 |\n|---|---:|---:|---:|---:|")
    for name, size in SIZES.items():
        pv = PVNet(config, WINDOW, size)
        params = sum(p.numel() for p in pv.net.parameters())
        cells = []
        for batch in BATCHES:
            def passes(pv: PVNet = pv, batch: int = batch) -> None:
                for i in range(0, n, batch):
                    pv.evaluate(observations[i:i + batch], legal[i:i + batch])
            cells.append(f"{best_ms(passes, n, args.repeat):.2f}")
        print(f"| {name} | {params:,} | " + " | ".join(cells) + " |")

    encoders = []
    for _, before in pairs:
        encoder = Encoder(config, WINDOW)
        encoder.reset(before)
        encoders.append(encoder)

    def scratch() -> None:
        for game, _ in pairs:
            Encoder(config, WINDOW).reset(game)

    def synced() -> None:
        for (game, _), encoder in zip(pairs, encoders, strict=True):
            encoder.copy().sync(game)

    def copied() -> None:
        for encoder in encoders:
            encoder.copy()

    def observe() -> None:
        for (game, _), encoder in zip(pairs, encoders, strict=True):
            encoder.observation(game, game.current_player)

    base = position_value("afterstate_long")

    def valued() -> None:
        for game, _ in pairs:
            base.margin(game, game.current_player)

    print("\n| encoder, base value | ms CPU a position |\n|---|---:|")
    for name, run in (("from scratch (`Encoder.reset`)", scratch), ("`copy()` alone", copied),
                      ("`copy()` of the previous turn's start, then `sync`", synced),
                      ("`observation()` (the arrays handed to the network)", observe),
                      ("base value: `afterstate_long`'s margin of the mover", valued)):
        print(f"| {name} | {best_ms(run, len(pairs), args.repeat):.3f} |")


if __name__ == "__main__":
    main()
