"""griffe extension (mkdocs.yml, mkdocstrings' python handler): no private name in a rendered signature.

A default value written with a private helper is what the source needs, not what a reader can use: the
variant flags of ``GameConfig`` are ``flag: bool = _variant("tower", "…")``, a helper that returns
``field(default=False, metadata=…)``, and a few functions default to a private constant
(``directory=_HERE``). For each loaded package, before griffe's dataclass extension builds the ``__init__``
signatures from the fields, a default (of a parameter, or the value of a class or module attribute) that
names a private object (``_x``, not ``__x__``) is shown as:

* the value the helper gives, where it is a call of a function whose ``return`` is a call with a
  ``default=`` keyword (``field(default=False, …)``): ``False``;
* else ``...``: a default exists, its value is the implementation's.

The source stays as it is.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from typing import Any

import griffe

#: How a default that names a private object and gives no readable value is shown.
HIDDEN = "..."


def _private(expr: griffe.Expr) -> bool:
    """Whether ``expr`` names a private object: a name (or attribute) ``_x`` that is not ``__x__``."""
    return any(isinstance(part, griffe.ExprName) and part.name.startswith("_") and not part.name.endswith("__")
               for part in expr.iterate(flat=True))


def _returned_default(function: griffe.Function) -> str | None:
    """The source of the ``default=`` keyword of the call ``function`` returns, if it returns one."""
    try:
        tree = ast.parse(textwrap.dedent("\n".join(function.lines)))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            for keyword in node.value.keywords:
                if keyword.arg == "default":
                    return ast.unparse(keyword.value)
    return None


def public_default(obj: griffe.Object, value: str | griffe.Expr | None) -> str | griffe.Expr | None:
    """``value`` (a default in ``obj``) as it is shown: itself unless it names a private object."""
    if not isinstance(value, griffe.Expr) or not _private(value):
        return value
    if isinstance(value, griffe.ExprCall) and isinstance(value.function, griffe.ExprName):
        try:
            helper = obj.modules_collection[value.function.canonical_path]
        except (KeyError, ValueError):
            helper = None
        if isinstance(helper, griffe.Function) and (default := _returned_default(helper)) is not None:
            return default
    return HIDDEN


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)  # type: ignore[arg-type]


class PrivateDefaults(griffe.Extension):
    """Rewrites the private defaults of every object of a package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if isinstance(obj, griffe.Attribute):
                obj.value = public_default(obj, obj.value)
            elif isinstance(obj, griffe.Function):
                for parameter in obj.parameters:
                    parameter.default = public_default(obj, parameter.default)
