"""Agents that try to cheat, for the isolation tests (specs ``tests/faults/hostile_agents.py:NAME``).

Each plays a legal action, and on the side tries to read the future or to change the runner's game
or code. Run as the tournament runs them (a file agent: in a process of its own), none of it reaches
the runner: tests/faults/test_isolation.py checks the results.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from carcassonne_env.engine import Game


def spy_log(seed: int) -> Path:
    """Where :class:`PileSpy` built with ``seed`` writes its predictions."""
    return Path(tempfile.gettempdir()) / f"carcassonne-pile-spy-{seed}.jsonl"


class PileSpy:
    """Predicts the tile drawn after this one in every way a game object offers — the public
    ``pile_in_draw_order()``, the private ``_pile``, and a game rebuilt from ``seed`` — and logs the
    predictions (one JSON line per decision) to :func:`spy_log`."""

    def __init__(self, seed: int) -> None:
        self.log = spy_log(seed)

    def choose_action(self, game: Game) -> Any:
        pile = game.pile_in_draw_order()
        drawn = len(pile) - game.tiles_left
        if drawn < len(pile):
            private = getattr(game, "_pile", None)
            rebuilt = None if game.seed is None else Game(game.config, seed=game.seed).pile_in_draw_order()
            guesses = {"public": pile[drawn].id, "private": None if private is None else private[drawn].id,
                       "seed": None if rebuilt is None else rebuilt[drawn].id}
            with self.log.open("a") as f:
                f.write(json.dumps({"drawn": drawn, "left": [t.id for t in pile[drawn:]], **guesses}) + "\n")
        return game.legal_actions()[0]


class Saboteur:
    """After choosing, finds every game object of its process (the garbage collector's list, the
    frames of the stack) and wrecks it: 1,000 points to its seat, its pile reversed in place, its
    board cleared."""

    def choose_action(self, game: Game) -> Any:
        action = game.legal_actions()[0]
        seat = game.current_player
        found = [o for o in gc.get_objects() if isinstance(o, Game)]
        frame = sys._getframe()
        while frame is not None:
            found += [v for v in frame.f_locals.values() if isinstance(v, Game)]
            frame = frame.f_back  # type: ignore[assignment]
        for other in found:
            other.add_score(seat, 1000, "city")
            for name in ("_pile", "_board"):
                inner = getattr(other, name, None)
                if isinstance(inner, list):
                    inner.reverse()
                elif isinstance(inner, dict):
                    inner.clear()
        return action


class Patcher:
    """Replaces the runner's functions from its constructor: the move check becomes a no-op and the
    ranking puts seat 0 first."""

    def __init__(self) -> None:
        import training.arena.match as match

        match._apply = lambda *args: None  # type: ignore[assignment]
        match.competition_ranks = lambda scores, forfeit_seat=None: (1,) * len(scores)  # type: ignore[assignment]

    def choose_action(self, game: Game) -> Any:
        return game.legal_actions()[0]


class FailsToBuild:
    """Raises in its constructor."""

    def __init__(self) -> None:
        raise RuntimeError("no model here")

    def choose_action(self, game: Game) -> Any:
        return game.legal_actions()[0]


class NotAnAgent:
    """Has neither choose_action nor act."""


class PipeForger:
    """Finds its process's pipe to the runner and reports, in the child's own words, an illegal-move
    failure without the action: a kind only the runner may charge, whose record would then fail its check."""

    def choose_action(self, game: Game) -> Any:
        import gc
        import json
        from multiprocessing.connection import Connection

        for obj in gc.get_objects():
            if isinstance(obj, Connection) and not obj.closed:
                obj.send_bytes(json.dumps({"op": "fail", "kind": "illegal", "message": "forged"}).encode())
        return game.legal_actions()[0]


class TimeForger:
    """Writes a move of its own to the runner's pipe without the CPU seconds the child reports with
    each move: the first answer the runner reads is one the child never sent."""

    def choose_action(self, game: Game) -> Any:
        import gc
        import json
        from multiprocessing.connection import Connection

        for obj in gc.get_objects():
            if isinstance(obj, Connection) and not obj.closed:
                obj.send_bytes(json.dumps({"op": "move", "action": [0, 0, 0, 0]}).encode())
        return game.legal_actions()[0]
