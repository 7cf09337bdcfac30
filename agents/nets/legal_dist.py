"""The categorical distribution over each observation's legal actions only, in plain torch: the one
both trainers' action distributions are made of (the SB3 policy's
:class:`~agents.nets.policy.LegalActionDistribution`, the RLlib module's
:class:`~agents.nets.rllib_module.LegalActionDist`).

A full categorical over all N actions with the masked logits at :data:`~agents.nets.board_net.OUTSIDE_CROP`
(−1e8) gives every masked action probability exactly 0 in float32 (``exp(−1e8 − x)`` underflows),
so its log-probabilities, entropy and KL are sums over the legal actions alone. This one computes
exactly those sums, over :class:`~agents.nets.board_net.LegalLogits` (each observation's legal
actions, padded to the longest list), in O(legal actions) instead of O(N) — and without ``exp`` of
N − L underflowing inputs, a slow path on CPUs.
"""

from __future__ import annotations

import torch as th

from .board_net import OUTSIDE_CROP, LegalLogits

__all__ = ["LegalCategorical"]


class LegalCategorical:
    """A categorical distribution over each observation's allowed actions (:class:`LegalLogits`).

    Invariants: ``legal.logits`` is :data:`OUTSIDE_CROP` wherever ``legal.valid`` is False (the
    padding :func:`~agents.nets.board_net.pad_legal` writes), so padding has probability exactly 0
    and adds exactly 0 to the entropy and the KL; every row has at least one valid entry; the valid
    ``actions`` of a row are ascending (the order :class:`~agents.nets.board_net.LegalActions` gives).
    """

    def __init__(self, legal: LegalLogits) -> None:
        self.legal = legal
        #: Log-probabilities of the entries (B, L); padding at about −1e8 (probability 0).
        self.log_p = legal.logits.log_softmax(-1)

    @classmethod
    def from_full(cls, full: th.Tensor) -> LegalCategorical:
        """From all N logits of each observation (B, N), the masked ones at :data:`OUTSIDE_CROP`
        (a legal logit is always far above ``OUTSIDE_CROP / 2``). O(N log N) per observation."""
        n = full.shape[1]
        index = th.arange(n, device=full.device).expand_as(full)
        order = th.where(full > OUTSIDE_CROP / 2, index, n).sort(1).values  # legal actions first, ascending
        order = order[:, :int((order < n).sum(1).max())]
        valid = order < n
        return cls(_gather(full, order.masked_fill(~valid, 0), valid))

    def with_logits(self, full: th.Tensor) -> LegalCategorical:
        """The distribution over the same entries whose logits are read from ``full`` (B, N), all
        N logits of each observation (only the legal ones are read)."""
        return LegalCategorical(_gather(full, self.legal.actions, self.legal.valid))

    def log_prob(self, actions: th.Tensor, strict: bool = True) -> th.Tensor:
        """Log-probability (B,) of each observation's action. An action the distribution does not
        allow is a :class:`ValueError`, or with ``strict=False`` gets the masked full categorical's
        log-probability, ``OUTSIDE_CROP − logsumexp(logits)`` (RLlib's train batches hold such rows:
        the extra timestep PPO appends to each episode chunk, left out of the loss by its mask)."""
        hit = (self.legal.actions == actions.long().reshape(-1, 1)) & self.legal.valid
        allowed = hit.any(1)
        if strict and not bool(allowed.all()):
            raise ValueError("log_prob of an action that is not allowed by the mask")
        log_p = self.log_p.gather(1, hit.int().argmax(1, keepdim=True)).squeeze(1)
        if strict:
            return log_p
        return th.where(allowed, log_p, OUTSIDE_CROP - self.legal.logits.logsumexp(-1))

    def entropy(self) -> th.Tensor:
        return -(self.log_p.exp() * self.log_p).sum(-1)

    def kl(self, other: LegalCategorical) -> th.Tensor:
        """KL(self ‖ other) (B,); ``other`` must have the same entries (actions and padding), e.g.
        ``other.with_logits(full)`` for a distribution recorded as all N logits."""
        if self.legal.actions.shape != other.legal.actions.shape or not (
                bool((self.legal.actions == other.legal.actions).all())
                and bool((self.legal.valid == other.legal.valid).all())):
            raise ValueError("kl: the two distributions are not over the same legal actions")
        return (self.log_p.exp() * (self.log_p - other.log_p)).sum(-1)

    def sample(self) -> th.Tensor:
        slot = th.multinomial(self.log_p.exp(), 1)
        return self.legal.actions.gather(1, slot).squeeze(1)

    def mode(self) -> th.Tensor:
        return self.legal.actions.gather(1, self.log_p.argmax(1, keepdim=True)).squeeze(1)


def _gather(full: th.Tensor, actions: th.Tensor, valid: th.Tensor) -> LegalLogits:
    """The :class:`LegalLogits` of entries ``actions``/``valid`` with their logits read from ``full``."""
    return LegalLogits(actions, valid, full.gather(1, actions).masked_fill(~valid, OUTSIDE_CROP))
