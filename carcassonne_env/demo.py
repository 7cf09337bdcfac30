"""Play one game between uniformly random players and print the board and the final scores.

``python -m carcassonne_env.demo --players 3 --expansions tower,black_tower,watchtowers --seed 1``
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from .engine import ConfigError, Game, GameConfig
from .engine.playout import random_playout


def play_random_game(config: GameConfig, seed: int) -> Game:
    """A complete game in which every decision is uniform over the legal actions."""
    game = Game(config, seed=seed)
    random_playout(game, random.Random(seed))
    return game


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m carcassonne_env.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--expansions", default="tower")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        config = GameConfig(players=args.players, expansions=tuple(e for e in args.expansions.split(",") if e))
    except ConfigError as e:
        parser.error(str(e))
    game = play_random_game(config, args.seed)
    print(game.render_text())
    print(f"{len(game.history)} decisions; final scores {list(game.scores)}; winners {list(game.winners())}")


if __name__ == "__main__":
    main()
