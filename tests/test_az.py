"""The ``az`` search (agents/az.py, agents/az_tree.py) and its network (agents/nets/pv_net.py), on a
small randomly initialised network: what these tests show holds for any weights."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch as th

from agents import AgentSpecError, make_agent
from agents.az import AZAgent
from agents.az_tree import Chance, Node, select_outcome
from agents.evaluation import END_NOW
from agents.greedy import GreedyAgent
from agents.nets.pv_net import NetSize, PVNet
from carcassonne_env.engine import Game, GameConfig, Phase
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.observation import Encoder
from tests.hidden_pile import with_unseen_pile_permuted

CONFIG = GameConfig(players=2, expansions=TOWER_VARIANT)
WINDOW = 31


@pytest.fixture(scope="module")
def net() -> PVNet:
    th.manual_seed(0)
    return PVNet(CONFIG, WINDOW, NetSize(channels=8, blocks=1, head_hidden=16), base="end_now")


def played(seed: int, decisions: int) -> Game:
    """A game after ``decisions`` uniformly random decisions."""
    game = Game(CONFIG, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    return game


def test_a_game_of_az_plays_only_legal_actions(net: PVNet) -> None:
    game, agent = Game(CONFIG, seed=1), AZAgent(net, END_NOW, seed=1, sims=8, k=4, batch=4)
    for _ in range(30):
        action = agent.choose_action(game)
        assert action in game.legal_actions()
        game.apply(action)


def test_a_new_networks_value_is_its_base_value(net: PVNet) -> None:
    game = played(2, 25)
    agent = AZAgent(net, END_NOW, sims=0)
    agent.choose_action(game)
    assert agent.last_root is not None
    assert agent.last_root.value == END_NOW.margin(game, game.current_player)


def test_sims_0_plays_the_networks_argmax(net: PVNet) -> None:
    game = played(2, 25)
    encoder = Encoder(CONFIG, WINDOW)
    encoder.reset(game)
    codec = ActionCodec(WINDOW)
    legal = np.array(sorted(codec.legal_indices(game, encoder.window, encoder.frontier_inside)[0]))
    logits, _ = net.evaluate([encoder.observation(game, game.current_player)], [legal])
    best = codec.decode_for(game, int(legal[np.argmax(logits[0])]), encoder.window)
    assert AZAgent(net, END_NOW, sims=0).choose_action(game) == best


def test_the_guide_at_a_tiny_temperature_over_every_action_plays_a_best_line_of_greedy(net: PVNet) -> None:
    """With every action valued (``guide_k`` above their number) and τ tiny, the line value decides:
    without a tree the agent plays a best line of ``greedy:fast=1`` by the base value (END_NOW here)."""
    for seed in (2, 3, 4):
        game = played(seed, 25)
        values = dict(zip(game.legal_actions(), GreedyAgent(seed=0, fast=True).action_values(game), strict=True))
        action = AZAgent(net, END_NOW, sims=0, guide=1e-3, guide_k=256).choose_action(game)
        assert values[action] == max(values.values())


def test_with_a_search_the_guide_at_a_tiny_temperature_still_plays_a_best_line_of_greedy(net: PVNet) -> None:
    """At 16 root visits the halving keeps the look-ahead's best: a point of line value outweighs any σ."""
    game = played(4, 25)
    values = dict(zip(game.legal_actions(), GreedyAgent(seed=0, fast=True).action_values(game), strict=True))
    action = AZAgent(net, END_NOW, seed=0, sims=16, k=256, batch=4, guide=1e-3, guide_k=256).choose_action(game)
    assert values[action] == max(values.values())


def test_a_guide_below_its_smallest_temperature_is_refused(net: PVNet) -> None:
    with pytest.raises(ValueError, match=re.escape("guide must be 0 (none) or at least 0.001 points")):
        AZAgent(net, END_NOW, guide=1e-320)


