"""Self-play training on Ray RLlib (new API stack) — one readable file, cleanrl-style.

    carcassonne train rllib                                            # a local Ray on this machine
    carcassonne train rllib --env-runners 2 --iterations 50
    carcassonne train rllib --address auto --env-runners 32            # on a cluster (ray start --head)

What happens:

1. **Ray**: a local Ray (``--num-cpus`` cores, all by default) or the cluster at ``--address``
   (:mod:`training.arena.ray_support`). Every node needs this project and the ``ray`` extra installed.
2. **PPO** on ``carcassonne_v1`` through RLlib's ``PettingZooEnv`` wrapper, with the observation
   keys RLlib's action masking expects (:mod:`agents.nets.rllib_module`): every seat plays the one
   shared policy (self-play), the network is the SB3 trainer's (:class:`~agents.nets.board_net.BoardNet`
   inside :class:`~agents.nets.rllib_module.CarcassonneRLModule`), always masked. ``env_runners``
   actors sample ``envs_per_runner`` envs each (0 runners: the driver samples); one learner, in the
   driver, updates. Reward: win/loss plus optional score shaping, as in the SB3 trainer. torch runs
   ``threads`` threads in the driver (0: the free cores, at most 2,
   :func:`~training.common.threads.torch_threads`) and ``runner_threads`` in each EnvRunner (default 1,
   its one CPU), set by the config's callbacks, so wherever RLlib builds or rebuilds them. The two
   are separate: sampling and learning take turns, so the learner may use every core while each
   EnvRunner keeps to its own (two EnvRunners of two threads on two cores sampled 5× slower).
3. **Evaluation** every ``eval_every`` iterations and at the end with the tournament runner: a gauntlet of the
   current checkpoint (agent spec ``rllib:CHECKPOINT``) against ``eval_opponents`` on
   ``eval_seeds`` paired seeds, on the process or the Ray back-end (``eval_backend``).
4. **Checkpoints** every ``checkpoint_every`` iterations and at the end: RLlib algorithm
   checkpoints ``OUT/checkpoints/iter_NNNN`` and ``OUT/final``, each one an agent spec
   (``rllib:OUT/final``). Progress: one line per iteration on stdout and in ``OUT/progress.jsonl``
   (env steps, env steps/s, mean episode return, losses, the Ray nodes the EnvRunners sample on),
   evaluations in ``OUT/evaluations.jsonl``.
5. **Resume**: ``OUT/state.json`` names the last checkpoint (relative to ``OUT``: a copied or
   moved run resumes where it is now) and its iteration; one run at a time holds ``OUT``'s lock. ``--resume``
   restores the algorithm from it (weights, optimizer, counters), drops the progress and
   evaluation lines of iterations after it (lost with the interruption), and trains on to
   ``--iterations`` — also past the end of a finished run. The run-defining settings
   (:data:`RUN_DEFINING`) come from ``OUT/settings.json``, and one given on the command line with
   another value is refused (:func:`training.common.run_folder.keep_saved`); resources may change.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents.extras import optional_imports
from training.arena.ray_support import RayError
from training.common.cli import Command, trainer_main
from training.common.evaluation import gauntlet
from training.common.ppo import PPOSettings
from training.common.progress import append_line, keep_until
from training.common.run_folder import keep_saved, read_state, reading, run_lock, write_json
from training.common.settings import SettingError, check_agents, check_out, check_rules, is_int, need

#: What needs the ray extra's Ray RLlib and torch (:func:`agents.extras.optional_imports`).
_NEEDED_BY = "carcassonne train rllib"

__all__ = ["ENV_NAME", "RUN_DEFINING", "Settings", "build_config", "object_store_bytes", "step_bytes", "train"]

#: The name the env is registered under in Ray's registry.
ENV_NAME = "carcassonne_v0_rllib"


@dataclass(frozen=True)
class Settings(PPOSettings):
    """Every setting of an RLlib self-play run (each one is a command-line flag)."""

    out: str = "runs/rllib"
    """Output directory: checkpoints, progress and evaluations."""
    address: str | None = None
    """Ray cluster to run on (auto, HOST:PORT of `ray start --head`, ray://HOST:10001); default a local Ray."""
    num_cpus: int | None = None
    """Cores of the local Ray (default: all); ignored with --address."""
    object_store_mb: int = 0
    # 0: room for three iterations' samples (3 × --train-batch × step_bytes), 200 MiB to 30 % of the memory
    """Object store of the local Ray in MiB (0: three iterations' samples, at least 200); not with --address."""
    env_runners: int = 1
    """Sampling actors (EnvRunners), one CPU each; 0 = sample in the driver."""
    envs_per_runner: int = 1
    """Envs each EnvRunner steps."""
    threads: int = 0
    """torch threads of the driver, where the learner updates (0 = the free cores, at most 2)."""
    runner_threads: int = 1
    """torch threads of each EnvRunner (1: its one CPU)."""
    iterations: int = 20
    """Training iterations (each samples --train-batch env steps, then updates)."""
    seed: int = 0
    """Seeds the model, the env runners' envs and the evaluation's agents."""
    window: int = 31
    """Board window W of the observations (docs/env.md)."""
    train_batch: int = 2048
    """Env steps per iteration (all seats' decisions count)."""
    minibatch: int = 256
    """PPO's minibatch: env steps per gradient step."""
    epochs: int = 4
    """PPO's passes over each iteration's batch."""
    kl_coeff: float = 0.2
    # 0: the EnvRunners then keep one number instead of the 16,352 logits a step they record for it
    """Weight of PPO's KL penalty (RLlib's default; 0 = none, as in SB3's MaskablePPO, and less to record)."""
    head_hidden: int = 64
    """Hidden units of the action and value heads."""
    eval_every: int = 5
    """Iterations between evaluations, and one at the end (0 = none)."""
    eval_seeds: int = 10
    """Tile orders per evaluation opponent; each is played in every seat rotation."""
    eval_opponents: tuple[str, ...] = ("random", "greedy:fast=1")
    """Agent specs every evaluation plays against."""
    eval_backend: Literal["process", "ray"] = "process"
    """Where evaluation games run: processes on the driver's machine, or Ray tasks (free cluster CPUs)."""
    eval_workers: int = 1
    """Processes (or Ray tasks) that play the evaluation games."""
    checkpoint_every: int = 5
    """Iterations between checkpoints (the final one is always written)."""
    resume: bool = False
    """Continue the run in --out from its last checkpoint (OUT/state.json) up to --iterations."""

    def check(self) -> None:
        """Raise :class:`~training.common.settings.SettingError` naming the flag of the first value no run can use."""
        from carcassonne_env.environment.options import MAX_WINDOW, MIN_WINDOW

        self.check_ppo()
        check_rules(self, positive_int=("envs_per_runner", "runner_threads", "iterations", "train_batch", "minibatch",
                                        "epochs", "head_hidden", "eval_seeds", "eval_workers"),
                    count=("env_runners", "threads", "blocks", "eval_every", "checkpoint_every"),
                    non_negative=("kl_coeff",))
        need(self.num_cpus is None or (is_int(self.num_cpus) and self.num_cpus >= 1), "num_cpus",
             "must be a positive integer", self.num_cpus)
        need(is_int(self.object_store_mb) and (self.object_store_mb == 0 or self.object_store_mb >= 100),
             "object_store_mb", "must be 0 (sized from --train-batch) or at least 100 (Ray's minimum is 75 MiB)",
             self.object_store_mb)
        need(self.minibatch <= self.train_batch, "minibatch", f"must be at most --train-batch ({self.train_batch})",
             self.minibatch)
        need(is_int(self.window) and MIN_WINDOW <= self.window <= MAX_WINDOW, "window",
             f"must be an integer in {MIN_WINDOW}..{MAX_WINDOW}", self.window)
        need(self.address is None or bool(self.address.strip()), "address", "must name a cluster", self.address)
        need(len(self.eval_opponents) >= 1 or not self.eval_every, "eval_opponents", "needs at least one agent spec",
             self.eval_opponents)
        config = self.check_game(self.seed)
        check_out(self.out)
        check_agents("eval_opponents", self.eval_opponents, config)

    def env_config(self) -> dict[str, Any]:
        return {**self.env_kwargs(), "window": self.window}

    def model_config(self) -> dict[str, Any]:
        return {"channels": self.channels, "blocks": self.blocks, "head_hidden": self.head_hidden}


def step_bytes(s: Settings) -> int:
    """Bytes an EnvRunner records per env step and sends to the driver: the observation's arrays (the
    action mask included) and the N float32 logits the module records (``action_dist_inputs``; one
    with ``kl_coeff`` 0). The episodes' own bookkeeping adds ~3 % (236 KB a step measured against
    229 KB computed, 2 players, window 31)."""
    from gymnasium import spaces

    import carcassonne_env

    env = carcassonne_env.env(**s.env_config())
    agent = env.possible_agents[0]
    total, left = 0, [env.observation_space(agent)]
    while left:
        space = left.pop()
        if isinstance(space, spaces.Dict):
            left.extend(space.spaces.values())
        else:
            total += math.prod(space.shape or ()) * np.dtype(space.dtype).itemsize
    action_space = env.action_space(agent)
    assert isinstance(action_space, spaces.Discrete)
    return total + 4 * (int(action_space.n) if s.kl_coeff else 1)


def object_store_bytes(s: Settings) -> int:
    """The local Ray's object store (:attr:`Settings.object_store_mb`). Every iteration's episodes go
    from the EnvRunners to the driver through it: 1,024 env steps are ~240 MB (:func:`step_bytes`), so
    the 200 MiB a tournament needs spilled them to disk, and the driver waited 5.5 s for samples its
    EnvRunner made in 2.8 s (3.2 s with a 1,000 MiB store; 2026-11-25). By default: room for three
    iterations' samples, at least :data:`~training.arena.ray_support.LOCAL_OBJECT_STORE_BYTES`, at
    most 30 % of the machine's memory (Ray's own default)."""
    from training.arena.ray_support import LOCAL_OBJECT_STORE_BYTES

    if s.object_store_mb:
        return s.object_store_mb * 1024**2
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(min(max(LOCAL_OBJECT_STORE_BYTES, 3 * s.train_batch * step_bytes(s)), 0.3 * memory))


def build_config(s: Settings) -> Any:
    """The RLlib ``PPOConfig`` of ``s`` (new API stack: RLModule, Learner, EnvRunners)."""
    with optional_imports(_NEEDED_BY, "ray"):
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.tune.registry import register_env

        from agents.nets.rllib_module import CarcassonneRLModule, make_env
        from agents.rllib import MODULE_ID
        from training.rllib.learner import TakeShufflePPOLearner

    register_env(ENV_NAME, make_env)
    return (
        PPOConfig()  # type: ignore[no-untyped-call]  # RLlib leaves it unannotated
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME, env_config=s.env_config(), disable_env_checking=True)  # its check plays unmasked
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=lambda agent_id, episode, **kwargs: MODULE_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            MODULE_ID: RLModuleSpec(module_class=CarcassonneRLModule, model_config=s.model_config()),
        }))
        .env_runners(num_env_runners=s.env_runners, num_envs_per_env_runner=s.envs_per_runner,
                     env_to_module_connector=_acting_observations,
                     module_to_env_connector=functools.partial(_actions_to_envs, s.kl_coeff > 0),
                     add_default_connectors_to_env_to_module_pipeline=False,
                     add_default_connectors_to_module_to_env_pipeline=False)
        .callbacks(on_algorithm_init=functools.partial(_driver_threads, s.threads),
                   on_environment_created=functools.partial(_runner_threads, s.runner_threads))
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=s.train_batch, minibatch_size=s.minibatch, num_epochs=s.epochs,
                  lr=s.learning_rate, gamma=s.gamma, lambda_=s.gae_lambda, entropy_coeff=s.ent_coef,
                  clip_param=s.clip_range, use_kl_loss=s.kl_coeff > 0, kl_coeff=s.kl_coeff,
                  learner_class=TakeShufflePPOLearner)
        .debugging(seed=s.seed)
    )


