"""Nothing is lost: clone, save/load, records and seeds reproduce games exactly."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from carcassonne_env.engine import Game, GameConfig, GameRecord
from carcassonne_env.engine.registry import TOWER_VARIANT


def play(game: Game, rng: random.Random, steps: int | None = None) -> Game:
    done = 0
    while not game.is_over and (steps is None or done < steps):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        done += 1
    return game


@pytest.mark.parametrize("expansions", [(), TOWER_VARIANT])
@pytest.mark.parametrize("cut", [1, 57, 140])
def test_save_load_continue_equals_playing_straight_through(expansions: tuple[str, ...], cut: int) -> None:
    config = GameConfig(players=3, expansions=expansions)
    straight = play(Game(config, seed=11), random.Random(5))

    first_half = Game(config, seed=11)
    rng = random.Random(5)
    play(first_half, rng, steps=cut)
    text = json.dumps(first_half.to_dict())
    resumed = play(Game.from_dict(json.loads(text)), rng)

    assert resumed.to_dict() == straight.to_dict()
    assert resumed.scores == straight.scores


@pytest.mark.parametrize("expansions", [(), TOWER_VARIANT])
def test_record_replays_to_an_identical_state_at_every_prefix(expansions: tuple[str, ...]) -> None:
    game = play(Game(GameConfig(players=4, expansions=expansions), seed=3), random.Random(3))
    record = GameRecord.from_dict(json.loads(json.dumps(game.record().to_dict())))
    assert record.replay().to_dict() == game.to_dict()
    for upto in (0, 1, 2, 33, 100):
        partial = record.replay(upto)
        assert len(partial.history) == upto


def test_tile_order_record_replays() -> None:
    order = ["base/RFr", "base/C", "base/L", "base/Rr"] * 3
    game = play(Game(GameConfig(players=2), tile_order=order), random.Random(1))
    record = game.record()
    assert record.seed is None and record.tile_order == tuple(order)
    assert record.replay().to_dict() == game.to_dict()


def test_clone_is_independent_of_the_original() -> None:
    game = play(Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=8), random.Random(8), steps=60)
    before = game.to_dict()
    twin = game.clone()
    play(twin, random.Random(9))
    assert game.to_dict() == before
    assert twin.is_over and not game.is_over
    play(game, random.Random(9))
    assert game.to_dict() == twin.to_dict()


_FRESH_PROCESS = """
import json, random, sys
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
game = Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=int(sys.argv[1]))
rng = random.Random(0)
while not game.is_over:
    legal = game.legal_actions()
    game.apply(legal[rng.randrange(len(legal))])
print(json.dumps(game.to_dict(), sort_keys=True))
"""


def test_same_seed_gives_the_same_game_in_a_fresh_process() -> None:
    outputs = [
        subprocess.run(
            [sys.executable, "-c", _FRESH_PROCESS, "42"], check=True, capture_output=True, text=True
        ).stdout
        for _ in range(2)
    ]
    here = play(Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=42), random.Random(0))
    assert outputs[0] == outputs[1] == json.dumps(here.to_dict(), sort_keys=True) + "\n"


def test_different_seeds_give_different_piles() -> None:
    a = Game(GameConfig(players=2), seed=1).to_dict()["pile"]
    b = Game(GameConfig(players=2), seed=2).to_dict()["pile"]
    assert sorted(a) == sorted(b) and a != b


def test_from_dict_rejects_foreign_documents() -> None:
    with pytest.raises(ValueError, match="carcassonne_env/game"):
        Game.from_dict({"format": "chess"})
