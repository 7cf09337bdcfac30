"""A lighter rollout buffer for ``MaskablePPO`` on this env: ``rollout_buffer_class=CompactRolloutBuffer``.

sb3-contrib's ``MaskableDictRolloutBuffer`` stores action masks as float32 (N = 16,352 per step for
W = 31: 64 KiB), copies the whole buffer once more to flatten its (step, env) axes before the first
minibatch (the ``board`` plane alone is 133 MB for 1,024 steps) and copies every minibatch twice
(numpy fancy indexing, then ``th.tensor``). This one

* stores each step's legal actions as an index list, found once when the step is added, instead of
  the mask: minibatches hand the policy :class:`LegalActions` (what ``mask.nonzero`` would give)
  instead of a (batch, N) mask that it would search again on every epoch;
* reads minibatches straight from the (step, env) arrays, without flattening them first;
* hands the fancy-indexed arrays (already fresh copies) to torch without a second copy.

The samples are the same as sb3-contrib's, in the same order (same permutation of the same
flattened (env, step) index).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import NamedTuple

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer
from stable_baselines3.common.buffers import DictRolloutBuffer
from stable_baselines3.common.vec_env import VecNormalize

from agents.nets.board_net import LegalActions

__all__ = ["CompactRolloutBuffer", "CompactSamples", "LegalActions"]


class CompactSamples(NamedTuple):
    """A minibatch, with the fields of sb3-contrib's ``MaskableDictRolloutBufferSamples``;
    ``action_masks`` are the :class:`LegalActions` of the observations."""

    observations: dict[str, th.Tensor]
    actions: th.Tensor
    old_values: th.Tensor
    old_log_prob: th.Tensor
    advantages: th.Tensor
    returns: th.Tensor
    action_masks: LegalActions


class CompactRolloutBuffer(MaskableDictRolloutBuffer):
    """``MaskableDictRolloutBuffer`` with legal action lists instead of masks and no flattening or
    second copy of the observations (module docstring)."""

    legal: list[list[np.ndarray]]

    def reset(self) -> None:
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"CompactRolloutBuffer needs a Discrete action space, got {self.action_space}")
        self.mask_dims = int(self.action_space.n)
        self.legal = [[] for _ in range(self.buffer_size)]
        DictRolloutBuffer.reset(self)  # not the parent's: it allocates a float32 mask per step

    def add(self, *args, action_masks: np.ndarray | None = None, **kwargs) -> None:  # type: ignore[no-untyped-def]
        """Adds a step; ``action_masks`` (n_envs, N), or None when every action is allowed."""
        if action_masks is None:
            every = np.arange(self.mask_dims, dtype=np.int64)
            self.legal[self.pos] = [every] * self.n_envs
        else:
            self.legal[self.pos] = [np.flatnonzero(row) for row in np.asarray(action_masks).reshape(self.n_envs, -1)]
        DictRolloutBuffer.add(self, *args, **kwargs)

    def get(self, batch_size: int | None = None) -> Generator[CompactSamples, None, None]:  # type: ignore[override]
        if not self.full:
            raise RuntimeError("the rollout buffer is read only once it is full")
        indices = np.random.permutation(self.buffer_size * self.n_envs)
        if not self.generator_ready:
            for name in ("actions", "values", "log_probs", "advantages", "returns"):
                self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
            self.generator_ready = True
        if batch_size is None:
            batch_size = self.buffer_size * self.n_envs
        for start in range(0, self.buffer_size * self.n_envs, batch_size):
            yield self._get_samples(indices[start:start + batch_size])

    def _get_samples(self, batch_inds: np.ndarray, env: VecNormalize | None = None) -> CompactSamples:  # type: ignore[override]
        # flattened index i (after swap_and_flatten) = env * buffer_size + step
        env_of, step = np.divmod(batch_inds, self.buffer_size)
        return CompactSamples(
            observations={key: self.to_torch(obs[step, env_of]) for key, obs in self.observations.items()},
            actions=self.to_torch(self.actions[batch_inds]),
            old_values=self.to_torch(self.values[batch_inds].flatten()),
            old_log_prob=self.to_torch(self.log_probs[batch_inds].flatten()),
            advantages=self.to_torch(self.advantages[batch_inds].flatten()),
            returns=self.to_torch(self.returns[batch_inds].flatten()),
            action_masks=LegalActions.from_lists([self.legal[s][e] for s, e in zip(step, env_of, strict=True)]),
        )

    def to_torch(self, array: np.ndarray, copy: bool = True) -> th.Tensor:
        # Every array reaching here in a minibatch is a fresh fancy-indexed copy: sharing it is safe.
        return th.as_tensor(array, device=self.device)
