"""Agents that misbehave, for the fault tests (specs ``tests/faults/bad_agents.py:NAME``)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any


class Raiser:
    """Raises on its third decision."""

    def __init__(self) -> None:
        self.calls = 0

    def choose_action(self, game: Any) -> Any:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom")
        return game.legal_actions()[0]


class Hanger:
    """Never returns from its second decision."""

    def __init__(self) -> None:
        self.calls = 0

    def choose_action(self, game: Any) -> Any:
        self.calls += 1
        if self.calls == 2:
            time.sleep(3600)
        return game.legal_actions()[0]


class Exiter:
    """Calls sys.exit on its second decision."""

    def __init__(self) -> None:
        self.calls = 0

    def choose_action(self, game: Any) -> Any:
        self.calls += 1
        if self.calls == 2:
            sys.exit(3)
        return game.legal_actions()[0]


class HardExiter:
    """Ends its process (os._exit) on its second decision."""

    def __init__(self) -> None:
        self.calls = 0

    def choose_action(self, game: Any) -> Any:
        self.calls += 1
        if self.calls == 2:
            os._exit(7)
        return game.legal_actions()[0]


class Illegal:
    """Chooses an action that is no legal one."""

    def choose_action(self, game: Any) -> Any:
        return (0, 999, 999, 0)


class Forger:
    """Gives itself 500 points through the public Game.add_score, then plays the first legal action."""

    def choose_action(self, game: Any) -> Any:
        game.add_score(game.current_player, 500, "city")
        return game.legal_actions()[0]


class First:
    """Always the first legal action (a quick, valid agent)."""

    def choose_action(self, game: Any) -> Any:
        return game.legal_actions()[0]