def _acting_observations(env: Any, spaces: Any = None, device: Any = None) -> Any:
    """The EnvRunners' env-to-module pipeline, one piece (:mod:`training.rllib.connectors`)."""
    with optional_imports(_NEEDED_BY, "ray"):
        from agents.rllib import MODULE_ID
        from training.rllib.connectors import ActingObservations

    return ActingObservations(MODULE_ID)


def _actions_to_envs(record_logits: bool, env: Any, spaces: Any = None, device: Any = None) -> Any:
    """The EnvRunners' module-to-env pipeline, one piece (:mod:`training.rllib.connectors`); the N
    logits a step are recorded only for PPO's KL penalty."""
    with optional_imports(_NEEDED_BY, "ray"):
        from agents.rllib import MODULE_ID
        from training.rllib.connectors import ActionsToEnvs

    return ActionsToEnvs(MODULE_ID, record_logits)


def _driver_threads(threads: int, **kwargs: Any) -> None:
    """``on_algorithm_init``, in the driver once the algorithm is built: torch's threads there, where
    the learner updates (and samples with no EnvRunners), :func:`~training.common.threads.torch_threads`."""
    with optional_imports(_NEEDED_BY, "ray"):
        import torch

        from training.common.threads import torch_threads

    torch.set_num_threads(torch_threads(threads))


