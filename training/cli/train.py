"""``carcassonne train TRAINER [ARGS...]``: every trainer behind one command.

A trainer is a module with a ``main(argv, prog)`` function that parses its own arguments (so
``carcassonne train TRAINER --help`` is the trainer's own full help) and trains; it may return an
exit status. It registers with one line in :data:`TRAINERS`: its subcommand, its module and a
one-line summary, e.g. ::

    Trainer("afterstate", "training.afterstate.value_iteration", "afterstate value iteration (train extra)"),

The module is imported only when its subcommand runs, so ``carcassonne --help`` and ``carcassonne
train --help`` import no torch.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

__all__ = ["TRAINERS", "Trainer", "add_parser", "main"]


class TrainerMain(Protocol):
    """A trainer's entry point: ``main(argv, prog)``, returning None or an exit status."""

    def __call__(self, argv: Sequence[str] | None = None, prog: str = ...) -> int | None: ...


@dataclass(frozen=True)
class Trainer:
    """A ``carcassonne train`` subcommand: ``name`` runs ``module.main``; ``summary`` is its line in
    the help."""

    name: str
    module: str
    summary: str

    def run(self, argv: Sequence[str]) -> int:
        """Import the trainer and run it on ``argv``; its exit status (0 when it returns None)."""
        entry = cast(TrainerMain, importlib.import_module(self.module).main)
        return entry(list(argv), prog=f"carcassonne train {self.name}") or 0


#: The trainers, one line each (module docstring).
TRAINERS: tuple[Trainer, ...] = (
    Trainer("ppo", "training.sb3.selfplay",
            "Stable-Baselines3 MaskablePPO self-play: the ppo: agents (presets quick, full; train extra)"),
    Trainer("rllib", "training.rllib.selfplay", "RLlib PPO self-play, on one machine or a Ray cluster: "
            "the rllib: agents (ray extra)"),
    Trainer("afterstate", "training.afterstate.value_iteration",
            "afterstate value iteration (TD-Gammon-style self-play with a gate): the afterstate: agents "
            "(presets quick, full; train extra)"),
    Trainer("distill", "training.distill.policy_distillation",
            "policy distillation with DAgger: a board network that plays without search, imitating a search "
            "teacher (afterstate:pretrained,fast=1); saved as a ppo: zip (presets quick, full; train extra)"),
    Trainer("value", "training.value.fit_linear",
            "fit the linear position value of greedy:value=linear on tournament games.jsonl files"),
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
