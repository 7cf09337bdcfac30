"""The board network's action-conditioned heads (agents/nets/action_heads.py): a PLACE logit reads
the tile's own picture in that rotation, a DEPLOY logit the feature that follower would claim."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT

th = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from agents.nets.action_heads import stamp_table  # noqa: E402
from agents.nets.policy import CarcassonnePolicy, load_policy, policy_kwargs  # noqa: E402
from carcassonne_env.engine import ActionKind, GameConfig, load_catalogue  # noqa: E402
from carcassonne_env.environment import SingleAgentEnv  # noqa: E402
from carcassonne_env.environment.layout import Layout  # noqa: E402

#: The kinds of terrain among the stamp planes (a sub-cell shows at most one of them).
TERRAIN = 4


def _model(seed: int = 0) -> sb3_contrib.MaskablePPO:
    env = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    return sb3_contrib.MaskablePPO(CarcassonnePolicy, env, n_steps=8, batch_size=8, seed=seed,
                                   policy_kwargs=policy_kwargs(channels=8, blocks=1, head_hidden=16, action_heads=True))


def test_a_rotated_tile_shows_its_picture_turned_a_quarter_each_step() -> None:
    """Rotation r of a tile is its picture turned r quarter turns (the same way for every tile)."""
    table = stamp_table(Layout(GameConfig(players=2, expansions=TOWER_VARIANT), 31)).reshape(-1, 4, 8, 3, 3)
    terrain = table[:, :, :TERRAIN]
    turned = [np.rot90(terrain[:, 0], k=-r, axes=(2, 3)) for r in range(4)]
    assert all(np.array_equal(terrain[:, r], turned[r]) for r in range(4))
    assert np.all((terrain.sum(2) == 1) | (terrain.sum(2) == 0))
    assert len(table) == len(load_catalogue().types)


def _decision(kind: ActionKind, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """An observation (and mask) of a random game whose legal actions include two or more of ``kind``."""
    env = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    codec = env.aec.codec
    for _ in range(400):
        legal = np.flatnonzero(env.action_masks())
        if sum(codec.split(int(i))[0].kind is kind for i in legal) >= 2 and rng.random() < 0.3:
            return obs, env.action_masks()
        obs, _, done, _, _ = env.step(int(rng.choice(legal)))
        assert not done
    raise AssertionError(f"no decision with two {kind.name} actions")


def test_a_deploy_logit_reads_the_segment_that_follower_would_claim_and_no_other() -> None:
    """Raising the ``size`` plane on the sub-cells of segment k of the placed tile changes the
    DEPLOY k logit and leaves every other slot's logit as it was (the same trunk features)."""
    model = _model()
    heads = model.policy.net.action_heads
    layout = Layout(GameConfig(players=2, expansions=TOWER_VARIANT), 31)
    obs, _ = _decision(ActionKind.DEPLOY, seed=4)
    board = th.as_tensor(obs["board"][None]).float()
    cells = th.as_tensor(obs["cells"][None]).float()
    row, col = divmod(int(np.argmax(obs["cells"][layout.cells_index["placed"]])), 31)
    slots = obs["board"][layout.board_index["slot"], 3 * row:3 * row + 3, 3 * col:3 * col + 3]
    shown = sorted({int(v) - 1 for v in slots.ravel() if v})
    assert len(shown) >= 2
    slot = th.tensor(shown)
    rows = th.zeros(len(shown), dtype=th.long)
    gen = th.Generator().manual_seed(0)
    placed = th.randn(1, 8, generator=gen)
    pooled = th.randn(1, 24, generator=gen)
    with th.no_grad():
        before = heads.deploy(board, cells, rows, slot, placed, pooled)
        k = shown[0]
        grown = board.clone()
        patch = grown[0, layout.board_index["size"], 3 * row:3 * row + 3, 3 * col:3 * col + 3]
        patch[th.as_tensor(slots == k + 1)] += 7
        after = heads.deploy(grown, cells, rows, slot, placed, pooled)
    assert after[0] != before[0]
    assert th.equal(after[1:], before[1:])


