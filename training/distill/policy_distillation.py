"""Policy distillation with DAgger: a board network that plays without search — one readable file.

    carcassonne train distill quick                          # a couple of minutes on 2 cores, runs/distill/quick
    carcassonne train distill full                           # hours, runs/distill/full; --resume continues it
    carcassonne train distill quick --rounds 3 --decisions 5000   # any setting can be overridden

The **teacher** is a search agent that values every legal action (default
``afterstate:pretrained,fast=1``: a one-turn search on the learned afterstate value). The
**student** is the board network of :mod:`agents.nets.policy` (``CarcassonnePolicy`` /
``BoardNet``): one forward pass per decision, no search. It is trained to imitate the teacher with
DAgger (Ross, Gordon & Bagnell 2011, "A reduction of imitation learning and structured prediction
to no-regret online learning"), in **rounds** k = 0, 1, …:

1. **Play and label** (``round_NNN/samples.npz``): ``decisions`` decisions of seeded games. In round
   0 the teacher plays every seat. In round k ≥ 1 the student of round k − 1 plays each seat with
   probability ``student_share`` (at least one seat per game) and the teacher the others, and the
   **teacher labels every decision** of the games, the student's seats included: the student then
   learns what to do in the positions *its own* play leads to, which plain behaviour cloning never
   shows it. A label is the soft target ``softmax(teacher's action values / temperature)`` over the
   legal actions (its whole ranking, ties included; one-hot for a teacher without values), and the
   value target is the mover's final win/loss (:func:`training.sb3.imitation.labelled_games`).
   Games are split into chunks of :data:`CHUNK` decisions played in worker processes; each chunk has
   its own seed, so the samples depend on the seed only, not on the number of workers.
2. **Fit** (continuing from the previous round's student): cross-entropy of the student's
   legal-action distribution against the soft targets plus ``value_weight`` × the squared error of
   its value head, on the union of all rounds' samples (or of the last ``window`` rounds), and of
   ``extra_samples``: rounds of other runs labelled by the same teacher at the same temperature. The
   decisions of 10 % of the games (chosen by a hash of the game's seed, the same in every round)
   are held out; per epoch the held-out loss, the held-out **agreement** (tie-aware: the student's
   most probable action is one the teacher values best), also per decision phase (PLACE, ACTION,
   CAPTURE), and the mean **regret** (temperature × log(best target / target of the student's
   choice): the teacher's value lost by the student's choice, in points, capped at 50) are logged.
   The epoch with the lowest held-out regret (``select_by``) is kept.
3. **Save and rate**: ``round_NNN/student.zip`` is a MaskablePPO zip (the agent spec
   ``ppo:OUT/round_NNN/student.zip`` plays it anywhere; ``student.zip`` in ``out`` is the latest).
   It plays every anchor on the same ``eval_seeds`` tile orders each round, in every seat
   (``round_NNN/anchors/``); its win share with Wilson intervals, score, Elo, its milliseconds per
   decision (from the games' records, one thread per game), the fit's figures and the sample store's
   memory go to ``history.json``, ``curve.csv``, ``curve.png`` (win share against training hours)
   and TensorBoard (``OUT/tensorboard``).

**Memory.** An observation's ``board`` is uint8 (15, 93, 93) ≈ 130 KB (2 players, window 31):
250,000 raw decisions would be 32 GB. Each sample's observation arrays are stored zlib-compressed
(level 1; they are mostly zeros) in one byte buffer per key, with the legal actions as indices
(not as a 16,352-wide mask) next to their targets; a minibatch is decompressed when it is used.
That is a few KB per decision (``bytes_per_sample`` in the history). With
``observations_on_device`` the fit decompresses every observation once and keeps them raw on the
fit's device (:class:`DeviceObservations`): for a GPU with the memory, where decompressing each
minibatch on the host would otherwise pace the fit.

``state.json`` records each finished round (written atomically); ``--resume`` continues a killed or
finished run from the last finished round up to ``--rounds``: a round's samples, once saved, are
reused, and deleted ones are played again (the same samples: they depend on the seed and the
previous round's ``student.zip`` only), so a run can be kept or moved without its samples (about
150 MB a round of the full recipe); a fit killed mid-round continues after its last finished epoch
(``round_NNN/fit_checkpoint.pt``, the same weights as a fit never killed); a fitted student is reused
(``round_NNN/fit.json``); its rating resumes game by game. A copied or renamed run directory resumes
where it is now (:func:`training.checks.relocate_run`); a damaged samples file, fit checkpoint or
student is refused naming it and what to do. One run at a time holds the directory's lock.
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.jsonio import load
from training.arena.anchors import rate_against_anchors
from training.checks import (
    SEED_LIMIT,
    SettingError,
    check_agents,
    check_device,
    check_out,
    locked_run_state,
    need,
    reading,
    write_json,
)
from training.sb3.imitation import Decision, labelled_games
from training.sb3.threads import free_cores, torch_threads

__all__ = ["CHUNK", "HOLDOUT", "PHASES", "PRESETS", "SampleBuilder", "Samples", "Settings", "check", "collect_round",
           "evaluate", "fit", "heldout_games", "main", "ms_per_decision", "train"]

#: Decisions per collection task (each with its own seed): the unit of parallel play.
CHUNK = 1_000
#: Share of the games whose decisions are held out.
HOLDOUT = 0.1
#: The decision phases (the observation vector's one-hot ``phase`` entry, game over aside).
PHASES = ("place", "action", "capture")
#: Regret per decision is capped here (points): a target that underflows to 0 has infinite log-ratio.
REGRET_CAP = 50.0


@dataclass(frozen=True)
class Settings:
    """Every setting of a distillation run (each one is a command-line flag)."""

    out: str = "runs/distill"
    """Output directory: rounds (samples, student, rating games), TensorBoard logs, history, curve."""
    seed: int = 0
    """Seeds the games, the student's initial weights, the minibatches and the rating tile orders."""
    teacher: str = "afterstate:pretrained,fast=1"
    """The search agent to imitate (an agent spec; one that values actions gives soft targets)."""
    players: int = 2
    """Players per game (2–6)."""
    expansions: tuple[str, ...] = TOWER_VARIANT
    """Expansions in play (the 2-player tower variant by default)."""
    rounds: int = 3
    """DAgger rounds in total (round 0: the teacher plays); --resume continues up to it."""
    decisions: int = 20_000
    """Labelled decisions played per round."""
    student_share: float = 0.5
    """In rounds ≥ 1, the chance that a seat is played by the previous round's student (at least one per game)."""
    temperature: float = 1.0
    """Soft targets are softmax(teacher's values / temperature) (points: lower is sharper)."""
    window: int = 0
    """Rounds of samples each fit sees, the newest (0 = all rounds)."""
    epochs: int = 4
    """Passes over the samples per round (the epoch with the best held-out ``select_by`` is kept)."""
    select_by: str = "regret"
    # regret: the teacher's value lost by the actions the student picks; loss: cross-entropy + value_weight × the
    # value head's error (the value head takes no part in the student's moves). Runs started before this setting
    # existed resume with loss, as they were fitted (_BEFORE).
    """The held-out figure, lowest wins, that picks the epoch a round keeps: regret or loss."""
    batch_size: int = 256
    """Decisions per minibatch of the fit."""
    learning_rate: float = 3e-4
    """Adam's learning rate (a new optimiser each round; the weights carry over)."""
    value_weight: float = 0.5
    """Weight of the value head's squared error (win/loss outcomes) in the loss."""
    channels: int = 32
    """Channels of the board network's convolutional trunk."""
    blocks: int = 2
    """Residual blocks of the trunk."""
    head_hidden: int = 64
    """Hidden units of the non-spatial action head and the value head."""
    action_heads: bool = False
    # PLACE and DEPLOY logits from the tile's picture in each rotation and the feature each follower would claim
    """The board network's action heads (agents/nets/action_heads.py)."""
    reach_head: bool = False
    # the followers each FLOOR would put in the tower's capture area, read along its rays
    """FLOOR logits corrected from the tower's reach after that floor (agents/nets/reach_head.py)."""
    deploy_sees_floors: bool = False
    # with --action-heads and --reach-head: a follower competes with the floors on offer in one softmax
    """DEPLOY logits also read the reach head's encoding of the floors on offer (agents/nets/reach_head.py)."""
    extra_samples: tuple[str, ...] = ()
    # labels computed once serve many fits: each file (or glob pattern) is a round of a distillation run
    """Samples of other runs (RUN/round_NNN/samples.npz, globs allowed) with this run's teacher, temperature,
    players and expansions: added to every round's fit."""
    init: str = ""
    # a fine-tune: a head the run adds (--reach-head) starts at zero, so round 0 starts as that student plays
    """A student the run starts from, and that plays round 0's student seats: a ppo zip, or 'distilled'."""
    eval_seeds: int = 20
    """Tile orders per anchor each round (each played in every seat)."""
    anchors: tuple[str, ...] = ("random", "greedy")
    """Fixed agents every round's student is rated against."""
    workers: int = 0
    """Processes that play games (0 = the free cores)."""
    threads: int = 0
    """torch threads of the fit (0 = choose from the free cores)."""
    device: str = "cpu"
    """torch device of the fit: cpu or cuda."""
    observations_on_device: bool = False
    # DeviceObservations: ~130 KB a sample for 2 players, 31 GB at 240,000 samples; same samples, same fit
    """Keep the fit's observations decompressed on --device (no decompression per minibatch): for a big GPU."""
    resume: bool = False
    """Continue the run in --out, also copied or moved (same settings but rounds, workers, threads, device)."""
    progress: bool = True
    """Show progress bars."""

    def env_kwargs(self) -> dict[str, Any]:
        return {"players": self.players, "expansions": self.expansions}


