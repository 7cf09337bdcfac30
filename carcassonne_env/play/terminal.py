"""Play at the terminal: the text board, the tile to place, the legal choices, typed answers.

On a human's PLACE decision the board is shown framed with its coordinates, the spots where the tile
fits marked (:mod:`.text_table`), and the legal placements are listed by spot, each with the
rotations the tile fits in; rotations that make the same placement (a symmetric tile) are joined
(``r0=r2``); the list is wrapped to the terminal's width between spots, never inside one. A
placement is chosen by a code ``x,y rR`` (:func:`~.session.parse_placement`), or ``x,y`` alone when
every rotation that fits there makes the same placement. Every later decision
(follower, floor, tower top, capture, ransom, pass) is a numbered menu of the engine's legal
actions; with ``auto_single`` (the default) a decision with one legal action only (a forced pass)
is played for the human and said in one line. The seats are named by colour and who sits there
(``Red (you)``, ``Blue (greedy)``). At any prompt:

=================  ==========================================================================
``undo``           take back your last decision of this turn (not once the turn has passed on)
``hint [SPEC]``    what a built-in agent (default ``greedy``) would play now
``board``          show the board again
``save [FILE]``    save the game (default: the save file); ``carcassonne play --resume FILE``
``quit``           save the game and stop
``help``           these commands
=================  ==========================================================================

Every score change is said as it happens, after the turn's moves: ``Blue +8: city at (1,-2),
completed``, the end-of-game scoring under its own heading; at the end a table gives each player's
points by category, summing to the final scores (:mod:`.score_story`; ``quiet`` keeps the table only).

Invariant: the choices shown are exactly ``game.legal_actions()``; an answer that names none of
them is refused with a message and asked again. End of input or Ctrl-C saves the game and stops;
an agent that fails (:class:`~.session.AgentError`) or any other error also saves it first, then
the error goes on to the caller (``carcassonne play`` prints it in one line). A resume (or replay)
command is printed only after a save that succeeded; a last save (stop, end of game) that fails
raises :class:`~.session.SaveFailed` (one line), and one refused because another game's save
appeared at the save file meanwhile goes to a free name beside it (:meth:`.SaveGuard.write`).
The streams are injectable, so tests drive a whole game through a ``StringIO``.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TextIO

from ..engine import Action, ActionKind, Phase, TileType
from ..viewer.palette import SEAT_NAMES
from .score_story import event_line
from .session import (
    HUMAN,
    Chooser,
    PlayError,
    PlaySession,
    SaveFailed,
    TurnNote,
    hint_spec,
    option_label,
    parse_placement,
    placement_code,
)
from .text_table import board_lines

__all__ = ["HELP", "TableInterrupted", "TerminalPlay", "rotation_groups"]

HELP = ("commands: undo (take back your last decision this turn), hint [SPEC] (what a built-in agent, default greedy, "
        "would play), board (show the board), save [FILE], quit (save and stop), help")


def _question(legal: Sequence[Action]) -> str:
    """The question of an ACTION decision, naming the kinds of choice the engine lists."""
    kinds = {a.kind for a in legal}
    words = [word for word, wanted in (("follower", {ActionKind.DEPLOY}),
                                       ("tower", {ActionKind.FLOOR, ActionKind.TOWER_TOP}),
                                       ("ransom", {ActionKind.RANSOM}), ("pass", {ActionKind.PASS}))
             if kinds & wanted]
    return (", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)) + "?"


def _shape(tile: TileType, rotation: int) -> tuple[object, ...]:
    """What placing ``tile`` in ``rotation`` puts on the board, whatever the rotation's number: the
    turned edge terrains and each segment's kind, pennants, turned edges and half-edges and (a field)
    the cities it borders, by their edges. Its monastery, tower foundation and watchtower do not turn,
    so two rotations of equal shape at one spot make the same position."""
    edges, halves = tile.segment_edges[rotation], tile.segment_half_edges[rotation]
    segments = range(tile.segment_count)

    def cities(s: int) -> tuple[tuple[int, ...], ...]:
        return tuple(sorted(tuple(sorted(edges[c])) for c in segments if tile.field_city_bits[s] >> c & 1))

    return (tile.edge_code[rotation], tuple(sorted(
        (int(tile.segment_kinds[s]), tile.segment_pennants[s], tuple(sorted(edges[s])), tuple(sorted(halves[s])),
         cities(s)) for s in segments)))


def rotation_groups(tile: TileType, rotations: Collection[int]) -> list[tuple[int, ...]]:
    """``rotations`` of ``tile`` grouped by the placement they make (:func:`_shape`): each group
    ascending, the groups by their first rotation."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for r in sorted(rotations):
        groups.setdefault(_shape(tile, r), []).append(r)
    return [tuple(g) for g in groups.values()]


