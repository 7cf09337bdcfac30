"""Self-play training on Ray RLlib (training/rllib/selfplay.py, agents/nets/rllib_module.py) and the
``rllib:PATH`` agent."""

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT

pytest.importorskip("ray.rllib")
th = pytest.importorskip("torch")

from agents import AgentSpecError, make_agent  # noqa: E402
from agents.nets.board_net import OUTSIDE_CROP, LegalLogits  # noqa: E402
from agents.nets.rllib_module import MASK_KEY, OBS_KEY, CarcassonneRLModule, make_env, scatter_legal  # noqa: E402
from carcassonne_env.engine import GameConfig  # noqa: E402
from training.arena.match import play_match  # noqa: E402
from training.arena.ray_support import LOCAL_OBJECT_STORE_BYTES  # noqa: E402
from training.common.settings import SettingError  # noqa: E402
from training.rllib.selfplay import Settings, build_config, object_store_bytes, step_bytes, train  # noqa: E402

TINY = {"channels": 8, "blocks": 1, "head_hidden": 16}


def test_the_env_adapter_renames_the_observation_key_and_keeps_the_mask() -> None:
    env = make_env({"players": 3, "expansions": TOWER_VARIANT, "window": 11})
    obs, _ = env.reset(seed=4)
    (agent, first), = obs.items()
    space = env.observation_spaces[agent]
    assert set(first) == set(space.spaces) == {OBS_KEY, MASK_KEY}
    assert space[OBS_KEY].contains(first[OBS_KEY]) and space[MASK_KEY].contains(first[MASK_KEY])
    legal = np.flatnonzero(first[MASK_KEY])
    obs, rewards, terminated, _, _ = env.step({agent: int(legal[0])})
    assert not terminated["__all__"] and len(obs) == 1 and set(rewards) == set(obs)


