"""The RLlib trainer's PPO learner: RLlib's torch PPO learner with a cheaper per-epoch shuffle (imports Ray).

RLlib's minibatch iterator reshuffles the whole train batch in place before every epoch
(``SampleBatch.shuffle``: ``v[permutation]`` on every column). On this observation that is the
learner's largest single cost: a 1,024-step batch holds 1,024 boards of 130 KB (uint8), and torch's
advanced indexing copies them at 1–2 GB/s on one core, 0.3–0.5 s an epoch, as much as the epoch's
four gradient steps (``python -m training.rllib.profile``). :class:`ShuffledMinibatches` draws the same
kind of minibatches by gathering rows with numpy's ``take`` (whole rows, memcpy speed: ~10 GB/s) and
copies each row once per epoch, into its minibatch, instead of into a shuffled batch first. It also
leaves out the rows outside PPO's loss (``loss_mask`` False: the bootstrap row RLlib appends to each
episode chunk for GAE), so that 1,024 env steps make four minibatches of 256 an epoch, as in
Stable-Baselines3, instead of four and a fifth of a few dozen rows that add nothing to the loss.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import torch as th
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.core.columns import Columns
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch

__all__ = ["ShuffledMinibatches", "TakeShufflePPOLearner", "take_rows"]


def take_rows(value: Any, rows: npt.NDArray[np.intp]) -> Any:
    """Rows ``rows`` of a column: a tensor, an array, a (nested) dict of them, or a list (infos)."""
    if isinstance(value, dict):
        return {k: take_rows(v, rows) for k, v in value.items()}
    if isinstance(value, th.Tensor):
        if value.device.type == "cpu":
            return th.from_numpy(np.take(value.numpy(), rows, axis=0))
        return value.index_select(0, th.as_tensor(rows, device=value.device))
    if isinstance(value, np.ndarray):
        return np.take(value, rows, axis=0)
    if isinstance(value, list):
        return [value[i] for i in rows]
    raise TypeError(f"take_rows: cannot select rows of a {type(value).__name__}")


class ShuffledMinibatches:
    """``num_epochs`` passes over one module's train batch, each in a fresh random order
    (``np.random``, which RLlib seeds): an epoch's minibatches are consecutive slices of its
    permutation, ``minibatch_size`` rows each, the last one shorter when the batch is not a multiple
    of it (Stable-Baselines3's scheme; RLlib's own iterator wraps around into the next epoch
    instead). Every row of the loss is in exactly one minibatch per epoch; rows outside it (a
    ``loss_mask`` column False) are in none: the loss masks them out, so a minibatch of them adds a
    gradient step of nothing but cost."""

    def __init__(self, batch: MultiAgentBatch, minibatch_size: int, num_epochs: int) -> None:
        if len(batch.policy_batches) != 1:
            raise ValueError("ShuffledMinibatches takes the batch of one module")
        ((self.module_id, self.batch),) = batch.policy_batches.items()
        self.env_steps = batch.env_steps()
        self.minibatch_size = minibatch_size
        self.num_epochs = num_epochs

    def __iter__(self) -> Iterator[MultiAgentBatch]:
        columns = dict(self.batch)
        in_loss = columns.get(Columns.LOSS_MASK)
        loss_rows = (np.arange(self.batch.count) if in_loss is None
                     else np.flatnonzero(th.as_tensor(in_loss).cpu().numpy()))
        for _ in range(self.num_epochs):
            order = np.random.permutation(loss_rows)
            for start in range(0, len(order), self.minibatch_size):
                rows = order[start:start + self.minibatch_size]
                minibatch = SampleBatch({k: take_rows(v, rows) for k, v in columns.items()})  # type: ignore[no-untyped-call]
                yield MultiAgentBatch({self.module_id: minibatch}, self.env_steps)


class TakeShufflePPOLearner(PPOTorchLearner):
    """RLlib's ``PPOTorchLearner``, its minibatches drawn by :class:`ShuffledMinibatches` when the
    train batch is one module's, shuffled per epoch and split into minibatches (the trainer's case);
    any other case is RLlib's own iterator."""

    def _create_iterator_if_necessary(self, *, training_data: Any, num_total_minibatches: int = 0,
                                      num_epochs: int = 1, minibatch_size: int | None = None,
                                      shuffle_batch_per_epoch: bool = False, **kwargs: Any) -> Any:
        modules = list(self.module.keys())
        ours = (not training_data.data_iterators and bool(minibatch_size) and shuffle_batch_per_epoch
                and num_epochs > 1 and not num_total_minibatches and len(modules) == 1
                and not self.module[modules[0]].is_stateful())
        if not ours:
            return super()._create_iterator_if_necessary(
                training_data=training_data, num_total_minibatches=num_total_minibatches, num_epochs=num_epochs,
                minibatch_size=minibatch_size, shuffle_batch_per_epoch=shuffle_batch_per_epoch, **kwargs)
        # RLlib leaves these two unannotated
        batch = self._make_batch_if_necessary(training_data=training_data)  # type: ignore[no-untyped-call]
        for module_id in list(batch.policy_batches):
            if not self.should_module_be_updated(module_id, batch):  # type: ignore[no-untyped-call]
                del batch.policy_batches[module_id]
        if not batch.policy_batches:
            return {}
        return ShuffledMinibatches(batch, int(minibatch_size or 0), num_epochs)
