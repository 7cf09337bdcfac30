"""``carcassonne play`` with people at the table: ``human`` seats, ``--web``, ``--resume`` (docs/play.md).

The seats' agents are built here (``make_agent`` with the seat's :func:`agent_seed`); the table
itself (:mod:`carcassonne_env.play`) imports only the engine and the viewer.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from agents import AgentSpecError, make_agent
from agents.compat import check_fits
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.play import HUMAN, Chooser, PlayError, PlaySession
from training.arena.match import agent_seed

__all__ = ["DEFAULT_SAVE", "play", "wanted"]

#: Where the game is saved when ``--save`` is not given.
DEFAULT_SAVE = Path("carcassonne-game.json")


def wanted(args: argparse.Namespace) -> bool:
    """``carcassonne play`` needs the table: a human seat, the web page or a game to resume."""
    return HUMAN in args.specs or args.web or args.resume is not None


def _make(game: Game, seat: int, spec: str) -> Chooser | None:
    """The agent of ``seat``, seeded as ``carcassonne play`` seeds it (None for a human)."""
    if spec == HUMAN:
        return None
    agent = make_agent(spec, seed=agent_seed(game.seed or 0, seat))
    try:
        check_fits(agent, game.config, spec)  # a model made for another game is refused before play
    except ValueError as e:
        raise AgentSpecError(str(e)) from None
    return agent


def _hint(spec: str) -> Chooser:
    if spec == HUMAN:
        raise PlayError("a hint comes from an agent, not from 'human'")
    return make_agent(spec, seed=0)


def session_for(args: argparse.Namespace, config: Callable[[int], GameConfig]) -> PlaySession:
    """The table of ``args``: a new game of ``args.specs``, or the one saved in ``args.resume``."""
    specs: Sequence[str] = args.specs
    if args.resume is not None:
        return PlaySession.resume(args.resume, specs or None, _make)
    if not 2 <= len(specs) <= 6:
        raise PlayError(f"give 2 to 6 seats (agent specs or 'human'), got {len(specs)}")
    game = Game(config(len(specs)), seed=args.seed)
    return PlaySession(game, specs, [_make(game, s, spec) for s, spec in enumerate(specs)])


def play(args: argparse.Namespace, config: Callable[[int], GameConfig]) -> None:
    """Run the table of ``args`` in the terminal, or serve it with ``--web``."""
    session = session_for(args, config)
    save = args.save or (args.resume if args.resume is not None else DEFAULT_SAVE)
    if args.web:
        from carcassonne_env.play.server import serve

        serve(session, save, _hint, host="127.0.0.1", port=args.port)
        return
    from carcassonne_env.play.terminal import TerminalPlay

    TerminalPlay(session, save, _hint, quiet=args.quiet).run()
