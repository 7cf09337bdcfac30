"""Self-play training with MaskablePPO on carcassonne_v1 — one readable file, cleanrl-style.

    carcassonne train ppo quick                                 # ≤ 5 minutes on 2 cores, into runs/ppo/quick
    carcassonne train ppo full                                  # hours (the pretrained agent), runs/ppo/full
    carcassonne train ppo quick --total-steps 50000             # any setting can be overridden
    carcassonne train ppo quick --eval-opponents random,greedy  # a list is one comma-separated argument
    carcassonne train ppo full --resume

What happens, in order:

1. **Warm start by imitation** (``imitation_decisions`` > 0): the greedy agent's decisions are
   cloned into the policy and its outcomes into the value head (:mod:`training.sb3.imitation`). PPO from
   scratch learns to beat random but not greedy; this starts it from greedy-like play.
   Or a **prior** (``prior``, the ``full`` preset): the policy adds an agent's action values to its
   logits and PPO learns the correction (a residual policy, :mod:`agents.nets.prior`); no warm start.
2. **PPO** (sb3-contrib MaskablePPO, always masked) over the single-agent view
   (:class:`~carcassonne_env.environment.SingleAgentEnv`) with the learner's seat drawn every
   episode, ``n_envs`` envs, the board network of :mod:`agents.nets.policy`. The other seats are
   drawn from the opponent pool (:mod:`training.sb3.pool`: random, greedy, frozen snapshots) for every
   env at the start of every rollout. Reward: win/loss, plus optional score-difference shaping.
3. **Evaluation** every ``eval_every`` steps with the tournament runner: a gauntlet of the current
   snapshot against random, greedy and the pool's best on ``eval_seeds`` paired seeds (every seat
   on the same tiles), logged to TensorBoard (``eval/…``) next to SB3's training curves and to
   ``evaluations.csv``. A snapshot that scores ≥ 0.5 + ``promotion_margin`` against the best is
   promoted into the pool.
4. **Checkpoints** every ``checkpoint_every`` steps (``checkpoint.zip`` + ``state.json``);
   ``--resume`` continues from them with the same step count, pool and evaluation history.
   Invariants: a checkpoint is written to temporary files and moved into place, the previous one
   kept as ``checkpoint.prev.zip`` + ``state.prev.json``; ``state.json`` holds the SHA-256 of its
   zip, and a resume takes the newest (zip, state) pair whose hash matches, so a kill at any moment
   leaves a resumable run. A resume refuses a run-defining setting given on its command line with
   another value than the run's (``--players``, ``--seed``, ``--learning-rate`` ...). One run at a
   time per ``--out`` (a lock, :class:`training.common.storage.RunLock`). A copied or moved run
   resumes where it is now: the pool's snapshots are named there (:mod:`training.common.relocate`).
   The final model is ``final.zip`` (agent spec ``ppo:OUT/final.zip``) and ``learning_curve.png``
   plots the evaluations.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.extras import optional_imports
from agents.nets.prior import ActionPrior, PriorObservation
from agents.spec import AgentSpecError, Origin, check_spec, make_agent
from carcassonne_env.engine import describe_game
from carcassonne_env.environment.options import DEFAULT_WINDOW
from training.common.checkpoints import CHECKPOINT, find_checkpoint, save_checkpoint, save_model
from training.common.cli import Command, trainer_main
from training.common.curves import write_csv
from training.common.evaluation import gauntlet
from training.common.ppo import PPOSettings
from training.common.relocate import relocate_run
from training.common.run_folder import check_state, keep_saved, run_lock
from training.common.settings import SettingError, check_agents, check_device, check_out, check_rules, finite, need
from training.common.storage import atomic_path, atomic_write_text, dumps
from training.common.threads import torch_threads
from training.sb3.pool import OpponentPool

__all__ = ["PRESETS", "Settings", "train"]

#: What needs the train extra's torch and Stable-Baselines3 (:func:`agents.extras.optional_imports`).
_NEEDED_BY = "carcassonne train ppo"


@dataclass(frozen=True)
class Settings(PPOSettings):
    """Every setting of a self-play run (each one is a command-line flag)."""

    out: str = "runs/ppo"
    """Output directory: checkpoints, snapshots, TensorBoard logs, evaluations, plots (runs/ppo/PRESET)."""
    seed: int = 0
    """Seeds the model, the envs, the opponent draws and the demonstrations."""
    total_steps: int = 20_000
    """Learner decisions (env steps) of PPO in total, counting all envs; resume continues to it."""
    n_envs: int = 2
    """Parallel envs."""
    subprocess_envs: bool = False
    """Run the envs in worker processes (SubprocVecEnv): worth it from ~4 free cores."""
    n_steps: int = 512
    """Steps per env per rollout."""
    batch_size: int = 256
    """PPO's minibatch: decisions per gradient step."""
    n_epochs: int = 4
    """PPO's passes over each rollout."""
    imitation_decisions: int = 2_000
    """Teacher decisions cloned before PPO (0 = no warm start)."""
    imitation_teacher: str = "greedy"
    """Agent spec of the teacher; greedy:value=linear (greedy on the learned value) beats greedy."""
    imitation_epochs: int = 3
    """Passes over the demonstrations."""
    imitation_learning_rate: float = 1e-3
    """Adam's learning rate of the warm start."""
    imitation_workers: int = 1
    """Processes that play the teacher's demonstrations."""
    prior: str = ""
    """Agent spec whose action values (points) the policy adds to its logits, × a learned β; replaces imitation."""
    prior_temperature: float = 1.0
    """The prior's initial temperature in points (β starts at 1 / temperature and is learned)."""
    fixed_opponents: tuple[str, ...] = ("random", "greedy:fast=1")
    """Agent specs always in the pool (greedy:fast=1 costs ~4 ms a decision instead of greedy's ~20)."""
    fixed_weights: tuple[float, ...] = (1.0, 1.0)
    """Relative draw weights of the fixed opponents."""
    snapshot_share: float = 0.3
    """Probability of drawing a promoted snapshot (when there is one) instead of a fixed opponent."""
    initial_best: str = "greedy"
    """The agent a snapshot must beat first to be promoted into the pool."""
    promotion_margin: float = 0.05
    """A snapshot joins the pool when it scores ≥ 0.5 + margin against the pool's best."""
    max_snapshots: int = 5
    """Promoted snapshots kept in the pool (the oldest leaves first)."""
    eval_every: int = 0
    """Steps between evaluations (0 = only at the end)."""
    eval_seeds: int = 10
    """Tile orders per evaluation opponent; each is played in every seat rotation."""
    eval_opponents: tuple[str, ...] = ("random", "greedy")
    """Agent specs every evaluation plays against (and the pool's best)."""
    eval_workers: int = 2
    """Processes that play the evaluation games."""
    checkpoint_every: int = 10_000
    """Steps between checkpoints (the final one is always written)."""
    threads: int = 0
    """torch threads (0 = choose from the free cores)."""
    device: str = "auto"
    """torch device for PPO: "cpu", "cuda" or "auto"."""
    max_minutes: float = 0.0
    """Stop PPO after this many minutes of this invocation (0 = no limit); the run stays resumable."""
    resume: bool = False
    """Continue the run in --out from its last checkpoint."""
    progress: bool = True
    """Show progress bars."""

    def check(self) -> None:
        """Raise :class:`~training.common.settings.SettingError` naming the flag of the first value no run can use."""
        self.check_ppo()
        check_rules(self, positive_int=("n_envs", "n_steps", "batch_size", "n_epochs", "blocks", "eval_seeds",
                                        "eval_workers", "imitation_epochs", "imitation_workers", "max_snapshots",
                                        "checkpoint_every"),
                    count=("total_steps", "imitation_decisions", "eval_every", "threads"),
                    positive=("imitation_learning_rate", "prior_temperature"), non_negative=("max_minutes",),
                    share=("snapshot_share", "promotion_margin"))
        # PPO normalises each minibatch's advantages by their spread: a minibatch of one step is NaN
        rollout = self.n_steps * self.n_envs
        need(rollout >= 2, "n_steps", f"with --n-envs {self.n_envs} makes a rollout of {rollout} step; PPO needs at "
             "least 2", self.n_steps)
        need(self.batch_size >= 2 and rollout % self.batch_size != 1, "batch_size",
             f"must be at least 2 and not leave a minibatch of one step of the rollout (--n-steps × --n-envs = "
             f"{rollout})", self.batch_size)
        need(len(self.fixed_opponents) >= 1, "fixed_opponents", "needs at least one agent spec", self.fixed_opponents)
        need(len(self.fixed_weights) == len(self.fixed_opponents) and all(
            finite(w) and w > 0 for w in self.fixed_weights), "fixed_weights",
            f"needs one positive weight per fixed opponent ({len(self.fixed_opponents)})", self.fixed_weights)
        need(len(self.eval_opponents) >= 1, "eval_opponents", "needs at least one agent spec", self.eval_opponents)
        config = self.check_game(self.seed)
        check_out(self.out)
        check_device(self.device, auto=True)
        for name in ("fixed_opponents", "eval_opponents"):
            check_agents(name, getattr(self, name), config)
        check_agents("initial_best", [self.initial_best], config)
        if self.imitation_decisions:
            check_agents("imitation_teacher", [self.imitation_teacher], config)
        if self.prior:
            check_agents("prior", [self.prior], config)


