"""Fixtures shared by several test modules."""

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def ray_local() -> Iterator[Any]:
    """One local Ray of 2 CPUs for the session's Ray tests (skipped where the ray extra is not
    installed); the tests that use it are in the xdist group "ray", so one process starts it."""
    pytest.importorskip("ray")
    from training.ray_support import ray_session

    with ray_session(num_cpus=2) as ray:
        yield ray
