"""How a Ctrl-C ends a ``carcassonne`` command: one line on stderr and exit status 130, at any moment
(the imports included: :func:`training.cli.entry_point` guards them). A run that can be continued
(``tournament``, ``evaluate``) says the command that continues it: the same arguments with
``--resume``. Imports only the standard library, so that it is ready before the command's imports.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

__all__ = [
    "INTERRUPTED", "RESUMABLE", "caused_by_ctrl_c", "command_name", "interrupted", "resume_command", "with_resume",
]

#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, what a shell reports).
INTERRUPTED = 130
#: The commands whose runs continue with ``--resume`` (the games already written are kept).
RESUMABLE = ("tournament", "evaluate")
_COMMANDS = ("play", "replay", *RESUMABLE, "bench", "train")


def command_name(argv: Sequence[str]) -> str:
    """``carcassonne COMMAND`` (``carcassonne train TRAINER``) of ``argv``, or ``carcassonne`` when
    ``argv`` names no command: the prefix of the command's messages."""
    if not argv or argv[0] not in _COMMANDS:
        return "carcassonne"
    if argv[0] == "train" and len(argv) > 1 and not argv[1].startswith("-"):
        return f"carcassonne train {argv[1]}"
    return f"carcassonne {argv[0]}"


def _is_resume_flag(arg: str) -> bool:
    """``--resume`` or ``--no-resume`` (also ``--resume=VALUE``), or a prefix argparse takes for one
    of them (``--res``)."""
    name = arg.partition("=")[0]
    return any(len(name) >= len(least) and flag.startswith(name)
               for flag, least in (("--resume", "--r"), ("--no-resume", "--no-r")))


def with_resume(command: Sequence[str], args: Sequence[str]) -> str:
    """``COMMAND ARGS`` with ``--resume`` in place of any ``--resume`` / ``--no-resume`` (and before a
    ``--``), quoted for a POSIX shell: the command line that continues the run ``COMMAND ARGS``
    started (every command that resumes spells it ``--resume``)."""
    end = list(args).index("--") if "--" in args else len(args)
    options = [a for a in args[:end] if not _is_resume_flag(a)]
    return shlex.join([*command, *options, "--resume", *args[end:]])


def resume_command(argv: Sequence[str]) -> str | None:
    """The command line that continues the run ``carcassonne ARGV`` started (:func:`with_resume`);
    None for a command that is not :data:`RESUMABLE`."""
    if not argv or argv[0] not in RESUMABLE:
        return None
    return with_resume(["carcassonne", argv[0]], argv[1:])


def caused_by_ctrl_c(error: BaseException) -> bool:
    """``error`` is a KeyboardInterrupt, or was raised while one was handled: a C extension whose
    import a Ctrl-C interrupted raises ``ImportError: initialization failed``, and a library may turn
    it into its own error."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def interrupted(argv: Sequence[str]) -> int:
    """Say that ``carcassonne ARGV`` was interrupted (and how to resume it) in one line on stderr;
    :data:`INTERRUPTED`."""
    resume = resume_command(argv)
    print(f"{command_name(argv)}: interrupted" + (f" — resume with: {resume}" if resume else ""), file=sys.stderr)
    return INTERRUPTED