def _spots(tile: TileType, legal: Sequence[Action]) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """The legal placements of ``tile`` by spot, each spot's rotations grouped (:func:`rotation_groups`)."""
    rotations: dict[tuple[int, int], list[int]] = {}
    for a in legal:
        rotations.setdefault((a.x, a.y), []).append(a.arg)
    return {spot: rotation_groups(tile, rs) for spot, rs in sorted(rotations.items())}


def _wrap_items(items: Sequence[str], width: int, indent: str = "  ") -> list[str]:
    """``items`` joined by ``"; "`` into lines of at most ``width`` characters, each starting with
    ``indent`` and each but the last ending with ``;``: a line breaks only between two items, never
    inside one (an item too long for a line has a line of its own, longer than ``width``)."""
    lines: list[list[str]] = []
    for item in items:
        if lines and len(indent + "; ".join([*lines[-1], item]) + ";") <= width:
            lines[-1].append(item)
        else:
            lines.append([item])
    return [indent + "; ".join(line) + (";" if k < len(lines) - 1 else "") for k, line in enumerate(lines)]


def _parse(answer: str, tile: TileType, legal: Sequence[Action]) -> Action:
    """The placement ``answer`` names (:func:`~.session.parse_placement`), also ``x,y`` alone where
    every rotation that fits makes the same placement (the lowest is played). Raises
    :class:`PlayError` with ``parse_placement``'s message otherwise."""
    try:
        return parse_placement(answer, legal)
    except PlayError as refused:
        spots = _spots(tile, legal)
        distinct = [a for a in legal if any(a.arg == group[0] for group in spots[(a.x, a.y)])]
        try:  # one action a spot and group: ``x,y`` alone names a spot whose rotations are all alike
            return parse_placement(answer, distinct)
        except PlayError:
            raise refused from None


class _Stop(Exception):
    """The human asked to stop (quit, end of input)."""


class TableInterrupted(KeyboardInterrupt):
    """A Ctrl-C at the table, already answered: the game saved and the resume command said."""


