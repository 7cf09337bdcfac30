"""``Game.score_log``: every score change with who, how much, why and where (opt-in)."""

from __future__ import annotations

import random
from collections import Counter

from carcassonne_env.engine import Action, Game, GameConfig, ScoreEvent
from carcassonne_env.engine.registry import TOWER_VARIANT


def test_a_completed_city_and_a_final_monastery_are_logged_with_their_points() -> None:
    # The start tile's city cap (N) is closed by a city cap turned south above it: 2 tiles, 4 points
    # (R23); the monastery below the start tile has 1 neighbour when the pile runs out: 2 points (R27).
    game = Game(GameConfig(players=2), tile_order=["base/C", "base/L"])
    game.keep_score_log()
    for action in (Action.place(0, 1, 2), Action.deploy(0, 1, 0), Action.place(0, -1, 0), Action.deploy(0, -1, 0)):
        game.apply(action)
    assert game.is_over
    assert game.score_log == (
        ScoreEvent(turn=0, player=0, points=4, reason="city", x=0, y=0, final=False),
        ScoreEvent(turn=1, player=1, points=2, reason="monastery", x=0, y=-1, final=True),
    )
    assert game.scores == (4, 2)


def test_the_log_is_off_by_default_and_a_clone_keeps_its_own_copy() -> None:
    game = Game(GameConfig(players=2), tile_order=["base/C", "base/L"])
    game.apply(Action.place(0, 1, 2))
    game.apply(Action.deploy(0, 1, 0))
    assert game.score_log == () and game.scores == (4, 0)
    game.keep_score_log()
    copy = game.clone()
    copy.apply(Action.place(0, -1, 0))
    copy.apply(Action.deploy(0, -1, 0))
    assert len(copy.score_log) == 1 and game.score_log == ()


def test_the_logged_points_add_up_to_the_scores_in_random_games_with_every_expansion() -> None:
    reasons: Counter[str] = Counter()
    for seed in range(6):
        game = Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=seed)
        game.keep_score_log()
        rng = random.Random(seed)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        totals = Counter()
        for event in game.score_log:
            totals[event.player] += event.points
            reasons[event.reason] += 1
            if event.reason == "ransom":
                assert (event.x, event.y, event.final) == (0, 0, False)
            else:
                assert game.tile_at(event.x, event.y) is not None
        assert tuple(totals[p] for p in range(3)) == game.scores
    assert {"city", "road", "field", "ransom", "watchtower"} <= set(reasons)
