"""A run's progress as it goes: its clock across resumes, and its JSON-lines logs.

* :class:`RunClock`: the seconds a run has worked, over every invocation: those its state saved,
  plus this process's own. A trainer saves :meth:`RunClock.seconds` in its state whenever work
  reaches the disk, so a resumed run's training hours continue from there.
* :func:`tensorboard_log`: the run's TensorBoard writer in ``OUT/tensorboard``.
* :func:`append_line` / :func:`keep_until`: a log of one JSON object a line, each with the step
  (``iteration``) it reports; a resume drops the lines of the steps its checkpoint does not hold
  (lost with the interruption) and a line cut short by a kill.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agents.extras import optional_imports

from .storage import atomic_write_text

__all__ = ["RunClock", "append_line", "keep_until", "tensorboard_log"]


class RunClock:
    """The seconds a run has worked: ``saved`` (its state's, from earlier invocations) and this
    process's since the clock was made. Each reading reads the wall clock once."""

    def __init__(self, saved: float = 0.0) -> None:
        self.saved = saved
        self.started = time.time()

    def seconds(self) -> float:
        return self.saved + time.time() - self.started

    def hours(self) -> float:
        return self.seconds() / 3600


def tensorboard_log(out: Path, command: str) -> Any:
    """torch's ``SummaryWriter`` on ``OUT/tensorboard`` (``tensorboard --logdir OUT``); a missing torch or
    tensorboard is one line naming ``command`` and the train extra."""
    with optional_imports(command, "train"):
        from torch.utils.tensorboard import SummaryWriter
    return SummaryWriter(str(out / "tensorboard"))


def append_line(path: Path, row: dict[str, Any]) -> None:
    """Append ``row`` to the JSON-lines log ``path`` (a value JSON has no form for as its text)."""
    with path.open("a") as f:
        f.write(json.dumps(row, default=str) + "\n")


def keep_until(path: Path, iteration: int, key: str = "iteration") -> None:
    """Drop the lines of the log ``path`` whose ``key`` is after ``iteration``, and any line that is
    not a JSON object with an integer ``key`` (one cut short by a kill); rewritten atomically."""
    def kept(line: str) -> bool:
        try:
            row = json.loads(line)
        except ValueError:
            return False
        return isinstance(row, dict) and isinstance(row.get(key), int) and row[key] <= iteration

    if path.exists():
        lines = path.read_text(errors="replace").splitlines()
        atomic_write_text(path, "".join(line + "\n" for line in lines if kept(line)))
