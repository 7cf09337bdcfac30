"""The player protocols of carcassonne_env.players: the random player at both levels, the
policy → engine adapter checked against the env's own observations, and bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from carcassonne_env.engine import Action, Game, GameConfig, IllegalActionError, Phase
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment import raw_env
from carcassonne_env.environment.observation import Encoder
from carcassonne_env.players import ENCODERS_KEPT, EngineAgent, Policy, PolicyAgent, RandomAgent, as_engine_agent

W = 15


class Recorder:
    """A policy that plays a seeded random legal index and keeps what it was shown."""

    def __init__(self, seed: int) -> None:
        self.random = RandomAgent(seed)
        self.seen: list[tuple[dict[str, np.ndarray], np.ndarray]] = []

    def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        self.seen.append((observation, action_mask))
        return self.random.act(observation, action_mask)


def _play_out(game: Game, agent: EngineAgent, moves: int | None = None) -> Game:
    for _ in range(moves if moves is not None else 10**6):
        if game.is_over:
            break
        game.apply(agent.choose_action(game))
    return game


def _assert_same_observation(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


# ---------------------------------------------------------------------------------------- RandomAgent
def test_random_agent_plays_both_levels() -> None:
    agent = RandomAgent(seed=0)
    assert isinstance(agent, Policy) and isinstance(agent, EngineAgent)
    mask = np.zeros(50, dtype=np.int8)
    mask[[3, 17, 42]] = 1
    assert {agent.act({}, mask) for _ in range(200)} == {3, 17, 42}
    game = Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=4)
    while not game.is_over:
        action = agent.choose_action(game)
        assert action in game.legal_actions()
        game.apply(action)


def test_random_agent_is_deterministic_given_its_seed() -> None:
    config = GameConfig(players=2, expansions=("tower",))
    first = _play_out(Game(config, seed=1), RandomAgent(7))
    second = _play_out(Game(config, seed=1), RandomAgent(np.int64(7)))
    assert first.history == second.history
    assert _play_out(Game(config, seed=1), RandomAgent(8)).history != first.history


def test_random_agent_refuses_an_empty_mask_and_bad_seeds() -> None:
    with pytest.raises(ValueError, match="no action"):
        RandomAgent(seed=0).act({}, np.zeros(5, dtype=np.int8))
    with pytest.raises(ValueError, match="seed must be a non-negative int, got -1"):
        RandomAgent(-1)
    for bad in (1.5, "3", True, None):
        with pytest.raises(TypeError, match="seed"):
            RandomAgent(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------- PolicyAgent
@pytest.mark.parametrize(("players", "expansions"), [(2, TOWER_VARIANT), (4, ("tower",)), (3, ())])
def test_policy_agent_shows_the_policy_what_the_env_shows_the_mover(players: int, expansions: tuple[str, ...]) -> None:
    """Every seat is a PolicyAgent playing the env's game: at every decision the policy's
    observation and mask equal the env's ``observe`` of the agent to move."""
    env = raw_env(players=players, expansions=expansions, window=W)
    env.reset(seed=11)
    policy = Recorder(seed=5)
    agent = PolicyAgent(policy, window=W)
    decisions = 0
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        expected = env.observe(env.agent_selection)
        action = agent.choose_action(env.game)
        observation, mask = policy.seen[-1]
        _assert_same_observation(observation, expected["observation"])
        np.testing.assert_array_equal(mask, expected["action_mask"])
        env.play(action)
        decisions += 1
    assert decisions == len(policy.seen) > 50


def test_policy_agent_is_correct_for_any_game_in_any_order() -> None:
    """Games handed in turn, a fresh game, a clone and a game continued elsewhere all get the
    observation a from-scratch encoder gives (the adapter keeps no state across games)."""
    config = GameConfig(players=3, expansions=TOWER_VARIANT)
    policy = Recorder(seed=2)
    agent = PolicyAgent(policy, window=W)
    mover = RandomAgent(3)
    games = [Game(config, seed=s) for s in (1, 2)]

    def check(game: Game) -> None:
        agent.choose_action(game)
        fresh = Encoder(config, W)
        fresh.reset(game)
        _assert_same_observation(policy.seen[-1][0], fresh.observation(game, game.current_player))

    for _ in range(30):
        for game in games:
            check(game)
            _play_out(game, mover, moves=3)  # moves the adapter never saw
    clone = games[0].clone()
    check(clone)
    _play_out(games[0], mover, moves=5)
    check(games[0])
    check(clone)  # the clone stayed behind: its own, older state
    check(Game.from_dict(games[1].to_dict()))


