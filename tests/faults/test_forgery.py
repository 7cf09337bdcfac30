"""Results that cannot be forged into the ratings (item 4 of issue 51): saved games whose seed, pile
or followers were changed, and ``games.jsonl`` lines whose forfeit is not what the engine can check."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from carcassonne_env.engine import ActionKind, Game, GameConfig, GameRecord, SaveError
from faults.helpers import bad, copy_run, tiny
from training.arena.match import competition_ranks
from training.arena.tournament import GAMES_FILE, TournamentError, load_games, run

Doc = dict[str, Any]


def _played(config: GameConfig | None = None, **pile: Any) -> Game:
    """A game 12 turns in whose players put a follower wherever they can."""
    game = Game(config or GameConfig(players=2), **(pile or {"seed": 5}))
    rng = random.Random(1)
    while game.turn < 12:
        legal = game.legal_actions()
        deploys = [a for a in legal if a.kind is ActionKind.DEPLOY]
        game.apply(deploys[0] if deploys else rng.choice(list(legal)))
    assert len(game.followers()) >= 3
    return game


def _changed_seed(d: Doc) -> None:
    d["seed"] += 1


def _reordered_pile(d: Doc) -> None:
    rest = d["pile"][d["drawn"]:]
    j = next(i for i, t in enumerate(rest) if t != rest[0])
    rest[0], rest[j] = rest[j], rest[0]
    d["pile"][d["drawn"]:] = rest


def _follower_back_to_supply(d: Doc) -> None:
    owner = d["followers"].pop(0)[3]
    d["supply"][owner] += 1


def _points_added(d: Doc) -> None:
    d["scores"][0] += 1000


@pytest.mark.fault("clear error", count=4)
@pytest.mark.parametrize(("forge", "field", "message"), [
    (_changed_seed, "pile", "not the order seed 6 gives"),
    (_reordered_pile, "pile", "not the order seed 5 gives"),
    (_follower_back_to_supply, "followers", "does not follow from the history"),
    (_points_added, "scores", "does not follow from the history"),
])
def test_a_forged_saved_game_is_refused_naming_the_field(forge: Callable[[Doc], None], field: str,
                                                         message: str) -> None:
    doc = _played().to_dict()
    Game.from_dict(json.loads(json.dumps(doc)))  # the genuine document loads
    forge(doc)
    with pytest.raises(SaveError, match=message) as e:
        Game.from_dict(doc)
    assert e.value.field == field
    assert "\n" not in str(e.value)


@pytest.mark.fault("handled")
def test_a_custom_pile_is_marked_as_such_and_still_loads() -> None:
    seeded = [t.id for t in Game(GameConfig(players=2), seed=5).pile_in_draw_order()]
    game = _played(tile_order=seeded[::-1])
    doc = game.to_dict()
    assert (doc["seed"], doc["explicit_order"]) == (None, True)
    assert Game.from_dict(doc).to_dict() == doc
    doc["seed"], doc["explicit_order"] = 5, False  # claimed as the seed's pile: it is not
    with pytest.raises(SaveError, match="not the order seed 5 gives"):
        Game.from_dict(doc)


# ------------------------------------------------------------------------------------- tournaments
HONEST = ("random", bad("First"))
ILLEGAL = ("random", bad("Illegal"))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament of random against the first-legal-action agent."""
    out = tmp_path_factory.mktemp("played")
    run(tiny(1, *HONEST), out, progress=False)
    return out


@pytest.fixture(scope="module")
def forfeited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament of random against an agent that always plays an illegal action."""
    out = tmp_path_factory.mktemp("forfeited")
    run(tiny(1, *ILLEGAL), out, progress=False)
    return out




def test_a_genuine_illegal_forfeit_carries_its_action_and_verifies(forfeited: Path) -> None:
    games = load_games(forfeited)
    assert games and all(g["forfeit"]["kind"] == "illegal" for g in games)
    assert all(g["forfeit"]["action"] == [0, 999, 999, 0] for g in games)


def _cut_short(game: Doc) -> Doc:
    """The line's game cut after its first few moves, the seat to move charged an illegal action
    that is legal there; scores, ranks and decisions made consistent."""
    record = GameRecord.from_dict(game["record"])
    short = GameRecord(record.config, record.seed, None, record.actions[:6])
    there = short.replay()
    seat = there.current_player
    game["record"] = short.to_dict()
    game["scores"] = list(there.scores)
    game["ranks"] = list(competition_ranks(there.scores, seat))
    game["decisions"] = [3, 3]
    game["forfeit"] = {"seat": seat, "agent": game["seats"][seat], "kind": "illegal", "message": "forged",
                       "action": [int(v) for v in there.legal_actions()[0]]}
    return game


def _no_evidence(game: Doc) -> Doc:
    del game["forfeit"]["action"]
    return game


@pytest.mark.fault("clear error", count=2)
@pytest.mark.parametrize(("tournament", "agents", "forge", "message"), [
    ("played", HONEST, _cut_short, r"illegal-action forfeit of seat \d charges \[.*\], a legal action there"),
    ("forfeited", ILLEGAL, _no_evidence, r"illegal-action forfeit of seat \d records no action"),
])
def test_a_forfeit_the_engine_refutes_is_refused_naming_the_line(
    request: pytest.FixtureRequest, tmp_path: Path, tournament: str, agents: tuple[str, str],
    forge: Callable[[Doc], Doc], message: str,
) -> None:
    out = copy_run(request.getfixturevalue(tournament), tmp_path)
    lines = (out / GAMES_FILE).read_text().splitlines()
    lines[1] = json.dumps(forge(json.loads(lines[1])))
    (out / GAMES_FILE).write_text("\n".join(lines) + "\n")
    with pytest.raises(TournamentError, match=message) as e:
        load_games(out)
    assert "line 2" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(TournamentError, match="line 2"):
        run(tiny(1, *agents), out, resume=True, progress=False)
