"""``Game.apply_place_undoable`` / ``Game.undo_place``: a placement made in the game and taken back,
for search lines (greedy values every placement this way in games without an ``on_tile_placed``
hook). The contract: after the undo the game is the one before, attribute for attribute (the
frontier's order too: it orders the legal PLACE actions), and plays on exactly as a game that never
made the excursion; while the placement is open the game reads as ``clone()`` + ``apply()`` would.
"""

from __future__ import annotations

import random

import pytest

from carcassonne_env.engine import Action, ActionKind, Game, GameConfig, IllegalActionError, Phase

#: The expansion mixes without an on_tile_placed hook (the tower's registers towers on placement,
#: and the black tower needs the tower, R50).
COMBINATIONS = {"base": (), "watchtowers": ("watchtowers",)}

#: Everything a placement can touch (the board group of board.py, and the rest of the state).
STATE = (
    "_board", "_tile_pos", "_tile_type", "_tile_rot", "_tile_base", "_frontier", "_monasteries", "_parent",
    "_kind", "_node_tile", "_open", "_tiles", "_pennants", "_occupants", "_adj", "_value_cache",
    "_closed_nodes", "_closed_cities", "_final_memo", "_completed", "_legal", "_phase", "_history",
    "_followers", "_supply", "_scores", "_current", "_turn", "_tile", "_drawn", "_remaining", "_cow",
    "_discarded", "_decision_owner", "_ext", "_score_log",
)


def snapshot(game: Game) -> dict[str, object]:
    """Every attribute of ``STATE``, copied (dicts as item lists, so that their order counts), after
    the legal actions and end-now scores, which fill the game's caches."""
    out: dict[str, object] = {"legal": game.legal_actions(), "end_now": game.scores_if_ended_now()}
    for name in STATE:
        value = getattr(game, name)
        if isinstance(value, dict):
            value = list(value.items())
        elif isinstance(value, list):
            value = list(value)
        out[name] = value
    return out


def what_a_clone_reads(game: Game) -> tuple[object, ...]:
    """What a search reads after a placement: the T3 options, the end-now scores of each of them."""
    legal = game.legal_actions()
    after = [game.scores_if_ended_after(a) for a in legal if a.kind in (ActionKind.DEPLOY, ActionKind.PASS)]
    return tuple(legal), game.scores_if_ended_now(), tuple(after), game.end_now_events(), game.to_dict()


def excursions(game: Game, rng: random.Random) -> None:
    """Every legal placement of this PLACE decision made and undone (a sample where there are many),
    each checked against a clone with the placement applied; the game unchanged after each."""
    before = snapshot(game)
    legal = game.legal_actions()
    for action in rng.sample(legal, min(len(legal), 12)):
        clone = game.clone()
        clone.apply(action)
        undo = game.apply_place_undoable(action)
        assert game.phase is Phase.ACTION
        assert what_a_clone_reads(game) == what_a_clone_reads(clone)
        # a copy taken while the placement is open plays on independently (as greedy's lines do)
        copy = game.clone()
        for node in range(len(copy._parent)):  # path compression everywhere in the copy's forest
            copy._find(node)
        while not copy.is_over and copy.current_player == game.current_player:
            options = copy.legal_actions()
            copy.apply(options[rng.randrange(len(options))])
        game.undo_place(undo)
        assert snapshot(game) == before


@pytest.mark.parametrize("players", (2, 3, 5))
@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_a_game_with_excursions_plays_as_one_without(combination: str, players: int) -> None:
    config = GameConfig(players=players, expansions=COMBINATIONS[combination])
    seed = 4100 + players
    game, twin = Game(config, seed=seed), Game(config, seed=seed)
    if players == 3:  # the score log too must come back as it was
        game.keep_score_log()
        twin.keep_score_log()
    rng, moves = random.Random(seed), random.Random(seed + 1)
    places = 0
    while not game.is_over:
        if game.phase is Phase.PLACE:
            excursions(game, rng)
            places += 1
        legal = game.legal_actions()
        assert legal == twin.legal_actions()
        action = legal[moves.randrange(len(legal))]
        game.apply(action)
        twin.apply(action)
        assert game.scores == twin.scores
    assert game.to_dict() == twin.to_dict()
    assert game.score_log == twin.score_log
    assert places > 30


def test_a_shared_board_group_is_left_alone() -> None:
    """A game that shares its board with clones (copy-on-write) takes its own before it places,
    and a clone taken during the placement keeps what it saw after the undo."""
    game = Game(GameConfig(players=2), seed=5)
    rng = random.Random(5)
    for _ in range(30):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    while game.phase is not Phase.PLACE:
        game.apply(game.legal_actions()[-1])
    original = game.clone()
    before = original.to_dict()
    action = game.legal_actions()[0]
    undo = game.apply_place_undoable(action)
    during = game.clone()
    seen = during.to_dict()
    game.undo_place(undo)
    assert original.to_dict() == before == game.to_dict()
    assert during.to_dict() == seen
    assert during.tiles_placed == game.tiles_placed + 1


def test_refusals_name_what_is_wrong_and_change_nothing() -> None:
    game = Game(GameConfig(players=2), seed=11)
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="R11"):
        game.apply_place_undoable(Action(ActionKind.PLACE, 40, 40, 0))
    with pytest.raises(IllegalActionError, match="PLACE"):
        game.apply_place_undoable(Action(ActionKind.PASS))
    assert snapshot(game) == before
    undo = game.apply_place_undoable(game.legal_actions()[0])
    assert not game.place_undoable
    with pytest.raises(RuntimeError, match="undo_place it first"):
        game.apply(game.legal_actions()[-1])
    with pytest.raises(ValueError, match="no placement open"):
        game.apply_place_undoable(game.legal_actions()[0])
    other = Game(GameConfig(players=2), seed=11)
    with pytest.raises(ValueError, match="not the placement open"):
        other.undo_place(undo)
    game.undo_place(undo)
    assert snapshot(game) == before
    tower = Game(GameConfig(players=2, expansions=("tower",)), seed=11)
    assert not tower.place_undoable
    with pytest.raises(ValueError, match="on_tile_placed"):
        tower.apply_place_undoable(tower.legal_actions()[0])
