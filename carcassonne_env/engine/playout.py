"""The uniformly random playout: every decision uniform over the legal actions.

The one loop behind the engine benchmark (:mod:`carcassonne_env.bench`), the demo
(:mod:`carcassonne_env.demo`) and the window measurement
(:mod:`carcassonne_env.environment.measure_window`). Each decision draws what one
``rng.randrange(len(legal))`` draws (without calling it, for a plain ``random.Random``), so a seed
gives the same game in all of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from .actions import Action
from .game import Game

__all__ = ["random_playout"]


#: The class whose ``randrange`` :func:`_randrange` reproduces (compiled, ``random.Random`` would be
#: looked up in the module at every call).
_RANDOM: Final = random.Random


def _randrange(rng: random.Random, getrandbits: Callable[[int], int] | None, n: int) -> int:
    """``rng.randrange(n)``: the same number from the same state, and its ValueError for ``n <= 0``
    (an empty legal list, which only a broken expansion could give, is an error, not a hang). For a plain
    ``random.Random`` it is CPython's ``_randbelow_with_getrandbits(n)`` (3.10 to 3.13):
    ``n.bit_length()`` bits drawn until they are below ``n``, done here in compiled code, one C
    call a draw; ``randrange``'s two interpreted frames were an eighth of a random game's
    instructions on the compiled engine. ``getrandbits`` is ``rng``'s bound method where ``rng`` is
    a plain ``random.Random`` (:func:`_bits_of`), else None: subclasses draw through their own
    ``randrange``. Tested against ``randrange``."""
    if getrandbits is None or n <= 0:
        return rng.randrange(n)
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _bits_of(rng: random.Random) -> Callable[[int], int] | None:
    """``rng.getrandbits`` for a plain ``random.Random``, else None (see :func:`_randrange`)."""
    return rng.getrandbits if type(rng) is _RANDOM else None


def random_playout(
    game: Game, rng: random.Random, on_decision: Callable[[Sequence[Action], Action], None] | None = None
) -> int:
    """Play ``game`` to its end, each action ``legal[rng.randrange(len(legal))]`` (drawn as
    :func:`_randrange` draws it); return the number
    of decisions made. ``on_decision(legal, action)``, if given, sees every decision before it is
    applied (``legal`` is the game's own list: read it, do not keep or change it)."""
    decisions = 0
    bits = _bits_of(rng)
    if on_decision is None:  # the timed loop of the benchmark: nothing but the choice
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[_randrange(rng, bits, len(legal))])
            decisions += 1
        return decisions
    while not game.is_over:
        legal = game.legal_actions()
        action = legal[_randrange(rng, bits, len(legal))]
        on_decision(legal, action)
        game.apply(action)
        decisions += 1
    return decisions
