"""The greedy and MCTS engine agents: legal play with every expansion and 2–6 players, determinism
given a seed, the game passed in is never changed, MCTS never reads the true pile, and greedy plays
the clearly best line of a rulebook position."""

from __future__ import annotations

import numpy as np
import pytest
from hidden_pile import with_unseen_pile_permuted

from agents import GreedyAgent, MCTSAgent, position_value
from carcassonne_env.engine import Action, Game, GameConfig, Phase
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT

RED, BLUE = 0, 1


def short_game(players: int, seed: int, tiles: int = 16) -> Game:
    """A complete game on the first ``tiles`` tiles of a seeded tower-variant pile (fast to play out)."""
    config = GameConfig(players=players, expansions=TOWER_VARIANT)
    pile = Game(config, seed=seed).to_dict()["pile"][:tiles]
    return Game(config, tile_order=pile)


def play_out(game: Game, agents: list[GreedyAgent | MCTSAgent]) -> None:
    """Let the agents finish ``game``, checking every decision on the way."""
    while not game.is_over:
        before = game.to_dict()
        action = agents[game.current_player].choose_action(game)
        assert game.to_dict() == before, "choose_action changed the game it was given"
        assert action in game.legal_actions()
        game.apply(action)


def mixed_seats(players: int, seed: int) -> list[GreedyAgent | MCTSAgent]:
    """Seats played in turn by greedy, fast greedy and a small MCTS, each with its own seed."""
    makers = (
        lambda s: GreedyAgent(seed=s),
        lambda s: GreedyAgent(seed=s, fast=True),
        lambda s: MCTSAgent(seed=s, sims=12),
    )
    return [makers[i % 3](seed + i) for i in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_agents_play_only_legal_actions_and_leave_the_game_untouched(players: int) -> None:
    """Full games with tower, black tower and watchtowers: every choice is in the legal list and
    ``choose_action`` never modifies the game (its whole saved state is compared)."""
    game = short_game(players, seed=players, tiles=32)
    play_out(game, mixed_seats(players, seed=10 * players))
    assert game.is_over


def test_tower_actions_are_chosen_in_play() -> None:
    """The search covers the tower decisions: over a few games the agents build floors (R35)."""
    kinds = set()
    for seed in range(3):
        game = short_game(2, seed=seed, tiles=24)
        play_out(game, [GreedyAgent(seed=seed), MCTSAgent(seed=seed, sims=12)])
        kinds |= {a.kind.name for a in game.history}
    assert "FLOOR" in kinds


def test_the_same_seed_gives_the_same_moves() -> None:
    histories = []
    for _ in range(2):
        game = short_game(3, seed=7)
        play_out(game, [GreedyAgent(seed=1), MCTSAgent(seed=2, sims=10), GreedyAgent(seed=3, fast=True)])
        histories.append(game.history)
    assert histories[0] == histories[1]


def mid_game(seed: int) -> Game:
    game = short_game(2, seed=seed, tiles=40)
    rng = np.random.default_rng(seed)
    while game.tiles_placed < 12 or game.phase.name != "PLACE":
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    return game


class LeakyMCTS(MCTSAgent):
    """MCTS that starts its search from a plain copy of the game, so its determinizations permute
    the TRUE order of the pile: its worlds still look uniformly random, but they depend on that
    order. (A search on ``clone()`` would see that order in every simulation, a stronger leak.)"""

    def _public(self, game: Game) -> Game:
        return game.clone()


@pytest.mark.parametrize(("guide", "value"), [(False, "end_now"), (True, "end_now"), (True, "linear")])
def test_mcts_never_reads_the_true_pile(guide: bool, value: str) -> None:
    """Permuting the unseen pile (hidden information, R4) changes neither the MCTS search (its
    visit counts per root action) nor its choice; the leaky variant above, which differs only in
    where its determinizations start from, does change its search: the test can fail."""
    game = mid_game(seed=4)
    assert len(set(game.to_dict()["pile"][game.to_dict()["drawn"]:])) > 5
    rng = np.random.default_rng(0)
    permuted = [with_unseen_pile_permuted(game, rng) for _ in range(3)]
    assert all(p.to_dict()["pile"] != game.to_dict()["pile"] for p in permuted)

    sims = 20 if guide else 60

    def search(agent_type: type[MCTSAgent], g: Game) -> tuple[Action, dict[Action, int]]:
        agent = agent_type(seed=3, sims=sims, guide=guide, value=position_value(value))
        return agent.choose_action(g), agent.last_root_visits

    honest = search(MCTSAgent, game)
    assert sum(honest[1].values()) == sims
    assert all(search(MCTSAgent, p) == honest for p in permuted)
    leaky = search(LeakyMCTS, game)
    assert any(search(LeakyMCTS, p)[1] != leaky[1] for p in permuted)


def test_greedy_does_not_depend_on_the_unseen_pile() -> None:
    game = mid_game(seed=5)
    permuted = with_unseen_pile_permuted(game, np.random.default_rng(1))
    assert GreedyAgent(seed=2).choose_action(game) == GreedyAgent(seed=2).choose_action(permuted)


def city_to_close() -> Game:
    """Red's knight holds the one-tile city of (0,0), open to the north; Red has drawn a city cap
    (base/C) that closes it when placed at (0,1) turned half-way (R11)."""
    return (
        PositionBuilder(GameConfig(players=2))
        .tile("base/C", 0, 0, rotation=0)
        .follower(RED, 0, 0, 0)
        .build(pile=["base/C", "base/C"], current_player=RED)
    )


def test_greedy_closes_its_city_and_puts_a_farmer_next_to_it() -> None:
    """The best line of the turn: close the city (R19; 2 tiles × 2 = 4 points, R23, and the knight
    returns, R25), then a farmer on the field beside that completed city (3 points at the end,
    R28): 7. Any other placement is worth at most 2 (the open city, 1, plus a new knight, 1)."""
    game = city_to_close()
    greedy = GreedyAgent(seed=0)
    values = dict(zip(game.legal_actions(), greedy.action_values(game), strict=True))
    assert values.pop(Action.place(0, 1, 2)) == 7
    assert max(values.values()) == 2
    for seed in range(5):
        assert GreedyAgent(seed=seed).choose_action(game) == Action.place(0, 1, 2)
    game.apply(Action.place(0, 1, 2))
    assert greedy.choose_action(game) == Action.deploy(0, 1, 1)
    game.apply(Action.deploy(0, 1, 1))
    assert game.scores == (4, 0)
    assert game.scores_if_ended_now() == (7, 0)


def test_line_values_of_some_actions_are_their_action_values() -> None:
    """``line_values`` is ``action_values`` restricted to the actions asked for, in their order, and
    leaves the game as it was (the city of R19 closed: 7, the other placements at most 2)."""
    game = city_to_close()
    greedy = GreedyAgent(seed=0, fast=True)
    values = dict(zip(game.legal_actions(), greedy.action_values(game), strict=True))
    asked = [game.legal_actions()[-1], Action.place(0, 1, 2), game.legal_actions()[0]]
    before = game.clone()
    assert greedy.line_values(game, asked) == [values[a] for a in asked]
    assert greedy.line_values(game, [Action.place(0, 1, 2)]) == [7]
    assert game.legal_actions() == before.legal_actions() and game.scores == before.scores
    assert game.history == before.history


def test_mcts_also_closes_the_city() -> None:
    game = city_to_close()
    assert MCTSAgent(seed=0, sims=200).choose_action(game) == Action.place(0, 1, 2)


def test_mcts_calls_a_custom_evaluator_once_per_player_and_leaf() -> None:
    calls: list[int] = []

    def count(game: Game, player: int) -> float:
        calls.append(player)
        return 0.0

    MCTSAgent(seed=0, sims=25, evaluator=count).choose_action(mid_game(seed=6))
    assert calls == [0, 1] * 25


@pytest.mark.parametrize("rollout_turns", [0, 1, 2])
def test_guided_mcts_values_leaves_at_the_start_of_a_turn(rollout_turns: int) -> None:
    """With ``guide``, a leaf inside a turn is first finished by the fast greedy agent, then
    ``rollout_turns`` whole turns follow (the first by greedy): every leaf is valued at the start of
    a turn (T2), never in the middle of one, after at least one more action than the root's."""
    root = mid_game(seed=6)
    start = len(root.history)
    seen: list[tuple[Phase, int, int]] = []

    def record(game: Game, player: int) -> float:
        if player == 0:
            seen.append((game.phase, game.current_player, len(game.history)))
        return 0.0

    MCTSAgent(seed=0, sims=12, guide=True, rollout_turns=rollout_turns, evaluator=record).choose_action(root)
    assert len(seen) == 12
    assert all(phase is Phase.PLACE for phase, _, _ in seen)
    assert all(length > start for _, _, length in seen)


def test_guided_mcts_follows_the_greedy_ranking_when_its_prior_dominates() -> None:
    """With a huge prior the search cannot overturn greedy's ranking: it plays a greedy-best action."""
    game = mid_game(seed=7)
    values = dict(zip(game.legal_actions(), GreedyAgent(seed=0).action_values(game), strict=True))
    action = MCTSAgent(seed=1, sims=10, guide=True, prior_visits=10_000).choose_action(game)
    assert values[action] == max(values.values())


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"sims": None, "seconds": None}, "budget"),
        ({"sims": 0}, "sims"),
        ({"sims": 2.5}, "sims"),
        ({"seconds": -1.0}, "seconds"),
        ({"seconds": "1"}, "seconds"),
        ({"exploration": float("nan")}, "exploration"),
        ({"exploration": -0.1}, "exploration"),
        ({"rollout_turns": -1}, "rollout_turns"),
        ({"scale": 0.0}, "scale"),
        ({"widening": -1.0}, "widening"),
        ({"prior_visits": -1}, "prior_visits"),
        ({"guide": "1"}, "guide"),
    ],
)
def test_mcts_rejects_a_bad_option_by_name(options: dict[str, float | None], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        MCTSAgent(seed=0, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("fast", ["0", 2, None])
def test_greedy_rejects_a_fast_flag_that_is_not_a_bool(fast: object) -> None:
    with pytest.raises(ValueError, match="fast"):
        GreedyAgent(seed=0, fast=fast)  # type: ignore[arg-type]


def test_agents_refuse_a_finished_game() -> None:
    game = short_game(2, seed=0, tiles=1)
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[-1])
    assert game.is_over
    for agent in (GreedyAgent(seed=0), MCTSAgent(seed=0, sims=5)):
        with pytest.raises(ValueError, match="game is over"):
            agent.choose_action(game)
