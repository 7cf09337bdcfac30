"""Package data: the tile catalogue ``tiles.json`` (a copy of ``shared/rules/tiles.json``)."""
