"""The RLlib trainer's EnvRunner connectors: each of RLlib's two per-step pipelines as one piece
(RLlib's ``ConnectorV2``; imports Ray).

An EnvRunner runs two connector pipelines around every forward pass: env → module (the acting
agents' last observations into one batch of tensors) and module → env (the module's outputs back
into one action per acting agent, and the rest recorded in the episodes). RLlib's default pipelines
are general: six and seven pieces that walk nested structures, key every item by (episode, agent,
module), and time each piece into the EnvRunner's metrics, about 0.9 ms an env step on this
machine, a fifth of an EnvRunner's time here (docs/experiments/2026-11-rllib-throughput.md). This env
is one module that every seat shares, flat observations of fixed shape and one acting agent per env
at a time (a turn-based game), so the same work is a loop:

* :class:`ActingObservations` (env → module): for each episode not done, each agent that got an
  observation at the last step and is to act (RLlib's two pieces: ``AddObservationsFromEpisodesToBatch``
  takes ``get_agents_that_stepped``, ``AgentToModuleMapping`` keeps those in ``get_agents_to_act``),
  in the episodes' order; its last observation; leaves stacked with numpy and made CPU tensors (the
  trainer's EnvRunners have no GPU; the observations are already the module's dtypes). Who acts is
  kept in ``shared_data`` for the way back.
* :class:`ActionsToEnvs` (module → env): the module's outputs as numpy, one row per acting agent,
  as ``{column: [{agent: row} per env]}``, the form the EnvRunner steps its envs with and records
  in the episodes. With ``record_logits`` False (no KL penalty) the N = 16,352 logits a step
  (``action_dist_inputs``, 65 KB of the 229 KB a step records) become one float32 zero: PPO without
  its KL term never reads them, though it still builds its "previous" distribution from the column.

Both give exactly what RLlib's default pipelines give for this env (same items, dtypes and order;
``tests/test_rllib.py`` compares sampled episodes of the two, seeded alike). The module draws the
actions itself (:class:`~agents.nets.rllib_module.CarcassonneRLModule`), so there is no
``GetActions`` step, and a discrete action needs no unsquashing or clipping.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns

__all__ = ["ACTING", "ActingObservations", "ActionsToEnvs"]

#: The ``shared_data`` key under which :class:`ActingObservations` leaves who acts: a list of
#: (env index, episode id, agent id), one per row of the module's batch.
ACTING = "carcassonne_acting"


def _one_module_space(space: Any, module_id: str) -> Any:
    """The agents' space (a Dict by agent id, one space shared by all) as the module's: a Dict by
    module id, as RLlib's ``AgentToModuleMapping`` maps it, so that RLlib builds the module with it."""
    if not isinstance(space, gym.spaces.Dict) or module_id in space.spaces:
        return space
    first, *others = space.spaces.values()
    if any(other != first for other in others):
        raise ValueError(f"one module {module_id!r} for agents of different spaces: {list(space.spaces)}")
    return gym.spaces.Dict({module_id: first})


def _stack(items: list[Any]) -> Any:
    """Items of one structure (dicts of arrays) as one structure of tensors, items stacked on axis 0."""
    first = items[0]
    if isinstance(first, dict):
        return {key: _stack([item[key] for item in items]) for key in first}
    return th.from_numpy(np.stack(items))


class ActingObservations(ConnectorV2):
    """Env → module for one shared module (module docstring): ``{module_id: {obs: batch}}``, or ``{}``
    when no agent is to act (every env just finished)."""

    def __init__(self, module_id: str, **kwargs: Any) -> None:
        self.module_id = module_id
        super().__init__(**kwargs)

    def recompute_output_observation_space(self, input_observation_space: Any, input_action_space: Any) -> Any:
        return _one_module_space(input_observation_space, self.module_id)

    def recompute_output_action_space(self, input_observation_space: Any, input_action_space: Any) -> Any:
        return _one_module_space(input_action_space, self.module_id)

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: Any, explore: Any = None,
                 shared_data: Any = None, metrics: Any = None, **kwargs: Any) -> Any:
        acting: list[tuple[int, str, Any]] = []
        observations: list[Any] = []
        for index, episode in enumerate(episodes):
            if episode.is_done:
                continue
            to_act = set(episode.get_agents_to_act())
            for agent_id in episode.get_agents_that_stepped():
                if agent_id in to_act:
                    acting.append((index, episode.id_, agent_id))
                    observations.append(episode.agent_episodes[agent_id].get_observations(-1))
        if shared_data is not None:
            shared_data[ACTING] = acting
        if not observations:
            return {}
        return {self.module_id: {Columns.OBS: _stack(observations)}}


class ActionsToEnvs(ConnectorV2):
    """Module → env for one shared module (module docstring); ``record_logits`` False keeps one zero
    for each step's N logits."""

    def __init__(self, module_id: str, record_logits: bool, **kwargs: Any) -> None:
        self.module_id = module_id
        self.record_logits = record_logits
        super().__init__(**kwargs)

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: Any, explore: Any = None,
                 shared_data: Any = None, metrics: Any = None, **kwargs: Any) -> Any:
        outputs = batch[self.module_id]
        if Columns.ACTIONS not in outputs:
            raise ValueError(f"ActionsToEnvs: the module gave no {Columns.ACTIONS!r} (it draws its own actions)")
        acting = shared_data[ACTING]
        for index, episode_id, _ in acting:
            if episodes[index].id_ != episode_id:
                raise RuntimeError(f"ActionsToEnvs: env {index} holds episode {episodes[index].id_}, "
                                   f"not {episode_id} that the observations came from")
        to_env: dict[str, list[dict[Any, Any]]] = {}
        for column, value in outputs.items():
            rows = value.detach().cpu().numpy() if isinstance(value, th.Tensor) else np.asarray(value)
            if column == Columns.ACTION_DIST_INPUTS and not self.record_logits:
                rows = np.zeros((len(rows), 1), dtype=np.float32)
            per_env: list[dict[Any, Any]] = [{} for _ in episodes]
            for row, (index, _, agent_id) in enumerate(acting):
                per_env[index][agent_id] = rows[row]
            to_env[column] = per_env
        return to_env