def _runner_threads(threads: int, env_runner: Any, **kwargs: Any) -> None:
    """``on_environment_created``, in every EnvRunner once its envs are made: torch's threads in a
    remote EnvRunner's process (``worker_index`` ≥ 1); the driver's own EnvRunner (index 0) leaves
    the driver's threads alone."""
    if env_runner.worker_index:
        with optional_imports(_NEEDED_BY, "ray"):
            import torch

        torch.set_num_threads(threads)


#: Settings a resumed run takes from ``OUT/settings.json`` (the problem and the learner); the
#: others (resources, budget, evaluation, checkpoint cadence) may change between runs.
RUN_DEFINING = (
    "seed", "players", "expansions", "window", "shaping", "shaping_scores", "train_batch", "minibatch", "epochs",
    "learning_rate", "gamma", "gae_lambda", "ent_coef", "clip_range", "kl_coeff", "channels", "blocks", "head_hidden",
)
#: The value a run saved before a run-defining setting existed was trained with.
_BEFORE = {"kl_coeff": 0.2}


def train(s: Settings, given: Collection[str] = ()) -> Path:
    """Run (or resume) the self-play training described by ``s``; returns the final checkpoint's path.
    The run holds ``OUT``'s lock (:func:`~training.common.run_folder.run_lock`); a resume takes the
    run-defining settings from the run, refusing those of ``given`` (named on the command line) whose
    value differs. A refusal is a SettingError."""
    s.check()
    out = Path(s.out).resolve()
    state_path = out / "state.json"
    if s.resume and not state_path.exists():
        raise SettingError(f"--resume: no checkpoint in {out} (expected state.json)")
    with run_lock(out, state_path.exists):
        return _train(s, out, given)


