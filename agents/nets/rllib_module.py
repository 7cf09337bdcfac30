"""``carcassonne_v0`` for RLlib's new API stack: the env adapter and the board network as an RLModule.

**Env** (:func:`make_env`): the PettingZoo AEC env, its observations renamed by
:class:`RLlibObservationKeys`, inside RLlib's ``PettingZooEnv`` wrapper (a turn-based
``MultiAgentEnv``: each step returns the observation of the next agent to act; an agent's reward
arrives with its next observation, and every agent gets its final reward when the game ends).

**Action masking**: the env observes ``{"observation": {board, cells, vector}, "action_mask"}``
(PettingZoo's convention); RLlib's action-masking modules read ``{"observations": …,
"action_mask": …}``, so :class:`RLlibObservationKeys` renames the one key, in both the
observations and the observation space. Nothing else changes: same arrays, same dtypes.

**Module** (:class:`CarcassonneRLModule`): a ``TorchRLModule`` with the ``ValueFunctionAPI`` whose
network is :class:`~agents.nets.board_net.BoardNet`, the one the Stable-Baselines3 trainer uses. It
computes the logits of the legal actions only (the mask is read from the observation) and returns
all N with :data:`~agents.nets.board_net.OUTSIDE_CROP` (−1e8) for the others, so RLlib's default
categorical distribution never samples a masked action and its entropy stays finite. The value is
computed in the same pass and handed to ``compute_values`` as the "embedding" (PPO's loss passes
the forward pass's embeddings on), so the trunk runs once per training batch.
``model_config``: ``channels``, ``blocks``, ``margin``, ``head_hidden`` (BoardNet's arguments).
"""

from __future__ import annotations

from typing import Any, cast

import torch as th
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

import carcassonne_env
from agents.rllib import MASK_KEY, MODULE_ID, OBS_KEY

from .board_net import OUTSIDE_CROP, BoardNet

__all__ = ["MASK_KEY", "MODULE_ID", "OBS_KEY", "CarcassonneRLModule", "RLlibObservationKeys", "make_env"]



#: The ``model_config`` keys that are BoardNet's arguments.
_NET_OPTIONS = ("channels", "blocks", "margin", "head_hidden")


class RLlibObservationKeys(BaseWrapper):  # type: ignore[type-arg]
    """Renames the AEC env's observation key ``"observation"`` to ``"observations"`` (module
    docstring); the action mask keeps its key ``"action_mask"``."""

    def observation_space(self, agent: str) -> spaces.Dict:
        space = cast(spaces.Dict, self.env.observation_space(agent))
        return spaces.Dict({OBS_KEY: space["observation"], MASK_KEY: space[MASK_KEY]})

    def observe(self, agent: str) -> dict[str, Any]:
        obs = self.env.observe(agent)
        if obs is None:
            raise ValueError(f"no observation for {agent!r}")
        return {OBS_KEY: obs["observation"], MASK_KEY: obs[MASK_KEY]}


def make_env(config: dict[str, Any]) -> PettingZooEnv:
    """The RLlib env of ``carcassonne_v0`` with ``config`` (the env's keyword arguments)."""
    env: AECEnv = carcassonne_env.env(**dict(config))  # type: ignore[type-arg]
    return PettingZooEnv(RLlibObservationKeys(env))  # type: ignore[no-untyped-call]  # RLlib leaves it unannotated


class CarcassonneRLModule(TorchRLModule, ValueFunctionAPI):
    """The board network as an RLModule (module docstring)."""

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, spaces.Dict) or set(space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(f"CarcassonneRLModule needs observations {{{OBS_KEY!r}, {MASK_KEY!r}}} "
                             f"(wrap the env with RLlibObservationKeys), got {space}")
        # a dict (RLlib adds its own keys: vf_share_layers, …), or RLlib's default config (no BoardNet options)
        config = dict(self.model_config) if isinstance(self.model_config, dict) else {}
        self.net = BoardNet(cast(spaces.Dict, space[OBS_KEY]), **{k: config[k] for k in _NET_OPTIONS if k in config})
        self.net.orthogonal_init()

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        mask = obs[MASK_KEY]
        legal, values = self.net.legal_logits(obs[OBS_KEY], mask)
        logits = th.full(mask.shape, OUTSIDE_CROP, dtype=legal.logits.dtype, device=legal.logits.device)
        logits = logits.scatter(1, legal.actions, th.where(legal.valid, legal.logits, OUTSIDE_CROP))
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values.squeeze(-1)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> th.Tensor:
        if embeddings is not None:  # the values of this batch's forward pass
            return embeddings  # type: ignore[no-any-return]
        return self.net.values(batch[Columns.OBS][OBS_KEY]).squeeze(-1)
