"""The board network (:mod:`agents.nets.board_net`) as an sb3-contrib ``MaskablePPO`` policy.

``MaskablePPO(CarcassonnePolicy, env, **ppo_kwargs())`` over
:class:`carcassonne_env.environment.SingleAgentEnv` (any player count 2–6 and any window W).
The network itself, :class:`~agents.nets.board_net.BoardNet`, is plain torch and shared with the RLlib
trainer; this module adds what SB3 needs: the legal-actions-only distribution
(:class:`LegalActionDistribution`), the policy class (SB3's ``_build`` replaced: no flat N-way
layer is built) and ``torch.inference_mode`` where gradients are off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableDistribution, MaybeMasks
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import PyTorchObs, Schedule
from torch import nn

from carcassonne_env.environment.codec import ActionCodec

from .board_net import OUTSIDE_CROP, BoardEncoder, BoardNet, LegalActions, LegalLogits, layout_of
from .legacy import legacy_module_names
from .legal_dist import LegalCategorical
from .prior import PRIOR_KEY

__all__ = ["CarcassonnePolicy", "LegalActionDistribution", "load_policy", "policy_kwargs"]

#: The heads that checkpoints from before :class:`BoardNet` keep at the policy's top level.
_LEGACY_HEADS = ("spatial_head", "pi_hidden", "other_head", "value_net")


class LegalActionDistribution(MaskableDistribution):
    """A categorical distribution over each observation's allowed actions only.

    sb3-contrib's ``MaskableCategoricalDistribution`` keeps all N logits, sets the masked ones to
    −1e8 and exponentiates them several times per call; on this CPU ``exp`` of such underflowing
    inputs takes a slow path (15× slower), and the N-wide arithmetic cost more than the network.
    This one is made from :class:`LegalLogits` (the mask is applied when they are gathered) and
    computes with :class:`~agents.nets.legal_dist.LegalCategorical`, so sampling, log-probabilities
    and the entropy cost O(allowed actions). Same semantics: masked actions have probability 0 and
    add nothing to the entropy.

    ``apply_masking(masks)`` restricts the distribution further to the actions ``masks`` (B, N)
    allows, as sb3-contrib's does (``None`` leaves it as it is). ``proba_distribution_net``, the
    abstract method by which SB3 would build a linear N-way layer over the latent, has no meaning
    here (the logits come from :class:`~agents.nets.board_net.BoardNet`'s heads) and raises if called;
    :class:`CarcassonnePolicy` never calls it.
    """

    def __init__(self, action_dim: int) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.action_dim = action_dim

    def proba_distribution_net(self, *args: Any, **kwargs: Any) -> nn.Module:
        raise NotImplementedError("the logits come from CarcassonnePolicy's heads")

    def proba_distribution(self, legal: LegalLogits) -> LegalActionDistribution:
        self.dist = LegalCategorical(legal)
        self.legal = legal
        self.log_p = self.dist.log_p
        return self

    def apply_masking(self, masks: MaybeMasks) -> None:
        if masks is None:
            return
        allowed = th.as_tensor(masks, dtype=th.bool, device=self.legal.actions.device)
        allowed = allowed.reshape(len(self.legal.actions), -1).gather(1, self.legal.actions)
        valid = self.legal.valid & allowed
        if not bool(valid.any(1).all()):
            raise ValueError("apply_masking: the mask allows none of an observation's legal actions")
        self.proba_distribution(LegalLogits(self.legal.actions, valid,
                                            self.legal.logits.masked_fill(~valid, OUTSIDE_CROP)))

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        return self.dist.log_prob(actions)

    def entropy(self) -> th.Tensor:
        return self.dist.entropy()

    def sample(self) -> th.Tensor:
        return self.dist.sample()

    def mode(self) -> th.Tensor:
        return self.dist.mode()

    def actions_from_params(self, legal: LegalLogits, deterministic: bool = False) -> th.Tensor:
        return self.proba_distribution(legal).get_actions(deterministic=deterministic)

    def log_prob_from_params(self, legal: LegalLogits) -> tuple[th.Tensor, th.Tensor]:
        actions = self.actions_from_params(legal)
        return actions, self.log_prob(actions)


class CarcassonnePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose network is :class:`~agents.nets.board_net.BoardNet` (``net``).

    ``head_hidden`` units in the hidden layer of the non-spatial and value heads. Other keyword
    arguments are SB3's (``features_extractor_kwargs`` go to :class:`BoardEncoder`); ``net_arch``
    and ``activation_fn`` are not used. Without an action mask, every action inside the crop is
    allowed (use the mask: ``MaskablePPO.predict(obs, action_masks=...)``).

    ``prior``: the agent spec whose action values are the observation's ``prior`` entry (a residual
    policy, :mod:`agents.nets.prior`); it is saved with the model, so the ``ppo:`` agent computes the
    same prior at play time. The observation space has a ``prior`` entry exactly when it is set.

    Checkpoints saved before the network was :class:`BoardNet` name its heads at the top level
    (``spatial_head.weight``, not ``net.spatial_head.weight``): :meth:`_legacy_keys` maps them when
    loading, so they load and play unchanged (``tests/golden/legacy_ppo_tower_2p.zip`` is one).
    """

    features_extractor: BoardEncoder  # type: ignore[assignment]  # SB3: BaseFeaturesExtractor; here always this one
    action_dist: LegalActionDistribution
    net: BoardNet

    def __init__(
        self,
        observation_space: spaces.Dict,
        action_space: spaces.Discrete[Any],
        lr_schedule: Schedule,
        head_hidden: int = 64,
        features_extractor_class: type[BoardEncoder] = BoardEncoder,
        prior: str = "",
        prior_temperature: float = 1.0,
        action_heads: bool = False,
        reach_head: bool = False,
        deploy_sees_floors: bool = False,
        **kwargs: Any,
    ) -> None:
        self.head_hidden = head_hidden
        self.action_heads = action_heads
        self.reach_head = reach_head
        self.deploy_sees_floors = deploy_sees_floors
        if bool(prior) != (PRIOR_KEY in observation_space.spaces):
            raise ValueError(f"prior={prior!r} but the observation space {'lacks' if prior else 'has'} "
                             f"a {PRIOR_KEY!r} entry (wrap the env in agents.nets.prior.PriorObservation)")
        self.prior = prior
        self.prior_temperature = prior_temperature
        window = layout_of(observation_space).window
        self.codec = ActionCodec(window)
        if not isinstance(action_space, spaces.Discrete) or int(action_space.n) != self.codec.n:
            raise ValueError(f"action_space must be Discrete({self.codec.n}) for window {window}, got {action_space}")
        kwargs.setdefault("share_features_extractor", True)
        if not kwargs["share_features_extractor"]:
            raise ValueError("CarcassonnePolicy shares its trunk between policy and value")
        super().__init__(
            observation_space, action_space, lr_schedule,
            features_extractor_class=features_extractor_class,  # type: ignore[arg-type]
            **kwargs,
        )
        self.register_load_state_dict_pre_hook(self._legacy_keys)  # type: ignore[no-untyped-call]  # torch leaves it unannotated

    def _build(self, lr_schedule: Schedule) -> None:
        """The heads and the optimizer (replaces SB3's flat N-way action layer)."""
        self.net = BoardNet(self.observation_space, head_hidden=self.head_hidden,  # type: ignore[arg-type]
                            encoder=self.features_extractor, prior_temperature=self.prior_temperature,
                            action_heads=self.action_heads, reach_head=self.reach_head,
                            deploy_sees_floors=self.deploy_sees_floors)
        self.action_dist = LegalActionDistribution(self.codec.n)
        if self.ortho_init:
            self.net.orthogonal_init()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]

    @staticmethod
    def _legacy_keys(module: nn.Module, state_dict: dict[str, th.Tensor], prefix: str, *args: Any) -> None:
        """Load-state-dict pre-hook: the heads of an old checkpoint (top-level ``spatial_head.*``,
        ``pi_hidden.*``, ``other_head.*``, ``value_net.*``) go to ``net.…``, its trunk
        ``features_extractor.*`` also to ``net.features_extractor.*`` (the same module)."""
        for key in [k for k in state_dict if k.startswith(prefix)]:
            name = key[len(prefix):]
            head, _, _ = name.partition(".")
            if head in _LEGACY_HEADS:
                state_dict[prefix + "net." + name] = state_dict.pop(key)
            elif head == "features_extractor" and prefix + "net." + name not in state_dict:
                state_dict[prefix + "net." + name] = state_dict[key]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["head_hidden"] = self.head_hidden
        data["prior"] = self.prior
        data["prior_temperature"] = self.prior_temperature
        if self.action_heads:  # absent from older checkpoints' arguments (they load without it)
            data["action_heads"] = True
        if self.reach_head:
            data["reach_head"] = True
        if self.deploy_sees_floors:
            data["deploy_sees_floors"] = True
        return data

    def legal_logits(
        self, obs: PyTorchObs, action_masks: MaybeMasks | th.Tensor | LegalActions = None
    ) -> tuple[LegalLogits, th.Tensor]:
        """:meth:`BoardNet.legal_logits`: logits of the allowed actions and values (B, 1)."""
        return self.net.legal_logits(obs, action_masks)  # type: ignore[arg-type]

    def _distribution(
        self, obs: PyTorchObs, action_masks: MaybeMasks | LegalActions
    ) -> tuple[LegalActionDistribution, th.Tensor]:
        legal, values = self.legal_logits(obs, action_masks)
        return self.action_dist.proba_distribution(legal), values

    def forward(
        self, obs: PyTorchObs, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        with _inference_unless_grad():
            distribution, values = self._distribution(obs, action_masks)
            actions = distribution.get_actions(deterministic=deterministic)
            return actions, values, distribution.log_prob(actions)

    def evaluate_actions(
        self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | LegalActions | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        distribution, values = self._distribution(obs, action_masks)
        return values, distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: PyTorchObs, action_masks: np.ndarray | None = None) -> MaskableDistribution:
        with _inference_unless_grad():
            return self._distribution(obs, action_masks)[0]

    def predict_values(self, obs: PyTorchObs) -> th.Tensor:
        with _inference_unless_grad():
            return self.net.values(obs)  # type: ignore[arg-type]


def _inference_unless_grad() -> th.inference_mode:
    """``torch.inference_mode`` where gradients are off anyway (SB3's rollout and ``predict`` run
    under ``no_grad``): less bookkeeping per operation; the outputs cannot enter a backward pass,
    which they could not under ``no_grad`` either."""
    return th.inference_mode(not th.is_grad_enabled())


def policy_kwargs(
    channels: int = 16, blocks: int = 2, margin: int = 1, head_hidden: int = 64, prior: str = "",
    prior_temperature: float = 1.0, action_heads: bool = False, reach_head: bool = False,
    deploy_sees_floors: bool = False,
) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO(CarcassonnePolicy, env, policy_kwargs=...)`` (the defaults
    are the benchmarked network; ``prior`` makes it a residual policy, :mod:`agents.nets.prior`;
    ``action_heads`` computes PLACE and DEPLOY logits by :mod:`agents.nets.action_heads`,
    ``reach_head`` corrects FLOOR logits by :mod:`agents.nets.reach_head`, ``deploy_sees_floors`` gives
    the DEPLOY logits that head's encoding of the floors on offer)."""
    kwargs: dict[str, Any] = {
        "head_hidden": head_hidden,
        "features_extractor_kwargs": {"channels": channels, "blocks": blocks, "margin": margin},
    }
    if prior:
        kwargs.update(prior=prior, prior_temperature=prior_temperature)
    if action_heads:
        kwargs["action_heads"] = True
    if reach_head:
        kwargs["reach_head"] = True
    if deploy_sees_floors:
        kwargs["deploy_sees_floors"] = True
    return kwargs


#: The ``data`` entries of a saved model that playing does not need: never unpickled by
#: :func:`load_policy` (a training-only class they name need not be importable).
_NOT_FOR_PLAY: dict[str, Any] = {"rollout_buffer_class": None, "rollout_buffer_kwargs": None, "lr_schedule": None,
                                 "clip_range": None, "clip_range_vf": None, "learning_rate": 0.0}


def load_policy(path: str | Path, device: str = "cpu") -> MaskableActorCriticPolicy:
    """The policy of the ``MaskablePPO`` zip at ``path``, for play: built as ``MaskablePPO.load``
    builds it (the saved policy class and its keyword arguments), the saved weights loaded, in eval
    mode, without the rollout buffer and optimiser a whole model would allocate. Zips saved under the
    trainer's old module names load too (:mod:`agents.nets.legacy`)."""
    from stable_baselines3.common.save_util import load_from_zip_file

    with legacy_module_names():
        data, params, _ = load_from_zip_file(path, device=device, custom_objects=_NOT_FOR_PLAY,
                                             print_system_info=False)
    if data is None or "policy" not in params:
        raise ValueError(f"{path}: not a MaskablePPO checkpoint (no policy in it)")
    policy_class: type[MaskableActorCriticPolicy] = data["policy_class"]
    policy = policy_class(data["observation_space"], data["action_space"], _no_schedule,
                          **data.get("policy_kwargs", {}))
    policy.load_state_dict(cast("dict[str, th.Tensor]", params["policy"]))  # SB3 types them as tensors: state dicts
    policy.set_training_mode(False)
    return policy.to(device)


def _no_schedule(progress_remaining: float) -> float:
    """The learning rate a policy built for play is given (its optimiser is never stepped)."""
    return 0.0

