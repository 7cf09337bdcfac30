"""The ``carcassonne`` command (:mod:`~training.cli.main`): play, replay, tournament, evaluate, bench
and ``train`` (:mod:`~training.cli.train`, every trainer). Imports no torch."""

from .main import entry_point, main

__all__ = ["entry_point", "main"]
