"""The run folder every trainer writes: its lock, its ``state.json``, ``--resume``.

Invariants:

* **one run at a time**: a trainer holds the directory's :class:`~training.common.storage.RunLock`
  for its whole run (:func:`run_lock`); a second run, or a directory it cannot write, is a
  SettingError in one line naming the directory;
* **a state saved at once**: a new run writes its ``state.json`` as soon as it starts (atomically,
  :func:`write_json`), so a run killed before its first step ends can be resumed; ``--resume``
  where no run is, and a new run where one is, are refused by name (:func:`run_state`);
* **a resume keeps the run's settings**: resuming with other values of settings that define the
  run is refused naming them (:func:`run_state`), or the saved values are taken for those not given
  (:func:`keep_saved`); a saved state whose fields are not a fresh state's is refused field by field
  (:func:`read_state`), a damaged file the run saved naming it (:func:`reading`);
* **Ctrl-C** during a run is :class:`Interrupted`, which tells whether the directory holds a run
  that ``--resume`` continues (``carcassonne train`` prints the command);
* **a run directory may be copied or renamed**: the paths a run records are moved to the new place
  when it resumes there (:mod:`training.common.relocate`).
"""

from __future__ import annotations

import contextlib
import json
import pickle
import zipfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from carcassonne_env.jsonio import JSONInputError, load

from .relocate import relocate_run
from .settings import RunSettings, SettingError, finite, flag, is_int
from .storage import LockError, RunLock, atomic_write_text, dumps

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "Interrupted", "cannot_write", "check_state", "cwd_relative", "keep_saved", "locked_run_state", "read_state",
    "reading", "run_lock", "run_state", "saved_settings", "write_json",
]

_S = TypeVar("_S")
_D = TypeVar("_D", bound="DataclassInstance")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run; ``saved``: its directory holds a run that ``--resume`` continues."""

    def __init__(self, saved: bool) -> None:
        super().__init__()
        self.saved = saved


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
    """Hold ``out``'s :class:`~training.common.storage.RunLock` for the block (the directory is
    created): a SettingError names the live holder, or the directory when it cannot be written; a
    Ctrl-C in the block is :class:`Interrupted` with ``saved()``."""
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


def run_state(settings: RunSettings, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
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
def locked_run_state(settings: RunSettings, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
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
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in recorded.items()}
    try:
        return settings_type(**values)
    except TypeError as e:
        raise SettingError(f"{where}: field 'settings': {e}") from None


def keep_saved(settings: _D, saved: Mapping[str, Any], names: Iterable[str], given: Collection[str],
               before: Mapping[str, Any] | None = None) -> _D:
    """``settings`` with the saved run's value (``saved``, JSON) of each setting of ``names``: a run
    resumes with the settings that define it. A setting the saved run predates has its value in
    ``before``, else its default. SettingError naming the first setting of ``given`` (those named on
    the command line) whose value differs from the run's."""
    defaults = {f.name: f.default for f in fields(settings)}
    taken: dict[str, Any] = {}
    for name in names:
        was = saved.get(name, (before or {}).get(name, defaults[name]))
        now = json.loads(json.dumps(getattr(settings, name)))
        if name in given and now != was:
            raise SettingError(f"--resume: {flag(name)} {now!r} differs from the run's {was!r}; a resumed run keeps "
                               "the settings it started with (drop the flag, or start a new run in another --out)")
        taken[name] = tuple(was) if isinstance(was, list) else was
    return replace(settings, **taken)


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
    atomic_write_text(path, dumps(data, indent=1) + "\n")
