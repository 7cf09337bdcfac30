"""The ``MaskablePPO`` constructor arguments of the self-play trainer: the board network's policy
(:class:`agents.nets.policy.CarcassonnePolicy`, play-time code) with the training-only
:class:`~training.sb3.buffer.CompactRolloutBuffer`."""

from __future__ import annotations

from typing import Any

from agents.nets.policy import policy_kwargs

from .buffer import CompactRolloutBuffer

__all__ = ["NOT_SAVED", "ppo_kwargs"]

#: What the trainer leaves out of the zips it saves (``model.save(path, exclude=NOT_SAVED)``): the
#: rollout buffer class is training-only, so a saved model names play-time classes only
#: (:mod:`agents.nets`) and plays without this package. The trainer sets it again when it resumes.
NOT_SAVED = ["rollout_buffer_class"]


def ppo_kwargs(
    channels: int = 16, blocks: int = 2, margin: int = 1, head_hidden: int = 64, prior: str = "",
    prior_temperature: float = 1.0,
) -> dict[str, Any]:
    """Keyword arguments for ``MaskablePPO(CarcassonnePolicy, env, **ppo_kwargs(), ...)``: the
    network's ``policy_kwargs`` and the lighter :class:`~training.sb3.buffer.CompactRolloutBuffer`."""
    return {
        "policy_kwargs": policy_kwargs(channels, blocks, margin, head_hidden, prior, prior_temperature),
        "rollout_buffer_class": CompactRolloutBuffer,
    }
