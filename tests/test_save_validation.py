"""Loading refuses corrupted saves: each corruption of a real saved game raises SaveError naming the field.

The saves are taken from seeded games played by a random player (base game, The Tower alone, all
expansions) in every phase, and from a position built by PositionBuilder (docs/rules.md §8).
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from carcassonne_env.engine import Action, ActionKind, FloorColour, Game, GameConfig, Phase, SaveError, save_validation
from carcassonne_env.engine.game import FOLLOWERS_PER_PLAYER
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT

Doc = dict[str, Any]


def _step(game: Game, rng: random.Random) -> None:
    legal = game.legal_actions()
    game.apply(legal[rng.randrange(len(legal))])


def _find(config: GameConfig, wanted: Callable[[Game], bool], min_actions: int) -> Doc:
    """The first state of a seeded random game (seeds 0, 1, …) after ``min_actions`` that is ``wanted``."""
    for seed in range(200):
        game, rng = Game(config, seed=seed), random.Random(seed)
        for _ in range(min_actions):
            if not game.is_over:
                _step(game, rng)
        while True:
            if wanted(game):
                return game.to_dict()
            if game.is_over:
                break
            _step(game, rng)
    raise AssertionError("no seeded game reaches the wanted state")


def _has_towers(game: Game) -> bool:
    st = game.expansion_state("tower")
    stacks = st.stacks.values()
    return bool(st.tops) and any(len(s) >= 2 for s in stacks) and any(not s for s in stacks) \
        and len(game.followers()) >= 3


def _completed_deploy(game: Game) -> bool:
    """A follower deployed earlier has been scored off a completed road or city."""
    present = {(f.x, f.y, f.slot) for f in game.followers()}
    for a in game.history:
        if a.kind == ActionKind.DEPLOY and (a.x, a.y, a.arg) not in present:
            feature = game.feature(a.x, a.y, a.arg)
            if feature.complete:
                return True
    return False


@cache
def save(name: str) -> Doc:
    """A real saved game (a fresh copy is taken per test)."""
    base, tower, every = GameConfig(players=3), GameConfig(players=2, expansions=("tower",)), \
        GameConfig(players=4, expansions=TOWER_VARIANT)
    if name == "base-place":
        return _find(base, lambda g: g.phase is Phase.PLACE and _completed_deploy(g) and len(g.followers()) >= 2, 60)
    if name == "base-action":
        return _find(base, lambda g: g.phase is Phase.ACTION and len(g.followers()) >= 2, 60)
    if name == "base-over":
        return _find(base, lambda g: g.is_over, 0)
    if name == "tower-place":
        return _find(tower, lambda g: g.phase is Phase.PLACE and _has_towers(g), 80)
    if name == "all-place":
        return _find(every, lambda g: g.phase is Phase.PLACE and _has_towers(g), 120)
    if name == "all-action":
        return _find(every, lambda g: g.phase is Phase.ACTION and _has_towers(g), 120)
    if name == "all-capture":
        return _find(every, lambda g: g.phase is Phase.CAPTURE, 60)
    if name == "all-over":
        return _find(every, lambda g: g.is_over, 0)
    if name == "built":
        game = (
            PositionBuilder(GameConfig(players=2, expansions=("tower",)))
            .tile("base/C", 5, 5).follower(0, 5, 5, slot=0)
            .tile("base/C", 5, 6, rotation=2)
            .tile("tower/F", 7, 5).tower(7, 5, [FloorColour.NORMAL] * 2).tower_top(1, 7, 5)
            .prisoners(0, 1)
            .build(pile=["base/RFr", "base/L", "base/L"], current_player=1)
        )
        _step(game, random.Random(0))
        return game.to_dict()
    if name == "built-monastery":
        return PositionBuilder(GameConfig(players=2)).tile("base/L", 0, 0).build(pile=["base/L"]).to_dict()
    raise KeyError(name)


# ------------------------------------------------------------------ helpers for the corruptions
def tile_index(doc: Doc, x: int, y: int) -> int:
    return next(i for i, t in enumerate(doc["tiles"]) if t[1:3] == [x, y])


def lone_tile(doc: Doc) -> int:
    """A placed tile, not the last, with no follower and no tower, that touches other tiles."""
    busy = {(f[0], f[1]) for f in doc["followers"]} | {(s[0], s[1]) for s in doc["expansions"].get(
        "tower", {"stacks": []})["stacks"]}
    return next(i for i in range(len(doc["tiles"]) - 2, 0, -1) if tuple(doc["tiles"][i][1:3]) not in busy)


def mismatching_rotation(doc: Doc) -> tuple[int, int]:
    """(tile index, rotation) such that turning that tile breaks a touching edge (R11)."""
    from carcassonne_env.engine.tiles import load_catalogue

    cat = load_catalogue()
    at = {(t[1], t[2]): t for t in doc["tiles"]}
    for i, (tid, x, y, _) in enumerate(doc["tiles"][1:], 1):
        for r in range(4):
            code = cat[tid].edge_code[r]
            for d, (dx, dy) in enumerate(((0, 1), (1, 0), (0, -1), (-1, 0))):
                other = at.get((x + dx, y + dy))
                if other and (code >> 2 * d) & 3 != (cat[other[0]].edge_code[other[3]] >> 2 * ((d + 2) % 4)) & 3:
                    return i, r
    raise AssertionError("every rotation fits")


def free_segment_on_start_tile(doc: Doc) -> tuple[int, int, int]:
    taken = {tuple(f[:3]) for f in doc["followers"]}
    return next((0, 0, s) for s in range(4) if (0, 0, s) not in taken)


def owner_with_supply(doc: Doc) -> int:
    return next(p for p, s in enumerate(doc["supply"]) if s > 0)


def tower_stack(doc: Doc, min_height: int) -> int:
    return next(i for i, s in enumerate(doc["expansions"]["tower"]["stacks"]) if len(s[2]) >= min_height)


def bare_foundation(doc: Doc) -> list[int]:
    return next(s[:2] for s in doc["expansions"]["tower"]["stacks"] if not s[2])


def last_place(doc: Doc) -> int:
    return max(i for i, a in enumerate(doc["history"]) if a[0] == ActionKind.PLACE)


def completed_deploy(doc: Doc) -> list[int]:
    """[x, y, slot, owner] of a follower that was deployed and has since been scored off."""
    game = Game.from_dict(doc)
    present = {(f.x, f.y, f.slot) for f in game.followers()}
    turns = 0
    for a in game.history:
        turns += a.kind == ActionKind.PLACE
        if a.kind == ActionKind.DEPLOY and (a.x, a.y, a.arg) not in present and game.feature(a.x, a.y, a.arg).complete:
            return [a.x, a.y, a.arg, (turns - 1) % game.num_players]
    raise AssertionError("no scored follower")


def add_follower(doc: Doc, follower: list[int]) -> None:
    """Put a follower on the board taken from its owner's supply, so that R46 still holds."""
    doc["followers"].append(follower)
    doc["supply"][follower[3]] -= 1


