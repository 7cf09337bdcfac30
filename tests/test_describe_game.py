"""The one description of a game (``carcassonne_env.engine.describe_game``) that every output names
its game by: expansions, players, tile sets and rule flags, a different line for a different game."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from carcassonne_env.engine import GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements


@pytest.mark.parametrize(("config", "words"), [
    (GameConfig(expansions=TOWER_VARIANT), "tower variant (tower, black_tower, watchtowers), 2 players"),
    (GameConfig(players=4, expansions=TOWER_VARIANT), "tower variant (tower, black_tower, watchtowers), 4 players"),
    (GameConfig(), "base game, 2 players"),
    (GameConfig(players=3, legacy_small_city=True), "base game, 3 players; rules: legacy_small_city"),
    (GameConfig(expansions=("tower",), no_ransom=True, tower_top_followers_immune=True),
     "expansions (tower), 2 players; rules: no_ransom, tower_top_followers_immune"),
    (GameConfig(expansions=with_requirements("black_tower"), extra_foundation_tiles=2),
     "expansions (tower, black_tower), 2 players; rules: extra_foundation_tiles=2"),
    (GameConfig(tile_sets=("base", "tower")), "base game, 2 players; tile sets: base, tower"),
])
def test_a_game_is_named_by_its_expansions_players_tile_sets_and_rules(config: GameConfig, words: str) -> None:
    assert describe_game(config) == words


def test_different_games_have_different_descriptions() -> None:
    flags = list(GameConfig.variant_docs())
    configs = [GameConfig(players=players, expansions=expansions)
               for players, expansions in itertools.product((2, 5), ((), ("tower",), TOWER_VARIANT))]
    for flag in flags:
        value = 1 if flag == "extra_foundation_tiles" else True
        configs.append(GameConfig.from_dict({**GameConfig(expansions=TOWER_VARIANT).to_dict(), flag: value}))
    described = {describe_game(c): c for c in configs}
    assert len(described) == len(configs)
    assert all(flag in describe_game(c) for flag, c in zip(flags, configs[6:], strict=True))


ROOT = Path(__file__).resolve().parents[1]


def _recorded_config(document: dict[str, Any]) -> GameConfig | None:
    """The game a result file's run config records: a tournament's ``config``, a trainer's players and
    expansions (None: the file records none)."""
    settings = document.get("settings") if isinstance(document.get("settings"), dict) else document
    if isinstance(settings.get("config"), dict):
        return GameConfig.from_dict(settings["config"])
    if "players" in settings and "expansions" in settings:
        return GameConfig(players=settings["players"], expansions=tuple(settings["expansions"]))
    return None


def test_every_committed_result_that_records_its_run_config_names_that_game() -> None:
    checked = 0
    for path in sorted((ROOT / "docs" / "results").rglob("*.json")):
        document = json.loads(path.read_text())
        rows = document if isinstance(document, list) else [document]
        for row in rows:
            if not isinstance(row, dict):
                continue
            config = _recorded_config(row)
            if config is not None:
                assert row.get("game") == describe_game(config), path
                checked += 1
            elif "captures" in row:  # carcassonne stats: its rows name their game
                assert str(row.get("game", "")).endswith(f", {row['players']} players"), path
                checked += 1
    assert checked > 100
