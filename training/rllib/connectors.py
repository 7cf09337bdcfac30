"""A connector of the RLlib trainer's EnvRunners (RLlib's ``ConnectorV2``; imports Ray)."""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns

__all__ = ["DropRecordedLogits"]


class DropRecordedLogits(ConnectorV2):
    """With no KL penalty (``--kl-coeff 0``) PPO never reads the N = 16,352 logits the module hands
    the EnvRunners at every step (``action_dist_inputs``, 65 KB of the 229 KB a step records): this
    module-to-env connector replaces each step's by one float32 zero before the episodes keep them.
    PPO still builds its "previous" distribution from the column, and uses it only for the KL. The
    actions and their log-probabilities, which the module computes itself, are untouched.

    RLlib runs custom module-to-env connectors after its own unbatching, so the column arrives as
    ``{(episode id, agent id, module id): [one array per step]}``."""

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: Any, explore: Any = None,
                 shared_data: Any = None, metrics: Any = None, **kwargs: Any) -> Any:
        recorded = batch.get(Columns.ACTION_DIST_INPUTS)
        if recorded is not None:
            for key, steps in recorded.items():
                recorded[key] = [np.zeros(1, dtype=np.float32) for _ in steps]
        return batch