def hand_unplaceable_tile(doc: Doc) -> None:
    """A lone monastery (fields all round) and a tile in hand that is city all round: it fits nowhere."""
    for d in (doc, doc["start_position"]):
        d["pile"][0] = d["tile"] = "base/Cccc+"


def set_phase_game_over(doc: Doc) -> None:
    doc["phase"], doc["tile"] = "GAME_OVER", None


def capture_nothing(doc: Doc) -> None:
    doc["expansions"]["tower"]["pending"] = [[ActionKind.NO_CAPTURE, 0, 0, 0]]


def capture_out_of_reach(doc: Doc) -> None:
    """Replace the targets by a follower far from the tower that just grew."""
    floor = doc["history"][-1]
    pending = doc["expansions"]["tower"]["pending"]
    far = max(doc["followers"], key=lambda f: abs(f[0] - floor[1]) + abs(f[1] - floor[2]))
    assert abs(far[0] - floor[1]) + abs(far[1] - floor[2]) > 8
    pending[:-1] = [[ActionKind.CAPTURE, far[0], far[1], far[2]]]


def take_follower(doc: Doc, player: int) -> None:
    """One of ``player``'s followers leaves the supply, or else the board (as in a capture)."""
    if doc["supply"][player]:
        doc["supply"][player] -= 1
    else:
        doc["followers"].remove(next(f for f in doc["followers"] if f[3] == player))


