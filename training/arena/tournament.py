"""Run a tournament: play its schedule on a back-end (worker processes or Ray tasks:
:mod:`training.arena.backends`), append every game to a JSONL file as it finishes, resume by skipping
finished games, stop early on an SPRT decision.

Files in the output directory (docs/tournament.md):

* ``tournament.json``: the settings that define the schedule; a resume must match them;
* ``games.jsonl``: one finished game per line: ``index``, ``group``, ``seats``, ``seed``,
  ``scores``, ``ranks``, decision counts and seconds per seat, and its replayable ``record``
  (:class:`~carcassonne_env.engine.GameRecord`); lines are whole or dropped on resume.

The reports (tables, CSV, JSON, PNG) are written by :mod:`training.arena.report`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from carcassonne_env.engine import GameConfig

from .backends import Backend, make_backend, single_threaded
from .match import MatchResult
from .ratings import Sprt, sprt
from .schedule import Fixture, gauntlet, round_robin

__all__ = [
    "GAMES_FILE", "SETTINGS_FILE", "Settings", "TournamentError", "load_games", "play_fixtures", "run",
    "single_threaded",
]

SETTINGS_FILE = "tournament.json"
GAMES_FILE = "games.jsonl"


class TournamentError(ValueError):
    """The tournament cannot run as asked (settings, output directory, resume mismatch)."""


@dataclass(frozen=True)
class Settings:
    """What defines a tournament's games. ``mode`` is ``round_robin`` or ``gauntlet`` (candidate =
    ``agents[0]``, field = the rest); seeds are ``first_seed .. first_seed + seeds - 1``; ``sprt`` is
    ``(elo0, elo1, alpha, beta)`` for a 2-agent, 2-player match, or None."""

    agents: tuple[str, ...]
    mode: str = "round_robin"
    seeds: int = 10
    first_seed: int = 0
    config: dict[str, Any] = field(default_factory=lambda: GameConfig().to_dict())
    sprt: tuple[float, float, float, float] | None = None

    @property
    def game_config(self) -> GameConfig:
        return GameConfig.from_dict(self.config)

    def fixtures(self) -> list[Fixture]:
        seeds = list(range(self.first_seed, self.first_seed + self.seeds))
        players = self.game_config.players
        if self.mode == "round_robin":
            return round_robin(self.agents, players, seeds)
        if self.mode == "gauntlet":
            return gauntlet(self.agents[0], self.agents[1:], players, seeds)
        raise TournamentError(f"mode: must be round_robin or gauntlet, got {self.mode!r}")

    def check(self) -> None:
        """Raise :class:`TournamentError` for settings that cannot run."""
        if self.seeds < 1:
            raise TournamentError(f"seeds: must be at least 1, got {self.seeds}")
        if self.sprt is not None and (len(self.agents) != 2 or self.game_config.players != 2):
            raise TournamentError("sprt: needs exactly 2 agents in 2-player games")


def play_fixtures(
    config: GameConfig, fixtures: Sequence[Fixture], workers: int | None = 1, progress: bool = False, done: int = 0,
    backend: Backend | None = None,
) -> Generator[tuple[Fixture, MatchResult], None, None]:
    """Play ``fixtures`` on ``backend`` (default: the process back-end, :mod:`training.arena.backends`)
    with ``workers`` workers, yielding each as it finishes (in completion order) under one progress
    bar; closing the iterator early cancels the rest."""
    stream = (backend or make_backend("process"))(config.to_dict(), fixtures, workers)
    # disable=None: tqdm also stays silent when stderr is not a terminal (no carriage returns in logs).
    bar = tqdm(total=done + len(fixtures), initial=done, disable=None if progress else True, unit="game",
               dynamic_ncols=True)
    with bar, closing(stream):
        for f, result in stream:
            bar.update()
            yield f, MatchResult.from_dict(result)


def load_games(out: Path) -> list[dict[str, Any]]:
    """The whole lines of ``games.jsonl`` (a line cut short by a kill is dropped), one per game index."""
    path = out / GAMES_FILE
    if not path.exists():
        return []
    games: dict[int, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        try:
            game = json.loads(line)
        except json.JSONDecodeError:
            continue
        games.setdefault(int(game["index"]), game)
    return [games[i] for i in sorted(games)]


def _prepare(out: Path, settings: Settings, resume: bool) -> list[dict[str, Any]]:
    """Check ``out`` against ``settings``; the finished games to keep (rewritten whole)."""
    out.mkdir(parents=True, exist_ok=True)
    stored = out / SETTINGS_FILE
    wanted = json.loads(json.dumps(asdict(settings)))
    games = load_games(out)
    if stored.exists() and games:
        if not resume:
            raise TournamentError(f"--out {out} already holds games; pass --resume to continue it or choose "
                                  "another directory")
        previous = json.loads(stored.read_text())
        if previous != wanted:
            changed = sorted(k for k in wanted if previous.get(k) != wanted[k])
            raise TournamentError(f"--resume: {out} holds a tournament with other settings ({', '.join(changed)})")
    stored.write_text(json.dumps(wanted, indent=1) + "\n")
    tmp = out / (GAMES_FILE + ".tmp")
    tmp.write_text("".join(json.dumps(g, separators=(",", ":")) + "\n" for g in games))
    os.replace(tmp, out / GAMES_FILE)
    return games


def run(
    settings: Settings, out: Path, workers: int | None = 1, resume: bool = False, progress: bool = True,
    backend: Backend | None = None,
) -> Sprt | None:
    """Play every unfinished game of ``settings`` into ``out`` on ``backend`` (default: processes);
    the final SPRT state if one was asked."""
    settings.check()
    fixtures = settings.fixtures()
    games = _prepare(out, settings, resume)
    finished = {g["index"] for g in games}
    todo = [f for f in fixtures if f.index not in finished]
    candidate = settings.agents[0]
    pair_scores: dict[int, list[float]] = {}
    penta = [0] * 5
    for g in games:
        _count_pair(pair_scores, penta, g["group"], g["seats"], g["scores"], candidate)
    state = sprt(penta, *settings.sprt) if settings.sprt else None
    if state is not None and state.decision:
        return state
    with (out / GAMES_FILE).open("a") as sink:
        stream = play_fixtures(settings.game_config, todo, workers, progress, len(finished), backend)
        for f, result in stream:
            line = {"index": f.index, "group": f.group, **result.to_dict()}
            sink.write(json.dumps(line, separators=(",", ":")) + "\n")
            sink.flush()
            if settings.sprt and _count_pair(pair_scores, penta, f.group, result.seats, result.scores, candidate):
                state = sprt(penta, *settings.sprt)
                if state.decision:
                    stream.close()
                    break
    return state


def _count_pair(
    pair_scores: dict[int, list[float]], penta: list[int], group: int, seats: Sequence[str], scores: Sequence[int],
    candidate: str,
) -> bool:
    """Add the candidate's game score to its pair; True when that completes a seat-swapped pair."""
    mine = scores[list(seats).index(candidate)]
    other = max(s for seat, s in zip(seats, scores, strict=True) if seat != candidate)
    pair = pair_scores.setdefault(group, [])
    pair.append(1.0 if mine > other else 0.5 if mine == other else 0.0)
    if len(pair) == 2:
        penta[round(2 * sum(pair))] += 1
        return True
    return False
