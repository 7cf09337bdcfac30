"""Rate one agent against fixed anchors: the gauntlet every trainer plays after each generation.

:func:`rate_against_anchors` plays (or resumes) a gauntlet of the agent against every anchor on
paired seeds (every tile order in every seat rotation) with the tournament runner, and sums up
each pair: score and win share with their 95 % intervals, paired Elo, mean margin
(:func:`training.arena.ratings.pair_stats`). Used by the afterstate and distillation trainers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig

from . import tournament
from .backends import make_backend
from .ratings import head_to_heads, pair_stats

__all__ = ["rate_against_anchors"]


def _finite(x: float) -> float:
    return max(-1000.0, min(1000.0, x))


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
    settings = tournament.Settings(agents=(spec, *field), mode="gauntlet", seeds=seeds, first_seed=first_seed,
                                   config=config.to_dict())
    tournament.run(settings, out, workers, resume=True, progress=progress,
                   backend=make_backend(backend, address or None))
    games = tournament.load_games(out)
    h2h = head_to_heads(games, (spec, *field))
    for anchor in field:
        st = pair_stats(h2h, spec, anchor)
        ratings[anchor] = {"score": st.score, "low": st.paired_score_ci[0], "high": st.paired_score_ci[1],
                           "elo": _finite(st.elo), "elo_low": _finite(st.elo_ci[0]),
                           "elo_high": _finite(st.elo_ci[1]), "margin": st.margin, "games": st.games,
                           "win": st.win_rate, "win_low": st.win_ci[0], "win_high": st.win_ci[1]}
    return ratings, games
