"""``python -m training.cli``: the ``carcassonne`` command."""

from .main import entry_point

entry_point()
