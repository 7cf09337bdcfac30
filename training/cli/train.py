"""``carcassonne train TRAINER [ARGS...]``: every trainer behind one command.

A trainer is a module with a ``main(argv, prog)`` function that parses its own arguments (so
``carcassonne train TRAINER --help`` is the trainer's own full help) and trains; it may return an
exit status. It registers with one line in :data:`TRAINERS`: its subcommand, its module, a
one-line summary and the extra it needs, e.g. ::

    Trainer("afterstate", "training.afterstate.value_iteration", "afterstate value iteration", "train"),

The module is imported only when its subcommand runs, so ``carcassonne --help`` and ``carcassonne
train --help`` import no torch.

Every trainer ends in one line on stderr when it does not finish (:meth:`Trainer.run`): a refusal
``carcassonne train NAME: error: ...`` (exit status 2); Ctrl-C at any moment, from the first import
on, ``carcassonne train NAME: interrupted — resume with: carcassonne train NAME ARGS --resume`` when
its ``--out`` holds a run to resume, else ``... interrupted`` (exit status 130).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from agents.extras import MissingExtra, missing_extra
from training.cli.interrupt import with_resume
from training.common.run_folder import Interrupted

__all__ = ["TRAINERS", "Trainer", "add_parser", "main"]

class TrainerMain(Protocol):
    """A trainer's entry point: ``main(argv, prog)``, returning None or an exit status."""

    def __call__(self, argv: Sequence[str] | None = None, prog: str = ...) -> int | None: ...


@dataclass(frozen=True)
class Trainer:
    """A ``carcassonne train`` subcommand: ``name`` runs ``module.main``; ``summary`` is its line in
    the help; ``extra`` the install extra it needs (empty: none); ``resumable``: it has ``--resume``."""

    name: str
    module: str
    summary: str
    extra: str = "train"
    resumable: bool = True

    @property
    def prog(self) -> str:
        return f"carcassonne train {self.name}"

    def run(self, argv: Sequence[str]) -> int:
        """Import the trainer and run it on ``argv``: its exit status (0 when it returns None), or
        one line on stderr (module docstring): a refusal (a SystemExit with a message), a file that
        cannot be written or read (OSError) or a missing optional package (naming the trainer's
        extra, :mod:`agents.extras`), status 2; Ctrl-C, status 130."""
        try:
            entry = cast(TrainerMain, importlib.import_module(self.module).main)
            return entry(list(argv), prog=self.prog) or 0
        except KeyboardInterrupt as e:
            # before the trainer saves anything, a command that resumed a run still resumes it
            return self._say(self.interrupted(argv, e.saved if isinstance(e, Interrupted) else "--resume" in argv), 130)
        except SystemExit as e:
            if not isinstance(e.code, str):
                raise
            return self._say(self.error(e.code), 2)
        except ModuleNotFoundError as e:
            # the trainer's extra holds every optional package it imports: name it, whatever the import said
            missing = missing_extra(e, self.prog, self.extra) if self.extra else None
            if isinstance(e, MissingExtra) and not self.extra:
                missing = e
            if missing is None:
                raise
            return self._say(self.error(str(missing)), 2)
        except OSError as e:
            return self._say(self.error(str(e)), 2)

    def error(self, message: str) -> str:
        """The one line of a refusal: ``PROG: error: MESSAGE`` (a prefix the message has is not repeated)."""
        return f"{self.prog}: error: " + message.removeprefix(f"{self.prog}: ").removeprefix("error: ")

    def interrupted(self, argv: Sequence[str], saved: bool) -> str:
        """The line of a Ctrl-C: with the command that resumes the run when ``saved`` (its ``--out``
        holds one) and the trainer can resume: ``argv`` without ``--resume`` / ``--no-resume``, then ``--resume``."""
        if not (saved and self.resumable):
            return f"{self.prog}: interrupted"
        return f"{self.prog}: interrupted — resume with: {with_resume(self.prog.split(), argv)}"

    @staticmethod
    def _say(line: str, status: int) -> int:
        print(line, file=sys.stderr)
        return status


#: The trainers, one line each (module docstring).
TRAINERS: tuple[Trainer, ...] = (
    Trainer("ppo", "training.sb3.selfplay",
            "Stable-Baselines3 MaskablePPO self-play: the ppo: agents (presets quick, full; train extra)"),
    Trainer("rllib", "training.rllib.selfplay", "RLlib PPO self-play, on one machine or a Ray cluster: "
            "the rllib: agents (ray extra)", "ray"),
    Trainer("afterstate", "training.afterstate.value_iteration",
            "afterstate value iteration (TD-Gammon-style self-play with a gate): the afterstate: agents "
            "(presets quick, full; train extra)"),
    Trainer("az", "training.az.expert_iteration",
            "expert iteration for the az search: self-play with the search, the network fitted to its improved "
            "policy and the outcomes, a gate per generation (presets quick, full; train extra)"),
    Trainer("distill", "training.distill.policy_distillation",
            "policy distillation with DAgger: a board network that plays without search, imitating a search "
            "teacher (afterstate:pretrained,fast=1); saved as a ppo: zip (presets quick, full; train extra)"),
    Trainer("value", "training.value.fit_linear",
            "fit the linear position value of greedy:value=linear on tournament games.jsonl files", "",
            resumable=False),
)

_DESCRIPTION = ("Train an agent: every trainer and fit of the project, each with its own options "
                "(carcassonne train TRAINER --help). docs/training.md.")


def _describe(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for trainer in TRAINERS:
        sub.add_parser(trainer.name, help=trainer.summary, add_help=False)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``train`` entry of the ``carcassonne`` parser (for its help; :func:`main` parses)."""
    train = sub.add_parser("train", help="train an agent: " + ", ".join(t.name for t in TRAINERS),
                           description=_DESCRIPTION)
    _describe(train.add_subparsers(dest="trainer", metavar="TRAINER", required=True, help="the trainer (its options: "
                                   "carcassonne train TRAINER --help)"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="carcassonne train", description=_DESCRIPTION)
    _describe(parser.add_subparsers(dest="trainer", metavar="TRAINER", required=True, help="the trainer (its options: "
                                    "carcassonne train TRAINER --help)"))
    return parser


def main(argv: Sequence[str]) -> int:
    """``carcassonne train ARGV``: the trainer named by ``argv[0]`` runs on the rest."""
    by_name = {t.name: t for t in TRAINERS}
    if argv and argv[0] in by_name:
        return by_name[argv[0]].run(argv[1:])
    _parser().parse_args(argv)  # --help, no trainer or an unknown one: prints and exits
    return 2