class _ReadsThePile:
    """A position value that reads the pile it is shown: the end-now margin, negated when the next two
    tiles to be drawn come in descending order of name (so a look-ahead on another pile can rank the lines
    upside down)."""

    def margins(self, game: Game) -> list[float]:
        return [self.margin(game, p) for p in range(game.num_players)]

    def margin(self, game: Game, player: int) -> float:
        saved = game.to_dict()
        pile = [str(t) for t in saved["pile"][saved["drawn"]:][:2]]
        return END_NOW.margin(game, player) * (-1.0 if pile != sorted(pile) else 1.0)


def test_the_guides_look_ahead_sees_the_public_pile_only(net: PVNet) -> None:
    """A base value that reads the pile decides every move (τ tiny): two hidden piles behind one public
    state still give the same decisions, because the look-ahead plays on the public state."""
    for seed in range(3, 11):
        game = played(seed, 30)
        other = with_unseen_pile_permuted(game, np.random.default_rng(5))
        assert other.pile_in_draw_order() != game.pile_in_draw_order()
        for sims, tree in ((0, False), (8, True)):
            first, second = (AZAgent(net, _ReadsThePile(), sims=sims, k=4, batch=4, guide=1e-3, guide_k=256,
                                     guide_tree=tree) for _ in range(2))
            assert first.choose_action(game) == second.choose_action(other)


def test_the_guided_root_plays_among_the_networks_first_actions(net: PVNet) -> None:
    """``guide_k=2``: the look-ahead values the network's two first actions; the halving visits and
    plays those two only, whatever their values."""
    game = played(3, 30)
    while game.phase is not Phase.PLACE:
        game.apply(game.legal_actions()[0])
    agent = AZAgent(net, END_NOW, seed=0, sims=16, k=4, batch=4, guide=3.0, guide_k=2)
    action = agent.choose_action(game)
    root = agent.last_root
    assert root is not None and len(root.actions) > 2
    first = set(np.argsort(-root.logits, kind="stable")[:2].tolist())
    assert root.actions.index(action) in first
    assert {int(a) for a in np.flatnonzero(root.n)} == first
    assert AZAgent(net, END_NOW, sims=0, guide=3.0, guide_k=1).choose_action(game) == \
        root.actions[int(np.argmax(root.logits))]


def test_the_guided_tree_values_every_node_by_its_best_guided_line(net: PVNet) -> None:
    """``guide_tree``: every node the search valued plays among the network's ``guide_k`` first actions
    (the others' prior is −∞), and its value is the best of those actions' line values (greedy's look-ahead
    ended by the base value), the mover's margin."""
    game = played(3, 30)
    agent = AZAgent(net, END_NOW, seed=0, sims=24, k=4, batch=4, guide=3.0, guide_k=3, guide_tree=True)
    agent.choose_action(game)
    assert agent.last_root is not None
    look_ahead = GreedyAgent(fast=True, value=END_NOW)
    nodes = [n for n in _tree(agent.last_root) if isinstance(n, Node) and n.evaluated and not n.game.is_over]
    assert len(nodes) > 5, "24 visits value more nodes than the root"
    for node in nodes:
        guided = np.flatnonzero(np.isfinite(node.logits))
        assert len(guided) == min(3, len(node.actions))
        values = look_ahead.line_values(node.game, [node.actions[int(a)] for a in guided])
        assert node.value == max(values)
        assert set(np.flatnonzero(node.n).tolist()) <= set(guided.tolist())


def test_without_a_tree_the_guided_tree_plays_the_root_guides_moves(net: PVNet) -> None:
    """``sims=0``: the root is guided once, with or without ``guide_tree`` (no double guiding)."""
    for seed in range(3, 9):
        game = played(seed, 30)
        moves = [AZAgent(net, END_NOW, sims=0, guide=3.0, guide_k=4, guide_tree=tree).choose_action(game)
                 for tree in (False, True)]
        assert moves[0] == moves[1]


