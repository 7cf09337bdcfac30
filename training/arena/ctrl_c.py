"""Ctrl-C held back while a run stops what it started (a process pool, a local Ray), so that the
stopping is never cut short: a Ctrl-C pressed meanwhile is raised once it is done."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ctrl_c_deferred"]


@contextmanager
def ctrl_c_deferred() -> Iterator[list[int]]:
    """Ctrl-C held back for the block (in the main thread, the only one Python interrupts): the list
    yielded records each one, and one pressed meanwhile is raised as KeyboardInterrupt after it."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt
