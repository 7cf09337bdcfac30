"""Run a tournament: play its schedule on a back-end (worker processes or Ray tasks:
:mod:`training.arena.backends`), append every game to a JSONL file as it finishes, resume by skipping
finished games, stop early on an SPRT decision.

Files in the output directory (docs/tournament.md):

* ``tournament.json``: the game in words (``game``: :func:`~carcassonne_env.engine.describe_game`,
  for a reader; the settings' ``config`` defines it), the settings that define the schedule, the
  SHA-256 of every agent file named in a spec (``agent_files``) and, when the run was given one, the
  ``code`` that plays the games (an evaluation's :class:`~training.arena.ladder.Fingerprint` key; null once games of two
  versions mixed); a resume must match them;
* ``games.jsonl``: one finished game per line: ``index``, ``group``, ``seats``, ``seed``,
  ``scores``, ``ranks``, decision counts and seconds per seat, its replayable ``record``
  (:class:`~carcassonne_env.engine.GameRecord`) and, for a game an agent lost by failing, its
  ``forfeit`` (seat, agent, kind, message);
* ``.lock``: held while a run writes here (:class:`~training.common.storage.RunLock`).

Invariants (docs/reliability.md):

* one run at a time per directory: a second one fails naming the first (pid, host, start time);
* a kill at any moment leaves a resumable directory: ``tournament.json`` and the rewritten
  ``games.jsonl`` are replaced atomically, games are appended one whole line at a time, and only a
  last line cut short by a kill is dropped on reading;
* every line read back (resume, report, evaluate, replay, a ladder store) is checked against the
  schedule and *replayed* (:class:`GameLedger`): its scores, ranks, forfeit and each seat's
  decisions must be those its moves reach, its seconds those of its decisions, and no index or game
  (the same moves and measured seconds) may come twice; any other line is an error naming it, and
  the line it repeats;
* an agent that fails forfeits its game and the tournament goes on (``on_error="forfeit"``), or
  stops it with an error naming the game and seat (``on_error="stop"``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from array import array
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from carcassonne_env.engine import Action, ConfigError, Game, GameConfig, GameRecord, IllegalActionError, describe_game
from carcassonne_env.jsonio import JSONInputError, load, loads, read_line
from training.common.storage import LockError, RunLock, atomic_write_text, dumps, file_sha256

from .backends import Backend, make_backend, single_threaded
from .match import MATCH_OPTIONS, ON_ERROR, Forfeit, MatchResult, competition_ranks
from .ratings import Sprt, sprt
from .schedule import Fixture, ScheduleError, gauntlet, round_robin, self_play

__all__ = [
    "GAMES_FILE",
    "SETTINGS_FILE",
    "GameLedger",
    "Settings",
    "TournamentError",
    "agent_files",
    "find_game",
    "iter_games",
    "load_games",
    "play_fixtures",
    "played_by",
    "run",
    "single_threaded",
    "sprt_games",
    "verify_game",
]

SETTINGS_FILE = "tournament.json"
GAMES_FILE = "games.jsonl"
_MODES = ("round_robin", "gauntlet", "self_play")


class TournamentError(ValueError):
    """The tournament cannot run as asked (settings, output directory, resume mismatch, a bad line)."""


@dataclass(frozen=True)
class Settings:
    """What defines a tournament's games. ``mode`` is ``round_robin``, ``gauntlet`` (candidate =
    ``agents[0]``, field = the rest) or ``self_play`` (``agents[0]`` in every seat); seeds are
    ``first_seed .. first_seed + seeds - 1``; ``sprt`` is
    ``(elo0, elo1, alpha, beta)`` for a 2-agent, 2-player match, or None; ``move_time_limit`` is the
    seconds an agent may take per decision (None: :data:`~agents.isolation.DEFAULT_MOVE_TIME_LIMIT`) before it
    forfeits the game."""

    agents: tuple[str, ...]
    mode: str = "round_robin"
    seeds: int = 10
    first_seed: int = 0
    config: dict[str, Any] = field(default_factory=lambda: GameConfig().to_dict())
    sprt: tuple[float, float, float, float] | None = None
    move_time_limit: float | None = None

    @property
    def game_config(self) -> GameConfig:
        return GameConfig.from_dict(self.config)

    def fixtures(self) -> list[Fixture]:
        seeds = range(self.first_seed, self.first_seed + self.seeds)
        players = self.game_config.players
        if self.mode == "round_robin":
            return round_robin(self.agents, players, seeds)
        if self.mode == "gauntlet":
            return gauntlet(self.agents[0], self.agents[1:], players, seeds)
        if self.mode == "self_play":
            return self_play(self.agents[0], players, seeds)
        raise TournamentError(f"mode: must be one of {', '.join(_MODES)}, got {self.mode!r}")

    def check(self) -> None:
        """Raise :class:`TournamentError` for settings that cannot run (every field is checked)."""
        if not isinstance(self.agents, tuple | list) or not self.agents or \
                not all(isinstance(a, str) and a for a in self.agents):
            raise TournamentError(f"agents: need one or more agent specs, got {self.agents!r}")
        if self.mode not in _MODES:
            raise TournamentError(f"mode: must be one of {', '.join(_MODES)}, got {self.mode!r}")
        for name in ("seeds", "first_seed"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TournamentError(f"{name}: must be an integer, got {value!r}")
        if self.seeds < 1:
            raise TournamentError(f"seeds: must be at least 1, got {self.seeds}")
        if self.first_seed < 0:
            raise TournamentError(f"first_seed: seeds are non-negative integers, got {self.first_seed}")
        try:
            config = self.game_config
        except (ConfigError, TypeError, ValueError) as e:
            raise TournamentError(f"config: {e}") from None
        if self.move_time_limit is not None and (
                isinstance(self.move_time_limit, bool) or not isinstance(self.move_time_limit, int | float)
                or not math.isfinite(self.move_time_limit) or self.move_time_limit <= 0):
            raise TournamentError(f"move_time_limit: must be a positive number of seconds, got "
                                  f"{self.move_time_limit!r}")
        if self.sprt is not None:
            elo0, elo1, alpha, beta = self.sprt
            if not (elo0 < elo1 and 0 < alpha < 1 and 0 < beta < 1):
                raise TournamentError(f"sprt: need elo0 < elo1 and 0 < alpha, beta < 1, got {self.sprt}")
            if len(self.agents) != 2 or config.players != 2:
                raise TournamentError("sprt: needs exactly 2 agents in 2-player games")
        try:
            self.fixtures()
        except ScheduleError as e:
            raise TournamentError(str(e)) from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """The settings of a ``tournament.json`` document (a field it lacks has its default)."""
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["agents"] = tuple(kwargs.get("agents", ()))
        if kwargs.get("sprt") is not None:
            kwargs["sprt"] = tuple(kwargs["sprt"])
        return cls(**kwargs)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(dumps(asdict(self)))
        return data


def agent_files(agents: Sequence[str]) -> dict[str, str]:
    """SHA-256 of every existing file a spec names (``ppo:PATH``, ``path/file.py:Class``, ``key=PATH``)."""
    files: dict[str, str] = {}
    for spec in agents:
        for token in re.split(r"[:,=]", spec):
            path = Path(token)
            if token and path.is_file():
                files[token] = file_sha256(path)
    return files


def play_fixtures(
    config: GameConfig, fixtures: Sequence[Fixture], workers: int | None = 1, progress: bool = False, done: int = 0,
    backend: Backend | None = None, *, on_error: str = "stop", move_time_limit: float | None = None,
) -> Generator[tuple[Fixture, MatchResult], None, None]:
    """Play ``fixtures`` on ``backend`` (default: the process back-end, :mod:`training.arena.backends`)
    with ``workers`` workers, yielding each as it finishes (in completion order) under one progress
    bar; closing the iterator early cancels the rest. ``on_error`` and ``move_time_limit`` are
    :func:`~training.arena.match.play_match`'s."""
    data = config.to_dict()
    if on_error != "stop" or move_time_limit is not None:
        data[MATCH_OPTIONS] = {"on_error": on_error, "move_time_limit": move_time_limit}
    stream = (backend or make_backend("process"))(data, fixtures, workers)
    # disable=None: tqdm also stays silent when stderr is not a terminal (no carriage returns in logs).
    # No bar at all without progress: even a disabled tqdm takes tqdm's lock, which is shared with the
    # processes forked from this one, and a run killed while holding it blocked every later one.
    bar = tqdm(total=done + len(fixtures), initial=done, disable=None, unit="game",
               dynamic_ncols=True) if progress else None
    try:
        with closing(stream):
            for f, result in stream:
                if bar is not None:
                    bar.update()
                yield f, MatchResult.from_dict(result)
    finally:
        if bar is not None:
            bar.close()


