"""Tournament statistics: pairings, intervals, ratings and the SPRT. No game playing here.

Conventions (docs/tournament.md has the full story):

* **Head-to-head** of agents A and B in one game: each agent's score is its best seat's score
  (it usually holds one seat; in a multiplayer gauntlet the field copies share a name). A wins if
  its score is higher, a draw if equal. Score 1 / ½ / 0; margin = A's score − B's score.
* **Win rate** W/N with the Wilson 95 % interval (scipy); **score rate** (W + D/2)/N.
* **Paired interval**: the games of one *group* (one tile order in every seat rotation) are one
  sample: the mean score over the group's games; mean ± 1.96 SE over groups (normal
  approximation, as fastchess / cutechess do with pentanomial pairs for 2 players). Converted to
  an Elo difference with :func:`elo_from_score`.
* **Ratings**: Bradley–Terry by maximum likelihood on head-to-head results (a draw counts half a
  win each), in Elo units (400·log10 odds), anchored so the anchor agent is 0. ``prior_draws``
  virtual draws per pair that met keep the fit finite when one agent wins every game (as BayesElo
  does). Intervals: from the inverse Hessian (Fisher information) of the log-likelihood for
  2-player games, where each game is one comparison; for 3–6 players the head-to-heads of one game
  are dependent, so intervals come from a bootstrap over groups, stratified by table (each table's
  groups are resampled among themselves, so every pairing stays in every resample).
* **SPRT** (the generalised SPRT of fishtest's ``LLR_logistic``): on the pentanomial counts ``n``
  of seat-swapped pairs (pair score per game 0, ¼, ½, ¾, 1), ``LLR = Σ n_i log(p1_i / p0_i)`` where
  ``p_k`` is the maximum-likelihood distribution with expected score ``s_k`` = the logistic-Elo score
  of ``elo_k``; stop at ``ln(β/(1−α))`` (accept H0) or ``ln((1−β)/α)`` (accept H1). Empty cells
  count 0.001 (fishtest's regularisation). For many pairs it approaches the normal approximation
  ``N/2 · ((m − s0)² − (m − s1)²) / v``.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import optimize, stats

__all__ = [
    "HeadToHead",
    "PairStats",
    "Rating",
    "Sprt",
    "bradley_terry",
    "constrained_mle",
    "elo_from_score",
    "head_to_heads",
    "pair_stats",
    "rate",
    "score_from_elo",
    "sprt",
    "wilson",
]

Z95 = 1.959963984540054
_ELO = 400.0 / math.log(10.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float) -> float:
    """Inverse of :func:`score_from_elo`; ±inf at a score of 1 or 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return float(-400.0 * math.log10(1.0 / score - 1.0))


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (scipy ``binomtest``)."""
    if n == 0:
        return (0.0, 1.0)
    ci = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


@dataclass(frozen=True)
class HeadToHead:
    """Agent ``a`` against agent ``b`` in one game of ``group``: ``score`` of a (1, ½, 0), ``margin`` a − b."""

    group: int
    a: str
    b: str
    score: float
    margin: int


def head_to_heads(games: Iterable[Mapping[str, Any]], order: Sequence[str]) -> list[HeadToHead]:
    """Every pair of distinct agents in every game (dicts with ``group``, ``seats``, ``scores`` and
    an optional ``forfeit``: the agent that forfeited loses to every other, whatever the scores);
    ``a`` comes before ``b`` in ``order``."""
    rank = {name: i for i, name in enumerate(order)}
    out: list[HeadToHead] = []
    for g in games:
        best: dict[str, int] = {}
        for name, score in zip(g["seats"], g["scores"], strict=True):
            best[name] = max(best.get(name, score), score)
        loser = (g.get("forfeit") or {}).get("agent")  # an agent that forfeited loses to every other
        for a, b in itertools.combinations(sorted(best, key=rank.__getitem__), 2):
            diff = best[a] - best[b]
            result = 0.0 if a == loser else 1.0 if b == loser else 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
            out.append(HeadToHead(int(g["group"]), a, b, result, diff))
    return out


@dataclass(frozen=True)
class PairStats:
    """The results of ``a`` against ``b`` (from a's side)."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_ci: tuple[float, float]
    score: float
    margin: float
    margin_se: float
    groups: int
    paired_score_ci: tuple[float, float]
    elo: float
    elo_ci: tuple[float, float]
    pentanomial: tuple[int, int, int, int, int] | None


def pair_stats(h2h: Sequence[HeadToHead], a: str, b: str) -> PairStats:
    """W/D/L, Wilson interval, margin ± SE and the paired (per-group) interval of ``a`` vs ``b``."""
    games = [h for h in h2h if (h.a, h.b) == (a, b)]
    games += [HeadToHead(h.group, a, b, 1.0 - h.score, -h.margin) for h in h2h if (h.a, h.b) == (b, a)]
    n = len(games)
    if n == 0:
        raise ValueError(f"no games between {a!r} and {b!r}")
    wins = sum(h.score == 1.0 for h in games)
    draws = sum(h.score == 0.5 for h in games)
    margins = np.array([h.margin for h in games], dtype=np.float64)
    by_group: dict[int, list[float]] = defaultdict(list)
    for h in games:
        by_group[h.group].append(h.score)
    group_means = np.array([np.mean(v) for v in by_group.values()], dtype=np.float64)
    mean = float(group_means.mean())
    half = Z95 * float(group_means.std(ddof=1)) / math.sqrt(len(group_means)) if len(group_means) > 1 else math.inf
    ci = (max(0.0, mean - half), min(1.0, mean + half))
    pairs = [v for v in by_group.values() if len(v) == 2]
    penta = None
    if pairs and all(len(v) <= 2 for v in by_group.values()):
        counts = np.bincount([round(2 * sum(v)) for v in pairs], minlength=5)
        penta = (int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3]), int(counts[4]))
    score = (wins + draws / 2) / n
    return PairStats(
        a=a, b=b, games=n, wins=wins, draws=draws, losses=n - wins - draws, win_rate=wins / n,
        win_ci=wilson(wins, n), score=score, margin=float(margins.mean()),
        margin_se=float(margins.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf,
        groups=len(group_means), paired_score_ci=ci, elo=elo_from_score(score),
        elo_ci=(elo_from_score(ci[0]), elo_from_score(ci[1])), pentanomial=penta,
    )


def bradley_terry(
    h2h: Sequence[HeadToHead], agents: Sequence[str], anchor: str, prior_draws: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley–Terry MLE: Elo ratings (anchor = 0) and the covariance of the non-anchor ratings
    (inverse Hessian, Elo²; the anchor's row and column are 0)."""
    index = {name: i for i, name in enumerate(agents)}
    if anchor not in index:
        raise ValueError(f"anchor: {anchor!r} is not one of the agents {list(agents)}")
    games: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])  # (i, j) -> [n, score of i]
    for h in h2h:
        cell = games[index[h.a], index[h.b]]
        cell[0] += 1.0
        cell[1] += h.score
    pairs = np.array(list(games), dtype=np.intp).reshape(-1, 2)
    n = np.array([v[0] for v in games.values()], dtype=np.float64) + prior_draws
    s = np.array([v[1] for v in games.values()], dtype=np.float64) + prior_draws / 2
    free = np.array([i for i in range(len(agents)) if agents[i] != anchor], dtype=np.intp)
    design = np.zeros((len(pairs), len(agents)), dtype=np.float64)
    design[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    design[np.arange(len(pairs)), pairs[:, 1]] = -1.0
    x = design[:, free]

    def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = x @ theta
        value = -(s * -np.logaddexp(0.0, -d) + (n - s) * -np.logaddexp(0.0, d)).sum()
        return float(value), -(x.T @ (s - n / (1.0 + np.exp(-d))))

    fit = optimize.minimize(nll, np.zeros(len(free)), jac=True, method="BFGS", options={"gtol": 1e-9})
    p = 1.0 / (1.0 + np.exp(-(x @ fit.x)))
    hessian = x.T @ (x * (n * p * (1.0 - p))[:, None])
    try:
        cov_free = np.linalg.inv(hessian)
    except np.linalg.LinAlgError:
        raise ValueError("ratings: some agents have no games linking them to the anchor") from None
    ratings = np.zeros(len(agents), dtype=np.float64)
    ratings[free] = fit.x * _ELO
    cov = np.zeros((len(agents), len(agents)), dtype=np.float64)
    cov[np.ix_(free, free)] = cov_free * _ELO**2
    return ratings, cov


@dataclass(frozen=True)
class Rating:
    """An agent's Elo rating on the anchor's scale with its 95 % interval."""

    agent: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def rate(
    h2h: Sequence[HeadToHead], agents: Sequence[str], anchor: str, players: int,
    prior_draws: float = 1.0, bootstrap: int = 200, seed: int = 0,
) -> list[Rating]:
    """Ratings of every agent (module docstring): Hessian intervals for 2 players, else a bootstrap over groups."""
    elo, cov = bradley_terry(h2h, agents, anchor, prior_draws)
    if players == 2:
        half = Z95 * np.sqrt(np.diag(cov))
        low, high = elo - half, elo + half
    else:
        by_group: dict[int, list[HeadToHead]] = defaultdict(list)
        for h in h2h:
            by_group[h.group].append(h)
        strata: dict[frozenset[tuple[str, str]], list[list[HeadToHead]]] = defaultdict(list)
        for games in by_group.values():
            strata[frozenset((h.a, h.b) for h in games)].append(games)
        rng = np.random.default_rng(seed)
        samples = np.array([
            bradley_terry([h for groups in strata.values() for g in rng.integers(len(groups), size=len(groups))
                           for h in groups[g]], agents, anchor, prior_draws)[0]
            for _ in range(bootstrap)
        ])
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    out = []
    for i, name in enumerate(agents):
        mine = [h.score if h.a == name else 1.0 - h.score for h in h2h if name in (h.a, h.b)]
        out.append(Rating(name, float(elo[i]), float(low[i]), float(high[i]), len(mine),
                          float(np.mean(mine)) if mine else math.nan))
    return out


@dataclass(frozen=True)
class Sprt:
    """The state of a sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1."""

    llr: float
    lower: float
    upper: float
    pairs: int

    @property
    def decision(self) -> str | None:
        """``"H0"`` or ``"H1"`` once a bound is crossed, else None (keep playing)."""
        return "H1" if self.llr >= self.upper else "H0" if self.llr <= self.lower else None


def constrained_mle(counts: npt.ArrayLike, values: npt.ArrayLike, mean: float) -> np.ndarray:
    """The maximum-likelihood distribution over ``values`` with expectation ``mean`` given observed
    ``counts``: ``p_i = n_i / (N (1 + x (v_i − mean)))`` with ``x`` the root of ``Σ p_i (v_i − mean) = 0``."""
    n = np.asarray(counts, dtype=np.float64)
    d = np.asarray(values, dtype=np.float64) - mean
    eps = 1e-12
    x = optimize.brentq(lambda x: float((n * d / (1 + x * d)).sum()), -1 / d.max() + eps, -1 / d.min() - eps)
    p = n / (n.sum() * (1 + x * d))
    return np.asarray(p / p.sum(), dtype=np.float64)


def sprt(pentanomial: Sequence[int], elo0: float, elo1: float, alpha: float, beta: float) -> Sprt:
    """GSPRT log-likelihood ratio of pentanomial pair counts (pair score 0, ½, 1, 1½, 2 from the candidate's side)."""
    if not (0 < alpha < 1 and 0 < beta < 1 and elo0 < elo1):
        raise ValueError(f"sprt: need 0 < alpha, beta < 1 and elo0 < elo1, got {elo0}, {elo1}, {alpha}, {beta}")
    pairs = int(sum(pentanomial))
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    if pairs == 0:
        return Sprt(0.0, lower, upper, 0)
    counts = np.where(np.asarray(pentanomial, dtype=np.float64) == 0, 1e-3, pentanomial)
    values = np.linspace(0.0, 1.0, 5)
    p0 = constrained_mle(counts, values, score_from_elo(elo0))
    p1 = constrained_mle(counts, values, score_from_elo(elo1))
    return Sprt(float(counts @ np.log(p1 / p0)), lower, upper, pairs)
