"""Absolute paths of the machine that wrote a file (a home directory, a scratch directory, a checkout's
location): none belongs in the repository, its ``--help`` texts or the built site, which every reader sees
from another machine. Used by tests/test_no_machine_paths.py (the tracked files) and tests/test_docs_site.py
(the built site).

A path is *absolute* when it starts at ``/`` under one of :data:`ROOTS` (or at ``C:\\Users\\``), not as
the tail of a longer word, URL or relative path (``runs/tmp/x``, ``../work/x``, ``github.com/x/home`` are
not). The few absolute paths that name the same thing on every machine are allowed, each with its reason
(:data:`ALLOWED`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: Top-level directories of Unix-like systems (and the macOS and Windows home directories).
ROOTS = ("home", "root", "tmp", "work", "workspace", "Users", "mnt", "media", "opt", "srv", "scratch", "data",
         "var", "usr", "etc", "dev", "proc", "sys", "private", "run", "nix", "bin", "lib")

# Not preceded by a word character, a dot, a dash, a tilde, `}`, `)`, `$` or a backslash: those make the
# path relative to something (`runs/tmp`, `../tmp`, `~/tmp`, `${OUT}/tmp`, `$(pwd)/tmp`).
PATTERN = re.compile(r"(?<![\w.~\-})$\\])/(?:" + "|".join(ROOTS) + r")/[^\s\"'`)\]<>,;]*"
                     r"|\b[A-Za-z]:\\(?:Users|home)\\[^\s\"'`)\]<>,;]*")

#: (path pattern, why it may stand in the tree): each names the same file on every machine. (The slashes are
#: escaped so that this file does not name the paths it allows.)
ALLOWED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\/usr\/bin\/env$"), "a script's shebang line: the portable way to find its interpreter"),
    (re.compile(r"\/usr\/bin\/time$"), "GNU time, the measuring command the docs name with its options"),
    (re.compile(r"\/usr\/bin\/(chromium|chromedriver)$"), "Debian's Chromium package, the browser tests' fallback"),
    (re.compile(r"\/dev\/(null|zero)$"), "POSIX device files"),
    (re.compile(r"\/proc\/(self|\{pid\})\/stat$"), "Linux's process table, read by the process-watching tests"),
)


def machine_paths(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, path)`` for each absolute path in ``text`` that :data:`ALLOWED` does not allow."""
    for number, line in enumerate(text.splitlines(), 1):
        for match in PATTERN.finditer(line):
            path = match.group().rstrip(".:")
            if not any(allowed.match(path) for allowed, _ in ALLOWED):
                yield number, path
