"""Bounded reading of the JSON a user names by path (``carcassonne replay RECORD``, ``carcassonne
play --resume FILE``, a trainer's ``state.json``). Standard library only. Rules:

* a file is read up to :data:`MAX_JSON_BYTES`; a larger one (or an endless one such as
  ``/dev/zero``) is refused by name, never read whole;
* a line of JSON lines is read up to the same bound (:func:`read_line`);
* what is not JSON — bad syntax, bytes that are not UTF-8, ``NaN``/``Infinity``, arrays or objects
  nested deeper than the parser can follow, integers longer than Python converts
  (``sys.get_int_max_str_digits()``, 4300 digits) — is one :class:`JSONInputError` naming the file.

Callers catch :class:`JSONInputError` (a ``ValueError``) and re-raise it as their own one-line error;
``OSError`` (no such file, a directory, no permission) is left to them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any

__all__ = ["MAX_JSON_BYTES", "JSONInputError", "load", "loads", "read_bytes", "read_line"]

#: The most bytes read of one JSON file (or one line of JSON lines): 64 MiB, far above any game,
#: save or state file the project writes.
MAX_JSON_BYTES = 64 * 2**20


class JSONInputError(ValueError):
    """A JSON input that cannot be used: ``WHERE: REASON`` in one line (``reason`` alone, to be put
    in another message)."""

    def __init__(self, where: object, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.reason = reason


def _too_big(where: object) -> JSONInputError:
    return JSONInputError(where, f"larger than {MAX_JSON_BYTES // 2**20} MiB, the most read of a JSON input")


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``, at most :data:`MAX_JSON_BYTES` (a larger file is refused)."""
    with open(path, "rb") as f:
        data = f.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise _too_big(path)
    return data


def read_line(f: IO[bytes], where: object) -> bytes:
    """The next line of ``f`` (``b""`` at its end), at most :data:`MAX_JSON_BYTES` (a longer one is refused)."""
    line = f.readline(MAX_JSON_BYTES + 1)
    if len(line) > MAX_JSON_BYTES:
        raise _too_big(where)
    return line


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: str | bytes, where: object) -> Any:
    """The JSON value of ``data`` read from ``where`` (named in the error)."""
    try:
        return json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise JSONInputError(where, "not JSON (nested too deeply)") from None
    except UnicodeDecodeError:
        raise JSONInputError(where, "not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as e:
        raise JSONInputError(where, f"not JSON ({e})") from None
    except ValueError as e:  # an integer beyond Python's digit limit, or NaN/Infinity
        reason = str(e) if "is not JSON" in str(e) else f"a number of more than {sys.get_int_max_str_digits()} digits"
        raise JSONInputError(where, f"not JSON ({reason})") from None


def load(path: str | Path) -> Any:
    """The JSON value of the file ``path``, read within :data:`MAX_JSON_BYTES`."""
    return loads(read_bytes(path), path)
