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
   value target is the mover's final win/loss (:func:`training.common.labelled_games.labelled_games`).
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
where it is now (:mod:`training.common.relocate`); a damaged samples file, fit checkpoint or
student is refused naming it and what to do. One run at a time holds the directory's lock.
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from carcassonne_env.engine import describe_game
from carcassonne_env.jsonio import load
from training.common.checkpoints import save_model
from training.common.cli import Command, trainer_main
from training.common.curves import Band, plot_against_anchors, write_csv
from training.common.evaluation import elo_words, rate_against_anchors
from training.common.progress import RunClock, tensorboard_log
from training.common.run_folder import locked_run_state, reading, write_json
from training.common.settings import (
    PlayAndFitSettings,
    SettingError,
    check_agents,
    check_device,
    check_out,
    check_rules,
    need,
)
from training.common.storage import atomic_copy
from training.common.threads import free_cores, use_torch_threads

from .fit import fit
from .samples import Samples, collect
from .student import init_path, load_student, new_student, start_from

__all__ = ["PRESETS", "Settings", "check", "main", "ms_per_decision", "train"]


@dataclass(frozen=True)
class Settings(PlayAndFitSettings):
    """Every setting of a distillation run (each one is a command-line flag; the game, the run's directory, seed
    and where it computes: :class:`~training.common.settings.PlayAndFitSettings`)."""

    out: str = "runs/distill"
    """Output directory: rounds (samples, student, rating games), TensorBoard logs, history, curve."""
    seed: int = 0
    """Seeds the games, the student's initial weights, the minibatches and the rating tile orders."""
    teacher: str = "afterstate:pretrained,fast=1"
    """The search agent to imitate (an agent spec; one that values actions gives soft targets)."""
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
    observations_on_device: bool = False
    # DeviceObservations: ~130 KB a sample for 2 players, 31 GB at 240,000 samples; same samples, same fit
    """Keep the fit's observations decompressed on --device (no decompression per minibatch): for a big GPU."""

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
_RESUMABLE = ("rounds", "observations_on_device", *PlayAndFitSettings.RESUMABLE)
#: Settings added after runs were made, with the value those runs were computed with.
_BEFORE = {"select_by": "loss"}
#: Held-out figures that may pick the kept epoch (``Settings.select_by``).
SELECT_BY = ("regret", "loss")


# ------------------------------------------------------------------------------------------ checks
def check(s: Settings) -> None:
    """Raise :class:`~training.common.settings.SettingError` naming the first setting that cannot run."""
    config = s.check_game(s.seed)
    check_rules(s, positive_int=("rounds", "decisions", "epochs", "batch_size", "channels", "blocks", "head_hidden",
                                 "eval_seeds"),
                count=("window", "workers", "threads"), unit=("student_share",),
                positive=("temperature", "learning_rate"), non_negative=("value_weight",))
    need(bool(s.anchors), "anchors", "needs at least one agent spec", s.anchors)
    need(not s.deploy_sees_floors or (s.action_heads and s.reach_head), "deploy_sees_floors",
         "needs --action-heads and --reach-head (the DEPLOY head reads the reach head's floors)", s.deploy_sees_floors)
    need(s.select_by in SELECT_BY, "select_by", f"must be one of {', '.join(SELECT_BY)}", s.select_by)
    need(not s.init or init_path(s.init).is_file(), "init", "names no student zip (a path, or 'distilled')", s.init)
    extra_sample_files(s)
    check_out(s.out)
    check_device(s.device, auto=False)
    check_agents("teacher", [s.teacher], config)
    check_agents("anchors", s.anchors, config)


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
    samples = collect(s.env_kwargs(), s.decisions, s.seed, k, s.teacher, student, s.student_share, s.temperature,
                      workers, s.progress)
    samples.save(path)
    return samples


def _student(s: Settings) -> Any:
    """A fresh student with the network of ``s`` (seeded)."""
    return new_student(s.env_kwargs(), s.seed, s.device, channels=s.channels, blocks=s.blocks,
                       head_hidden=s.head_hidden, action_heads=s.action_heads, reach_head=s.reach_head,
                       deploy_sees_floors=s.deploy_sees_floors)


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