def mutual_prisoners(doc: Doc) -> None:
    """Players a and b each hold one of the other's followers."""
    st = doc["expansions"]["tower"]
    p, n = st["prisoners"], len(doc["supply"])
    a, b = next((a, b) for a in range(n) for b in range(a + 1, n) if not p[a * n + b] and not p[b * n + a])
    p[a * n + b] = p[b * n + a] = 1
    take_follower(doc, a)
    take_follower(doc, b)


def own_prisoner(doc: Doc) -> None:
    p = owner_with_supply(doc)
    n = len(doc["supply"])
    doc["expansions"]["tower"]["prisoners"][p * n + p] = 1
    doc["supply"][p] -= 1


def top_on_bare_foundation(doc: Doc) -> None:
    p = owner_with_supply(doc)
    doc["expansions"]["tower"]["tops"].append([*bare_foundation(doc), p])
    doc["supply"][p] -= 1


def move_far(doc: Doc, i: int) -> None:
    doc["tiles"][i][1:3] = [300, 300]


def drop_last_turn(doc: Doc) -> None:
    del doc["history"][last_place(doc):]


def extra_choice(doc: Doc) -> None:
    i = last_place(doc)
    doc["history"].insert(i, [ActionKind.PASS, 0, 0, 0])


def deploy_elsewhere(doc: Doc) -> None:
    i = next(i for i, a in enumerate(doc["history"]) if a[0] == ActionKind.DEPLOY)
    doc["history"][i][1] += 1


def swap_undrawn_tile(doc: Doc) -> None:
    """Replace a tile still in a seeded pile by another type: the counts per type no longer hold."""
    left = doc["pile"][doc["drawn"]:]
    other = next(t for t in ("base/C", "base/L", "base/RFr") if t != left[-1])
    doc["pile"][-1] = other


def remove_top_floor(doc: Doc) -> None:
    doc["expansions"]["tower"]["stacks"][tower_stack(doc, 2)][2].pop()


def white_at_bottom(doc: Doc) -> None:
    doc["expansions"]["tower"]["stacks"][tower_stack(doc, 2)][2][0] = 2


@dataclass(frozen=True)
class Corruption:
    name: str
    save: str
    corrupt: Callable[[Doc], object]
    field: str  # SaveError.field must equal this, or match it as a regex
    message: str  # a regex the message must contain


def _set(*path: Any, value: Any) -> Callable[[Doc], None]:
    def corrupt(doc: Doc) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return corrupt