def test_the_rotation_reaches_a_place_logit_only_through_the_tiles_picture() -> None:
    """Same cell, same tile: rotations that show the same picture get the same logit, others not."""
    heads = _model().policy.net.action_heads
    table = heads.stamps
    same = [t for t in range(len(table)) if all(th.equal(table[t, 0], table[t, r]) for r in range(4))]
    turned = [t for t in range(len(table)) if not th.equal(table[t, 0], table[t, 1])]
    assert same and turned  # the monastery without a road looks the same every way; most tiles do not
    layout = Layout(GameConfig(players=2, expansions=TOWER_VARIANT), 31)
    tile_entry = layout.vector_entry["tile"].start
    gen = th.Generator().manual_seed(1)
    cell = th.randn(1, 8, generator=gen).expand(4, -1)
    pooled = th.randn(1, 24, generator=gen)
    rotation = th.arange(4)
    for t, equal in ((same[0], True), (turned[0], False)):
        vector = th.zeros(1, layout.vector_size)
        vector[0, tile_entry + t] = 1
        with th.no_grad():
            logits = heads.place(cell, th.zeros(4, dtype=th.long), th.full((4,), 31 * 15 + 15), rotation,
                                 th.zeros(1, 15, 93, 93), vector, pooled)
        assert bool((logits == logits[0]).all()) is equal


def test_a_network_with_action_heads_saves_loads_and_plays_legal_actions(tmp_path: Path) -> None:
    model = _model(seed=3)
    model.save(tmp_path / "student.zip")
    loaded = load_policy(tmp_path / "student.zip")
    assert loaded.net.action_heads is not None
    for kind, seed in ((ActionKind.PLACE, 1), (ActionKind.DEPLOY, 2)):
        obs, mask = _decision(kind, seed)
        with th.no_grad():
            tensor = model.policy.obs_to_tensor(obs)[0]
            ours = model.policy.get_distribution(tensor, mask[None])
            theirs = loaded.get_distribution(tensor, mask[None])
        assert th.equal(ours.log_p, theirs.log_p)
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
    # the option is saved only when set: older checkpoints' arguments are unchanged
    assert "action_heads" not in policy_kwargs()


@pytest.mark.parametrize("seed", [0, 1])
def test_each_side_pairs_the_tiles_border_with_the_sub_cells_it_touches(seed: int) -> None:
    """Each border sub-cell of the tile is paired with the neighbour's sub-cell one step beyond it,
    and since every legal placement matches its neighbours' edges (R11), the middle pair of every
    side shows the same terrain on both tiles (the corners show where two edges meet, either one)."""
    heads = _model().policy.net.action_heads
    row_col = np.stack(np.divmod(heads.inner.numpy(), 3), -1)  # (4 sides, 3, 2)
    assert (np.abs(heads.outer.numpy() - row_col).sum(-1) == 1).all()
    env = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    obs, _ = env.reset(seed=seed)
    codec = env.aec.codec
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(60):
        legal = np.flatnonzero(env.action_masks())
        tile = int(np.argmax(obs["vector"][heads.tile_entries]))
        for index in legal:
            segment, cell, rotation = codec.split(int(index))
            if segment.kind is not ActionKind.PLACE:
                continue
            row, col = divmod(cell, 31)
            picture = heads.stamps[tile, rotation].view(8, 9)[:TERRAIN].numpy()
            for side in range(4):
                ys = 3 * row + heads.outer[side, :, 0].numpy()
                xs = 3 * col + heads.outer[side, :, 1].numpy()
                facing = obs["board"][:TERRAIN, ys, xs]
                if not facing.any():
                    continue  # no tile on that side
                middle = int(heads.inner[side, 1])
                assert np.array_equal(facing[:, 1].astype(bool), picture[:, middle] > 0)
                checked += 1
        obs, _, done, _, _ = env.step(int(rng.choice(legal)))
        assert not done
    assert checked > 100