PRESETS: dict[str, tuple[str, Settings]] = {
    "quick": ("About 2 minutes on 2 CPU cores: two rounds of 3,000 decisions, a small network (16 channels, 1 block), "
              "rated against random and greedy on 5 tile orders.",
              Settings(out="runs/distill/quick", rounds=2, decisions=3_000, epochs=4, learning_rate=1e-3, channels=16,
                       blocks=1, head_hidden=32, eval_seeds=5)),
    "full": ("Hours (use many cores): 4 rounds of 60,000 decisions, a 64-channel 4-block network with action "
             "heads, 6 epochs a round, rated against random and greedy on 100 tile orders.",
             Settings(out="runs/distill/full", rounds=4, decisions=60_000, epochs=6, channels=64, blocks=4,
                      head_hidden=128, action_heads=True, eval_seeds=100)),
}

#: Settings that may change on --resume (they do not change what the run computes).
_RESUMABLE = ("rounds", "workers", "threads", "device", "observations_on_device", "progress", "resume")
#: Settings added after runs were made, with the value those runs were computed with.
_BEFORE = {"select_by": "loss"}
#: Held-out figures that may pick the kept epoch (``Settings.select_by``).
SELECT_BY = ("regret", "loss")


# ------------------------------------------------------------------------------------------ checks
def check(s: Settings) -> None:
    """Raise :class:`~training.checks.SettingError` naming the first setting that cannot run."""
    from agents.spec import AgentSpecError, make_agent
    from carcassonne_env.engine import ConfigError, GameConfig

    try:
        config = GameConfig(players=s.players, expansions=s.expansions)
    except ConfigError as e:
        raise SettingError(f"--players / --expansions: {e}") from None
    for name in ("rounds", "decisions", "epochs", "batch_size", "channels", "blocks", "head_hidden", "eval_seeds"):
        need(getattr(s, name) >= 1, name, "must be at least 1", getattr(s, name))
    for name in ("window", "workers", "threads", "seed"):
        need(getattr(s, name) >= 0, name, "must be ≥ 0", getattr(s, name))
    need(s.seed < SEED_LIMIT, "seed", "must be below 2**32 (numpy's seeds)", s.seed)
    need(0.0 < s.student_share <= 1.0, "student_share", "must be in (0, 1]", s.student_share)
    need(s.temperature > 0 and math.isfinite(s.temperature), "temperature", "must be a positive number",
         s.temperature)
    need(s.learning_rate > 0 and math.isfinite(s.learning_rate), "learning_rate", "must be a positive number",
         s.learning_rate)
    need(s.value_weight >= 0 and math.isfinite(s.value_weight), "value_weight", "must be ≥ 0", s.value_weight)
    need(bool(s.anchors), "anchors", "needs at least one agent spec", s.anchors)
    need(not s.deploy_sees_floors or (s.action_heads and s.reach_head), "deploy_sees_floors",
         "needs --action-heads and --reach-head (the DEPLOY head reads the reach head's floors)", s.deploy_sees_floors)
    need(s.select_by in SELECT_BY, "select_by", f"must be one of {', '.join(SELECT_BY)}", s.select_by)
    need(not s.init or init_path(s.init).is_file(), "init", "names no student zip (a path, or 'distilled')", s.init)
    extra_sample_files(s)
    check_out(s.out)
    check_device(s.device, auto=False)
    for name, specs in (("teacher", (s.teacher,)), ("anchors", s.anchors)):
        for spec in specs:
            try:
                make_agent(spec, seed=0)
            except AgentSpecError as e:
                raise SettingError(f"--{name}: agent {spec!r}: {e}") from None
        check_agents(name, specs, config)


