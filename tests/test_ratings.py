"""Tournament statistics against known answers (training/arena/ratings.py)."""

import math

import numpy as np
import pytest
from scipy import optimize

from training.arena.match import competition_ranks
from training.arena.ratings import (
    HeadToHead,
    bradley_terry,
    constrained_mle,
    elo_from_score,
    head_to_heads,
    pair_stats,
    rate,
    score_from_elo,
    sprt,
    wilson,
)

ELO = 400 / math.log(10)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611)],
)
def test_wilson_matches_newcombe_1998_table_1(k: int, n: int, low: float, high: float) -> None:
    """Newcombe, Statistics in Medicine 17 (1998) 857–872, Table I, method 3 (Wilson score)."""
    assert wilson(k, n) == pytest.approx((low, high), abs=5e-5)


def test_elo_and_score_are_inverse_and_400_points_is_ten_to_one() -> None:
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert elo_from_score(10 / 11) == pytest.approx(400)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_ties_share_the_best_rank_of_the_tie() -> None:
    """R30: a tie for the most points is a shared win."""
    assert competition_ranks((10, 12, 12, 3)) == (3, 1, 1, 4)


def _games(a: str, b: str, wins: int, draws: int, losses: int) -> list[HeadToHead]:
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    return [HeadToHead(i, a, b, s, 0) for i, s in enumerate(scores)]


def test_bradley_terry_two_agents_is_the_log_odds_with_the_fisher_interval() -> None:
    """Closed form: Elo = 400·log10(W/L), Var(log-odds) = 1 / (N p (1 − p))."""
    h2h = _games("A", "B", 30, 0, 10)
    elo, cov = bradley_terry(h2h, ["A", "B"], anchor="B", prior_draws=0)
    assert elo == pytest.approx([400 * math.log10(3), 0.0], abs=1e-4)
    assert math.sqrt(cov[0, 0]) == pytest.approx(ELO / math.sqrt(40 * 0.75 * 0.25), rel=1e-5)
    assert cov[1, 1] == 0.0


def test_bradley_terry_draws_count_half_and_prior_draws_keep_a_clean_sweep_finite() -> None:
    elo, _ = bradley_terry(_games("A", "B", 10, 20, 10), ["A", "B"], anchor="A", prior_draws=0)
    assert elo == pytest.approx([0.0, 0.0], abs=1e-6)
    elo, _ = bradley_terry(_games("A", "B", 10, 0, 0), ["A", "B"], anchor="B", prior_draws=1)
    assert elo[0] == pytest.approx(400 * math.log10(10.5 / 0.5), abs=1e-3)


def test_bradley_terry_three_agents_recovers_consistent_odds() -> None:
    """A beats B 3:1, B beats C 3:1, A beats C 9:1: the model fits exactly, so the MLE is
    B = 400·log10 3 and A = 2·B above the anchor C."""
    h2h = _games("A", "B", 30, 0, 10) + _games("B", "C", 30, 0, 10) + _games("A", "C", 36, 0, 4)
    elo, _ = bradley_terry(h2h, ["A", "B", "C"], anchor="C", prior_draws=0)
    step = 400 * math.log10(3)
    assert elo == pytest.approx([2 * step, step, 0.0], abs=1e-3)


def test_multiplayer_head_to_head_uses_each_agents_best_seat() -> None:
    """Gauntlet table (cand, opp, opp): cand 10 against the copies' best 12 is a loss by 2."""
    game = {"group": 4, "seats": ["cand", "opp", "opp"], "scores": [10, 12, 5]}
    assert head_to_heads([game], ["cand", "opp"]) == [HeadToHead(4, "cand", "opp", 0.0, -2)]


def test_pair_stats_counts_pentanomial_pairs_and_pairs_the_interval_by_group() -> None:
    # groups of seat-swapped pairs from A's side: (1, 1), (1, ½), (0, 1), (0, 0)
    scores = [(1, 1), (1, 0.5), (0, 1), (0, 0)]
    h2h = [HeadToHead(g, "A", "B", s, 3 if s == 1 else -3 if s == 0 else 0) for g, p in enumerate(scores) for s in p]
    p = pair_stats(h2h, "A", "B")
    assert (p.games, p.wins, p.draws, p.losses) == (8, 4, 1, 3)
    assert p.pentanomial == (1, 0, 1, 1, 1)
    group_means = np.array([1.0, 0.75, 0.5, 0.0])
    half = 1.959963984540054 * group_means.std(ddof=1) / 2
    assert p.paired_score_ci == pytest.approx((0.5625 - half, 0.5625 + half))
    assert p.score == pytest.approx(4.5 / 8)
    assert p.win_ci == pytest.approx(wilson(4, 8))
    reverse = pair_stats(h2h, "B", "A")
    assert (reverse.wins, reverse.losses, reverse.pentanomial) == (3, 4, (1, 1, 1, 0, 1))
    assert reverse.margin == pytest.approx(-p.margin)


