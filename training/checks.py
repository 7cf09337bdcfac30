"""Checks of the trainers' settings at the edge: each refusal is a :class:`SettingError` naming the
command-line flag, the rule and the value, raised before any run starts (issue 21, item 4)."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig

__all__ = ["SEED_LIMIT", "SettingError", "check_agents", "check_device", "check_out", "finite", "flag", "is_int",
           "need", "run_state"]

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
    """A torch device name: cpu, cuda, cuda:N (and auto where the trainer chooses)."""
    names = "auto, cpu, cuda or cuda:N" if auto else "cpu, cuda or cuda:N"
    need(re.fullmatch(r"cpu|cuda(:\d+)?" + ("|auto" if auto else ""), device) is not None, "device",
         f"expected {names}", device)


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


def run_state(settings: Any, out: Path, resumable: Iterable[str], fresh: dict[str, Any],
              before: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The state of the run in ``out`` (its ``state.json``) when ``settings.resume``, else ``fresh``
    for a new run (``out`` is created and ``fresh`` saved as its ``state.json``). Refused by name:
    resuming where no run is, a new run where one is, and resuming with other values of the
    settings (a dataclass) not in ``resumable``.
    ``before`` gives settings added after a run was saved the value that run was computed with
    (not the dataclass's default, which may differ)."""
    state_path = out / "state.json"
    if settings.resume:
        if not state_path.exists():
            raise SettingError(f"--resume: no run in {out} (expected state.json)")
        state: dict[str, Any] = json.loads(state_path.read_text())
        fields = {**(before or {}),
                  **{k: tuple(v) if isinstance(v, list) else v for k, v in state["settings"].items()}}
        saved = type(settings)(**fields)
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
