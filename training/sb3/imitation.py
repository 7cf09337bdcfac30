"""Warm start by imitation: behaviour cloning of a teacher agent (greedy by default).

PPO from scratch against random learns to beat random but not greedy (measured when the trainer was written: 95 %
against random, 0 of 100 against greedy). Cloning greedy first puts the policy near greedy's play,
and its value head near the outcomes of such play; PPO then improves on it against the pool.

:func:`collect` plays seeded games on the AEC env where every seat is, per game, the teacher (with
probability ``teacher_share``) or one of the ``partners``; every decision of a teacher seat becomes a
sample (egocentric observation, mask, teacher's action, and the final outcome for that seat).
A teacher that values every legal action (greedy's ``action_values``: the best end-of-turn margin of
each) also gives a *soft target*, ``softmax(values / temperature)`` over the legal actions: it
carries greedy's whole ranking, ties included, where its single choice is one of many equal moves
picked at random (most placements tie). :func:`clone_behaviour` trains the policy by cross-entropy
against these targets under the mask, and the value head on the outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.extras import optional_imports
from carcassonne_env.environment.aec import raw_env
from training.common.labelled_games import Decision, labelled_games

__all__ = ["Decision", "Demonstrations", "clone_behaviour", "collect", "collect_parallel", "labelled_games"]


@dataclass
class Demonstrations:
    """Teacher decisions: observations stacked per key, packed masks, actions and outcomes."""

    observations: dict[str, npt.NDArray[Any]]
    packed_masks: npt.NDArray[np.uint8]
    actions: npt.NDArray[np.int64]
    outcomes: npt.NDArray[np.float32]
    n_actions: int
    #: Soft targets, concatenated: sample i's probabilities of its legal actions in ascending action
    #: index order are ``targets[offsets[i]:offsets[i + 1]]`` (one-hot for a teacher without values).
    targets: npt.NDArray[np.float32]
    offsets: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def masks(self, idx: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        return np.unpackbits(self.packed_masks[idx], axis=1, count=self.n_actions).astype(bool)

    def padded_targets(self, idx: npt.NDArray[np.intp], length: int) -> npt.NDArray[np.float32]:
        """(len(idx), length) soft targets, each row padded with zeros."""
        out = np.zeros((len(idx), length), dtype=np.float32)
        for row, i in enumerate(idx):
            t = self.targets[self.offsets[i]:self.offsets[i + 1]]
            out[row, :len(t)] = t
        return out

    @staticmethod
    def concatenate(parts: Sequence[Demonstrations]) -> Demonstrations:
        """The samples of ``parts`` in order."""
        shift = np.cumsum([0] + [len(p.targets) for p in parts[:-1]])
        return Demonstrations(
            observations={k: np.concatenate([p.observations[k] for p in parts]) for k in parts[0].observations},
            packed_masks=np.concatenate([p.packed_masks for p in parts]),
            actions=np.concatenate([p.actions for p in parts]),
            outcomes=np.concatenate([p.outcomes for p in parts]),
            n_actions=parts[0].n_actions,
            targets=np.concatenate([p.targets for p in parts]),
            offsets=np.concatenate([[0]] + [p.offsets[1:] + k for p, k in zip(parts, shift, strict=True)]),
        )


def collect(
    env_kwargs: dict[str, Any],
    decisions: int,
    seed: int,
    make_agent: Callable[[str, int], Any],
    teacher: str = "greedy",
    partners: Sequence[str] = ("random", "greedy"),
    teacher_share: float = 0.5,
    progress: Callable[[int], None] | None = None,
    temperature: float = 1.0,
) -> Demonstrations:
    """At least ``decisions`` teacher decisions from seeded games (module docstring,
    :func:`labelled_games`).

    ``make_agent(spec, seed)`` builds engine-level agents (``choose_action(game)``).
    """
    obs_parts: dict[str, list[npt.NDArray[Any]]] = {}
    masks: list[npt.NDArray[np.uint8]] = []
    actions: list[int] = []
    outcomes: list[float] = []
    targets: list[npt.NDArray[np.float32]] = []
    n_actions = raw_env(**env_kwargs).codec.n
    games = labelled_games(env_kwargs, seed, make_agent, teacher, partners, teacher_share, temperature)
    while len(actions) < decisions:
        _, samples, final = next(games)
        for d in samples:
            for key, value in d.observation.items():
                obs_parts.setdefault(key, []).append(value)
            masks.append(np.packbits(d.mask))
            actions.append(d.action)
            targets.append(d.target)
            outcomes.append(final[d.seat])
        if progress is not None:
            progress(len(samples))
    return Demonstrations(
        observations={k: np.stack(v) for k, v in obs_parts.items()},
        packed_masks=np.stack(masks),
        actions=np.asarray(actions, dtype=np.int64),
        outcomes=np.asarray(outcomes, dtype=np.float32),
        n_actions=n_actions,
        targets=np.concatenate(targets) if targets else np.zeros(0, dtype=np.float32),
        offsets=np.concatenate([[0], np.cumsum([len(t) for t in targets])]).astype(np.int64),
    )


def collect_parallel(
    env_kwargs: dict[str, Any],
    decisions: int,
    seed: int,
    workers: int,
    teacher: str = "greedy",
    partners: Sequence[str] = ("random", "greedy"),
) -> Demonstrations:
    """:func:`collect` split over ``workers`` spawned processes (agents built by spec), each with its
    own seed derived from ``seed``; the parts are concatenated in worker order (deterministic)."""
    if workers <= 1:
        return collect(env_kwargs, decisions, seed, _spec_agent, teacher, partners)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    seeds = np.random.SeedSequence(seed).spawn(workers)
    share = -(-decisions // workers)
    from training.arena.tournament import single_threaded

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=single_threaded) as pool:
        parts = list(pool.map(
            collect, [env_kwargs] * workers, [share] * workers,
            [int(s.generate_state(1)[0]) for s in seeds], [_spec_agent] * workers,
            [teacher] * workers, [tuple(partners)] * workers,
        ))
    return Demonstrations.concatenate(parts)


def _spec_agent(spec: str, seed: int) -> Any:
    from agents.spec import make_agent

    return make_agent(spec, seed=seed)


def clone_behaviour(
    policy: Any,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    value_weight: float = 0.5,
) -> list[dict[str, float]]:
    """Train ``policy`` (a MaskableActorCriticPolicy) on ``demos``; per-epoch mean losses and accuracy."""
    with optional_imports("carcassonne train ppo", "train"):
        import torch

    rng = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    history = []
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = rng.permutation(len(demos))
        totals = {"bc_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        batches = 0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            device = policy.device
            obs = {k: torch.as_tensor(v[idx], device=device).float() for k, v in demos.observations.items()}
            masks = demos.masks(idx)
            actions = torch.as_tensor(demos.actions[idx], device=device)
            dist = policy.get_distribution(obs, action_masks=masks)
            legal = getattr(dist, "legal", None)
            if legal is not None:  # the board network's legal-only distribution: soft targets
                target = torch.as_tensor(demos.padded_targets(idx, legal.actions.shape[1]), device=device)
                bc_loss = -(target * dist.log_p.masked_fill(~legal.valid, 0.0)).sum(1).mean()
            else:
                bc_loss = -dist.log_prob(actions).mean()
            values = policy.predict_values(obs).flatten()
            value_loss = torch.nn.functional.mse_loss(values, torch.as_tensor(demos.outcomes[idx], device=device))
            loss = bc_loss + value_weight * value_loss
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimiser.step()
            with torch.no_grad():
                predicted = dist.mode()
            totals["bc_loss"] += float(bc_loss.detach())
            totals["value_loss"] += float(value_loss.detach())
            totals["accuracy"] += float((predicted == actions).float().mean())
            batches += 1
        history.append({k: v / max(1, batches) for k, v in totals.items()})
    policy.set_training_mode(False)
    return history
