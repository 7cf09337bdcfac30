"""``carcassonne_v1`` for RLlib's new API stack: the env adapter and the board network as an RLModule.

**Env** (:func:`make_env`): the unwrapped PettingZoo AEC env (``raw_env``), its observations renamed by
:class:`RLlibObservationKeys`, inside RLlib's ``PettingZooEnv`` wrapper (a turn-based
``MultiAgentEnv``: each step returns the observation of the next agent to act; an agent's reward
arrives with its next observation, and every agent gets its final reward when the game ends).

**Action masking**: the env observes ``{"observation": {board, cells, vector}, "action_mask"}``
(PettingZoo's convention); RLlib's action-masking modules read ``{"observations": …,
"action_mask": …}``, so :class:`RLlibObservationKeys` renames the one key, in both the
observations and the observation space. Nothing else changes: same arrays, same dtypes.

**Module** (:class:`CarcassonneRLModule`): a ``TorchRLModule`` with the ``ValueFunctionAPI`` whose
network is :class:`~agents.nets.board_net.BoardNet`, the one the Stable-Baselines3 trainer uses. It
computes the logits of the legal actions only (the mask is read from the observation), and its
action distributions work on those only (:class:`~agents.nets.legal_dist.LegalCategorical`, as the
SB3 policy's do):

* sampling and playing (``forward_exploration``, ``forward_inference``): the module draws (or
  takes the most probable) legal action itself and gives RLlib ``actions`` and their log-probability,
  so RLlib's own categorical over all N logits is never built. It also gives all N logits as the
  ``action_dist_inputs`` the EnvRunners record (the masked ones at
  :data:`~agents.nets.board_net.OUTSIDE_CROP`, −1e8: the same record as before), read back as
  :class:`RecordedActionDist` — PPO's "previous" distribution, for the KL.
* training (``forward_train``): the ``action_dist_inputs`` are the packed legal logits
  (:func:`pack_legal`), read as :class:`LegalActionDist`; log-probabilities, entropy and the KL
  with the recorded distribution cost O(legal actions).

Both are, up to float rounding, the full categorical over the N masked logits (masked actions have
probability exactly 0 in float32); ``tests/test_rllib.py`` checks it on recorded batches. The value
is computed in the same pass and handed to ``compute_values`` as the "embedding" (PPO's loss passes
the forward pass's embeddings on), so the trunk runs once per training minibatch. The saved form
(class, constructor arguments, weights) is unchanged by the distributions: checkpoints of either
version load in the other.
``model_config``: ``channels``, ``blocks``, ``margin``, ``head_hidden`` (BoardNet's arguments).
"""

from __future__ import annotations

from typing import Any, cast

import torch as th
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.distribution import Distribution
from ray.rllib.core.distribution.torch.torch_distribution import TorchDeterministic, TorchDistribution
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.typing import TensorType

import carcassonne_env

from .board_net import OUTSIDE_CROP, BoardNet, LegalLogits
from .legal_dist import LegalCategorical

__all__ = ["MASK_KEY", "OBS_KEY", "CarcassonneRLModule", "LegalActionDist", "RLlibObservationKeys",
           "RecordedActionDist", "make_env", "pack_legal", "scatter_legal"]

#: The observation keys RLlib's action-masking modules read: the env's observation, renamed from
#: PettingZoo's ``"observation"`` (:class:`RLlibObservationKeys`), and its action mask, unrenamed.
OBS_KEY = "observations"
MASK_KEY = "action_mask"
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
    """The RLlib env of ``carcassonne_v1`` with ``config`` (the env's keyword arguments): the
    unwrapped AEC env (``raw_env``, as the SB3 trainer's ``SingleAgentEnv`` steps it), since the
    module only takes legal actions. PettingZoo's checking wrappers cost a fifth of an env step
    here, and an illegal action raises ``IllegalActionError`` naming the rule it breaks (an EnvRunner
    logs it, and RLlib restarts the runner by default) instead of ending the game with −1 for the
    offender, which would hide a bug in training."""
    env: AECEnv = carcassonne_env.raw_env(**dict(config))  # type: ignore[type-arg]
    return PettingZooEnv(RLlibObservationKeys(env))  # type: ignore[no-untyped-call]  # RLlib leaves it unannotated


