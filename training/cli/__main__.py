"""``python -m training.cli``: the ``carcassonne`` command."""

from . import entry_point

entry_point()
