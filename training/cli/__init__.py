"""The ``carcassonne`` command (:mod:`~training.cli.main`): play, replay, tournament, evaluate, bench
and ``train`` (:mod:`~training.cli.train`, every trainer). Imports no torch.

This package imports nothing else until :func:`entry_point` runs, so that the command's own imports
(a second or more) run inside its Ctrl-C guard (:mod:`~training.cli.interrupt`); the function
``main`` is :func:`training.cli.main.main`."""

from __future__ import annotations

__all__ = ["entry_point"]


def entry_point() -> None:
    """``[project.scripts]`` target: ``carcassonne`` with ``sys.argv``. A Ctrl-C at any moment, the
    imports included, ends in one line and status 130 (:func:`~training.cli.interrupt.interrupted`);
    one after that line, or once the command has finished (while Python shuts down), ends the
    process at once."""
    import os
    import signal
    import sys

    from .interrupt import INTERRUPTED, caused_by_ctrl_c, interrupted

    def leave(signum: int, frame: object) -> None:
        os._exit(INTERRUPTED)

    # a Ctrl-C caught here came during the imports (an extension module's import then raises
    # ImportError), or is a second one while main() reported the first
    try:
        from .main import main

        code = main()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, leave)
        code = interrupted(sys.argv[1:])
    except Exception as e:
        if not caused_by_ctrl_c(e):
            raise
        signal.signal(signal.SIGINT, leave)
        code = interrupted(sys.argv[1:])
    signal.signal(signal.SIGINT, leave)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)
