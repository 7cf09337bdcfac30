"""The end-now scores (``scores_if_ended_now``, ``end_now_events``, ``end_now_breakdown``),
computed from the feature totals at the roots, against the slow way.

``Game.scores_if_ended_now`` and ``Game.end_now_events`` no longer copy the game and play the end
out: they read the union-find roots of the live game (``valuation.end_now``). Here they are checked on
thousands of positions of random games, every expansion mix and 2–6 players, against actually
finishing an independent copy of the game (rebuilt through ``to_dict``/``from_dict``, so it shares
nothing, not even the copy-on-write board group of ``clone``) with the T5 scoring then the
end-game scoring, the score log on. The game itself must be left untouched.
"""

from __future__ import annotations

import random

import pytest
from playout_invariants import COMBINATIONS, PLAYER_COUNTS

from carcassonne_env.engine import Action, ActionKind, Game, GameConfig, IllegalActionError, Phase, SegmentKind
from carcassonne_env.engine.scoring import ScoreEvent

REASON_KIND = {"city": SegmentKind.CITY, "road": SegmentKind.ROAD, "field": SegmentKind.FIELD,
               "monastery": SegmentKind.MONASTERY}


def end_now_the_slow_way(game: Game) -> tuple[tuple[int, ...], tuple[ScoreEvent, ...]]:
    """Finish an independent copy of ``game``: the pending T5 scoring, then the end-game scoring."""
    if game.is_over:
        return game.scores, ()
    copy = Game.from_dict(game.to_dict())
    copy.keep_score_log()
    copy._score_completed()
    copy._end_game()
    return copy.scores, copy.score_log


def check_position(game: Game) -> None:
    before = game.to_dict()
    scores, events = end_now_the_slow_way(game)
    assert game.scores_if_ended_now() == scores
    assert game.end_now_events() == events
    breakdown_scores, by_kind = game.end_now_breakdown()
    assert breakdown_scores == scores
    expected = [[0, 0, 0, 0] for _ in range(game.num_players)]
    for event in events:
        if event.final:
            expected[event.player][REASON_KIND[event.reason]] += event.points
    assert [list(k) for k in by_kind] == expected
    assert game.to_dict() == before
    for event in events:
        assert game.tile_at(event.x, event.y) is not None


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_end_now_equals_finishing_a_copy(combination: str, players: int) -> None:
    config = GameConfig(players=players, expansions=COMBINATIONS[combination])
    positions = 0
    for g in range(2):
        seed = 7000 + 100 * players + g
        game = Game(config, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            check_position(game)
            positions += 1
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        check_position(game)
    assert positions > 150


@pytest.mark.slow


def test_end_now_along_search_lines() -> None:
    """Every line of a turn (each T3/T4 option after each placement), as greedy searches them, on
    clones that share the board group with their parent; ``scores_if_ended_after`` of every
    option that ends the turn equals playing it out."""
    config = GameConfig(players=3, expansions=COMBINATIONS["all"])
    game = Game(config, seed=11)
    rng = random.Random(11)
    checked = 0
    while not game.is_over and checked < 3000:
        if game.tiles_placed % 7 == 3:
            for place in game.legal_actions()[:12]:
                after = game.clone()
                after.apply(place)
                check_position(after)
                for option in after.legal_actions():
                    line = after.clone()
                    line.apply(option)
                    check_position(line)
                    if line.current_player != after.current_player or line.is_over:
                        before = after.to_dict()
                        assert after.scores_if_ended_after(option) == line.scores_if_ended_now()
                        assert after.to_dict() == before
                    elif line.phase is Phase.CAPTURE:
                        for answer in line.legal_actions():
                            played = line.clone()
                            played.apply(answer)
                            assert line.scores_if_ended_after(answer) == played.scores_if_ended_now()
                    checked += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert checked > 500


def test_clones_stay_independent() -> None:
    """Copy-on-write: placing tiles in a clone or in its original leaves the other as it was."""
    config = GameConfig(players=2, expansions=COMBINATIONS["all"])
    game = Game(config, seed=5)
    rng = random.Random(5)
    for _ in range(40):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    snapshot = game.to_dict()
    clones = [game.clone() for _ in range(3)]
    for i, c in enumerate(clones):
        r = random.Random(i)
        while not c.is_over:
            legal = c.legal_actions()
            c.apply(legal[r.randrange(len(legal))])
    assert game.to_dict() == snapshot
    clone_snapshot = (c := game.clone()).to_dict()
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert c.to_dict() == clone_snapshot


def test_scores_if_ended_after_refuses() -> None:
    game = Game(GameConfig(players=2), seed=1)
    with pytest.raises(ValueError):
        game.scores_if_ended_after(game.legal_actions()[0])  # a placement does not end the turn
    game.apply(game.legal_actions()[0])
    x, y = game.placed_position or (0, 0)
    with pytest.raises(IllegalActionError):
        game.scores_if_ended_after(Action(ActionKind.DEPLOY, x + 1, y, 0))