def test_an_illegal_action_in_the_rllib_env_is_an_error_naming_it_not_a_lost_game() -> None:
    """The trainer steps the unwrapped env (the module only takes legal actions): an illegal action
    raises, naming itself, instead of PettingZoo's TerminateIllegalWrapper ending the game with −1."""
    from carcassonne_env.engine import IllegalActionError

    env = make_env({"players": 2, "expansions": TOWER_VARIANT, "window": 11})
    obs, _ = env.reset(seed=4)
    (agent, first), = obs.items()
    illegal = int(np.flatnonzero(first[MASK_KEY] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal} "):
        env.step({agent: illegal})


def test_the_local_object_store_holds_three_iterations_of_samples() -> None:
    """The EnvRunners' episodes reach the driver through the object store (at 200 MiB one iteration
    of 1,024 steps spilled to disk): ``step_bytes`` is what a step records, the observation's arrays
    and the module's N float32 logits, counted here on a real observation."""
    env = make_env({"players": 2, "expansions": TOWER_VARIANT, "window": 31})
    obs, _ = env.reset(seed=1)
    (first,) = obs.values()
    mask = first[MASK_KEY]
    recorded = sum(a.nbytes for a in first[OBS_KEY].values()) + mask.nbytes + 4 * mask.size
    s = Settings(train_batch=1024)
    assert step_bytes(s) == recorded
    assert object_store_bytes(s) == 3 * 1024 * recorded
    assert object_store_bytes(replace(s, train_batch=16)) == LOCAL_OBJECT_STORE_BYTES  # a tournament's store
    assert object_store_bytes(replace(s, object_store_mb=300)) == 300 * 2**20
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert object_store_bytes(replace(s, train_batch=10**7)) == int(0.3 * memory)


def test_the_module_gives_masked_actions_no_probability() -> None:
    from ray.rllib.core.columns import Columns

    env = make_env({"players": 2, "expansions": TOWER_VARIANT, "window": 11})
    agent = env.possible_agents[0]
    module = CarcassonneRLModule(observation_space=env.observation_spaces[agent],
                                 action_space=env.action_spaces[agent], model_config=TINY)
    obs, _ = env.reset(seed=1)
    first = next(iter(obs.values()))
    batch = {Columns.OBS: {OBS_KEY: {k: th.as_tensor(v)[None] for k, v in first[OBS_KEY].items()},
                           MASK_KEY: th.as_tensor(first[MASK_KEY])[None]}}
    with th.no_grad():
        out = module.forward_exploration(batch)
        values = module.compute_values(batch)
    probs = th.softmax(out[Columns.ACTION_DIST_INPUTS][0], -1).numpy()
    mask = first[MASK_KEY].astype(bool)
    assert probs[~mask].max() == 0.0 and probs[mask].sum() == pytest.approx(1.0, abs=1e-5)
    assert values.shape == (1,) and th.allclose(values, out[Columns.EMBEDDINGS])


def test_padding_does_not_hide_a_legal_action_0_in_the_full_logits() -> None:
    # two observations padded to three entries: the first allows actions 0 and 2, the second only 1;
    # the padding entries point at action 0, as pad_legal writes them
    legal = LegalLogits(actions=th.tensor([[0, 2, 0], [1, 0, 0]]),
                        valid=th.tensor([[True, True, False], [True, False, False]]),
                        logits=th.tensor([[0.5, -1.0, OUTSIDE_CROP], [2.0, OUTSIDE_CROP, OUTSIDE_CROP]]))
    full = scatter_legal(legal, 4)
    assert full.tolist() == [[0.5, OUTSIDE_CROP, -1.0, OUTSIDE_CROP], [OUTSIDE_CROP, 2.0, OUTSIDE_CROP, OUTSIDE_CROP]]


def test_sampling_puts_the_module_in_eval_mode_once_and_training_puts_it_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """RLlib's forward_exploration switched the whole module tree to eval mode and back at every env
    step; the module switches only when its mode is not the one the forward needs."""
    from ray.rllib.core.columns import Columns

    module, batch = _recorded_batch(seed=5, size=3)
    switches: list[bool] = []
    real_train = th.nn.Module.train

    def counted(self: th.nn.Module, mode: bool = True) -> th.nn.Module:
        if self is module:
            switches.append(mode)
        return real_train(self, mode)

    monkeypatch.setattr(th.nn.Module, "train", counted)
    assert module.training
    with th.no_grad():
        first = module.forward_exploration(batch)
        for _ in range(3):
            module.forward_exploration(batch)
            module.forward_inference(batch)
    assert switches == [False] and not module.training
    module.forward_train(batch)
    assert switches == [False, True] and module.training
    with th.no_grad():
        again = module.forward_inference(batch)
    assert switches == [False, True, False]
    assert th.equal(first[Columns.ACTION_DIST_INPUTS], again[Columns.ACTION_DIST_INPUTS])


def _recorded_batch(seed: int, size: int, players: int = 3) -> tuple[Any, dict[str, Any]]:
    """A tiny module and a batch of ``size`` observations of random games (openings and later
    turns: legal action counts from one to hundreds)."""
    from ray.rllib.core.columns import Columns

    env = make_env({"players": players, "expansions": TOWER_VARIANT, "window": 11})
    agent = env.possible_agents[0]
    th.manual_seed(seed)
    module = CarcassonneRLModule(observation_space=env.observation_spaces[agent],
                                 action_space=env.action_spaces[agent], model_config=TINY)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = []
    while len(seen) < size:
        (agent, current), = obs.items()
        seen.append(current)
        obs, _, terminated, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(current[MASK_KEY])))})
        if terminated["__all__"]:
            obs, _ = env.reset(seed=seed + len(seen))
    stack = {OBS_KEY: {k: th.as_tensor(np.stack([o[OBS_KEY][k] for o in seen])) for k in seen[0][OBS_KEY]},
             MASK_KEY: th.as_tensor(np.stack([o[MASK_KEY] for o in seen]))}
    return module, {Columns.OBS: stack}