def pack_legal(legal: LegalLogits) -> th.Tensor:
    """``legal`` as one tensor (B, L, 2), the form RLlib passes around as ``action_dist_inputs``:
    ``[..., 0]`` the action index, −1 on padding (exact: N < 2**24), ``[..., 1]`` the logit."""
    actions = legal.actions.to(legal.logits.dtype).masked_fill(~legal.valid, -1.0)
    return th.stack([actions, legal.logits], -1)


def scatter_legal(legal: LegalLogits, n: int) -> th.Tensor:
    """All ``n`` logits of each observation (B, n): the legal ones from ``legal``, the others
    :data:`OUTSIDE_CROP`. A padding entry points at action 0 too, so the entries are combined by their
    maximum (a plain scatter's last write would let the padding hide a legal action 0)."""
    logits = th.full((len(legal.logits), n), OUTSIDE_CROP, dtype=legal.logits.dtype, device=legal.logits.device)
    return logits.scatter_reduce(1, legal.actions, th.where(legal.valid, legal.logits, OUTSIDE_CROP), "amax")


class _LegalDist(TorchDistribution):
    """RLlib's ``Distribution`` interface over a :class:`LegalCategorical` (:meth:`categorical`);
    no ``torch.distributions`` object is built."""

    def categorical(self) -> LegalCategorical:
        raise NotImplementedError

    def _get_torch_distribution(self, *args: Any, **kwargs: Any) -> th.distributions.Distribution:
        raise NotImplementedError("computed by LegalCategorical, not by torch.distributions")

    def logp(self, value: TensorType, **kwargs: Any) -> th.Tensor:
        return self.categorical().log_prob(th.as_tensor(value), strict=False)

    def entropy(self, **kwargs: Any) -> th.Tensor:
        return self.categorical().entropy()

    def kl(self, other: Distribution, **kwargs: Any) -> th.Tensor:
        if not isinstance(other, _LegalDist):
            raise TypeError(f"kl: no KL between a legal-actions distribution and {type(other).__name__}")
        mine = self.categorical()
        return mine.kl(mine.with_logits(other.logits) if isinstance(other, RecordedActionDist) else other.categorical())

    def sample(self, *, sample_shape: tuple[int, ...] | None = None, **kwargs: Any) -> th.Tensor:
        if sample_shape:
            raise ValueError("one action per observation: sample_shape is not supported")
        return self.categorical().sample()

    def rsample(self, *, sample_shape: tuple[int, ...] | None = None, **kwargs: Any) -> th.Tensor:
        raise NotImplementedError("a categorical has no reparameterised sample")

    def to_deterministic(self) -> TorchDeterministic:
        return TorchDeterministic(loc=self.categorical().mode())

    @staticmethod
    def required_input_dim(space: spaces.Space[Any], **kwargs: Any) -> int:
        raise NotImplementedError("the inputs come from CarcassonneRLModule, not from a layer RLlib sizes")


class LegalActionDist(_LegalDist):
    """The training forward's distribution, made from :func:`pack_legal`'s tensor. Its KL with a
    :class:`RecordedActionDist` (PPO's previous distribution) reads the recorded N logits at these
    legal actions only."""

    def __init__(self, legal: LegalCategorical) -> None:
        self.legal = legal

    @classmethod
    def from_logits(cls, logits: TensorType, **kwargs: Any) -> LegalActionDist:
        actions, values = th.as_tensor(logits).unbind(-1)
        valid = actions >= 0
        return cls(LegalCategorical(LegalLogits(actions.long().clamp(min=0), valid, values)))

    def categorical(self) -> LegalCategorical:
        return self.legal