PRESETS: dict[str, tuple[str, Settings]] = {
    "quick": ("≤ 5 minutes on 2 CPU cores: imitation of greedy, then 30k PPO steps, mostly against random.",
              Settings(out="runs/ppo/quick", total_steps=30_000, learning_rate=1e-4, ent_coef=0.003,
                       imitation_decisions=3_000, imitation_epochs=4, fixed_weights=(3.0, 1.0), eval_every=10_000,
                       eval_seeds=5, eval_opponents=("random",))),
    "full": ("The pretrained agent (a day on 2 cores; best on many): a residual policy over the prior of greedy on "
             "the learned value (no imitation), PPO against greedy, that prior and promoted snapshots, "
             "evaluations every 50k steps.",
             Settings(out="runs/ppo/full", total_steps=2_000_000, n_envs=8, subprocess_envs=True, n_steps=256,
                      batch_size=512, imitation_decisions=0, prior="greedy:value=linear", prior_temperature=0.1,
                      learning_rate=3e-4,
                      ent_coef=0.0, fixed_opponents=("greedy", "greedy:value=linear"), fixed_weights=(1.0, 1.0),
                      initial_best="greedy:value=linear", eval_every=50_000, eval_seeds=50, eval_workers=8,
                      eval_opponents=("random", "greedy"), checkpoint_every=10_000, snapshot_share=0.2)),
}