def test_the_legal_action_distributions_equal_the_masked_full_categorical_on_recorded_batches() -> None:
    """What the EnvRunners record (actions, their log-probs, all N logits), then an update: the
    training forward's log-probs and entropy, and PPO's KL(recorded ‖ current), equal those of
    RLlib's categorical over all N masked logits (the module before the legal-actions distributions)."""
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical

    module, batch = _recorded_batch(seed=2, size=40)
    mask = batch[Columns.OBS][MASK_KEY].bool()
    with th.no_grad():
        recorded = module.forward_exploration(batch)
    actions, full = recorded[Columns.ACTIONS], recorded[Columns.ACTION_DIST_INPUTS]
    assert bool(mask.gather(1, actions[:, None]).all()) and len(set(mask.sum(1).tolist())) > 3
    assert th.allclose(recorded[Columns.ACTION_LOGP], TorchCategorical(logits=full).logp(actions), atol=1e-5)
    with th.no_grad():  # an update
        for p in module.parameters():
            p.add_(0.1 * th.randn_like(p))
        current_full = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    train = module.forward_train(batch)
    current = module.get_train_action_dist_cls().from_logits(train[Columns.ACTION_DIST_INPUTS])
    previous = module.get_exploration_action_dist_cls().from_logits(full)
    old, new = TorchCategorical(logits=full), TorchCategorical(logits=current_full)
    assert th.allclose(current.logp(actions), new.logp(actions), atol=1e-5)
    assert th.allclose(current.entropy(), new.entropy(), atol=1e-5)
    kl = previous.kl(current)
    assert th.allclose(kl, old.kl(new), atol=1e-5) and float(kl.detach().max()) > 1e-3  # the update moved it
    assert th.allclose(current.kl(previous), new.kl(old), atol=1e-5)
    # the recorded form's own methods (not on PPO's path) agree too
    assert th.allclose(previous.logp(actions), old.logp(actions), atol=1e-5)
    assert th.allclose(previous.entropy(), old.entropy(), atol=1e-5)
    assert th.equal(previous.to_deterministic().sample(), full.argmax(1))
    (current.logp(actions).sum() + current.entropy().sum() + kl.sum()).backward()
    assert module.net.spatial_head.weight.grad is not None and module.net.other_head.weight.grad is not None
    # an action the mask does not allow (the extra timestep PPO appends to each episode chunk): the
    # full categorical's log-probability, about OUTSIDE_CROP
    illegal = th.as_tensor([int(np.flatnonzero(~row.numpy())[0]) for row in mask])
    assert th.allclose(current.logp(illegal), new.logp(illegal)) and float(current.logp(illegal).max().detach()) < -1e7


def test_a_module_checkpoint_saved_before_the_legal_action_distributions_loads_plays_and_trains() -> None:
    """tests/golden/legacy_rllib_module_w11: an RLModule checkpoint written by the module whose
    distribution was RLlib's categorical over all N logits (same class, arguments and weights)."""
    from ray.rllib.core.columns import Columns

    from agents.rllib import load_module, module_path

    path = Path(__file__).parent / "golden" / "legacy_rllib_module_w11"
    module = load_module(module_path(path))
    assert isinstance(module, CarcassonneRLModule) and module.net.features_extractor.window == 11
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    game = play_match(config, [f"rllib:{path}", "random"], seed=1)
    assert game.record.replay().scores == game.scores
    _, batch = _recorded_batch(seed=3, size=8, players=2)
    out = module.forward_train(batch)
    dist = module.get_train_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    assert th.isfinite(dist.entropy()).all()


@pytest.mark.xdist_group("ray")
@pytest.mark.slow
def test_two_training_iterations_resume_and_write_a_checkpoint_that_plays_as_an_agent(
    ray_local: Any, tmp_path: Path
) -> None:
    """One iteration, then ``--resume`` to two: the counters continue from the checkpoint, a progress
    line written after it (an interrupted iteration) is dropped, and the final checkpoint plays."""
    first = Settings(out=str(tmp_path / "run"), env_runners=1, iterations=1, window=11, train_batch=64,
                     minibatch=32, epochs=1, eval_every=0, checkpoint_every=1, **TINY)
    train(first)
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    assert state["iteration"] == 1
    with (tmp_path / "run" / "progress.jsonl").open("a") as f:
        f.write(json.dumps({"iteration": 2, "env_steps": -1}) + "\n")  # lost with an interruption
    with pytest.raises(SettingError, match="already holds a run"):
        train(first)
    with pytest.raises(SettingError, match="trained 1 iterations already"):
        train(replace(first, resume=True))
    final = train(replace(first, resume=True, iterations=2, eval_every=2, eval_seeds=1, eval_opponents=("random",),
                          learning_rate=1.0))  # run-defining: taken from settings.json, not from here
    progress = [json.loads(line) for line in (tmp_path / "run" / "progress.jsonl").read_text().splitlines()]
    assert [p["iteration"] for p in progress] == [1, 2]
    assert progress[1]["env_steps"] >= 2 * 64 > progress[0]["env_steps"] >= 64
    assert json.loads((tmp_path / "run" / "settings.json").read_text())["learning_rate"] == first.learning_rate
    evaluation = json.loads((tmp_path / "run" / "evaluations.jsonl").read_text())
    assert evaluation["iteration"] == 2 and sum(evaluation["random"][k] for k in ("wins", "draws", "losses")) == 2
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    spec = f"rllib:{final}"
    game = play_match(config, [spec, "random"], seed=3)
    assert game.record.replay().scores == game.scores
    assert play_match(config, [spec, "random"], seed=3).record == game.record  # deterministic by default

    # The same checkpoint as saved when the module class was training.rllib_module.CarcassonneRLModule
    # still loads and plays the same game (agents/nets/legacy.py).
    import pickle

    from legacy_names import saved_under

    from agents.rllib import load_module, module_path

    old = tmp_path / "old"
    shutil.copytree(final, old)
    ctor = module_path(old) / "class_and_ctor_args.pkl"
    saved = pickle.loads(ctor.read_bytes())
    with saved_under("training.rllib_module", CarcassonneRLModule):
        ctor.write_bytes(pickle.dumps(saved))
    assert b"training.rllib_module" in ctor.read_bytes()
    load_module.cache_clear()
    assert play_match(config, [f"rllib:{old}", "random"], seed=3).record == game.record


