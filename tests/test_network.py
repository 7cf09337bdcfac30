"""The board network (agents/nets/policy.py): its heads line up with the action codec index by index,
its crop never drops a legal action, and it trains, saves and loads with sb3-contrib's MaskablePPO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT

th = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.distributions import MaskableCategorical  # noqa: E402

from agents.nets.board_net import (  # noqa: E402
    OUTSIDE_CROP,
    BoardEncoder,
    LegalActions,
    LegalLogits,
    codec_index_map,
    crop_sizes,
    gather_legal,
    head_channels,
)
from agents.nets.policy import CarcassonnePolicy, LegalActionDistribution  # noqa: E402
from carcassonne_env.environment import SingleAgentEnv, raw_env  # noqa: E402
from carcassonne_env.environment.codec import ActionCodec  # noqa: E402
from training.sb3 import bench_train  # noqa: E402
from training.sb3.ppo import ppo_kwargs  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _code(channel: int, row: int, col: int) -> float:
    """A distinct logit for every (channel, row, col) of the per-cell head."""
    return float(channel * 10_000 + row * 100 + col)


def _expected(codec: ActionCodec, index: int) -> float:
    """What the logit of ``index`` must be, from the codec's own reading of the index."""
    spatial, other = head_channels(codec)
    seg, cell, arg = codec.split(index)
    if seg.per_cell:
        row, col = divmod(cell, codec.size)
        return _code(spatial.index((seg.kind, arg)), row, col)
    return -1.0 - other.index((seg.kind, arg))


def _coded_heads(codec: ActionCodec, batch: int) -> tuple[th.Tensor, th.Tensor]:
    spatial, other = head_channels(codec)
    w = codec.size
    ch, row, col = np.meshgrid(np.arange(len(spatial)), np.arange(w), np.arange(w), indexing="ij")
    per_cell = th.tensor(ch * 10_000 + row * 100 + col, dtype=th.float64).expand(batch, -1, -1, -1)
    non_spatial = (-1.0 - th.arange(len(other), dtype=th.float64)).expand(batch, -1)
    return per_cell, non_spatial


@pytest.mark.parametrize("window", [31, 9])
def test_every_action_index_reads_the_head_output_the_codec_says_it_means(window: int) -> None:
    codec = ActionCodec(window)
    spatial, other = head_channels(codec)
    # 4 PLACE rotations, 3 FLOOR colours, TOWER_TOP, 8 CAPTURE slots + the tower top; then DEPLOY 8,
    # NO_CAPTURE, RANSOM 5, PASS.
    assert (len(spatial), len(other)) == (17, 15) and codec.n == 17 * window**2 + 15
    per_cell, non_spatial = _coded_heads(codec, 1)
    everything = th.ones(1, codec.n, dtype=th.bool).nonzero(as_tuple=True)
    legal = gather_legal([(th.tensor([0]), 0, window, per_cell)], non_spatial, everything,
                         th.tensor(codec_index_map(codec)), window)
    assert legal.actions[0].tolist() == list(range(codec.n))
    assert legal.logits[0].tolist() == [_expected(codec, i) for i in range(codec.n)]
    # Spot checks in words: the channel of each index names what codec.describe says.
    for index in (0, 7, 4 * window + 2, codec.segment[spatial[5][0]].start + 3 * 5 + 1, codec.n - 1):
        seg, cell, arg = codec.split(index)
        text = codec.describe(index)
        assert seg.kind.name in text
        if seg.per_cell:
            channel = int(legal.logits[0, index]) // 10_000
            assert spatial[channel] == (seg.kind, arg) and f"cell {cell} " in text


def test_cropped_groups_read_the_same_logits_as_the_full_window() -> None:
    """Three observations in two crops (15 and 7 cells of a 31-window): each allowed action inside
    its crop reads the logit that the full head would give it."""
    codec = ActionCodec(31)
    source = th.tensor(codec_index_map(codec))
    per_cell, non_spatial = _coded_heads(codec, 3)
    rng = np.random.default_rng(1)
    mask = th.zeros(3, codec.n, dtype=th.bool)
    crops = {0: (8, 15), 1: (12, 7), 2: (8, 15)}
    for b, (first, size) in crops.items():
        for index in rng.choice(codec.n, 4000, replace=False):
            seg, cell, _ = codec.split(int(index))
            row, col = divmod(cell, 31)
            inside = first <= row < first + size and first <= col < first + size
            mask[b, index] = not seg.per_cell or inside
    groups = [
        (th.tensor(rows), first, size, per_cell[rows][:, :, first:first + size, first:first + size])
        for rows, first, size in (([0, 2], 8, 15), ([1], 12, 7))
    ]
    legal = gather_legal(groups, non_spatial, mask.nonzero(as_tuple=True), source, 31)
    for b in range(3):
        indices = mask[b].nonzero().squeeze(1).tolist()
        count = len(indices)
        assert legal.actions[b, :count].tolist() == indices and legal.valid[b, :count].all()
        assert legal.logits[b, :count].tolist() == [_expected(codec, i) for i in indices]
        assert not legal.valid[b, count:].any()


