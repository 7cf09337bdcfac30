"""mkdocs hook: the page ``cli.md``, the ``--help`` of every ``carcassonne`` command, made at build time.

The text comes from the parsers themselves (:func:`training.cli.reference.command_helps`: each command line
with its help at 100 columns, no colours), so the page cannot drift from the CLI. The page exists only in
the built site (no ``docs/cli.md`` in the repository); each command is a section titled by its command line,
so ``cli.md#carcassonne-train-ppo`` links to ``carcassonne train ppo``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

PAGE = "cli.md"

INTRO = """\
# CLI reference

Every command of `carcassonne`, with the `--help` it prints (made from the parsers when the site is built).
The [home page](index.md) has the quick start; the pages of the nav say what each command is for. A bad
argument is reported in one line on stderr with exit status 2.
"""


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``, so the block cannot end early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def render(helps: Sequence[tuple[str, str]]) -> str:
    """The page's Markdown: :data:`INTRO`, then for each ``(command line, help text)`` a section with the
    command line as its heading and the help in a code block. An empty list is an error."""
    if not helps:
        raise PluginError("no command to document: command_helps() returned nothing")
    sections = [INTRO]
    for command, help_text in helps:
        fence = _fence(help_text)
        sections.append(f"## {command}\n\n{fence}text\n{help_text.rstrip()}\n{fence}\n")
    return "\n".join(sections)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from training.cli.reference import command_helps  # the project, installed in the venv that runs mkdocs

    if files.get_file_from_path(PAGE) is not None:
        raise PluginError(f"docs/{PAGE} is made by {__name__}: remove the file from docs/")
    files.append(File.generated(config, PAGE, content=render(command_helps())))
    return files
