"""Files that survive kills and concurrent runs: atomic writes, strict JSON, a lock per output
directory, content hashes of agent files.

Invariants (docs/reliability.md):

* a file written with :func:`atomic_write_text` / :func:`atomic_write_bytes` / :func:`atomic_path`
  is, at every instant, either its whole previous content or its whole new content: the new content
  goes to a temporary file in the same directory, is flushed to disk, then ``os.replace``\\ d over
  the old one (a kill leaves at most a stray ``*.tmp*`` file, never a short file);
* JSON written by the project is strict (:func:`dumps`: ``allow_nan=False``): no ``NaN`` or
  ``Infinity``; a non-finite float must be converted by the caller (:func:`finite_or_label`);
* while a :class:`RunLock` is held on a directory, a second :class:`RunLock` on it fails with
  :class:`LockError` naming the holder (pid, host, start time); the lock is an ``fcntl`` lock on
  ``DIR/.lock``, released by the kernel when its process dies, so the lock of a killed run is
  stale and taken over by the next run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

__all__ = [
    "LOCK_FILE", "FileLock", "LockError", "RunLock", "atomic_copy", "atomic_path", "atomic_write_bytes",
    "atomic_write_text", "dumps", "file_sha256", "finite_or_label",
]

LOCK_FILE = ".lock"
#: Seconds to wait for the lock of a holder that is dead: a process it forked may hold the lock's open
#: file for a moment after it (the start of an agent's process, between its fork and its exec).
STALE_RELEASE_SECONDS = 2.0


def dumps(data: Any, **kwargs: Any) -> str:
    """``json.dumps`` that refuses NaN and infinities (ValueError) instead of writing non-JSON."""
    return json.dumps(data, allow_nan=False, **kwargs)


def finite_or_label(x: float) -> float | str | None:
    """A float for strict JSON: finite values as they are, ±inf as the strings ``"+inf"`` / ``"-inf"``,
    NaN as null."""
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return x


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path next to ``path`` (same suffix) to write; on a normal exit it is flushed and
    moved over ``path`` in one ``os.replace``; on an exception it is removed and ``path`` untouched."""
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp" + path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically (module docstring)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` (UTF-8) atomically (module docstring)."""
    atomic_write_bytes(path, text.encode())


def atomic_copy(source: Path, path: Path) -> None:
    """Replace ``path`` by a copy of the file ``source`` atomically (module docstring)."""
    atomic_write_bytes(path, Path(source).read_bytes())


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class LockError(RuntimeError):
    """Another live process holds the lock on an output directory."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunLock:
    """An exclusive lock on an output directory for the lifetime of one run (a context manager).

    ``DIR/.lock`` holds the holder's ``{"pid", "host", "started"}``; the exclusion itself is an
    ``fcntl.flock`` on that file, which the kernel drops when the holder dies, so a lock left by a
    killed run never blocks (it is *stale*: :attr:`took_over` tells, with the dead holder's data in
    :attr:`previous`). On systems without ``fcntl`` the holder's pid is checked instead (same host).
    """

    def __init__(self, directory: Path, what: str = "run") -> None:
        self.directory = Path(directory)
        self.what = what
        self.path = self.directory / LOCK_FILE
        self.took_over = False
        self.previous: dict[str, Any] | None = None
        self._file: IO[str] | None = None

    def _holder(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path.read_text() or "null")
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _refuse(self, holder: dict[str, Any] | None) -> LockError:
        if holder is None:
            return LockError(f"{self.directory} is in use by another {self.what} (lock {self.path})")
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(holder.get("started", 0))))
        return LockError(f"{self.directory} is in use by another {self.what}: pid {holder.get('pid')} on host "
                         f"{holder.get('host')}, started {started} (lock {self.path}); wait for it to finish or "
                         "choose another directory")

    def acquire(self) -> RunLock:
        """Take the lock or raise :class:`LockError` naming the live holder."""
        self.directory.mkdir(parents=True, exist_ok=True)
        f = self.path.open("a+")
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: the holder's pid decides
            holder = self._holder()
            if holder and holder.get("host") == socket.gethostname() and _pid_alive(int(holder.get("pid", 0))) \
                    and int(holder.get("pid", 0)) != os.getpid():
                f.close()
                raise self._refuse(holder) from None
        else:
            deadline = time.monotonic() + STALE_RELEASE_SECONDS
            while True:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    holder = self._holder()
                    dead = holder is not None and holder.get("host") == socket.gethostname() \
                        and not _pid_alive(int(holder.get("pid", 0)))
                    if not dead or time.monotonic() > deadline:
                        f.close()
                        raise self._refuse(holder) from None
                    time.sleep(0.05)  # a killed holder: its lock goes with its last process (below)
        self.previous = self._holder()
        self.took_over = self.previous is not None
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}))
        f.flush()
        self._file = f
        return self

    def release(self) -> None:
        """Drop the lock (the file is emptied: an empty lock file is a free one)."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.seek(0)
                self._file.truncate()
            self._file.close()  # closing drops the flock
            self._file = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


class FileLock(RunLock):
    """A :class:`RunLock` for a command whose output is one file ``FILE``, not a directory: the lock
    is ``.FILE.lock`` beside it, so other files of that directory stay free."""

    def __init__(self, file: Path, what: str = "run") -> None:
        super().__init__(Path(file).parent, what)
        self.path = self.directory / f".{Path(file).name}.lock"