CORRUPTIONS = [
    # document structure and types
    Corruption("missing key", "base-place", lambda d: d.pop("supply"), "supply", "missing"),
    Corruption("unknown key", "base-place", _set("colour", value="red"), "colour", "unknown key"),
    Corruption("bool for an int", "base-place", _set("current_player", value=True), "current_player", "must be an int"),
    Corruption("float score", "base-action", _set("scores", 0, value=3.0), r"scores\[0\]", "must be an int"),
    Corruption("unknown tile id", "base-place", _set("pile", -1, value="base/ZZ"), r"pile\[\d+\]", "not a tile"),
    Corruption("tile of a set not configured", "base-place", _set("pile", -1, value="tower/R"), r"pile\[\d+\]",
               "not a tile of the configured sets"),
    Corruption("bad config", "base-place", _set("config", "players", value=9), "config.players", "2–6"),
    Corruption("unknown action kind", "base-place", _set("history", 3, value=[99, 0, 0, 0]), r"history\[3\]",
               "known kind"),
    Corruption("unknown phase", "base-place", _set("phase", value="DRAW"), "phase", "must be one of"),
    Corruption("seeded yet explicit order", "base-place", _set("explicit_order", value=True), "explicit_order",
               "seed"),
    Corruption("drawn past the pile", "base-place", _set("drawn", value=999), "drawn", "must be in"),
    # board (R4, R11)
    Corruption("two tiles on one square", "base-place", lambda d: d["tiles"][5].__setitem__(
        slice(1, 3), d["tiles"][4][1:3]), r"tiles\[5\]", "two tiles on one square"),
    Corruption("edges that do not match", "all-place", lambda d: d["tiles"][mismatching_rotation(d)[0]].__setitem__(
        3, mismatching_rotation(d)[1]), r"tiles\[\d+\]", r"does not match .* \(R11\)"),
    Corruption("floating tile", "base-place", lambda d: move_far(d, lone_tile(d)), r"tiles\[\d+\]",
               r"touches no tile placed before it"),
    Corruption("rotation 4", "base-place", _set("tiles", 3, 3, value=4), r"tiles\[3\] rotation", "0..3"),
    Corruption("start tile turned", "base-place", _set("tiles", 0, 3, value=2), r"tiles\[0\]", r"start tile .*R4"),
    Corruption("coordinates off the board", "base-place", _set("tiles", 3, 1, value=5000), r"tiles\[3\]", "must be in"),
    # tile accounting (R10, R13, R26, R1)
    Corruption("discarded tile never drawn", "base-place", lambda d: d["discarded"].append("base/L"), "pile",
               "unaccounted"),
    Corruption("seeded pile with the wrong tiles", "all-place", swap_undrawn_tile, "pile", "seeded pile"),
    Corruption("tile in hand is not the tile drawn", "base-place",
               _set("tile", value=lambda t: "base/L" if t == "base/C" else "base/C"), "tile",
               "the tile drawn last"),
    Corruption("tile in hand that fits nowhere", "built-monastery", hand_unplaceable_tile, "tile",
               r"no legal placement.*R13"),
    Corruption("GAME_OVER with tiles left", "base-place", set_phase_game_over, "phase", "tiles are left"),
    Corruption("ACTION with a tile not placed", "base-action", lambda d: d["tiles"].pop(), "phase|tile|history",
               "last placed|drawn last|PLACE"),
    # history and turn order (T2–T6)
    Corruption("PLACE in the history differs from the board", "base-place", _set("history", 0, 3,
               value=lambda r: (r + 1) % 4), r"history\[0\]", "not tiles"),
    Corruption("two choices in one turn", "base-place", extra_choice, r"history\[\d+\]", "must be a PLACE"),
    Corruption("history missing the last turn", "base-place", drop_last_turn, "history", "PLACE actions but"),
    Corruption("DEPLOY away from the placed tile", "base-over", deploy_elsewhere, r"history\[\d+\]", "R14"),
    Corruption("turn counter off", "base-place", _set("turn", value=lambda t: t + 1), "turn", "turns"),
    Corruption("current_player -1", "base-place", _set("current_player", value=-1), "current_player", "must be in"),
    Corruption("current_player out of turn", "base-action", _set("current_player", value=lambda p: (p + 1) % 3),
               "current_player", "belongs to player"),
    Corruption("tower action without the tower", "base-action", lambda d: d["history"].insert(
        len(d["history"]), [ActionKind.RANSOM, 0, 0, 1]), r"history\[\d+\]", "needs the 'tower' expansion"),
    # followers (R14, R24, R42, R46)
    Corruption("follower on a slot the tile lacks", "base-place", _set("followers", 0, 2, value=9),
               r"followers\[0\] slot", "must be in"),
    Corruption("two followers on one segment", "base-place", lambda d: add_follower(d, list(d["followers"][0])),
               r"followers\[\d+\]", "two followers"),
    Corruption("follower nobody deployed", "base-place", lambda d: add_follower(
        d, [*free_segment_on_start_tile(d), owner_with_supply(d)]), r"followers\[\d+\]", "no DEPLOY"),
    Corruption("follower on a feature scored long ago", "base-place", lambda d: add_follower(d, completed_deploy(d)),
               r"followers\[\d+\]", r"completed before this turn"),
    Corruption("99 followers in supply", "base-place", _set("supply", 0, value=99), r"supply\[0\]", "must be in"),
    Corruption("a follower vanished (R46)", "all-action", lambda d: d["followers"].pop(), r"supply\[\d\]", "R46"),
    Corruption("negative score", "base-over", _set("scores", 1, value=-3), r"scores\[1\]", "must be in"),
    Corruption("score list too short", "base-over", lambda d: d["scores"].pop(), "scores", "must have 3 entries"),
    # The Tower and Black Tower (R32–R56)
    Corruption("missing tower state", "all-place", lambda d: d["expansions"].pop("tower"), "expansions.tower",
               "missing"),
    Corruption("tower state without the tower", "base-place", _set("expansions", value={"tower": {}}),
               "expansions.tower", "no such expansion state"),
    Corruption("negative floors", "all-place", _set("expansions", "tower", "floors", 0, value=-1),
               r"expansions\.tower\.floors\[0\]", "must be in"),
    Corruption("floors beyond the deal", "all-place", _set("expansions", "tower", "floors", 1, value=lambda f: f + 1),
               r"expansions\.tower\.floors\[1\]", r"dealt .*R51"),
    Corruption("black floor without Black Tower", "tower-place", lambda d: d["expansions"]["tower"]["stacks"][
        tower_stack(d, 1)][2].__setitem__(0, 1), r"expansions\.tower\.stacks\[\d+\]", "black_tower"),
    Corruption("stack on a plain tile", "all-place", lambda d: d["expansions"]["tower"]["stacks"].append([0, 0, []]),
               r"expansions\.tower\.stacks\[\d+\]", "without a tower foundation"),
    Corruption("floor missing from a stack", "all-place", remove_top_floor, r"expansions\.tower\.stacks\[\d+\]",
               "not the FLOORs"),
    Corruption("white floor on a bare foundation", "all-place", white_at_bottom, r"expansions\.tower\.stacks\[\d+\]",
               "R54"),
    Corruption("tower top on a bare foundation", "all-place", top_on_bare_foundation,
               r"expansions\.tower\.tops\[\d+\]", "R37"),
    Corruption("own follower held prisoner", "all-place", own_prisoner, r"expansions\.tower\.prisoners\[\d+\]", "R43"),
    Corruption("prisoners held both ways", "all-place", mutual_prisoners, r"expansions\.tower\.prisoners\[\d+\]",
               "R47"),
    Corruption("ransom in a future turn", "all-place", _set("expansions", "tower", "ransom_turn", value=999),
               r"expansions\.tower\.ransom_turn", "RANSOM"),
    Corruption("CAPTURE with nothing to capture", "all-capture", capture_nothing, r"expansions\.tower\.pending",
               "CAPTURE needs the capture targets"),
    Corruption("capture target out of reach", "all-capture", capture_out_of_reach, r"expansions\.tower\.pending",
               "reaches"),
    Corruption("capture targets outside CAPTURE", "all-action", _set("expansions", "tower", "pending",
               value=[[ActionKind.NO_CAPTURE, 0, 0, 0]]), r"expansions\.tower\.pending", "outside the CAPTURE"),
    Corruption("CAPTURE without a FLOOR", "all-action", _set("phase", value="CAPTURE"),
               "phase|expansions.tower.pending", "CAPTURE"),
    # a position built by PositionBuilder (docs/rules.md §8)
    Corruption("built start position with a follower too many", "built", _set("start_position", "supply", 0,
               value=lambda s: s + 1), r"start_position\.supply\[0\]", "R46"),
    Corruption("built start position with unmatched edges", "built", _set("start_position", "tiles", 1, 3,
               value=1), r"start_position\.tiles\[1\]", "R11"),
    Corruption("game not grown from its start position", "built", lambda d: d["tiles"].reverse(), "tiles",
               "start position"),
    Corruption("built start position with a history", "built", _set("start_position", "history",
               value=[[ActionKind.PASS, 0, 0, 0]]), r"start_position\.history", "before any turn"),
]


