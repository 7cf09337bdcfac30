"""The reference ladder of ``carcassonne evaluate`` and its stored games.

The ladder's games among themselves (random, greedy and MCTS, every agent seeded from the game seed,
MCTS with a simulation budget) are a function of the seeds, the specs, the game configuration and
the code that plays them: the same for every candidate. They are played once and *stored* with the
:class:`Fingerprint` of that code; an evaluation takes them from a store, placed at the indices its
round robin gives them (:func:`stored_games`), and plays only its candidate's games. Its
``games.jsonl`` is then the full round robin's, so its ratings and pairings are those of the full
round robin (the ladder agents' ms per decision include the stored games' timings).

Stores are gzip JSONL files: a header line (``format``, the ladder tournament's ``settings``, the
fingerprint's ``code``, ``python`` and ``numpy``), then the ladder tournament's games, one per line
in index order (lines of its ``games.jsonl``). Two places hold them:

* the shipped store :data:`SHIPPED`, written by
  ``carcassonne evaluate random --store-ladder training/arena/ladder_games.jsonl.gz``;
* the user cache (:func:`cache_dir`), one file per fingerprint and seed count, written by an
  evaluation that played ladder games itself (:func:`store_games`).

Invariants:

* a store is used only when its fingerprint is this code's and its settings this ladder's;
  otherwise its games are ignored (with a note saying why for the shipped store; the cache is
  looked up by fingerprint), so games of other code never mix with this code's;
* every stored game read back is checked like any tournament line
  (:func:`~training.arena.tournament.verify_game`: its moves replay to its scores);
* a store holds every ladder game of its seeds, none forfeited, all played without a time limit:
  games the agents alone decided.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from carcassonne_env.engine import GameConfig
from carcassonne_env.jsonio import loads, read_line

from .storage import atomic_write_bytes, dumps
from .tournament import Settings, load_games, played_by, verify_game

__all__ = [
    "EXPANSIONS", "LADDER", "SHIPPED", "Fingerprint", "cache_dir", "fingerprint", "is_ladder_game", "ladder_config",
    "store_games", "stored_games",
]

#: The reference ladder, on the 2-player tower variant, random = 0.
LADDER = ("random", "greedy", "mcts:sims=200")
EXPANSIONS = ("tower", "black_tower", "watchtowers")
#: The shipped store (module docstring).
SHIPPED = Path(__file__).with_name("ladder_games.jsonl.gz")
_FORMAT = "carcassonne ladder games 1"
_ROOT = Path(__file__).resolve().parents[2]
#: The code a game depends on: the engine, the agents and the match runner (paths from the project root).
_CODE = ("carcassonne_env", "agents", "training/arena/match.py")
#: Code under :data:`_CODE` that no ladder game runs (the human table), left out of the fingerprint.
_NOT_PLAYED = ("carcassonne_env/play",)


def ladder_config() -> GameConfig:
    """The evaluation's game: 2 players, :data:`EXPANSIONS`, no variant flags."""
    return GameConfig(players=2, expansions=EXPANSIONS)


@dataclass(frozen=True)
class Fingerprint:
    """What decides a game besides its seed, specs and configuration: ``code`` is the SHA-256 of the
    engine's, the agents' and the match runner's sources and tile data; ``python`` the interpreter's
    major.minor; ``numpy`` numpy's version (its random streams may change between versions)."""

    code: str
    python: str
    numpy: str

    @property
    def key(self) -> str:
        """A short name of the whole fingerprint (the cache's file names)."""
        return hashlib.sha256(f"{self.code} {self.python} {self.numpy}".encode()).hexdigest()[:16]

    def differs(self, other: Fingerprint) -> str | None:
        """None when equal, else what differs, in words."""
        why = [f"{name} {getattr(other, name)} (this is {getattr(self, name)})"
               for name in ("python", "numpy") if getattr(self, name) != getattr(other, name)]
        if self.code != other.code:
            why.insert(0, "other engine or agent code")
        return ", ".join(why) or None


