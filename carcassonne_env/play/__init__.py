"""Humans at the table: play against any agent in the terminal (:mod:`.terminal`) or in the browser
(:mod:`.server`), both on the shared turn logic of :mod:`.session`.

Engine, viewer and standard library only (no gymnasium, no torch): agents come in as objects with
``choose_action(game)``, built by the caller (``carcassonne play``, docs/play.md).
"""

from __future__ import annotations

from .session import (
    HUMAN,
    AgentError,
    Chooser,
    PlayError,
    PlaySession,
    TurnNote,
    option_label,
    parse_placement,
    placement_code,
)

__all__ = ["HUMAN", "AgentError", "Chooser", "PlayError", "PlaySession", "TurnNote", "option_label", "parse_placement",
           "placement_code"]
