"""Checks of the trainers' settings at the edge: each refusal is a :class:`SettingError` naming the
command-line flag, the rule and the value, raised before any run starts (issue 21, item 4); and what
every trainer's run directory promises (issue 51, item 5):

* **one run at a time**: a trainer holds the directory's :class:`~training.arena.storage.RunLock`
  for its whole run (:func:`run_lock`); a second run, or a directory it cannot write, is a
  SettingError in one line naming the directory;
* **Ctrl-C** during a run is :class:`Interrupted`, which tells whether the directory holds a run
  that ``--resume`` continues (``carcassonne train`` prints the command);
* **a run directory may be copied or renamed**: the paths a run records (its state, the agent specs
  of its tournaments) are moved to the new place when it resumes there (:func:`relocate_run`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import pickle
import re
import zipfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from carcassonne_env.engine import GameConfig
from carcassonne_env.jsonio import JSONInputError, load

__all__ = [
    "SEED_LIMIT",
    "Interrupted",
    "SettingError",
    "cannot_write",
    "check_agents",
    "check_device",
    "check_out",
    "check_state",
    "finite",
    "flag",
    "is_int",
    "locked_run_state",
    "need",
    "read_state",
    "reading",
    "relocate_run",
    "run_lock",
    "run_state",
    "saved_settings",
]

#: Seeds are below this: numpy's and torch's global seeds (``np.random.seed``) take 32-bit integers.
SEED_LIMIT = 2**32


_S = TypeVar("_S")


class SettingError(ValueError):
    """A setting no run can use; the message starts with the flag."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run; ``saved``: its directory holds a run that ``--resume`` continues."""

    def __init__(self, saved: bool) -> None:
        super().__init__()
        self.saved = saved


def flag(name: str) -> str:
    """The command-line flag of setting ``name``."""
    return "--" + name.replace("_", "-")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def need(ok: bool, name: str, what: str, value: Any) -> None:
    """SettingError ``--NAME: WHAT, got VALUE`` unless ``ok``."""
    if not ok:
        raise SettingError(f"{flag(name)}: {what}, got {value!r}")


def check_out(out: str) -> None:
    """``--out`` is a directory, or does not exist yet."""
    path = Path(out)
    need(bool(out) and not (path.exists() and not path.is_dir()), "out", "expected a directory (not a file)", out)


def check_device(device: str, *, auto: bool) -> None:
    """A torch device name: cpu, cuda, cuda:N (and auto where the trainer chooses). Every trainer
    refuses a CUDA device this machine does not have the same way (never a silent run on the CPU)."""
    names = "auto, cpu, cuda or cuda:N" if auto else "cpu, cuda or cuda:N"
    need(re.fullmatch(r"cpu|cuda(:\d+)?" + ("|auto" if auto else ""), device) is not None, "device",
         f"expected {names}", device)
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise SettingError(f"--device {device}: CUDA is not available on this machine (use --device cpu)")
        index = int(device.partition(":")[2] or 0)
        need(index < torch.cuda.device_count(), "device", f"this machine has {torch.cuda.device_count()} CUDA "
             "device(s)", device)


def check_agents(name: str, specs: Iterable[str], config: GameConfig) -> None:
    """Every spec builds an agent that can play ``config`` (its model or value network was made for
    it: :func:`agents.compat.check_fits`); a file or module agent is built in its own process, as it plays."""
    from agents.isolation import close_agent, seat_agent

    for spec in specs:
        try:
            close_agent(seat_agent(spec, seed=0, config=config))
        except ValueError as e:  # AgentSpecError included
            raise SettingError(f"{flag(name)}: {e}") from None


def _field_error(value: Any, like: Any, choices: Collection[str] | None) -> str | None:
    """Why ``value`` cannot stand where a fresh state has ``like`` (None: it can): the same JSON kind
    (a count ≥ 0 for an int, a finite number ≥ 0 for a float), one of ``choices`` when given."""
    if choices is not None:
        return None if value in choices else f"one of {', '.join(choices)}"
    if is_int(like):
        return None if is_int(value) and value >= 0 else "an integer ≥ 0"
    if isinstance(like, float):
        return None if finite(value) and value >= 0 else "a finite number ≥ 0"
    kinds: dict[type, str] = {str: "a string", list: "a list", dict: "an object"}
    kind = kinds.get(type(like))
    return None if kind is None or isinstance(value, type(like)) else kind


def read_state(path: Path, fresh: Mapping[str, Any], choices: Mapping[str, Collection[str]] | None = None) \
        -> dict[str, Any]:
    """The run state saved in ``path``, checked field by field against a fresh state (every field of
    ``fresh`` present, of its kind; a field of ``choices`` one of its values).
    A SettingError names ``--resume``, the file and the field."""
    try:
        state = load(path)
    except OSError as e:
        raise SettingError(f"--resume: cannot read {path} ({e.strerror or e})") from None
    except JSONInputError as e:
        raise SettingError(f"--resume: {e}") from None
    return check_state(state, fresh, path, choices)