_T = TypeVar("_T")
#: The settings that make two runs' labels the same function of a position.
_LABELLING = ("teacher", "temperature", "players", "expansions")


def extra_sample_files(s: Settings) -> list[Path]:
    """The files of ``s.extra_samples`` (each pattern expanded, sorted, without repeats), checked: each
    is a ``round_NNN/samples.npz`` of a run whose ``state.json`` names this run's teacher, temperature,
    players and expansions, outside this run's own directory (its rounds are in the fit already)."""
    import glob

    files: list[Path] = []
    for pattern in s.extra_samples:
        matched = sorted(Path(f) for f in glob.glob(pattern))
        need(bool(matched), "extra_samples", "names no file", pattern)
        files += [f for f in matched if f not in files]
    out = Path(s.out).resolve()
    for f in files:
        state_path = f.parent.parent / "state.json"
        if not (f.name == "samples.npz" and f.parent.name.startswith("round_") and state_path.is_file()):
            raise SettingError(f"--extra-samples: {f} is not the samples.npz of a distillation run's round folder")
        if out in f.resolve().parents:
            raise SettingError(f"--extra-samples: {f} lies in this run's own directory (its rounds are in the fit)")
        theirs = _readable(state_path, lambda path: dict(load(path)["settings"]))
        for name in _LABELLING:
            ours = list(getattr(s, name)) if name == "expansions" else getattr(s, name)
            if theirs.get(name) != ours:
                raise SettingError(f"--extra-samples: {f} was labelled with --{name} {theirs.get(name)!r}, this "
                                   f"run's is {ours!r}")
    return files


