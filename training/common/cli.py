"""A trainer's command line: its settings dataclass parsed by tyro in the project's dialect, the run,
and how it ends.

``carcassonne train NAME ARGS`` calls the trainer module's ``main(argv, prog)``
(:mod:`training.cli.train`; ``python -m`` the module calls it too), which :func:`trainer_main`
makes from the trainer's :class:`Command` and ``train``; it is one call of :func:`run_command`:

1. a flag's old spelling is refused in one line (:func:`training.cli.dialect.refuse_old_spellings`);
2. ``ARGS`` are parsed into the trainer's :class:`~training.common.settings.RunSettings` dataclass
   by tyro, lists comma-separated (:func:`training.cli.dialect.comma_lists`): with presets, a preset
   first, then overrides (``quick --total-steps 50000``); without, the dataclass's defaults;
3. the trainer's ``train(settings, given)`` runs, ``given`` the settings named on the command line
   (a resume may refuse those that differ from the run's: :func:`training.common.run_folder.keep_saved`);
4. a refusal (:class:`~training.common.settings.SettingError`, and what else the trainer names) ends
   in the one line ``PROG: error: MESSAGE`` (a SystemExit: ``carcassonne train`` prints it, exit
   status 2); a run that finishes prints its ``done`` line, if it has one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from agents.extras import optional_imports

from .settings import SettingError

__all__ = ["Command", "TrainerMain", "given_settings", "run_command", "trainer_main"]

_S = TypeVar("_S")
_R = TypeVar("_R")


@dataclass(frozen=True)
class Command(Generic[_S]):
    """A trainer's command line: its ``settings`` dataclass, the ``summary`` its help starts with, and
    its ``presets`` (name → (help line, settings)) with an ``example`` of a preset and an override
    (``quick --generations 4``); without presets the summary is the whole description."""

    settings: type[_S]
    summary: str
    presets: Mapping[str, tuple[str, _S]] | None = None
    example: str = ""

    def parse(self, argv: Sequence[str], prog: str) -> _S:
        """The settings of ``argv`` (steps 1 and 2 of the module docstring); tyro exits on ``--help``
        and on an argument it cannot parse."""
        with optional_imports(prog):
            import tyro

            from training.cli.dialect import comma_lists, list_flags, preset_help, refuse_old_spellings

        refuse_old_spellings(argv, prog, lists=list_flags(self.settings))
        if self.presets is None:
            return tyro.cli(self.settings, args=argv, prog=prog, registry=comma_lists(), description=self.summary)
        return tyro.extras.overridable_config_cli(dict(self.presets), args=argv, prog=prog, registry=comma_lists(),
                                                  description=preset_help(self.summary, prog, self.example))


def given_settings(argv: Sequence[str]) -> frozenset[str]:
    """The settings ``argv`` names (``--total-steps 5``, ``--no-progress``: ``total_steps``, ``progress``)."""
    return frozenset(a[2:].split("=")[0].replace("-", "_").removeprefix("no_") for a in argv if a.startswith("--"))


def run_command(command: Command[_S], argv: Sequence[str] | None, prog: str,
                train: Callable[[_S, frozenset[str]], _R], done: Callable[[_R, float], str] | None = None,
                refusals: tuple[type[Exception], ...] = (SettingError,)) -> int:
    """``PROG ARGV`` (``sys.argv[1:]`` when None): parse, train, end (module docstring); 0 when the
    run finishes, SystemExit with the one line of a refusal (an exception of ``refusals``)."""
    args = sys.argv[1:] if argv is None else list(argv)
    settings = command.parse(args, prog)
    start = time.time()
    try:
        result = train(settings, given_settings(args))
    except refusals as e:
        raise SystemExit(f"{prog}: error: {e}") from None
    if done is not None:
        print(done(result, time.time() - start))
    return 0


class TrainerMain(Protocol):
    """A trainer module's ``main(argv, prog)``: ``PROG ARGV`` (``sys.argv[1:]`` when None), its exit status."""

    def __call__(self, argv: Sequence[str] | None = None, prog: str = ...) -> int: ...


def trainer_main(command: Command[_S], name: str, train: Callable[[_S, frozenset[str]], _R],
                 done: Callable[[_R, float], str] | None = None,
                 refusals: tuple[type[Exception], ...] = (SettingError,)) -> TrainerMain:
    """The ``main(argv=None, prog="carcassonne train NAME")`` of the trainer ``NAME``: :func:`run_command`
    of ``command``, ``train``, ``done`` and ``refusals``. A trainer module ends in ::

        main = trainer_main(COMMAND, "az", lambda s, given: train(s), refusals=(ValueError,))

        if __name__ == "__main__":
            raise SystemExit(main())
    """

    def main(argv: Sequence[str] | None = None, prog: str = f"carcassonne train {name}") -> int:
        return run_command(command, argv, prog, train, done, refusals)

    main.__doc__ = f"``carcassonne train {name}`` (:mod:`training.cli.train`): parse ``argv``, then train."
    return main
