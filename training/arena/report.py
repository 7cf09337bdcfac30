"""Tournament reports: the ratings and pairings of ``games.jsonl`` as a printed table, CSV, JSON and a PNG.

Every output names the game it measured (:func:`~carcassonne_env.engine.describe_game`): the
printed tables under a first line ``game: tower variant (tower, black_tower, watchtowers), 2
players``, ``summary.json`` in its ``game`` key, the figure in its title.

Files written next to ``games.jsonl``: ``ratings.csv``, ``pairings.csv``, ``summary.json`` (the
game, both tables, the settings, the forfeits per agent and the SPRT state) and ``ratings.png``
(ratings with 95 % intervals); for 3–6-player games also ``placings.csv`` and a ``placings`` key in
``summary.json`` (first-place share, mean rank, margin over the best other seat and rank shares per
agent: :mod:`training.arena.placings`) and a ``weng_lin`` key: the Weng–Lin (Plackett–Luce) ratings
of :mod:`training.arena.weng_lin`, its ``model`` (prior and settings) and ``ratings`` (per agent
``games``, ``mu``, ``sigma``, ``mu_ci`` and ``ordinal``), which the printed placings table shows too.
Each is replaced atomically. ``summary.json`` is strict JSON: an infinite Elo (an agent that won or
lost every game) or interval bound is the string ``"+inf"`` or ``"-inf"``, an undefined number (ms
per decision of an agent that made none; CPU ms of an agent with games recorded before CPU time was)
is ``null``. ``ms_per_decision`` is wall-clock time, ``cpu_ms_per_decision`` the CPU time of the agent's
process (the thinking time agents are compared at: :mod:`training.arena.match`). The printed tables say
it in words instead (:func:`elo_text`): a clean sweep's paired Elo is a bound, ``> +224 (won every game)``.
"""

from __future__ import annotations

import csv
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from carcassonne_env.engine import describe_game
from training.common.storage import atomic_path, atomic_write_text, dumps, finite_or_label

from .placings import Placing, placings
from .ratings import PairStats, Rating, Sprt, elo_from_score, head_to_heads, pair_stats, rate
from .tournament import Settings
from .weng_lin import BETA, MU, SIGMA, TAU, WengLin, weng_lin

__all__ = ["Report", "build_report", "elo_text", "print_report", "write_report"]


@dataclass(frozen=True)
class Report:
    """Everything a tournament's games say: ratings (anchor = 0), every pairing, the decision times,
    and the game they were played in (``game``: :func:`~carcassonne_env.engine.describe_game`)."""

    anchor: str
    games: int
    game: str
    ratings: list[Rating]
    pairings: list[PairStats]
    ms_per_decision: dict[str, float]
    sprt: Sprt | None
    forfeits: dict[str, dict[str, int]] | None = None
    """Games each agent forfeited, by kind (exception, exit, illegal, changed, timeout, crash)."""
    placings: list[Placing] | None = None
    """Where each agent finishes, for 3–6-player games (None for 2 players: the pairings say it)."""
    weng_lin: list[WengLin] | None = None
    """The Weng–Lin ratings from each game's finishing order, for 3–6-player games (None for 2 players)."""
    cpu_ms_per_decision: dict[str, float] | None = None
    """CPU milliseconds a decision in the agent's process (:mod:`training.arena.match`): the thinking time
    agents are compared at; NaN for an agent with a game recorded before CPU time was (2026-12-07)."""


def build_report(settings: Settings, games: list[dict[str, Any]], anchor: str, sprt: Sprt | None = None) -> Report:
    """Statistics of the finished ``games`` of a tournament with ``settings``."""
    if anchor not in settings.agents:
        raise ValueError(f"anchor: {anchor!r} is not one of the agents {list(settings.agents)}")
    played = [a for a in settings.agents if any(a in g["seats"] for g in games)]
    h2h = head_to_heads(games, played)
    met = sorted({(h.a, h.b) for h in h2h}, key=lambda p: (played.index(p[0]), played.index(p[1])))
    ratings = rate(h2h, played, anchor, settings.game_config.players) if anchor in played and met else []
    spent: dict[str, list[float]] = {a: [0.0, 0.0, 0.0] for a in played}
    for g in games:
        cpu = g.get("cpu_seconds") or [math.nan] * len(g["seats"])
        for name, n, s, c in zip(g["seats"], g["decisions"], g["seconds"], cpu, strict=True):
            spent[name][0] += n
            spent[name][1] += s
            spent[name][2] += c
    ms = {a: 1000 * s / n if n else math.nan for a, (n, s, _) in spent.items()}
    cpu_ms = {a: 1000 * c / n if n else math.nan for a, (n, _, c) in spent.items()}
    forfeits: dict[str, dict[str, int]] = {}
    for g in games:
        if g.get("forfeit"):
            kinds = forfeits.setdefault(g["forfeit"]["agent"], {})
            kinds[g["forfeit"]["kind"]] = kinds.get(g["forfeit"]["kind"], 0) + 1
    multiplayer = settings.game_config.players > 2
    return Report(anchor, len(games), describe_game(settings.game_config), ratings,
                  [pair_stats(h2h, a, b) for a, b in met], ms, sprt, forfeits,
                  placings(games, played) if multiplayer else None, weng_lin(games, played) if multiplayer else None,
                  cpu_ms)