# ------------------------------------------------------------------------------ reading games back
def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _refute_illegal(forfeit: Forfeit, game: Game) -> str | None:
    """Why ``forfeit`` is not an illegal action in ``game`` (the position where it was charged), or
    None. Only an ``illegal`` forfeit is checked, against its evidence: four ints must not be a legal
    action there; a string stands for a value that is no action (nothing the engine can check, like
    an exception, a time-out or a dead process)."""
    if forfeit.kind != "illegal" or isinstance(forfeit.action, str):
        return None
    if forfeit.action is None:
        return "records no action: its evidence"
    try:
        action = Action.coerce(forfeit.action)
    except IllegalActionError:
        return None
    if action in game.legal_actions():
        return f"charges {list(forfeit.action)}, a legal action there"
    return None


def verify_game(game: Any, settings: Settings, fixtures: dict[int, Fixture], where: str) -> dict[str, Any]:
    """``game`` (one parsed line) if it is a game of ``settings``' schedule (its index, group, seed and
    seats are ``fixtures``') whose moves replay to its scores, ranks, forfeit (not on a finished game;
    charged to the seat to move and its agent) and per-seat decisions, with seconds that can be those
    of its decisions; else :class:`TournamentError` starting with ``where``. One line alone: a
    :class:`GameLedger` also refuses a game read twice."""
    def bad(why: str) -> TournamentError:
        return TournamentError(f"{where}: {why}")

    if not isinstance(game, dict):
        raise bad(f"not a game (expected a JSON object, got {type(game).__name__})")
    missing = [k for k in ("index", "group", "seats", "seed", "scores", "ranks", "decisions", "seconds",
                           "max_seconds", "record") if k not in game]
    if missing:
        raise bad(f"not a game: missing {', '.join(missing)}")
    index = game["index"]
    if not _int(index) or index not in fixtures:
        raise bad(f"game index {index!r} is not in this tournament's schedule (0..{len(fixtures) - 1})")
    f = fixtures[index]
    if game["group"] != f.group or game["seed"] != f.seed or game["seats"] != list(f.seats):
        raise bad(f"game {index} is not the schedule's (group {f.group}, seed {f.seed}, seats {list(f.seats)})")
    n = len(f.seats)
    for key in ("scores", "ranks", "decisions"):
        if not (isinstance(game[key], list) and len(game[key]) == n and all(_int(v) for v in game[key])):
            raise bad(f"game {index}: {key} must be {n} integers, got {game[key]!r}")
    for key in ("seconds", "max_seconds", "cpu_seconds"):  # cpu_seconds: absent in games before 2026-12-07
        if key in game and not (isinstance(game[key], list) and len(game[key]) == n and all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
                for v in game[key])):
            raise bad(f"game {index}: {key} must be {n} non-negative numbers, got {game[key]!r}")
    try:
        if not isinstance(game["record"], dict):
            raise ValueError("not an object")
        record = GameRecord.from_dict(game["record"])
    except Exception as e:
        raise bad(f"game {index}: its record is not a game record ({type(e).__name__}: {e})") from None
    if record.seed != f.seed or record.tile_order is not None or record.start_position is not None:
        raise bad(f"game {index}: its record is not the game of seed {f.seed} (record seed {record.seed})")
    if record.config != settings.game_config:
        raise bad(f"game {index}: its record is of another game configuration than the tournament's")
    try:
        replayed, made = _replay(record)
    except Exception as e:
        raise bad(f"game {index}: its moves do not replay ({type(e).__name__}: {e})") from None
    forfeit = None
    if game.get("forfeit") is not None:
        try:
            forfeit = Forfeit.from_dict(game["forfeit"])
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise bad(f"game {index}: malformed forfeit ({e!r})") from None
        if replayed.is_over:
            raise bad(f"game {index}: records a forfeit of seat {forfeit.seat}, but its moves reach the end of the "
                      "game")
        at_start = not record.actions and forfeit.kind != "illegal"  # an agent that could not be built: any seat
        if not (0 <= forfeit.seat < n and (forfeit.seat == replayed.current_player or at_start)):
            raise bad(f"game {index}: the forfeit of seat {forfeit.seat} is not the seat to move where its moves end")
        if forfeit.agent != f.seats[forfeit.seat]:
            raise bad(f"game {index}: the forfeit of seat {forfeit.seat} names {forfeit.agent!r}, but that seat is "
                      f"{f.seats[forfeit.seat]!r}'s")
        refuted = _refute_illegal(forfeit, replayed)
        if refuted:
            raise bad(f"game {index}: the illegal-action forfeit of seat {forfeit.seat} {refuted}")
    elif not replayed.is_over:
        raise bad(f"game {index}: its moves stop before the end of the game and it records no forfeit")
    if game["scores"] != list(replayed.scores):
        raise bad(f"game {index}: recorded scores {game['scores']} differ from the scores its moves reach "
                  f"{list(replayed.scores)}")
    if game["ranks"] != list(competition_ranks(replayed.scores, None if forfeit is None else forfeit.seat)):
        raise bad(f"game {index}: recorded ranks {game['ranks']} do not follow from its scores")
    if game["decisions"] != made:
        raise bad(f"game {index}: recorded decisions {game['decisions']} differ from the moves each seat made {made}")
    for seat, (total, longest) in enumerate(zip(game["seconds"], game["max_seconds"], strict=True)):
        if longest > total or (made[seat] == 0 and total != 0):  # a sum of the times of its decisions
            raise bad(f"game {index}: seat {seat}'s {total} s (the longest decision {longest} s) cannot be the time of "
                      f"its {made[seat]} decisions")
        if made[seat] == 0 and game.get("cpu_seconds", [0] * n)[seat] != 0:
            raise bad(f"game {index}: seat {seat} made no decision but records {game['cpu_seconds'][seat]} CPU seconds")
    return game


