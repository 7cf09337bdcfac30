"""Agent specs: one string names a player, here parsed in one place — the project's trust boundary.

=============================  =====================================================================
spec                           agent
=============================  =====================================================================
``random``                     a registered agent with its default options
``greedy:fast=1``              a registered agent with options ``key=value,key=value``
``ppo:pooled``                 a registered agent whose first option is positional (no ``=``)
``ppo:path/to/model.zip``      the same, naming a file (the command line only, below)
``rllib:path/to/checkpoint``   the same, for the RLlib trainer's checkpoints (:mod:`agents.rllib`)
``mymodule:MyAgent``           class ``MyAgent`` of the importable module ``mymodule``
``path/to/file.py:MyAgent``    class ``MyAgent`` of a Python file (a name ending in ``.py`` or holding ``/``)
=============================  =====================================================================

Registered names win over module names. A factory is called as ``factory(seed, *positional,
**options)``; option values are converted to the type of the factory's parameter (its annotation,
else its default's type): ``int`` (digits with an optional sign: no ``1_0``, no ``1e3``), ``float``
(a finite decimal number), ``str`` or ``bool`` (``1/0/true/false/yes/no/on/off``).

**Ranges.** A built-in agent (registered with ``builtin=True``) declares every option's range in its
factory's annotation (``Annotated[int, Range(1, 100_000)]``, ``Annotated[str, Named(keys, paths)]``,
or ``bool``), and a value outside it is refused when the spec is parsed, before anything is built:
``mcts: option sims=10**26 is out of its range 1 to 100000``. :func:`option_reference` writes the
table of every range (the docs' ``agent-specs.md`` page is made from it).

**Where the text came from** (:class:`Origin`). :func:`make_agent` is the one function that turns
text into an agent, and it is told where the text came from. From the command line (or the caller's
own code) anything may be seated: a file, a module, a model at a path. From a file (a save, a
tournament or ladder store, a model's metadata) or a request (a hint typed at the table or sent by
the web page) only a built-in agent whose options name **no path**: numbers, bools and the keys of
shipped models and values (``ppo:pooled``, ``afterstate:pretrained``, ``greedy:value=linear``).
Anything else raises :class:`UntrustedSpecError` before a module is imported or a file is opened.

A user class is constructed with ``seed=seed`` when its ``__init__`` accepts ``seed``, else with no
arguments; it implements either ``choose_action(game) -> Action`` (engine level) or ``act(observation,
action_mask) -> int`` (observation level, wrapped by ``carcassonne_env.players.as_engine_agent``).
Every malformed or unknown spec raises :class:`AgentSpecError` naming what is wrong.
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import inspect
import math
import re
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carcassonne_env.players import EngineAgent, as_engine_agent

__all__ = ["AgentSpecError", "Flag", "Named", "Origin", "Range", "UntrustedSpecError", "check_spec", "is_user_spec",
           "known_agents", "make_agent", "option_reference", "register_agent"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
#: An ``int`` option: digits with an optional sign (Python's ``int()`` would also take ``1_0``).
_INT = re.compile(r"[+-]?[0-9]{1,40}")
#: A ``float`` option: a decimal number with an optional exponent (no ``inf``, ``nan``, ``1_0``).
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")


class AgentSpecError(ValueError):
    """An agent spec is malformed, names no known agent, or gives a bad option."""


class UntrustedSpecError(AgentSpecError):
    """A spec from a file or a request names code (a module, a file) or a path: refused before
    anything is imported or opened."""


class Origin(enum.Enum):
    """Where a spec's text came from; its value says so in a message."""

    #: Typed by the user on the command line, or written in the caller's own code: may name anything.
    COMMAND_LINE = "the command line"
    #: Read from a file: a saved game, a tournament or ladder store, a run's files, a model's metadata.
    FILE = "a file"
    #: Sent by the web page or typed as a hint at the table.
    REQUEST = "a request"

    @property
    def trusted(self) -> bool:
        """Whether a spec of this origin may name code or a path."""
        return self is Origin.COMMAND_LINE


@dataclass(frozen=True)
class Range:
    """A number option's range, both ends included; ``note`` says what a value means (``0: off``)."""

    low: float
    high: float
    note: str = ""

    def describe(self, notes: bool = True) -> str:
        text = f"{_number(self.low)} to {_number(self.high)}"
        return f"{text} ({self.note})" if self.note and notes else text


