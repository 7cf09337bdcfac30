"""Reading the games a replay shows: records, saves and tournament lines, from objects or files.

A *replay source* is one of: a :class:`~carcassonne_env.engine.GameRecord`; a
:class:`~carcassonne_env.engine.Game` (its record); a ``GameRecord.to_dict()`` document; a
``Game.to_dict()`` save document; a line of a tournament's ``games.jsonl`` (a dict with a
``"record"``, whose ``"seats"`` name the agents and whose ``"forfeit"``, when there is one, says
who lost the game by failing: :class:`Forfeited`). Files hold one JSON document, or JSON lines (a
tournament's games, chosen by their ``index``, each index once). Anything else raises
:class:`RecordError`, whose message names the file and what is wrong.

These readers check the form of a game, not its truth: ``carcassonne replay`` reads a tournament's
``games.jsonl`` with :func:`training.arena.tournament.find_game`, which replays every line first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import ConfigError, Game, GameRecord, IllegalActionError, SaveError
from ..jsonio import JSONInputError, loads, read_bytes

__all__ = ["Forfeited", "RecordError", "Replayable", "Source", "load_document", "load_record", "to_replayable"]

#: What :func:`to_replayable` and the viewer accept.
Source = GameRecord | Game | Mapping[str, Any]


class RecordError(ValueError):
    """A file or object that is not a replayable game; the message says which and why."""


@dataclass(frozen=True)
class Forfeited:
    """How a tournament game stopped short: the agent in ``seat`` lost it by failing (``kind``:
    exception, exit, illegal, changed, timeout or crash; ``message``: what it did) where the record's
    moves stop, when that seat was to move (or, before the first move, while being built)."""

    seat: int
    agent: str
    kind: str
    message: str

    @classmethod
    def from_dict(cls, data: Any) -> Forfeited:
        """The forfeit of a tournament line (its ``action`` evidence is not shown); RecordError if malformed."""
        if not (isinstance(data, dict) and isinstance(data.get("seat"), int) and not isinstance(data["seat"], bool)
                and all(isinstance(data.get(key), str) for key in ("agent", "kind", "message"))):
            raise RecordError("its forfeit must be an object of an int seat and a string agent, kind and message")
        return cls(data["seat"], data["agent"], data["kind"], data["message"])


@dataclass(frozen=True)
class Replayable:
    """A game to show: its record and, when known (tournament lines), the agent in each seat and the
    forfeit that ended it."""

    record: GameRecord
    seats: tuple[str, ...] | None = None
    forfeit: Forfeited | None = None

    def __post_init__(self) -> None:
        """A forfeit names a seat of the game (RecordError otherwise)."""
        players = self.record.config.players
        if self.forfeit is not None and not 0 <= self.forfeit.seat < players:
            raise RecordError(f"the forfeit names seat {self.forfeit.seat} of a {players}-player game")


def to_replayable(source: Source | Replayable) -> Replayable:
    """The record (and seat names) of any replay source (module docstring)."""
    if isinstance(source, Replayable):
        return source
    if isinstance(source, GameRecord):
        return Replayable(source)
    if isinstance(source, Game):
        return Replayable(source.record())
    if not isinstance(source, Mapping):
        raise RecordError(f"expected a GameRecord, a Game or a dict, got {type(source).__name__}")
    data = dict(source)
    try:
        if "record" in data:
            if not isinstance(data["record"], dict):
                kind = type(data["record"]).__name__
                raise RecordError(f"not a valid game record: 'record' must be a dict, got {kind}")
            seats = data.get("seats")
            forfeit = data.get("forfeit")
            return Replayable(GameRecord.from_dict(data["record"]), None if seats is None else tuple(map(str, seats)),
                              None if forfeit is None else Forfeited.from_dict(forfeit))
        if "format" in data:
            return Replayable(Game.from_dict(data).record())
        if "actions" in data and "config" in data:
            return Replayable(GameRecord.from_dict(data))
    except (ConfigError, SaveError, IllegalActionError, KeyError, TypeError, ValueError) as e:
        raise RecordError(f"not a valid game record: {e}") from None
    raise RecordError("not a game record: expected a GameRecord (config, actions), a saved game (format) or a "
                      f"tournament games.jsonl line (record); its keys are {sorted(data)[:8]}")


def _jsonl_games(path: Path, text: str) -> dict[int, dict[str, Any]]:
    """The games of JSON lines ``text`` by index (each index once; a last line cut short is dropped)."""
    games: dict[int, dict[str, Any]] = {}
    lines: dict[int, int] = {}  # index -> its line
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = loads(line, path)
        except JSONInputError as e:
            if number == len(text.splitlines()):
                break  # a last line cut short by a kill, as the tournament tool drops it
            raise RecordError(f"{path}: line {number} is {e.reason}") from None
        if not isinstance(item, dict) or "record" not in item or "index" not in item:
            raise RecordError(f"{path}: line {number} is not a tournament game (no index and record)")
        index = item["index"]
        if isinstance(index, bool) or not isinstance(index, int):
            raise RecordError(f"{path}: line {number}: the game index must be an int, got {index!r}")
        if index in lines:
            raise RecordError(f"{path}: line {number}: game {index} was already recorded on line {lines[index]}")
        games[index], lines[index] = item, number
    return games


def load_document(path: str | Path, *, game: int | None = None) -> dict[str, Any]:
    """The JSON document of the game in ``path``: the whole file, or the line of ``games.jsonl``
    whose ``index`` is ``game`` (``game`` may be left out when the file holds one game)."""
    path = Path(path)
    try:
        text = read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except JSONInputError as e:  # too big
        raise RecordError(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: cannot read it ({e})") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise RecordError(f"{path}: the file is empty")
    whole: Any = None
    why: JSONInputError | None = None
    try:
        whole = loads(text, path)
    except JSONInputError as e:
        why = e
    if isinstance(whole, dict):
        if game is not None and "record" not in whole:
            raise RecordError(f"{path}: --game chooses a game of a tournament's games.jsonl; this file holds one game")
        if game is not None and whole.get("index") != game:
            raise RecordError(f"{path}: no game with index {game} (the file holds index {whole.get('index')})")
        return whole
    if why is not None and len(lines) == 1:
        raise RecordError(str(why))
    if why is None:
        raise RecordError(f"{path}: not a game record (expected a JSON object or tournament JSON lines)")
    games = _jsonl_games(path, text)
    if not games:
        raise RecordError(f"{path}: holds no finished game")
    if game is None:
        if len(games) == 1:
            return next(iter(games.values()))
        raise RecordError(f"{path}: holds {len(games)} games (indices {min(games)}..{max(games)}): choose one "
                          "with --game INDEX")
    if game not in games:
        raise RecordError(f"{path}: no game with index {game} (indices {min(games)}..{max(games)})")
    return games[game]


def load_record(path_or_obj: str | Path | Source, *, game: int | None = None) -> GameRecord:
    """The :class:`GameRecord` of a file (:func:`load_document`) or of any replay source."""
    if isinstance(path_or_obj, str | Path):
        return to_replayable(load_document(path_or_obj, game=game)).record
    if game is not None:
        raise RecordError("game= chooses a game of a games.jsonl file; pass the path")
    return to_replayable(path_or_obj).record
