"""The ``--help`` of every command and subcommand, for the CLI reference page of the documentation.

:func:`command_helps` renders them from the real parsers (argparse for ``carcassonne`` and its
commands and for ``carcassonne train value``, tyro for the other trainers), so the page cannot
drift from the command. It imports every trainer module (the train extra's tyro, not torch).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import textwrap
from collections.abc import Iterator

from . import train
from .main import build_parser

__all__ = ["WIDTH", "command_helps"]

#: The width, in columns, the help texts are rendered at.
WIDTH = 100


@contextlib.contextmanager
def _plain_terminal() -> Iterator[None]:
    """argparse and tyro render as on a terminal of :data:`WIDTH` columns without colours (both read
    ``COLUMNS``; tyro colours only a terminal, and ``NO_COLOR`` turns off Python 3.14's argparse's)."""
    saved = {name: os.environ.get(name) for name in ("COLUMNS", "NO_COLOR")}
    os.environ.update(COLUMNS=str(WIDTH), NO_COLOR="1")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _trainer_help(trainer: train.Trainer, argv: list[str]) -> str:
    """What ``carcassonne train TRAINER ARGV --help`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        trainer.run([*argv, "--help"])
    return out.getvalue()


def _fit(text: str) -> str:
    """``text`` with every line within :data:`WIDTH` columns (tyro does not wrap the descriptions)
    and without trailing spaces."""
    lines: list[str] = []
    for line in text.rstrip().splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        lines.extend(textwrap.wrap(line, WIDTH, subsequent_indent=indent) if len(line) > WIDTH else [line.rstrip()])
    return "\n".join(lines) + "\n"


def command_helps() -> list[tuple[str, str]]:
    """``(command, help text)`` for ``carcassonne``, each of its commands in the parser's order (with
    its own subcommands: ``carcassonne bench engine``), ``carcassonne train``, each trainer, and each
    trainer's presets (``carcassonne train ppo quick``), rendered at :data:`WIDTH` columns without
    colour codes or trailing spaces."""
    helps: list[tuple[str, str]] = []
    with _plain_terminal():
        parser = build_parser()
        helps.append(("carcassonne", _fit(parser.format_help())))
        for name, command in _subcommands(parser).items():
            helps.append((f"carcassonne {name}", _fit(command.format_help())))
            if name != "train":  # the trainers parse their own arguments: below
                helps.extend((f"carcassonne {name} {sub}", _fit(p.format_help()))
                             for sub, p in _subcommands(command).items())
        for trainer in train.TRAINERS:
            helps.append((f"carcassonne train {trainer.name}", _fit(_trainer_help(trainer, []))))
            presets = getattr(importlib.import_module(trainer.module), "PRESETS", {})
            for preset in presets:
                helps.append((f"carcassonne train {trainer.name} {preset}", _fit(_trainer_help(trainer, [preset]))))
    return helps