class TerminalPlay:
    """The terminal table: ``session`` played through ``stdin`` / ``stdout``, saved to ``save_path``.

    ``make_hint(spec)`` builds the agent of ``hint SPEC`` (:func:`~.session.hint_spec`; a refused spec,
    an agent's error or a hint stopped at its cap is shown, not raised; a Ctrl-C during a hint stops
    the hint, not the game).
    ``auto_single`` plays a human's decision that has one legal action only, saying so in one line.
    """

    def __init__(self, session: PlaySession, save_path: Path, make_hint: Callable[[str], Chooser],
                 stdin: TextIO | None = None, stdout: TextIO | None = None, quiet: bool = False,
                 auto_single: bool = True) -> None:
        self.session = session
        self.save_path = save_path
        self.make_hint = make_hint
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.quiet = quiet
        self.auto_single = auto_single
        self._shown: tuple[int, int] | None = None  # the decision whose board is on screen
        self._told = len(session.score_story().events)  # score events already said (a resumed game's are not)

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self) -> bool:
        """Play until the game is over (True) or the human stops (False; the game is saved); a Ctrl-C
        saves the game, says how to resume in one line and raises :class:`TableInterrupted`."""
        session = self.session
        try:
            self.say(f"seats: {', '.join(self._names())}; "
                     "type 'help' for the commands")
            while not session.game.is_over:
                if session.waiting_for_human:
                    self._human_decision()
                else:
                    self._show_notes([session.agent_step()])  # each decision's score changes follow it
                self._show_scores()
        except (_Stop, KeyboardInterrupt, EOFError) as stop:
            written = self._last_save()  # a failure goes on to the caller: no resume command
            if isinstance(stop, KeyboardInterrupt):
                self.say(f"\ninterrupted — resume with: carcassonne play --resume {written}")
                raise TableInterrupted from None
            self.say(f"resume with: carcassonne play --resume {written}")
            return False
        except BaseException:  # an agent failed (AgentError) or worse: the human's moves are kept
            try:
                written = self._last_save()
                self.say(f"resume with: carcassonne play --resume {written}")
            except SaveFailed as e:  # said, and the agent's error goes on
                self.say(str(e))
            raise
        game = session.game
        self.say(self._board())
        scores = ", ".join(f"{SEAT_NAMES[p]} {game.scores[p]}" for p in range(game.num_players))
        winners = ", ".join(self._names()[w] for w in game.winners())
        self.say(f"game over: final scores {scores}; winner {winners}")
        self.say("the scores by category:")
        self.say(session.score_story().table(self._names()))
        written = self._last_save()
        self.say(f"replay it with: carcassonne replay {written} -o game.html")
        return True

    def _names(self) -> list[str]:
        """Each seat's colour and who sits there: ``Red (you)`` for the only human seat, else the
        seat's spec (``Blue (greedy)``, ``Red (human)`` at a table of several humans)."""
        seats = self.session.seats
        alone = seats.count(HUMAN) == 1
        return [f"{SEAT_NAMES[p]} ({'you' if alone and spec == HUMAN else spec})" for p, spec in enumerate(seats)]

    def _status(self) -> str:
        """Each seat's score and followers in supply, named (:meth:`_names`), and the tiles left."""
        game = self.session.game
        parts = [f"{name} {game.scores[p]} pts, {game.supply[p]} followers" for p, name in enumerate(self._names())]
        return "; ".join(parts) + f"; {game.tiles_left} tiles left"

    def _board(self) -> str:
        """The board framed with coordinates (:func:`~.text_table.board_lines`) and the status line;
        during a human's PLACE decision, the spots where the tile fits are marked."""
        game = self.session.game
        placing = game.phase is Phase.PLACE and self.session.waiting_for_human
        spots = {(a.x, a.y) for a in game.legal_actions()} if placing else set()
        return "\n".join([*board_lines(game, self._names(), spots), self._status()])

    def _save(self, path: Path | None = None) -> None:
        """The ``save [FILE]`` command: a refusal or failure is said, and the game goes on."""
        try:
            self.say(f"saved the game to {self.session.save(path or self.save_path)}")
        except SaveFailed as e:
            self.say(f"not saved: {e}")

    def _last_save(self) -> Path:
        """Save before stopping, to the save file or (refused meanwhile) a free name beside it; says
        where and returns it. Raises :class:`SaveFailed` when nothing could be written."""
        written = self.session.save(self.save_path, elsewhere=True)
        kept = f" ({self.save_path} is not this game's save and is kept)" if written != self.save_path else ""
        self.say(f"saved the game to {written}{kept}")
        return written

    def _show_notes(self, notes: list[TurnNote]) -> None:
        if self.quiet:
            return
        for note in notes:
            self.say(f"turn {note.turn}: {note.words} [{self.session.seats[note.seat]}]")

    def _show_scores(self) -> None:
        """Say the score changes since the last call, one line each (who, how many, why, where), the
        end-of-game scoring under its own heading. An undo that took changes back is not said again."""
        events = self.session.score_story().events
        new, self._told = events[min(self._told, len(events)):], len(events)
        if self.quiet:
            return
        for final in (False, True):
            lines = [event_line(e) for e in new if e.final is final]
            if final and lines:
                self.say("end-of-game scoring:")
            for line in lines:
                self.say(f"  {line}")

    def _ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise EOFError
        return line.strip()

    def _human_decision(self) -> None:
        session = self.session
        game = session.game
        legal = game.legal_actions()
        who = f"{self._names()[game.current_player]}, turn {game.turn + 1}"
        if self.auto_single and len(legal) == 1:
            self.say(f"{who}: {option_label(game, legal[0])} — the only choice, played for you")
            session.play(legal[0])
        elif game.phase is Phase.PLACE:
            self._place(who, legal)
        else:
            self._menu(who, legal)

    def _place(self, who: str, legal: Sequence[Action]) -> None:
        """A PLACE decision: the board (once a decision), the tile, the legal spots and their rotations
        (alike ones joined, :func:`rotation_groups`) wrapped to the terminal's width between spots
        (:func:`_wrap_items`), then one answer: a placement or a command."""
        session = self.session
        game = session.game
        tile = game.current_tile
        assert tile is not None
        if self._shown != (id(game), len(game.history)):
            self._shown = (id(game), len(game.history))
            self.say()
            self.say(self._board())
        self.say(f"{who}: place “{tile.name}” ({tile.id}); {game.tiles_left} more in the pile")
        spots = _spots(tile, legal)
        alike = "; r0=r2: the same placement, and a spot with one choice needs no rotation" if any(
            len(group) > 1 for groups in spots.values() for group in groups) else ""
        width = shutil.get_terminal_size().columns
        self.say(textwrap.fill(f"legal placements (x,y: rotations, quarter turns clockwise{alike}):", width,
                               break_long_words=False, break_on_hyphens=False))
        self.say("\n".join(_wrap_items([f"{x},{y}: {' '.join('='.join(f'r{r}' for r in group) for group in groups)}"
                                       for (x, y), groups in spots.items()], width)))
        answer = self._ask(f"placement (e.g. {placement_code(legal[0])}) or command> ")
        if self._command(answer):
            return
        try:
            session.play(_parse(answer, tile, legal))
        except PlayError as e:
            self.say(f"not accepted: {e}")

    def _menu(self, who: str, legal: Sequence[Action]) -> None:
        """A later decision of the turn: a numbered menu of the legal actions, one answer."""
        session = self.session
        game = session.game
        question = "capture a follower?" if game.phase is Phase.CAPTURE else _question(legal)
        self.say(f"{who}: {question}")
        for i, a in enumerate(legal, 1):
            self.say(f"  {i}. {option_label(game, a)}")
        answer = self._ask(f"choice 1-{len(legal)} or command> ")
        if self._command(answer):
            return
        try:
            number = int(answer)
        except ValueError:
            self.say(f"not accepted: {answer!r} is not a number from 1 to {len(legal)} nor a command ('help')")
            return
        if not 1 <= number <= len(legal):
            self.say(f"not accepted: {number} is not between 1 and {len(legal)}")
            return
        session.play(legal[number - 1])

    def _command(self, answer: str) -> bool:
        """Carry out a command; True when ``answer`` was one (or empty)."""
        word, _, rest = answer.partition(" ")
        word, rest = word.lower(), rest.strip()
        session = self.session
        if not answer or word in ("help", "?"):
            self.say(HELP)
        elif word == "board":
            self.say(self._board())
        elif word == "undo":
            try:
                undone = session.undo()
            except PlayError as e:
                self.say(str(e))
            else:
                self.say(f"undone: {session.undo_label(undone)}")
        elif word == "hint":
            spec = rest or "greedy"
            try:
                agent = self.make_hint(hint_spec(spec))
                action, words = session.hint(agent)
            except KeyboardInterrupt:  # the hint's Ctrl-C: its thinking is stopped, the game goes on
                self.say("hint stopped (Ctrl-C); the game goes on")
            except (PlayError, ValueError, TimeoutError) as e:  # a refused spec or option, a failure, the cap
                self.say(f"no hint: {e}")
            else:
                code = placement_code(action) if session.game.phase is Phase.PLACE else self._number(action)
                self.say(f"hint ({spec}): {words} — type {code}")
        elif word == "save":
            self._save(Path(rest) if rest else None)
        elif word in ("quit", "exit"):
            raise _Stop
        else:
            return False
        return True

    def _number(self, action: Action) -> str:
        legal = self.session.game.legal_actions()
        return str(list(legal).index(action) + 1) if action in legal else str(action)