def built(s: Settings) -> Any:
    """The algorithm of ``s``, its EnvRunners not restarted when they fail: RLlib restarts a failed
    EnvRunner by default, and one that fails again at once would make the test hang, not fail."""
    return build_config(s).fault_tolerance(restart_failed_env_runners=False).build_algo()


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
@pytest.mark.parametrize("runner_threads", [1, 2])
def test_the_threads_settings_reach_the_driver_and_every_env_runner(ray_local: Any, one_torch_thread: None,
                                                                    runner_threads: int) -> None:
    """``--threads 2``: torch runs 2 threads in the driver, where the learner updates;
    ``--runner-threads`` sets the EnvRunners' own, whatever the driver's."""
    s = Settings(env_runners=1, threads=2, runner_threads=runner_threads, window=11, train_batch=64, minibatch=32,
                 epochs=1, **TINY)
    algo = built(s)
    try:
        runners = algo.env_runner_group.foreach_env_runner(lambda runner: th.get_num_threads(),
                                                           local_env_runner=False)
        assert runners == [runner_threads]
        assert th.get_num_threads() == 2
    finally:
        algo.stop()


@pytest.mark.xdist_group("ray")
@pytest.mark.slow
def test_with_no_kl_penalty_the_env_runners_keep_one_number_instead_of_the_logits(ray_local: Any,
                                                                                  one_torch_thread: None) -> None:
    """``--kl-coeff 0``: PPO without its KL penalty (as SB3's MaskablePPO) never reads the N logits
    recorded per step, so the episodes keep one zero instead (``step_bytes`` counts it), and PPO
    trains on them; the actions and log-probabilities the module computed are kept."""
    from ray.rllib.core.columns import Columns

    from agents.rllib import MODULE_ID

    s = Settings(env_runners=1, kl_coeff=0.0, window=11, train_batch=64, minibatch=32, epochs=1, **TINY)
    algo = built(s)
    try:
        def recorded(runner: Any) -> list[tuple[int, bool]]:
            out = []
            for episode in runner.sample(num_timesteps=16):
                for agent in episode.agent_episodes.values():
                    logits = np.asarray(agent.get_extra_model_outputs(key=Columns.ACTION_DIST_INPUTS))
                    logp = np.asarray(agent.get_extra_model_outputs(key=Columns.ACTION_LOGP))
                    out.append((logits.shape[-1], bool(np.all(logits == 0) and np.all(logp <= 0))))
            return out

        (shapes,) = algo.env_runner_group.foreach_env_runner(recorded, local_env_runner=False)
        assert shapes and set(shapes) == {(1, True)}
        learner = algo.train()["learners"][MODULE_ID]
        assert np.isfinite(learner["policy_loss"]) and learner["mean_kl_loss"] == 0.0  # no KL term
    finally:
        algo.stop()
    (first,) = make_env(s.env_config()).reset(seed=0)[0].values()
    assert step_bytes(replace(s, kl_coeff=0.2)) - step_bytes(s) == 4 * (first[MASK_KEY].size - 1)