#: Settings that define a run: a resume refuses them with another value on its command line, and
#: takes the saved value for those not given (:func:`~training.common.run_folder.keep_saved`).
_DEFINING = (
    "seed", "players", "expansions", "n_envs", "n_steps", "batch_size", "gamma", "shaping", "shaping_scores",
    "prior", "learning_rate", "n_epochs", "ent_coef", "clip_range", "gae_lambda", "channels", "blocks",
    "prior_temperature", "fixed_opponents", "fixed_weights", "snapshot_share", "initial_best", "promotion_margin",
    "max_snapshots",
)


def _check_saved_specs(s: Settings, pool: dict[str, Any], out: Path) -> None:
    """The agent specs a resume reads from the run's state (the pool, the opponents its settings
    kept) are text from a file: a built-in agent naming no file, or the run's own snapshots in
    ``out`` (:func:`agents.spec.check_spec`); anything else stops the resume before it is loaded."""
    specs = [*s.fixed_opponents, s.initial_best, *pool.get("fixed", []), *pool.get("snapshots", []), pool.get("best")]
    for spec in specs:
        if isinstance(spec, str) and spec:
            try:
                check_spec(spec, Origin.FILE, within=out)
            except AgentSpecError as e:
                raise SettingError(f"--resume: the state in {out} names an agent it may not: {e}") from None


# ------------------------------------------------------------------------------------------ opponents
class SpecOpponent:
    """An engine-level opponent built from its agent spec on first use, in whichever process plays
    it: only the spec and the seed are pickled (SubprocVecEnv sends it through ``env_method``)."""

    def __init__(self, spec: str, seed: int) -> None:
        self.spec = spec
        self.seed = seed
        self._agent: Any = None

    def choose_action(self, game: Any) -> Any:
        if self._agent is None:
            self._agent = make_agent(self.spec, seed=self.seed)
        return self._agent.choose_action(game)

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "seed": self.seed, "_agent": None}


# ------------------------------------------------------------------------------------------ the run
def train(s: Settings, given: Collection[str] = _DEFINING) -> Path:
    """Run (or resume) the self-play training described by ``s``; returns the final model's path.
    ``given``: the settings named on the command line (a resume refuses those whose value differs
    from the run's; by default all of them). A refusal is a SettingError."""
    s.check()
    out = Path(s.out)
    with run_lock(out, lambda: find_checkpoint(out) is not None):
        return _train(s, given)