def check_state(state: Any, fresh: Mapping[str, Any], where: object,
                choices: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """``state``, a run's state read from ``where``, checked as :func:`read_state` checks it."""
    if not isinstance(state, dict):
        raise SettingError(f"--resume: {where}: not a run's state (expected a JSON object)")
    for name, like in fresh.items():
        if name not in state:
            raise SettingError(f"--resume: {where}: field {name!r} is missing")
        wanted = _field_error(state[name], like, (choices or {}).get(name))
        if wanted is not None:
            raise SettingError(f"--resume: {where}: field {name!r} must be {wanted}, got {state[name]!r}")
    return state


def cannot_write(out: Path, e: OSError) -> str:
    """The one line refusing an ``--out`` that cannot be written (a file where a directory must be,
    no permission, a read-only file system), naming it."""
    reason = "a file is in the way" if isinstance(e, FileExistsError | NotADirectoryError) else e.strerror or str(e)
    return f"--out {out}: cannot write there ({reason})"


@contextlib.contextmanager
def reading(path: Path, remedy: str) -> Iterator[None]:
    """Read a file a run saved, ``path``, in the block (on ``--resume``): the error of a damaged one
    (cut short, not in its format, missing parts) is one SettingError naming it and ``remedy``; so is a pickle
    its loader refuses, such as an object beyond tensors and plain values that ``torch.load(weights_only=True)``
    will not unpickle (torch's own message runs to many lines)."""
    try:
        yield
    except pickle.UnpicklingError:
        raise SettingError(f"--resume: {path} is damaged, or holds objects that are not plain data (UnpicklingError); "
                           f"{remedy}") from None
    except (OSError, EOFError, KeyError, ValueError, RuntimeError, zipfile.BadZipFile) as e:
        raise SettingError(f"--resume: {path} is damaged ({type(e).__name__}: {e}); {remedy}") from None


@contextlib.contextmanager
def run_lock(out: Path, saved: Callable[[], bool]) -> Iterator[None]:
    """Hold ``out``'s :class:`~training.arena.storage.RunLock` for the block (the directory is
    created): a SettingError names the live holder, or the directory when it cannot be written; a
    Ctrl-C in the block is :class:`Interrupted` with ``saved()``."""
    from training.arena.storage import LockError, RunLock

    try:
        lock = RunLock(out, "training run").acquire()
    except LockError as e:
        raise SettingError(str(e)) from None
    except OSError as e:
        raise SettingError(cannot_write(out, e)) from None
    try:
        yield
    except Interrupted:
        raise
    except KeyboardInterrupt:
        raise Interrupted(saved()) from None
    finally:
        lock.release()


def run_state(settings: Any, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
              before: Mapping[str, Any] | None = None,
              choices: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """The state of the run in ``out`` (its ``state.json``) when ``settings.resume``, else ``fresh``
    for a new run (``out`` is created and ``fresh`` saved as its ``state.json``). Refused by name:
    resuming where no run is, a new run where one is, and resuming with other values of the
    settings (a dataclass) not in ``resumable`` (``out`` aside: a run resumes where it was copied or
    moved to, :func:`relocate_run`), and a saved state whose fields are not those of ``fresh``
    (:func:`read_state`; ``choices``: the values some fields may take). ``before`` gives settings
    added after a run was saved the value that run was computed with (not the dataclass's default,
    which may differ). A trainer calls it under the run's lock (:func:`locked_run_state`)."""
    state_path = out / "state.json"
    if settings.resume:
        if not state_path.exists():
            raise _no_run(out)
        return _resumed(settings, out, resumable, fresh, before, choices)
    if state_path.exists():
        raise SettingError(f"{out} already holds a run: pass --resume to continue it or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    write_json(state_path, fresh)  # at once: a run killed before its first step ends can be resumed
    return fresh


@contextlib.contextmanager
def locked_run_state(settings: Any, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
                     before: Mapping[str, Any] | None = None,
                     choices: Mapping[str, Collection[str]] | None = None) -> Iterator[dict[str, Any]]:
    """:func:`run_state` for the block, which holds the run's lock (:func:`run_lock`: Ctrl-C in it is
    :class:`Interrupted`, a run to resume). A resume where no run is is refused before the lock
    would create ``out``."""
    if settings.resume and not (out / "state.json").exists():
        raise _no_run(out)
    with run_lock(out, (out / "state.json").exists):
        yield run_state(settings, out, resumable, fresh, before, choices)


def saved_settings(settings_type: type[_S], recorded: Mapping[str, Any], where: str) -> _S:
    """The settings (a dataclass) a run saved as the ``settings`` of its ``state.json``, its JSON lists
    tuples again; SettingError naming ``where`` for a field no setting has."""
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in recorded.items()}
    try:
        return settings_type(**fields)
    except TypeError as e:
        raise SettingError(f"{where}: field 'settings': {e}") from None


def _no_run(out: Path) -> SettingError:
    return SettingError(f"--resume: no run in {out} (expected state.json)")


def _resumed(settings: Any, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
             before: Mapping[str, Any] | None, choices: Mapping[str, Collection[str]] | None) -> dict[str, Any]:
    state_path = out / "state.json"
    state = read_state(state_path, {"settings": {}, **fresh}, choices)
    saved = saved_settings(type(settings), {**(before or {}), **state["settings"]}, f"--resume: {state_path}")
    keep = {*resumable, "out"}
    changed = sorted(k for k in asdict(settings) if k not in keep and getattr(settings, k) != getattr(saved, k))
    if changed:
        raise SettingError(f"--resume: {out} was started with other settings: "
                           + ", ".join(f"{flag(k)} {getattr(saved, k)!r} (now {getattr(settings, k)!r})"
                                       for k in changed))
    if not isinstance(saved.out, str) or Path(saved.out) == out:
        return state
    state = {**relocate_run(state, saved.out, out), "settings": {**state["settings"], "out": settings.out}}
    write_json(state_path, state)  # last: a kill before it relocates again, the same way
    return state


_PATH_SEPARATORS = re.compile(r"([:,=])")


def _relocated_text(text: str, old: Path, new: Path) -> str:
    """``text`` (a path, or an agent spec with paths between ``:``, ``,`` and ``=``) with every path
    under ``old`` whose file exists under ``new`` named there (so moving twice changes nothing). A run
    in ``.`` names its files ``DIR/FILE``: a word alone (``random``, ``snapshots``) is no path of it."""
    def move(token: str) -> str:
        path = Path(token)
        if not token or not path.is_relative_to(old) or (not old.parts and len(path.parts) < 2):
            return token
        moved = new / path.relative_to(old)
        return str(moved) if moved.exists() else token

    return "".join(move(token) for token in _PATH_SEPARATORS.split(text))


def _relocated(data: Any, old: Path, new: Path) -> Any:
    """JSON ``data`` with every string, keys included, relocated (:func:`_relocated_text`)."""
    if isinstance(data, str):
        return _relocated_text(data, old, new)
    if isinstance(data, list):
        return [_relocated(v, old, new) for v in data]
    if isinstance(data, dict):
        return {_relocated(k, old, new): _relocated(v, old, new) for k, v in data.items()}
    return data


def _relocate_tournament(folder: Path, old: Path, new: Path) -> None:
    """``folder``'s tournament with its agent specs relocated: each spec's JSON string replaced whole
    in ``games.jsonl``, then ``tournament.json`` (a kill between the two leaves the old settings,
    which the next pass relocates the same way). A settings file the tournament cannot read is left
    for the tournament's own reader to name."""
    from training.arena.storage import atomic_write_bytes, atomic_write_text, dumps
    from training.arena.tournament import GAMES_FILE, SETTINGS_FILE

    try:
        settings = load(folder / SETTINGS_FILE)
    except (OSError, JSONInputError):
        return
    if not isinstance(settings, dict) or not isinstance(settings.get("agents"), list):
        return
    moved = _relocated(settings, old, new)
    if moved == settings:
        return
    games = folder / GAMES_FILE
    if games.exists():
        data = games.read_bytes()
        for spec, relocated in zip(settings["agents"], moved["agents"], strict=True):
            data = data.replace(json.dumps(spec).encode(), json.dumps(relocated).encode())
        atomic_write_bytes(games, data)
    atomic_write_text(folder / SETTINGS_FILE, dumps(moved, indent=1) + "\n")


def relocate_run(data: Any, old: str, out: Path) -> Any:
    """A run started in ``old`` and resumed in ``out`` (its directory copied or renamed): every
    tournament under ``out`` is rewritten with the agent specs it plays named in ``out``, and ``data``
    (the run's saved state, JSON) is returned so moved. A path moves when it lies under ``old`` and
    names a file that exists under ``out``: the user's own paths (``--init``, agent files) stay."""
    from training.arena.tournament import SETTINGS_FILE

    if Path(old) == out:
        return data
    for settings in sorted(out.rglob(SETTINGS_FILE)):
        _relocate_tournament(settings.parent, Path(old), out)
    return _relocated(data, Path(old), out)


def cwd_relative(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, else as given: how a run names a
    file of the checkout (a shipped network, the shipped store), so that its state resumes in another
    checkout or on another machine, as the run's own ``DIR/FILE`` paths do."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON atomically (a temporary file, then a rename): a kill leaves the old file
    or the new one, never half of one. NaN and infinities are refused (JSON has none)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)
