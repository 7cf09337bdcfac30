"""The window measurement (a small run of the CLI's code) and the overflow behaviour."""

from __future__ import annotations

import numpy as np

from carcassonne_env.engine import ActionKind
from carcassonne_env.environment import DEFAULT_WINDOW, raw_env
from carcassonne_env.environment.measure_window import main, measure, report
from carcassonne_env.environment.options import MIN_WINDOW


def test_a_small_measurement_adds_up(capsys) -> None:  # type: ignore[no-untyped-def]
    stats = measure(games=10, workers=1)
    assert stats.games == 10 and sum(stats.extents.values()) == 10
    assert sum(stats.decision_need.values()) == stats.decisions
    safe = stats.smallest_safe_size()
    assert stats.outside(safe) == (0, 0)
    assert stats.outside(safe - 1)[0] > 0
    assert safe <= DEFAULT_WINDOW
    assert f"W = {safe}" in report(stats)
    main(["--games", "3", "--workers", "1"])
    assert "smallest window with no legal action outside" in capsys.readouterr().out


def test_a_too_small_window_flags_overflow_and_keeps_the_encodable_actions() -> None:
    env = raw_env(players=2, window=MIN_WINDOW)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    flagged = 0
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        agent = env.agent_selection
        game = env.game
        mask = env.action_mask(agent)
        info = env.infos[agent]
        legal = game.legal_actions()
        if info.get("window_overflow"):
            flagged += 1
            assert info["unencodable_actions"] == len(legal) - int(mask.sum())
        else:
            assert int(mask.sum()) == len(legal)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert flagged and env.window_overflows >= flagged
    if any(env.truncations.values()):  # no PLACE could be encoded: the game stops without a verdict
        assert env.game.phase.name == "PLACE" and all(a.kind == ActionKind.PLACE for a in env.game.legal_actions())
        assert not env.action_mask(env.agent_selection).any()