def test_multiplayer_ratings_bootstrap_brackets_the_fit() -> None:
    games = [{"group": g, "seats": ["A", "B", "C"], "scores": [3, 2, 1] if g % 4 else [1, 3, 2]} for g in range(40)]
    ratings = rate(head_to_heads(games, ["A", "B", "C"]), ["A", "B", "C"], anchor="C", players=3, bootstrap=50)
    by_name = {r.agent: r for r in ratings}
    assert by_name["C"].elo == 0.0
    assert by_name["A"].low <= by_name["A"].elo <= by_name["A"].high
    assert by_name["A"].elo > by_name["B"].elo > 0


def test_sprt_constrained_mle_agrees_with_a_general_optimiser() -> None:
    """The secular-equation MLE equals SLSQP maximising Σ n log p subject to Σ p = 1, Σ p v = s."""
    counts, values, target = np.array([3.0, 10, 20, 12, 5]), np.linspace(0, 1, 5), 0.6
    ours = constrained_mle(counts, values, target)
    res = optimize.minimize(
        lambda p: -(counts * np.log(p)).sum(), np.full(5, 0.2), method="SLSQP", bounds=[(1e-9, 1)] * 5,
        constraints=[
            {"type": "eq", "fun": lambda p: p.sum() - 1},
            {"type": "eq", "fun": lambda p: p @ values - target},
        ],
        options={"ftol": 1e-12},
    )
    assert ours == pytest.approx(res.x, abs=1e-5)
    assert ours @ values == pytest.approx(target)


def test_sprt_llr_hand_computed_and_bounds() -> None:
    """Counts whose mean is exactly the H0 score: p0 is the empirical distribution, so
    LLR = Σ n log(p1 / (n/N)); bounds ln(β/(1−α)) and ln((1−β)/α)."""
    counts = [5, 20, 50, 20, 5]  # mean 0.5 = score at 0 Elo
    state = sprt(counts, 0.0, 10.0, 0.05, 0.05)
    p1 = constrained_mle(counts, np.linspace(0, 1, 5), score_from_elo(10))
    expected = sum(n * math.log(q / (n / 100)) for n, q in zip(counts, p1, strict=True))
    assert state.llr == pytest.approx(expected)
    assert state.llr < 0 and state.decision is None
    assert (state.lower, state.upper) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))


def test_sprt_decides_h1_for_a_clearly_better_candidate_and_matches_the_normal_approximation() -> None:
    counts = np.array([100, 300, 600, 300, 150])
    state = sprt(counts, 0.0, 10.0, 0.05, 0.05)
    values = np.linspace(0, 1, 5)
    m = counts @ values / counts.sum()
    v = counts @ (values - m) ** 2 / counts.sum()
    approx = counts.sum() / 2 * ((m - score_from_elo(0)) ** 2 - (m - score_from_elo(10)) ** 2) / v
    assert state.llr == pytest.approx(approx, rel=0.01)
    assert state.decision == "H1"


def test_multiplayer_bootstrap_keeps_every_table_in_every_resample() -> None:
    """A 3-player gauntlet with two seeds per table: resampling all groups together would often
    drop one table and leave its opponent unlinked to the anchor (regression)."""
    games = [
        {"group": 2 * t + s, "seats": ["A", opp, opp], "scores": [5 + s, 4, 6 - s]}
        for t, opp in enumerate(["B", "C"]) for s in range(2)
    ]
    ratings = rate(head_to_heads(games, ["A", "B", "C"]), ["A", "B", "C"], anchor="B", players=3, bootstrap=50)
    assert [r.agent for r in ratings] == ["A", "B", "C"]
    assert all(r.low <= r.elo <= r.high for r in ratings)
