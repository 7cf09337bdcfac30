"""Checks of the trainers' settings at the edge: each refusal is a :class:`SettingError` naming the
command-line flag, the rule and the value, raised before any run starts (issue 21, item 4)."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig
from carcassonne_env.jsonio import JSONInputError, load

__all__ = ["SEED_LIMIT", "SettingError", "check_agents", "check_device", "check_out", "finite", "flag", "is_int",
           "need", "read_state", "run_state"]

#: Seeds are below this: numpy's and torch's global seeds (``np.random.seed``) take 32-bit integers.
SEED_LIMIT = 2**32


class SettingError(ValueError):
    """A setting no run can use; the message starts with the flag."""


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
    it: :func:`agents.compat.check_fits`)."""
    from agents.compat import check_fits
    from agents.spec import make_agent

    for spec in specs:
        try:
            check_fits(make_agent(spec, seed=0), config, spec)
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
    ``fresh`` present, of its kind; ``settings`` an object; a field of ``choices`` one of its values).
    A SettingError names ``--resume``, the file and the field."""
    try:
        state = load(path)
    except OSError as e:
        raise SettingError(f"--resume: cannot read {path} ({e.strerror or e})") from None
    except JSONInputError as e:
        raise SettingError(f"--resume: {e}") from None
    if not isinstance(state, dict):
        raise SettingError(f"--resume: {path}: not a run's state (expected a JSON object)")
    for name, like in {"settings": {}, **fresh}.items():
        if name not in state:
            raise SettingError(f"--resume: {path}: field {name!r} is missing")
        wanted = _field_error(state[name], like, (choices or {}).get(name))
        if wanted is not None:
            raise SettingError(f"--resume: {path}: field {name!r} must be {wanted}, got {state[name]!r}")
    return state


def run_state(settings: Any, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
              before: Mapping[str, Any] | None = None,
              choices: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """The state of the run in ``out`` (its ``state.json``) when ``settings.resume``, else ``fresh``
    for a new run (``out`` is created and ``fresh`` saved as its ``state.json``). Refused by name:
    resuming where no run is, a new run where one is, and resuming with other values of the
    settings (a dataclass) not in ``resumable``, and a saved state whose fields are not those of
    ``fresh`` (:func:`read_state`; ``choices``: the values some fields may take).
    ``before`` gives settings added after a run was saved the value that run was computed with
    (not the dataclass's default, which may differ)."""
    state_path = out / "state.json"
    if settings.resume:
        if not state_path.exists():
            raise SettingError(f"--resume: no run in {out} (expected state.json)")
        state = read_state(state_path, fresh, choices)
        fields = {**(before or {}),
                  **{k: tuple(v) if isinstance(v, list) else v for k, v in state["settings"].items()}}
        try:
            saved = type(settings)(**fields)
        except TypeError as e:  # a field no setting has
            raise SettingError(f"--resume: {state_path}: field 'settings': {e}") from None
        keep = set(resumable)
        changed = sorted(k for k in asdict(settings) if k not in keep and getattr(settings, k) != getattr(saved, k))
        if changed:
            raise SettingError(f"--resume: {out} was started with other settings: "
                               + ", ".join(f"{flag(k)} {getattr(saved, k)!r} (now {getattr(settings, k)!r})"
                                           for k in changed))
        return state
    if state_path.exists():
        raise SettingError(f"{out} already holds a run: pass --resume to continue it or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    write_json(state_path, fresh)  # at once: a run killed before its first step ends can be resumed
    return fresh


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON atomically (a temporary file, then a rename): a kill leaves the old file
    or the new one, never half of one. NaN and infinities are refused (JSON has none)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)
