"""Self-play training with MaskablePPO on carcassonne_v0 — one readable file, cleanrl-style.

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
   time per ``--out`` (a lock, :class:`training.arena.storage.RunLock`). A copied or moved run
   resumes where it is now: the pool's snapshots are named there (:func:`training.checks.relocate_run`).
   The final model is ``final.zip`` (agent spec ``ppo:OUT/final.zip``) and ``learning_curve.png``
   plots the evaluations.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents.nets.prior import ActionPrior, PriorObservation
from agents.spec import AgentSpecError, Origin, check_spec, make_agent
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.options import DEFAULT_WINDOW
from training.arena.storage import atomic_path, atomic_write_text, dumps, file_sha256
from training.checks import (
    SEED_LIMIT,
    SettingError,
    check_agents,
    check_device,
    check_out,
    check_state,
    relocate_run,
    run_lock,
)
from training.sb3.pool import OpponentPool
from training.sb3.threads import torch_threads

__all__ = ["PRESETS", "Settings", "train"]


@dataclass(frozen=True)
class Settings:
    """Every setting of a self-play run (each one is a command-line flag)."""

    out: str = "runs/ppo"
    """Output directory: checkpoints, snapshots, TensorBoard logs, evaluations, plots (runs/ppo/PRESET)."""
    seed: int = 0
    """Seeds the model, the envs, the opponent draws and the demonstrations."""
    players: int = 2
    """Players per game (2–6); the learner takes one seat, drawn every episode."""
    expansions: tuple[str, ...] = TOWER_VARIANT
    """Expansions in play (the 2-player tower variant by default)."""
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
    learning_rate: float = 3e-4
    """Adam's learning rate of PPO."""
    gamma: float = 0.995
    """Discount factor of the returns."""
    gae_lambda: float = 0.95
    """λ of the generalised advantage estimate (GAE)."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus in PPO's loss (higher: more exploration)."""
    clip_range: float = 0.2
    """PPO's clipping of the policy ratio."""
    channels: int = 16
    """Features per board cell in the network's trunk (agents/nets/policy.py)."""
    blocks: int = 2
    """Residual 3×3 convolution blocks of the trunk."""
    shaping: float = 0.01
    """Weight of the per-step shaping reward (0 = win/loss only)."""
    shaping_scores: Literal["current", "end_now"] = "end_now"
    """Shaping pays changes of the scores if the game ended now (potential-based) or of the current scores."""
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
        """Raise SystemExit naming the flag for a value no run can use."""
        def need(ok: bool, flag: str, what: str) -> None:
            if not ok:
                raise SystemExit(f"--{flag.replace('_', '-')}: {what}, got {getattr(self, flag)!r}")

        for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "channels", "blocks", "eval_seeds",
                     "eval_workers", "imitation_epochs", "imitation_workers", "max_snapshots"):
            need(_is_int(getattr(self, name)) and getattr(self, name) >= 1, name, "must be a positive integer")
        for name in ("seed", "total_steps", "imitation_decisions", "eval_every", "threads"):
            need(_is_int(getattr(self, name)) and getattr(self, name) >= 0, name, "must be an integer ≥ 0")
        # PPO normalises each minibatch's advantages by their spread: a minibatch of one step is NaN
        rollout = self.n_steps * self.n_envs
        need(rollout >= 2, "n_steps", f"with --n-envs {self.n_envs} makes a rollout of {rollout} step; PPO needs at "
             "least 2")
        need(self.batch_size >= 2 and rollout % self.batch_size != 1, "batch_size",
             f"must be at least 2 and not leave a minibatch of one step of the rollout (--n-steps × --n-envs = "
             f"{rollout})")
        need(_is_int(self.checkpoint_every) and self.checkpoint_every >= 1, "checkpoint_every",
             "must be a positive integer")
        need(2 <= self.players <= 6, "players", "must be 2–6 (R3)")
        for name in ("learning_rate", "imitation_learning_rate", "clip_range"):
            need(_finite(getattr(self, name)) and getattr(self, name) > 0, name, "must be a finite number > 0")
        for name in ("gamma", "gae_lambda"):
            need(_finite(getattr(self, name)) and 0 < getattr(self, name) <= 1, name, "must be in (0, 1]")
        for name in ("ent_coef", "shaping", "max_minutes"):
            need(_finite(getattr(self, name)) and getattr(self, name) >= 0, name, "must be a finite number ≥ 0")
        for name in ("snapshot_share", "promotion_margin"):
            need(_finite(getattr(self, name)) and 0 <= getattr(self, name) <= 1, name, "must be in [0, 1]")
        need(len(self.fixed_opponents) >= 1, "fixed_opponents", "needs at least one agent spec")
        need(len(self.fixed_weights) == len(self.fixed_opponents) and all(
            _finite(w) and w > 0 for w in self.fixed_weights), "fixed_weights",
            f"needs one positive weight per fixed opponent ({len(self.fixed_opponents)})")
        need(len(self.eval_opponents) >= 1, "eval_opponents", "needs at least one agent spec")
        need(self.seed < SEED_LIMIT, "seed", "must be below 2**32 (numpy's seeds)")
        need(_finite(self.prior_temperature) and self.prior_temperature > 0, "prior_temperature",
             "must be a finite number > 0 (points)")
        from carcassonne_env.engine import ConfigError, GameConfig

        try:
            config = GameConfig(players=self.players, expansions=self.expansions)
        except (ConfigError, ValueError) as e:
            raise SystemExit(f"--players/--expansions: {e}") from None
        try:
            check_out(self.out)
            check_device(self.device, auto=True)
            for name in ("fixed_opponents", "eval_opponents"):
                check_agents(name, getattr(self, name), config)
            check_agents("initial_best", [self.initial_best], config)
            if self.imitation_decisions:
                check_agents("imitation_teacher", [self.imitation_teacher], config)
            if self.prior:
                check_agents("prior", [self.prior], config)
        except SettingError as e:
            raise SystemExit(str(e)) from None

    def env_kwargs(self) -> dict[str, Any]:
        return {"players": self.players, "expansions": self.expansions, "shaping": self.shaping,
                "shaping_scores": self.shaping_scores}


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


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# ------------------------------------------------------------------------------------------ checkpoints
CHECKPOINT, PREVIOUS = ("checkpoint.zip", "state.json"), ("checkpoint.prev.zip", "state.prev.json")
_PENDING = (".checkpoint.pending.zip", ".state.pending.json")