def _replay(record: GameRecord) -> tuple[Game, list[int]]:
    """The game ``record``'s moves reach, and how many of them each seat made (the seat to move
    before each move made it: the decisions a run counts per seat)."""
    game = record.replay(0)
    made = [0] * game.num_players
    for action in record.actions:
        made[game.current_player] += 1
        game.apply(action)
    return game, made


def _read_settings(out: Path) -> dict[str, Any]:
    path = out / SETTINGS_FILE
    try:
        data = load(path)  # bounded: a tournament.json that is /dev/zero is refused, not read forever
    except FileNotFoundError:
        raise TournamentError(f"{out}: holds games but no {SETTINGS_FILE}, so its settings cannot be checked; "
                              "start the tournament in a new directory") from None
    except (OSError, JSONInputError) as e:
        raise TournamentError(f"{path}: unreadable or damaged ({e}); start the tournament in a new directory") from None
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise TournamentError(f"{path}: not a tournament's settings")
    return data


def played_by(out: Path) -> str | None:
    """The ``code`` recorded in ``out``'s ``tournament.json`` (None: none recorded, or mixed)."""
    code = _read_settings(Path(out)).get("code")
    return code if isinstance(code, str) else None


def _settings_of(out: Path) -> Settings:
    data = _read_settings(out)
    try:
        settings = Settings.from_dict(data)
        settings.check()
    except (TypeError, ValueError) as e:
        raise TournamentError(f"{out / SETTINGS_FILE}: bad settings: {e}") from None
    return settings