def fingerprint() -> Fingerprint:
    """This installation's :class:`Fingerprint` (line endings normalised, so a checkout's don't matter)."""
    digest = hashlib.sha256()
    for top in _CODE:
        path = _ROOT / top
        files = [path] if path.is_file() else sorted(
            p for p in path.rglob("*") if p.suffix in (".py", ".json") and "pretrained" not in p.parts
            and not p.relative_to(_ROOT).as_posix().startswith(_NOT_PLAYED))
        for file in files:
            digest.update(file.relative_to(_ROOT).as_posix().encode() + b"\0")
            digest.update(file.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return Fingerprint(digest.hexdigest(), ".".join(platform.python_version_tuple()[:2]), np.__version__)


def cache_dir() -> Path:
    """The user cache of ladder stores: ``$CARCASSONNE_CACHE``, else ``$XDG_CACHE_HOME/carcassonne``,
    else ``~/.cache/carcassonne``."""
    if os.environ.get("CARCASSONNE_CACHE"):
        return Path(os.environ["CARCASSONNE_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "carcassonne"


def _ladder_settings(ladder: Sequence[str], seeds: int) -> Settings:
    return Settings(agents=tuple(ladder), seeds=seeds, config=ladder_config().to_dict())


def is_ladder_game(seats: Sequence[str], ladder: Sequence[str] = LADDER) -> bool:
    """Whether every seat is a ladder agent (a game the ladder plays among itself)."""
    return all(s in ladder for s in seats)


def _read(path: Path, ladder: Sequence[str], seeds: int, mine: Fingerprint
          ) -> tuple[list[dict[str, Any]], str | None]:
    """The games of store ``path`` with a seed below ``seeds`` (checked), or ``[]`` and why not."""
    try:
        with cast(IO[bytes], gzip.open(path, "rb")) as f:  # each line read within jsonio's bounds
            header = loads(read_line(f, path), path)
            if not isinstance(header, dict) or header.get("format") != _FORMAT:
                return [], "not a store of ladder games"
            stored = Settings.from_dict(header["settings"])
            why = mine.differs(Fingerprint(header["code"], header["python"], header["numpy"]))
            if why:
                return [], f"its games were played by {why}"
            if stored != _ladder_settings(ladder, stored.seeds):
                return [], "its games are another ladder's or another game's"
            fixtures = {f.index: f for f in stored.fixtures() if f.seed < seeds}
            games = []
            for n, line in enumerate(iter(lambda: read_line(f, path), b""), 2):
                game = loads(line, f"{path}, line {n}")
                if isinstance(game, dict) and game.get("index") in fixtures:
                    games.append(verify_game(game, stored, fixtures, f"{path}, line {n}"))
            if len({g["index"] for g in games}) != len(games):
                return [], "unreadable (a game is repeated)"
    except FileNotFoundError:
        return [], "missing"
    except (OSError, EOFError, ValueError, KeyError, TypeError) as e:  # TournamentError is a ValueError
        return [], f"unreadable ({e})"
    return games, None


def stored_games(settings: Settings, ladder: Sequence[str] = LADDER, mine: Fingerprint | None = None
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """The stored games of ``ladder`` among themselves in the schedule of ``settings`` (an
    evaluation: a round robin from seed 0 of a candidate and ``ladder`` in :func:`ladder_config`'s
    game), placed at its indices and groups: from the shipped store, else the cache, as many of its
    ladder games as one store holds; and notes for the user (a stale or damaged shipped store)."""
    mine = mine or fingerprint()
    notes: list[str] = []
    places = {(f.seed, f.seats): f for f in settings.fixtures() if is_ladder_game(f.seats, ladder)}
    best: list[dict[str, Any]] = []
    source = SHIPPED
    caches = sorted(cache_dir().glob(f"ladder-{mine.key}-*.jsonl.gz"))
    for path in [SHIPPED, *caches]:
        games, why = _read(path, ladder, settings.seeds, mine)
        if why and path == SHIPPED:
            notes.append(f"{path} is not used: {why}; the ladder's games come from the cache {cache_dir()}, or are "
                         f"played here and stored there (the shipped file is rewritten by: carcassonne evaluate "
                         f"random --store-ladder {SHIPPED})")
        if len(games) > len(best):
            best, source = games, path
        if len(best) == len(places):
            break
    placed = [{**g, "index": f.index, "group": f.group} for g in best
              if (f := places.get((g["seed"], tuple(g["seats"])))) is not None]
    if placed:
        notes.append(f"the ladder's games among themselves: {len(placed)} of {len(places)} from the store {source} "
                     f"(played once by this code: {mine.key})")
    return placed, notes


def store_games(settings: Settings, out: Path, ladder: Sequence[str] = LADDER, mine: Fingerprint | None = None,
                path: Path | None = None) -> Path | None:
    """Store the ladder's games of the finished evaluation in ``out`` (``settings`` as in
    :func:`stored_games`) in ``path`` (default: the cache's file for this fingerprint and seed count);
    the path, or None when ``out`` cannot give a store (module docstring): a ladder game missing or
    forfeited, a time limit, or games played by other code than this (``tournament.json``)."""
    mine = mine or fingerprint()
    if settings.move_time_limit is not None or played_by(out) != mine.key:
        return None
    games = [g for g in load_games(out, settings) if is_ladder_game(g["seats"], ladder)]
    stored = _ladder_settings(ladder, settings.seeds)
    index = {(f.seed, f.seats): f for f in stored.fixtures()}
    if len(games) != len(index) or any(g.get("forfeit") for g in games):
        return None
    lines = []
    for g in games:
        f = index[g["seed"], tuple(g["seats"])]
        lines.append({**g, "index": f.index, "group": f.group})
    header = {"format": _FORMAT, "settings": stored.to_json(), "code": mine.code, "python": mine.python,
              "numpy": mine.numpy}
    text = "".join(dumps(d, separators=(",", ":")) + "\n" for d in
                   [header, *sorted(lines, key=lambda g: int(g["index"]))])
    path = path or cache_dir() / f"ladder-{mine.key}-{settings.seeds}.jsonl.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, gzip.compress(text.encode(), mtime=0))
    return path

