"""Every ``--help`` states the code's defaults (issue 74, point 6): each help text of every argparse
parser of the ``carcassonne`` command (its commands and subcommands, ``carcassonne train value``)
and of the module commands (``python -m carcassonne_env.bench`` ...) that says ``default X`` says
the default the code applies: the option's own default, or the constant the code falls back on when
the option is left out (:data:`DECIDED_LATER`). A default left to the code in words (``default: the
free cores``) may not be a number. And no help text or docs page states a number for a constant
(the move time limit, the web table's port, body limit, request deadline, stall timeout and hint
cap) other than the code's (:data:`STATED`).

The trainers' tyro help prints each setting's default from the settings' dataclass itself.
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

import pytest
from machine_paths import machine_paths

from agents.isolation import DEFAULT_MOVE_TIME_LIMIT
from carcassonne_env import bench as engine_bench
from carcassonne_env.play.server import DEFAULT_PORT, HINT_SECONDS, MAX_BODY, REQUEST_SECONDS, SOCKET_TIMEOUT
from training.arena.backends import DEFAULT_WORKERS
from training.cli.main import TOURNAMENT_SEEDS, build_parser
from training.cli.play_human import DEFAULT_SAVE

ROOT = Path(__file__).resolve().parents[1]

#: The argparse commands outside the ``carcassonne`` parser, each a module's ``main(argv)``.
MODULE_COMMANDS = {
    "carcassonne train value": "training.value.fit_linear",
    "python -m carcassonne_env.bench": "carcassonne_env.bench",
    "python -m carcassonne_env.demo": "carcassonne_env.demo",
    "python -m carcassonne_env.environment.measure_window": "carcassonne_env.environment.measure_window",
    "python -m carcassonne_env.environment.render": "carcassonne_env.environment.render",
    "python -m training.arena.tower_stats": "training.arena.tower_stats",
    "python -m training.sb3.bench_train": "training.sb3.bench_train",
    "python -m agents.bench": "agents.bench",
}

#: The defaults the code applies after parsing (the option's own default is None: "not given"), by
#: command and option.
DECIDED_LATER: dict[tuple[str, str], object] = {
    ("carcassonne play", "--port"): DEFAULT_PORT,
    ("carcassonne play", "--save"): DEFAULT_SAVE,
    ("carcassonne tournament", "--seeds"): TOURNAMENT_SEEDS,
    ("carcassonne tournament", "--workers"): DEFAULT_WORKERS,
    ("carcassonne tournament", "--move-time-limit"): DEFAULT_MOVE_TIME_LIMIT,
    ("carcassonne evaluate", "--move-time-limit"): DEFAULT_MOVE_TIME_LIMIT,
    ("python -m carcassonne_env.bench", "--games"): engine_bench.DEFAULT_GAMES,
}

_NUMBER = r"(\d+(?:\.\d+)?)"
#: Phrases that state a constant, in a help text or a docs page: (pattern, its number as group 1, the constant).
STATED: list[tuple[str, float]] = [
    (rf"{_NUMBER} s (?:a|per) decision", DEFAULT_MOVE_TIME_LIMIT),
    (rf"--move-time-limit`?[^.]{{0,60}}?\bdefault:? {_NUMBER}", DEFAULT_MOVE_TIME_LIMIT),
    (rf"--port`?,? \(?default:? {_NUMBER}", DEFAULT_PORT),
    (rf"\bbody is at most {_NUMBER} KiB", MAX_BODY / 1024),
    (rf"\bwithin {_NUMBER} s of its first byte", REQUEST_SECONDS),
    (rf"\bnever stall for {_NUMBER} s", SOCKET_TIMEOUT),
    (rf"--hint-seconds`? \(default:? {_NUMBER}", HINT_SECONDS),
]
#: The constants each docs page states (an index into :data:`STATED`): a page that stops stating one
#: is a test to update, not a check that passes on nothing.
DOCS_STATE = {"docs/play.md": [2, 3, 4, 5, 6], "docs/reliability.md": [0], "docs/tournament.md": [1]}


def _commands(prog: str, parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``parser`` and each of its subcommands' parsers, recursively, by command line."""
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(f"{prog} {name}", sub)