# ------------------------------------------------------------------------------------------ samples
@dataclass
class Samples:
    """Labelled decisions, stored compactly (module docstring, "Memory").

    Observation key ``k`` of sample ``i`` is ``zlib.decompress(blobs[k][starts[k][i]:starts[k][i + 1]])``
    (``dtypes[k]``, ``shapes[k]``). Sample i's legal actions (ascending) are
    ``legal[offsets[i]:offsets[i + 1]]`` and their soft targets ``targets[offsets[i]:offsets[i + 1]]``.
    ``actions`` is the teacher's action (its label), ``outcomes`` the mover's final win/loss,
    ``games`` the seed of the sample's game, ``by_teacher`` whether the teacher played the decision,
    ``phases`` its index in :data:`PHASES`, ``rounds`` the round that played it."""

    blobs: dict[str, npt.NDArray[np.uint8]]
    starts: dict[str, npt.NDArray[np.int64]]
    shapes: dict[str, tuple[int, ...]]
    dtypes: dict[str, str]
    legal: npt.NDArray[np.int32]
    targets: npt.NDArray[np.float32]
    offsets: npt.NDArray[np.int64]
    actions: npt.NDArray[np.int64]
    outcomes: npt.NDArray[np.float32]
    games: npt.NDArray[np.int64]
    by_teacher: npt.NDArray[np.bool_]
    phases: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.int16]
    n_actions: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (the memory the samples hold)."""
        arrays: list[npt.NDArray[Any]] = [*self.blobs.values(), *self.starts.values(), self.legal, self.targets,
                                           self.offsets, self.actions, self.outcomes, self.games, self.by_teacher,
                                           self.phases, self.rounds]
        return int(sum(a.nbytes for a in arrays))

    def observations(self, idx: npt.NDArray[np.intp]) -> dict[str, npt.NDArray[Any]]:
        """The observations of samples ``idx``, one array per key in its stored dtype: each sample is
        decompressed straight into its row (no per-sample arrays to stack: half the decompression's time)."""
        out: dict[str, npt.NDArray[Any]] = {}
        for key, blob in self.blobs.items():
            batch = np.empty((len(idx), *self.shapes[key]), dtype=self.dtypes[key])
            rows = batch.view(np.uint8).reshape(len(idx), batch.itemsize * math.prod(self.shapes[key]))
            starts = self.starts[key]
            for row, i in enumerate(idx):
                rows[row] = np.frombuffer(zlib.decompress(blob[starts[i]:starts[i + 1]].tobytes()), dtype=np.uint8)
            out[key] = batch
        return out

    def legal_of(self, i: int) -> npt.NDArray[np.int32]:
        return self.legal[self.offsets[i]:self.offsets[i + 1]]

    def target_of(self, i: int) -> npt.NDArray[np.float32]:
        return self.targets[self.offsets[i]:self.offsets[i + 1]]

    def masks(self, idx: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        out = np.zeros((len(idx), self.n_actions), dtype=bool)
        for row, i in enumerate(idx):
            out[row, self.legal_of(int(i))] = True
        return out

    def padded_targets(self, idx: npt.NDArray[np.intp], length: int) -> npt.NDArray[np.float32]:
        out = np.zeros((len(idx), length), dtype=np.float32)
        for row, i in enumerate(idx):
            t = self.target_of(int(i))
            out[row, :len(t)] = t
        return out

    @staticmethod
    def concatenate(parts: Sequence[Samples]) -> Samples:
        """The samples of ``parts`` in order (parts with no sample are skipped)."""
        parts = [p for p in parts if len(p)] or list(parts[:1])
        first = parts[0]

        def shifted(arrays: Sequence[npt.NDArray[np.int64]], sizes: Sequence[int]) -> npt.NDArray[np.int64]:
            shift = np.cumsum([0, *sizes[:-1]])
            return np.concatenate([arrays[0][:1]] + [a[1:] + k for a, k in zip(arrays, shift, strict=True)])

        return Samples(
            blobs={k: np.concatenate([p.blobs[k] for p in parts]) for k in first.blobs},
            starts={k: shifted([p.starts[k] for p in parts], [len(p.blobs[k]) for p in parts]) for k in first.blobs},
            shapes=first.shapes, dtypes=first.dtypes,
            legal=np.concatenate([p.legal for p in parts]),
            targets=np.concatenate([p.targets for p in parts]),
            offsets=shifted([p.offsets for p in parts], [len(p.targets) for p in parts]),
            **{name: np.concatenate([getattr(p, name) for p in parts])
               for name in ("actions", "outcomes", "games", "by_teacher", "phases", "rounds")},
            n_actions=first.n_actions,
        )

    def save(self, path: Path) -> None:
        """An uncompressed ``.npz`` (the observations are compressed already), written atomically."""
        arrays: dict[str, Any] = {f"blob_{k}": v for k, v in self.blobs.items()}
        arrays.update({f"starts_{k}": v for k, v in self.starts.items()})
        meta = {"shapes": {k: list(v) for k, v in self.shapes.items()}, "dtypes": self.dtypes,
                "n_actions": self.n_actions}
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        for name in ("legal", "targets", "offsets", "actions", "outcomes", "games", "by_teacher", "phases", "rounds"):
            arrays[name] = getattr(self, name)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, path)

    @staticmethod
    def load(path: Path) -> Samples:
        with np.load(path, allow_pickle=False) as data:  # data only: an object array is refused, never unpickled
            meta = json.loads(data["meta"].tobytes())
            keys = list(meta["shapes"])
            return Samples(
                blobs={k: data[f"blob_{k}"] for k in keys}, starts={k: data[f"starts_{k}"] for k in keys},
                shapes={k: tuple(v) for k, v in meta["shapes"].items()}, dtypes=meta["dtypes"],
                legal=data["legal"], targets=data["targets"], offsets=data["offsets"], actions=data["actions"],
                outcomes=data["outcomes"], games=data["games"], by_teacher=data["by_teacher"], phases=data["phases"],
                rounds=data["rounds"], n_actions=int(meta["n_actions"]),
            )


class SampleBuilder:
    """Accumulates :class:`~training.sb3.imitation.Decision` s into :class:`Samples`."""

    def __init__(self, n_actions: int, phase: slice) -> None:
        self.n_actions = n_actions
        self.phase = phase
        self.blobs: dict[str, list[bytes]] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.dtypes: dict[str, str] = {}
        self.legal: list[npt.NDArray[np.int32]] = []
        self.targets: list[npt.NDArray[np.float32]] = []
        self.rows: list[tuple[int, float, int, bool, int]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, d: Decision, outcome: float, game: int) -> None:
        for key, value in d.observation.items():
            array = np.ascontiguousarray(value)
            self.shapes.setdefault(key, array.shape)
            self.dtypes.setdefault(key, array.dtype.str)
            self.blobs.setdefault(key, []).append(zlib.compress(array.tobytes(), 1))
        self.legal.append(np.flatnonzero(d.mask).astype(np.int32))
        self.targets.append(d.target.astype(np.float32))
        phase = int(np.argmax(d.observation["vector"][self.phase]))
        self.rows.append((d.action, outcome, game, d.by_teacher, phase))

    def build(self, round_index: int) -> Samples:
        starts = {k: np.concatenate([[0], np.cumsum([len(b) for b in v])]).astype(np.int64)
                  for k, v in self.blobs.items()}
        n = len(self.rows)
        columns: list[Sequence[Any]] = list(zip(*self.rows, strict=True)) if self.rows else [()] * 5
        return Samples(
            blobs={k: np.frombuffer(b"".join(v), dtype=np.uint8) for k, v in self.blobs.items()},
            starts=starts, shapes=self.shapes, dtypes=self.dtypes,
            legal=np.concatenate(self.legal) if self.legal else np.zeros(0, np.int32),
            targets=np.concatenate(self.targets) if self.targets else np.zeros(0, np.float32),
            offsets=np.concatenate([[0], np.cumsum([len(t) for t in self.targets])]).astype(np.int64),
            actions=np.asarray(columns[0], dtype=np.int64), outcomes=np.asarray(columns[1], dtype=np.float32),
            games=np.asarray(columns[2], dtype=np.int64), by_teacher=np.asarray(columns[3], dtype=bool),
            phases=np.asarray(columns[4], dtype=np.int8), rounds=np.full(n, round_index, dtype=np.int16),
            n_actions=self.n_actions,
        )


def _spec_agent(spec: str, seed: int) -> Any:
    from agents.spec import make_agent

    return make_agent(spec, seed=seed)


def collect_round(
    env_kwargs: dict[str, Any], decisions: int, seed: int, teacher: str, student: str = "",
    student_share: float = 0.5, temperature: float = 1.0, round_index: int = 0,
    make_agent: Callable[[str, int], Any] = _spec_agent,
) -> Samples:
    """At least ``decisions`` decisions of seeded games, every one labelled by ``teacher`` (module
    docstring, step 1): the teacher plays every seat, or with ``student`` (an agent spec) each seat
    is the student with probability ``student_share`` (at least one per game)."""
    from carcassonne_env.environment.aec import raw_env

    env = raw_env(**env_kwargs)
    phase = env.encoder.layout.vector_entry["phase"]
    builder = SampleBuilder(env.codec.n, slice(phase.start, phase.start + len(PHASES)))
    games = labelled_games(env_kwargs, seed, make_agent, teacher, (student or teacher,),
                           1.0 - student_share if student else 1.0, temperature, label_all=True,
                           pile_rng=np.random.default_rng([seed, 1]))
    while len(builder) < decisions:
        game_seed, labelled, final = next(games)
        for d in labelled:
            builder.add(d, final[d.seat], game_seed)
    return builder.build(round_index)


def _collect(s: Settings, k: int, student: str, workers: int) -> Samples:
    """Round ``k``'s samples: chunks of :data:`CHUNK` decisions, each with its own seed, in
    ``workers`` spawned processes (or in this one)."""
    from tqdm import tqdm

    chunks = max(1, -(-s.decisions // CHUNK))
    size = -(-s.decisions // chunks)
    seeds = [int(np.random.SeedSequence([s.seed, k, i]).generate_state(1)[0]) for i in range(chunks)]
    args = [(s.env_kwargs(), size, seed, s.teacher, student, s.student_share, s.temperature, k) for seed in seeds]
    parts: dict[int, Samples] = {}
    with tqdm(total=chunks * size, desc=f"round {k}: labelled decisions", unit="decision",
              disable=not s.progress) as bar:
        if workers <= 1 or chunks == 1:
            for i, a in enumerate(args):
                parts[i] = collect_round(*a)
                bar.update(len(parts[i]))
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            from training.arena.backends import single_threaded

            with ProcessPoolExecutor(min(workers, chunks), mp_context=multiprocessing.get_context("spawn"),
                                     initializer=single_threaded) as pool:
                futures = {pool.submit(collect_round, *a): i for i, a in enumerate(args)}
                for future in as_completed(futures):
                    parts[futures[future]] = future.result()
                    bar.update(len(parts[futures[future]]))
    return Samples.concatenate([parts[i] for i in range(chunks)])


def _round_samples(s: Settings, out: Path, k: int, workers: int) -> Samples:
    """Round ``k``'s samples from ``round_NNN/samples.npz``, or played and saved there when the file
    is missing: a new round, or an old one whose samples were deleted (they depend only on the
    seed and round ``k - 1``'s ``student.zip``, so the same samples are played again)."""
    path = out / f"round_{k:03d}" / "samples.npz"
    if path.exists():
        with reading(path, "delete it: --resume plays the same samples again"):
            return Samples.load(path)
    previous = out / f"round_{k - 1:03d}" / "student.zip" if k else (init_path(s.init) if s.init else None)
    student = f"ppo:{previous}" if previous else ""
    print(f"== round {k}: {s.decisions} decisions, " + (f"{student} on {s.student_share:.0%} of the seats, "
          if student else "the teacher in every seat, ") + f"labelled by {s.teacher}", flush=True)
    samples = _collect(s, k, student, workers)
    samples.save(path)
    return samples


def heldout_games(games: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Whether each game seed is held out (:data:`HOLDOUT` of them, by a multiplicative hash)."""
    return np.asarray([(int(g) * 2654435761) % 2**32 < HOLDOUT * 2**32 for g in games], dtype=bool)


# ------------------------------------------------------------------------------------------ the fit
class DeviceObservations:
    """Every observation of some samples, decompressed once and kept on a torch device in its stored
    dtype (``Settings.observations_on_device``): a minibatch is then an index into device memory.

    Decompression runs in ``threads`` threads (zlib releases the GIL), ``chunk`` samples a task."""

    def __init__(self, data: Samples, device: Any, threads: int = 8, chunk: int = 2_048) -> None:
        from concurrent.futures import ThreadPoolExecutor

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
        """The observations of samples ``idx`` as tensors on the device, in their stored dtypes (``_batch``'s input)."""
        import torch

        return {k: a[torch.as_tensor(idx, device=a.device)] for k, a in self.arrays.items()}


def _batch(policy: Any, data: Samples, idx: npt.NDArray[np.intp], value_weight: float,
           on_device: DeviceObservations | None = None) -> tuple[Any, Any, Any, Any]:
    """(loss, cross-entropy, the student's distribution, the value loss) of samples ``idx``
    (their observations from ``on_device`` when given, else decompressed from ``data``).

    One pass of the trunk gives both heads (``legal_logits``; its values are ``predict_values``'s,
    tested): the fit once ran the trunk a second time for the value, 40 % of its time. The integer
    planes go in as stored: the network converts what it reads after cropping (the same numbers,
    tested), where a float copy of the whole 93 × 93 board took a quarter of a batch."""
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
    import torch

    policy.set_training_mode(False)
    sums = {"loss": 0.0, "cross_entropy": 0.0, "value_loss": 0.0}
    agree = np.zeros(len(idx), dtype=bool)
    regret = np.zeros(len(idx))
    with torch.no_grad():
        for start in range(0, len(idx), s.batch_size):
            batch = idx[start:start + s.batch_size]
            loss, ce, dist, value_loss = _batch(policy, data, batch, s.value_weight, on_device)
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
            loss = _batch(policy, data, batch, s.value_weight, on_device)[0]
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
            tmp = checkpoint.with_suffix(".tmp")
            torch.save({"policy": policy.state_dict(), "optimiser": optimiser.state_dict(),
                        "rng": rng.bit_generator.state, "best": best, "epochs_done": epoch + 1}, tmp)
            os.replace(tmp, checkpoint)
            if on_saved is not None:
                on_saved()
    policy.load_state_dict(best[1])
    policy.set_training_mode(False)
    return {**best[2], "train_samples": float(len(train_idx)), "heldout_samples": float(len(test_idx))}


def _student(s: Settings) -> Any:
    """A fresh MaskablePPO model with the board network (seeded), for its policy and ``save``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.nets.policy import CarcassonnePolicy, policy_kwargs
    from carcassonne_env.environment import SingleAgentEnv

    kwargs = policy_kwargs(channels=s.channels, blocks=s.blocks, head_hidden=s.head_hidden,
                           action_heads=s.action_heads, reach_head=s.reach_head,
                           deploy_sees_floors=s.deploy_sees_floors)
    venv = DummyVecEnv([lambda: SingleAgentEnv(seat=None, **s.env_kwargs())])
    return MaskablePPO(CarcassonnePolicy, venv, n_steps=8, batch_size=8, seed=s.seed, device=s.device,
                       policy_kwargs=kwargs)


# ------------------------------------------------------------------------------------------ the run
def ms_per_decision(games: Sequence[dict[str, Any]], spec: str) -> float:
    """Mean milliseconds per decision of ``spec``'s seats in tournament ``games`` (nan if none)."""
    seconds = decisions = 0.0
    for g in games:
        for seat, agent in enumerate(g["seats"]):
            if agent == spec:
                seconds += g["seconds"][seat]
                decisions += g["decisions"][seat]
    return 1000 * seconds / decisions if decisions else float("nan")


_CURVE_FIGURES = ("train_loss", "loss", "agreement", "agreement_place", "agreement_action", "agreement_capture",
                  "regret", "ms_per_decision")


def _cell(value: float | None) -> str:
    """A CSV cell: 4 decimals, empty for a figure that has no value (nan, None)."""
    return "" if value is None or not math.isfinite(value) else f"{value:.4f}".rstrip("0").rstrip(".")


def _write_curve(history: list[dict[str, Any]], anchors: Sequence[str], out: Path) -> None:
    tmp = out / "curve.csv.tmp"
    keys = ("win", "win_low", "win_high", "score", "elo")
    with tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["round", "hours", "samples", *_CURVE_FIGURES, *(f"{a}_{k}" for a in anchors for k in keys)])
        for h in history:
            w.writerow([h["round"], _cell(h["hours"]), h["samples"], *(_cell(h[k]) for k in _CURVE_FIGURES),
                        *(_cell(h["ratings"][a][k]) for a in anchors for k in keys)])
    os.replace(tmp, out / "curve.csv")
    _plot(history, anchors, out / "curve.png")


def _plot(history: list[dict[str, Any]], anchors: Sequence[str], path: Path) -> None:
    """Win share of each round's student against each anchor (95 % Wilson interval) over training hours."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    hours = [h["hours"] for h in history]
    for anchor in anchors:
        rows = [h["ratings"][anchor] for h in history]
        line = ax.plot(hours, [r["win"] for r in rows], marker="o", label=f"vs {anchor}")[0]
        ax.fill_between(hours, [r["win_low"] for r in rows], [r["win_high"] for r in rows], alpha=0.15,
                        color=line.get_color())
    for h in history:
        ax.annotate(f"r{h['round']}", (h["hours"], h["ratings"][anchors[0]]["win"]), fontsize=7,
                    textcoords="offset points", xytext=(0, 6), ha="center")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("training hours (wall)")
    ax.set_ylabel("win share of the student (95 % Wilson interval)")
    ax.set_title("Policy distillation (DAgger): each round's student against fixed anchors", fontsize=10,
                 pad=14)  # above the round labels of the top curve
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def train(s: Settings) -> Path:
    """Run (or resume) the distillation described by ``s``; returns the directory of the run."""
    check(s)
    out = Path(s.out)
    with locked_run_state(s, out, _RESUMABLE, {"settings": asdict(s), "round": 0, "seconds": 0.0, "history": []},
                   before=_BEFORE) as state:
        return _train(s, out, state)


def _train(s: Settings, out: Path, state: dict[str, Any]) -> Path:
    """The run of :func:`train` from its (fresh or resumed) ``state``, under the run's lock."""
    import shutil

    import torch
    from torch.utils.tensorboard import SummaryWriter

    from carcassonne_env.engine import GameConfig

    workers = s.workers or free_cores()
    torch.set_num_threads(torch_threads(s.threads))
    log = SummaryWriter(str(out / "tensorboard"))
    started, base_seconds = time.time(), float(state["seconds"])

    def elapsed() -> float:
        """Seconds the run has worked: those saved before this process started, and its own."""
        return base_seconds + time.time() - started

    def save_clock() -> None:
        """Work just reached the disk (samples, a fit epoch, a student): so do the seconds it took, and a
        run killed later in the round resumes its clock from here, not from the last round's end."""
        state["seconds"] = elapsed()
        write_json(out / "state.json", _json_safe(state))

    model = _student(s)
    extra_files = extra_sample_files(s)
    rounds: dict[int, Samples] = {}
    k = int(state["round"])
    if not k and s.init:
        _start_from(model, init_path(s.init), s.device)
    if k:
        _load_student(model, out / f"round_{k - 1:03d}", s.device, "the finished rounds start from it: restore it "
                      "from a copy of the run, or start a new run")
    while k < s.rounds:
        folder = out / f"round_{k:03d}"
        folder.mkdir(exist_ok=True)
        first = max(0, k - s.window + 1) if s.window else 0
        for j in range(first, k + 1):
            if j not in rounds:
                rounds[j] = _round_samples(s, out, j, workers)
                save_clock()
        for j in [j for j in rounds if j < first]:
            del rounds[j]
        extra = [_extra(f) for f in extra_files]  # loaded again each round: one copy in memory while fitting
        data = Samples.concatenate(extra + [rounds[j] for j in range(first, k + 1)])
        extra_size = sum(len(e) for e in extra)
        del extra
        student_seats = int((~rounds[k].by_teacher).sum())
        print(f"== round {k}: fitting on {len(data)} decisions of rounds {first}–{k}" + (
              f" and {len(extra_files)} files of other runs ({extra_size})" if extra_files else "") +
              f" ({student_seats} of round {k} from student seats; {data.nbytes / len(data) / 1024:.1f} KB per "
              f"decision in memory)", flush=True)
        size, memory = len(data), data.nbytes
        if (folder / "fit.json").exists() and (folder / "student.zip").exists():  # fitted before a kill: rate it
            with reading(folder / "fit.json", "delete it and the round's student.zip: --resume fits the round again"):
                figures = load(folder / "fit.json")
                if not isinstance(figures, dict):
                    raise ValueError("not a JSON object")
            _load_student(model, folder, s.device, "delete it: --resume fits the round again")
        else:
            figures = fit(model.policy, data, s, seed=s.seed * 1000 + k, log=log, step=k,
                          checkpoint=folder / "fit_checkpoint.pt", on_saved=save_clock)
            tmp = folder / "student.tmp.zip"
            model.save(tmp)
            os.replace(tmp, folder / "student.zip")
            write_json(folder / "fit.json", _json_safe(figures))
            (folder / "fit_checkpoint.pt").unlink()
            save_clock()
        del data
        shutil.copyfile(folder / "student.zip", out / "student.tmp.zip")
        os.replace(out / "student.tmp.zip", out / "student.zip")
        spec = f"ppo:{folder / 'student.zip'}"
        print(f"== round {k}: rating {spec} against {', '.join(s.anchors)}", flush=True)
        ratings, games = rate_against_anchors(spec, s.anchors, s.eval_seeds, 70_000_000 + 1_000 * s.seed,
                                              GameConfig(players=s.players, expansions=s.expansions),
                                              folder / "anchors", workers, s.progress)
        hours = elapsed() / 3600
        entry: dict[str, Any] = {"round": k, "hours": hours, "samples": size, "extra_samples": extra_size,
                                 "round_samples": len(rounds[k]),
                                 "student_seat_samples": student_seats, "bytes_per_sample": memory / size,
                                 "memory_bytes": memory, **figures, "ms_per_decision": ms_per_decision(games, spec),
                                 "student": str(folder / "student.zip"), "ratings": ratings}
        history = [h for h in state["history"] if h["round"] != k] + [entry]
        for anchor, r in ratings.items():
            for name in ("win", "score", "elo"):
                log.add_scalar(f"anchor/{anchor}/{name}", r[name], k)
        for name in ("agreement", "regret", "loss", "ms_per_decision", "bytes_per_sample"):
            if math.isfinite(entry[name]):
                log.add_scalar(f"round/{name}", entry[name], k)
        for anchor, r in ratings.items():
            print(f"   vs {anchor:24s} wins {r['win']:.3f} [{r['win_low']:.3f}, {r['win_high']:.3f}]  "
                  f"score {r['score']:.3f}  Elo {r['elo']:+.0f}  margin {r['margin']:+.1f}", flush=True)
        print(f"   {entry['ms_per_decision']:.1f} ms per decision", flush=True)
        k += 1
        state.update(history=history, round=k, seconds=elapsed(), settings=asdict(s))
        write_json(out / "history.json", _json_safe(history))
        _write_curve(history, s.anchors, out)
        write_json(out / "state.json", _json_safe(state))
    log.close()
    print(f"student: ppo:{out / 'student.zip'} (curve: {out / 'curve.csv'}, {out / 'curve.png'})")
    return out


def _extra(path: Path) -> Samples:
    """The samples of another run's round (:func:`extra_sample_files` checked where they come from)."""
    return _readable(path, Samples.load)


def _readable(path: Path, read: Callable[[Path], _T]) -> _T:
    """``read(path)`` of a file named by ``--extra-samples``; a damaged one is a SettingError naming it."""
    try:
        return read(path)
    except (OSError, EOFError, KeyError, ValueError, TypeError, zipfile.BadZipFile) as e:
        raise SettingError(f"--extra-samples: {path} cannot be read ({type(e).__name__}: {e}); take it out, or "
                           f"play that run's round again (--resume)") from None


def _load_student(model: Any, folder: Path, device: str, remedy: str) -> None:
    """The weights of ``folder``'s ``student.zip`` into ``model``'s policy (a damaged zip: one line
    naming it and ``remedy``)."""
    from agents.nets.policy import load_policy

    with reading(folder / "student.zip", remedy):
        model.policy.load_state_dict(load_policy(folder / "student.zip", device).state_dict())


def init_path(init: str) -> Path:
    """The student zip ``--init`` names: a shipped network's name (agents/ppo.py; ShippedFileError unless the
    manifest vouches for its file) or a path."""
    from agents.ppo import SHIPPED, resolve_checkpoint

    return resolve_checkpoint(init) if init in SHIPPED else Path(init)


def _start_from(model: Any, path: Path, device: str) -> None:
    """``path``'s weights into ``model``'s policy; a head only ``model`` has keeps its fresh weights (a
    head whose output starts at zero, as the reach head's, then leaves the student's moves as they were).
    Raises SettingError when the networks differ otherwise."""
    from agents.nets.policy import load_policy

    with reading(path, "name another student with --init"):
        weights = load_policy(path, device).state_dict()
    try:
        missing, unexpected = model.policy.load_state_dict(weights, strict=False)
    except RuntimeError as e:
        raise SettingError(f"--init: {path}: its network differs in size from this run's (--channels, --blocks, "
                           f"--head-hidden): {str(e).splitlines()[1].strip()}") from None
    if unexpected or any(".reach_head." not in k for k in missing):
        raise SettingError(f"--init: {path}: its network's heads differ from this run's (--action-heads): "
                           f"{', '.join((unexpected or missing)[:3])}")


def _json_safe(data: Any) -> Any:
    """``data`` with every non-finite float as None (JSON has no NaN)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_json_safe(v) for v in data]
    return data


_HELP = ("Policy distillation with DAgger: trains the board network of the ppo: agents to play like a search "
         "teacher (default afterstate:pretrained,fast=1) without searching. Each round plays games (the previous "
         "round's student on some seats), the teacher labels every decision with its action values, the network "
         "is fitted to all labels so far and rated against the anchors. The student is OUT/student.zip: play it as "
         "ppo:OUT/student.zip. docs/training.md, 'Distillation'.")


def main(argv: Sequence[str] | None = None, prog: str = "carcassonne train distill") -> int:
    """``carcassonne train distill`` (:mod:`training.cli.train`): a preset, then overrides."""
    import sys

    import tyro

    from training.cli.dialect import comma_lists, list_flags, preset_help, refuse_old_spellings

    refuse_old_spellings(sys.argv[1:] if argv is None else argv, prog, lists=list_flags(Settings))
    settings = tyro.extras.overridable_config_cli(PRESETS, args=argv, prog=prog, registry=comma_lists(),
                                                  description=preset_help(_HELP, prog, "quick --rounds 3"))
    try:
        train(settings)
    except ValueError as e:
        raise SystemExit(f"{prog}: {e}") from None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
