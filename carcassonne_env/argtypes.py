"""argparse types of the package's module command lines (``python -m carcassonne_env.bench`` ...):
a bad value is refused by argparse in one line naming the flag (``argument --games: expected ...``);
and the flags that choose the game (``--expansions``, ``--rules``), the same in every command that
plays games (``carcassonne play``, ``tournament``, ``bench`` ...): the tower variant by default."""

from __future__ import annotations

import argparse

from .engine import ConfigError, GameConfig
from .engine.registry import TOWER_VARIANT

__all__ = ["DEFAULT_EXPANSIONS", "MAX_COUNT", "add_game_arguments", "count", "game_config", "names", "seed"]

#: ``--expansions``' default: the tower variant, the game of every command, trainer and shipped model.
DEFAULT_EXPANSIONS = ",".join(TOWER_VARIANT)

#: The largest count a flag takes (games, steps, workers): beyond it a run could not finish.
MAX_COUNT = 10**9


def _integer(text: str, low: int, words: str) -> int:
    """``text`` as an integer ≥ ``low``; anything else is refused as ``expected WORDS, got TEXT``."""
    try:
        value: int | None = int(text)
    except ValueError:
        value = None
    if value is None or value < low:
        raise argparse.ArgumentTypeError(f"expected {words}, got {text!r}")
    return value


def count(text: str) -> int:
    """An integer from 1 to :data:`MAX_COUNT`."""
    value = _integer(text, 1, "a positive integer")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_COUNT:,}, got {text!r}")
    return value


def seed(text: str) -> int:
    """An integer ≥ 0 (of any size: the generators take them all)."""
    return _integer(text, 0, "a non-negative integer")


def names(text: str) -> tuple[str, ...]:
    """``text`` split at commas, empty parts skipped (``''`` and ``','`` are the empty list)."""
    return tuple(n for n in text.split(",") if n)


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """``--expansions`` (default :data:`DEFAULT_EXPANSIONS`) and ``--rules`` (default none), read by
    :func:`game_config`."""
    parser.add_argument("--expansions", default=DEFAULT_EXPANSIONS, metavar="NAME,NAME",
                        help=f"comma-separated expansions: tower, black_tower, watchtowers; '' for the base game "
                             f"(default: {DEFAULT_EXPANSIONS}, the tower variant)")
    parser.add_argument("--rules", default="", metavar="FLAG,FLAG",
                        help="comma-separated rule variants to switch on, e.g. no_ransom,tower_top_followers_immune "
                             "(the boolean fields of carcassonne_env.engine.GameConfig; docs/rules.md) "
                             "(default: none)")


def game_config(players: int, expansions: str, rules: str = "", tiles: str = "") -> GameConfig:
    """The game of ``players`` and the comma-separated ``--expansions``, ``--rules`` (boolean rule
    flags to switch on) and ``--tiles`` (tile sets; '': the expansions' own); :class:`ConfigError`
    naming the flag for an unknown rule flag, and the config's own for any other bad value."""
    tile_sets = names(tiles) or None
    base = GameConfig(players=players, expansions=names(expansions), tile_sets=tile_sets).to_dict()
    for flag in names(rules):
        if flag not in base or not isinstance(base[flag], bool):
            raise ConfigError("--rules", f"unknown variant flag {flag!r}")
        base[flag] = True
    return GameConfig.from_dict(base)
