"""The reach head's capture area is the rules' (R40, R55): every follower it sees in the area of a
floor is one the engine lets that floor capture, and every follower the engine lets it capture is
one the head sees. A head that gains it plays as before until it is fitted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from carcassonne_env.engine.registry import with_requirements

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.nets.policy import CarcassonnePolicy, policy_kwargs  # noqa: E402
from agents.nets.reach_head import ReachHead  # noqa: E402
from carcassonne_env.engine import ActionKind  # noqa: E402
from carcassonne_env.environment.aec import raw_env  # noqa: E402
from carcassonne_env.environment.layout import Layout  # noqa: E402

TOWER = with_requirements("black_tower")


def _floors_with_followers(games: int, seed: int):  # type: ignore[no-untyped-def]
    """(env, FLOOR action, observation) of random 2-player tower games, at every normal or black
    FLOOR decision (the env is left at that decision while the caller looks)."""
    env = raw_env(players=2, expansions=TOWER)
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        while not env.game.is_over:
            agent = env.agent_selection
            obs = env.observe(agent)
            legal = np.flatnonzero(obs["action_mask"])
            for index in legal:
                action = env.codec.decode_for(env.game, int(index), env.encoder.window)
                if action.kind is ActionKind.FLOOR and action.arg in (0, 1):
                    yield env, action, obs["observation"]
            env.step(int(rng.choice(legal)))


def test_the_heads_area_holds_exactly_the_followers_the_floor_may_capture() -> None:
    env = raw_env(players=2, expansions=TOWER)
    layout = Layout(env.game_config, env.encoder.window.size)
    head = ReachHead(layout, channels=4, pooled_dim=4, hidden=8, board_scale=th.nn.Identity())
    checked = with_targets = 0
    for env, action, observation in _floors_with_followers(games=12, seed=5):
        window = env.encoder.window
        board = th.as_tensor(observation["board"][None].astype(np.float32))
        cells = th.as_tensor(observation["cells"][None].astype(np.float32))
        cell = window.cell(action.x, action.y)
        ys, xs, _, reached, _ = head.area(cells, th.tensor([0]), th.tensor([cell]), th.tensor([action.arg]))
        at = head.position_features(board, cells)[0, :4].sum(0)  # followers of both seats, segments and tops
        w = window.size
        seen = {int(y) * w + int(x) for y, x, hit in zip(ys[reached], xs[reached], reached[reached], strict=True)
                if hit and at[y, x] > 0}
        if at[cell // w, cell % w] > 0:
            seen.add(cell)
        game = env.game.clone()
        game.apply(action)
        targets = {window.cell(a.x, a.y) for a in game.legal_actions() if a.kind is ActionKind.CAPTURE}
        assert seen == targets, (action, sorted(seen), sorted(targets))
        checked += 1
        with_targets += bool(targets)
    assert checked >= 20 and with_targets >= 5, (checked, with_targets)


def test_the_head_reads_what_each_follower_in_reach_holds() -> None:
    """A follower alone of its seat on its tile: the head's holdings there are its own feature's
    size, open edges and followers per seat, as the engine counts them (R6–R8, saturated as the
    observation's planes are)."""
    env = raw_env(players=2, expansions=TOWER)
    layout = Layout(env.game_config, env.encoder.window.size)
    head = ReachHead(layout, channels=4, pooled_dim=4, hidden=8, board_scale=th.nn.Identity())
    size, open_, followers = (layout.board_index[name] for name in ("size", "open", "feature_followers_s0"))
    n, checked = 2, 0
    for env, _, observation in _floors_with_followers(games=4, seed=21):
        window, game = env.encoder.window, env.game
        board = th.as_tensor(observation["board"][None].astype(np.float32))
        alone = [f for f in game.followers()
                 if sum((g.x, g.y, g.owner) == (f.x, f.y, f.owner) for g in game.followers()) == 1]
        for f in alone:
            cell = window.cell(f.x, f.y)
            seat = (f.owner - game.current_player) % n
            held = head.holdings(board, th.tensor([0]), th.tensor([[cell // window.size]]),
                                 th.tensor([[cell % window.size]]))[0, :, :, 0]  # (n, P)
            feature = game.feature(f.x, f.y, f.slot)
            mine = feature.followers[f.owner]
            assert held[seat, followers + seat] == min(mine, layout.board[followers + seat].high), (f, feature)
            if not any((g.x, g.y) == (f.x, f.y) and g.owner != f.owner for g in game.followers()):
                assert not held[1 - seat].any(), f  # no follower of the other seat: nothing held
            if feature.kind.name in ("CITY", "ROAD"):
                assert held[seat, size] == min(feature.size, layout.board[size].high), (f, feature)
                assert held[seat, open_] == min(feature.open_edges, layout.board[open_].high), (f, feature)
            checked += 1
    assert checked >= 50, checked


def test_a_network_that_gains_the_head_plays_as_before() -> None:
    import gymnasium

    from carcassonne_env.environment import SingleAgentEnv

    env = SingleAgentEnv(seat=None, players=2, expansions=TOWER)
    space = env.observation_space
    assert isinstance(space, gymnasium.spaces.Dict) and isinstance(env.action_space, gymnasium.spaces.Discrete)
    kwargs = policy_kwargs(channels=8, blocks=1, head_hidden=16, action_heads=True)
    th.manual_seed(0)
    plain = CarcassonnePolicy(space, env.action_space, lambda _: 1e-3, **kwargs)
    reach = CarcassonnePolicy(space, env.action_space, lambda _: 1e-3, **kwargs, reach_head=True)
    missing, unexpected = reach.load_state_dict(plain.state_dict(), strict=False)
    assert not unexpected and missing and all(".reach_head." in k for k in missing)
    for env_, _, observation in _floors_with_followers(games=3, seed=9):
        obs = {k: th.as_tensor(v[None]) for k, v in observation.items()}
        mask = env_.observe(env_.agent_selection)["action_mask"][None].astype(bool)
        a, _ = plain.legal_logits(obs, mask)
        b, _ = reach.legal_logits(obs, mask)
        assert th.equal(a.logits, b.logits)
        break
    else:
        pytest.fail("no FLOOR decision in 3 random games")


def _follower_or_floor(games: int, seed: int) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The observation (a batch of one), legal mask (N,) and the legal actions' kinds at the first
    decision of random tower games where both a follower and a normal or black floor are legal."""
    for env, _, observation in _floors_with_followers(games, seed):
        mask = env.observe(env.agent_selection)["action_mask"].astype(bool)
        window = env.encoder.window
        kinds = np.array([env.codec.decode_for(env.game, int(i), window).kind for i in np.flatnonzero(mask)])
        if (kinds == ActionKind.DEPLOY).any():
            return {k: th.as_tensor(v[None]) for k, v in observation.items()}, mask, kinds
    pytest.fail(f"no decision with both a follower and a floor in {games} random games")


def test_the_deploy_logits_read_the_floors_on_offer_and_nothing_when_none_is() -> None:
    """With ``deploy_sees_floors`` a follower's logit depends on the floors it competes with: the
    same position scores its followers differently once the floors are taken off the legal actions,
    and exactly as without the option when its layer is at zero (as a fine-tune starts)."""
    import gymnasium

    from carcassonne_env.environment import SingleAgentEnv

    env = SingleAgentEnv(seat=None, players=2, expansions=TOWER)
    space, actions = env.observation_space, env.action_space
    assert isinstance(space, gymnasium.spaces.Dict) and isinstance(actions, gymnasium.spaces.Discrete)
    kwargs = policy_kwargs(channels=8, blocks=1, head_hidden=16, action_heads=True, reach_head=True)
    th.manual_seed(0)
    plain = CarcassonnePolicy(space, actions, lambda _: 1e-3, **kwargs)
    seeing = CarcassonnePolicy(space, actions, lambda _: 1e-3, **kwargs, deploy_sees_floors=True)
    missing, unexpected = seeing.load_state_dict(plain.state_dict(), strict=False)
    assert not unexpected and missing == ["net.reach_head.to_deploy.weight"]
    obs, mask, kinds = _follower_or_floor(games=6, seed=9)
    no_floors = mask.copy()
    no_floors[np.flatnonzero(mask)[kinds == ActionKind.FLOOR]] = False
    deploy = np.flatnonzero(mask)[kinds == ActionKind.DEPLOY]

    def deploy_logits(policy: CarcassonnePolicy, legal: np.ndarray) -> Any:
        logits = policy.legal_logits(obs, legal[None])[0]
        return logits.logits[0, np.isin(logits.actions[0].numpy(), deploy)]

    with th.no_grad():
        assert th.equal(seeing.legal_logits(obs, mask[None])[0].logits, plain.legal_logits(obs, mask[None])[0].logits)
        th.nn.init.normal_(seeing.net.reach_head.to_deploy.weight)  # type: ignore[union-attr]
        without = deploy_logits(seeing, no_floors)
        assert len(without) == len(deploy) and not th.allclose(deploy_logits(seeing, mask), without)
        assert th.equal(without, deploy_logits(plain, no_floors))


def test_the_deploy_logits_can_see_floors_only_beside_both_heads() -> None:
    import gymnasium

    from carcassonne_env.environment import SingleAgentEnv

    env = SingleAgentEnv(seat=None, players=2, expansions=TOWER)
    space, actions = env.observation_space, env.action_space
    assert isinstance(space, gymnasium.spaces.Dict) and isinstance(actions, gymnasium.spaces.Discrete)
    kwargs = policy_kwargs(channels=8, blocks=1, head_hidden=16, action_heads=True, deploy_sees_floors=True)
    with pytest.raises(ValueError, match="needs action_heads and reach_head"):
        CarcassonnePolicy(space, actions, lambda _: 1e-3, **kwargs)
