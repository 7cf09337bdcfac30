"""Agent specs: one string names a player, here parsed in one place.

=============================  =====================================================================
spec                           agent
=============================  =====================================================================
``random``                     a registered agent with its default options
``greedy:fast=1``              a registered agent with options ``key=value,key=value``
``ppo:path/to/model.zip``      a registered agent whose first option is positional (no ``=``)
``rllib:path/to/checkpoint``   the same, for the RLlib trainer's checkpoints (:mod:`agents.rllib`)
``mymodule:MyAgent``           class ``MyAgent`` of the importable module ``mymodule``
``path/to/file.py:MyAgent``    class ``MyAgent`` of a Python file (a name ending in ``.py`` or holding ``/``)
=============================  =====================================================================

Registered names win over module names. A factory is called as ``factory(seed, *positional,
**options)``; option values are converted to the type of the factory's parameter (its annotation,
else its default's type): ``int``, ``float``, ``str`` or ``bool`` (``1/0/true/false/yes/no/on/off``).
A user class is constructed with ``seed=seed`` when its ``__init__`` accepts ``seed``, else with no
arguments; it implements either ``choose_action(game) -> Action`` (engine level) or ``act(observation,
action_mask) -> int`` (observation level, wrapped by ``carcassonne_env.players.as_engine_agent``).
Every malformed or unknown spec raises :class:`AgentSpecError` naming what is wrong.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carcassonne_env.players import EngineAgent, as_engine_agent

__all__ = ["AgentSpecError", "is_user_spec", "known_agents", "make_agent", "register_agent"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class AgentSpecError(ValueError):
    """An agent spec is malformed, names no known agent, or gives a bad option."""


_REGISTRY: dict[str, Callable[..., EngineAgent]] = {}


def register_agent(name: str, factory: Callable[..., EngineAgent]) -> None:
    """Make ``name`` a spec: ``factory(seed, **options)`` builds the agent."""
    if not name.isidentifier():
        raise AgentSpecError(f"agent name {name!r} must be an identifier")
    _REGISTRY[name] = factory


def known_agents() -> tuple[str, ...]:
    """The registered agent names, sorted."""
    return tuple(sorted(_REGISTRY))


def is_user_spec(spec: str) -> bool:
    """Whether ``spec`` names code outside the project (a module or a file, not a registered agent):
    such an agent plays from a process of its own (:mod:`agents.isolation`)."""
    return spec.strip().partition(":")[0] not in _REGISTRY


def make_agent(spec: str, *, seed: int) -> EngineAgent:
    """Build the engine-level agent named by ``spec`` (module docstring), seeded by ``seed``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string, got {spec!r}")
    head, _, rest = spec.strip().partition(":")
    if head in _REGISTRY:
        return _engine_level(_call_factory(head, _REGISTRY[head], rest, seed), spec)
    if not rest:
        raise AgentSpecError(f"unknown agent {spec!r}; known agents: {', '.join(known_agents())}, "
                             "or module:Class, or path/to/file.py:Class")
    if not rest.isidentifier():
        raise AgentSpecError(f"{spec!r}: {rest!r} is not a class name (and {head!r} is not a registered agent; "
                             f"known: {', '.join(known_agents())})")
    module = _load_file(head, spec) if head.endswith(".py") or "/" in head else _import(head, spec)
    cls: Any = getattr(module, rest, None)
    if cls is None:
        raise AgentSpecError(f"{spec!r}: {head!r} has no class {rest!r}")
    if not inspect.isclass(cls):
        raise AgentSpecError(f"{spec!r}: {rest!r} is a {type(cls).__name__}, not a class of agents")
    takes_seed = "seed" in _parameters(cls) or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in _parameters(cls).values()
    )
    build: Callable[..., Any] = cls
    try:
        agent = build(seed=seed) if takes_seed else build()
    except Exception as e:  # the class's own code failed
        raise AgentSpecError(f"{spec!r}: building {rest} failed: {type(e).__name__}: {e}") from None
    return _engine_level(agent, spec)


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


def _call_factory(name: str, factory: Callable[..., EngineAgent], text: str, seed: int) -> Any:
    params = _parameters(factory)
    try:
        hints = typing.get_type_hints(factory)
    except Exception:  # unresolvable annotations: fall back to the defaults' types
        hints = {}
    options = text.split(",") if text else []
    named = [p for p in params.values() if p.name != "seed" and p.kind is not inspect.Parameter.VAR_KEYWORD]
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for i, item in enumerate(options):
        key, eq, value = item.partition("=")
        if not eq:
            if i > 0 or not named:
                raise AgentSpecError(f"{name}: option {item!r} must look like key=value")
            key, value = named[0].name, item
        if key not in params or key == "seed":
            raise AgentSpecError(f"{name}: unknown option {key!r}; options: "
                                 f"{', '.join(p.name for p in named) or 'none'}")
        if key in kwargs or (args and key == named[0].name):
            raise AgentSpecError(f"{name}: option {key!r} given twice")
        converted = _convert(name, key, value, hints.get(key, params[key].annotation), params[key].default)
        if not eq:
            args.append(converted)
        else:
            kwargs[key] = converted
    try:
        return factory(seed, *args, **kwargs)
    except AgentSpecError:
        raise
    except (ValueError, TypeError, OSError) as e:  # the agent refused its options (a bad budget, a missing file)
        raise AgentSpecError(f"{name}: {e}") from None


def _convert(name: str, key: str, value: str, annotation: Any, default: Any) -> Any:
    """``value`` as the parameter's type: its annotation (``X | None`` means X), else its default's."""
    kind = annotation
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        kind = next((a for a in typing.get_args(kind) if a is not type(None)), str)
    if kind is inspect.Parameter.empty or not isinstance(kind, type):
        kind = type(default) if default not in (inspect.Parameter.empty, None) else str
    if kind is bool:
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise AgentSpecError(f"{name}: option {key}={value!r} must be a bool (1/0/true/false)")
    if kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            raise AgentSpecError(f"{name}: option {key}={value!r} must be of type {kind.__name__}") from None
    return value
