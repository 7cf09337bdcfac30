"""The reference ladders of ``carcassonne evaluate`` and their stored games.

A ladder is fixed per player count (:func:`ladder_for`): for 2 players :data:`LADDER`; for 3 to 6
players the members of :data:`MULTIPLAYER_LADDER` that can play the count (the shipped values are
made for some counts only: ``agents.shipped_values``), then :data:`RESERVES` until it has as many
agents as a game has seats, so that it plays among itself and any candidate completes a round robin.

The ladder's games among themselves (every agent seeded from the game seed, MCTS with a simulation
budget) are a function of the seeds, the specs, the game configuration and the code that plays
them (:func:`fingerprint_for`): the same for every candidate. They are played once and *stored* with the
:class:`Fingerprint` of that code; an evaluation takes them from a store, placed at the indices its
round robin gives them (:func:`stored_games`), and plays only its candidate's games. Its
``games.jsonl`` is then the full round robin's, so its ratings and pairings are those of the full
round robin (the ladder agents' ms per decision include the stored games' timings).

Stores are gzip JSONL files: a header line (``format``, the ``game`` in words
(:func:`~carcassonne_env.engine.describe_game`, for a reader: ``settings`` holds the game's
configuration), the ladder tournament's ``settings``, the fingerprint's ``code``, ``python``,
``numpy`` and, where not empty, ``torch``), then the ladder tournament's games, one per line
in index order (lines of its ``games.jsonl``). Two places hold them:

* the shipped store :data:`SHIPPED` (2 players only), written by
  ``carcassonne evaluate random --store-ladder training/arena/ladder_games.jsonl.gz``;
* the user cache (:func:`cache_dir`), one file per player count, fingerprint and seed count,
  written by an evaluation that played ladder games itself (:func:`store_games`).

Invariants:

* a store is used only when its fingerprint is this code's and its settings this ladder's (its
  agents, seeds and game configuration, players included: a store of 3 players never serves 4);
  otherwise its games are ignored (with a note saying why for the shipped store; the cache is
  looked up by fingerprint), so games of other code never mix with this code's;
* every stored game read back, of every seed the store holds, is checked like any tournament line
  (:class:`~training.arena.tournament.GameLedger`: its moves replay to its scores, ranks and
  decisions, its index, seed and seats are the ladder schedule's, no index or game twice); a store
  with one bad line is not used (a note names the line for the shipped store);
* a store holds every ladder game of its seeds, none forfeited, all played without a time limit:
  games the agents alone decided.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from agents import make_agent
from agents.az import SHIPPED_AZ
from agents.compat import check_fits
from agents.extras import MissingExtra
from agents.shipped_values import AFTERSTATE_FILES, LINEAR_FILES, PRETRAINED_DIR
from carcassonne_env.engine import GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.jsonio import loads, read_line
from training.common.storage import atomic_write_bytes, dumps

from .tournament import GameLedger, Settings, load_games, played_by

__all__ = [
    "DEFAULT_SEEDS", "EXPANSIONS", "LADDER", "MULTIPLAYER_LADDER", "RESERVES", "SHIPPED", "SHIPPED_AZ", "Fingerprint",
    "cache_dir", "fingerprint", "fingerprint_for", "is_ladder_game", "ladder_config", "ladder_for", "shown_path",
    "store_games", "stored_games",
]

#: The reference ladder, on the 2-player tower variant, random = 0: from no plan to the shipped
#: network and search (``az:pretrained``, which needs the ``train`` extra: torch), its guide at the root
#: only (``guide_tree=0``): about two fifths of the default's time a decision, so that a candidate's games against
#: it stay affordable (docs/tournament.md).
LADDER = ("random", "greedy", "mcts:sims=200", "az:pretrained,guide_tree=0")
#: The ladder of 3 to 6 players, those of its agents that can play the count (:func:`ladder_for`).
MULTIPLAYER_LADDER = ("random", "greedy", "greedy:value=linear", "afterstate:pretrained")
#: Agents of every player count that complete a multiplayer ladder short of agents, in this order.
RESERVES = ("greedy:fast=1", "mcts:sims=50", "mcts:sims=100", "mcts:sims=200")
#: ``carcassonne evaluate``'s tile orders per table by player count: a first evaluation (which also
#: plays the ladder's own games) takes about 10 minutes on 2 cores (docs/tournament.md).
DEFAULT_SEEDS: Mapping[int, int] = {2: 100, 3: 20, 4: 16, 5: 20, 6: 9}
EXPANSIONS = TOWER_VARIANT
#: The shipped store (module docstring).
SHIPPED = Path(__file__).with_name("ladder_games.jsonl.gz")
#: How messages name :data:`SHIPPED`: by its place in the project, not on this machine.
SHIPPED_NAME = "training/arena/ladder_games.jsonl.gz"
_FORMAT = "carcassonne ladder games 1"
_ROOT = Path(__file__).resolve().parents[2]
#: The code a game depends on: the engine, the agents and the match runner (paths from the project root).
_CODE = ("carcassonne_env", "agents", "training/arena/match.py")
#: Code under :data:`_CODE` that no ladder game runs (the human table), left out of the fingerprint.
_NOT_PLAYED = ("carcassonne_env/play",)


def ladder_config(players: int = 2) -> GameConfig:
    """The evaluation's game: ``players`` players, :data:`EXPANSIONS`, no variant flags."""
    return GameConfig(players=players, expansions=EXPANSIONS)


