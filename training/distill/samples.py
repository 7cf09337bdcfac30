"""Policy distillation, step 1: play and label decisions, and store them compactly
(:mod:`training.distill.policy_distillation`, module docstring).

* :func:`collect_round` plays seeded games (the teacher in every seat, or the student on a share of
  them) and the teacher labels every decision with the soft target ``softmax(values / temperature)``
  over the legal actions (:func:`training.common.labelled_games.labelled_games`); :func:`collect` runs it in
  chunks of :data:`CHUNK` decisions, each with its own seed, in worker processes: the samples depend
  on the seed only, not on the number of workers.
* :class:`Samples` holds them compactly ("Memory"): each observation zlib-compressed in one byte
  buffer per key, the legal actions as indices next to their targets; a minibatch is decompressed
  when it is used. Saved as an uncompressed ``.npz`` of plain arrays (never unpickled).
* :func:`heldout_games`: the games whose decisions a fit holds out, by a hash of the game's seed (the
  same in every round).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from training.common.labelled_games import Decision, labelled_games
from training.common.storage import atomic_path

__all__ = ["CHUNK", "HOLDOUT", "PHASES", "SampleBuilder", "Samples", "collect", "collect_round", "heldout_games"]

#: Decisions per collection task (each with its own seed): the unit of parallel play.
CHUNK = 1_000
#: Share of the games whose decisions are held out.
HOLDOUT = 0.1
#: The decision phases (the observation vector's one-hot ``phase`` entry, game over aside).
PHASES = ("place", "action", "capture")


@dataclass
class Samples:
    """Labelled decisions, stored compactly (module docstring).

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
        with atomic_path(path) as tmp:
            np.savez(tmp, **arrays)

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
    """Accumulates :class:`~training.common.labelled_games.Decision` s into :class:`Samples`."""

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


def collect(env_kwargs: dict[str, Any], decisions: int, seed: int, round_index: int, teacher: str, student: str,
            student_share: float, temperature: float, workers: int, progress: bool = True) -> Samples:
    """Round ``round_index``'s samples (:func:`collect_round`): chunks of :data:`CHUNK` decisions, each
    with its own seed drawn from ``(seed, round_index)``, in ``workers`` spawned processes (or in this
    one); the samples depend on the seed only, not on the number of workers."""
    from tqdm import tqdm

    chunks = max(1, -(-decisions // CHUNK))
    size = -(-decisions // chunks)
    seeds = [int(np.random.SeedSequence([seed, round_index, i]).generate_state(1)[0]) for i in range(chunks)]
    args = [(env_kwargs, size, chunk_seed, teacher, student, student_share, temperature, round_index)
            for chunk_seed in seeds]
    parts: dict[int, Samples] = {}
    with tqdm(total=chunks * size, desc=f"round {round_index}: labelled decisions", unit="decision",
              disable=not progress) as bar:
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


def heldout_games(games: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Whether each game seed is held out (:data:`HOLDOUT` of them, by a multiplicative hash)."""
    return np.asarray([(int(g) * 2654435761) % 2**32 < HOLDOUT * 2**32 for g in games], dtype=bool)
