"""Ray, imported only when asked for: the ``ray`` extra, a local Ray or a cluster, one error type
(and :class:`~agents.extras.MissingExtra` naming the ray extra when Ray is not installed).

Both Ray users of the project (the tournament's ``ray`` back-end and the RLlib trainer) start Ray
through :func:`ray_session`: with no address it starts a private local Ray (``num_cpus`` cores, no
dashboard, a small object store, so that it starts in seconds on a small machine; never the cluster
a ``ray start`` left running on the machine); with an address
(``auto``, ``HOST:PORT`` of ``ray start --head``, or ``ray://HOST:10001``) it connects to that
cluster. A session that finds Ray already initialised in the process uses it and leaves it running.
A Ctrl-C reaches the driver alone: the processes of a local Ray start with SIGINT blocked, and the
shutdown that ends them finishes before the Ctrl-C is raised.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from agents.extras import optional_imports

from .ctrl_c import ctrl_c_deferred

__all__ = ["CONNECT_SECONDS", "LOCAL_OBJECT_STORE_BYTES", "RayError", "import_ray", "local_options", "ray_session"]

#: How long an address may take to accept a connection.
CONNECT_SECONDS = 5.0
#: Object store of a local Ray started by :func:`ray_session` (games and weights are small).
LOCAL_OBJECT_STORE_BYTES = 200 * 1024**2


class RayError(RuntimeError):
    """The cluster cannot be reached, or a local Ray cannot start."""


def import_ray(needed_by: str = "--backend ray") -> ModuleType:
    """The ``ray`` module, or :class:`~agents.extras.MissingExtra` naming ``needed_by`` and the ray extra."""
    with optional_imports(needed_by, "ray"):
        import ray
    return ray


def _check_reachable(address: str) -> None:
    """:class:`RayError` unless a ``HOST:PORT`` address accepts a connection within
    :data:`CONNECT_SECONDS` (Ray itself retries an unreachable address for many minutes); ``auto``
    and ``ray://`` addresses are left to Ray."""
    if address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except ValueError:
        raise RayError(f"--address: expected auto, HOST:PORT or ray://HOST:PORT, got {address!r}") from None
    except OSError as e:
        raise RayError(f"--address: no Ray cluster answers at {address} ({e}); start one with "
                       "'ray start --head'") from None


def local_options(num_cpus: int | None, object_store_bytes: int = LOCAL_OBJECT_STORE_BYTES) -> dict[str, Any]:
    """``ray.init`` arguments of the private local Ray :func:`ray_session` starts: ``num_cpus``
    cores (all when None), no dashboard, an object store of ``object_store_bytes``; never the
    cluster that `ray start` left on this machine or RAY_ADDRESS names."""
    return {"address": "local", "num_cpus": num_cpus, "include_dashboard": False,
            "object_store_memory": object_store_bytes}


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None,
                object_store_bytes: int = LOCAL_OBJECT_STORE_BYTES,
                needed_by: str = "--backend ray") -> Iterator[ModuleType]:
    """Ray started locally with ``num_cpus`` cores (all when None) and an object store of
    ``object_store_bytes``, or connected to ``address`` (whose store ``ray start`` sized); shut down on
    exit if this session started or connected it. Without Ray installed,
    :class:`~agents.extras.MissingExtra` naming ``needed_by``."""
    ray = import_ray(needed_by)
    if address is not None:
        _check_reachable(address)
    if ray.is_initialized():
        yield ray
        return
    from agents.isolation import ctrl_c_blocked

    kwargs = local_options(num_cpus, object_store_bytes) if address is None else {"address": address}
    try:
        with ctrl_c_blocked():  # a local Ray's processes never see the terminal's Ctrl-C: shutdown ends them
            ray.init(**kwargs, logging_level="warning", log_to_driver=True)
    except (ConnectionError, ValueError, RuntimeError) as e:
        where = f"the Ray cluster at {address!r}" if address else "a local Ray"
        raise RayError(f"cannot start or reach {where}: {e}") from None
    try:
        yield ray
    finally:
        with ctrl_c_deferred():
            ray.shutdown()
