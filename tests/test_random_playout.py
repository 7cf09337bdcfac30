"""The random playout draws exactly what ``random.Random.randrange`` draws.

``random_playout`` picks ``legal[rng.randrange(len(legal))]`` at every decision (its docstring, and
the games the demo, the window measurement and the engine benchmark play by seed); for a plain
``random.Random`` it draws the same numbers without calling ``randrange`` (its interpreted frames
were an eighth of a random game on the compiled engine). The reference here is the loop written
out with the standard library's ``randrange``.
"""

from __future__ import annotations

import random

import pytest

from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.actions import Action
from carcassonne_env.engine.playout import _bits_of, _randrange, random_playout
from carcassonne_env.engine.registry import TOWER_VARIANT


def _reference_game(config: GameConfig, seed: int, rng: random.Random) -> list[Action]:
    game = Game(config, seed=seed)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return list(game.history)


class _OwnRandom(random.Random):
    """A subclass with its own ``random()``: CPython's randrange then draws through it, not
    through ``getrandbits``."""

    def random(self) -> float:
        return super().random() ** 2


@pytest.mark.parametrize("n", [*range(1, 70), 255, 256, 257, 1000, 4096, 2**40 + 3])
def test_each_draw_is_randranges_and_leaves_the_same_state(n: int) -> None:
    mine, theirs = random.Random(n), random.Random(n)
    bits = _bits_of(mine)
    assert bits is not None
    assert [_randrange(mine, bits, n) for _ in range(200)] == [theirs.randrange(n) for _ in range(200)]
    assert mine.getstate() == theirs.getstate()


def test_a_subclass_draws_through_its_own_randrange() -> None:
    rng = _OwnRandom(5)
    assert _bits_of(rng) is None
    twin = _OwnRandom(5)
    assert [_randrange(rng, None, 7) for _ in range(100)] == [twin.randrange(7) for _ in range(100)]


@pytest.mark.parametrize("expansions", [(), TOWER_VARIANT])
@pytest.mark.parametrize("rng_class", [random.Random, _OwnRandom])
def test_a_random_playout_is_the_randrange_loop_move_for_move(
    expansions: tuple[str, ...], rng_class: type[random.Random]
) -> None:
    config = GameConfig(players=3, expansions=expansions)
    for seed in range(4):
        game = Game(config, seed=seed)
        decisions = random_playout(game, rng_class(seed))
        expected = _reference_game(config, seed, rng_class(seed))
        assert list(game.history) == expected
        assert decisions == len(expected)


def test_an_empty_range_is_randranges_error_not_a_hang() -> None:
    rng = random.Random(0)
    with pytest.raises(ValueError, match="empty range"):
        _randrange(rng, _bits_of(rng), 0)