class GameLedger:
    """The games of one file, checked as they are read, line by line (what it keeps per game is its
    line number and a digest). Each game must pass :func:`verify_game` against ``settings`` (None: a
    games file without its tournament, each game against its own seats, seed and configuration, so
    that its moves must still reach its scores, ranks and forfeit); an index read before is refused,
    and so is a *copy*: a game whose seed, moves and measured seconds (in any seat order) repeat an
    earlier line's. Two games played apart are never timed alike to the nanosecond, whereas agents
    that choose alike play the same moves in every seat rotation of a seed (``random`` and
    ``carcassonne_env.players:RandomAgent`` do), so the same moves alone make no copy; nor does a game
    without moves (an agent that could not be built)."""

    def __init__(self, path: Path, settings: Settings | None) -> None:
        self.path = path
        self.settings = settings
        self.fixtures = {} if settings is None else {f.index: f for f in settings.fixtures()}
        self.lines: dict[int, int] = {}  # game index -> its line
        self.digests: dict[bytes, int] = {}  # _digest -> its line

    def check(self, game: Any, number: int) -> dict[str, Any]:
        """``game``, read on line ``number``, if it passes (class docstring); else
        :class:`TournamentError` naming the line, and the earlier line it repeats."""
        where = f"{self.path}, line {number}"
        if self.settings is None:
            checked = _verify_alone(game, where)
        else:
            checked = verify_game(game, self.settings, self.fixtures, where)
        index = checked["index"]
        if index in self.lines:
            raise TournamentError(f"{where}: game {index} was already recorded on line {self.lines[index]}")
        self.lines[index] = number
        if checked["record"]["actions"]:
            digest = _digest(checked)
            if digest in self.digests:
                raise TournamentError(f"{where}: game {index} repeats line {self.digests[digest]}: the same moves on "
                                      f"seed {checked['seed']} and the same measured seconds, so one line is a copy")
            self.digests[digest] = number
        return checked