def _fmt(x: float, digits: int = 0) -> str:
    return f"{x + 0.0:+.{digits}f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")  # + 0.0: no "-0"


def elo_text(score: float, score_ci: tuple[float, float], win_ci: tuple[float, float]) -> str:
    """A paired Elo as printed, from the ``score`` (draws ½), its paired 95 % interval ``score_ci`` and
    the Wilson 95 % interval of the win share ``win_ci``: ``+35 [-20, +90]``. No number is infinite:
    a clean sweep (a score of 1 or 0, whose Elo is ±inf) is the bound its Wilson interval gives,
    ``> +224 (won every game)`` / ``< -224 (lost every game)``; an interval end at a score of 1 or 0
    is ``no upper bound`` / ``no lower bound``."""
    if score >= 1.0:
        return f"> {_fmt(elo_from_score(win_ci[0]))} (won every game)"
    if score <= 0.0:
        return f"< {_fmt(elo_from_score(win_ci[1]))} (lost every game)"
    low, high = (elo_from_score(x) for x in score_ci)
    return (f"{_fmt(elo_from_score(score))} [{_fmt(low) if math.isfinite(low) else 'no lower bound'}, "
            f"{_fmt(high) if math.isfinite(high) else 'no upper bound'}]")


def print_report(report: Report, console: Console | None = None) -> None:
    """The game, then the ratings and pairings as rich tables."""
    # Piped into a file or a log, rich would fold the tables to 80 columns: keep them whole there.
    console = console or Console(width=None if sys.stdout.isatty() else 180)
    console.print(f"game: {report.game}", markup=False, highlight=False)
    ratings = Table(title=f"Ratings (Elo, {report.anchor} = 0, 95 % interval) after {report.games} games")
    # With more than two players a game is several head-to-heads (module training.arena.ratings): say so.
    counted = "games" if report.placings is None else "head-to-heads"
    cpu_ms = report.cpu_ms_per_decision or {}
    for column in ("agent", "Elo", "95 % interval", counted, "score", "ms/decision", "CPU ms/decision"):
        ratings.add_column(column, justify="left" if column == "agent" else "right")
    for r in sorted(report.ratings, key=lambda r: -r.elo):
        cpu = cpu_ms.get(r.agent, math.nan)
        ratings.add_row(r.agent, _fmt(r.elo), f"[{_fmt(r.low)}, {_fmt(r.high)}]", str(r.games),
                        f"{100 * r.score:.1f} %", f"{report.ms_per_decision[r.agent]:.2f}",
                        f"{cpu:.2f}" if math.isfinite(cpu) else "-")
    console.print(ratings)
    pairs = Table(title="Pairings (from the first agent's side)")
    columns = ("A", "B", "games", "W-D-L", "win % [Wilson 95 %]", "margin ± SE", "paired Elo [95 %]", "pentanomial")
    for column in columns:
        pairs.add_column(column, justify="left" if column in ("A", "B") else "right")
    for p in report.pairings:
        pairs.add_row(
            p.a, p.b, str(p.games), f"{p.wins}-{p.draws}-{p.losses}",
            f"{100 * p.win_rate:.1f} [{100 * p.win_ci[0]:.1f}, {100 * p.win_ci[1]:.1f}]",
            f"{p.margin:+.1f} ± {p.margin_se:.1f}", elo_text(p.score, p.paired_score_ci, p.win_ci),
            " ".join(map(str, p.pentanomial)) if p.pentanomial else "-",
        )
    console.print(pairs)
    if report.placings:
        _print_placings(report.placings, report.weng_lin or [], console)
    for agent, kinds in (report.forfeits or {}).items():
        console.print(f"forfeits of {agent}: {sum(kinds.values())} game(s) ("
                      + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())) + ")")
    if report.sprt is not None:
        s = report.sprt
        verdict = {"H1": "accept H1", "H0": "accept H0", None: "undecided"}[s.decision]
        console.print(f"SPRT: LLR {s.llr:.2f} in [{s.lower:.2f}, {s.upper:.2f}] after {s.pairs} pairs: {verdict}")


