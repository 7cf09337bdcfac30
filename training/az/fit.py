"""The fit of an ``az`` policy-value network (:class:`~agents.nets.pv_net.PVNet`) to recorded positions:
shared by the expert-iteration trainer (:mod:`training.az.expert_iteration`: the search's improved
policy and the game's outcome) and the warm start (scripts/maintainer/az_warm_start.py: a teacher's
policy, no value).

The loss of a batch is the cross-entropy of the network's legal-action distribution against each
position's soft ``target`` (summing to 1 over its legal actions) plus ``value_weight`` × the mean squared
error of the value head against the position's ``value`` (the residual of the final margin over the
base value, in units of :data:`~agents.nets.pv_net.VALUE_SCALE` points). With ``value_weight`` 0 the
value head is frozen (it stays what it was: 0 for a new network). Adam, the learning rate decayed
linearly to 0 over the fit; the held-out figures are reported before the fit (``…_before``: what the
fit starts from, so that a log shows what it learned) and per epoch, the last epoch's returned.

**Quarter turns** (``turns``): each training position of a minibatch is turned by k quarter turns of
the whole board, k drawn uniformly from 0–3 per position and minibatch by the fit's seeded generator
(:meth:`Position.turned`, :mod:`carcassonne_env.environment.turns`: the observation, the legal actions
and the target turned together are the turned game's own; the value target, a margin, does not change).
A position whose window does not cover the frontier stays as it is. Each epoch then sees every position
once, in one of its four orientations; the held-out figures are of the positions as played.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import torch as th
from torch.nn import functional as F

from agents.nets.board_net import LegalActions
from agents.nets.pv_net import VALUE_SCALE, PVNet
from carcassonne_env.environment.layout import Layout
from carcassonne_env.environment.turns import QuarterTurns

__all__ = ["Position", "batch", "fit", "heldout_figures", "losses"]


@dataclass
class Position:
    """One recorded decision: the observation (the board as its nonzero entries), the legal actions
    (ascending codec indices), the policy ``target`` over them (sums to 1), the ``value`` target in
    points (the residual of the final margin over the base value; 0 where none is fitted) and the index
    of its ``game`` (whole games are held out)."""

    board_index: npt.NDArray[np.int32]
    board_value: npt.NDArray[np.uint8]
    cells: npt.NDArray[np.uint8]
    vector: npt.NDArray[np.float32]
    legal: npt.NDArray[np.int64]
    target: npt.NDArray[np.float32]
    game: int
    value: float = 0.0

    @classmethod
    def of(cls, observation: Mapping[str, np.ndarray], legal: npt.NDArray[np.int64], target: npt.NDArray[Any],
           game: int, value: float = 0.0) -> Position:
        """The position of an encoder's ``observation`` (its board kept sparse)."""
        board = observation["board"].reshape(-1)
        nonzero = np.flatnonzero(board).astype(np.int32)
        return cls(nonzero, board[nonzero], observation["cells"], observation["vector"], legal,
                   np.asarray(target, dtype=np.float32), game, value)

    def turned(self, turns: QuarterTurns, k: int) -> Position:
        """This position after ``k`` ∈ {1, 2, 3} quarter turns of the board (``turns`` made for its layout),
        its legal actions ascending again with their targets; itself when its window does not cover the
        frontier (:meth:`QuarterTurns.turn`)."""
        turn = turns.turn(self.cells, k)
        if turn is None:
            return self
        legal = turns.actions(self.legal, turn)
        order = np.argsort(legal)
        return Position(turns.board_indices(self.board_index, turn), self.board_value,
                        turns.cells(self.cells, turn), turns.vector(self.vector, turn), legal[order],
                        self.target[order], self.game, self.value)


def batch(positions: Sequence[Position], board_shape: tuple[int, ...], device: str = "cpu"
          ) -> tuple[dict[str, th.Tensor], LegalActions, th.Tensor, th.Tensor]:
    """Tensors of ``positions`` on ``device``: observations, legal actions, padded policy targets and
    value targets (in units of VALUE_SCALE points)."""
    board = np.zeros((len(positions), int(np.prod(board_shape))), dtype=np.uint8)
    for i, p in enumerate(positions):
        board[i, p.board_index] = p.board_value
    obs = {"board": th.from_numpy(board.reshape(len(positions), *board_shape)).to(device),
           "cells": th.from_numpy(np.stack([p.cells for p in positions])).to(device),
           "vector": th.from_numpy(np.stack([p.vector for p in positions])).to(device)}
    longest = max(len(p.legal) for p in positions)
    target = np.zeros((len(positions), longest), dtype=np.float32)
    for i, p in enumerate(positions):
        target[i, :len(p.legal)] = p.target
    value = np.array([p.value / VALUE_SCALE for p in positions], dtype=np.float32)
    legal = LegalActions.from_lists([p.legal for p in positions])
    return (obs, LegalActions(legal.rows.to(device), legal.actions.to(device)), th.from_numpy(target).to(device),
            th.from_numpy(value).to(device))