@dataclass(frozen=True)
class Named:
    """A text option that names a shipped model or value by one of ``keys``; ``paths``: on the command
    line it may name a file instead (a model or value of the user's), never from a file or a request."""

    keys: tuple[str, ...]
    paths: bool = False
    note: str = ""

    def describe(self) -> str:
        text = ", ".join(self.keys) if self.keys else "no shipped key"
        if self.paths:
            return f"{text}; on the command line also a path" + (f": {self.note}" if self.note else "")
        return f"{text} ({self.note})" if self.note else text


@dataclass(frozen=True)
class Flag:
    """A bool option; ``note`` says what it turns on (a bare ``bool`` option declares itself too)."""

    note: str = ""

    def describe(self) -> str:
        also = "(also true/false, yes/no, on/off)"
        return f"0 or 1: {self.note} {also}" if self.note else f"0 or 1 {also}"


def _number(x: float) -> str:
    return f"{x:g}" if not float(x).is_integer() else str(int(x))


_REGISTRY: dict[str, Callable[..., EngineAgent]] = {}
#: The registered names whose options all declare their range: the only agents a file or a request may name.
_BUILTIN: set[str] = set()


def register_agent(name: str, factory: Callable[..., EngineAgent], *, builtin: bool = False) -> None:
    """Make ``name`` a spec: ``factory(seed, **options)`` builds the agent. ``builtin``: the agent may
    also be named from a file or a request; every option must then declare its range (module
    docstring), else :class:`AgentSpecError` here."""
    if not name.isidentifier():
        raise AgentSpecError(f"agent name {name!r} must be an identifier")
    if builtin:
        undeclared = [p for p, option in _options(factory).items() if option.rule is None]
        if undeclared:
            raise AgentSpecError(f"built-in agent {name!r}: options without a declared range: {', '.join(undeclared)}")
        _BUILTIN.add(name)
    else:
        _BUILTIN.discard(name)
    _REGISTRY[name] = factory


def known_agents() -> tuple[str, ...]:
    """The registered agent names, sorted."""
    return tuple(sorted(_REGISTRY))


def is_user_spec(spec: str) -> bool:
    """Whether ``spec`` names code outside the project (a module or a file, not a registered agent):
    such an agent plays from a process of its own (:mod:`agents.isolation`)."""
    return spec.strip().partition(":")[0] not in _REGISTRY


@dataclass(frozen=True)
class _Parsed:
    """A registered agent's spec, its options converted and checked: what :func:`make_agent` calls."""

    head: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def check_spec(spec: object, origin: Origin, *, within: Path | None = None) -> str:
    """``spec`` stripped, when :func:`make_agent` would accept its text from ``origin``: well formed,
    every option in its range, and from a file or a request a built-in agent naming no path — but a
    path inside ``within``, a run's own folder that the command line named (the snapshots a trainer
    wrote there and resumes from). Raises :class:`AgentSpecError` (:class:`UntrustedSpecError` for
    what ``origin`` may not name); imports, opens and builds nothing."""
    return _checked(spec, origin, within)[0]


def _checked(spec: object, origin: Origin, within: Path | None = None) -> tuple[str, _Parsed | None]:
    """:func:`check_spec`'s text, and the parsed options when it names a registered agent."""
    text = _text(spec)
    head, _, rest = text.partition(":")
    if head in _REGISTRY:
        return text, _parse(head, rest, origin, within)
    if not origin.trusted:
        raise _untrusted(text, origin, "a module or a file of code")
    if not rest:
        raise AgentSpecError(f"unknown agent {text!r}; known agents: {', '.join(known_agents())}, "
                             "or module:Class, or path/to/file.py:Class")
    return text, None