def _write_curve(history: list[dict[str, Any]], anchors: Sequence[str], out: Path, game: str) -> None:
    """``curve.csv`` (a row per round: the fit's figures, the student's speed and its ratings against
    each anchor) and ``curve.png``: the student's win share against each anchor (95 % Wilson interval)
    over training hours, in the game ``game`` (:func:`~carcassonne_env.engine.describe_game`)."""
    keys = ("win", "win_low", "win_high", "score", "elo")
    write_csv(out / "curve.csv", ["round", "hours", "samples", *_CURVE_FIGURES, *(f"{a}_{k}" for a in anchors
                                                                                 for k in keys)],
              ([h["round"], _cell(h["hours"]), h["samples"], *(_cell(h[k]) for k in _CURVE_FIGURES),
                *(_cell(h["ratings"][a][k]) for a in anchors for k in keys)] for h in history))
    bands = {a: Band(*([h["ratings"][a][k] for h in history] for k in ("win", "win_low", "win_high")))
             for a in anchors}
    plot_against_anchors(out / "curve.png", [h["hours"] for h in history], bands, [f"r{h['round']}" for h in history],
                         anchors[0], span=(0.0, 1.0), even=0.5,
                         ylabel="win share of the student (95 % Wilson interval)",
                         title="Policy distillation (DAgger): each round's student against fixed anchors",
                         game=game)


def train(s: Settings) -> Path:
    """Run (or resume) the distillation described by ``s``; returns the directory of the run."""
    check(s)
    out = Path(s.out)
    with locked_run_state(s, out, _RESUMABLE, {"settings": asdict(s), "round": 0, "seconds": 0.0, "history": []},
                   before=_BEFORE) as state:
        return _train(s, out, state)


def _train(s: Settings, out: Path, state: dict[str, Any]) -> Path:
    """The run of :func:`train` from its (fresh or resumed) ``state``, under the run's lock."""
    workers = s.workers or free_cores()
    use_torch_threads(s.threads, "carcassonne train distill")
    log = tensorboard_log(out, "carcassonne train distill")
    print(s.game_line(), flush=True)
    clock = RunClock(float(state["seconds"]))

    def save_clock() -> None:
        """Work just reached the disk (samples, a fit epoch, a student): so do the seconds it took, and a
        run killed later in the round resumes its clock from here, not from the last round's end."""
        state["seconds"] = clock.seconds()
        write_json(out / "state.json", _json_safe(state))

    model = _student(s)
    extra_files = extra_sample_files(s)
    rounds: dict[int, Samples] = {}
    k = int(state["round"])
    if not k and s.init:
        start_from(model, init_path(s.init), s.device)
    if k:
        load_student(model, out / f"round_{k - 1:03d}", s.device, "the finished rounds start from it: restore it "
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
            load_student(model, folder, s.device, "delete it: --resume fits the round again")
        else:
            figures = fit(model.policy, data, s, seed=s.seed * 1000 + k, log=log, step=k,
                          checkpoint=folder / "fit_checkpoint.pt", on_saved=save_clock)
            save_model(model, folder / "student.zip", (), s.game_config())
            write_json(folder / "fit.json", _json_safe(figures))
            (folder / "fit_checkpoint.pt").unlink()
            save_clock()
        del data
        atomic_copy(folder / "student.zip", out / "student.zip")
        spec = f"ppo:{folder / 'student.zip'}"
        print(f"== round {k}: rating {spec} against {', '.join(s.anchors)}", flush=True)
        ratings, games = rate_against_anchors(spec, s.anchors, s.eval_seeds, 70_000_000 + 1_000 * s.seed,
                                              s.game_config(),
                                              folder / "anchors", workers, s.progress)
        hours = clock.hours()
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
                  f"score {r['score']:.3f}  Elo {elo_words(r)}  margin {r['margin']:+.1f}", flush=True)
        print(f"   {entry['ms_per_decision']:.1f} ms per decision", flush=True)
        k += 1
        state.update(history=history, round=k, seconds=clock.seconds(), settings=asdict(s))
        write_json(out / "history.json", _json_safe(history))
        _write_curve(history, s.anchors, out, describe_game(s.game_config()))
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


def _json_safe(data: Any) -> Any:
    """``data`` with every non-finite float as None (JSON has no NaN)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_json_safe(v) for v in data]
    return data


COMMAND = Command(Settings, "Policy distillation with DAgger: trains the board network of the ppo: agents to play "
                  "like a search teacher (default afterstate:pretrained,fast=1) without searching. Each round plays "
                  "games (the previous round's student on some seats), the teacher labels every decision with its "
                  "action values, the network is fitted to all labels so far and rated against the anchors. The "
                  "student is OUT/student.zip: play it as ppo:OUT/student.zip. docs/training.md, 'Distillation'.",
                  PRESETS, "quick --rounds 3")


main = trainer_main(COMMAND, "distill", lambda s, given: train(s), refusals=(ValueError,))


if __name__ == "__main__":
    raise SystemExit(main())
