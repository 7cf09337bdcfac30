"""Where an RLlib training iteration's time goes: whole iterations under ``cProfile``, by stage.

    python -m training.rllib.profile --iterations 2 --env-runners 0 --out runs/rllib-profile

Takes the flags of ``carcassonne train rllib`` (:class:`~training.rllib.selfplay.Settings`; evaluation,
checkpoints and ``--out`` are not used). With ``--env-runners 0`` the driver samples too, so every
stage of an iteration runs in the profiled process; with runners, sampling shows as the driver's wait.
Prints, per stage, the seconds spent in it over the iterations (cumulative time of the function
that is the stage, :data:`STAGES`: RLlib's, or this project's connectors; indented stages are parts
of the one above) and its share of the
iterations' time. The profiler's own overhead inflates stages with many small calls.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Sequence
from dataclasses import replace

from agents.extras import optional_imports
from training.rllib.selfplay import Settings, build_config, object_store_bytes

__all__ = ["STAGES", "main", "stage_seconds"]

#: Stage → (a fragment of its function's file path, the function's name): RLlib's functions, so that
#: the same stages are measured whatever the module does, and this project's two connectors (their
#: ``__call__``, summed; neither calls the other).
STAGES: dict[str, tuple[str, str]] = {
    "iteration (Algorithm.step)": ("rllib/algorithms/algorithm.py", "step"),
    "sampling (synchronous_parallel_sample)": ("rllib/execution/rollout_ops.py", "synchronous_parallel_sample"),
    "  the module's forward (forward_exploration)": ("core/rl_module/rl_module.py", "forward_exploration"),
    "  the connectors: observations in, actions drawn and out": ("training/rllib/connectors.py", "__call__"),
    "  the envs' steps (EnvRunner._try_env_step)": ("rllib/env/env_runner.py", "_try_env_step"),
    "learner connector: episodes → train batch (incl. GAE)": ("rllib/core/learner/learner.py",
                                                             "_make_batch_if_necessary"),
    "  the value pass for GAE": ("connectors/learner/general_advantage_estimation.py", "__call__"),
    "minibatch updates (Learner._update)": ("rllib/core/learner/torch/torch_learner.py", "_uncompiled_update"),
    "  forward (forward_train)": ("core/rl_module/rl_module.py", "forward_train"),
    "  loss (PPO: log-probs, entropy, KL)": ("algorithms/ppo/torch/ppo_torch_learner.py", "compute_loss_for_module"),
    "  backward (compute_gradients)": ("rllib/core/learner/torch/torch_learner.py", "compute_gradients"),
}


def stage_seconds(stats: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of each stage of :data:`STAGES` in ``stats`` (0 for a stage never called)."""
    table = stats.stats  # type: ignore[attr-defined]  # pstats keeps its table untyped
    seconds = dict.fromkeys(STAGES, 0.0)
    for (path, _, name), (_, _, _, cumulative, _) in table.items():
        for stage, (fragment, function) in STAGES.items():
            if name == function and fragment in path:
                seconds[stage] += cumulative
    return seconds


def main(argv: Sequence[str] | None = None) -> None:
    import sys

    with optional_imports("python -m training.rllib.profile", "ray"):
        import tyro

        from training.arena.ray_support import ray_session
        from training.cli.dialect import comma_lists, list_flags, refuse_old_spellings

    prog = "python -m training.rllib.profile"
    refuse_old_spellings(sys.argv[1:] if argv is None else argv, prog, lists=list_flags(Settings))
    s = tyro.cli(Settings, args=argv, prog=prog, registry=comma_lists(),
                 description="Profile RLlib training iterations by stage (module docstring).")
    s = replace(s, eval_every=0)
    s.check()
    with ray_session(s.address, s.num_cpus, object_store_bytes(s), prog):
        algo = build_config(s).build_algo()
        try:
            profiler = cProfile.Profile()
            start = time.perf_counter()
            profiler.enable()
            steps = sum(int(algo.train().get("env_runners", {}).get("num_env_steps_sampled", 0))
                        for _ in range(s.iterations))
            profiler.disable()
            wall = time.perf_counter() - start
        finally:
            algo.stop()
    seconds = stage_seconds(pstats.Stats(profiler))
    total = seconds["iteration (Algorithm.step)"] or wall
    print(f"{s.iterations} iteration(s), {steps} env steps, {wall:.1f} s wall ({steps / wall:.1f} env steps/s "
          f"under the profiler); train batch {s.train_batch}, minibatch {s.minibatch}, {s.epochs} epochs, "
          f"{s.env_runners} env runner(s)")
    for stage, value in seconds.items():
        print(f"{stage:58s} {value:8.2f} s  {value / total:6.1%}")


if __name__ == "__main__":
    main()