def ladder_for(players: int) -> tuple[tuple[str, ...], list[str]]:
    """The ladder of ``players``-player games and notes for the user. For 2 players :data:`LADDER`;
    for more, the agents of :data:`MULTIPLAYER_LADDER` that can play :func:`ladder_config`'s game
    (:func:`agents.compat.check_fits`: a shipped value made for other counts cannot), in its order,
    then :data:`RESERVES` until the ladder has ``players`` agents; a note names each agent left out
    and why."""
    if players == 2:
        for spec in LADDER:  # no member is left out of the 2-player ladder: its store is shipped
            try:
                make_agent(spec, seed=0)
            except MissingExtra as e:
                raise MissingExtra(e.name or "torch", e.extra, f"{spec} of the 2-player ladder") from None
        return LADDER, []
    config = ladder_config(players)
    ladder: list[str] = []
    notes: list[str] = []
    for spec in MULTIPLAYER_LADDER:
        try:
            check_fits(make_agent(spec, seed=0), config, spec)
        except ValueError as e:  # the message starts with the spec
            notes.append(f"the {players}-player ladder leaves out {e}")
        else:
            ladder.append(spec)
    ladder += [spec for spec in RESERVES if spec not in ladder][:max(0, players - len(ladder))]
    if notes:
        notes.append(f"the {players}-player ladder: {', '.join(ladder)}")
    return tuple(ladder), notes


@dataclass(frozen=True)
class Fingerprint:
    """What decides a game besides its seed, specs and configuration: ``code`` is the SHA-256 of the
    engine's, the agents' and the match runner's sources and tile data (and of the shipped model files
    the ladder loads: :func:`fingerprint_for`); ``python`` the interpreter's major.minor; ``numpy``
    numpy's version (its random streams may change between versions); ``torch`` torch's version where
    the ladder has a network agent (its arithmetic may change a near tie between versions), else ``""``."""

    code: str
    python: str
    numpy: str
    torch: str = ""

    @property
    def key(self) -> str:
        """A short name of the whole fingerprint (the cache's file names)."""
        torch = f" {self.torch}" if self.torch else ""  # the keys of ladders without a network are unchanged
        return hashlib.sha256(f"{self.code} {self.python} {self.numpy}{torch}".encode()).hexdigest()[:16]

    def differs(self, other: Fingerprint) -> str | None:
        """None when equal, else what differs, in words."""
        why = [f"{name} {getattr(other, name) or 'none'} (this is {getattr(self, name) or 'none'})"
               for name in ("python", "numpy", "torch") if getattr(self, name) != getattr(other, name)]
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


def fingerprint_for(players: int) -> Fingerprint:
    """The :class:`Fingerprint` of the ``players``-player ladder's games: :func:`fingerprint`, whose
    ``code`` covers also the shipped model files that ladder plays (:func:`fingerprint` leaves
    ``agents/pretrained`` out): for 2 players ``az:pretrained``'s network, with torch's version; for
    more, the value files of that count. So a new model file makes new ladder games."""
    mine = fingerprint()
    if players == 2:
        files = [SHIPPED_AZ]
        mine = replace(mine, torch=_torch_version())
    else:
        files = [PRETRAINED_DIR / names[players] for names in (LINEAR_FILES, AFTERSTATE_FILES)
                 if players in names and (PRETRAINED_DIR / names[players]).is_file()]
    if not files:
        return mine
    digest = hashlib.sha256(mine.code.encode() + b"\0")
    for file in files:
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return replace(mine, code=digest.hexdigest())


def _torch_version() -> str:
    """The installed torch's version, or ``""`` (then ``az:pretrained`` cannot play: :func:`ladder_for`)."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return ""


def cache_dir() -> Path:
    """The user cache of ladder stores: ``$CARCASSONNE_CACHE``, else ``$XDG_CACHE_HOME/carcassonne``,
    else ``~/.cache/carcassonne``."""
    if os.environ.get("CARCASSONNE_CACHE"):
        return Path(os.environ["CARCASSONNE_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "carcassonne"


def shown_path(path: Path) -> str:
    """``path`` with the user's home directory written ``~`` (messages name no one's home)."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _cache_file(players: int, mine: Fingerprint, seeds: int | str) -> Path:
    """The cache's store of the ``players``-player ladder's games of ``seeds`` seeds (``*``: a glob)
    played by ``mine``: ``ladder-KEY-SEEDS.jsonl.gz`` for 2 players, ``ladder-Np-KEY-SEEDS.jsonl.gz``
    for N players."""
    count = "" if players == 2 else f"{players}p-"
    return cache_dir() / f"ladder-{count}{mine.key}-{seeds}.jsonl.gz"


