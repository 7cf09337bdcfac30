"""The one dialect of the ``carcassonne`` command and of every trainer behind ``carcassonne train``.

Rules (the CLI reference page states them too):

1. A list is one argument, comma-separated: ``--expansions tower,black_tower``, ``--anchors
   random,greedy``; ``''`` is the empty list. A part ``key=value`` with no ``:`` before its ``=``
   continues the agent spec before it, so ``mcts:sims=20,guide=1,greedy`` is two agents
   (:func:`spec_list`).
2. A boolean is a pair of flags, ``--x`` and ``--no-x`` (``--progress`` / ``--no-progress``).
3. The same thing has the same name everywhere: ``--seed`` (the first tile order), ``--workers``,
   ``--out``, ``--device``, ``--threads``, ``--resume``, ``--progress``, ``--expansions``.
4. Output goes by default to ``runs/<command>/<preset>`` (``runs/<command>`` for a command
   without presets).
5. A flag's old spelling is refused in one line that names the new one, exit status 2
   (:func:`refuse_old_spellings`), never silently accepted.

The main command is argparse; the trainers are tyro dataclass CLIs, which :func:`comma_lists`
teaches rule 1. This module imports no tyro until :func:`comma_lists` runs (the main command does
not need the train extra).
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agents.extras import optional_imports
from carcassonne_env.argtypes import names

if TYPE_CHECKING:
    from tyro.constructors import ConstructorRegistry

__all__ = ["comma_lists", "list_flags", "names", "preset_help", "refuse_old_spellings", "spec_list"]


def spec_list(text: str) -> tuple[str, ...]:
    """Comma-separated agent specs whose own options stay with them: a part ``key=value`` with no
    ``:`` before its ``=`` continues the spec before it, so ``mcts:sims=20,guide=1,greedy`` is
    ``mcts:sims=20,guide=1`` and ``greedy``. Plain names (``tower,black_tower``) split as
    :func:`names` does."""
    specs: list[str] = []
    for part in names(text):
        if specs and "=" in part and ":" not in part.split("=", 1)[0]:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return tuple(specs)


def refuse_old_spellings(argv: Sequence[str], prog: str, renamed: Mapping[str, str] = {},
                         lists: Iterable[str] = ()) -> None:
    """Exit with status 2 and one line on stderr when ``argv`` uses a spelling the dialect dropped:
    a flag of ``renamed`` (old → new, e.g. ``--first-seed`` → ``--seed``), or a list flag of
    ``lists`` given the old way, as several arguments (``--expansions tower black_tower``) or as
    none (``--expansions --seed 1``). Arguments after ``--`` are not looked at."""
    spaced = set(lists)
    for i, arg in enumerate(argv):
        if arg == "--":
            return
        flag, has_value, _ = arg.partition("=")
        if flag in renamed:
            _refuse(prog, f"{flag} was renamed {renamed[flag]}")
        if flag not in spaced or has_value:
            continue
        rest = list(argv[i + 1:i + 3])
        if not rest or rest[0].startswith("--"):
            _refuse(prog, f"{flag} takes one comma-separated list: {flag} A,B ('' for none)")
        if len(rest) == 2 and not rest[1].startswith("-"):
            _refuse(prog, f"{flag} takes one comma-separated list: {flag} {rest[0]},{rest[1]}, not {flag} "
                          f"{rest[0]} {rest[1]}")


def _refuse(prog: str, message: str) -> None:
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def preset_help(summary: str, prog: str, example: str) -> str:
    """The ``--help`` description of a trainer with presets: ``summary``, then how its command line
    goes (``example``: a preset and an override, e.g. ``quick --total-steps 50000``)."""
    return (f"{summary} Choose a preset, then override any setting: {prog} {example} ({prog} PRESET --help lists "
            f"the settings; a list is one comma-separated argument, a boolean --x / --no-x). Output: "
            f"runs/{prog.split()[-1]}/PRESET unless --out says otherwise; --resume continues a run there.")


def list_flags(settings: type) -> tuple[str, ...]:
    """The flags of the tuple fields of the dataclass ``settings`` (``--fixed-opponents`` ...): the
    ``lists`` of :func:`refuse_old_spellings` for a trainer."""
    hints = typing.get_type_hints(settings)
    return tuple("--" + name.replace("_", "-") for name, hint in hints.items() if typing.get_origin(hint) is tuple)


_ITEMS: dict[Any, tuple[str, Callable[[str], tuple[Any, ...]]]] = {
    str: ("STR,STR", spec_list),
    int: ("INT,INT", lambda text: tuple(int(v) for v in names(text))),
    float: ("FLOAT,FLOAT", lambda text: tuple(float(v) for v in names(text))),
}


def comma_lists() -> ConstructorRegistry:
    """A tyro constructor registry under which every ``tuple[str | int | float, ...]`` field is one
    comma-separated argument (rule 1): pass it as ``registry=`` to ``tyro.cli`` or
    ``tyro.extras.overridable_config_cli``."""
    with optional_imports("the trainers' command lines"):
        from tyro.constructors import ConstructorRegistry, PrimitiveConstructorSpec, PrimitiveTypeInfo

    registry = ConstructorRegistry()

    @registry.primitive_rule
    def _rule(info: PrimitiveTypeInfo) -> PrimitiveConstructorSpec[Any] | None:
        args = typing.get_args(info.type)
        if info.type_origin is not tuple or len(args) != 2 or args[1] is not Ellipsis or args[0] not in _ITEMS:
            return None
        item = args[0]
        metavar, parse = _ITEMS[item]

        def from_text(values: list[str]) -> tuple[Any, ...]:
            try:
                return parse(values[0])
            except ValueError:
                raise ValueError(f"expected comma-separated {item.__name__} values, got {values[0]!r}") from None

        return PrimitiveConstructorSpec(
            nargs=1, metavar=metavar, instance_from_str=from_text,
            is_instance=lambda value: isinstance(value, tuple) and all(isinstance(v, item) for v in value),
            str_from_instance=lambda value: [",".join(map(str, value))])

    return registry
