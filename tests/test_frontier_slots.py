"""The frontier's action slots (``frontier.py``): a frontier value packs the position's requirement (R11)
with the position's slot in a per-process table of PLACE actions, so that the legal placements read
their actions by slot, never by position. Every slot must hold its own position's actions, also
when games run in threads at the same time (the table is shared: a slot is given under a lock)."""

from __future__ import annotations

import random
import sys
import threading

from carcassonne_env.engine import Action, ActionKind, Game, GameConfig, frontier
from carcassonne_env.engine.geometry import unpack
from carcassonne_env.engine.registry import TOWER_VARIANT

THREADS = 4
GAMES = 6


def legal_lists(seed: int) -> list[list[Action]]:
    """Every legal list of a uniformly random game of all expansions (3 players)."""
    game = Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=seed)
    rng = random.Random(seed)
    out = []
    while not game.is_over:
        legal = list(game.legal_actions())
        out.append(legal)
        game.apply(legal[rng.randrange(len(legal))])
    return out


def test_every_slot_holds_the_place_actions_of_its_own_position_after_games_in_threads() -> None:
    seeds = [[9000 + 100 * t + g for g in range(GAMES)] for t in range(THREADS)]
    threaded: dict[int, list[list[Action]]] = {}

    def play(mine: list[int]) -> None:
        for seed in mine:
            threaded[seed] = legal_lists(seed)

    workers = [threading.Thread(target=play, args=(mine,)) for mine in seeds]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the interpreter switches threads as often as it can
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(interval)
    slots, actions = frontier._PLACE_SLOT, frontier.PLACE_ACTIONS
    assert sorted(slots.values()) == list(range(len(actions)))  # one slot a position, none shared
    for p, slot in slots.items():
        x, y = unpack(p)
        assert actions[slot] == tuple(Action(ActionKind.PLACE, x, y, r) for r in range(4))
    # and the games in threads listed the same legal actions as the same games played one by one
    for seed in (s for mine in seeds for s in mine):
        assert threaded[seed] == legal_lists(seed)
