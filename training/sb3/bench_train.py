"""Throughput of MaskablePPO training with the default network: ``python -m training.sb3.bench_train``.

Trains :class:`~agents.nets.policy.CarcassonnePolicy` on the 2-player tower variant (tower,
black_tower, watchtowers) against random opponents with the benchmark settings (2 envs in a
``DummyVecEnv``, 512 steps each, batch 256, 4 epochs) and prints, per PPO iteration, the env steps
per second and where the time went: the env (stepping the learner's action and the opponents),
inference (the rest of the rollout: observation → tensor, the policy's forward pass, the rollout
buffer) and training (the gradient epochs). Its first line names the game (``game: ...``,
:func:`~carcassonne_env.engine.describe_game`); it ends with the median steps/s over the iterations.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecEnvWrapper

from agents.nets.policy import CarcassonnePolicy
from carcassonne_env import argtypes
from carcassonne_env.engine import GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment import SingleAgentEnv
from training.cli.dialect import refuse_old_spellings
from training.common.threads import free_cores

from .ppo import ppo_kwargs

EXPANSIONS = TOWER_VARIANT


class TimedVecEnv(VecEnvWrapper):
    """Adds up the seconds spent stepping the wrapped envs."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.seconds = 0.0

    def reset(self) -> Any:
        return self.venv.reset()

    def step_wait(self) -> Any:
        start = time.perf_counter()
        out = self.venv.step_wait()
        self.seconds += time.perf_counter() - start
        return out


class IterationTimer(BaseCallback):
    """Prints env / inference / training seconds and env steps/s of every PPO iteration."""

    def __init__(self, env: TimedVecEnv, steps_per_iteration: int) -> None:
        super().__init__()
        self.env = env
        self.steps = steps_per_iteration
        self.rates: list[float] = []
        self.cpu_rates: list[float] = []
        self._start = self._rollout_end = 0.0
        self._env_at_start = self._cpu_at_start = 0.0

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._rollout_end:
            self._report(now)
        self._start = now
        self._env_at_start = self.env.seconds
        self._cpu_at_start = time.process_time()

    def _on_rollout_end(self) -> None:
        self._rollout_end = time.perf_counter()

    def _on_training_end(self) -> None:
        self._report(time.perf_counter())

    def _on_step(self) -> bool:
        return True

    def _report(self, now: float) -> None:
        total = now - self._start
        env = self.env.seconds - self._env_at_start
        rollout = self._rollout_end - self._start
        rate = self.steps / total
        self.rates.append(rate)
        self.cpu_rates.append(self.steps / (time.process_time() - self._cpu_at_start))
        print(
            f"iteration {len(self.rates):3d}: {rate:6.1f} env steps/s, {self.cpu_rates[-1]:6.1f} per CPU second  "
            f"(env {env:5.2f} s, inference {rollout - env:5.2f} s, training {now - self._rollout_end:5.2f} s)",
            flush=True,
        )


#: The flags, each a number N: (flag, argparse type, default, help).
_FLAGS: tuple[tuple[str, Callable[[str], int], int | None, str], ...] = (
    ("--iterations", argtypes.count, 5, "PPO iterations to time (default %(default)s)"),
    ("--threads", argtypes.count, None, "torch threads (default: the free cores)"),
    ("--n-envs", argtypes.count, 2, "envs in the DummyVecEnv, as carcassonne train ppo --n-envs (default %(default)s)"),
    ("--n-steps", argtypes.count, 512, "steps per env per iteration (default %(default)s)"),
    ("--batch-size", argtypes.count, 256, "PPO's minibatch size (default %(default)s)"),
    ("--n-epochs", argtypes.count, 4, "PPO's passes over each iteration's rollout (default %(default)s)"),
    ("--players", int, 2, "players per game, 2–6 (default %(default)s)"),
    ("--channels", argtypes.count, 16, "features per board cell of the network's trunk (default %(default)s)"),
    ("--blocks", argtypes.seed, 2, "residual 3×3 convolution blocks of the trunk (default %(default)s)"),
    ("--margin", argtypes.seed, 1,
     "cells of margin around the placed tiles in the network's crop (default %(default)s)"),
    ("--seed", argtypes.seed, 0, "seed of the model and envs (default %(default)s)"),
)


def main(argv: list[str] | None = None) -> float:
    prog = "python -m training.sb3.bench_train"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    for name, kind, default, text in _FLAGS:
        parser.add_argument(name, type=kind, default=default, metavar="N", help=text)
    renamed = {"--envs": "--n-envs", "--epochs": "--n-epochs"}  # as carcassonne train ppo names them
    refuse_old_spellings(sys.argv[1:] if argv is None else argv, prog, renamed)
    args = parser.parse_args(argv)
    if args.seed >= 2**32:
        parser.error(f"argument --seed: expected an integer below 2**32 (numpy's seeds), got {args.seed}")
    try:
        config = GameConfig(players=args.players, expansions=EXPANSIONS)
    except ValueError as e:  # ConfigError
        parser.error(f"argument --players: {e}")
    threads = args.threads if args.threads is not None else free_cores()
    th.set_num_threads(threads)

    env = TimedVecEnv(DummyVecEnv([lambda: SingleAgentEnv(players=args.players, expansions=EXPANSIONS)] * args.n_envs))
    model = MaskablePPO(
        CarcassonnePolicy,
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        seed=args.seed,
        **ppo_kwargs(channels=args.channels, blocks=args.blocks, margin=args.margin),
    )
    parameters = sum(p.numel() for p in model.policy.parameters())
    steps = args.n_steps * args.n_envs
    print(f"game: {describe_game(config)}; {parameters:,} parameters, {threads} torch thread(s), {steps} env steps "
          "per iteration", flush=True)
    timer = IterationTimer(env, steps)
    model.learn(args.iterations * steps, callback=timer)
    median = statistics.median(timer.rates)
    cpu = statistics.median(timer.cpu_rates)
    print(f"median: {median:.1f} env steps/s ({cpu:.1f} per CPU second) over {len(timer.rates)} iterations")
    return float(np.float64(median))


if __name__ == "__main__":
    main()