def _ladder_settings(ladder: Sequence[str], seeds: int, config: dict[str, Any]) -> Settings:
    """The settings of the tournament of ``ladder`` alone: a store's header."""
    return Settings(agents=tuple(ladder), seeds=seeds, config=config)


def is_ladder_game(seats: Sequence[str], ladder: Sequence[str] = LADDER) -> bool:
    """Whether every seat is a ladder agent (a game the ladder plays among itself)."""
    return all(s in ladder for s in seats)


def _read(path: Path, ladder: Sequence[str], seeds: int, config: dict[str, Any], mine: Fingerprint
          ) -> tuple[list[dict[str, Any]], str | None]:
    """The games of store ``path`` with a seed below ``seeds`` (checked) in the game ``config``, or
    ``[]`` and why not."""
    try:
        with cast(IO[bytes], gzip.open(path, "rb")) as f:  # each line read within jsonio's bounds
            header = loads(read_line(f, path), path)
            if not isinstance(header, dict) or header.get("format") != _FORMAT:
                return [], "not a store of ladder games"
            stored = Settings.from_dict(header["settings"])
            why = mine.differs(Fingerprint(header["code"], header["python"], header["numpy"], header.get("torch", "")))
            if why:
                return [], f"its games were played by {why}"
            if stored != _ladder_settings(ladder, stored.seeds, config):
                return [], "its games are another ladder's or another game's"
            ledger = GameLedger(path, stored)  # every line checked, those of later seeds too
            games = []
            for n, line in enumerate(iter(lambda: read_line(f, path), b""), 2):
                game = ledger.check(loads(line, f"{path}, line {n}"), n)
                if game["seed"] < seeds:
                    games.append(game)
    except FileNotFoundError:
        return [], "missing"
    except (OSError, EOFError, ValueError, KeyError, TypeError) as e:  # TournamentError is a ValueError
        return [], f"unreadable ({e})"
    return games, None


def stored_games(settings: Settings, ladder: Sequence[str] = LADDER, mine: Fingerprint | None = None
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """The stored games of ``ladder`` among themselves in the schedule of ``settings`` (an
    evaluation: a round robin from seed 0 of a candidate and ``ladder`` in :func:`ladder_config`'s
    game of some player count), placed at its indices and groups: from the shipped store (2 players),
    else the cache of that player count, as many of its ladder games as one store holds; and notes
    for the user (a stale or damaged shipped store). ``mine``: default :func:`fingerprint_for`."""
    players = settings.game_config.players
    mine = mine or fingerprint_for(players)
    notes: list[str] = []
    places = {(f.seed, f.seats): f for f in settings.fixtures() if is_ladder_game(f.seats, ladder)}
    best: list[dict[str, Any]] = []
    source = SHIPPED
    caches = sorted(cache_dir().glob(_cache_file(players, mine, "*").name))
    for path in [SHIPPED, *caches] if players == 2 else caches:
        games, why = _read(path, ladder, settings.seeds, settings.config, mine)
        if why and path == SHIPPED:
            why = why.replace(str(path), SHIPPED_NAME)  # the reader names the file it read
            notes.append(f"the shipped store {SHIPPED_NAME} is not used: {why}; the ladder's games come from the "
                         f"cache {shown_path(cache_dir())}, or are played here and stored there (in a checkout, "
                         f"the shipped store is rewritten by: carcassonne evaluate random --store-ladder "
                         f"{SHIPPED_NAME})")
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
    :func:`stored_games`) in ``path`` (default: the cache's file for this player count, fingerprint
    and seed count); the path, or None when ``out`` cannot give a store (module docstring): a ladder
    game missing, forfeited or not at a seating of the ladder's own tables (for 3 or more players
    those depend on the order of the agents), a time limit, or games played by other code than this
    (``tournament.json``). ``mine``: default :func:`fingerprint_for`."""
    players = settings.game_config.players
    mine = mine or fingerprint_for(players)
    if settings.move_time_limit is not None or played_by(out) != mine.key:
        return None
    games = [g for g in load_games(out, settings) if is_ladder_game(g["seats"], ladder)]
    stored = _ladder_settings(ladder, settings.seeds, settings.config)
    index = {(f.seed, f.seats): f for f in stored.fixtures()}
    if len(games) != len(index) or any(g.get("forfeit") or (g["seed"], tuple(g["seats"])) not in index for g in games):
        return None  # missing, forfeited, or seated otherwise than the ladder's own tables
    lines = []
    for g in games:
        f = index[g["seed"], tuple(g["seats"])]
        lines.append({**g, "index": f.index, "group": f.group})
    header = {"format": _FORMAT, "game": describe_game(stored.game_config), "settings": stored.to_json(),
              "code": mine.code, "python": mine.python, "numpy": mine.numpy,
              **({"torch": mine.torch} if mine.torch else {})}
    text = "".join(dumps(d, separators=(",", ":")) + "\n" for d in
                   [header, *sorted(lines, key=lambda g: int(g["index"]))])
    path = path or _cache_file(players, mine, settings.seeds)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, gzip.compress(text.encode(), mtime=0))
    return path

