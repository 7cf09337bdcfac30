"""``scripts/maintainer/noise_floor.py``: the turns it draws positions from, and its split of a value's
error, on a recorded game whose answers are known."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from source_module import load_module

from agents.afterstate import PRETRAINED, load_value_net
from carcassonne_env.engine import ActionKind, Game, GameConfig, GameRecord, Phase

SCRIPT = Path(__file__).parents[1] / "scripts" / "maintainer" / "noise_floor.py"


@pytest.fixture(scope="module")
def noise_floor() -> ModuleType:
    return load_module("noise_floor", SCRIPT)


@pytest.fixture(scope="module")
def record() -> GameRecord:
    """A whole 2-player game with every expansion (the first legal action each time)."""
    game = Game(GameConfig.from_dict(load_value_net(PRETRAINED).config), seed=11)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    return game.record()


def test_positions_are_drawn_at_the_start_of_a_turn(noise_floor: ModuleType, record: GameRecord) -> None:
    starts = noise_floor.turn_starts(record)
    assert starts[0] == 0 and starts == sorted(set(starts))
    assert all(record.replay(k).phase is Phase.PLACE for k in starts)
    # the turns are the tile placements: one at each start
    assert sum(1 for a in record.actions if a.kind is ActionKind.PLACE) == len(starts)
    assert all(record.actions[k].kind is ActionKind.PLACE for k in starts)


def test_a_value_at_the_playouts_mean_has_nothing_left_to_remove(noise_floor: ModuleType,
                                                                 record: GameRecord) -> None:
    """E[gap²] = bias² + variance / n: a prediction equal to the mean leaves −variance / n (bias 0,
    the sampling term taken off); one 3 points off per player (centred) leaves 9 − variance / n."""
    value = load_value_net(PRETRAINED)
    upto = noise_floor.turn_starts(record)[20]
    predicted = np.array(value.final_scores(record.replay(upto)))
    rows = [{"seed": record.seed, "actions": upto, "variance": 40.0, "mean_final": (predicted + 7.0).tolist()},
            {"seed": record.seed, "actions": upto, "variance": 40.0,
             "mean_final": (predicted + np.array([3.0, -3.0])).tolist()}]
    split = noise_floor.reducible(rows, 16, [record], str(PRETRAINED))
    assert split == pytest.approx([-40.0 / 16, 9.0 - 40.0 / 16])