def test_every_save_used_loads_as_saved() -> None:
    for name in ("base-place", "base-action", "base-over", "tower-place", "all-place", "all-action", "all-capture",
                 "all-over", "built", "built-monastery"):
        doc = save(name)
        assert Game.from_dict(copy.deepcopy(doc)).to_dict() == doc


@pytest.mark.parametrize("case", CORRUPTIONS, ids=[c.name for c in CORRUPTIONS])
def test_a_corrupted_save_is_refused_naming_the_field(case: Corruption) -> None:
    doc = copy.deepcopy(save(case.save))
    case.corrupt(doc)
    with pytest.raises(SaveError) as info:
        Game.from_dict(doc)
    assert re.fullmatch(case.field, info.value.field), f"field {info.value.field!r}: {info.value}"
    assert re.search(case.message, str(info.value)), str(info.value)
    assert str(info.value).startswith(info.value.field + ": ")


def test_save_error_is_a_value_error_and_a_foreign_document_is_one() -> None:
    with pytest.raises(SaveError, match="carcassonne_env/game") as info:
        Game.from_dict({"format": "chess"})
    assert isinstance(info.value, ValueError) and info.value.field == "format"
    with pytest.raises(SaveError):
        Game.from_dict([1, 2, 3])  # type: ignore[arg-type]


