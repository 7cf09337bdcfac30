"""The admission gate: a candidate replaces the best agent only when it beats it, and the one line
that reports the verdict.

The candidate plays the best on paired seeds with the tournament runner. Two players: every tile
order in both seats (a round robin), stopped as soon as an SPRT decides (H0: Elo ≤ 0, H1: Elo ≥
``elo``, α = β = 5 %). More players: a gauntlet of the candidate against ``players − 1`` copies of
the best in every seat rotation, a game scoring 1 when the candidate beats the best copy, ½ on a
tie. The candidate is admitted when the SPRT accepts H1, or, when the seeds run out undecided, when
the 95 % interval of its paired score lies above an equal agent's share, 1 / ``players``
(:func:`gate_passes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig
from training.arena import tournament
from training.arena.ratings import head_to_heads, pair_stats

from .evaluation import clipped_elo, play

__all__ = ["ERRORS", "Gate", "gate_passes", "play_gate"]

#: The SPRT's error rates α and β.
ERRORS = 0.05


@dataclass(frozen=True)
class Gate:
    """A gate's verdict: ``passed``, its ``figures`` (``score`` with ``score_low``/``score_high``,
    ``games``, ``elo``, ``margin``) and the SPRT's ``decision`` (None: undecided, or no SPRT)."""

    passed: bool
    figures: dict[str, float]
    decision: str | None

    def report(self) -> str:
        """The gate's line in a trainer's output."""
        f = self.figures
        return (f"   score {f['score']:.3f} [{f['score_low']:.3f}, {f['score_high']:.3f}] over {f['games']:.0f} games, "
                f"SPRT {self.decision or 'undecided'}: " + ("admitted" if self.passed else "not admitted"))


def gate_passes(games: Sequence[dict[str, Any]], candidate: str, best: str, sprt_decision: str | None,
                players: int = 2) -> tuple[bool, dict[str, float]]:
    """Whether the candidate is admitted (module docstring) on the gate's ``games``, and the figures."""
    stats = pair_stats(head_to_heads(games, (candidate, best)), candidate, best)
    low, high = stats.paired_score_ci
    passed = sprt_decision == "H1" or (sprt_decision is None and low > 1.0 / players)
    return passed, {"score": stats.score, "score_low": low, "score_high": high, "games": float(stats.games),
                    "elo": clipped_elo(stats.elo), "margin": stats.margin}


def play_gate(candidate: str, best: str, config: GameConfig, seeds: int, first_seed: int, elo: float, out: Path,
              workers: int, progress: bool = True, backend: str = "process", address: str = "") -> Gate:
    """Play (or resume) the gate of ``candidate`` against ``best`` into ``out``, at most ``seeds`` tile
    orders from ``first_seed``, and judge it on the games the SPRT's decision stands on."""
    two = config.players == 2
    settings = tournament.Settings(agents=(candidate, best), mode="round_robin" if two else "gauntlet", seeds=seeds,
                                   first_seed=first_seed, config=config.to_dict(),
                                   sprt=(0.0, elo, ERRORS, ERRORS) if two else None)
    state = play(settings, out, workers, progress, backend, address)
    decision = state.decision if state is not None else None
    games = tournament.sprt_games(settings, tournament.load_games(out), state)
    return Gate(*gate_passes(games, candidate, best, decision, config.players), decision)