def make_agent(spec: str, *, seed: int, origin: Origin = Origin.COMMAND_LINE) -> EngineAgent:
    """Build the engine-level agent named by ``spec`` (module docstring), seeded by ``seed``; ``origin``
    is where the text came from (the command line or the caller's code by default): from a file or
    a request, what that origin may not name is refused (:func:`check_spec`) before anything runs."""
    text, parsed = _checked(spec, origin)
    if parsed is not None:
        return _engine_level(_call_factory(parsed, seed), text)
    head, _, rest = text.partition(":")
    if not rest.isidentifier():
        raise AgentSpecError(f"{text!r}: {rest!r} is not a class name (and {head!r} is not a registered agent; "
                             f"known: {', '.join(known_agents())})")
    module = _load_file(head, text) if head.endswith(".py") or "/" in head else _import(head, text)
    cls: Any = getattr(module, rest, None)
    if cls is None:
        raise AgentSpecError(f"{text!r}: {head!r} has no class {rest!r}")
    if not inspect.isclass(cls):
        raise AgentSpecError(f"{text!r}: {rest!r} is a {type(cls).__name__}, not a class of agents")
    takes_seed = "seed" in _parameters(cls) or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in _parameters(cls).values()
    )
    build: Callable[..., Any] = cls
    try:
        agent = build(seed=seed) if takes_seed else build()
    except Exception as e:  # the class's own code failed
        raise AgentSpecError(f"{text!r}: building {rest} failed: {type(e).__name__}: {e}") from None
    return _engine_level(agent, text)


def _text(spec: object) -> str:
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string, got {spec!r}")
    return spec.strip()


def _untrusted(text: str, origin: Origin, what: str) -> UntrustedSpecError:
    shown = repr(text) if len(text) <= 80 else repr(text[:77] + "...")
    return UntrustedSpecError(f"{shown} names {what}, and a spec from {origin.value} may name only a built-in "
                              f"agent ({', '.join(sorted(_BUILTIN))}) whose options name no file")


#: What an option's value must be: a range, shipped keys, a bool — or None (a user agent's option, undeclared).
_Rule = Range | Named | Flag | None


@dataclass(frozen=True)
class _Option:
    parameter: inspect.Parameter
    kind: type
    rule: _Rule


def _options(factory: Callable[..., Any]) -> dict[str, _Option]:
    """The options of ``factory`` (its parameters but ``seed`` and ``**kwargs``), in order, each with
    its type (``X | None`` is X) and its declared rule (its ``Annotated`` metadata; ``bool`` declares itself)."""
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # unresolvable annotations: fall back to the defaults' types
        hints = {}
    options: dict[str, _Option] = {}
    for p in _parameters(factory).values():
        if p.name == "seed" or p.kind in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL):
            continue
        hint = hints.get(p.name, p.annotation)
        rule: _Rule = None
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extras = typing.get_args(hint)
            rule = next((e for e in extras if isinstance(e, Range | Named | Flag)), None)
        kind = _base_type(hint, p.default)
        options[p.name] = _Option(p, kind, Flag() if rule is None and kind is bool else rule)
    return options


def _base_type(hint: Any, default: Any) -> type:
    """The type an option's text converts to: its annotation (``X | None`` means X), else its default's."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next((a for a in typing.get_args(hint) if a is not type(None)), str)
    if isinstance(hint, type) and hint is not inspect.Parameter.empty:
        return hint
    return type(default) if default not in (inspect.Parameter.empty, None) else str


def _parse(head: str, text: str, origin: Origin, within: Path | None = None) -> _Parsed:
    """The options ``text`` of the registered agent ``head``, converted and checked (module docstring)."""
    if not origin.trusted and head not in _BUILTIN:
        raise _untrusted(head, origin, "an agent that is not built in")
    options = _options(_REGISTRY[head])
    names = list(options)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for i, item in enumerate(text.split(",") if text else []):
        key, eq, value = item.partition("=")
        if not eq:
            if i > 0 or not names:
                raise AgentSpecError(f"{head}: option {item!r} must look like key=value")
            key, value = names[0], item
        if key not in options:
            raise AgentSpecError(f"{head}: unknown option {key!r}; options: {', '.join(names) or 'none'}")
        if key in kwargs or (args and key == names[0]):
            raise AgentSpecError(f"{head}: option {key!r} given twice")
        converted = _convert(head, key, value, options[key], origin, within)
        if eq:
            kwargs[key] = converted
        else:
            args.append(converted)
    return _Parsed(head, tuple(args), kwargs)


def _convert(name: str, key: str, value: str, option: _Option, origin: Origin, within: Path | None) -> Any:
    """``value`` as the option's type, within its declared rule (a range, shipped keys)."""
    shown = value if len(value) <= 40 else value[:37] + "..."
    kind, rule = option.kind, option.rule
    if kind is bool:
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise AgentSpecError(f"{name}: option {key}={shown!r} must be a bool (1/0/true/false)")
    if kind in (int, float):
        pattern = _INT if kind is int else _FLOAT
        number = kind(value) if pattern.fullmatch(value) else None
        if number is None or not math.isfinite(number):
            raise AgentSpecError(f"{name}: option {key}={shown!r} must be of type {kind.__name__}")
        if isinstance(rule, Range) and not rule.low <= number <= rule.high:
            raise AgentSpecError(f"{name}: option {key}={shown} is out of its range {rule.describe(notes=False)}")
        return number
    if isinstance(rule, Named) and value not in rule.keys:
        if not rule.paths:
            raise AgentSpecError(f"{name}: option {key}={shown!r} must be one of {', '.join(rule.keys)} "
                                 f"(other options are key=value: {name}:{key}={rule.keys[0]})")
        if not origin.trusted and not (within is not None and Path(value).resolve().is_relative_to(within.resolve())):
            keys = f"one of the shipped keys: {', '.join(rule.keys)}" if rule.keys else "no shipped key exists"
            raise UntrustedSpecError(f"{name}: option {key}={shown!r} names a file, which a spec from {origin.value} "
                                     f"may not ({keys}); name the file on the command line instead")
    return value