def _saved_run(s: Settings, out: Path, given: Collection[str] = ()) -> tuple[Settings, int, Path]:
    """The run in ``out`` to resume: ``s`` with its run-defining settings (``settings.json``), the
    iterations it has trained and its last checkpoint (``state.json``; a path relative to ``out``, so
    a copied or moved run resumes where it is now). A SettingError names a damaged file."""
    state = read_state(out / "state.json", {"iteration": 0, "checkpoint": ""})
    s = keep_saved(s, read_state(out / "settings.json", {}), RUN_DEFINING, given, _BEFORE)
    checkpoint = out / state["checkpoint"]
    if not checkpoint.is_dir():
        raise SettingError(f"--resume: {out / 'state.json'} names the checkpoint {checkpoint}, which is missing")
    return s, int(state["iteration"]), checkpoint


def _train(s: Settings, out: Path, given: Collection[str]) -> Path:
    from training.arena.ray_support import ray_session

    state_path = out / "state.json"
    done, checkpoint = 0, None
    if s.resume:
        s, done, checkpoint = _saved_run(s, out, given)
        if done >= s.iterations:
            raise SettingError(f"--resume: {out} has trained {done} iterations already; ask for more with "
                               "--iterations")
    elif state_path.exists():
        raise SettingError(f"{out} already holds a run: pass --resume to continue it or choose another --out")
    for log in ("progress.jsonl", "evaluations.jsonl"):
        keep_until(out / log, done)  # lines of iterations after the checkpoint (or of a run never checkpointed)
    write_json(out / "settings.json", asdict(s))
    print(s.game_line(), flush=True)
    with ray_session(s.address, s.num_cpus, object_store_bytes(s), _NEEDED_BY):
        algo = build_config(s).build_algo()
        try:
            if checkpoint is not None:
                with reading(checkpoint, "name an earlier one of checkpoints/ in state.json, or start a new run"):
                    algo.restore_from_path(str(checkpoint))
            for iteration in range(done + 1, s.iterations + 1):
                start = time.perf_counter()
                result = algo.train()
                row = _progress(iteration, result, time.perf_counter() - start)
                row["sampling_nodes"] = _sampling_nodes(algo)
                append_line(out / "progress.jsonl", row)
                print(" ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {len(set(v))}" if isinstance(v, list)
                               else f"{k} {v}" for k, v in row.items()), flush=True)
                last = iteration == s.iterations
                evaluate = s.eval_every > 0 and (last or iteration % s.eval_every == 0)
                if last or evaluate or (s.checkpoint_every and iteration % s.checkpoint_every == 0):
                    saved = Path(algo.save_to_path(out / "final" if last else
                                                   out / "checkpoints" / f"iter_{iteration:04d}"))
                    write_json(state_path, {"iteration": iteration, "checkpoint": str(saved.relative_to(out))})
                    if evaluate:
                        _evaluate(s, saved, iteration, out)
        finally:
            algo.stop()
    return out / "final"


