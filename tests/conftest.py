"""Test-session settings and shared fixtures.

One compute thread per process: CI runs pytest with two xdist workers on two cores; torch's default
of one thread per core would make each worker fight the other for both cores (several times slower
than one thread each, see training/sb3/threads.py). Set before any test imports torch or numpy's BLAS.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")


@pytest.fixture(scope="session")
def ray_local() -> Iterator[Any]:
    """One local Ray of 2 CPUs for the session's Ray tests (skipped where the ray extra is not
    installed); the tests that use it are in the xdist group "ray", so one process starts it."""
    pytest.importorskip("ray")
    from training.arena.ray_support import ray_session

    with ray_session(num_cpus=2) as ray:
        yield ray


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """torch on one thread for the test, restored after it (a test in this process may have set
    more): tiny convolutions run fastest on one thread, and the test machine is shared."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
