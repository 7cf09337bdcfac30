"""argparse types of the package's module command lines (``python -m carcassonne_env.bench`` ...):
a bad value is refused by argparse in one line naming the flag (``argument --games: expected ...``)."""

from __future__ import annotations

import argparse

__all__ = ["MAX_COUNT", "count", "seed"]

#: The largest count a flag takes (games, steps, workers): beyond it a run could not finish.
MAX_COUNT = 10**9


def count(text: str) -> int:
    """An integer from 1 to :data:`MAX_COUNT`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_COUNT:,}, got {text!r}")
    return value


def seed(text: str) -> int:
    """An integer ≥ 0 (of any size: the generators take them all)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value
