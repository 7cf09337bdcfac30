"""Game configuration: a frozen, validated dataclass. Variant names follow docs/rules.md §6 exactly;
expansion and tile-set names, tile sets and requirements come from the registry (:mod:`.registry`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .registry import EXPANSIONS, PLUGINS, TILE_SETS, TOWER_VARIANT

__all__ = ["EXPANSIONS", "FOLLOWERS_PER_PLAYER", "TILE_SETS", "ConfigError", "GameConfig", "as_int", "describe_game"]

FOLLOWERS_PER_PLAYER = 7
"""Followers each player owns (R2): the one definition, for play and for loading."""



def as_int(value: object) -> int | None:
    """``value`` as a Python int if it is an integer, else None.

    The one integer rule of the package: Python ints and numpy integers (``np.int64(3)``) are
    integers; bools (``True``, ``np.True_``), floats (``3.0``) and strings (``"3"``) are not.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


class ConfigError(ValueError):
    """A configuration value is invalid. ``field`` names the offending field."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


def _variant(requires: str | None, doc: str) -> Any:
    return field(default=False, metadata={"requires": requires, "doc": doc})


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes the rules of one game.

    ``tile_sets`` defaults to ``base`` plus the tile sets of the enabled expansions. A variant flag
    that belongs to an expansion (the ``requires`` metadata) may only be set with that expansion.
    Integer fields take any integer of :func:`as_int` (numpy integers too) and store a Python int.
    """

    players: int = 2
    expansions: tuple[str, ...] = ()
    tile_sets: tuple[str, ...] | None = None
    legacy_small_city: bool = _variant(None, "a completed 2-tile city scores 1 per tile + 1 per pennant (D16)")
    tower_blocked_by_holes: bool = _variant("tower", "capture rays stop at the first empty position")
    no_ransom: bool = _variant("tower", "RANSOM is never legal")
    no_surprises: bool = _variant("tower", "capture rays reach h−1 instead of h")
    tower_range_manhattan: bool = _variant("tower", "normal towers reach every position with |dx|+|dy| ≤ h")
    tower_top_followers_immune: bool = _variant("tower", "followers on tower tops cannot be captured (D1)")
    capture_opponents_only: bool = _variant("tower", "a tower may capture only other players' followers (D2)")
    black_tower_excludes_own_tile: bool = _variant(
        "black_tower", "a black tower's own position is not in its area (D8)"
    )
    watchtower_ignores_tower_followers: bool = _variant(
        "watchtowers", "the meeple watchtower counts only followers on segments (D13)"
    )
    extra_foundation_tiles: int = field(
        default=0, metadata={"requires": "black_tower", "doc": "E of R52: house-made extra foundation tiles"}
    )

    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int] = 6

    def __post_init__(self) -> None:
        players = as_int(self.players)
        if players is None:
            raise ConfigError("players", f"must be an int, got {self.players!r}")
        if not self.MIN_PLAYERS <= players <= self.MAX_PLAYERS:
            raise ConfigError("players", f"must be {self.MIN_PLAYERS}–{self.MAX_PLAYERS} (R3), got {players}")
        object.__setattr__(self, "players", players)
        expansions = self._names("expansions", self.expansions, EXPANSIONS)
        for name in expansions:
            for needed in PLUGINS[name].requires:
                if needed not in expansions:
                    raise ConfigError("expansions", f"{name!r} requires {needed!r} (R50)")
        implied = ("base", *(s for e in expansions if (s := PLUGINS[e].tile_set) is not None))
        if self.tile_sets is None:
            tile_sets = tuple(s for s in TILE_SETS if s in implied)
        else:
            tile_sets = self._names("tile_sets", self.tile_sets, TILE_SETS)
            for needed in implied:
                if needed not in tile_sets:
                    raise ConfigError("tile_sets", f"must include {needed!r} for the enabled expansions")
        object.__setattr__(self, "expansions", expansions)
        object.__setattr__(self, "tile_sets", tile_sets)
        for f in dataclasses.fields(self):
            requires = f.metadata.get("requires", "")
            if requires == "":
                continue
            value = getattr(self, f.name)
            if f.type in (bool, "bool"):
                if not isinstance(value, bool):
                    raise ConfigError(f.name, f"must be a bool, got {value!r}")
            else:
                number = as_int(value)
                if number is None or number < 0:
                    raise ConfigError(f.name, f"must be a non-negative int, got {value!r}")
                object.__setattr__(self, f.name, number)
            if value and requires is not None and requires not in expansions:
                raise ConfigError(f.name, f"only applies with the {requires!r} expansion")

    @staticmethod
    def _names(field_name: str, value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
        if isinstance(value, str) or not isinstance(value, (tuple, list, frozenset, set)):
            raise ConfigError(field_name, f"must be a sequence of names, got {value!r}")
        for name in value:
            if name not in allowed:
                raise ConfigError(field_name, f"unknown name {name!r}; known: {', '.join(allowed)}")
        if len(set(value)) != len(value):
            raise ConfigError(field_name, f"names repeat in {value!r}")
        return tuple(n for n in allowed if n in value)

    def has(self, expansion: str) -> bool:
        """Whether ``expansion`` is enabled."""
        return expansion in self.expansions

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; :meth:`from_dict` inverts it."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["expansions"] = list(self.expansions)
        out["tile_sets"] = list(self.tile_sets or ())
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        """Inverse of :meth:`to_dict`; an unknown key is a :class:`ConfigError` naming it."""
        known = {f.name for f in dataclasses.fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(key, "unknown configuration field")
        kwargs = dict(data)
        for key in ("expansions", "tile_sets"):
            if isinstance(kwargs.get(key), list):
                kwargs[key] = tuple(kwargs[key])
        return cls(**kwargs)

    @classmethod
    def variant_docs(cls) -> dict[str, tuple[str | None, str]]:
        """Variant flag → (expansion it belongs to, one-line definition)."""
        return {
            f.name: (f.metadata["requires"], f.metadata["doc"])
            for f in dataclasses.fields(cls)
            if "requires" in f.metadata
        }


def describe_game(config: GameConfig) -> str:
    """The game of ``config`` in one short line: the one form in which every printed table, summary
    file, ladder, benchmark and plot of the project names the game it measured, and every refusal of
    an agent made for another game names both games.

    Rules: the expansions first, as ``tower variant (tower, black_tower, watchtowers)`` when they are
    exactly :data:`~carcassonne_env.engine.registry.TOWER_VARIANT`, ``base game`` when there are
    none, else ``expansions (tower, ...)``; then ``N players``; then ``; tile sets: ...`` only when
    the tile sets are not the expansions' own, and ``; rules: ...`` naming every rule flag that is
    set (a boolean by its name, a number as ``name=value``). Two configurations that differ have
    different descriptions::

        tower variant (tower, black_tower, watchtowers), 2 players
        base game, 3 players; rules: legacy_small_city
        expansions (tower), 2 players; rules: no_ransom, tower_top_followers_immune
    """
    if config.expansions == TOWER_VARIANT:
        text = f"tower variant ({', '.join(config.expansions)})"
    elif config.expansions:
        text = f"expansions ({', '.join(config.expansions)})"
    else:
        text = "base game"
    text += f", {config.players} players"
    if config.tile_sets != GameConfig(expansions=config.expansions).tile_sets:
        text += f"; tile sets: {', '.join(config.tile_sets or ())}"
    plain = GameConfig(players=config.players, expansions=config.expansions, tile_sets=config.tile_sets).to_dict()
    rules = [key if value is True else f"{key}={value}"
             for key, value in config.to_dict().items() if value != plain[key]]
    return text + (f"; rules: {', '.join(rules)}" if rules else "")
