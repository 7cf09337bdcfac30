"""griffe extensions (mkdocs.yml, mkdocstrings' python handler): what the API reference shows of the source.

**RestDocstrings**: the project's reST-flavoured docstrings as Markdown.

The docstrings are written for readers of the source and for ``help()``: Sphinx roles name other objects
(:class:`Game`, :mod:`.codec`, :meth:`~raw_env.play`), ``::`` introduces a literal block and ``>>>`` a
doctest. mkdocstrings renders Markdown, so, for each object of a loaded package:

* a role becomes an *optional* cross-reference of mkdocs-autorefs: a link where the object it names is on a
  page of the site, its name in code where it is not (never a warning: an object may be private or
  undocumented). The name is resolved as Python would from the object's module (its imports and members);
  a leading dot is relative to the module's package; ``~`` shows the last component only;
* a ``::`` literal block and a doctest become fenced code blocks;
* a simple table (columns under ``====  ====`` borders, a row continued on lines whose first column is
  blank) becomes a Markdown table.

The docstrings themselves stay as they are.

**PrivateDefaults**: no private name in a rendered signature.

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

Both run on every loaded package (griffe's ``on_package``), over the same walk of its objects
(:func:`_objects`), in this order.
"""

from __future__ import annotations

import ast
import html
import re
import textwrap
from collections.abc import Iterator
from typing import Any

import griffe

ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj|const):`(?P<body>[^`]+)`")
#: The border of a reST simple table: two or more runs of ``=`` separated by spaces.
BORDER = re.compile(r"^(?P<indent>\s*)=+(?: +=+)+\s*$")


def _target(obj: griffe.Object, name: str) -> str:
    """The full path that ``name`` (a role's target, no ``~``) means in the docstring of ``obj``."""
    if name.startswith("."):
        module = obj.module
        package = module if module.is_init_module else module.parent
        dots = len(name) - len(name.lstrip("."))
        for _ in range(dots - 1):
            package = package.parent if package is not None else None
        base = package.path if package is not None else ""
        return f"{base}.{name.lstrip('.')}" if base else name.lstrip(".")
    head, _, rest = name.partition(".")
    try:
        resolved = obj.resolve(head)
    except griffe.NameResolutionError:
        return name  # taken as a full path
    return f"{resolved}.{rest}" if rest else resolved


def _role(obj: griffe.Object, match: re.Match[str]) -> str:
    body = match["body"].strip()
    explicit = re.fullmatch(r"(?P<title>.+?)\s*<(?P<name>[^>]+)>", body)
    if explicit:
        title, name = explicit["title"], explicit["name"]
    else:
        name = body.lstrip("~")
        title = name.rsplit(".", 1)[-1] if body.startswith("~") else name.lstrip(".")
    identifier = html.escape(_target(obj, name), quote=True)
    return f'<autoref identifier="{identifier}" optional><code>{html.escape(title)}</code></autoref>'


def _cells(line: str, starts: list[int]) -> list[str]:
    """The text of each column of a simple table's ``line``, the columns starting at ``starts``."""
    bounds = [*starts[1:], max(len(line), starts[-1])]
    return [line[start:end].strip() for start, end in zip(starts, bounds, strict=True)]


def _simple_table(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """The reST simple table whose top border is ``lines[i]`` in Markdown, and the index of the line after
    its bottom border; None when ``lines[i]`` does not open one. A table with a header row (three borders
    alike) becomes a Markdown table, one without (two) a list: ``* first column: the others``."""
    top = lines[i]
    border = BORDER.match(top)
    if border is None:
        return None
    borders: list[int] = []
    for j in range(i + 1, len(lines)):
        if not lines[j].strip():
            break
        if lines[j].rstrip() == top.rstrip():
            borders.append(j)
    if not borders or borders[0] == i + 1 or len(borders) > 2 or (len(borders) == 2 and borders[1] == borders[0] + 1):
        return None
    starts = [match.start() for match in re.finditer(r"=+", top)]
    rows: list[list[str]] = []
    for j in range(i + 1, borders[-1]):
        if j in borders:
            continue
        cells = _cells(lines[j], starts)
        if cells[0] or not rows or j - 1 in borders:
            rows.append(cells)
        else:  # a continuation line: its text goes on in the row above
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells, strict=True)]
    indent = border["indent"]
    if len(borders) == 1:
        items = [indent + f"* {row[0]}: " + " — ".join(cell for cell in row[1:] if cell) for row in rows]
        return ["", *items, ""], borders[-1] + 1
    if borders[0] != i + 2:  # a header of several lines: left as it is
        return None
    table = [indent + "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    table.insert(1, indent + "|" + "---|" * len(starts))
    return ["", *table, ""], borders[-1] + 1


def _blocks(lines: list[str]) -> Iterator[str]:
    """``lines`` with each ``::`` literal block and each doctest as a fenced code block, each simple table as
    a Markdown table."""
    i = 0
    while i < len(lines):
        line = lines[i]
        table = _simple_table(lines, i)
        if table is not None:
            yield from table[0]
            i = table[1]
            continue
        if line.lstrip().startswith(">>>"):
            end = i
            while end < len(lines) and lines[end].strip():
                end += 1
            indent = len(line) - len(line.lstrip())
            yield from ["```pycon", *(text[indent:] for text in lines[i:end]), "```"]
            i = end
            continue
        if line.rstrip().endswith("::") and i + 2 < len(lines) and not lines[i + 1].strip():
            indent = len(line) - len(line.lstrip())
            end = i + 2
            while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
                end += 1
            while end > i + 2 and not lines[end - 1].strip():
                end -= 1
            block = lines[i + 2 : end]
            if block:
                margin = min(len(text) - len(text.lstrip()) for text in block if text.strip())
                lead = line.rstrip()[:-2].rstrip()
                if lead.strip():
                    yield lead + ":"
                yield from ["", "```text", *(text[margin:] for text in block), "```"]
                i = end
                continue
        yield line
        i += 1


def to_markdown(obj: griffe.Object, docstring: str) -> str:
    """``docstring`` (the docstring of ``obj``) with roles, literal blocks and doctests in Markdown."""
    text = "\n".join(_blocks(docstring.split("\n")))
    return ROLE.sub(lambda match: _role(obj, match), text)


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


class RestDocstrings(griffe.Extension):
    """Rewrites the docstrings of every object of a package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = to_markdown(obj, obj.docstring.value)


class PrivateDefaults(griffe.Extension):
    """Rewrites the private defaults of every object of a package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if isinstance(obj, griffe.Attribute):
                obj.value = public_default(obj, obj.value)
            elif isinstance(obj, griffe.Function):
                for parameter in obj.parameters:
                    parameter.default = public_default(obj, parameter.default)