def _progress(iteration: int, result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One line of progress from an RLlib result dict."""
    from agents.rllib import MODULE_ID

    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MODULE_ID, {})
    steps = runners.get("num_env_steps_sampled", 0)
    return {
        "iteration": iteration,
        "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        "env_steps_per_s": float(steps / seconds) if seconds > 0 else 0.0,
        "seconds": float(seconds),
        "sample_seconds": float(result.get("timers", {}).get("env_runner_sampling_timer", float("nan"))),
        "episode_return_mean": float(runners.get("episode_return_mean", float("nan"))),
        "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
        "policy_loss": float(learner.get("policy_loss", float("nan"))),
        "vf_loss": float(learner.get("vf_loss", float("nan"))),
        "entropy": float(learner.get("entropy", float("nan"))),
    }


def _sampling_nodes(algo: Any) -> list[str]:
    """The Ray node id of each sampling EnvRunner, sorted (the driver's node when it samples itself):
    where the run's sampling lands on a cluster, after RLlib restarted any lost runner."""
    with optional_imports(_NEEDED_BY, "ray"):
        import ray

    def node(runner: Any) -> str:
        return str(ray.get_runtime_context().get_node_id())

    group = algo.env_runner_group
    return sorted(group.foreach_env_runner(node, local_env_runner=group.num_remote_env_runners() == 0))


def _evaluate(s: Settings, checkpoint: Path, iteration: int, out: Path) -> None:
    """A gauntlet of ``rllib:checkpoint`` against the evaluation opponents (tournament runner)."""
    spec = f"rllib:{checkpoint}"
    stats, _ = gauntlet(spec, s.eval_opponents, s.eval_seeds, 10**6, s.game_config(),
                        out / "evaluations" / f"iter_{iteration:04d}", s.eval_workers, progress=False,
                        backend=s.eval_backend)
    row: dict[str, Any] = {"iteration": iteration, "checkpoint": str(checkpoint)}
    for opponent, st in stats.items():
        row[opponent] = {"wins": st.wins, "draws": st.draws, "losses": st.losses, "win_rate": st.win_rate,
                         "win_ci": st.win_ci, "margin": st.margin, "margin_se": st.margin_se}
        print(f"eval iteration {iteration} vs {opponent}: {st.wins}-{st.draws}-{st.losses}, win "
              f"{st.win_rate:.1%} [{st.win_ci[0]:.1%}, {st.win_ci[1]:.1%}], margin {st.margin:+.1f} ± "
              f"{st.margin_se:.1f}", flush=True)
    append_line(out / "evaluations.jsonl", row)


COMMAND = Command(Settings, "Self-play PPO training of the board network on Ray RLlib, on this machine or a Ray "
                  "cluster (--address): the rllib: agents (module training/rllib/selfplay.py, docs/training.md; the "
                  "ray extra). Output: runs/rllib unless --out says otherwise; --resume continues a run there. A list "
                  "is one comma-separated argument, a boolean --x / --no-x.")


main = trainer_main(COMMAND, "rllib", train, lambda final, seconds: f"done in {seconds:.0f} s; agent spec "
                    f"rllib:{final}", refusals=(SettingError, RayError))


if __name__ == "__main__":
    raise SystemExit(main())
