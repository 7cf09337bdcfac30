"""The Carcassonne rules engine: numpy and the standard library only (no RL imports), and
``mypy_extensions.mypyc_attr``, the decorator that keeps the compiled expansion plug-ins open to
subclasses written in Python.

>>> from carcassonne_env.engine import Game, GameConfig
>>> game = Game(GameConfig(players=2), seed=7)
>>> game.phase.name, len(game.legal_actions()) > 0
('PLACE', True)
"""

from .compiled_core import COMPILED  # first: it decides whether the compiled modules may load

# isort: split
from .actions import TOWER_TOP_SLOT, Action, ActionKind, FloorColour, IllegalActionError, Phase
from .capture_area import CaptureRules, capture_area
from .config import ConfigError, GameConfig, describe_game
from .game import FOLLOWERS_PER_PLAYER, Feature, Follower, Game, GameRecord, PlacedTile, PlaceUndo
from .save_validation import SaveError
from .scoring import ScoreEvent, ScoreReason
from .tiles import CatalogueError, SegmentKind, Terrain, TileCatalogue, TileType, load_catalogue
from .tower import TowerState

__all__ = [
    "COMPILED",
    "FOLLOWERS_PER_PLAYER",
    "TOWER_TOP_SLOT",
    "Action",
    "ActionKind",
    "CaptureRules",
    "CatalogueError",
    "ConfigError",
    "Feature",
    "FloorColour",
    "Follower",
    "Game",
    "GameConfig",
    "GameRecord",
    "IllegalActionError",
    "Phase",
    "PlaceUndo",
    "PlacedTile",
    "SaveError",
    "ScoreEvent",
    "ScoreReason",
    "SegmentKind",
    "Terrain",
    "TileCatalogue",
    "TileType",
    "TowerState",
    "capture_area",
    "describe_game",
    "load_catalogue",
]