def _call_factory(parsed: _Parsed, seed: int) -> Any:
    try:
        return _REGISTRY[parsed.head](seed, *parsed.args, **parsed.kwargs)
    except AgentSpecError:
        raise
    except (ValueError, TypeError, OSError) as e:  # the agent refused its options (a bad budget, a missing file)
        raise AgentSpecError(f"{parsed.head}: {e}") from None


def option_reference() -> str:
    """The options of every built-in agent as a Markdown table (agent, option, type, range, default):
    the ranges :func:`make_agent` checks, for the docs (``agent-specs.md``)."""
    rows = ["| agent | option | type | range or keys | default |", "|---|---|---|---|---|"]
    for name in sorted(_BUILTIN):
        options = _options(_REGISTRY[name])
        if not options:
            rows.append(f"| `{name}` | — | | | |")
        for i, (key, option) in enumerate(options.items()):
            rule = option.rule
            allowed = rule.describe() if rule is not None else "any"
            default = option.parameter.default
            text = str(default).lower() if isinstance(default, bool) else str(default)
            shown = "—" if default in (inspect.Parameter.empty, None) else f"`{text}`"
            key_text = f"`{key}` (or first, without `{key}=`)" if i == 0 and isinstance(rule, Named) else f"`{key}`"
            rows.append(f"| `{name}` | {key_text} | {option.kind.__name__} | {allowed} | {shown} |")
    return "\n".join(rows) + "\n"


def _import(name: str, spec: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and name.startswith(e.name):
            raise AgentSpecError(f"unknown agent {name!r} in {spec!r}: not a registered agent (known: "
                                 f"{', '.join(known_agents())}) nor an importable module") from None
        raise AgentSpecError(f"{spec!r}: importing {name!r} failed: {type(e).__name__}: {e}") from None
    except Exception as e:  # the module's own code failed (a syntax error, an exception at import)
        raise AgentSpecError(f"{spec!r}: importing {name!r} failed: {type(e).__name__}: {e}") from None


def _load_file(path_text: str, spec: str) -> Any:
    path = Path(path_text)
    if not path.is_file():
        raise AgentSpecError(f"{spec!r}: no such file {path_text!r}")
    name = f"_carcassonne_user_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        return sys.modules[name]
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentSpecError(f"{spec!r}: cannot load {path_text!r} as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as e:  # the file's own code failed (a syntax error, an exception at import)
        del sys.modules[name]
        raise AgentSpecError(f"{spec!r}: loading {path_text!r} failed: {type(e).__name__}: {e}") from None
    return module


def _engine_level(agent: Any, spec: str) -> EngineAgent:
    """The agent itself if it has ``choose_action``; an ``act``-level policy through the adapter."""
    if callable(getattr(agent, "choose_action", None)):
        return typing.cast(EngineAgent, agent)
    if callable(getattr(agent, "act", None)):
        return as_engine_agent(agent)
    raise AgentSpecError(f"{spec!r} built a {type(agent).__name__}, which implements neither "
                         "choose_action(game) nor act(observation, action_mask)")


def _parameters(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return {}
