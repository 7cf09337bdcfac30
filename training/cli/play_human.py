"""``carcassonne play`` with people at the table: ``human`` seats, ``--web``, ``--resume`` (docs/play.md).

The seats' agents are built here (:func:`agents.isolation.seat_agent` with the seat's :func:`agent_seed`); the table
itself (:mod:`carcassonne_env.play`) imports only the engine and the viewer.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from agents import AgentSpecError, make_agent
from agents.isolation import close_agent, seat_agent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.play import HUMAN, Chooser, PlayError, PlaySession
from training.arena.match import agent_seed

__all__ = ["DEFAULT_PORT", "DEFAULT_SAVE", "check_flags", "play", "same_file", "save_path", "wanted"]

#: Where the game is saved when ``--save`` is not given.
DEFAULT_SAVE = Path("carcassonne-game.json")
#: The port of ``--web`` when ``--port`` is not given.
DEFAULT_PORT = 8765


def wanted(args: argparse.Namespace) -> bool:
    """``carcassonne play`` needs the table: a human seat, the web page or a game to resume."""
    return HUMAN in args.specs or args.web or args.resume is not None


def save_path(args: argparse.Namespace) -> Path:
    """The file the table saves to: ``--save``, else the ``--resume`` file, else :data:`DEFAULT_SAVE`."""
    return args.save or (args.resume if args.resume is not None else DEFAULT_SAVE)


def same_file(a: Path, b: Path) -> bool:
    """``a`` and ``b`` name one file, however spelled (``./x``, ``d/../x``, a link, a hard link)."""
    if a.resolve() == b.resolve():
        return True
    return a.exists() and b.exists() and os.path.samefile(a, b)


def check_flags(args: argparse.Namespace) -> None:
    """Refuse, in one line, the ``carcassonne play`` options that would be ignored: ``--frames`` and
    ``--delay`` at a table (they pace and picture a game between agents), ``--save`` and ``--force``
    without a table, ``--port`` without ``--web``; and two outputs (the save, ``--html``, ``--gif``)
    that are one file, which the last written would replace."""
    if wanted(args):
        for flag, value in (("--frames", args.frames), ("--delay", args.delay or None)):
            if value is not None:
                raise PlayError(f"{flag} is for a game between agents, not with a human seat, --web or --resume "
                                "(--html and --gif are written at the end of the game)")
    else:
        for flag, value in (("--save", args.save), ("--force", args.force or None)):
            if value is not None:
                raise PlayError(f"{flag} is for a table with a human seat, --web or --resume")
    if args.port is not None and not args.web:
        raise PlayError("--port needs --web")
    outputs = [("--html", args.html), ("--gif", args.gif)]
    if wanted(args):
        outputs.insert(0, ("--save" if args.save else "--resume" if args.resume else "the save", save_path(args)))
    for (first, a), (second, b) in itertools.combinations(outputs, 2):
        if a is not None and b is not None and same_file(a, b):
            raise PlayError(f"{second} {b} is the file of {first} ({a}): give each output a file of its own")


def _make(game: Game, seat: int, spec: str) -> Chooser | None:
    """The agent of ``seat``, seeded as ``carcassonne play`` seeds it (None for a human)."""
    if spec == HUMAN:
        return None
    try:  # a file or module agent plays from its own process; a model made for another game is refused
        return seat_agent(spec, seed=agent_seed(game.seed or 0, seat), config=game.config)
    except AgentSpecError:
        raise
    except ValueError as e:
        raise AgentSpecError(str(e)) from None


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
    """Run the table of ``args`` in the terminal, or serve it with ``--web``. The save file is checked
    before the first move: another game's save is refused unless ``--force``, a file that is not a
    save always (:class:`~carcassonne_env.play.session.SaveGuard`)."""
    session = session_for(args, config)
    try:
        save = save_path(args)
        session.saves.force = args.force
        session.saves.check(save)
        if args.web:
            from carcassonne_env.play.server import serve

            serve(session, save, _hint, host="127.0.0.1", port=DEFAULT_PORT if args.port is None else args.port)
        else:
            from carcassonne_env.play.terminal import TerminalPlay

            TerminalPlay(session, save, _hint, quiet=args.quiet, auto_single=args.auto_single).run()
    finally:
        for agent in session.agents:
            close_agent(agent)
    _write_outputs(args, session)


def _write_outputs(args: argparse.Namespace, session: PlaySession) -> None:
    """``--html`` and ``--gif`` of the table's game, from its record, once it is over."""
    wanted_outputs = [(flag, path) for flag, path in (("--html", args.html), ("--gif", args.gif)) if path is not None]
    if not wanted_outputs:
        return
    game = session.game
    if not game.is_over:
        print(f"{' and '.join(flag for flag, _ in wanted_outputs)} not written: the game is not over "
              "(they are written when a resumed game ends)")
        return
    if args.html is not None:
        from carcassonne_env.viewer import Replayable, write_replay_html

        print(f"wrote {write_replay_html(Replayable(game.record(), session.seats), args.html)}")
    if args.gif is not None:
        from carcassonne_env.environment.gif import write_gif

        print(f"wrote {args.gif} ({write_gif(game.record(), args.gif)} frames)")
