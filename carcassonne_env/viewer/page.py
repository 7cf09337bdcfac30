"""The replay page: one self-contained HTML file (inline SVG, CSS and JavaScript, no network).

The game is replayed once in Python (:func:`~.snapshots.replay_data`); the page embeds the
snapshots as JSON and a small script draws the chosen one as SVG, from one ``<symbol>`` per tile
type and rotation on the board (:mod:`.tile_svg`).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from .records import Replayable, Source, to_replayable
from .snapshots import forfeit_words, replay_data
from .tile_svg import SIZE

__all__ = ["fill_page", "replay_html", "static_text", "tile_symbols", "write_replay_html"]

#: The placeholders of a page (static/shell.html around the content of its ``<main>``).
_PLACEHOLDER = re.compile(r"__(CSS|JS|SYMBOLS|TITLE|DATA)__")


def static_text(name: str) -> str:
    """The text of ``static/NAME`` (the page templates, CSS and JavaScript)."""
    return resources.files(__package__).joinpath("static").joinpath(name).read_text(encoding="utf-8")


def tile_symbols(symbols: Mapping[str, str]) -> str:
    """The SVG ``<symbol>`` elements of a page: the meeple shapes, then one per ``id: svg`` item."""
    return static_text("meeple.svg") + "\n".join(
        f'<symbol id="{key}" viewBox="0 0 {SIZE} {SIZE}">{svg}</symbol>' for key, svg in symbols.items())


def fill_page(template: str, *, css: str, js: str, symbols: str, title: str, data: Mapping[str, Any]) -> str:
    """The page ``static/shell.html`` (head, title bar, scripts) around ``static/TEMPLATE`` (the
    content of its ``<main>``), ``data`` in the element ``NAME-data`` for ``NAME.html``, with its
    placeholders (``__CSS__``, ``__JS__``, ``__SYMBOLS__``, ``__TITLE__``, ``__DATA__``) filled in
    one pass: a placeholder's name inside a value (e.g. a title) is not filled in again. The title
    is HTML-escaped; ``data`` goes in as JSON with every ``<`` as ``\\u003c``, so no ``</script>``
    or ``<!--`` inside it can end or alter its script element. The replay page and the play page
    (:mod:`carcassonne_env.play.server`) share it."""
    page = (static_text("shell.html").replace("__NAME__", template.removesuffix(".html"))
            .replace("__MAIN__", static_text(template).rstrip("\n")))
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    parts = {"CSS": css, "JS": js, "SYMBOLS": symbols, "TITLE": html.escape(title), "DATA": payload}
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], page)


def _default_title(source: Replayable) -> str:
    """The agents by seat (or the player count) and the pile, and who forfeited a forfeited game."""
    record = source.record
    who = " vs ".join(source.seats) if source.seats else f"{record.config.players} players"
    pile = f"seed {record.seed}" if record.seed is not None else "explicit tile order"
    stopped = "" if source.forfeit is None else f"; {forfeit_words(source.forfeit)}"
    return f"Carcassonne replay: {who}, {pile}{stopped}"


def replay_html(record: Source | Replayable, *, title: str | None = None) -> str:
    """The replay page of ``record`` (a GameRecord, a Game, a record or save dict, or a tournament
    ``games.jsonl`` line) as one HTML document. A bad record raises
    :class:`~.records.RecordError`."""
    source = to_replayable(record)
    title = title or _default_title(source)
    data = replay_data(source, title)
    js = static_text("draw.js") + "\n" + static_text("page.js")
    return fill_page("replay.html", css=static_text("page.css"), js=js,
                     symbols=tile_symbols(data.pop("symbols")), title=title, data=data)


def write_replay_html(record: Source | Replayable, path: str | Path, *, title: str | None = None) -> Path:
    """Write :func:`replay_html` of ``record`` to ``path`` (parent folders are made); returns the path."""
    path = Path(path)
    text = replay_html(record, title=title)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
