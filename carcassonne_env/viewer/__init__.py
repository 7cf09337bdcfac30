"""The replay viewer: any finished (or unfinished) game as one self-contained HTML page.

>>> from carcassonne_env.engine import Game, GameConfig
>>> from carcassonne_env.viewer import replay_html
>>> page = replay_html(Game(GameConfig(players=2), seed=1))
>>> page.startswith("<!DOCTYPE html>")
True

:func:`replay_html` / :func:`write_replay_html` take a ``GameRecord``, a ``Game``, a record or save
dict, or a tournament ``games.jsonl`` line; :func:`load_record` and :func:`load_document` read
them from files (``carcassonne replay FILE -o page.html`` on the command line);
:func:`describe_action` says in words what an action does in a game. Imports only the
engine, numpy and the standard library.
"""

from __future__ import annotations

from .page import replay_html, write_replay_html
from .records import Forfeited, RecordError, Replayable, load_document, load_record, to_replayable
from .snapshots import describe_action

__all__ = ["Forfeited", "RecordError", "Replayable", "describe_action", "load_document", "load_record", "replay_html",
           "to_replayable", "write_replay_html"]
