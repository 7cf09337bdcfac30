"""What the tower changes: per agent, how often it captures, pays and receives ransoms, builds floors
(and which colours), climbs towers and scores watchtower bonuses, from a tournament's finished games.

Every game is replayed with the engine from its record (:meth:`GameRecord.replay
<carcassonne_env.engine.GameRecord.replay>` sets up its start, the moves are applied one by one with
the score log on), and each event is charged to the seat that made it:

================== ==========================================================================
count              what it counts, for the seat
================== ==========================================================================
captures           CAPTURE decisions that took an opponent's follower (R43), exchanges included
exchanges          of those, captures that set off the automatic 1:1 exchange (R47): the
                   opponent held one of the captor's followers, and both go home
own_captures       CAPTURE decisions that took one of its own followers (back to its supply)
lost               its followers captured by an opponent (the other side of ``captures``)
ransoms_paid       ransoms it paid to free a follower (R48: −3 points each)
ransoms_received   ransoms paid to it (+3 points each)
floors             FLOOR moves, every colour (R35)
black_floors       of those, black floors (Black Tower, R51)
white_floors       of those, white floors (R51, R56)
tower_tops         TOWER_TOP moves: a follower onto a tower, closing it (R35)
watchtower_points  points of watchtower bonuses (R62–R64)
================== ==========================================================================

What a capture was is read from its effect on the prisoners (P[c][o] of R46), not from the rule
again: P[captor][owner] grows for a prisoner taken, P[owner][captor] shrinks for an exchange, and
neither changes when the captor took its own follower. Ransoms and watchtower points are the
engine's score events (:attr:`Game.score_log <carcassonne_env.engine.Game.score_log>`, reasons
``ransom`` and ``watchtower``); the rest are the moves' kinds.

Counts are per seat: ``games`` is the number of seats an agent played (an agent in two seats of a
self-play game counts twice), and each mean is a count per seat-game. Agents are told apart by
game (players, expansions, rule flags: :func:`~carcassonne_env.engine.describe_game`), since a
2-player game and a 4-player one, or the tower variant and a game with the tower alone, are
different games; each table and each JSON row names its game.

Command: ``carcassonne stats RUN_DIR [RUN_DIR ...] [--json FILE]`` (or ``python -m
training.arena.tower_stats``) reads each tournament directory's ``games.jsonl`` through
:func:`~training.arena.tournament.load_games` (every line checked and replayed), prints one table
per game (under a line ``game: ...`` naming it) and, with ``--json``, writes the counts. Bad input
(a missing directory, one without games, a damaged line) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from carcassonne_env.engine import ActionKind, FloorColour, GameConfig, GameRecord, TowerState, describe_game
from training.common.storage import atomic_write_text, dumps

from .tournament import GAMES_FILE, TournamentError, load_games

__all__ = ["COUNTS", "TowerCounts", "main", "seat_counts", "tower_stats"]


@dataclass(frozen=True)
class TowerCounts:
    """One agent's totals over the ``games`` seats it played in the game ``game`` (of ``players``
    players; :func:`~carcassonne_env.engine.describe_game`), the module docstring defines each count;
    :meth:`mean` is a count per seat-game."""

    agent: str
    game: str
    players: int
    games: int
    captures: int = 0
    exchanges: int = 0
    own_captures: int = 0
    lost: int = 0
    ransoms_paid: int = 0
    ransoms_received: int = 0
    floors: int = 0
    black_floors: int = 0
    white_floors: int = 0
    tower_tops: int = 0
    watchtower_points: int = 0

    def mean(self, count: str) -> float:
        """``count`` per seat-game (0.0 for an agent of no games)."""
        total: int = getattr(self, count)
        return total / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        """The fields, with ``per_game``: each count's mean."""
        return {**asdict(self), "per_game": {c: round(self.mean(c), 4) for c in COUNTS}}


#: The counts of :class:`TowerCounts`, in the order of its fields (the table's columns).
COUNTS: Final[tuple[str, ...]] = tuple(f.name for f in fields(TowerCounts))[4:]