@pytest.mark.parametrize("players", [2, 3])
def test_the_one_piece_connectors_record_the_episodes_rlllibs_default_pipelines_record(
        one_torch_thread: None, players: int) -> None:
    """The EnvRunners' two one-piece connectors (training/rllib/connectors.py) against RLlib's default
    env-to-module and module-to-env pipelines, same weights, same seeds, two envs, through episode
    ends and a cut chunk: the same episodes, agent by agent: observations, actions, rewards and every
    recorded model output with its dtype and shape (the N logits too, with the KL penalty on)."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    s = Settings(env_runners=0, envs_per_runner=2, players=players, window=11, **TINY)

    def runner(defaults: bool) -> Any:
        config = build_config(s)
        if defaults:
            config.env_runners(add_default_connectors_to_env_to_module_pipeline=True,
                               add_default_connectors_to_module_to_env_pipeline=True)
            config._env_to_module_connector = config._module_to_env_connector = None
        return MultiAgentEnvRunner(config=config)

    theirs, ours = runner(True), runner(False)
    assert [type(c).__name__ for c in ours._env_to_module.connectors] == ["ActingObservations"]
    assert len(theirs._env_to_module.connectors) > 1
    ours.module.set_state(theirs.module.get_state())
    sampled = []
    for r in (theirs, ours):
        th.manual_seed(7)
        sampled.append(r.sample(num_timesteps=300, force_reset=True) + r.sample(num_timesteps=300))
    assert len(sampled[0]) == len(sampled[1]) and sum(e.is_done for e in sampled[0]) >= 1
    for a, b in zip(*sampled, strict=True):
        assert a.agent_ids == b.agent_ids and a.env_t == b.env_t
        for agent in a.agent_ids:
            x, y = a.agent_episodes[agent], b.agent_episodes[agent]
            assert len(x) == len(y)
            for column in ("get_actions", "get_rewards"):
                np.testing.assert_array_equal(getattr(x, column)(), getattr(y, column)())
            ox, oy = x.get_observations(), y.get_observations()
            np.testing.assert_array_equal(ox[MASK_KEY], oy[MASK_KEY])
            for key in ox[OBS_KEY]:
                np.testing.assert_array_equal(ox[OBS_KEY][key], oy[OBS_KEY][key])
            assert set(x.extra_model_outputs) == set(y.extra_model_outputs) >= {"action_logp", "action_dist_inputs"}
            for key in x.extra_model_outputs:
                u, v = np.asarray(x.get_extra_model_outputs(key)), np.asarray(y.get_extra_model_outputs(key))
                assert (u.dtype, u.shape) == (v.dtype, v.shape)
                np.testing.assert_array_equal(u, v)


@pytest.mark.xdist_group("ray")
def test_the_gae_pass_reuses_the_recorded_values_and_equals_a_full_pass(ray_local: Any, one_torch_thread: None,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Over whole training iterations (the driver samples and learns, so this process sees every
    GAE pass): the values of the GAE pass, recorded ones and recomputed ones, equal a full value pass
    over the train batch, and only a few rows are recomputed. From the second iteration on a chunk's
    first row holds an action recorded before the last update, so reusing it would be wrong."""
    from ray.rllib.core.columns import Columns

    from agents.nets.board_net import BoardNet

    passes: list[tuple[float, int, int]] = []
    reused, full_values = CarcassonneRLModule.compute_values, BoardNet.values
    valued: list[int] = []

    def counting(net: BoardNet, obs: dict[str, Any]) -> Any:
        valued.append(len(next(iter(obs.values()))))
        return full_values(net, obs)

    def checked(self: CarcassonneRLModule, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is not None:  # the loss's: this minibatch's forward pass
            return reused(self, batch, embeddings)
        valued.clear()
        out = reused(self, batch)
        with th.no_grad():
            full = full_values(self.net, batch[Columns.OBS][OBS_KEY]).squeeze(-1)
        passes.append((float((out - full).abs().max()), sum(valued), len(full)))
        return out

    monkeypatch.setattr(BoardNet, "values", counting)
    monkeypatch.setattr(CarcassonneRLModule, "compute_values", checked)
    algo = built(Settings(env_runners=0, kl_coeff=0.0, window=11, train_batch=128, minibatch=64, epochs=2, **TINY))
    try:
        for _ in range(3):
            algo.train()
    finally:
        algo.stop()
    assert len(passes) == 3
    for difference, recomputed, rows in passes:
        assert difference < 1e-4 and 0 < recomputed < rows / 4


def test_a_missing_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AgentSpecError, match="no RLlib checkpoint at"):
        make_agent(f"rllib:{tmp_path}", seed=0)
