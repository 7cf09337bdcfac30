"""Rate an agent with the tournament runner: the games every trainer plays to judge what it trained.

* :func:`play` plays (or resumes, game by game) a tournament into a folder of the run, on the
  back-end the run names: self-play games, a gate, a gauntlet;
* :func:`gauntlet` plays one agent against each of a field on paired seeds (every tile order in
  every seat rotation) and sums up each pair (:func:`training.arena.ratings.pair_stats`);
* :func:`rate_against_anchors` is the gauntlet every trainer plays after each generation (round):
  per anchor the score and win share with their 95 % intervals, the paired Elo, the mean margin.

An Elo is clipped to ±1000 (:func:`clipped_elo`): a clean sweep has an infinite Elo, which JSON,
a CSV column and a plot cannot hold. A trainer prints it with :func:`elo_words`, a clean sweep as a
bound with its reason (``> +224 (won every game)``), never as the clipped number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig
from training.arena import tournament
from training.arena.backends import make_backend
from training.arena.ratings import PairStats, Sprt, head_to_heads, pair_stats
from training.arena.report import elo_text

__all__ = ["ELO_LIMIT", "clipped_elo", "elo_words", "gauntlet", "play", "rate_against_anchors"]

#: The largest Elo a trainer records (:func:`clipped_elo`).
ELO_LIMIT = 1000.0


def clipped_elo(elo: float) -> float:
    """``elo`` within ±:data:`ELO_LIMIT`."""
    return max(-ELO_LIMIT, min(ELO_LIMIT, elo))


def elo_words(rating: Mapping[str, float]) -> str:
    """The paired Elo of an anchor's entry of :func:`rate_against_anchors` as a trainer prints it
    (:func:`training.arena.report.elo_text`): ``+35 [-20, +90]``, ``> +224 (won every game)``."""
    low, high = rating["low"], rating["high"]
    return elo_text(rating["score"], (low, high), (rating.get("win_low", low), rating.get("win_high", high)))


def play(settings: tournament.Settings, out: Path, workers: int, progress: bool = True, backend: str = "process",
         address: str = "") -> Sprt | None:
    """Play every unfinished game of ``settings`` into ``out`` (a tournament resumes game by game) on
    ``backend`` (``address``: a Ray cluster's); the SPRT's final state when one was asked."""
    return tournament.run(settings, out, workers, resume=True, progress=progress,
                          backend=make_backend(backend, address or None))


def gauntlet(spec: str, field: Sequence[str], seeds: int, first_seed: int, config: GameConfig, out: Path,
             workers: int, progress: bool = True, backend: str = "process", address: str = "") \
        -> tuple[dict[str, PairStats], list[dict[str, Any]]]:
    """``spec`` against each of ``field`` on ``seeds`` tile orders from ``first_seed`` (a gauntlet
    played into ``out``, :func:`play`): the pair statistics from ``spec``'s side by opponent, and the games."""
    settings = tournament.Settings(agents=(spec, *field), mode="gauntlet", seeds=seeds, first_seed=first_seed,
                                   config=config.to_dict())
    play(settings, out, workers, progress, backend, address)
    games = tournament.load_games(out)
    h2h = head_to_heads(games, (spec, *field))
    return {opponent: pair_stats(h2h, spec, opponent) for opponent in field}, games


def rate_against_anchors(
    spec: str, anchors: Sequence[str], seeds: int, first_seed: int, config: GameConfig, out: Path,
    workers: int, progress: bool = True, backend: str = "process", address: str = "",
) -> tuple[dict[str, dict[str, float]], list[dict[str, Any]]]:
    """``spec`` against each of ``anchors`` on ``seeds`` tile orders from ``first_seed`` (a gauntlet
    played into ``out``, resumed game by game); per anchor: ``score`` (points share, draws ½) with
    its paired 95 % interval ``low``/``high``, ``elo`` (clipped to ±1000) with ``elo_low``/``elo_high``,
    ``margin`` (mean points), ``games``, and the win share ``win`` with its Wilson interval
    ``win_low``/``win_high``; and the games. An anchor equal to ``spec`` is even by definition (no games)."""
    field = tuple(a for a in anchors if a != spec)
    ratings: dict[str, dict[str, float]] = {}
    for anchor in anchors:
        if anchor == spec:
            ratings[anchor] = {"score": 0.5, "low": 0.5, "high": 0.5, "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0,
                               "margin": 0.0, "games": 0, "win": 0.5, "win_low": 0.5, "win_high": 0.5}
    if not field:
        return ratings, []
    stats, games = gauntlet(spec, field, seeds, first_seed, config, out, workers, progress, backend, address)
    for anchor, st in stats.items():
        ratings[anchor] = {"score": st.score, "low": st.paired_score_ci[0], "high": st.paired_score_ci[1],
                           "elo": clipped_elo(st.elo), "elo_low": clipped_elo(st.elo_ci[0]),
                           "elo_high": clipped_elo(st.elo_ci[1]), "margin": st.margin, "games": st.games,
                           "win": st.win_rate, "win_low": st.win_ci[0], "win_high": st.win_ci[1]}
    return ratings, games