def test_the_az_spec_guides_the_tree_unless_guide_is_0(net: PVNet, monkeypatch: pytest.MonkeyPatch) -> None:
    import agents.az

    given: list[tuple[float, bool]] = []

    def capture(seed: int, model: str, **options: object) -> object:
        given.append((options["guide"], options["guide_tree"]))  # type: ignore[arg-type]
        return AZAgent(net, END_NOW)

    monkeypatch.setattr(agents.az, "make_az", capture)
    for spec in ("az:pretrained", "az:pretrained,guide_tree=0", "az:pretrained,guide=0", "az:pretrained,guide_tree=1"):
        make_agent(spec, seed=0)
    assert given == [(3.0, True), (3.0, False), (0.0, False), (3.0, True)]


def test_a_guided_tree_without_a_guide_is_refused(net: PVNet) -> None:
    with pytest.raises(ValueError, match="guide_tree needs a guide"):
        AZAgent(net, END_NOW, guide=0.0, guide_tree=True)
    with pytest.raises(AgentSpecError, match="guide_tree=1 needs a guide"):
        make_agent("az:pretrained,guide=0,guide_tree=1", seed=0)


@pytest.mark.parametrize(("guide", "guide_tree"), [(0.0, False), (3.0, False), (3.0, True)])
def test_two_hidden_piles_behind_one_public_state_give_the_same_decisions(net: PVNet, guide: float,
                                                                          guide_tree: bool) -> None:
    game = played(3, 30)
    other = with_unseen_pile_permuted(game, np.random.default_rng(5))
    assert other.pile_in_draw_order() != game.pile_in_draw_order()
    first, second = (AZAgent(net, END_NOW, seed=7, sims=24, k=4, gumbel=1.0, guide=guide, guide_tree=guide_tree)
                     for _ in range(2))
    assert first.choose_action(game) == second.choose_action(other)
    assert first.last_root is not None and second.last_root is not None
    assert list(first.last_root.n) == list(second.last_root.n)


def test_chance_children_are_weighted_by_chance_outcomes(net: PVNet) -> None:
    agent = AZAgent(net, END_NOW, seed=0, sims=48, k=4, batch=8)
    agent.choose_action(played(4, 20))
    assert agent.last_root is not None
    chances = [c for c in _tree(agent.last_root) if isinstance(c, Chance)]
    assert chances, "a search of 48 visits reaches the end of a turn"
    for chance in chances:
        outcomes = chance.before.chance_outcomes()
        assert chance.outcomes == list(outcomes)
        assert chance.probs.tolist() == list(outcomes.values())
        for tile, child in zip(chance.outcomes, chance.children, strict=True):
            if child is not None and not child.game.is_over:
                drawn = child.game.current_tile
                assert child.game.phase is Phase.PLACE and drawn is not None and drawn.id == tile


def test_chance_visits_follow_the_probabilities() -> None:
    game = played(6, 20)
    chance = Chance.of(game, game.legal_actions()[0])
    for _ in range(200):
        chance.n[select_outcome(chance)] += 1
    assert np.abs(chance.n - 200 * chance.probs).max() <= 1


def test_the_next_decision_of_the_turn_reuses_the_subtree(net: PVNet) -> None:
    game = played(5, 20)
    while game.phase is not Phase.PLACE:
        game.apply(game.legal_actions()[0])
    agent = AZAgent(net, END_NOW, seed=0, sims=32, k=2, batch=4)
    action = agent.choose_action(game)
    assert agent.last_root is not None
    kept = agent.last_root.children[agent.last_root.actions.index(action)]
    game.apply(action)
    assert game.phase is not Phase.PLACE, "this position's placement leaves the same player a T3 decision"
    assert kept is not None and not isinstance(kept, Chance)
    visits = kept.n.copy()
    assert visits.sum() > 0
    agent.choose_action(game.clone())
    assert agent.last_root is kept
    assert (kept.n >= visits).all()


