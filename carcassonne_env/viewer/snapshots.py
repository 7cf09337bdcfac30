"""The data of a replay page: the game replayed once, one snapshot per decision.

:func:`replay_data` returns JSON-safe data. Frame ``k`` is the game after its first ``k`` actions
(frame 0: the start; the last frame: after the final scoring), with:

* ``tiles``: how many of the record's tiles (``data["tiles"]``, in placement order) lie on the board;
* ``followers``: ``[x, y, owner, kind]`` per follower on a segment, at its point in board SVG units,
  ``kind`` the segment's (``"city"``, ``"road"``, ``"field"``, ``"monastery"``);
* ``towers``: ``[x, y, floors, top]`` per foundation (tile coordinates; ``floors`` bottom first as
  0 normal / 1 black / 2 white, ``top`` the owner of the follower on top or -1);
* ``players``: per seat ``score``, ``supply``, ``floors`` (normal, black, white; null without the
  tower) and ``prisoners`` (how many followers of each seat it holds);
* ``action`` (in words), ``actor`` (seat, -1 at the start), ``turn``, ``next`` (who decides what
  now, or the result; in the last frame of a forfeited game, who forfeited, how and why: the game
  stopped there), ``hand`` (the symbol of the tile to place, unturned, at a PLACE decision;
  else null) and ``events``: the score changes of the turn so far, each
  ``[seat, points, words]``.

Beside the frames the data carries ``watchtowers``, the legend of the watchtower discs
(:func:`~.tile_svg.watchtower_legend`; empty without the expansion), its discs among the symbols.

The record of a forfeited game (:class:`~.records.Forfeited`) must stop before the end of the game.

Board SVG units: the tile at (x, y) is the square with top-left corner ``(x * SIZE, -y * SIZE)``
and side ``SIZE`` (north up: y grows downwards in SVG).
"""

from __future__ import annotations

from typing import Any

from ..engine import (
    TOWER_TOP_SLOT,
    Action,
    ActionKind,
    FloorColour,
    Game,
    IllegalActionError,
    Phase,
    SaveError,
    ScoreEvent,
    SegmentKind,
    TowerState,
)
from ..engine.geometry import pack
from .palette import FLOOR_COLOURS, SEAT_COLOURS, SEAT_NAMES, css
from .records import Forfeited, RecordError, Replayable
from .tile_svg import SIZE, follower_point, symbol_id, tile_svg, watchtower_legend

__all__ = ["describe_action", "describe_event", "forfeit_words", "frame", "replay_data"]

_ROLE = {
    SegmentKind.CITY: ("a knight", "city"),
    SegmentKind.ROAD: ("a thief", "road"),
    SegmentKind.FIELD: ("a farmer", "field"),
    SegmentKind.MONASTERY: ("a monk", "monastery"),
}
_PHASE_WORDS = {
    Phase.ACTION: "deploy a follower, build a tower or pass",
    Phase.CAPTURE: "capture a follower or not",
}


def _towers(game: Game) -> TowerState | None:
    return game.expansion_state("tower") if game.config.has("tower") else None


def _segment_words(game: Game, x: int, y: int, slot: int) -> str:
    placed = game.tile_at(x, y)
    assert placed is not None
    return _ROLE[placed.tile.segment_kinds[slot]][1]


def describe_action(game: Game, action: Action) -> str:
    """``action`` in words, as the current player of ``game`` (before it is applied) takes it."""
    who = SEAT_NAMES[game.current_player]
    kind, x, y, arg = action
    at = f"({x},{y})"
    if kind is ActionKind.PLACE:
        tile = game.current_tile
        assert tile is not None
        turned = f", turned {90 * arg}°" if arg else ""
        return f"{who} placed “{tile.name}” ({tile.id}) at {at}{turned}"
    if kind is ActionKind.DEPLOY:
        placed = game.tile_at(x, y)
        assert placed is not None
        role, feature = _ROLE[placed.tile.segment_kinds[arg]]
        return f"{who} put {role} on the {feature} at {at}"
    towers = _towers(game)
    if kind is ActionKind.FLOOR:
        assert towers is not None
        height = towers.height(x, y) + 1
        colour = FloorColour(arg).name.lower()
        capped = " and capped it for good" if arg == FloorColour.WHITE else ""
        return f"{who} built a {colour} floor on the tower at {at} (height {height}){capped}"
    if kind is ActionKind.TOWER_TOP:
        return f"{who} put a follower on top of the tower at {at}, closing it"
    if kind is ActionKind.CAPTURE:
        if arg == TOWER_TOP_SLOT:
            assert towers is not None
            top = towers.top(x, y)
            assert top is not None
            owner, place = top, f"on top of the tower at {at}"
        else:
            owner = next(f.owner for f in game.followers() if (f.x, f.y, f.slot) == (x, y, arg))
            place = f"on the {_segment_words(game, x, y, arg)} at {at}"
        if owner == game.current_player:
            return f"{who} took back its own follower {place}"
        return f"{who} captured {SEAT_NAMES[owner]}'s follower {place}"
    if kind is ActionKind.NO_CAPTURE:
        return f"{who} captured nobody"
    if kind is ActionKind.RANSOM:
        return f"{who} paid {SEAT_NAMES[arg]} a ransom of 3 points to free a follower"
    return f"{who} passed (no follower, no floor)"


def describe_event(event: ScoreEvent) -> str:
    """Why ``event``'s points changed hands, in words."""
    at = f"({event.x},{event.y})"
    if event.reason == "watchtower":
        return f"watchtower bonus at {at}"
    if event.reason == "ransom":
        return "ransom paid" if event.points < 0 else "ransom received"
    when = "at the end" if event.final else "completed"
    return f"{event.reason} at {at}, {when}"