def save_checkpoint(out: Path, save_model: Callable[[Path], None], state: dict[str, Any]) -> None:
    """Write a checkpoint (``save_model(path)`` writes the zip; ``state`` the JSON next to it) so that a
    kill at any moment leaves a loadable one (module docstring): both go to pending files first,
    ``state`` gets the zip's SHA-256, the current pair becomes the previous one, the pending pair
    becomes the current one — each step one ``os.replace``."""
    zip_tmp, state_tmp = (out / name for name in _PENDING)
    save_model(zip_tmp)
    with zip_tmp.open("rb+") as f:
        os.fsync(f.fileno())
    state = {**state, "checkpoint_sha256": file_sha256(zip_tmp)}
    atomic_write_text(state_tmp, dumps(state, indent=1))
    for now, before in zip(CHECKPOINT, PREVIOUS, strict=True):
        if (out / now).exists():
            os.replace(out / now, out / before)
    os.replace(zip_tmp, out / CHECKPOINT[0])
    os.replace(state_tmp, out / CHECKPOINT[1])


def find_checkpoint(out: Path) -> tuple[Path, dict[str, Any]] | None:
    """The newest (zip, state) pair of ``out`` whose state names the zip's SHA-256 (any of the current,
    previous and pending files); a state saved before hashes pairs with ``checkpoint.zip`` when that
    is a whole zip. None when there is none."""
    zips = [out / name for name in (CHECKPOINT[0], PREVIOUS[0], _PENDING[0]) if (out / name).is_file()]
    digests = {file_sha256(z): z for z in zips}
    found: list[tuple[int, Path, dict[str, Any]]] = []
    for name in (CHECKPOINT[1], PREVIOUS[1], _PENDING[1]):
        try:
            state = json.loads((out / name).read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(state, dict):
            continue
        digest = state.get("checkpoint_sha256")
        steps = state.get("num_timesteps", 0)
        if not _is_int(steps):
            continue
        if digest is None and name == CHECKPOINT[1] and (out / CHECKPOINT[0]).is_file() \
                and zipfile.is_zipfile(out / CHECKPOINT[0]):
            found.append((steps, out / CHECKPOINT[0], state))
        elif digest in digests:
            found.append((steps, digests[digest], state))
    if not found:
        return None
    _, path, state = max(found, key=lambda t: t[0])
    return path, state


def _save_model(model: Any, path: Path, exclude: Iterable[str]) -> None:
    """``model.save`` into ``path`` atomically (through memory, then a temporary file)."""
    buffer = io.BytesIO()
    model.save(buffer, exclude=list(exclude))
    with atomic_path(path) as tmp:
        tmp.write_bytes(buffer.getvalue())


#: Settings that define a run: a resume refuses them with another value on its command line, and
#: takes the saved value for those not given.
_HYPERPARAMETERS = ("learning_rate", "n_epochs", "ent_coef", "clip_range", "gae_lambda", "channels", "blocks",
                    "prior_temperature", "fixed_opponents", "fixed_weights", "snapshot_share", "initial_best",
                    "promotion_margin", "max_snapshots")


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
                raise SystemExit(f"--resume: the state in {out} names an agent it may not: {e}") from None


def _resumed(s: Settings, saved: dict[str, Any], given: set[str] | None) -> Settings:
    """``s`` with the saved run's value of every run-defining setting; SystemExit naming the first one
    given (in ``given``, every one when None) with another value."""
    now = json.loads(json.dumps(asdict(s)))
    defaults = json.loads(json.dumps(asdict(Settings())))
    taken: dict[str, Any] = {}
    for name in (*_RUN_DEFINING, *_HYPERPARAMETERS):
        before = saved.get(name, defaults[name])  # a setting the saved run predates has its default
        if (given is None or name in given) and now[name] != before:
            raise SystemExit(f"--resume: --{name.replace('_', '-')} {now[name]!r} differs from the run's {before!r}; "
                             "a resumed run keeps the settings it started with (drop the flag, or start a new "
                             "run in another --out)")
        field_default = getattr(Settings(), name)
        taken[name] = tuple(before) if isinstance(field_default, tuple) else before
    return replace(s, **taken)


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
def train(s: Settings, given: set[str] | None = None) -> Path:
    """Run (or resume) the self-play training described by ``s``; returns the final model's path.
    ``given``: the settings named on the command line (a resume checks those against the run's;
    None: all of them)."""
    s.check()
    out = Path(s.out)
    try:
        with run_lock(out, lambda: find_checkpoint(out) is not None):
            return _train(s, given)
    except SettingError as e:
        raise SystemExit(str(e)) from None


def _train(s: Settings, given: set[str] | None) -> Path:
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
            raise SystemExit(f"--resume: no checkpoint in {out} (expected checkpoint.zip and state.json whose "
                             "checksum matches)")
        checkpoint, saved = found
        where = f"the state of {checkpoint}"
        s = _resumed(s, check_state(saved, {"settings": {}}, where)["settings"], given)
        check_state(saved, {"pool": {}, "evaluations": [], "rng": {}}, where)
        saved = {**saved, "pool": relocate_run(saved["pool"], str(saved["settings"].get("out", out)), out)}
        _check_saved_specs(s, saved["pool"], out)
    elif found is not None or (out / CHECKPOINT[0]).exists():
        raise SystemExit(f"{out} already holds a run: pass --resume to continue it or choose another --out")
    if s.imitation_decisions:
        try:
            make_agent(s.imitation_teacher, seed=0)
        except AgentSpecError as e:
            raise SystemExit(f"--imitation-teacher: {e}") from None
    if s.prior:
        if s.imitation_decisions and not s.resume:
            raise SystemExit("--prior starts the policy at the prior's play: set --imitation-decisions 0")
        if not s.prior_temperature > 0:
            raise SystemExit(f"--prior-temperature must be > 0 (points), got {s.prior_temperature}")
        try:
            ActionPrior(s.prior, window=DEFAULT_WINDOW)
        except (AgentSpecError, ValueError) as e:
            raise SystemExit(f"--prior: {e}") from None
    elif s.prior_temperature != Settings.prior_temperature:
        raise SystemExit("--prior-temperature is the prior's: give --prior SPEC too")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(torch_threads(s.threads))

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
        save_checkpoint(out, lambda path: model.save(path, exclude=NOT_SAVED), {
            "settings": asdict(s), "pool": pool.to_dict(), "evaluations": evaluations, "curve": curve,
            "rng": rng.bit_generator.state, "num_timesteps": model.num_timesteps,
        })

    def evaluate() -> None:
        snapshot = out / "snapshots" / f"{model.num_timesteps:09d}.zip"
        snapshot.parent.mkdir(exist_ok=True)
        _save_model(model, snapshot, NOT_SAVED)
        spec = f"ppo:{snapshot}"
        opponents = list(dict.fromkeys([*s.eval_opponents, pool.best]))
        results = _gauntlet(spec, opponents, s, out / "evaluations" / snapshot.stem)
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
        _write_evaluations(evaluations, out)

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
    _save_model(model, final, NOT_SAVED)
    _plot_learning_curve(evaluations, curve, out / "learning_curve.png")
    venv.close()
    return final


#: Settings a resumed run takes from its saved state rather than from the command line.
_RUN_DEFINING = (
    "seed", "players", "expansions", "n_envs", "n_steps", "batch_size", "gamma", "shaping", "shaping_scores",
    "prior",
)


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


def _gauntlet(spec: str, field: list[str], s: Settings, out: Path) -> dict[str, Any]:
    """Pair statistics of ``spec`` against each of ``field`` (tournament runner, paired seeds)."""
    from training.arena.ratings import head_to_heads, pair_stats
    from training.arena.tournament import Settings as TournamentSettings
    from training.arena.tournament import load_games, run

    config = {"players": s.players, "expansions": list(s.expansions)}
    from carcassonne_env.engine import GameConfig

    settings = TournamentSettings(agents=(spec, *field), mode="gauntlet", seeds=s.eval_seeds, first_seed=10**6,
                                  config=GameConfig.from_dict(config).to_dict())
    if out.exists():  # left by a run killed during this evaluation: its snapshot was overwritten since
        shutil.rmtree(out)
    run(settings, out, workers=s.eval_workers, progress=s.progress)
    h2h = head_to_heads(load_games(out), [spec, *field])
    return {opponent: pair_stats(h2h, spec, opponent) for opponent in field}


def _write_evaluations(rows: list[dict[str, Any]], out: Path) -> None:
    keys = list(dict.fromkeys(k for row in rows for k in row))
    with atomic_path(out / "evaluations.csv") as tmp, tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def _plot_learning_curve(rows: list[dict[str, Any]], curve: list[dict[str, Any]], path: Path) -> None:
    """Left: mean training episode reward (last 100 episodes) over steps. Right: win rate (Wilson
    95 % interval) against each evaluation opponent on paired seeds."""
    from matplotlib.figure import Figure  # not pyplot: its global backend and figures stay untouched

    fig = Figure(figsize=(11, 4))
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


def main(argv: Sequence[str] | None = None, prog: str = "carcassonne train ppo") -> None:
    """``carcassonne train ppo`` (:mod:`training.cli.train`): parse ``argv`` (a preset, then overrides)
    and train."""
    import sys

    import tyro

    from training.cli.dialect import comma_lists, list_flags, preset_help, refuse_old_spellings

    argv = sys.argv[1:] if argv is None else list(argv)
    refuse_old_spellings(argv, prog, lists=list_flags(Settings))
    summary = ("Self-play training of the board network with Stable-Baselines3's MaskablePPO (the ppo: agents; "
               "module training/sb3/selfplay.py, docs/training.md).")
    settings = tyro.extras.overridable_config_cli(PRESETS, args=argv, prog=prog, registry=comma_lists(),
                                                  description=preset_help(summary, prog, "quick --total-steps 50000"))
    given = {a[2:].split("=")[0].replace("-", "_").removeprefix("no_") for a in (argv or []) if a.startswith("--")}
    start = time.time()
    final = train(settings, given)
    print(f"trained in {time.time() - start:.0f} s: {final} (agent spec ppo:{final})")


if __name__ == "__main__":
    main()