def test_policy_agent_handed_a_copy_every_decision_catches_up_instead_of_rebuilding(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As the tournament plays (a fresh ``clone`` every decision), and on copies of sibling lines
    from one position (the same tiles, another follower choice; other tiles): every observation equals
    a from-scratch encoding, and the board planes are built from scratch only when a copy does not
    continue the line mirrored last."""
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    policy = Recorder(seed=4)
    agent = PolicyAgent(policy, window=W)
    resets: list[int] = []
    scratch = Encoder.reset
    monkeypatch.setattr(Encoder, "reset", lambda self, game: (resets.append(1), scratch(self, game))[1])

    def check(game: Game) -> None:
        agent.choose_action(game.clone())
        fresh = Encoder(config, W)
        scratch(fresh, game)
        _assert_same_observation(policy.seen[-1][0], fresh.observation(game, game.current_player))

    game, mover = Game(config, seed=8), RandomAgent(1)
    for _ in range(60):
        check(game)
        _play_out(game, mover, moves=1)
    assert len(resets) == 1  # one game, one build: every later copy continued it
    while game.phase is not Phase.ACTION or len(game.legal_actions()) < 2:
        _play_out(game, mover, moves=1)
    deploys, skips = game.clone(), game.clone()  # same tiles, then another follower choice
    deploys.apply(game.legal_actions()[0])
    skips.apply(game.legal_actions()[-1])
    other = Game(config, seed=9)  # other tiles
    _play_out(other, mover, moves=20)
    resets.clear()
    for line in (deploys, skips, deploys, other, skips):
        check(line)
    assert len(resets) == 2  # the other game, and the line after it: neither continues the one before


def test_policy_agent_keeps_the_encoders_of_the_games_it_was_handed_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games that do not continue one another each get an encoder; the agent keeps those of the
    last ``ENCODERS_KEPT`` games, so one handed in again after that many others is encoded afresh,
    and correctly, and one handed in again sooner is not."""
    config = GameConfig(players=2)
    policy = Recorder(seed=2)
    agent = PolicyAgent(policy, window=W)
    resets: list[int] = []
    scratch = Encoder.reset
    monkeypatch.setattr(Encoder, "reset", lambda self, game: (resets.append(1), scratch(self, game))[1])
    games = [_play_out(Game(config, seed=s), RandomAgent(s), moves=6) for s in range(ENCODERS_KEPT + 1)]
    for game in games:
        agent.choose_action(game)
    assert len(resets) == ENCODERS_KEPT + 1
    agent.choose_action(games[-1])  # kept: no new build
    assert len(resets) == ENCODERS_KEPT + 1
    agent.choose_action(games[0])  # dropped when the last one came in: built again
    assert len(resets) == ENCODERS_KEPT + 2
    fresh = Encoder(config, W)
    scratch(fresh, games[0])
    _assert_same_observation(policy.seen[-1][0], fresh.observation(games[0], games[0].current_player))


def test_policy_agent_plays_whole_games_and_pickles() -> None:
    config = GameConfig(players=2, expansions=("tower",))
    agent = PolicyAgent(RandomAgent(9), window=W)
    game = _play_out(Game(config, seed=6), agent, moves=40)
    copy = pickle.loads(pickle.dumps(agent))
    twin = Game(config, seed=6)
    for action in game.history:
        twin.apply(action)
    assert _play_out(game, agent).history == _play_out(twin, copy).history


def test_policy_agent_refuses_an_index_the_mask_does_not_allow() -> None:
    class Stubborn:
        def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
            return int(np.flatnonzero(action_mask == 0)[0])

    with pytest.raises(IllegalActionError, match="does not allow"):
        PolicyAgent(Stubborn(), window=W).choose_action(Game(GameConfig(), seed=0))


def test_policy_agent_bad_arguments_name_them() -> None:
    with pytest.raises(TypeError, match="policy"):
        PolicyAgent(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="window"):
        PolicyAgent(RandomAgent(0), window=3001)


def test_as_engine_agent_accepts_either_kind() -> None:
    engine_level = RandomAgent(0)
    assert as_engine_agent(engine_level) is engine_level
    adapted = as_engine_agent(Recorder(0), window=W)
    assert isinstance(adapted, PolicyAgent) and adapted.window == W
    assert isinstance(adapted.choose_action(Game(GameConfig(), seed=0)), Action)
    for bad in (42, RandomAgent):  # a player class is not a player
        with pytest.raises(TypeError, match="choose_action"):
            as_engine_agent(bad)  # type: ignore[arg-type]