def seat_counts(record: GameRecord) -> list[Counter[str]]:
    """Each seat's counts (keys of :data:`COUNTS`; absent is 0) in the game ``record`` replays to."""
    game = record.replay(0)  # the game's start: a seeded deal or its built position
    game.keep_score_log()
    n = record.config.players
    counts: list[Counter[str]] = [Counter() for _ in range(n)]
    for action in record.actions:
        seat = game.current_player
        mine = counts[seat]
        if action.kind == ActionKind.CAPTURE:
            tower: TowerState = game.expansion_state("tower")
            before = tower.prisoners.copy()  # P[c][o] of R46 as prisoners[c * n + o]
            game.apply(action)
            after = tower.prisoners
            taken = [o for o in range(n) if after[seat * n + o] > before[seat * n + o]]
            exchanged = [o for o in range(n) if after[o * n + seat] < before[o * n + seat]]
            victims = taken + exchanged  # the one follower taken; none when it was the captor's own
            mine["own_captures"] += not victims
            mine["exchanges"] += len(exchanged)
            mine["captures"] += len(victims)
            for owner in victims:
                counts[owner]["lost"] += 1
            continue
        game.apply(action)
        if action.kind == ActionKind.FLOOR:
            mine["floors"] += 1
            if action.arg == FloorColour.BLACK:
                mine["black_floors"] += 1
            elif action.arg == FloorColour.WHITE:
                mine["white_floors"] += 1
        elif action.kind == ActionKind.TOWER_TOP:
            mine["tower_tops"] += 1
    for event in game.score_log:
        if event.reason == "ransom":
            counts[event.player]["ransoms_paid" if event.points < 0 else "ransoms_received"] += 1
        elif event.reason == "watchtower":
            counts[event.player]["watchtower_points"] += event.points
    return counts


def tower_stats(games: Iterable[Mapping[str, Any]]) -> list[TowerCounts]:
    """Each agent's :class:`TowerCounts` over ``games`` (dicts of ``games.jsonl``, as
    :func:`~training.arena.tournament.load_games` returns them: ``seats`` and ``record``), by game
    (fewest players first, then the games in the order they first come), then agents in the order
    they first sit down."""
    totals: dict[tuple[GameConfig, str], Counter[str]] = {}
    seats_played: Counter[tuple[GameConfig, str]] = Counter()
    for g in games:
        record = GameRecord.from_dict(g["record"])
        for agent, counted in zip(g["seats"], seat_counts(record), strict=True):
            key = (record.config, agent)
            totals.setdefault(key, Counter()).update(counted)
            seats_played[key] += 1
    keys = sorted(totals, key=lambda k: k[0].players)  # stable: first-seen order within a player count
    return [TowerCounts(agent, describe_game(config), config.players, seats_played[config, agent],
                        **{c: totals[config, agent][c] for c in COUNTS})
            for config, agent in keys]


def _table(rows: Sequence[TowerCounts]) -> Table:
    """One game's rows: each count as its mean per game with the total in brackets."""
    table = Table(title="What the tower changes (per game played, total in brackets)")
    table.add_column("agent")
    table.add_column("games", justify="right")
    for count in COUNTS:
        table.add_column(count.replace("_", " "), justify="right")
    for r in rows:
        table.add_row(r.agent, str(r.games), *(f"{r.mean(c):.2f} ({getattr(r, c)})" for c in COUNTS))
    return table


class _BadInput(Exception):
    """Input the command refuses: its message is the one line it prints."""


def _read(runs: Sequence[Path]) -> list[dict[str, Any]]:
    """The checked games of every run directory in ``runs``, in order; :class:`_BadInput` otherwise."""
    games: list[dict[str, Any]] = []
    for run in runs:
        if not run.is_dir():
            raise _BadInput(f"{run}: no such directory")
        if not (run / GAMES_FILE).is_file():
            raise _BadInput(f"{run}: no {GAMES_FILE} (not a tournament's output directory)")
        try:
            games += load_games(run)
        except TournamentError as e:
            raise _BadInput(str(e)) from None
        except OSError as e:
            raise _BadInput(f"cannot read {run}: {e.strerror or e}") from None
    if not games:
        raise _BadInput(f"no finished games in {', '.join(map(str, runs))}")
    return games


#: What ``carcassonne stats`` does, for its --help.
DESCRIPTION = ("Per agent and game: captures, exchanges, ransoms, floors by colour, tower tops and "
               "watchtower points in the finished games of tournaments (docs/tournament.md).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (``carcassonne stats`` and ``python -m training.arena.tower_stats``)."""
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="a tournament's --out directory")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the counts to FILE as JSON")


def run(args: argparse.Namespace, prog: str) -> int:
    """Count, print and (with ``--json``) write; bad input is one line naming ``prog``, exit status 2."""
    try:
        stats = tower_stats(_read(args.runs))
        if args.json is not None:
            try:
                atomic_write_text(args.json, dumps([s.to_json() for s in stats], indent=1) + "\n")
            except OSError as e:
                raise _BadInput(f"cannot write {args.json}: {e.strerror or e}") from None
    except _BadInput as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    # Piped into a file or a log, rich would fold the tables to 80 columns: keep them whole there.
    console = Console(width=None if sys.stdout.isatty() else 240)
    for game in dict.fromkeys(s.game for s in stats):
        console.print(f"game: {game}", markup=False, highlight=False)
        console.print(_table([s for s in stats if s.game == game]))
    if args.json is not None:
        console.print(f"wrote {args.json}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.arena.tower_stats RUN_DIR [RUN_DIR ...] [--json FILE]`` (module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m training.arena.tower_stats", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv), parser.prog)


if __name__ == "__main__":
    raise SystemExit(main())