def _digest(game: dict[str, Any]) -> bytes:
    """What a copy of a verified game keeps whatever its index and seats say: its seed, its moves and
    its measured seconds, in any seat order (:class:`GameLedger`)."""
    actions = game["record"]["actions"]
    digest = hashlib.sha256(f"{int(game['seed'])} {len(actions)}\0".encode())
    digest.update(array("q", itertools.chain.from_iterable(actions)).tobytes())  # small ints: they replayed
    for key in ("seconds", "max_seconds"):
        digest.update(array("d", sorted(game[key])).tobytes())
    return digest.digest()


def _verify_alone(game: Any, where: str) -> dict[str, Any]:
    """:func:`verify_game` for a game read without its tournament: against its own index, group,
    seed and seats, and its record's configuration."""
    if not (isinstance(game, dict) and _int(game.get("index"))):
        raise TournamentError(f"{where}: not a game (expected a JSON object with an index)")
    try:
        config = GameRecord.from_dict(game["record"]).config
        seats = tuple(game["seats"])
        fixture = Fixture(game["index"], game["group"], game["seed"], seats)
    except Exception as e:
        raise TournamentError(f"{where}: not a game ({type(e).__name__}: {e})") from None
    if len(seats) != config.players:
        raise TournamentError(f"{where}: {len(seats)} seats for a {config.players}-player game")
    alone = Settings(agents=tuple(dict.fromkeys(seats)), seeds=1, first_seed=0, config=config.to_dict())
    return verify_game(game, alone, {fixture.index: fixture}, where)