def test_the_distribution_matches_sb3_contribs_masked_categorical() -> None:
    rng = np.random.default_rng(2)
    n = 50
    dense = th.tensor(rng.normal(size=(4, n)))
    mask = th.tensor(rng.random((4, n)) < 0.2)
    mask[:, 0] = True
    allowed = mask.nonzero(as_tuple=True)
    counts = mask.sum(1)
    slot = th.arange(len(allowed[1])) - (th.cumsum(counts, 0) - counts)[allowed[0]]
    padded = th.full((4, int(counts.max())), OUTSIDE_CROP, dtype=dense.dtype)
    padded[allowed[0], slot] = dense[allowed]
    index = th.zeros_like(padded, dtype=th.long)
    index[allowed[0], slot] = allowed[1]
    valid = padded > OUTSIDE_CROP
    ours = LegalActionDistribution(n).proba_distribution(LegalLogits(index, valid, padded))
    reference = MaskableCategorical(logits=dense, masks=mask)
    actions = ours.sample()
    assert mask.gather(1, actions[:, None]).all()
    assert th.allclose(ours.log_prob(actions), reference.log_prob(actions))
    assert th.allclose(ours.entropy(), reference.entropy())
    assert th.equal(ours.mode(), reference.probs.argmax(1))
    with pytest.raises(ValueError, match="not allowed by the mask"):
        ours.log_prob((~mask).int().argmax(1))
    # A further mask restricts it as sb3-contrib's restricts its own.
    narrower = mask & th.tensor(rng.random((4, n)) < 0.6)
    narrower[:, 0] = True
    ours.apply_masking(narrower.numpy())
    reference = MaskableCategorical(logits=dense, masks=narrower)
    actions = ours.sample()
    assert narrower.gather(1, actions[:, None]).all()
    assert th.allclose(ours.log_prob(actions), reference.log_prob(actions))
    assert th.allclose(ours.entropy(), reference.entropy())
    with pytest.raises(ValueError, match="allows none"):
        ours.apply_masking(np.zeros((4, n), dtype=bool))


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.uint8, np.int32, np.float32])
@pytest.mark.parametrize("n", [16, 21, 64])
def test_legal_actions_from_a_mask_are_its_nonzero_entries_in_row_major_order(dtype: type, n: int) -> None:
    rng = np.random.default_rng(n)
    mask = (rng.random((7, n)) < 0.15).astype(dtype)
    mask[2] = 0  # a row with no allowed action
    mask[4, [0, n - 1]] = 1  # the first and the last action
    if dtype is np.float32:
        mask[5, 3] = -0.5  # nonzero = allowed, whatever its sign
    rows, actions = np.nonzero(mask)  # the reference: numpy's own row-major nonzero
    legal = LegalActions.from_mask(mask, n)
    assert legal.rows.tolist() == rows.tolist() and legal.actions.tolist() == actions.tolist()
    flat = LegalActions.from_mask(mask.reshape(-1), n)
    assert flat.rows.tolist() == rows.tolist() and flat.actions.tolist() == actions.tolist()
    empty = LegalActions.from_mask(np.zeros((0, n), dtype=dtype), n)
    assert empty.rows.numel() == 0 and empty.actions.numel() == 0


@pytest.mark.parametrize("players", [2, 4])
def test_the_crop_never_drops_a_legal_action(players: int) -> None:
    """PLACE needs an occupied neighbour (R11) and FLOOR, TOWER_TOP, CAPTURE name tiles on the
    board: every legal cell lies within one cell of the tiles, so the tiles grown by the margin
    hold them all. Checked at every decision of random games with every expansion."""
    env = raw_env(players=players, expansions=TOWER_VARIANT)
    encoder = BoardEncoder(env.observation_space(env.possible_agents[0])["observation"])
    codec = env.codec
    rng = np.random.default_rng(players)
    decisions = 0
    for game in range(2):
        env.reset(seed=100 * players + game)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = obs["action_mask"]
            tiles = th.as_tensor(obs["observation"]["cells"][None, 0] > 0)
            size = int(encoder.ladder[crop_sizes(tiles, None, encoder.ladder, margin=1)[0]])
            first = (31 - size) // 2
            for index in np.flatnonzero(mask):
                seg, cell, _ = codec.split(int(index))
                if seg.per_cell:
                    row, col = divmod(cell, 31)
                    assert first <= row < first + size and first <= col < first + size, codec.describe(int(index))
            decisions += 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert decisions > 100