def test_weights_load_as_data_and_refuse_another_game(net: PVNet, tmp_path: Path) -> None:
    path = tmp_path / "az.pt"
    net.save(path)
    data = th.load(path, weights_only=True)
    assert GameConfig.from_dict(data["game"]) == CONFIG
    loaded = PVNet.load(path, CONFIG)
    for key, tensor in net.net.state_dict().items():
        assert th.equal(tensor, loaded.net.state_dict()[key])
    with pytest.raises(ValueError, match="not on this game"):
        PVNet.load(path, GameConfig(players=2))
    with pytest.raises(ValueError, match="not on this game"):
        AZAgent(loaded, END_NOW).choose_action(Game(GameConfig(players=2), seed=0))


def test_a_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.pt"
    th.save({"weights": th.zeros(2)}, path)
    with pytest.raises(ValueError, match="not the weights of an az network"):
        PVNet.load(path)


@pytest.mark.parametrize("spec", ["az:pretrained,sims=-1", "az:pretrained,k=0", "az:pretrained,batch=0",
                                  "az:pretrained,gumbel=11", "az:pretrained,sims=100001",
                                  "az:pretrained,guide=-1", "az:pretrained,guide=1001", "az:pretrained,guide_k=0"])
def test_options_out_of_their_range_are_refused_at_parse(spec: str) -> None:
    with pytest.raises(AgentSpecError, match="out of its range"):
        make_agent(spec, seed=0)


def test_a_thinking_limit_stops_the_search(net: PVNet) -> None:
    from agents.thinking_limit import ThinkingTimeout, limit_thinking

    agent = AZAgent(net, END_NOW, sims=100_000, k=4)
    assert limit_thinking(agent, 0.05)
    with pytest.raises(ThinkingTimeout):
        agent.choose_action(played(1, 10))


@pytest.mark.parametrize("seconds", [0, -1.0, float("inf"), float("nan")])
def test_a_thinking_limit_is_a_positive_number_of_seconds(net: PVNet, seconds: object) -> None:
    """Both search agents refuse another limit by their name (agents/thinking_limit.py, checked_limit)."""
    from agents.mcts import MCTSAgent

    for agent, name in ((AZAgent(net, END_NOW), "AZAgent"), (MCTSAgent(seed=0), "MCTSAgent")):
        with pytest.raises(ValueError, match=f"^{name}: a thinking limit must be a positive number of seconds"):
            agent.limit_thinking(seconds)  # type: ignore[arg-type]


def _tree(node: object) -> list[object]:
    """Every node and chance node below ``node``, itself included."""
    out, stack = [], [node]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(c for c in getattr(x, "children", []) if c is not None)
    return out


def test_a_copied_encoder_synced_forward_equals_one_built_from_scratch() -> None:
    before, after = played(8, 30), played(8, 36)
    encoder = Encoder(CONFIG, WINDOW)
    encoder.reset(before)
    kept = encoder.observation(before, before.current_player)
    copy = encoder.copy()
    copy.sync(after)
    fresh = Encoder(CONFIG, WINDOW)
    fresh.reset(after)
    for key, value in fresh.observation(after, after.current_player).items():
        assert np.array_equal(copy.observation(after, after.current_player)[key], value), key
    for key, value in encoder.observation(before, before.current_player).items():
        assert np.array_equal(kept[key], value), key


def test_with_next_draw_draws_that_tile_next() -> None:
    game = played(9, 12)
    while game.phase is not Phase.PLACE:
        game.apply(game.legal_actions()[0])
    turn_end = game.clone()
    turn_end.apply(turn_end.legal_actions()[0])
    while turn_end.phase is not Phase.PLACE:
        last = turn_end
        turn_end = turn_end.clone()
        turn_end.apply(turn_end.legal_actions()[-1])
    tile = list(last.chance_outcomes())[-1]
    drawn = last.with_next_draw(tile)
    assert drawn.remaining_counts == last.remaining_counts
    with pytest.raises(ValueError, match="no 'nothing' tile"):
        last.with_next_draw("nothing")