def _json_lines(f: IO[bytes], path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of each line of ``f`` (the file at ``path``) that is not blank, each
    read within jsonio's bounds. A last line cut short by a kill (no newline after it and not JSON) is
    dropped; any other line that is not JSON is a :class:`TournamentError` naming it."""
    for number in itertools.count(1):
        where = f"{path}, line {number}"
        try:
            raw = read_line(f, where)
        except JSONInputError as e:  # longer than the bound
            raise TournamentError(str(e)) from None
        if not raw:
            return
        if not raw.strip():
            continue
        try:
            value = loads(raw, where)
        except JSONInputError as e:
            if not raw.endswith(b"\n"):
                return  # the last line, cut short by a kill
            raise TournamentError(str(e)) from None
        yield number, value


def iter_games(out: Path, settings: Settings | None = None) -> Iterator[dict[str, Any]]:
    """The games of ``out/games.jsonl`` in file order, read line by line, each checked by a
    :class:`GameLedger` against ``settings`` (default: ``out/tournament.json``, which must exist).
    A last line cut short by a kill is dropped; any other bad line, a repeated index or a copied game
    is an error naming the line."""
    path = Path(out) / GAMES_FILE
    if not path.exists():
        return
    ledger = GameLedger(path, settings if settings is not None else _settings_of(Path(out)))
    with path.open("rb") as f:
        for number, game in _json_lines(f, path):
            yield ledger.check(game, number)


def find_game(path: Path, index: int | None) -> dict[str, Any] | None:
    """The game with ``index`` (None: the only game) of a tournament's ``games.jsonl`` at ``path``,
    once *every* line was checked by a :class:`GameLedger`: against ``tournament.json`` next to it
    when there is one, else each game by replaying its moves; read line by line (memory: one line and
    a digest per game). None when the first line that is not blank is no game (a single game
    document: load_document reads it); :class:`TournamentError` naming the line for a bad, repeated
    or copied game, or for a missing one."""
    path = Path(path)
    try:
        f = path.open("rb")
    except OSError:  # load_document says why
        return None
    with f:
        lines = _json_lines(f, path)
        try:
            head = next(lines, None)
        except TournamentError:  # no JSON lines
            return None
        if head is None or not (isinstance(head[1], dict) and "record" in head[1] and "index" in head[1]):
            return None
        beside = path.name == GAMES_FILE and (path.parent / SETTINGS_FILE).exists()
        ledger = GameLedger(path, _settings_of(path.parent) if beside else None)
        found: dict[str, Any] | None = None
        for count, (number, game) in enumerate(itertools.chain([head], lines), 1):
            if index is None and count > 1:
                raise TournamentError(f"{path}: holds several games: choose one with --game INDEX")
            checked = ledger.check(game, number)
            if index is None or checked["index"] == index:
                found = checked
    if found is None:
        raise TournamentError(f"{path}: no game with index {index}")
    return found


def load_games(out: Path, settings: Settings | None = None) -> list[dict[str, Any]]:
    """Every game of ``games.jsonl``, checked (:func:`iter_games`), by game index."""
    return sorted(iter_games(out, settings), key=lambda g: int(g["index"]))


# ------------------------------------------------------------------------------ the run
def _prepare(out: Path, settings: Settings, resume: bool, allow_changed_agents: bool,
             given: Sequence[dict[str, Any]], code: str | None) -> list[dict[str, Any]]:
    """Check ``out`` against ``settings`` and ``code``; the finished games to keep, with those of
    ``given`` it lacks (rewritten whole, atomically)."""
    games_path = out / GAMES_FILE
    wanted = settings.to_json()
    files = agent_files(settings.agents)
    has_games = games_path.exists() and games_path.stat().st_size > 0
    games: list[dict[str, Any]] = []
    versions: dict[str, str | None] = {"code": code} if code is not None else {}
    if has_games:
        if not resume:
            raise TournamentError(f"--out {out} already holds games; pass --resume to continue it or choose "
                                  "another directory")
        previous = _read_settings(out)
        defaults = Settings(agents=()).to_json()
        changed = sorted(k for k in wanted if previous.get(k, defaults.get(k)) != wanted[k])
        if changed:
            raise TournamentError(f"--resume: {out} holds a tournament with other settings ({', '.join(changed)})")
        recorded: dict[str, str] = previous.get("agent_files") or {}
        differ = sorted(p for p, digest in recorded.items() if files.get(p) != digest)
        if differ and not allow_changed_agents:
            raise TournamentError(f"--resume: agent files changed since the tournament started: {', '.join(differ)}; "
                                  "its finished games were played by the old ones (pass --allow-changed-agents to "
                                  "continue anyway)")
        if code is not None and previous.get("code") != code:
            if not allow_changed_agents:
                raise TournamentError(f"--resume: {out} holds games played by another version of the engine or "
                                      "agents; start in a new directory (or pass --allow-changed-agents to mix them)")
            versions = {"code": None}
        games = load_games(out, settings)
    finished = {g["index"] for g in games}
    games += [g for g in given if g["index"] not in finished]
    atomic_write_text(out / SETTINGS_FILE, dumps({"game": describe_game(settings.game_config), **wanted,
                                                  "agent_files": files, **versions}, indent=1) + "\n")
    atomic_write_text(games_path, "".join(dumps(g, separators=(",", ":")) + "\n" for g in games))
    return games


def run(
    settings: Settings, out: Path, workers: int | None = 1, resume: bool = False, progress: bool = True,
    backend: Backend | None = None, *, on_error: str = "forfeit", allow_changed_agents: bool = False,
    given: Sequence[dict[str, Any]] = (), code: str | None = None,
) -> Sprt | None:
    """Play every unfinished game of ``settings`` into ``out`` on ``backend`` (default: processes);
    the final SPRT state if one was asked. Holds ``out``'s lock for the run (module docstring).
    ``on_error``: ``forfeit`` (a failing agent loses its game) or ``stop`` (the run stops, naming the
    game and seat); ``allow_changed_agents``: resume although an agent file or ``code`` changed.
    ``given``: games of the schedule played elsewhere, already checked (:func:`verify_game`), that
    count as finished; ``code``: the version of the code that plays, recorded and checked on resume."""
    settings.check()
    if on_error not in ON_ERROR:
        raise TournamentError(f"on_error: must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
    out = Path(out)
    try:
        lock = RunLock(out, "tournament").acquire()
    except LockError as e:
        raise TournamentError(str(e)) from None
    try:
        return _run(settings, out, workers, progress, backend, on_error,
                    _prepare(out, settings, resume, allow_changed_agents, given, code))
    finally:
        lock.release()


def _run(settings: Settings, out: Path, workers: int | None, progress: bool, backend: Backend | None,
         on_error: str, games: list[dict[str, Any]]) -> Sprt | None:
    fixtures = settings.fixtures()
    finished = {g["index"] for g in games}
    todo = [f for f in fixtures if f.index not in finished]
    test = _OrderedSprt(settings, fixtures) if settings.sprt else None
    if test is not None:
        for g in games:
            test.add(g["group"], g["seats"], g["ranks"])
        if test.state.decision:
            return test.state
    with (out / GAMES_FILE).open("a") as sink:
        stream = play_fixtures(settings.game_config, todo, workers, progress, len(finished), backend,
                               on_error=on_error, move_time_limit=settings.move_time_limit)
        for f, result in stream:
            line = {"index": f.index, "group": f.group, **result.to_dict()}
            sink.write(dumps(line, separators=(",", ":")) + "\n")
            sink.flush()
            if test is not None and test.add(f.group, result.seats, result.ranks):
                stream.close()
                break
    return test.state if test is not None else None


class _OrderedSprt:
    """The SPRT of a 2-agent match over its seat-swapped pairs *in schedule order*: a pair counts
    once every pair before it has, so the decision, and the pair it comes at, are the same however
    many workers play and in whatever order their games finish (or across a resume). Games that
    finished beyond the deciding pair stay in the games file; :func:`sprt_games` leaves them out."""

    def __init__(self, settings: Settings, fixtures: Sequence[Fixture]) -> None:
        assert settings.sprt is not None
        self.bounds = settings.sprt
        self.candidate = settings.agents[0]
        self.order = _group_order(fixtures)
        self.next = 0
        self.pair_scores: dict[int, list[float]] = {}
        self.penta = [0] * 5
        self.state = sprt(self.penta, *self.bounds)

    def add(self, group: int, seats: Sequence[str], ranks: Sequence[int]) -> bool:
        """Count a finished game; True once the test has decided."""
        _score_game(self.pair_scores, group, seats, ranks, self.candidate)
        while not self.state.decision and self.next < len(self.order):
            pair = self.pair_scores.get(self.order[self.next], [])
            if len(pair) < 2:
                break
            self.penta[round(2 * sum(pair))] += 1
            self.next += 1
            self.state = sprt(self.penta, *self.bounds)
        return self.state.decision is not None


def sprt_games(settings: Settings, games: Sequence[dict[str, Any]], state: Sprt | None) -> list[dict[str, Any]]:
    """The games an SPRT decision stands on: those of its first ``state.pairs`` groups in schedule
    order (every game when the test has not decided, or none was asked). What a gate reads, so that
    its figures do not depend on which games the workers had finished when the test decided."""
    if state is None or not state.decision:
        return list(games)
    counted = set(_group_order(settings.fixtures())[:state.pairs])
    return [g for g in games if g["group"] in counted]


def _group_order(fixtures: Sequence[Fixture]) -> list[int]:
    """The schedule's groups (seat-swapped pairs in a 2-player match) in the order they are played."""
    return list(dict.fromkeys(f.group for f in fixtures))


def _score_game(
    pair_scores: dict[int, list[float]], group: int, seats: Sequence[str], ranks: Sequence[int], candidate: str,
) -> None:
    """Add the candidate's game result (from the ranks: a forfeit ranks last) to its pair."""
    mine = ranks[list(seats).index(candidate)]
    other = min(r for seat, r in zip(seats, ranks, strict=True) if seat != candidate)
    pair_scores.setdefault(group, []).append(1.0 if mine < other else 0.5 if mine == other else 0.0)