def losses(pv: PVNet, positions: Sequence[Position], board_shape: tuple[int, ...], device: str = "cpu"
           ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
    """(cross-entropy to the policy targets, squared error of the value head, agreement of the argmaxes)
    of a batch."""
    obs, legal, target, value = batch(positions, board_shape, device)
    logits, values = pv.net.legal_logits(obs, legal)
    log_p = F.log_softmax(logits.logits, dim=1)
    cross_entropy = -(target * log_p.masked_fill(~logits.valid, 0.0)).sum(1).mean()
    value_error = F.mse_loss(values[:, 0], value)
    agree = (logits.logits.argmax(1) == target.argmax(1)).float().mean()
    return cross_entropy, value_error, agree


def _turned_at_random(positions: Sequence[Position], turns: QuarterTurns, rng: np.random.Generator
                      ) -> list[Position]:
    """Each of ``positions`` turned by k quarter turns, k drawn uniformly from 0–3 (module docstring)."""
    ks = rng.integers(0, 4, len(positions))
    return [p.turned(turns, int(k)) if k else p for p, k in zip(positions, ks, strict=True)]


def fit(pv: PVNet, train: Sequence[Position], heldout: Sequence[Position], epochs: int, size: int, lr: float,
        seed: int, value_weight: float = 0.0, device: str = "cpu", turns: bool = False) -> dict[str, float]:
    """Fit ``pv`` (module docstring; ``turns``: each training position turned by a random quarter turn)
    on ``device``; it ends on the CPU in evaluation mode. The last epoch's held-out figures:
    ``cross_entropy``, ``value_rmse`` (points), ``agreement``, and the same before the fit
    (``cross_entropy_before``, ``value_rmse_before``, ``agreement_before``)."""
    pv.net.value_net.requires_grad_(value_weight > 0)
    layout = Layout(pv.config, pv.window)
    shape = layout.board_shape
    turner = QuarterTurns(layout) if turns else None
    pv.net.to(device)
    optimiser = th.optim.Adam([p for p in pv.net.parameters() if p.requires_grad], lr=lr)
    steps = epochs * max(1, len(train) // size)
    schedule = th.optim.lr_scheduler.LambdaLR(optimiser, lambda step: 1 - step / max(steps, 1))
    rng = np.random.default_rng(seed)
    before = heldout_figures(pv, heldout, shape, device)
    print(f"   before: {_line(before, value_weight > 0)}", flush=True)
    figures: dict[str, float] = {}
    try:
        for epoch in range(epochs):
            pv.net.train()
            order = rng.permutation(len(train))
            start = time.process_time()
            for i in range(0, max(1, len(order) - size + 1), size):
                chosen = [train[j] for j in order[i:i + size]]
                if turner is not None:
                    chosen = _turned_at_random(chosen, turner, rng)
                cross_entropy, value_error, _ = losses(pv, chosen, shape, device)
                loss = cross_entropy + value_weight * value_error
                optimiser.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]  # torch's stub leaves it untyped
                optimiser.step()
                schedule.step()
            figures = heldout_figures(pv, heldout, shape, device)
            print(f"   epoch {epoch + 1}: {_line(figures, value_weight > 0)} ({time.process_time() - start:.0f} s CPU)",
                  flush=True)
    finally:
        pv.net.to("cpu")
        pv.net.eval()
        pv.net.value_net.requires_grad_(True)
    return {**figures, **{f"{k}_before": v for k, v in before.items()}}


def heldout_figures(pv: PVNet, heldout: Sequence[Position], shape: tuple[int, ...], device: str) -> dict[str, float]:
    """The network's figures on ``heldout`` (in evaluation mode): ``cross_entropy``, ``value_rmse`` (points),
    ``agreement``, each the mean over the positions."""
    pv.net.eval()
    with th.no_grad():
        parts = [losses(pv, heldout[i:i + 256], shape, device) for i in range(0, len(heldout), 256)]
    weights = np.array([len(heldout[i:i + 256]) for i in range(0, len(heldout), 256)], dtype=np.float64)
    ce, mse, agree = (float(np.average([float(p[k]) for p in parts], weights=weights)) for k in range(3))
    return {"cross_entropy": ce, "value_rmse": float(np.sqrt(mse)) * VALUE_SCALE, "agreement": agree}


def _line(figures: dict[str, float], value: bool) -> str:
    """The held-out figures as the fit prints them."""
    return (f"held-out cross-entropy {figures['cross_entropy']:.3f}, argmax agreement {figures['agreement']:.3f}"
            + (f", value RMSE {figures['value_rmse']:.2f} points" if value else ""))
