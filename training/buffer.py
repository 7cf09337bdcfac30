"""A lighter rollout buffer for ``MaskablePPO`` on this env: ``rollout_buffer_class=CompactRolloutBuffer``.

sb3-contrib's ``MaskableDictRolloutBuffer`` stores action masks as float32 (N = 16,352 per step for
W = 31: 64 KiB) and copies every minibatch twice (numpy fancy indexing, then ``th.tensor``). This
one stores masks as bool and hands the fancy-indexed arrays (already fresh copies) to torch without
a second copy; samples are the same.
"""

from __future__ import annotations

import numpy as np
import torch as th
from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer

__all__ = ["CompactRolloutBuffer"]


class CompactRolloutBuffer(MaskableDictRolloutBuffer):
    """``MaskableDictRolloutBuffer`` with bool masks and no second copy of minibatches."""

    def reset(self) -> None:
        super().reset()
        self.action_masks = np.ones((self.buffer_size, self.n_envs, self.mask_dims), dtype=bool)

    def to_torch(self, array: np.ndarray, copy: bool = True) -> th.Tensor:
        # Every array reaching here in a minibatch is a fresh fancy-indexed copy: sharing it is safe.
        return th.as_tensor(array, device=self.device)