class RecordedActionDist(_LegalDist):
    """The distribution the EnvRunners sampled from, as they record it: all N logits of each
    observation (B, N), the masked ones at :data:`OUTSIDE_CROP`. PPO only asks it for
    ``kl(LegalActionDist)``, which reads the N logits at that distribution's legal actions; its
    other methods find the legal actions from the logits first (O(N))."""

    def __init__(self, logits: th.Tensor) -> None:
        self.logits = logits

    @classmethod
    def from_logits(cls, logits: TensorType, **kwargs: Any) -> RecordedActionDist:
        return cls(th.as_tensor(logits))

    def categorical(self) -> LegalCategorical:
        return LegalCategorical.from_full(self.logits)

    def kl(self, other: Distribution, **kwargs: Any) -> th.Tensor:
        if isinstance(other, LegalActionDist):
            return other.legal.with_logits(self.logits).kl(other.legal)
        return super().kl(other)


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

    def get_train_action_dist_cls(self) -> type[TorchDistribution]:
        return LegalActionDist

    def get_exploration_action_dist_cls(self) -> type[TorchDistribution]:
        return RecordedActionDist

    def get_inference_action_dist_cls(self) -> type[TorchDistribution]:
        return RecordedActionDist

    def _legal(self, batch: dict[str, Any]) -> tuple[LegalLogits, th.Tensor]:
        obs = batch[Columns.OBS]
        return self.net.legal_logits(obs[OBS_KEY], obs[MASK_KEY])

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        legal, values = self._legal(batch)
        return {Columns.ACTION_DIST_INPUTS: pack_legal(legal), Columns.EMBEDDINGS: values.squeeze(-1)}

    def forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """RLlib's, but the module is put in eval mode only when it is not in it yet, and stays in
        it until the next ``forward_train`` (which puts it in training mode). RLlib's switches to
        eval mode and back around every env step: two walks over the module tree, ~0.2 ms a step,
        a tenth of the forward. The network has no layer that behaves differently in the two
        modes, so only the time changes (either way each forward runs in eval mode)."""
        if self.training:
            self.eval()
        return self._forward_exploration(batch, **kwargs)

    def forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """RLlib's, with :meth:`forward_exploration`'s mode rule."""
        if self.training:
            self.eval()
        return self._forward_inference(batch, **kwargs)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch, sample=True)

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch, sample=False)

    def _act(self, batch: dict[str, Any], sample: bool) -> dict[str, Any]:
        """A drawn (``sample``) or the most probable legal action per observation, its
        log-probability, all N logits (the EnvRunners' record) and the value."""
        with th.no_grad():
            legal, values = self._legal(batch)
            dist = LegalCategorical(legal)
            actions = dist.sample() if sample else dist.mode()
            return {Columns.ACTIONS: actions, Columns.ACTION_LOGP: dist.log_prob(actions),
                    Columns.ACTION_DIST_INPUTS: scatter_legal(legal, batch[Columns.OBS][MASK_KEY].shape[-1]),
                    Columns.EMBEDDINGS: values.squeeze(-1)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> th.Tensor:
        """The values of ``batch``'s observations: ``embeddings`` when given (the values of this
        batch's training forward pass).

        PPO's GAE pass over a train batch (which has RLlib's ``loss_mask``) reuses the values the
        EnvRunners recorded while sampling (the ``embeddings`` column: PPO samples with the weights
        the learner still has) and runs the network only where the record is not this batch's own:
        the bootstrap row RLlib appends to each episode chunk (``loss_mask`` False; its outputs are
        copies of the row before) and each chunk's first row (in a turn-based game an agent's last
        action of a sampling call is finished in the next call, its outputs recorded with the weights
        before the update in between). Equal to a full pass to float rounding (checked on whole
        iterations, with and without EnvRunners), at a few dozen rows instead of a train batch."""
        if embeddings is not None:
            return embeddings  # type: ignore[no-any-return]
        obs = batch[Columns.OBS][OBS_KEY]
        recorded, in_loss = batch.get(Columns.EMBEDDINGS), batch.get(Columns.LOSS_MASK)
        if recorded is None or in_loss is None:
            return self.net.values(obs).squeeze(-1)
        values = th.as_tensor(recorded).to(th.float32).clone()
        appended = ~th.as_tensor(in_loss, dtype=th.bool)
        fresh = appended.clone()
        fresh[0] = True
        fresh[1:] |= appended[:-1]
        if bool(fresh.any()):
            rows = fresh.nonzero().squeeze(-1)
            values[rows] = self.net.values({k: v[rows] for k, v in obs.items()}).squeeze(-1).to(values.dtype)
        return values
