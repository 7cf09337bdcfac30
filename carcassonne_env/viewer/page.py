"""The replay page: one self-contained HTML file (inline SVG, CSS and JavaScript, no network).

The game is replayed once in Python (:func:`~.snapshots.replay_data`); the page embeds the
snapshots as JSON and a small script draws the chosen one as SVG, from one ``<symbol>`` per tile
type and rotation on the board (:mod:`.tile_svg`).
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path

from .records import Replayable, Source, to_replayable
from .snapshots import replay_data
from .tile_svg import SIZE

__all__ = ["replay_html", "write_replay_html"]

#: The placeholders of static/page.html.
_PLACEHOLDER = re.compile(r"__(CSS|JS|SYMBOLS|TITLE|DATA)__")


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static").joinpath(name).read_text(encoding="utf-8")


def _default_title(source: Replayable) -> str:
    record = source.record
    who = " vs ".join(source.seats) if source.seats else f"{record.config.players} players"
    pile = f"seed {record.seed}" if record.seed is not None else "explicit tile order"
    return f"Carcassonne replay: {who}, {pile}"


def replay_html(record: Source | Replayable, *, title: str | None = None) -> str:
    """The replay page of ``record`` (a GameRecord, a Game, a record or save dict, or a tournament
    ``games.jsonl`` line) as one HTML document. A bad record raises
    :class:`~.records.RecordError`."""
    source = to_replayable(record)
    title = title or _default_title(source)
    data = replay_data(source, title)
    symbols = _static("meeple.svg") + "\n".join(f'<symbol id="{key}" viewBox="0 0 {SIZE} {SIZE}">{svg}</symbol>'
                        for key, svg in data.pop("symbols").items())
    # "<" as \u003c: no "</script>" or "<!--" inside the data can end or alter its script element.
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    parts = {"CSS": _static("page.css"), "JS": _static("draw.js") + "\n" + _static("page.js"), "SYMBOLS": symbols,
             "TITLE": html.escape(title), "DATA": payload}
    # One pass: a placeholder's name inside a value (e.g. a title) is not filled in again.
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _static("page.html"))


def write_replay_html(record: Source | Replayable, path: str | Path, *, title: str | None = None) -> Path:
    """Write :func:`replay_html` of ``record`` to ``path`` (parent folders are made); returns the path."""
    path = Path(path)
    text = replay_html(record, title=title)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
