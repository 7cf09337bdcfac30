"""argparse types of the package's module command lines (``python -m carcassonne_env.bench`` ...):
a bad value is refused by argparse in one line naming the flag (``argument --games: expected ...``)."""

from __future__ import annotations

import argparse

__all__ = ["MAX_COUNT", "count", "seed"]

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