def _print_placings(places: list[Placing], rated: list[WengLin], console: Console) -> None:
    """The placings table with each agent's Weng–Lin rating (``-``: not rated, self-play), the best mean
    rank on top."""
    table = Table(title=f"Placings ({len(places[0].rank_shares)}-player games, 95 % t-interval over tile-order "
                        "groups; a tie for first shares it) and Weng-Lin ratings (Plackett-Luce on the finishing "
                        f"order, prior μ {MU:g}, σ {SIGMA:.2f}; μ [μ ± 1.96σ])")
    columns = ("agent", "games", "1st place % [95 %]", "mean rank [95 %]", "Weng-Lin μ [95 %]",
               "margin over best other [95 %]")
    for column in columns:
        table.add_column(column, justify="left" if column == "agent" else "right")
    by_agent = {r.agent: r for r in rated}
    for p in sorted(places, key=lambda p: (p.mean_rank, -p.first)):
        r = by_agent.get(p.agent)
        table.add_row(
            p.agent, str(p.games), f"{100 * p.first:.1f} [{100 * p.first_ci[0]:.1f}, {100 * p.first_ci[1]:.1f}]",
            f"{p.mean_rank:.2f} [{p.mean_rank_ci[0]:.2f}, {p.mean_rank_ci[1]:.2f}]",
            "-" if r is None else f"{r.mu:.2f} [{r.mu_ci[0]:.2f}, {r.mu_ci[1]:.2f}]",
            f"{_fmt(p.margin, 1)} [{_fmt(p.margin_ci[0], 1)}, {_fmt(p.margin_ci[1], 1)}]",
        )
    console.print(table)


def _placing_row(p: Placing) -> dict[str, Any]:
    """One ``placings.csv`` row: every interval as ``_low``/``_high`` columns, the rank shares as ``rank_1`` …"""
    return {
        "agent": p.agent, "games": p.games, "groups": p.groups,
        "first": p.first, "first_low": p.first_ci[0], "first_high": p.first_ci[1],
        "mean_rank": p.mean_rank, "mean_rank_low": p.mean_rank_ci[0], "mean_rank_high": p.mean_rank_ci[1],
        "margin": p.margin, "margin_low": p.margin_ci[0], "margin_high": p.margin_ci[1],
        **{f"rank_{r}": share for r, share in enumerate(p.rank_shares, 1)},
    }


def write_report(report: Report, out: Path, settings: Settings) -> list[Path]:
    """``ratings.csv``, ``pairings.csv``, ``summary.json``, ``ratings.png`` and, with placings,
    ``placings.csv`` in ``out``; their paths."""
    paths = [out / "ratings.csv", out / "pairings.csv", out / "summary.json", out / "ratings.png"]
    rows = [asdict(r) for r in report.ratings]
    pair_rows = [
        {**asdict(p), "win_ci": list(p.win_ci), "paired_score_ci": list(p.paired_score_ci), "elo_ci": list(p.elo_ci)}
        for p in report.pairings
    ]
    tables = {paths[0]: rows, paths[1]: pair_rows}
    if report.placings is not None:
        paths.append(out / "placings.csv")
        tables[paths[-1]] = [_placing_row(p) for p in report.placings]
    for path, table in tables.items():
        with atomic_path(path) as tmp, tmp.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(table[0]) if table else ["agent"])
            writer.writeheader()
            writer.writerows(table)
    summary = {
        "game": report.game, "settings": asdict(settings), "anchor": report.anchor, "games": report.games,
        "ratings": rows, "pairings": pair_rows, "ms_per_decision": report.ms_per_decision,
        "cpu_ms_per_decision": report.cpu_ms_per_decision or {},
        "forfeits": report.forfeits or {},
        "sprt": None if report.sprt is None else {**asdict(report.sprt), "decision": report.sprt.decision},
    }
    if report.placings is not None:
        summary["placings"] = [asdict(p) for p in report.placings]
    if report.weng_lin is not None:
        summary["weng_lin"] = {"model": {"name": "PlackettLuce", "mu": MU, "sigma": SIGMA, "beta": BETA, "tau": TAU},
                               "ratings": [asdict(r) for r in report.weng_lin]}
    atomic_write_text(paths[2], dumps(_strict(summary), indent=1) + "\n")
    _plot(report, paths[3])
    return paths


def _strict(data: Any) -> Any:
    """``data`` with every non-finite float replaced (:func:`~training.common.storage.finite_or_label`)."""
    if isinstance(data, float):
        return finite_or_label(data)
    if isinstance(data, dict):
        return {k: _strict(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_strict(v) for v in data]
    return data


def _plot(report: Report, path: Path) -> None:
    """Horizontal bars: each agent's rating with its 95 % interval, strongest on top."""
    from matplotlib.figure import Figure  # not pyplot: its global backend and figures stay untouched

    ratings = sorted(report.ratings, key=lambda r: r.elo)
    fig = Figure(figsize=(7, 1.2 + 0.5 * max(1, len(ratings))))
    ax = fig.subplots()
    y = list(range(len(ratings)))
    elo = [r.elo for r in ratings]
    err = [[r.elo - r.low for r in ratings], [r.high - r.elo for r in ratings]]
    ax.errorbar(elo, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_yticks(y, [r.agent for r in ratings])
    ax.set_xlabel(f"Elo ({report.anchor} = 0), 95 % interval")
    ax.set_title(f"Ratings after {report.games} games\n{report.game}", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format="png")
