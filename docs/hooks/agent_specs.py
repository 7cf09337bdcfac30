"""mkdocs hook: the page ``agent-specs.md``, every built-in agent's options and their ranges, made at build time.

The table comes from the spec parser itself (:func:`agents.spec.option_reference`: the ranges it checks
when a spec is parsed), so the page cannot drift from the code; the page exists only in the built site
(no ``docs/agent-specs.md`` in the repository).
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

PAGE = "agent-specs.md"

INTRO = """\
# Agent specs

Every agent is named by a spec string, `NAME:key=value,key=value` ([the parser](api/agents.md)). Each option of
a built-in agent has a range, checked when the spec is parsed, before anything is built: a value outside it is
refused in one line naming the option and its range (`mcts: option sims=1000000 is out of its range 1 to
100000`). Integers are plain digits (no `1_0`, no `1e3`), numbers are finite decimals.

**Where a spec may come from.** On the command line (or in your own code) a spec may name anything: a
file of yours (`path/to/agent.py:MyAgent`), a module (`mymodule:MyAgent`), a model at a path
(`ppo:runs/ppo/final.zip`). A spec read from a file (a saved game, a tournament's store, a model's
metadata) or sent as a request (a hint at the table) may name only a built-in agent whose options name
no file: the keys below (`ppo:pooled`, `afterstate:pretrained`, `greedy:value=linear`). Anything else is
refused before a module is imported or a file is opened ([Reliability](reliability.md#trust)).

This table is made from the code when the site is built.

"""


def render(table: str) -> str:
    """The page's Markdown: :data:`INTRO`, then the table (an empty one is an error)."""
    if table.count("\n") < 3:
        raise PluginError("no built-in agent to document: option_reference() returned no rows")
    return INTRO + table


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from agents.spec import option_reference  # the project, installed in the venv that runs mkdocs

    if files.get_file_from_path(PAGE) is not None:
        raise PluginError(f"docs/{PAGE} is made by {__name__}: remove the file from docs/")
    files.append(File.generated(config, PAGE, content=render(option_reference())))
    return files
