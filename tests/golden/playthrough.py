"""Golden playthroughs: a seeded game played by a seeded random agent, written out as text.

Each case (a ``GameConfig`` and a seed) plays one whole game with ``Game(config, seed=seed)``. At
every decision the agent draws ``numpy.random.default_rng(seed).integers(n)`` and takes that index
of the *sorted* legal list (``sorted(game.legal_actions())``, actions compared as
``(kind, x, y, arg)`` tuples), so the game depends on the set of legal actions, never on the order
the engine happens to build them in or on Python's hash order. One line per decision records:

========  ================================================================
column    meaning
========  ================================================================
``d``     decision number, from 1
``t``     ``game.turn`` (turns begun, from 0)
phase     ``PLACE`` / ``ACTION`` / ``CAPTURE`` (T2–T4)
``p``     the current player
tile      the id of the tile drawn this turn
``n``     number of legal actions
digest    first 12 hex digits of sha256 over the sorted legal list, one
          ``kind,x,y,arg`` per action (kind as its integer), joined by ``;``
action    the chosen action: ``KIND x y arg``
scores    every player's score after the action (end-game scoring included
          after the last one)
========  ================================================================

The files end with the final scores, the winners (R30), the number of tiles placed and the tiles
discarded as unplaceable (R13). Regenerate them with ``python -m tests.golden.regenerate`` from
the repository root, only when a rule change is intended, and review the diff.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from carcassonne_env.engine import Action, Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT

__all__ = ["CASES", "GOLDEN_DIR", "REGENERATE", "GoldenCase", "golden_path", "legal_digest", "playthrough_lines"]

GOLDEN_DIR = Path(__file__).resolve().parent
REGENERATE = "python -m tests.golden.regenerate"



@dataclass(frozen=True)
class GoldenCase:
    """One golden file: ``name``.txt holds the playthrough of ``config`` from ``seed``."""

    name: str
    config: GameConfig
    seed: int
    why: str


#: Seeds are chosen so that each game shows the rules its configuration is there to guard (``why``).
CASES: tuple[GoldenCase, ...] = (
    GoldenCase("base_2p", GameConfig(players=2), 3, "base game with farmers; a tile is discarded (R13)"),
    GoldenCase("base_4p", GameConfig(players=4), 117, "base game with farmers; a discard (R13) and a shared win (R30)"),
    GoldenCase(
        "tower_black_watchtowers_2p",
        GameConfig(players=2, expansions=TOWER_VARIANT),
        11,
        "tower, black tower and watchtowers; captures, tower tops, ransoms, every floor colour",
    ),
    GoldenCase(
        "all_variants_3p",
        GameConfig(players=3, expansions=TOWER_VARIANT, no_ransom=True, capture_opponents_only=True,
                   tower_range_manhattan=True),
        20,
        "all expansions with no_ransom, capture_opponents_only, tower_range_manhattan; many captures",
    ),
    GoldenCase(
        "all_6p",
        GameConfig(players=6, expansions=TOWER_VARIANT),
        23,
        "all expansions, 6 players; captures, tower tops, ransoms",
    ),
)


def golden_path(case: GoldenCase) -> Path:
    return GOLDEN_DIR / f"{case.name}.txt"


def legal_digest(legal: Sequence[Action]) -> str:
    """First 12 hex digits of sha256 over the sorted legal list (the format in the module docstring)."""
    text = ";".join(f"{int(a.kind)},{a.x},{a.y},{a.arg}" for a in sorted(legal))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:12]


def _config_text(config: GameConfig) -> str:
    """The config's fields that differ from the defaults, as ``name=value`` (expansions joined by ``,``)."""
    default = GameConfig()
    parts = []
    for f in fields(config):
        value = getattr(config, f.name)
        if f.name == "players" or value != getattr(default, f.name):
            shown = ",".join(value) if isinstance(value, tuple) else value
            parts.append(f"{f.name}={shown}")
    return " ".join(parts)


def _action_text(action: Action) -> str:
    return f"{action.kind.name} {action.x} {action.y} {action.arg}"


def _scores_text(scores: Sequence[int]) -> str:
    return " ".join(str(s) for s in scores)


def playthrough_lines(case: GoldenCase) -> Iterator[str]:
    """The golden file of ``case``, line by line (without newlines), header included."""
    yield f"# golden playthrough {case.name}: {case.why}"
    yield f"# config: {_config_text(case.config)}"
    yield f"# seed: {case.seed} (Game(config, seed=seed); agent: numpy.random.default_rng(seed), sorted legal list)"
    yield f"# regenerate (only for an intended rule change): {REGENERATE} {case.name}"
    yield "# d turn phase player tile | n legal digest | action | scores after"
    game = Game(case.config, seed=case.seed)
    rng = np.random.default_rng(case.seed)
    decision = 0
    while not game.is_over:
        decision += 1
        legal = sorted(game.legal_actions())
        tile = game.current_tile
        assert tile is not None
        head = f"d{decision:<3} t{game.turn:<3} {game.phase.name:<7} p{game.current_player} {tile.id:<26}"
        action = legal[int(rng.integers(len(legal)))]
        game.apply(action)
        counted = f"n={len(legal):<3} {legal_digest(legal)}"
        yield f"{head} | {counted} | {_action_text(action):<18} | {_scores_text(game.scores)}"
    yield f"final scores: {_scores_text(game.scores)}"
    yield f"winners: {' '.join(str(p) for p in game.winners())}"
    yield f"tiles placed: {game.tiles_placed}"
    yield f"discarded: {' '.join(t.id for t in game.discarded) or '-'}"
