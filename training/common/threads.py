"""How many torch threads to use on a shared machine."""

from __future__ import annotations

import os

__all__ = ["MAX_DEFAULT_THREADS", "free_cores", "torch_threads", "use_torch_threads"]

#: The most threads :func:`torch_threads` chooses: the networks are small, two threads were fastest
#: on a quiet 2-core machine.
MAX_DEFAULT_THREADS = 2


def free_cores() -> int:
    """Cores this process may run on (``os.sched_getaffinity``) less the one-minute load average,
    rounded, at least 1: torch with more threads than free cores is several times slower when other
    jobs compete for them."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, round(cores - os.getloadavg()[0])))


def torch_threads(threads: int) -> int:
    """The torch threads of a trainer's ``--threads``: ``threads`` when given (≥ 1), else (0) the
    free cores, at least 1 and at most :data:`MAX_DEFAULT_THREADS`."""
    return threads or min(MAX_DEFAULT_THREADS, free_cores())


def use_torch_threads(threads: int, command: str) -> int:
    """Set torch's threads to :func:`torch_threads` of a trainer's ``--threads`` and return them; a missing
    torch is one line naming ``command`` and the train extra."""
    from agents.extras import optional_imports

    with optional_imports(command, "train"):
        import torch
    torch.set_num_threads(n := torch_threads(threads))
    return n
