"""How many torch threads to use on a shared machine."""

from __future__ import annotations

import os

__all__ = ["free_cores"]


def free_cores() -> int:
    """Cores this process may run on (``os.sched_getaffinity``) less the one-minute load average,
    rounded, at least 1: torch with more threads than free cores is several times slower when other
    jobs compete for them."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, round(cores - os.getloadavg()[0])))
