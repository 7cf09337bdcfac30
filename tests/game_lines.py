"""Compare the games of two runs: :func:`without_timings` drops what is measured (``TIMINGS``), so two
runs of the same games compare equal whatever the machine, back-end or load."""

from __future__ import annotations

from typing import Any

from training.arena.match import TIMINGS


def without_timings(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``games`` (parsed ``games.jsonl`` lines), each without its measured fields."""
    return [{k: v for k, v in g.items() if k not in TIMINGS} for g in games]
