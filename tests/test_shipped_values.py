"""One spec for every table: the shipped values pick the file made for the game's player count.

``greedy:value=linear``, ``mcts:…,value=linear|afterstate``, ``afterstate:pretrained`` and
``mcts:pretrained`` name a family of files in ``agents/pretrained/`` (one per player count); a
count without one is refused before the first move, naming the counts there are.
"""

from __future__ import annotations

import json

import pytest

from agents import MCTS_PRETRAINED, AgentSpecError, PerPlayerCount, make_agent, position_value
from agents.compat import check_fits
from agents.shipped_values import AFTERSTATE_FILES, AFTERSTATE_LONG_FILES, LINEAR_FILES, PRETRAINED_DIR
from agents.value import LinearValue
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_shipped_count_has_its_files_made_for_it(players: int) -> None:
    """The linear value's file records its player count, the network its whole configuration."""
    linear = json.loads((PRETRAINED_DIR / LINEAR_FILES[players]).read_text())
    assert linear["players"] == players
    net = position_value("afterstate")
    assert isinstance(net, PerPlayerCount)
    made = net.for_players(players)
    assert getattr(made, "config") == GameConfig(players=players, expansions=TOWER_VARIANT).to_dict()  # noqa: B009


@pytest.mark.parametrize("spec", ["greedy:value=linear", "afterstate:pretrained",
                                  "mcts:sims=3,guide=1,rollout_turns=0,value=afterstate"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_one_spec_plays_at_every_shipped_count(spec: str, players: int) -> None:
    config = GameConfig(players=players, expansions=TOWER_VARIANT)
    agent = make_agent(spec, seed=1)
    check_fits(agent, config, spec)
    game = Game(config, seed=5)
    for _ in range(3 * players):
        game.apply(agent.choose_action(game))
    assert game.tiles_placed >= 1


def test_the_game_s_count_picks_the_file() -> None:
    """A 3-player game is valued by the 3-player fit, exactly; a 2-player game by the 2-player one."""
    family = position_value("linear")
    assert isinstance(family, PerPlayerCount)
    for players in (2, 3):
        game = Game(GameConfig(players=players, expansions=TOWER_VARIANT), seed=11)
        own = LinearValue.load(PRETRAINED_DIR / LINEAR_FILES[players])
        assert family.final_scores(game) == own.final_scores(game)
        assert family.margin(game, 1) == own.margin(game, 1)


@pytest.mark.parametrize("spec", ["mcts:pretrained", "mcts:sims=3,value=afterstate_long"])
def test_a_count_without_a_file_is_refused_naming_the_counts(spec: str) -> None:
    """The long run's value is made for 2 players only: a 3-player table is refused, never valued by it."""
    with pytest.raises(ValueError, match=r"made for games of 2 players, not 3"):
        check_fits(make_agent(spec, seed=0), GameConfig(players=3, expansions=TOWER_VARIANT), spec)


def test_the_network_refuses_another_expansion_set_at_its_count() -> None:
    spec = "afterstate:pretrained"
    with pytest.raises(ValueError, match=r"value network was made for the game \[tower variant \(tower, black_tower, "
                                         r"watchtowers\), 3 players\], not for this game \[expansions \(tower\), 3 "
                                         r"players\]"):
        check_fits(make_agent(spec, seed=0), GameConfig(players=3, expansions=("tower",)), spec)


def test_the_shipped_files_are_the_ones_named() -> None:
    assert set(LINEAR_FILES) == set(AFTERSTATE_FILES) == {2, 3, 4, 5, 6}
    for name in (*LINEAR_FILES.values(), *AFTERSTATE_FILES.values(), *AFTERSTATE_LONG_FILES.values()):
        assert (PRETRAINED_DIR / name).is_file(), name


def test_the_long_run_s_network_is_made_for_two_players_of_the_tower_variant() -> None:
    net = position_value("afterstate_long")
    assert isinstance(net, PerPlayerCount) and net.counts == (2,)
    assert getattr(net.for_players(2), "config") == GameConfig(players=2, expansions=TOWER_VARIANT).to_dict()  # noqa: B009


def test_mcts_pretrained_is_its_search_written_out() -> None:
    """The named search plays the moves of the spec it stands for, decision for decision."""
    named, written = make_agent("mcts:pretrained", seed=4), make_agent(MCTS_PRETRAINED, seed=4)
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=8)
    for _ in range(6):
        move = named.choose_action(game)
        assert move == written.choose_action(game)
        game.apply(move)


def test_mcts_pretrained_refuses_another_player_count_naming_its_own() -> None:
    with pytest.raises(ValueError, match=r"afterstate_long value is made for games of 2 players, not 3"):
        check_fits(make_agent("mcts:pretrained", seed=0), GameConfig(players=3, expansions=TOWER_VARIANT),
                   "mcts:pretrained")


@pytest.mark.parametrize(("spec", "message"), [
    ("mcts:pretrained,guide=0", "mcts:pretrained fixes guide"),
    ("mcts:pretrained,rollout_turns=2,value=linear", "mcts:pretrained fixes rollout_turns, value"),
    ("mcts:strongest", r"option preset=.strongest. must be one of pretrained \(other options are key=value"),
])
def test_mcts_pretrained_refuses_to_change_what_it_fixes(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec, seed=0)
