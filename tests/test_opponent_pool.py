"""The self-play opponent pool: its documented sampling and promotion rules on constructed cases."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from training.sb3.pool import OpponentPool


def _pool(**kw: object) -> OpponentPool:
    args: dict[str, object] = {"fixed": ["random", "greedy"], "fixed_weights": [1.0, 3.0], "best": "greedy"}
    args.update(kw)
    return OpponentPool(**args)  # type: ignore[arg-type]


def test_promotion_needs_half_plus_the_margin_against_the_best() -> None:
    pool = _pool(margin=0.05)
    assert not pool.consider("ppo:a.zip", 0.549)
    assert pool.best == "greedy" and pool.snapshots == []
    assert pool.consider("ppo:a.zip", 0.55)
    assert pool.best == "ppo:a.zip" and pool.snapshots == ["ppo:a.zip"]
    # The next snapshot must now beat the promoted one, not greedy.
    assert pool.consider("ppo:b.zip", 0.9)
    assert pool.best == "ppo:b.zip" and pool.snapshots == ["ppo:a.zip", "ppo:b.zip"]


def test_the_oldest_snapshot_leaves_first_and_the_best_never() -> None:
    pool = _pool(max_snapshots=2, margin=0.0)
    for name in ("a", "b", "c"):
        assert pool.consider(f"ppo:{name}", 0.5)
    assert pool.snapshots == ["ppo:b", "ppo:c"] and pool.best == "ppo:c"


def test_without_snapshots_only_fixed_opponents_are_drawn_by_weight() -> None:
    pool = _pool(snapshot_share=1.0)
    rng = np.random.default_rng(0)
    draws = Counter(pool.sample(rng) for _ in range(4000))
    assert set(draws) == {"random", "greedy"}
    assert draws["greedy"] / 4000 == pytest.approx(0.75, abs=0.03)


def test_snapshots_drawn_with_the_share_and_recent_ones_weighted_up() -> None:
    """snapshot_share 0.4; snapshots a, b, c have weights 1, 2, 3 (probabilities 0.4 · 1/6, 2/6, 3/6)."""
    pool = _pool(snapshot_share=0.4, margin=0.0)
    for name in ("a", "b", "c"):
        pool.consider(f"ppo:{name}", 0.5)
    n = 20_000
    rng = np.random.default_rng(1)
    draws = Counter(pool.sample(rng) for _ in range(n))
    expected = {"ppo:a": 0.4 / 6, "ppo:b": 0.8 / 6, "ppo:c": 1.2 / 6, "random": 0.6 / 4, "greedy": 1.8 / 4}
    for name, p in expected.items():
        assert draws[name] / n == pytest.approx(p, abs=0.015), name


def test_state_round_trips_for_resume() -> None:
    pool = _pool(margin=0.0)
    pool.consider("ppo:a", 0.7)
    assert OpponentPool.from_dict(pool.to_dict()) == pool


@pytest.mark.parametrize(
    ("kw", "field"),
    [({"fixed": []}, "fixed"), ({"fixed_weights": [1.0]}, "fixed_weights"), ({"snapshot_share": 1.5}, "snapshot_share"),
     ({"margin": 0.5}, "margin"), ({"max_snapshots": 0}, "max_snapshots")],
)
def test_bad_settings_are_refused_naming_the_field(kw: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        _pool(**kw)


def test_a_score_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError, match="score_against_best"):
        _pool().consider("ppo:a", 1.5)


def test_a_resumed_pool_seats_its_own_snapshots_and_no_other_file(tmp_path: Path) -> None:
    """On --resume the pool's specs are read from the run's state: the run's own snapshots load, a
    path outside the run or code never does (training.sb3.selfplay._check_saved_specs)."""
    from training.common.settings import SettingError
    from training.sb3.selfplay import Settings, _check_saved_specs

    own = {"fixed": ["random", "greedy:fast=1"], "snapshots": [f"ppo:{tmp_path}/snapshots/s1.zip"],
           "best": f"ppo:{tmp_path}/snapshots/s1.zip"}
    _check_saved_specs(Settings(), own, tmp_path)
    for planted in ("ppo:/elsewhere/m.zip", f"{tmp_path}/snapshots/evil.py:Agent", "os:system"):
        with pytest.raises(SettingError, match="names an agent it may not"):
            _check_saved_specs(Settings(), {**own, "snapshots": [planted]}, tmp_path)