def _observations(env: SingleAgentEnv, steps: int, seed: int) -> tuple[list[dict[str, np.ndarray]], list[np.ndarray]]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    for _ in range(steps):
        mask = env.action_masks()
        observations.append(obs)
        masks.append(mask)
        obs, _, done, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done or truncated:
            obs, _ = env.reset()
    return observations, masks


@pytest.mark.parametrize("players", [2, 3])
def test_maskable_ppo_trains_and_round_trips_through_save_and_load(players: int, tmp_path: Path) -> None:
    env = SingleAgentEnv(players=players, expansions=TOWER_VARIANT)
    model = sb3_contrib.MaskablePPO(
        CarcassonnePolicy, env, n_steps=128, batch_size=64, n_epochs=2, seed=players, **ppo_kwargs(channels=8)
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    after = list(model.policy.parameters())
    assert all(th.isfinite(p).all() for p in after)
    assert any(not th.equal(a, b) for a, b in zip(before, after, strict=True))

    model.save(tmp_path / "model.zip")
    loaded = sb3_contrib.MaskablePPO.load(tmp_path / "model.zip")
    assert isinstance(loaded.policy, CarcassonnePolicy)
    observations, masks = _observations(SingleAgentEnv(players=players, expansions=TOWER_VARIANT), 40, seed=5)
    batch = {key: np.stack([o[key] for o in observations]) for key in observations[0]}
    mask = np.stack(masks)
    with th.no_grad():
        obs_tensor = model.policy.obs_to_tensor(batch)[0]
        ours = model.policy.get_distribution(obs_tensor, mask)
        theirs = loaded.policy.get_distribution(obs_tensor, mask)
        assert th.equal(ours.legal.actions, theirs.legal.actions)
        assert th.equal(ours.log_p, theirs.log_p)
        # The crop is a function of the observation: the value without the mask is the same.
        _, values, _ = model.policy(obs_tensor, action_masks=mask)
        assert th.allclose(values, model.policy.predict_values(obs_tensor))
    actions, _ = loaded.predict(batch, action_masks=mask, deterministic=True)
    assert mask[np.arange(len(mask)), actions].all()


def test_six_players_build_small_and_play_legal_actions() -> None:
    env = SingleAgentEnv(players=6, expansions=TOWER_VARIANT)
    model = sb3_contrib.MaskablePPO(CarcassonnePolicy, env, n_steps=32, batch_size=32, **ppo_kwargs())
    assert sum(p.numel() for p in model.policy.parameters()) < 100_000  # no flat N-way layer
    observations, masks = _observations(env, 12, seed=3)
    for obs, mask in zip(observations, masks, strict=True):
        action, _ = model.predict(obs, action_masks=mask)
        assert mask[int(action)]


def test_a_foreign_observation_space_is_refused_by_name() -> None:
    space = spaces.Dict({
        "board": spaces.Box(0, 1, (14, 93, 93), np.uint8),
        "cells": spaces.Box(0, 1, (18, 31, 31), np.uint8),
        "vector": spaces.Box(0, 1, (145,), np.float32),
    })
    with pytest.raises(ValueError, match=r"observation_space\['board'\]"):
        BoardEncoder(space)
    with pytest.raises(ValueError, match="margin"):
        BoardEncoder(SingleAgentEnv(players=2).observation_space, margin=0)


def test_the_benchmark_command_documents_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench_train.main(["--help"])
    assert "--threads" in capsys.readouterr().out


def test_the_benchmark_names_its_game_first(capsys: pytest.CaptureFixture[str], one_torch_thread: None) -> None:
    bench_train.main(["--iterations", "1", "--n-steps", "16", "--n-envs", "1", "--batch-size", "16", "--n-epochs", "1",
                      "--threads", "1", "--players", "3"])
    assert capsys.readouterr().out.startswith("game: tower variant (tower, black_tower, watchtowers), 3 players; ")


def _batch(players: int, steps: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    observations, masks = _observations(SingleAgentEnv(players=players, expansions=TOWER_VARIANT), steps, seed=seed)
    return {key: np.stack([o[key] for o in observations]) for key in observations[0]}, np.stack(masks)


def test_the_fast_paths_compute_the_plain_network() -> None:
    """The board stem over non-empty cells equals the stride-3 convolution of the scaled board, the
    per-cell head read at the legal cells equals the 1×1 convolution read by ``gather_legal``, and
    a small batch merged into one crop equals one group per crop size (up to float rounding)."""
    import agents.nets.board_net as board_net

    env = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    model = sb3_contrib.MaskablePPO(CarcassonnePolicy, env, seed=4, **ppo_kwargs())
    policy = model.policy
    encoder = policy.features_extractor
    observations, mask = _batch(2, 60, seed=6)
    obs = policy.obs_to_tensor(observations)[0]
    board = obs["board"][:, :, 3 * 8:3 * 23, 3 * 8:3 * 23]  # the 15-cell crop
    scale = board_net.PlaneScale(model.observation_space["board"].high[:, 0, 0], spatial=True)
    plain = th.nn.functional.conv2d(scale(board), encoder.board_in.weight, stride=3)
    with th.no_grad():
        assert th.allclose(encoder._board_in(board), plain, atol=1e-5)
        features = encoder(obs)
        legal, _ = policy.legal_logits(obs, mask)
        groups = [(g.members, g.first, g.size, policy.net.spatial_head(g.trunk)) for g in features.groups]
        other = policy.net.other_head(policy.net.pi_hidden(features.pooled))
        full = gather_legal(groups, other, th.as_tensor(mask).nonzero(as_tuple=True), policy.net.source, 31)
        assert th.equal(legal.actions, full.actions) and th.allclose(legal.logits, full.logits, atol=1e-5)
        rows = [int((features.crop == size).nonzero()[0]) for size in features.crop.unique()]
        assert len(rows) >= 2  # observations with different crop sizes, in one small batch
        small = {key: value[rows] for key, value in obs.items()}
        merged = policy.get_distribution(small, mask[rows])
        board_net.MERGED_BATCH, saved = 0, board_net.MERGED_BATCH
        try:
            separate = policy.get_distribution(small, mask[rows])
        finally:
            board_net.MERGED_BATCH = saved
        assert th.equal(merged.legal.actions, separate.legal.actions)
        assert th.allclose(merged.log_p, separate.log_p, atol=1e-5)


def test_the_compact_buffer_samples_what_sb3_contribs_buffer_samples() -> None:
    from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer

    from training.sb3.buffer import CompactRolloutBuffer

    env = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    observations, mask = _batch(2, 12, seed=8)
    buffers = [cls(6, env.observation_space, env.action_space, n_envs=2) for cls in (MaskableDictRolloutBuffer,
                                                                                  CompactRolloutBuffer)]
    for buffer in buffers:
        for step in range(6):
            rows = [2 * step, 2 * step + 1]
            buffer.add({key: value[rows] for key, value in observations.items()}, np.array([step, -step]),
                       np.zeros(2), np.zeros(2), th.zeros(2), th.zeros(2), action_masks=mask[rows])
        buffer.compute_returns_and_advantage(th.zeros(2), np.zeros(2))
    np.random.seed(3)
    theirs = list(buffers[0].get(5))
    np.random.seed(3)
    ours = list(buffers[1].get(5))
    for a, b in zip(theirs, ours, strict=True):
        assert all(th.equal(a.observations[key], b.observations[key].to(a.observations[key].dtype))
                   for key in a.observations)
        assert th.equal(a.actions, b.actions)
        rows, actions = a.action_masks.nonzero(as_tuple=True)
        assert th.equal(rows, b.action_masks.rows) and th.equal(actions, b.action_masks.actions)


def test_a_checkpoint_from_before_the_network_was_shared_plays_the_game_it_played_then() -> None:
    """golden/legacy_ppo_tower_2p.zip (the agent shipped until the residual policy replaced it)
    predates BoardNet (its heads are top-level state-dict keys): it loads strictly and plays move
    for move the game recorded with the network of its training."""
    import json

    from carcassonne_env.engine import GameConfig, GameRecord
    from training.arena.match import play_match

    golden = Path(__file__).parent / "golden"
    recorded = GameRecord.from_dict(json.loads((golden / "pretrained_vs_greedy_seed0.json").read_text()))
    legacy = f"ppo:{golden / 'legacy_ppo_tower_2p.zip'}"
    result = play_match(GameConfig(players=2, expansions=TOWER_VARIANT), [legacy, "greedy:fast=1"], seed=0)
    assert result.record == recorded
