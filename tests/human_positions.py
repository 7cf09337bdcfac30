"""Tower positions for the human-table tests: a seeded game played by a fixed rule (capture,
ransom, floor, tower top, follower, else the first legal action) until a decision lists an action
of the wanted kind (found by a search over seeds 0..39)."""

from __future__ import annotations

from carcassonne_env.engine import ActionKind, Game, GameConfig

TOWER_ONLY = GameConfig(players=2, expansions=("tower",))
_PREFERENCE = (ActionKind.CAPTURE, ActionKind.RANSOM, ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.DEPLOY)
#: kind -> (seed, decisions before the first decision that lists it)
POSITIONS = {ActionKind.FLOOR: (14, 1), ActionKind.TOWER_TOP: (14, 3), ActionKind.CAPTURE: (32, 6),
             ActionKind.RANSOM: (10, 14)}


def position(kind: ActionKind) -> Game:
    """The game at the first decision that lists an action of ``kind`` (:data:`POSITIONS`)."""
    seed, decisions = POSITIONS[kind]
    game = Game(TOWER_ONLY, seed=seed)
    for _ in range(decisions):
        legal = game.legal_actions()
        game.apply(next((a for k in _PREFERENCE for a in legal if a.kind == k), legal[0]))
    assert any(a.kind == kind for a in game.legal_actions()), kind
    return game
