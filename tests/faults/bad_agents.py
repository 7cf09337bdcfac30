"""Agents that misbehave, for the fault tests (specs ``tests/faults/bad_agents.py:NAME``)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any


class _MisbehavesOnce:
    """Plays the first legal action, except on decision number ``ON`` (counted from 1), where it
    calls :meth:`misbehave` first."""

    ON = 2

    def __init__(self) -> None:
        self.calls = 0

    def choose_action(self, game: Any) -> Any:
        self.calls += 1
        if self.calls == self.ON:
            self.misbehave()
        return game.legal_actions()[0]

    def misbehave(self) -> None:
        raise NotImplementedError


class Raiser(_MisbehavesOnce):
    """Raises on its third decision."""

    ON = 3

    def misbehave(self) -> None:
        raise RuntimeError("boom")


class Hanger(_MisbehavesOnce):
    """Never returns from its second decision."""

    def misbehave(self) -> None:
        time.sleep(3600)


class Exiter(_MisbehavesOnce):
    """Calls sys.exit on its second decision."""

    def misbehave(self) -> None:
        sys.exit(3)


class HardExiter(_MisbehavesOnce):
    """Ends its process (os._exit) on its second decision."""

    def misbehave(self) -> None:
        os._exit(7)


class Interrupter(_MisbehavesOnce):
    """Raises KeyboardInterrupt on its second decision (not the user's Ctrl-C)."""

    def misbehave(self) -> None:
        raise KeyboardInterrupt


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