def test_the_validator_counts_the_followers_of_the_game() -> None:
    assert save_validation.FOLLOWERS_PER_PLAYER is FOLLOWERS_PER_PLAYER == 7


def test_a_built_position_replays_and_reloads() -> None:
    """docs/rules.md §8 positions (tiles anywhere, no start tile) still load, and so does play from them."""
    doc = save("built")
    game = Game.from_dict(copy.deepcopy(doc))
    assert game.record().replay().to_dict() == doc
    rng = random.Random(1)
    while not game.is_over:
        _step(game, rng)
        assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()


def _short_order(config: GameConfig, seed: int) -> list[str]:
    """A random 16-tile pile of the configured sets, drawn from ``seed``."""
    from carcassonne_env.engine.tiles import load_catalogue

    cat = load_catalogue()
    every = [t.id for s in config.tile_sets or () for t in cat.sets[s] for _ in range(t.count - t.is_start)]
    return random.Random(seed).sample(every, 16)


def test_every_position_of_random_games_loads_back() -> None:
    """Save → load → save is the identity at every decision of 200 short and 6 full games
    (all expansions, 2–6 players); every phase occurs."""
    phases: set[str] = set()
    games = [Game(c := GameConfig(players=2 + s % 5, expansions=TOWER_VARIANT), tile_order=_short_order(c, s))
             for s in range(200)]
    games += [Game(GameConfig(players=2 + s % 5, expansions=TOWER_VARIANT), seed=s) for s in range(6)]
    for seed, game in enumerate(games):
        rng = random.Random(seed)
        while True:
            doc = game.to_dict()
            phases.add(doc["phase"])
            assert Game.from_dict(doc).to_dict() == doc, f"game {seed}, action {len(game.history)}"
            if game.is_over:
                break
            _step(game, rng)
    assert phases == {p.name for p in Phase}


def test_history_actions_are_engine_actions_after_loading() -> None:
    game = Game.from_dict(copy.deepcopy(save("all-over")))
    assert all(type(a) is Action and isinstance(a.kind, ActionKind) for a in game.history)
