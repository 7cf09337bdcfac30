"""Agents as a user writes them in a file of their own, for the tests that load agents by spec
(``PATH/legal_agents.py:FirstLegal``, :func:`spec`): each answers at once with a legal action."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def spec(name: str) -> str:
    """The spec of the agent class ``name`` of this file."""
    return f"{Path(__file__).resolve()}:{name}"


class FirstLegal:
    """Always the first legal action; takes no seed."""

    def choose_action(self, game: Any) -> Any:
        return game.legal_actions()[0]


class LastLegal:
    """Always the last legal action."""

    def choose_action(self, game: Any) -> Any:
        return game.legal_actions()[-1]


class Seeded:
    """The legal action its seed picks: a class that takes the seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def choose_action(self, game: Any) -> Any:
        return game.legal_actions()[self.seed % len(game.legal_actions())]


class Neither:
    """Implements neither ``choose_action`` nor ``act``: not an agent."""


SPIN_SECONDS = 0.002
"""The CPU seconds :class:`Spinner` spends on each decision, and :class:`Sleeper` waits."""


class Spinner:
    """Thinks: spends at least :data:`SPIN_SECONDS` of its process's CPU time on each decision."""

    def choose_action(self, game: Any) -> Any:
        import time

        start = time.process_time()
        while time.process_time() - start < SPIN_SECONDS:
            pass
        return game.legal_actions()[0]


class Sleeper:
    """Waits :data:`SPIN_SECONDS` of wall-clock time on each decision, using no CPU meanwhile."""

    def choose_action(self, game: Any) -> Any:
        import time

        time.sleep(SPIN_SECONDS)
        return game.legal_actions()[0]
