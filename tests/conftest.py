"""Test-session settings and shared fixtures.

One compute thread per process: CI runs pytest with two xdist workers on two cores; torch's default
of one thread per core would make each worker fight the other for both cores (several times slower
than one thread each, see training/common/threads.py). Set before any test imports torch or numpy's BLAS.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

#: A test that takes longer than this on an idle machine is marked ``slow``: ``-m "not slow"`` is the
#: contributors' quick run.
SLOW_SECONDS = 10.0
#: The guard's bound: an unmarked test that runs longer fails, naming the marker. Two and a half times
#: :data:`SLOW_SECONDS`, because CI runs two xdist workers on two cores (a test's time there is up to
#: twice its idle time); ``CARCASSONNE_SLOW_GUARD`` sets it (the guard's own test).
GUARD_SECONDS = float(os.environ.get("CARCASSONNE_SLOW_GUARD", 2.5 * SLOW_SECONDS))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    """Fail a passing test that ran over :data:`GUARD_SECONDS` without the ``slow`` marker."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if (report.when == "call" and report.passed and report.duration > GUARD_SECONDS
            and item.get_closest_marker("slow") is None):
        report.outcome = "failed"
        report.longrepr = (f"an unmarked slow test: it took {report.duration:.1f} s (the guard is "
                           f"{GUARD_SECONDS:g} s); mark it @pytest.mark.slow (every test over {SLOW_SECONDS:g} s "
                           "on an idle machine is)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Notebooks run as tests (nbmake) are slow by nature: each starts a kernel and trains or plays."""
    for item in items:
        if str(item.fspath).endswith(".ipynb"):
            item.add_marker(pytest.mark.slow)


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


@pytest.fixture
def ray_cluster() -> Iterator[Any]:
    """A multi-node Ray cluster simulated on this machine (``ray.cluster_utils.Cluster``): a head
    node of 1 CPU, with this process connected as the driver; the test adds the other nodes. The
    session's local Ray (:func:`ray_local`, same xdist group "ray") is stopped for the test and
    started again after it. Skipped, loudly, only where Ray cannot start the cluster."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    from training.arena.ray_support import local_options

    shared = ray.is_initialized()
    if shared:
        ray.shutdown()
    try:
        cluster = Cluster(initialize_head=True, head_node_args=CLUSTER_NODE)
        ray.init(address=cluster.address, logging_level="warning")
    except Exception as e:  # whatever stops Ray from starting here
        message = f"RAY CANNOT START A MULTI-NODE CLUSTER HERE, the multi-node tests are skipped: {e!r}"
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
        if shared:
            ray.init(**local_options(2), logging_level="warning")


#: Every simulated node: one CPU, a small object store, no dashboard.
CLUSTER_NODE: dict[str, Any] = {"num_cpus": 1, "object_store_memory": 80 * 1024**2, "include_dashboard": False}


@pytest.fixture
def figure_titles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The titles (the figure's own, then each of its axes') of every matplotlib figure saved while the
    test runs, in order: what a picture says it shows."""
    from matplotlib.figure import Figure

    titles: list[str] = []
    save = Figure.savefig

    def saving(figure: Figure, *args: Any, **kwargs: Any) -> Any:
        suptitle = figure.get_suptitle()
        titles.extend(t for t in (suptitle, *(ax.get_title() for ax in figure.axes)) if t)
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", saving)
    return titles