def _next(game: Game) -> str:
    if game.is_over:
        best = ", ".join(SEAT_NAMES[w] for w in game.winners())
        return f"game over: {best} {'wins' if len(game.winners()) == 1 else 'share the win'}"
    who = SEAT_NAMES[game.current_player]
    if game.phase is Phase.PLACE:
        tile = game.current_tile
        assert tile is not None
        return f"{who} to place “{tile.name}”"
    return f"{who} to {_PHASE_WORDS[game.phase]}"


def frame(game: Game, action: str, actor: int, turn: int, events: list[list[Any]]) -> dict[str, Any]:
    """The snapshot of ``game`` now (module docstring), after ``action`` (words) of ``actor`` on
    ``turn``; the replay page and the play page (:mod:`carcassonne_env.play.server`) draw it."""
    towers = _towers(game)
    followers: list[list[Any]] = []
    for f in game.followers():
        placed = game.tile_at(f.x, f.y)
        assert placed is not None
        px, py = follower_point(placed.tile, placed.rotation, f.slot)
        followers.append([f.x * SIZE + px, -f.y * SIZE + py, f.owner, _ROLE[placed.tile.segment_kinds[f.slot]][1]])
    tower_rows: list[list[Any]] = []
    if towers is not None:
        for x, y in towers.foundations():
            stack = towers.stacks[pack(x, y)]
            top = towers.top(x, y)
            tower_rows.append([x, y, list(stack), -1 if top is None else top])
    n = game.num_players
    players = [
        {
            "score": game.scores[p],
            "supply": game.supply[p],
            "floors": None if towers is None else list(towers.floor_supply(p)),
            "prisoners": [0] * n if towers is None else [towers.prisoner_count(p, o) for o in range(n)],
        }
        for p in range(n)
    ]
    hand = game.current_tile if game.phase is Phase.PLACE else None
    return {"tiles": game.tiles_placed, "followers": followers, "towers": tower_rows, "players": players,
            "action": action, "actor": actor, "turn": turn + 1, "next": _next(game),
            "hand": None if hand is None else symbol_id(hand, 0), "events": events}


def replay_data(source: Replayable, title: str) -> dict[str, Any]:
    """Replay ``source`` once and return the page data (module docstring)."""
    record = source.record
    try:
        game = record.replay(0)
    except (SaveError, IllegalActionError, ValueError) as e:
        raise RecordError(f"the record does not start a game: {e}") from None
    game.keep_score_log()
    n = game.num_players
    if source.seats is not None and len(source.seats) != n:
        raise RecordError(f"the record has {n} players but {len(source.seats)} seat names")
    frames = [frame(game, "The start tile lies on the board.", -1, game.turn, [])]
    hands = {frames[0]["hand"]}
    turn_events: list[list[Any]] = []
    seen = 0
    for k, action in enumerate(record.actions):
        turn, actor = game.turn, game.current_player
        try:
            words = describe_action(game, action)
            game.apply(action)
        except (IllegalActionError, StopIteration, AssertionError) as e:
            raise RecordError(f"action {k} {action} cannot be replayed: {e}") from None
        if frames[-1]["turn"] != turn + 1:
            turn_events = []
        log = game.score_log
        turn_events = turn_events + [[e.player, e.points, describe_event(e)] for e in log[seen:]]
        seen = len(log)
        frames.append(frame(game, words, actor, turn, turn_events))
        hands.add(frames[-1]["hand"])
    if source.forfeit is not None:
        frames[-1]["next"] = _forfeit_words(source.forfeit, game)
    symbols = {symbol_id(t.tile, t.rotation): tile_svg(t.tile, t.rotation) for t in game.tiles()}
    for tile in game.catalogue.types:  # the tiles in hand, unturned
        if symbol_id(tile, 0) in hands and symbol_id(tile, 0) not in symbols:
            symbols[symbol_id(tile, 0)] = tile_svg(tile, 0)
    tiles = [[t.x, t.y, symbol_id(t.tile, t.rotation), t.tile.id] for t in game.tiles()]
    discs, legend = watchtower_legend(game.config)
    symbols.update(discs)
    return {
        "title": title,
        "size": SIZE,
        "expansions": list(game.config.expansions),
        "watchtowers": legend,
        "players": [
            {"name": SEAT_NAMES[p], "agent": None if source.seats is None else source.seats[p],
             "colour": css(SEAT_COLOURS[p])}
            for p in range(n)
        ],
        "floor_colours": [css(FLOOR_COLOURS[c]) for c in FloorColour],
        "symbols": symbols,
        "tiles": tiles,
        "frames": frames,
        "final_scores": list(game.scores),
    }


def forfeit_words(forfeit: Forfeited) -> str:
    """Who lost the game by failing, and how: ``Blue (greedy) forfeited (exception)`` (the replay
    page's title and last frame)."""
    return f"{SEAT_NAMES[forfeit.seat]} ({forfeit.agent}) forfeited ({forfeit.kind})"


def _forfeit_words(forfeit: Forfeited, game: Game) -> str:
    """The last frame's ``next`` of a game that ``forfeit`` ended where ``game`` stands; RecordError
    when ``game`` is over (no seat forfeited a game played to its end)."""
    if game.is_over:
        raise RecordError(f"the record reaches the end of the game, yet seat {forfeit.seat} is said to have forfeited")
    return f"{forfeit_words(forfeit)}: {forfeit.message}. The game stopped here; {SEAT_NAMES[forfeit.seat]} ranks last."
