"""``carcassonne play`` with people at the table: ``human`` seats, ``--web``, ``--resume`` (docs/play.md).

The seats' agents are built here (:func:`agents.isolation.seat_agent` with the seat's :func:`agent_seed`); the table
itself (:mod:`carcassonne_env.play`) imports only the engine and the viewer.

Trust (:class:`agents.spec.Origin`): seats given on the command line may name anything; the seats a
save names are read from a file, so every one of them is checked before any agent is built, and a
seat that names a file, a module or a model path stops the resume with a message naming the seat and
how to go on (name the seats on the command line, or ``--trust-saved-seats``). Hints come from a
request: :class:`agents.hints.HintWorker` checks them as such and thinks them out in a process that is
stopped at ``--hint-seconds``.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from agents import AgentSpecError, Origin
from agents.compat import warn_other_game
from agents.hints import HINT_SECONDS, HintWorker
from agents.isolation import close_agent, seat_agent
from agents.spec import UntrustedSpecError, check_spec
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.play import HUMAN, Chooser, PlayError, PlaySession
from carcassonne_env.play.server import DEFAULT_PORT
from training.arena.match import agent_seed

__all__ = ["DEFAULT_PORT", "DEFAULT_SAVE", "HINT_SECONDS", "MAX_HINT_SECONDS", "check_flags", "play", "same_file",
           "save_path", "wanted"]

#: Where the game is saved when ``--save`` is not given.
DEFAULT_SAVE = Path("carcassonne-game.json")
#: The largest ``--hint-seconds``: a hint is a question at the table, not an analysis.
MAX_HINT_SECONDS = 600.0


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
    """Refuse, in one line, the ``carcassonne play`` options that would be ignored: ``--frames``,
    ``--delay`` and ``--boards`` at a table (they pace, picture and print a game between agents),
    ``--boards`` with ``--quiet``, ``--save`` and ``--force`` without a table, ``--port`` without
    ``--web``; and two outputs (the save, ``--html``, ``--gif``) that are one file, which the last
    written would replace."""
    if wanted(args):
        for flag, value in (("--frames", args.frames), ("--delay", args.delay or None),
                            ("--boards", args.boards or None)):
            if value is not None:
                raise PlayError(f"{flag} is for a game between agents, not with a human seat, --web or --resume "
                                "(--html and --gif are written at the end of the game)")
    else:
        for flag, value in (("--save", args.save), ("--force", args.force or None)):
            if value is not None:
                raise PlayError(f"{flag} is for a table with a human seat, --web or --resume")
    if args.boards and args.quiet:
        raise PlayError("--boards prints the board after every turn and --quiet only the final one: choose one")
    if args.port is not None and not args.web:
        raise PlayError("--port needs --web")
    if args.trust_saved_seats and args.resume is None:
        raise PlayError("--trust-saved-seats is for --resume (the seats a save names)")
    outputs = [("--html", args.html), ("--gif", args.gif)]
    if wanted(args):
        outputs.insert(0, ("--save" if args.save else "--resume" if args.resume else "the save", save_path(args)))
    for (first, a), (second, b) in itertools.combinations(outputs, 2):
        if a is not None and b is not None and same_file(a, b):
            raise PlayError(f"{second} {b} is the file of {first} ({a}): give each output a file of its own")


def _maker(origin: Origin) -> Callable[[Game, int, str], Chooser | None]:
    """The builder of a seat's agent from text of ``origin``, seeded as ``carcassonne play`` seeds it
    (None for a human); a file or module agent plays from its own process, a model made for another
    game is refused, a network whose game is not recorded or a value fitted on another game warned about once."""
    def make(game: Game, seat: int, spec: str) -> Chooser | None:
        if spec == HUMAN:
            return None
        try:
            agent = seat_agent(spec, seed=agent_seed(game.seed or 0, seat), config=game.config, origin=origin)
            warn_other_game(agent, spec, game.config)
            return agent
        except AgentSpecError:
            raise
        except ValueError as e:
            raise AgentSpecError(str(e)) from None
    return make


def _check_saved_seats(path: Path, seats: Sequence[str], origin: Origin) -> None:
    """Refuse, before any agent is built, a save whose seats ``origin`` may not name (module docstring)."""
    for s, spec in enumerate(seats):
        if spec == HUMAN:
            continue
        try:
            check_spec(spec, origin)
        except UntrustedSpecError as e:
            given = " ".join(HUMAN if x == HUMAN else f"'{x}'" if " " in x else x for x in seats)
            raise PlayError(f"{path}, seat {s}: {e}; nothing was loaded. To seat it, name the seats yourself: "
                            f"carcassonne play --resume {path} {given} (or pass --trust-saved-seats for a save "
                            "you made)") from None


def session_for(args: argparse.Namespace, config: Callable[[int], GameConfig]) -> PlaySession:
    """The table of ``args``: a new game of ``args.specs``, or the one saved in ``args.resume`` (its
    seats checked as text from a file unless ``--trust-saved-seats``, before anything is built)."""
    specs: Sequence[str] = args.specs
    if args.resume is not None:
        if specs:
            return PlaySession.resume(args.resume, specs, _maker(Origin.COMMAND_LINE))
        origin = Origin.COMMAND_LINE if args.trust_saved_seats else Origin.FILE
        _, saved = PlaySession.read_document(args.resume)
        _check_saved_seats(args.resume, saved or (), origin)
        return PlaySession.resume(args.resume, None, _maker(origin))
    if not 2 <= len(specs) <= 6:
        raise PlayError(f"give 2 to 6 seats (agent specs or 'human'), got {len(specs)}")
    game = Game(config(len(specs)), seed=args.seed)
    make = _maker(Origin.COMMAND_LINE)
    return PlaySession(game, specs, [make(game, s, spec) for s, spec in enumerate(specs)])


def play(args: argparse.Namespace, config: Callable[[int], GameConfig]) -> None:
    """Run the table of ``args`` in the terminal, or serve it with ``--web``. The save file is checked
    before the first move: another game's save is refused unless ``--force``, a file that is not a
    save always (:class:`~carcassonne_env.play.session.SaveGuard`)."""
    session = session_for(args, config)
    try:
        save = save_path(args)
        session.saves.force = args.force
        session.saves.check(save)
        with HintWorker(seconds=args.hint_seconds) as hints:
            if args.web:
                from carcassonne_env.play.server import serve

                serve(session, save, hints.agent, host="127.0.0.1", hint_seconds=args.hint_seconds,
                      port=DEFAULT_PORT if args.port is None else args.port)
            else:
                from carcassonne_env.play.terminal import TerminalPlay

                TerminalPlay(session, save, hints.agent, quiet=args.quiet, auto_single=args.auto_single).run()
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