class _Parsing(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def _module_parser(module: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser ``module.main`` builds, caught when it parses."""
    try:
        main: Callable[[list[str]], object] = importlib.import_module(module).main
    except ModuleNotFoundError as e:  # an extra that is not installed (sb3 for bench_train)
        pytest.skip(f"{module} needs {e.name}")

    def caught(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> NoReturn:
        raise _Parsing(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", caught)
    with pytest.raises(_Parsing) as parsing:
        main([])
    return parsing.value.parser


def _parser(command: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    if command in MODULE_COMMANDS:
        return _module_parser(MODULE_COMMANDS[command], monkeypatch)
    return dict(_commands("carcassonne", build_parser()))[command]


def _helps(parser: argparse.ArgumentParser) -> Iterator[tuple[argparse.Action, str]]:
    """Each action of ``parser`` with its help as printed (``%(default)s`` filled in)."""
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.help and action.help != argparse.SUPPRESS:
            yield action, formatter._expand_help(action)


def _stated_default(help_text: str) -> str | None:
    """What ``help_text`` gives as the default: the words after its first ``default`` (or ``default:``)
    up to a ``)`` or ``;``; None when it states none (``wall clock (default)``)."""
    for match in re.finditer(r"\bdefault\b:?([^;)]*)", " ".join(help_text.split())):
        if match.group(1).strip():
            return match.group(1).strip()
    return None


def _shown(value: object) -> str:
    """``value`` as a help text states it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {number}" for key, number in value.items())
    return str(value)


COMMANDS = [name for name, _ in _commands("carcassonne", build_parser())] + list(MODULE_COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_stated_default_is_the_codes(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for action, help_text in _helps(_parser(command, monkeypatch)):
        stated = _stated_default(help_text)
        if stated is None:
            continue
        name = action.option_strings[-1] if action.option_strings else action.dest
        option = next((o for o in action.option_strings if (command, o) in DECIDED_LATER), None)
        default = DECIDED_LATER[command, option] if option is not None else action.default
        where = f"{command} {name}: the help says default {stated!r}"
        if default is None or default == "":  # left to the code, said in words, or none
            assert not re.match(r"\d", stated), f"{where}, the option's default is {default!r}"
        else:
            shown = _shown(default)
            assert re.match(re.escape(shown) + r"(?![\w.])", stated), f"{where}, the code's is {shown!r}"


def test_every_default_decided_later_is_stated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry of :data:`DECIDED_LATER` is an option left None whose help states a default."""
    for command, option in DECIDED_LATER:
        helps = {o: (action, text) for action, text in _helps(_parser(command, monkeypatch))
                 for o in action.option_strings}
        action, text = helps[option]
        assert action.default is None and _stated_default(text) is not None, f"{command} {option}"


def _all_help_texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    for command in COMMANDS:
        parser = _parser(command, monkeypatch)
        yield command, " ".join(f"{parser.description or ''} {parser.epilog or ''}".split())
        for action, text in _helps(parser):
            yield f"{command} {'/'.join(action.option_strings) or action.dest}", " ".join(text.split())


def _contradictions(where: str, text: str) -> list[str]:
    return [f"{where}: {match.group(0)!r}, the code's is {value:g}" for pattern, value in STATED
            for match in re.finditer(pattern, text) if float(match.group(1)) != value]


def test_no_help_text_contradicts_a_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = [line for where, text in _all_help_texts(monkeypatch) for line in _contradictions(where, text)]
    assert wrong == []


def test_no_help_text_names_a_machine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A help text reads the same on every machine: the shipped files are named by their place in the
    project (``training/arena/ladder_games.jsonl.gz``), never by where this checkout lies."""
    found = [f"{where}: {path}" for where, text in _all_help_texts(monkeypatch) for _, path in machine_paths(text)]
    assert found == []


@pytest.mark.parametrize("page", sorted(DOCS_STATE))
def test_the_docs_state_the_constants_of_the_code(page: str) -> None:
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    assert _contradictions(page, text) == []
    for index in DOCS_STATE[page]:
        assert re.search(STATED[index][0], text), f"{page} no longer states {STATED[index][0]!r}"


@pytest.mark.parametrize(("help_text", "stated"), [
    ("players per game (default 2)", "2"), ("(default: on)", "on"), ("wall clock (default) or CPU time", None),
    ("(default: 1 with --backend process; with ray all cores)", "1 with --backend process"),
    ("the port (0: any free port) (default 8765)", "8765"), ("no default is said here", "is said here"),
])
def test_the_stated_default_is_read_as_printed(help_text: str, stated: str | None) -> None:
    assert _stated_default(help_text) == stated


@pytest.mark.parametrize(("help_text", "default"), [
    ("seconds an agent may take per decision (default: no limit)", DEFAULT_MOVE_TIME_LIMIT),
    ("tile orders per table (default 100)", 10), ("players per game (default 20)", 2),
])
def test_a_wrong_default_is_caught(help_text: str, default: object) -> None:
    stated = _stated_default(help_text)
    assert stated is not None and not re.match(re.escape(_shown(default)) + r"(?![\w.])", stated)


@pytest.mark.parametrize("text", [
    "{} s a decision", "(`--port`, default {}; 0 picks a free one)", "A body is at most {} KiB (413 beyond)",
    "must arrive within {} s of its first byte", "and never stall for {} s", "`--hint-seconds` (default {} s)",
])
def test_a_wrong_number_for_a_constant_is_caught(text: str) -> None:
    value = next(value for pattern, value in STATED if re.search(pattern, text.format(1)))
    assert _contradictions("page", text.format(f"{value:g}")) == []
    assert len(_contradictions("page", text.format(f"{value + 1:g}"))) == 1
