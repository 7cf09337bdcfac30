"""Policy distillation, step 2: fit the student to the labelled decisions
(:mod:`training.distill.policy_distillation`, module docstring).

The loss of a decision is the cross-entropy of the student's legal-action distribution against the
teacher's soft target plus ``value_weight`` × the squared error of its value head against the
mover's final win/loss. Per epoch the held-out figures (:func:`evaluate`): the loss, the
**agreement** (tie-aware: the student's most probable action is one the teacher values best), also
per decision phase, and the mean **regret** (temperature × log(best target / target of the student's
choice), the teacher's value lost by the student's choice, in points, capped at :data:`REGRET_CAP`).
The epoch with the lowest held-out ``select_by`` figure is kept. A fit saves itself after every epoch
and continues from there when it is run again (:func:`fit`): the same weights as a fit never killed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from agents.extras import optional_imports
from training.common.run_folder import reading
from training.common.storage import atomic_path

from .samples import PHASES, Samples, heldout_games

if TYPE_CHECKING:
    from .policy_distillation import Settings

__all__ = ["REGRET_CAP", "DeviceObservations", "batch_loss", "evaluate", "fit"]

#: Regret per decision is capped here (points): a target that underflows to 0 has infinite log-ratio.
REGRET_CAP = 50.0


class DeviceObservations:
    """Every observation of some samples, decompressed once and kept on a torch device in its stored
    dtype (``Settings.observations_on_device``): a minibatch is then an index into device memory.

    Decompression runs in ``threads`` threads (zlib releases the GIL), ``chunk`` samples a task."""

    def __init__(self, data: Samples, device: Any, threads: int = 8, chunk: int = 2_048) -> None:
        from concurrent.futures import ThreadPoolExecutor

        with optional_imports("carcassonne train distill", "train"):
            import torch

        def empty(key: str) -> Any:
            dtype = torch.from_numpy(np.zeros(0, dtype=data.dtypes[key])).dtype
            return torch.empty((len(data), *data.shapes[key]), dtype=dtype, device=device)

        self.arrays = {k: empty(k) for k in data.blobs}

        def fill(start: int) -> None:
            observations = data.observations(np.arange(start, min(start + chunk, len(data))))
            for k, v in observations.items():
                self.arrays[k][start:start + len(v)] = torch.from_numpy(v)

        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            list(pool.map(fill, range(0, len(data), chunk)))

    def __call__(self, idx: npt.NDArray[np.intp]) -> dict[str, Any]:
        """The observations of samples ``idx`` as tensors on the device, in their stored dtypes (the
        input of :func:`batch_loss`)."""
        with optional_imports("carcassonne train distill", "train"):
            import torch

        return {k: a[torch.as_tensor(idx, device=a.device)] for k, a in self.arrays.items()}


def batch_loss(policy: Any, data: Samples, idx: npt.NDArray[np.intp], value_weight: float,
           on_device: DeviceObservations | None = None) -> tuple[Any, Any, Any, Any]:
    """(loss, cross-entropy, the student's distribution, the value loss) of samples ``idx``
    (their observations from ``on_device`` when given, else decompressed from ``data``).

    One pass of the trunk gives both heads (``legal_logits``; its values are ``predict_values``'s,
    tested): the fit once ran the trunk a second time for the value, 40 % of its time. The integer
    planes go in as stored: the network converts what it reads after cropping (the same numbers,
    tested), where a float copy of the whole 93 × 93 board took a quarter of a batch."""
    with optional_imports("carcassonne train distill", "train"):
        import torch

    device = policy.device
    obs = on_device(idx) if on_device is not None else {
        k: torch.as_tensor(v, device=device) for k, v in data.observations(idx).items()}
    legal_logits, values = policy.legal_logits(obs, data.masks(idx))
    dist = policy.action_dist.proba_distribution(legal_logits)
    legal = dist.legal
    target = torch.as_tensor(data.padded_targets(idx, legal.actions.shape[1]), device=device)
    cross_entropy = -(target * dist.log_p.masked_fill(~legal.valid, 0.0)).sum(1).mean()
    values = values.flatten()
    value_loss = torch.nn.functional.mse_loss(values, torch.as_tensor(data.outcomes[idx], device=device))
    return cross_entropy + value_weight * value_loss, cross_entropy, dist, value_loss


def evaluate(policy: Any, data: Samples, idx: npt.NDArray[np.intp], s: Settings,
             on_device: DeviceObservations | None = None) -> dict[str, float]:
    """Held-out figures of the student on samples ``idx`` (module docstring, step 2)."""
    with optional_imports("carcassonne train distill", "train"):
        import torch

    policy.set_training_mode(False)
    sums = {"loss": 0.0, "cross_entropy": 0.0, "value_loss": 0.0}
    agree = np.zeros(len(idx), dtype=bool)
    regret = np.zeros(len(idx))
    with torch.no_grad():
        for start in range(0, len(idx), s.batch_size):
            batch = idx[start:start + s.batch_size]
            loss, ce, dist, value_loss = batch_loss(policy, data, batch, s.value_weight, on_device)
            for name, v in (("loss", loss), ("cross_entropy", ce), ("value_loss", value_loss)):
                sums[name] += float(v) * len(batch)
            chosen = dist.mode().cpu().numpy()
            for row, i in enumerate(batch):
                legal, target = data.legal_of(int(i)), data.target_of(int(i))
                t = float(target[int(np.searchsorted(legal, chosen[row]))])
                best = float(target.max())
                agree[start + row] = t == best
                regret[start + row] = min(REGRET_CAP, s.temperature * math.log(best / t)) if t > 0 else REGRET_CAP
    n = max(1, len(idx))
    out = {k: v / n for k, v in sums.items()}
    out["agreement"] = float(agree.mean()) if len(idx) else 0.0
    out["regret"] = float(regret.mean()) if len(idx) else 0.0
    phases = data.phases[idx]
    for p, name in enumerate(PHASES):
        out[f"agreement_{name}"] = float(agree[phases == p].mean()) if (phases == p).any() else float("nan")
    return out


def fit(policy: Any, data: Samples, s: Settings, seed: int, log: Any = None, step: int = 0,
        checkpoint: Path | None = None, on_saved: Callable[[], None] | None = None) -> dict[str, float]:
    """Train ``policy`` on ``data`` for ``s.epochs`` epochs, keep the epoch with the lowest held-out
    ``s.select_by`` (the first of equals); its figures (the training figures when no game is held out).

    With ``checkpoint``, the fit saves itself there after every epoch (weights, optimiser, the shuffle's
    random state, the best epoch so far; written atomically) and, when the file exists, continues from
    it: a fit killed after epoch *e* and run again ends with exactly the weights of one never killed.
    The caller deletes the file once the round's student is saved; ``on_saved`` is called after each save."""
    with optional_imports("carcassonne train distill", "train"):
        import torch

    rng = np.random.default_rng(seed)
    held = heldout_games(data.games)
    train_idx, test_idx = np.flatnonzero(~held), np.flatnonzero(held)
    if not len(train_idx):
        train_idx = test_idx
    if not len(test_idx):
        test_idx = train_idx
    optimiser = torch.optim.Adam(policy.parameters(), lr=s.learning_rate)
    best: tuple[float, dict[str, Any], dict[str, float]] = (math.inf, {}, {})
    first = 0
    if checkpoint is not None and checkpoint.exists():
        with reading(checkpoint, "delete it: --resume fits the round again from its first epoch"):
            saved = torch.load(checkpoint, map_location=s.device, weights_only=True)  # tensors and plain values
            policy.load_state_dict(saved["policy"])
            optimiser.load_state_dict(saved["optimiser"])
            rng.bit_generator.state = saved["rng"]
            best, first = saved["best"], saved["epochs_done"]
        print(f"   continuing after epoch {first} ({checkpoint})", flush=True)
    on_device = DeviceObservations(data, policy.device) if s.observations_on_device and first < s.epochs else None
    for epoch in range(first, s.epochs):
        policy.set_training_mode(True)
        order = rng.permutation(train_idx)
        total = 0.0
        for start in range(0, len(order), s.batch_size):
            batch = order[start:start + s.batch_size]
            loss = batch_loss(policy, data, batch, s.value_weight, on_device)[0]
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        held_out = evaluate(policy, data, test_idx, s, on_device)
        figures = {"train_loss": total / len(order), **held_out, "epoch": epoch + 1.0}
        print(f"   epoch {epoch + 1}: training loss {figures['train_loss']:.3f}, held-out loss {figures['loss']:.3f}, "
              f"agreement {figures['agreement']:.1%} (" + ", ".join(
                  f"{p} {figures[f'agreement_{p}']:.1%}" for p in PHASES) + f"), regret {figures['regret']:.2f} points",
              flush=True)
        if log is not None:
            for k, v in figures.items():
                if k != "epoch" and math.isfinite(v):
                    log.add_scalar(f"fit/{k}", v, step * 1000 + epoch)
        if figures[s.select_by] < best[0]:
            best = (figures[s.select_by], {k: v.detach().clone() for k, v in policy.state_dict().items()}, figures)
        if checkpoint is not None:
            with atomic_path(checkpoint) as tmp:
                torch.save({"policy": policy.state_dict(), "optimiser": optimiser.state_dict(),
                            "rng": rng.bit_generator.state, "best": best, "epochs_done": epoch + 1}, tmp)
            if on_saved is not None:
                on_saved()
    policy.load_state_dict(best[1])
    policy.set_training_mode(False)
    return {**best[2], "train_samples": float(len(train_idx)), "heldout_samples": float(len(test_idx))}
