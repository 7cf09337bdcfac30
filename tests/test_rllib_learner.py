"""The RLlib trainer's minibatches (training/rllib/learner.py): every row once per epoch, whole rows."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
th = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch  # noqa: E402

from training.rllib.learner import ShuffledMinibatches, TakeShufflePPOLearner, take_rows  # noqa: E402
from training.rllib.selfplay import Settings, build_config  # noqa: E402

ROWS = 10


def _batch() -> MultiAgentBatch:
    """A module's batch whose every column tells its row: board r is filled with r, and so on."""
    ids = np.arange(ROWS)
    board = th.as_tensor(np.broadcast_to(ids[:, None, None, None], (ROWS, 3, 5, 5)).astype(np.uint8).copy())
    mask = th.as_tensor(np.eye(ROWS, 12, dtype=np.int8))
    columns = {Columns.OBS: {"observations": {"board": board, "vector": th.as_tensor(ids[:, None] * 1.5)},
                             "action_mask": mask},
               Columns.ACTIONS: th.as_tensor(ids), Columns.ADVANTAGES: np.asarray(ids * 2.0, dtype=np.float32),
               Columns.INFOS: [{"row": int(i)} for i in ids]}
    return MultiAgentBatch({"shared": SampleBatch(columns)}, env_steps=ROWS)


def _rows_of(minibatch: SampleBatch) -> list[int]:
    """The rows a minibatch holds, after checking every column holds the same rows, whole."""
    rows = [int(r) for r in minibatch[Columns.ACTIONS]]
    obs = minibatch[Columns.OBS]
    for k, r in enumerate(rows):
        assert bool((obs["observations"]["board"][k] == r).all())
        assert float(obs["observations"]["vector"][k, 0]) == r * 1.5
        assert int(obs["action_mask"][k].argmax()) == r and int(obs["action_mask"][k].sum()) == 1
        assert float(minibatch[Columns.ADVANTAGES][k]) == 2.0 * r and minibatch[Columns.INFOS][k] == {"row": r}
    return rows


def test_each_epoch_is_a_fresh_permutation_in_minibatches_of_whole_rows() -> None:
    np.random.seed(3)
    minibatches = list(ShuffledMinibatches(_batch(), minibatch_size=4, num_epochs=3))
    assert [len(m.policy_batches["shared"]) for m in minibatches] == [4, 4, 2] * 3  # SB3's: the last one shorter
    assert all(m.env_steps() == ROWS for m in minibatches)
    rows = [_rows_of(m.policy_batches["shared"]) for m in minibatches]
    epochs = [rows[e] + rows[e + 1] + rows[e + 2] for e in (0, 3, 6)]
    assert all(sorted(rows) == list(range(ROWS)) for rows in epochs)  # every row exactly once per epoch
    assert len({tuple(rows) for rows in epochs}) == 3  # in a new order each epoch


def test_rows_outside_the_loss_are_in_no_minibatch() -> None:
    """PPO's bootstrap rows (``loss_mask`` False) only serve GAE: 8 loss rows of 10 make two
    minibatches of 4 an epoch, not a third of masked rows."""
    batch = _batch()
    module_batch = batch.policy_batches["shared"]
    module_batch[Columns.LOSS_MASK] = th.as_tensor([True] * 4 + [False] + [True] * 4 + [False])
    np.random.seed(4)
    minibatches = list(ShuffledMinibatches(batch, minibatch_size=4, num_epochs=2))
    assert [len(m.policy_batches["shared"]) for m in minibatches] == [4, 4] * 2
    rows = [_rows_of(m.policy_batches["shared"]) for m in minibatches]
    for epoch in (rows[0] + rows[1], rows[2] + rows[3]):
        assert sorted(epoch) == [0, 1, 2, 3, 5, 6, 7, 8]
    assert all(bool(m.policy_batches["shared"][Columns.LOSS_MASK].all()) for m in minibatches)


def test_a_batch_with_no_row_in_the_loss_makes_no_minibatch() -> None:
    batch = _batch()
    batch.policy_batches["shared"][Columns.LOSS_MASK] = th.zeros(ROWS, dtype=th.bool)
    assert list(ShuffledMinibatches(batch, minibatch_size=4, num_epochs=2)) == []


def test_rows_are_taken_from_tensors_arrays_dicts_and_lists_alike() -> None:
    rows = np.asarray([2, 0, 2])
    taken = take_rows({"t": th.arange(12).reshape(4, 3), "a": np.arange(4), "l": list("wxyz")}, rows)
    assert th.equal(taken["t"], th.as_tensor([[6, 7, 8], [0, 1, 2], [6, 7, 8]]))
    assert taken["a"].tolist() == [2, 0, 2] and taken["l"] == ["y", "w", "y"]
    with pytest.raises(TypeError, match="cannot select rows of a str"):
        take_rows("board", rows)


def test_the_trainer_learns_with_these_minibatches() -> None:
    assert build_config(Settings()).learner_class is TakeShufflePPOLearner
