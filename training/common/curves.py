"""Learning curves: the table and the figure a trainer writes after each generation (round).

* :func:`write_csv` writes a table atomically (a kill leaves the old file or the new one);
* :func:`plot_against_anchors` draws each anchor's curve over training hours with its interval
  shaded, every point named by its generation (round), the title naming the game the run trains
  for. Values are drawn within ``span``: a point beyond its top (a clean sweep: an infinite Elo, a
  win share of 1) is also marked there by an open triangle. The figure is matplotlib's object API
  (not pyplot: its global backend and figures stay untouched), saved atomically.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .storage import atomic_path

__all__ = ["Band", "plot_against_anchors", "write_csv"]


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """``header`` and ``rows`` as the CSV file ``path``, atomically."""
    with atomic_path(path) as tmp, tmp.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


@dataclass(frozen=True)
class Band:
    """One anchor's curve: a value per point and its interval's ends."""

    value: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]


def plot_against_anchors(path: Path, hours: Sequence[float], bands: Mapping[str, Band], names: Sequence[str],
                         named: str, *, span: tuple[float, float], even: float, ylabel: str, title: str,
                         game: str, note: tuple[float, str] | None = None) -> None:
    """A PNG of each anchor's :class:`Band` (``vs ANCHOR``) over training ``hours``; point ``i`` is
    named ``names[i]`` above anchor ``named``'s curve; a grey line at ``even`` (an agent as good as
    the anchor), and a dashed one at ``note``'s value with its text; ``title``, then ``game: GAME``
    (``game``: :func:`~carcassonne_env.engine.describe_game` of the run's game)."""
    from matplotlib.figure import Figure

    bottom, top = span
    height = top - bottom

    def drawn(values: Sequence[float]) -> list[float]:
        return [min(top, max(bottom, v)) for v in values]

    fig = Figure(figsize=(7, 4.6))
    ax = fig.subplots()
    for anchor, band in bands.items():
        line = ax.plot(hours, drawn(band.value), marker="o", label=f"vs {anchor}")[0]
        ax.fill_between(hours, drawn(band.low), drawn(band.high), alpha=0.15, color=line.get_color())
        swept = [(x, top) for x, v in zip(hours, band.value, strict=True) if v >= top]
        if swept:
            ax.plot(*zip(*swept, strict=True), marker="^", ms=10, mfc="white", ls="", color=line.get_color())
    for x, y, name in zip(hours, drawn(bands[named].value), names, strict=True):
        ax.annotate(name, (x, y), fontsize=7, textcoords="offset points", xytext=(0, 6), ha="center")
    ax.axhline(even, color="grey", lw=0.8)
    if note is not None:
        ax.axhline(note[0], color="grey", lw=0.8, ls="--")
        ax.annotate(note[1], (hours[0], note[0]), fontsize=7, textcoords="offset points", xytext=(0, -10), color="grey")
    ax.set_ylim(bottom - 0.02 * height, top + 0.04 * height)
    ax.set_xlabel("training hours (wall)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}\ngame: {game}", fontsize=10, pad=14)  # above the names of the top curve
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
