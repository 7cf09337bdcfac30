"""One game at a table of humans and agents: the turn logic the terminal and the web page share.

A :class:`PlaySession` holds the game, the spec of each seat (``"human"`` for a person) and the
agent of every other seat. Invariants:

* every action a human plays is checked against ``game.legal_actions()`` before it is applied: the
  session never decides what is legal, it only refuses what the engine does not list
  (:class:`PlayError`, whose message says what is wrong);
* :meth:`PlaySession.undo` takes back the current human's own decisions of the current turn only,
  one at a time; once the turn has passed to the next player nothing can be undone;
* a saved game (:meth:`PlaySession.document`) is ``{"format", "seats", "record", "scores",
  "finished"}`` with ``record`` a :class:`~carcassonne_env.engine.GameRecord` document: ``carcassonne
  replay`` opens it (as it opens a tournament line) and :meth:`PlaySession.from_document` resumes
  it, replaying the record to the identical position;
* a save never replaces what a user wrote (:class:`SaveGuard`): a file that is not a table's save
  is never written over, another game's save only with ``force``;
* the game keeps its score log (``Game.keep_score_log``) from its origin, across undo (a turn's
  start is a clone, log included) and resume (the record is replayed with the log on):
  :meth:`PlaySession.score_story` explains every point of every score (:mod:`.score_story`);
* a hint's spec is typed at the table or sent by the page: the table checks only that it is a short
  string (:func:`hint_spec`) and hands it to ``make_hint``, the trust boundary of the command that
  set the table (``carcassonne play``: :mod:`agents.hints`, a built-in agent naming no file, thought
  out in a process of its own that is stopped at the hint's cap); a hint that passed its cap raises
  ``TimeoutError``, which :func:`ask` passes on as it is.

Engine and standard library only: agents are passed in as objects with ``choose_action(game)``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .. import jsonio
from ..engine import (
    TOWER_TOP_SLOT,
    Action,
    ActionKind,
    ConfigError,
    Game,
    GameRecord,
    IllegalActionError,
    SaveError,
)
from ..viewer.palette import SEAT_NAMES
from ..viewer.snapshots import describe_action
from .choices import ROLES, segment_words
from .score_story import ScoreStory

__all__ = ["HUMAN", "MAX_HINT_SPEC", "SAVE_FORMAT", "AgentError", "Chooser", "PlayError", "PlaySession", "SaveFailed",
           "SaveGuard", "TurnNote", "hint_for", "hint_spec", "is_table_save", "option_label", "parse_placement",
           "placement_code"]

#: The seat spec of a person.
HUMAN = "human"
#: The ``format`` of a saved table.
SAVE_FORMAT = "carcassonne_env/play"
#: The longest hint spec accepted.
MAX_HINT_SPEC = 200


class Chooser(Protocol):
    """An engine-level agent (``carcassonne_env.players.EngineAgent``)."""

    def choose_action(self, game: Game) -> Action: ...


class PlayError(ValueError):
    """A request the table refuses: not a human's turn, an action the engine does not list, a bad
    code or a save file that cannot be read. The message says what is wrong."""


class AgentError(PlayError):
    """An agent at the table failed: it raised, or chose an action the engine does not list. The
    message names the agent, its seat and what went wrong, in one line."""


class SaveFailed(PlayError):
    """The game was not saved: the file is refused (:class:`SaveGuard`) or could not be written."""


def is_table_save(path: Path) -> bool:
    """``path`` is a regular file holding a game saved by a table: a JSON object whose ``format`` is
    :data:`SAVE_FORMAT` (read within the bound of :mod:`carcassonne_env.jsonio`)."""
    try:
        document = jsonio.load(path) if path.is_file() else None
    except (OSError, ValueError):  # unreadable, too large, not JSON (JSONInputError)
        return False
    return isinstance(document, dict) and document.get("format") == SAVE_FORMAT


class SaveGuard:
    """Which files a table may write its save over. Rules (docs/play.md):

    * a path where nothing exists may be written;
    * an existing file that is not a table's save (:func:`is_table_save`: a tournament's
      ``games.jsonl``, a ``GameRecord`` document, a script, a directory) is never replaced, ``force``
      or not;
    * an existing table's save is replaced when it is this game's own — the file the game was
      resumed from (:meth:`own`) or one this guard wrote — or when ``force`` is set.
    """

    def __init__(self) -> None:
        self.force = False
        self._own: set[Path] = set()

    def own(self, path: str | Path) -> None:
        """Count ``path`` as this game's own save."""
        self._own.add(Path(path).resolve())

    def refusal(self, path: str | Path) -> str | None:
        """Why ``path`` may not be written over (one line), or None when it may."""
        path = Path(path)
        if not path.exists() and not path.is_symlink():
            return None
        if not is_table_save(path):
            return (f"{path} exists and is not a game saved by carcassonne play, so it is never replaced: "
                    "choose another file (--save FILE)")
        if self.force or path.resolve() in self._own:
            return None
        return f"{path} holds another game's save: choose another file (--save FILE), or --force to replace it"

    def check(self, path: str | Path) -> None:
        """Raise :class:`SaveFailed` with :meth:`refusal` when ``path`` may not be written over."""
        refusal = self.refusal(path)
        if refusal is not None:
            raise SaveFailed(refusal)

    def write(self, path: str | Path, text: str, *, elsewhere: bool = False) -> Path:
        """Write ``text`` to ``path`` atomically (a fresh temporary file renamed over it) when the rules
        allow; with ``elsewhere``, a refused ``path`` gives way to the first free ``STEM-N.SUFFIX``
        beside it (a game's last save is not lost to a file another game wrote meanwhile). Returns
        the path written; raises :class:`SaveFailed` naming the file."""
        path = Path(path)
        base, n = path, 2
        while elsewhere and self.refusal(path) is not None:
            path, n = base.with_name(f"{base.stem}-{n}{base.suffix}"), n + 1
        self.check(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as e:
            raise SaveFailed(f"could not save the game to {path}: {e.strerror or e}") from None
        self.own(path)
        return path


def hint_spec(spec: object) -> str:
    """``spec`` stripped when it is a non-empty string of at most :data:`MAX_HINT_SPEC` characters;
    else :class:`PlayError`. What it may name is the hint maker's to decide (module docstring)."""
    text = spec.strip() if isinstance(spec, str) else ""
    if text and len(text) <= MAX_HINT_SPEC:
        return text
    shown = repr(spec) if len(repr(spec)) <= 80 else repr(spec)[:77] + "..."
    raise PlayError(f"{shown} is not a hint agent: give an agent spec of at most {MAX_HINT_SPEC} characters "
                    "(e.g. greedy, mcts:sims=50)")


def ask(agent: Chooser, game: Game, who: str) -> Action:
    """``agent``'s action for ``game`` (it is given a copy); :class:`AgentError` naming ``who`` when it
    fails or chooses an action the engine does not list."""
    try:
        action = agent.choose_action(game.clone())
    except TimeoutError:  # a hint stopped at its cap: the caller says so
        raise
    except Exception as e:
        raise AgentError(f"{who} failed: {type(e).__name__}: {e}") from e
    if action not in game.legal_actions():
        raise AgentError(f"{who} chose an illegal action {action}")
    return Action.coerce(action)


def hint_for(game: Game, agent: Chooser) -> tuple[Action, str]:
    """What ``agent`` would play in ``game``, and that in words (:func:`ask`)."""
    action = ask(agent, game, "the hint's agent")
    return action, option_label(game, action)


@dataclass(frozen=True)
class TurnNote:
    """A decision taken at the table: the seat, the turn (1-based) and the action in words."""

    seat: int
    turn: int
    action: Action
    words: str


def placement_code(action: Action) -> str:
    """The short code of a PLACE action: ``x,y rR`` (e.g. ``3,-1 r2``, rotation in quarter turns
    clockwise)."""
    return f"{action.x},{action.y} r{action.arg}"


#: describe_action's verbs (past tense, the replay's) as a choice's (present tense).
_PRESENT = (("built ", "build "), ("passed ", "pass "), ("captured ", "capture "), ("took back ", "take back "),
            ("paid ", "pay "), ("placed ", "place "))
#: describe_action's past-tense endings, likewise.
_PRESENT_ENDINGS = ((" and capped it for good", " and cap it for good"),)
_CODE = re.compile(r"^\s*\(?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\)?\s*(?:r?\s*(\d+))?\s*$", re.IGNORECASE)


def parse_placement(text: str, legal: Sequence[Action]) -> Action:
    """The legal PLACE action named by ``text``: ``x,y rR`` (also ``x,y R``, ``x y rR``), or ``x,y``
    alone when the tile fits there in one rotation only. Raises :class:`PlayError` naming the
    problem (a malformed code, a spot where the tile does not fit, a rotation it does not fit in)."""
    m = _CODE.match(text)
    if m is None:
        raise PlayError(f"{text.strip()!r} is not a placement: type x,y and a rotation, e.g. "
                        f"{placement_code(legal[0]) if legal else '1,0 r0'}")
    x, y = int(m.group(1)), int(m.group(2))
    here = [a for a in legal if a.kind == ActionKind.PLACE and (a.x, a.y) == (x, y)]
    if not here:
        raise PlayError(f"the tile cannot go at ({x},{y}): choose one of the listed spots")
    rotations = sorted(a.arg for a in here)
    if m.group(3) is None:
        if len(here) == 1:
            return here[0]
        raise PlayError(f"at ({x},{y}) the tile fits in rotations {', '.join(f'r{r}' for r in rotations)}: "
                        "add one, e.g. " + placement_code(here[0]))
    rotation = int(m.group(3))
    for a in here:
        if a.arg == rotation:
            return a
    raise PlayError(f"at ({x},{y}) the tile does not fit in rotation r{rotation}; it fits in "
                    + ", ".join(f"r{r}" for r in rotations))


def _segment_choice(game: Game, action: Action) -> str | None:
    """A DEPLOY or a CAPTURE of a follower on a segment in words naming the part of the tile
    (:func:`.choices.segment_words`) and, for a capture, whose follower it is; None for the rest."""
    kind, x, y, slot = action
    placed = game.tile_at(x, y)
    if kind not in (ActionKind.DEPLOY, ActionKind.CAPTURE) or slot == TOWER_TOP_SLOT or placed is None:
        return None
    where = f"{segment_words(placed.tile, placed.rotation, slot)} at ({x},{y})"
    role = ROLES[placed.tile.segment_kinds[slot]]
    if kind is ActionKind.DEPLOY:
        return f"put a {role} on {where}"
    owner = next(f.owner for f in game.followers() if (f.x, f.y, f.slot) == (x, y, slot))
    if owner == game.current_player:
        return f"take back your own {role} on {where}"
    return f"capture {SEAT_NAMES[owner]}'s {role} on {where}"


def option_label(game: Game, action: Action) -> str:
    """``action`` of the current player in words, without the seat's name (a menu line). A follower
    put or captured names the part of the tile (:func:`_segment_choice`): no two choices of one
    decision read alike."""
    label = _segment_choice(game, action)
    if label is not None:
        return label
    words = describe_action(game, action)
    who = SEAT_NAMES[game.current_player] + " "
    words = words[len(who):] if words.startswith(who) else words
    for past, present in _PRESENT_ENDINGS:
        words = words[:-len(past)] + present if words.endswith(past) else words
    for past, present in _PRESENT:
        if words.startswith(past):
            return present + words[len(past):]
    return words


def _with_score_log(game: Game) -> tuple[Game, Game, list[Action], tuple[int, ...]]:
    """``game`` keeping its score log from its origin: ``game`` itself when it has no history, else
    its record replayed with the log on (an identical game: the log is not saved, so a resumed game
    rebuilds it). Also the clone at the start of its current turn and the actions taken since (the
    undo point, found as :meth:`PlaySession._apply` marks it), and the scores at the origin."""
    replay = game.record().replay(0) if game.history else game
    replay.keep_score_log()
    start_scores = replay.scores
    turn_start, turn_actions = replay.clone(), list[Action]()
    for action in game.history:
        turn = replay.turn
        replay.apply(action)
        if replay.turn != turn or replay.is_over:
            turn_start, turn_actions = replay.clone(), []
        else:
            turn_actions.append(action)
    return replay, turn_start, turn_actions, start_scores


class PlaySession:
    """The table: ``game`` (a replay of the one given when that one has moves, to rebuild its score
    log), the spec of each seat and the agents of the non-human seats (module docstring for the invariants)."""

    def __init__(self, game: Game, seats: Sequence[str], agents: Sequence[Chooser | None]) -> None:
        if len(seats) != game.num_players or len(agents) != game.num_players:
            raise PlayError(f"{len(seats)} seats for a {game.num_players}-player game")
        for s, (spec, agent) in enumerate(zip(seats, agents, strict=True)):
            if (spec == HUMAN) != (agent is None):
                raise PlayError(f"seat {s}: a human seat has no agent and every other seat has one")
        self.seats = tuple(seats)
        self.agents = tuple(agents)
        #: The files this table may save over (a resumed table owns the file it was resumed from).
        self.saves = SaveGuard()
        self.game, self._turn_start, self._turn_actions, self._start_scores = _with_score_log(game)

    # ------------------------------------------------------------------ state
    def is_human(self, seat: int) -> bool:
        return self.seats[seat] == HUMAN

    @property
    def waiting_for_human(self) -> bool:
        """The game runs and the current decision is a human's."""
        return not self.game.is_over and self.is_human(self.game.current_player)

    @property
    def can_undo(self) -> bool:
        """The current human has taken decisions this turn that can still be taken back."""
        return self.waiting_for_human and bool(self._turn_actions)

    def seat_name(self, seat: int) -> str:
        return f"{SEAT_NAMES[seat]} ({self.seats[seat]})"

    def _mark_turn_start(self) -> None:
        """Remember the position at the start of the current turn (the undo point)."""
        self._turn_start, self._turn_actions = self.game.clone(), []

    def score_story(self) -> ScoreStory:
        """Every score change of the game so far, and the breakdown by category that sums to the scores."""
        return ScoreStory(self.game.score_log, self._start_scores, self.game.is_over)

    # ------------------------------------------------------------------ moves
    def _apply(self, action: Action) -> TurnNote:
        game = self.game
        seat, turn = game.current_player, game.turn
        words = describe_action(game, action)
        game.apply(action)
        if game.turn != turn or game.is_over:
            self._mark_turn_start()
        else:
            self._turn_actions.append(action)
        return TurnNote(seat, turn + 1, action, words)

    def play(self, action: Action | Sequence[Any]) -> TurnNote:
        """Apply a human's ``action``; refused (:class:`PlayError`) unless it is a human's turn and
        the engine lists the action as legal."""
        if self.game.is_over:
            raise PlayError("the game is over")
        if not self.waiting_for_human:
            raise PlayError(f"it is not a human's turn: {self.seat_name(self.game.current_player)} decides")
        if isinstance(action, Action):
            chosen = action
        else:
            try:
                chosen = Action.coerce(action)
            except IllegalActionError as e:
                raise PlayError(str(e)) from None
        if chosen not in self.game.legal_actions():
            raise PlayError(f"{chosen} is not a legal action now (the decision is {self.game.phase.name}; "
                            f"{len(self.game.legal_actions())} legal actions)")
        return self._apply(chosen)

    def agent_step(self) -> TurnNote:
        """Let the agent of the current seat take one decision; refused on a human's turn."""
        game = self.game
        if game.is_over:
            raise PlayError("the game is over")
        agent = self.agents[game.current_player]
        if agent is None:
            raise PlayError(f"it is a human's turn: {self.seat_name(game.current_player)} decides")
        seat = game.current_player
        return self._apply(ask(agent, game, f"agent {self.seats[seat]!r} (seat {seat}, {SEAT_NAMES[seat]})"))

    def run_agents(self) -> list[TurnNote]:
        """Let the agents play until a human decides or the game is over."""
        notes = []
        while not self.game.is_over and not self.waiting_for_human:
            notes.append(self.agent_step())
        return notes

    def notes(self) -> list[TurnNote]:
        """Every decision of the game so far, replayed from its record (a resumed game's log)."""
        record = self.game.record()
        replay = record.replay(0)
        notes = []
        for action in record.actions:
            notes.append(TurnNote(replay.current_player, replay.turn + 1, action, describe_action(replay, action)))
            replay.apply(action)
        return notes

    def undo(self) -> Action:
        """Take back the current human's last decision of this turn; returns it (:meth:`undo_label`
        says it in words). Refused when the turn has no such decision (it is not undone across turns)."""
        if not self.can_undo:
            raise PlayError("nothing to undo: no decision of yours this turn can be taken back")
        kept = self._turn_actions[:-1]
        undone = self._turn_actions[-1]
        game = self._turn_start.clone()
        for action in kept:
            game.apply(action)
        self.game, self._turn_actions = game, kept
        return undone

    def undo_label(self, undone: Action) -> str:
        """The decision :meth:`undo` just took back, in words (a placement with its code)."""
        label = option_label(self.game, undone)
        return f"{label} ({placement_code(undone)})" if undone.kind == ActionKind.PLACE else label

    def hint(self, agent: Chooser) -> tuple[Action, str]:
        """What ``agent`` would play now (on a copy of the game), and that in words."""
        if self.game.is_over:
            raise PlayError("the game is over")
        return hint_for(self.game, agent)

    # ------------------------------------------------------------------ saving
    def document(self) -> dict[str, Any]:
        """The saved table (module docstring): replayable and resumable."""
        return {"format": SAVE_FORMAT, "seats": list(self.seats), "record": self.game.record().to_dict(),
                "scores": list(self.game.scores), "finished": self.game.is_over}

    def save(self, path: str | Path, *, elsewhere: bool = False) -> Path:
        """Write :meth:`document` to ``path`` as :attr:`saves` allows (:meth:`SaveGuard.write`, whose
        ``elsewhere`` this passes on); returns the path written, raises :class:`SaveFailed`."""
        return self.saves.write(path, json.dumps(self.document(), indent=1) + "\n", elsewhere=elsewhere)

    @staticmethod
    def read_document(path: str | Path) -> tuple[Game, tuple[str, ...] | None]:
        """The game of a saved table, a ``Game.to_dict`` save or a ``GameRecord`` document, and the
        seat specs when the file names them. Raises :class:`PlayError` naming the file."""
        try:
            data = jsonio.load(path)  # within jsonio's bound: deep nesting, huge numbers, /dev/zero refused
        except FileNotFoundError:
            raise PlayError(f"{path}: no such file") from None
        except OSError as e:
            raise PlayError(f"{path}: cannot read a saved game ({e})") from None
        except jsonio.JSONInputError as e:
            raise PlayError(f"cannot read a saved game: {e}") from None
        if not isinstance(data, Mapping):
            raise PlayError(f"{path}: not a saved game (expected a JSON object)")
        try:
            if "record" in data:
                if not isinstance(data["record"], Mapping):
                    raise PlayError(f"{path}: not a valid saved game: 'record' must be a JSON object (a game record), "
                                    f"got {json.dumps(data['record'])[:40]}")
                game = GameRecord.from_dict(dict(data["record"])).replay()
                seats = data.get("seats")
                if seats is not None and (not isinstance(seats, list) or not all(isinstance(s, str) for s in seats)):
                    raise PlayError(f"{path}: 'seats' must be a list of agent specs")
                return game, None if seats is None else tuple(seats)
            if "format" in data:
                return Game.from_dict(dict(data)), None
            return GameRecord.from_dict(dict(data)).replay(), None
        except PlayError:
            raise
        except (ConfigError, SaveError, IllegalActionError, KeyError, TypeError, ValueError) as e:
            raise PlayError(f"{path}: not a valid saved game: {e}") from None

    @classmethod
    def resume(cls, path: str | Path, seats: Sequence[str] | None,
               make: Callable[[Game, int, str], Chooser | None]) -> PlaySession:
        """The table saved in ``path``; ``seats`` (when given) replace the saved seat specs;
        ``make(game, seat, spec)`` builds each seat's agent (None for a human)."""
        game, saved = cls.read_document(path)
        chosen = tuple(seats) if seats else saved
        if chosen is None:
            raise PlayError(f"{path}: the file names no seats: give the {game.num_players} agent specs")
        if len(chosen) != game.num_players:
            raise PlayError(f"{path}: a {game.num_players}-player game, but {len(chosen)} seats were given")
        session = cls(game, chosen, [make(game, s, spec) for s, spec in enumerate(chosen)])
        session.saves.own(path)
        return session