def _train(s: Settings, given: Collection[str]) -> Path:
    with optional_imports(_NEEDED_BY, "train"):
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.utils import configure_logger
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        from agents.nets.legacy import legacy_module_names
        from agents.nets.policy import CarcassonnePolicy
        from carcassonne_env.environment import SingleAgentEnv
        from training.arena.tournament import single_threaded
        from training.sb3.buffer import CompactRolloutBuffer
        from training.sb3.ppo import NOT_SAVED, ppo_kwargs

    started = time.time()
    out = Path(s.out)
    found = find_checkpoint(out) if out.is_dir() else None
    if s.resume:
        if found is None:
            raise SettingError(f"--resume: no checkpoint in {out} (expected checkpoint.zip and state.json whose "
                               "checksum matches)")
        checkpoint, saved = found
        where = f"the state of {checkpoint}"
        s = keep_saved(s, check_state(saved, {"settings": {}}, where)["settings"], _DEFINING, given)
        check_state(saved, {"pool": {}, "evaluations": [], "rng": {}}, where)
        saved = {**saved, "pool": relocate_run(saved["pool"], str(saved["settings"].get("out", out)), out)}
        _check_saved_specs(s, saved["pool"], out)
    elif found is not None or (out / CHECKPOINT[0]).exists():
        raise SettingError(f"{out} already holds a run: pass --resume to continue it or choose another --out")
    if s.imitation_decisions:
        try:
            make_agent(s.imitation_teacher, seed=0)
        except AgentSpecError as e:
            raise SettingError(f"--imitation-teacher: {e}") from None
    if s.prior:
        if s.imitation_decisions and not s.resume:
            raise SettingError("--prior starts the policy at the prior's play: set --imitation-decisions 0")
        try:
            ActionPrior(s.prior, window=DEFAULT_WINDOW)
        except (AgentSpecError, ValueError) as e:
            raise SettingError(f"--prior: {e}") from None
    elif s.prior_temperature != Settings.prior_temperature:
        raise SettingError("--prior-temperature is the prior's: give --prior SPEC too")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(torch_threads(s.threads))
    print(s.game_line(), flush=True)

    def make_env(rank: int) -> Any:
        def build() -> Any:
            env: Any = SingleAgentEnv(seat=None, **s.env_kwargs())
            if s.prior:
                env = PriorObservation(env, ActionPrior(s.prior, env.aec.encoder.size, seed=s.seed * 1000 + rank))
            env.reset(seed=s.seed * 1000 + rank)
            return Monitor(env)
        return build

    if s.subprocess_envs:  # env workers (and the snapshot opponents' torch in them) run single-threaded
        single_threaded()
    vec_cls = SubprocVecEnv if s.subprocess_envs else DummyVecEnv
    venv = vec_cls([make_env(i) for i in range(s.n_envs)])
    if s.resume:
        with legacy_module_names():  # a checkpoint saved under the trainer's old module names
            model = MaskablePPO.load(checkpoint, env=venv, device=s.device, rollout_buffer_class=CompactRolloutBuffer,
                                     custom_objects={"rollout_buffer_class": CompactRolloutBuffer},
                                     tensorboard_log=str(out / "tensorboard"))  # here, also in a moved run
        pool = OpponentPool.from_dict(saved["pool"])
        evaluations: list[dict[str, Any]] = saved["evaluations"]
        curve: list[dict[str, Any]] = saved.get("curve", [])
        rng = np.random.default_rng()
        rng.bit_generator.state = saved["rng"]
    else:
        model = MaskablePPO(
            CarcassonnePolicy, venv, n_steps=s.n_steps, batch_size=s.batch_size, n_epochs=s.n_epochs,
            learning_rate=s.learning_rate, gamma=s.gamma, gae_lambda=s.gae_lambda, ent_coef=s.ent_coef,
            clip_range=s.clip_range, seed=s.seed, device=s.device, tensorboard_log=str(out / "tensorboard"),
            **ppo_kwargs(channels=s.channels, blocks=s.blocks, prior=s.prior, prior_temperature=s.prior_temperature),
        )
        pool = OpponentPool(fixed=list(s.fixed_opponents), fixed_weights=list(s.fixed_weights),
                            best=s.initial_best, snapshot_share=s.snapshot_share,
                            margin=s.promotion_margin, max_snapshots=s.max_snapshots)
        evaluations = []
        curve = []
        rng = np.random.default_rng(s.seed)
        if s.imitation_decisions:
            _warm_start(model, s, out)

    def save_state() -> None:
        save_checkpoint(out, lambda path: save_model(model, path, NOT_SAVED, s.game_config()), {
            "settings": asdict(s), "pool": pool.to_dict(), "evaluations": evaluations, "curve": curve,
            "rng": rng.bit_generator.state, "num_timesteps": model.num_timesteps,
        })

    def evaluate() -> None:
        snapshot = out / "snapshots" / f"{model.num_timesteps:09d}.zip"
        snapshot.parent.mkdir(exist_ok=True)
        save_model(model, snapshot, NOT_SAVED, s.game_config())
        spec = f"ppo:{snapshot}"
        opponents = list(dict.fromkeys([*s.eval_opponents, pool.best]))
        games = out / "evaluations" / snapshot.stem
        if games.exists():  # left by a run killed during this evaluation: its snapshot was overwritten since
            shutil.rmtree(games)
        results, _ = gauntlet(spec, opponents, s.eval_seeds, 10**6, s.game_config(), games, s.eval_workers,
                              s.progress)
        row: dict[str, Any] = {"step": model.num_timesteps, "time": time.time()}
        for opponent, stats in results.items():
            name = _short(opponent)
            row[f"score_vs_{name}"] = stats.score
            row[f"win_rate_vs_{name}"] = stats.win_rate
            row[f"win_low_vs_{name}"], row[f"win_high_vs_{name}"] = stats.win_ci
            row[f"margin_vs_{name}"] = stats.margin
            model.logger.record(f"eval/win_rate_vs_{name}", stats.win_rate)
            model.logger.record(f"eval/win_ci_low_vs_{name}", stats.win_ci[0])
            model.logger.record(f"eval/margin_vs_{name}", stats.margin)
        promoted = pool.consider(spec, results[pool.best].score)
        row["promoted"] = promoted
        model.logger.record("eval/promoted", int(promoted))
        model.logger.record("eval/pool_size", len(pool.snapshots))
        evaluations.append(row)
        keys = list(dict.fromkeys(k for row in evaluations for k in row))
        write_csv(out / "evaluations.csv", keys, ([row.get(k, "") for k in keys] for row in evaluations))

    class SelfPlayCallback(BaseCallback):
        """Draws each env's opponent per rollout; evaluates and checkpoints on schedule."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = _next_multiple(model.num_timesteps, s.eval_every)
            self.next_checkpoint = _next_multiple(model.num_timesteps, s.checkpoint_every)

        def _on_rollout_start(self) -> None:
            for i in range(s.n_envs):
                opponent = SpecOpponent(pool.sample(rng), seed=int(rng.integers(2**31)))
                self.training_env.env_method("set_opponents", opponent, indices=[i])

        def _on_step(self) -> bool:
            return not (s.max_minutes and time.time() - started > 60 * s.max_minutes)

        def _on_rollout_end(self) -> None:
            steps = self.model.num_timesteps
            episodes = list(self.model.ep_info_buffer or ())
            if episodes:
                curve.append({"step": steps, "episodes": len(episodes),
                              "reward_mean": float(np.mean([e["r"] for e in episodes]))})
            if s.eval_every and steps >= self.next_eval:
                evaluate()
                self.next_eval = _next_multiple(steps, s.eval_every)
            if steps >= self.next_checkpoint:
                save_state()
                self.next_checkpoint = _next_multiple(steps, s.checkpoint_every)

    remaining = s.total_steps - model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=SelfPlayCallback(), reset_num_timesteps=False,
                    progress_bar=s.progress, tb_log_name="ppo")
    else:  # nothing to learn (--total-steps 0: the initial policy; or a finished run resumed)
        model.set_logger(configure_logger(tensorboard_log=str(out / "tensorboard"), tb_log_name="ppo",
                                          reset_num_timesteps=False))
    if not evaluations or evaluations[-1]["step"] != model.num_timesteps:
        evaluate()
        model.logger.dump(model.num_timesteps)  # learn() dumps its own; this one comes after it
    save_state()
    final = out / "final.zip"
    save_model(model, final, NOT_SAVED, s.game_config())
    _plot_learning_curve(evaluations, curve, out / "learning_curve.png", describe_game(s.game_config()))
    venv.close()
    return final


def _next_multiple(step: int, every: int) -> int:
    return (step // every + 1) * every if every else 2**62


def _short(spec: str) -> str:
    """The name of an evaluation opponent in TensorBoard tags and CSV columns: ``best`` for a
    snapshot, else the spec with every run of other characters than letters and digits as ``_``
    (``greedy:value=linear`` → ``greedy_value_linear``: distinct specs keep distinct names)."""
    return "best" if spec.startswith("ppo:") else re.sub(r"[^0-9A-Za-z]+", "_", spec).strip("_")


def _warm_start(model: Any, s: Settings, out: Path) -> None:
    """Clone the teacher's play into the policy before PPO (module docstring, step 1)."""
    from tqdm import tqdm

    from training.sb3.imitation import clone_behaviour, collect, collect_parallel

    env_kwargs = {k: v for k, v in s.env_kwargs().items() if not k.startswith("shaping")}
    if s.imitation_workers > 1:
        print(f"playing {s.imitation_decisions} {s.imitation_teacher} demonstrations in "
              f"{s.imitation_workers} processes")
        demos = collect_parallel(env_kwargs, s.imitation_decisions, s.seed, s.imitation_workers,
                                 teacher=s.imitation_teacher)
    else:
        with tqdm(total=s.imitation_decisions, desc=f"{s.imitation_teacher} demonstrations", unit="decision",
                  disable=not s.progress) as bar:
            demos = collect(env_kwargs, s.imitation_decisions, s.seed,
                            make_agent=lambda spec, seed: make_agent(spec, seed=seed), teacher=s.imitation_teacher,
                            progress=bar.update)
    history = clone_behaviour(model.policy, demos, epochs=s.imitation_epochs, batch_size=s.batch_size,
                              learning_rate=s.imitation_learning_rate, seed=s.seed)
    atomic_write_text(out / "imitation.json", dumps({"decisions": len(demos), "epochs": history}, indent=1))
    for epoch, h in enumerate(history):
        print(f"imitation epoch {epoch + 1}: loss {h['bc_loss']:.3f}, agreement with the teacher {h['accuracy']:.1%}")


