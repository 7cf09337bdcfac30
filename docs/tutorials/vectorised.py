"""Vectorised envs: Gymnasium's and Stable-Baselines3's, the action masks through them, and their throughput.

    python docs/tutorials/vectorised.py                               # 4 envs, 4,000 random steps, 16,384 trained
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/vectorised.py  # 2 envs, 300 random steps, 256 trained

Needs the ``train`` extra (Stable-Baselines3, sb3-contrib). Every env is the single-agent view (the
learner in one seat, uniformly random play in the other). What it shows:

1. Gymnasium's ``SyncVectorEnv`` (every env in this process) and ``AsyncVectorEnv`` (one process per env):
   the masks of all envs are ``np.stack(envs.call("action_masks"))``, one row per env. The envs reset a
   finished game in the same step (``AutoresetMode.SAME_STEP``), so the observation and mask of every
   row are always those of a decision to take.
2. Stable-Baselines3's ``DummyVecEnv`` and ``SubprocVecEnv``: sb3-contrib's ``get_action_masks(vec_env)``
   gives the same stacked masks, and ``MaskablePPO`` reads them itself during its rollouts.
3. Throughput: random legal actions through each vector env (env steps a second, the learner's decisions
   with the opponent's in between), then MaskablePPO training on ``SubprocVecEnv``; each line says its
   setup (envs, processes, the engine's compiled core or Python source, the machine's load).
"""

from __future__ import annotations

import os
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

import carcassonne_env  # noqa: F401  (registers the Gymnasium id)
from agents.nets.policy import CarcassonnePolicy
from carcassonne_env.engine.compiled_core import COMPILED
from training.common.threads import torch_threads
from training.sb3.ppo import ppo_kwargs

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"
#: Envs in every vector env.
ENVS = 2 if SHORT else 4
#: Vector steps of random play per vector env (each is ENVS env steps; a game is about 110 of them).
STEPS = 150 if SHORT else 1_000
#: Env steps of MaskablePPO training (all envs together).
TRAIN_STEPS = 256 if SHORT else 16_384
ENV_ID = "carcassonne_env/Carcassonne-v1"


def make_env() -> gymnasium.Env[Any, Any]:
    """One single-agent view: the 2-player tower variant, the learner's seat drawn every game."""
    return gymnasium.make(ENV_ID, seat=None)


def setup(envs: int, processes: int) -> str:
    engine = "compiled core" if COMPILED else "Python source"
    return (f"{envs} envs in {processes} process{'es' if processes > 1 else ''}, engine: {engine}, "
            f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")


# --8<-- [start:gymnasium]
def gymnasium_throughput(vector: type[SyncVectorEnv] | type[AsyncVectorEnv], rng: np.random.Generator) -> float:
    """Env steps a second of random legal actions through ``vector`` (SyncVectorEnv or AsyncVectorEnv)."""
    envs = vector([make_env] * ENVS, autoreset_mode=AutoresetMode.SAME_STEP)
    envs.reset(seed=0)
    start = time.perf_counter()
    for _ in range(STEPS):
        masks = np.stack(envs.call("action_masks"))  # (ENVS, N) bool: one row per env
        actions = [rng.choice(np.flatnonzero(row)) for row in masks]
        envs.step(np.array(actions))
    seconds = time.perf_counter() - start
    envs.close()
    return ENVS * STEPS / seconds
# --8<-- [end:gymnasium]


# --8<-- [start:sb3]
def sb3_throughput(vec_env: VecEnv, rng: np.random.Generator) -> float:
    """Env steps a second of random legal actions through an SB3 vector env (it resets finished games
    itself, the last observation of each game in its info)."""
    vec_env.seed(0)
    vec_env.reset()
    start = time.perf_counter()
    for _ in range(STEPS):
        masks = get_action_masks(vec_env)  # np.stack(vec_env.env_method("action_masks")): (ENVS, N)
        vec_env.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
    return ENVS * STEPS / (time.perf_counter() - start)
# --8<-- [end:sb3]


def main() -> None:
    torch.set_num_threads(torch_threads(0))
    rng = np.random.default_rng(0)
    for name, vector in (("gymnasium SyncVectorEnv", SyncVectorEnv), ("gymnasium AsyncVectorEnv", AsyncVectorEnv)):
        rate = gymnasium_throughput(vector, rng)
        processes = 1 if vector is SyncVectorEnv else ENVS + 1
        print(f"{name}: {rate:.0f} env steps/s of random legal actions ({setup(ENVS, processes)})", flush=True)

    for name, make_vec in (("SB3 DummyVecEnv", DummyVecEnv), ("SB3 SubprocVecEnv", SubprocVecEnv)):
        vec_env = make_vec([make_env] * ENVS)
        rate = sb3_throughput(vec_env, rng)
        vec_env.close()
        processes = 1 if make_vec is DummyVecEnv else ENVS + 1
        print(f"{name}: {rate:.0f} env steps/s of random legal actions ({setup(ENVS, processes)})", flush=True)

    # --8<-- [start:train]
    vec_env = SubprocVecEnv([make_env] * ENVS)
    n_steps = TRAIN_STEPS // ENVS  # the rollout: n_steps per env, ENVS × n_steps in all
    model = MaskablePPO(CarcassonnePolicy, vec_env, n_steps=n_steps, batch_size=min(256, TRAIN_STEPS), seed=0,
                        **ppo_kwargs())
    start = time.perf_counter()
    model.learn(TRAIN_STEPS)  # masks: get_action_masks(vec_env) at every rollout step
    seconds = time.perf_counter() - start
    vec_env.close()
    print(f"MaskablePPO on SB3 SubprocVecEnv: {model.num_timesteps} env steps in {seconds:.1f} s, "
          f"{model.num_timesteps / seconds:.0f} env steps/s with its updates ({setup(ENVS, ENVS + 1)}, "
          f"torch threads: {torch.get_num_threads()})")
    # --8<-- [end:train]


if __name__ == "__main__":
    main()