def _plot_learning_curve(rows: list[dict[str, Any]], curve: list[dict[str, Any]], path: Path, game: str) -> None:
    """Left: mean training episode reward (last 100 episodes) over steps. Right: win rate (Wilson
    95 % interval) against each evaluation opponent on paired seeds. Above both: ``game: GAME``
    (``game``: :func:`~carcassonne_env.engine.describe_game` of the run's game)."""
    from matplotlib.figure import Figure  # not pyplot: its global backend and figures stay untouched

    fig = Figure(figsize=(11, 4.3))
    fig.suptitle(f"game: {game}", fontsize=10)
    left, right = fig.subplots(1, 2)
    if curve:
        left.plot([c["step"] for c in curve], [c["reward_mean"] for c in curve], color="tab:purple")
    left.set_xlabel("learner steps")
    left.set_ylabel("mean episode reward (last 100)")
    left.set_title("Training against the opponent pool")
    left.grid(alpha=0.3)
    names = sorted({k[len("win_rate_vs_"):] for row in rows for k in row if k.startswith("win_rate_vs_")})
    for name in names:
        pts = [(r["step"], r[f"win_rate_vs_{name}"], r[f"win_low_vs_{name}"], r[f"win_high_vs_{name}"])
               for r in rows if f"win_rate_vs_{name}" in r]
        steps, rate, low, high = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
        right.errorbar(steps, rate, yerr=[rate - low, high - rate], marker="o", capsize=3, label=f"vs {name}")
    right.axhline(0.5, color="grey", lw=0.8, ls="--")
    right.set_ylim(0, 1)
    right.set_xlabel("learner steps")
    right.set_ylabel("win rate (95 % Wilson interval)")
    right.set_title("Evaluation on paired seeds")
    right.legend()
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format="png")


COMMAND = Command(Settings, "Self-play training of the board network with Stable-Baselines3's MaskablePPO (the ppo: "
                  "agents; module training/sb3/selfplay.py, docs/training.md).", PRESETS, "quick --total-steps 50000")


main = trainer_main(COMMAND, "ppo", train,
                    lambda final, seconds: f"trained in {seconds:.0f} s: {final} (agent spec ppo:{final})")


if __name__ == "__main__":
    raise SystemExit(main())
