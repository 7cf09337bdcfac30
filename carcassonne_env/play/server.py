"""The table in the browser: a localhost server (``http.server``) with one page and JSON endpoints.

The page (``viewer/static/play.html``, ``play.js``, ``play.css``) draws with the replay viewer's
code (``draw.js``, the tile symbols of :mod:`~carcassonne_env.viewer.tile_svg`, the frames of
:mod:`~carcassonne_env.viewer.snapshots`) and ships everything it needs: no network.

==========================  ==================================================================
``GET /``                   the page
``GET /api/state``          the state (below)
``POST /api/act``           ``{"action": [kind, x, y, arg]}``: a human's decision
``POST /api/agent``         the agent of the current seat takes one decision
``POST /api/undo``          take back the human's last decision of this turn
``POST /api/hint``          ``{"agent": SPEC}`` (default greedy, a built-in agent): what it would play
``POST /api/save``          save the game to the save file
==========================  ==================================================================

Only the page the server served can use it (docs/play.md, "Security"):

* every request must name the server's own loopback address and port in ``Host``
  (``127.0.0.1:PORT`` or ``localhost:PORT``), and its ``Origin``, when sent, must be the page's
  own: another name (DNS rebinding) or another site's page is answered 403;
* every API request carries the session's token (:data:`TOKEN_HEADER`), a secret drawn when the
  server starts and written only into the page; a POST declares ``Content-Type:
  application/json``: a cross-site form or ``text/plain`` POST is answered 403 / 415;
* a hint's spec is a short string (:func:`~.session.hint_spec`) that ``make_hint`` turns into an
  agent, the trust boundary of the command that serves the table (``carcassonne play``:
  :mod:`agents.hints`, a built-in agent naming no file): no file path or module from a request is
  ever imported or read;
* a request arrives whole within :data:`REQUEST_SECONDS` of its first byte, its request line,
  headers and body together, however slowly it trickles, and never stalls for
  :data:`SOCKET_TIMEOUT` (:class:`_RequestReader`): else it is answered 408 and the connection
  closed (a connection that sends nothing is closed unanswered); a body is read up to
  :data:`MAX_BODY` bytes (413 beyond), parsed with :mod:`carcassonne_env.jsonio` (nesting too
  deep: 400); a client that goes away prints nothing;
* a hint is thought out in a thread of its own, on a copy of the game, within ``hint_seconds``:
  the table answers ``GET /api/state`` meanwhile, and a hint that overruns is answered 503 "the
  hint took too long". ``carcassonne play``'s hint agents think in a process that is killed at that
  cap (:mod:`agents.hints`: CPU and memory released at once), so the next hint works at once; the
  answer waits up to :data:`HINT_GRACE` more for the hint to end, and no other hint starts until it has.

The state is ``{"frame", "tiles", "waiting", "placements", "options", "can_undo", "tiles_left",
"log", "saved", "current", "decisions", "scores_explained"}``: ``frame`` as a replay frame, ``tiles`` the placed tiles
``[x, y, symbol, id]`` in placement order, ``decisions`` the length of the game's history,
``waiting`` one of ``human`` / ``agent`` / ``over``, and on a human's decision
the engine's legal actions: ``placements`` ``[x, y, [rotations]]`` at a PLACE decision, else
``options`` ``{"action", "label", "point", "marker", "feature"}``: ``label`` names the part of
the tile and, for a capture, whose follower (no two labels of a decision alike); ``point`` is what
its numbered marker points at on the board, in board SVG units, or null; ``marker`` says what is
there (:func:`_marker`: ``spot``, ``follower``, ``tower`` or null; the page lays the markers out
beside followers and towers, never over them); ``feature`` is what the choice joins or takes,
``[x, y, [flat sub-cells]]`` per tile (:func:`_feature`), highlighted while the choice is hovered.
``scores_explained`` is every score change so far and each player's points by category, summing
to the scores (:meth:`.ScoreStory.to_json`).

Invariant: the server applies only actions that ``game.legal_actions()`` lists, on a human's turn;
anything else (malformed JSON, a missing or mistyped field, an illegal action, the wrong turn, an
unknown path, a request refused above) is answered with HTTP 400 (403, 404, 408, 413, 415 as
above) and ``{"error": message}`` naming what is wrong, and changes nothing. An agent at the table
that fails (:class:`~.session.AgentError`), or any other error, is answered with HTTP 500 and
``{"error": message}`` naming the agent and its seat, after the game is saved (a hint's agent that
fails: 500, and nothing to save). The finished game is saved (a record ``carcassonne replay`` opens).
"""

from __future__ import annotations

import hmac
import io
import json
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, wait
from concurrent.futures import TimeoutError as HintTimeout
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import jsonio
from ..engine import TOWER_TOP_SLOT, Action, ActionKind, Game, Phase
from ..viewer.page import fill_page, static_text, tile_symbols
from ..viewer.palette import FLOOR_COLOURS, SEAT_COLOURS, SEAT_NAMES, css
from ..viewer.snapshots import frame
from ..viewer.tile_svg import SIZE, follower_point, symbol_id, tile_svg, watchtower_legend
from .choices import FeatureCells, feature_cells
from .session import (
    AgentError,
    Chooser,
    PlayError,
    PlaySession,
    SaveFailed,
    TurnNote,
    hint_for,
    hint_spec,
    option_label,
)

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["DEFAULT_PORT", "HINT_GRACE", "HINT_SECONDS", "MAX_BODY", "REQUEST_SECONDS", "SOCKET_TIMEOUT",
           "TOKEN_HEADER", "PlayServer", "page_html", "serve"]

#: The port :func:`serve` listens on when none is given (``carcassonne play --web`` without ``--port``).
DEFAULT_PORT = 8765
#: The largest request body accepted, in bytes.
MAX_BODY = 64 * 1024
#: The request header that carries the session's token (written only into the page).
TOKEN_HEADER = "X-Carcassonne-Token"
#: The longest a hint thinks, in seconds, before it is answered "the hint took too long" (the
#: default of ``carcassonne play --hint-seconds``, which caps the hint's own process likewise).
HINT_SECONDS = 10.0
#: Seconds a hint past its cap is given to end before the answer (a capped hint process ends at once).
HINT_GRACE = 2.0
#: The longest one request may take to arrive, in seconds, from its first byte to the end of its body
#: (request line, headers and body together), before it is answered 408.
REQUEST_SECONDS = 10.0
#: The longest the server waits on a connection at a time, in seconds: for a request's first byte,
#: between two of its bytes (408 then), and for the client to take an answer.
SOCKET_TIMEOUT = 10.0
#: The paths served without the token: the page itself (which holds it) and its icon.
_OPEN_PATHS = ("/", "/index.html", "/favicon.ico")
_LOG = 12
_UNDONE = "undone: "

#: An answer: the HTTP status and the JSON body.
Answer = tuple[int, dict[str, Any]]


def page_html(session: PlaySession, title: str, token: str) -> str:
    """The play page: the static files, every tile symbol of the game's catalogue in every
    rotation, the legend of the watchtower discs (:func:`~..viewer.tile_svg.watchtower_legend`),
    the seats and the session's ``token`` (sent back in :data:`TOKEN_HEADER`) as JSON
    (assembled as the replay page is: :func:`~..viewer.page.fill_page`)."""
    game = session.game
    symbols = {symbol_id(t, r): tile_svg(t, r) for t in game.catalogue.types for r in range(4)}
    discs, legend = watchtower_legend(game.config)
    symbols.update(discs)
    data = {
        "title": title, "size": SIZE, "expansions": list(game.config.expansions), "watchtowers": legend,
        "players": [{"name": SEAT_NAMES[p], "agent": session.seats[p], "colour": css(SEAT_COLOURS[p])}
                    for p in range(game.num_players)],
        "floor_colours": [css(FLOOR_COLOURS[c]) for c in sorted(FLOOR_COLOURS)],
        "token": token, "token_header": TOKEN_HEADER,
    }
    return fill_page("play.html", css=static_text("page.css") + "\n" + static_text("play.css"),
                     js=static_text("draw.js") + "\n" + static_text("play.js"), symbols=tile_symbols(symbols),
                     title=title, data=data)


def _point(game: Game, action: Action) -> list[int] | None:
    """Where on the board (SVG units) a choice's marker goes: the follower's spot of a DEPLOY or
    CAPTURE, the tower of a FLOOR, TOWER_TOP or capture from a tower top; None for the rest."""
    kind, x, y, arg = action
    if kind in (ActionKind.FLOOR, ActionKind.TOWER_TOP) or (kind is ActionKind.CAPTURE and arg == TOWER_TOP_SLOT):
        return [x * SIZE + SIZE // 2, -y * SIZE + SIZE // 2]
    if kind in (ActionKind.DEPLOY, ActionKind.CAPTURE):
        placed = game.tile_at(x, y)
        if placed is not None:
            px, py = follower_point(placed.tile, placed.rotation, arg)
            return [x * SIZE + px, -y * SIZE + py]
    return None


def _marker(action: Action) -> str | None:
    """What a choice's marker points at: ``"spot"`` (a free spot a follower goes on),
    ``"follower"`` (the follower a capture takes, on a segment or on top of a tower), ``"tower"``
    (a tower to build on or close), or None (no marker)."""
    kind = action.kind
    if kind is ActionKind.CAPTURE:
        return "follower"
    return {ActionKind.DEPLOY: "spot", ActionKind.FLOOR: "tower", ActionKind.TOWER_TOP: "tower"}.get(kind)


def _feature(game: Game, action: Action) -> FeatureCells | None:
    """What a choice joins or takes, drawn when it is hovered: the whole feature of a DEPLOY's or
    a capture's segment (:func:`~.choices.feature_cells`), the tower's tile for a tower's choice
    (its nine sub-cells), else None."""
    kind, x, y, arg = action
    if kind in (ActionKind.FLOOR, ActionKind.TOWER_TOP) or (kind is ActionKind.CAPTURE and arg == TOWER_TOP_SLOT):
        return [(x, y, list(range(9)))]
    if kind in (ActionKind.DEPLOY, ActionKind.CAPTURE):
        return feature_cells(game, x, y, arg)
    return None


class _HTTPServer(ThreadingHTTPServer):
    """A threading HTTP server (daemon threads) that prints no traceback for a client that went
    away or stalled; anything else a handler let through is one line on stderr."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):  # a broken pipe, a reset, a stall: the client's
            return
        print(f"carcassonne play: a request failed: {type(error).__name__}: {error}", file=sys.stderr)


class _Late(Exception):
    """A request that did not arrive in time (:class:`_RequestReader`): answered 408, its connection closed."""


class _RequestReader(io.RawIOBase):
    """The bytes of a connection (one request: the server speaks HTTP/1.0), read with two bounds: each
    read waits at most ``stall`` seconds, and none goes past the request's deadline, ``total`` seconds
    after its first byte arrived. A read that passes either raises :class:`_Late` saying which (before
    the first byte, TimeoutError: an idle connection, closed unanswered). The socket's timeout is
    ``stall`` again after each read, for the answer's writes."""

    def __init__(self, connection: socket.socket, stall: float, total: float) -> None:
        self._connection, self._stall, self._total = connection, stall, total
        self._deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        limit = self._stall if self._deadline is None else min(self._stall, self._deadline - time.monotonic())
        if limit <= 0:
            raise _Late(f"the request did not arrive within {self._total:g} s")
        self._connection.settimeout(limit)
        try:
            size = self._connection.recv_into(buffer)
        except TimeoutError:
            if self._deadline is None:
                raise
            raise _Late(f"the request did not arrive within {self._total:g} s" if limit < self._stall
                        else f"the request stalled: nothing arrived for {self._stall:g} s") from None
        finally:
            self._connection.settimeout(self._stall)
        if size and self._deadline is None:
            self._deadline = time.monotonic() + self._total
        return size


class PlayServer:
    """``session`` served on ``host:port`` (0: any free port); saved to ``save_path``. ``make_hint``
    builds a hint's agent from its spec (a ValueError refuses it). ``hint_seconds`` caps a hint,
    ``request_seconds`` a request's arrival and ``socket_timeout`` each
    wait on the connection (module docstring)."""

    def __init__(self, session: PlaySession, save_path: Path, make_hint: Callable[[str], Chooser],
                 host: str = "127.0.0.1", port: int = 0, *,
                 hint_seconds: float = HINT_SECONDS, request_seconds: float = REQUEST_SECONDS,
                 socket_timeout: float = SOCKET_TIMEOUT) -> None:
        self.session = session
        self.save_path = save_path
        self.make_hint = make_hint
        self.hint_seconds = hint_seconds
        #: The session's secret: written into the page, required on every API request.
        self.token = secrets.token_urlsafe(32)
        self.saved: str | None = None
        self.log: list[str] = [self._line(note) for note in session.notes()]  # a resumed game's moves
        self._lock = threading.Lock()
        self._hint_thinking: Future[tuple[Action, str]] | None = None
        title = "Carcassonne: " + " vs ".join(session.seats)
        self._page = page_html(session, title, self.token).encode("utf-8")
        self.httpd = _HTTPServer((host, port), self._handler(socket_timeout, request_seconds))
        bound = self.httpd.server_address[1]
        self._hosts = frozenset(f"{name.lower()}:{bound}" for name in (host, "127.0.0.1", "localhost"))
        self._origins = frozenset(f"http://{address}" for address in self._hosts)
        self._thread: threading.Thread | None = None
        if session.game.is_over:
            self._save()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> PlayServer:
        """Serve in a background thread (tests); :meth:`stop` ends it."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)  # quick to stop
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    # ------------------------------------------------------------------ state and requests
    def state(self) -> dict[str, Any]:
        """The state the page draws (module docstring)."""
        session, game = self.session, self.session.game
        last = self.log[-1] if self.log else "The start tile lies on the board."
        data: dict[str, Any] = {
            "frame": frame(game, last, -1 if game.is_over else game.current_player, game.turn, []),
            "tiles": [[t.x, t.y, symbol_id(t.tile, t.rotation), t.tile.id] for t in game.tiles()],
            "waiting": "over" if game.is_over else "human" if session.waiting_for_human else "agent",
            "placements": [], "options": [], "can_undo": session.can_undo, "tiles_left": game.tiles_left,
            "log": self.log[-_LOG:], "saved": self.saved, "current": game.current_player,
            "decisions": len(game.history), "scores_explained": session.score_story().to_json(),
        }
        if session.waiting_for_human:
            legal = game.legal_actions()
            if game.phase is Phase.PLACE:
                spots: dict[tuple[int, int], list[int]] = {}
                for a in legal:
                    spots.setdefault((a.x, a.y), []).append(int(a.arg))
                data["placements"] = [[x, y, sorted(r)] for (x, y), r in spots.items()]
            else:
                data["options"] = [{"action": [int(v) for v in a], "label": option_label(game, a),
                                    "point": _point(game, a), "marker": _marker(a),
                                    "feature": _feature(game, a)} for a in legal]
        return data

    def _line(self, note: TurnNote) -> str:
        return f"turn {note.turn}: {note.words} [{self.session.seats[note.seat]}]"

    def _note(self, note: TurnNote) -> None:
        self.log.append(self._line(note))
        if self.session.game.is_over:
            self._save()

    def _save(self) -> None:
        """Save to the save file or, refused meanwhile, a free name beside it (:meth:`.SaveGuard.write`)."""
        self.saved = str(self.session.save(self.save_path, elsewhere=True))

    def refusal(self, method: str, path: str, headers: Mapping[str, Sequence[str]]) -> Answer | None:
        """Why a request is refused before it reaches the table (module docstring), or None.
        ``headers``: each header's values by its lower-case name (a repeated Host, Origin or token
        is refused)."""
        host, origin = headers.get("host", ()), headers.get("origin")
        if len(host) != 1 or host[0].strip().lower() not in self._hosts:
            return HTTPStatus.FORBIDDEN, {"error": f"refused: this table answers only at {self.url} "
                                                   f"(Host {_shown(host)})"}
        if origin is not None and (len(origin) != 1 or origin[0].strip().lower() not in self._origins):
            return HTTPStatus.FORBIDDEN, {"error": f"refused: a request from another page (Origin {_shown(origin)})"}
        if method == "GET" and path.split("?", 1)[0] in _OPEN_PATHS:
            return None
        token = headers.get(TOKEN_HEADER.lower(), ())
        if len(token) != 1 or not hmac.compare_digest(token[0].encode("latin-1", "replace"), self.token.encode()):
            return HTTPStatus.FORBIDDEN, {"error": f"refused: missing or wrong {TOKEN_HEADER} "
                                                   "(requests come from the table's own page)"}
        kind = headers.get("content-type", ())
        if method == "POST" and (len(kind) != 1 or kind[0].partition(";")[0].strip().lower() != "application/json"):
            return HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "refused: a request's body must be sent as "
                                                                f"Content-Type: application/json (got {_shown(kind)})"}
        return None

    def handle(self, method: str, path: str, body: bytes) -> Answer:
        """Answer one request that passed :meth:`refusal`: (status, JSON). Refusals are 400 / 404
        with ``{"error": ...}``."""
        path = path.split("?", 1)[0]
        routes: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {
            ("GET", "/api/state"): lambda _: self.state(),
            ("POST", "/api/act"): self._act,
            ("POST", "/api/agent"): self._agent,
            ("POST", "/api/undo"): self._undo,
            ("POST", "/api/save"): self._save_request,
        }
        route = routes.get((method, path))
        if route is None and (method, path) != ("POST", "/api/hint"):
            return HTTPStatus.NOT_FOUND, {"error": f"no such endpoint: {method} {path}"}
        try:
            request = _request(body) if method == "POST" else {}
        except PlayError as e:
            return HTTPStatus.BAD_REQUEST, {"error": str(e)}
        if route is None:
            return self._hint(request)  # thought out off the table's lock
        with self._lock:
            try:
                return HTTPStatus.OK, route(request)
            except AgentError as e:  # the table's fault, not the request's: the game is kept
                return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": self._saved_after(str(e))}
            except SaveFailed as e:  # not written: not the request's fault either
                return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(e)}
            except PlayError as e:
                return HTTPStatus.BAD_REQUEST, {"error": str(e)}
            except Exception as e:  # a bug: answered in JSON, the game saved, the server serves on
                return HTTPStatus.INTERNAL_SERVER_ERROR, {
                    "error": self._saved_after(f"internal error: {type(e).__name__}: {e}")}

    def _saved_after(self, message: str) -> str:
        """``message``, after saving the game (and saying where, or why it could not be saved)."""
        try:
            self._save()
        except SaveFailed as e:
            return f"{message} (and the game was not saved: {e})"
        return f"{message} (the game is saved to {self.saved})"

    def _act(self, request: dict[str, Any]) -> dict[str, Any]:
        action = request.get("action")
        if not isinstance(action, list) or len(action) != 4 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in action):
            raise PlayError(f"'action' must be a list of 4 integers [kind, x, y, arg], got {action!r}")
        self._note(self.session.play(action))
        return self.state()

    def _agent(self, _: dict[str, Any]) -> dict[str, Any]:
        self._note(self.session.agent_step())
        return self.state()

    def _undo(self, _: dict[str, Any]) -> dict[str, Any]:
        undone = self.session.undo()
        # the undone decision's line goes: the last line that is a decision, not an earlier undo note
        for i in range(len(self.log) - 1, -1, -1):
            if not self.log[i].startswith(_UNDONE):
                del self.log[i]
                break
        self.log.append(_UNDONE + self.session.undo_label(undone))
        return self.state()

    def _hint(self, request: dict[str, Any]) -> Answer:
        """What a built-in agent would play now (:meth:`_think`), answered within ``hint_seconds``.
        The table's lock is held only to copy the game and, after, to check that it has not moved
        on: ``GET /api/state`` and the other requests are answered while the hint thinks."""
        try:
            spec = hint_spec(request.get("agent", "greedy"))
            agent = self.make_hint(spec)  # the trust boundary: a refused spec imports and reads nothing
        except ValueError as e:  # PlayError and the spec's errors
            return HTTPStatus.BAD_REQUEST, {"error": f"no hint: {e}"}
        except Exception as e:
            return HTTPStatus.INTERNAL_SERVER_ERROR, {
                "error": f"no hint: building {spec!r} failed: {type(e).__name__}: {e}"}
        with self._lock:
            if not self.session.waiting_for_human:
                return HTTPStatus.BAD_REQUEST, {"error": "a hint is for a human's decision"}
            if self._hint_thinking is not None and not self._hint_thinking.done():
                return HTTPStatus.SERVICE_UNAVAILABLE, {
                    "error": "no hint: the last hint, which took too long, is still thinking; ask again later"}
            game = self.session.game
            decisions = len(game.history)
            thinking = self._hint_thinking = self._think(agent, game.clone())
        try:
            action, words = thinking.result(timeout=self.hint_seconds)
        except (HintTimeout, TimeoutError):  # the wait passed the cap, or the hint's process was stopped at it
            wait([thinking], timeout=HINT_GRACE)  # a capped hint ends now: the next one may start at once
            return HTTPStatus.SERVICE_UNAVAILABLE, {
                "error": f"no hint: the hint took too long (more than {self.hint_seconds:g} s for {spec!r}); "
                         "ask again, or ask a quicker agent"}
        except AgentError as e:  # the hint's agent failed: nothing changed, nothing to save
            return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"no hint: {e}"}
        except ValueError as e:  # a bad option of a built-in agent (its spec error)
            return HTTPStatus.BAD_REQUEST, {"error": f"no hint: {e}"}
        except Exception as e:
            return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"no hint: {spec!r} failed: {type(e).__name__}: {e}"}
        with self._lock:
            if self.session.game is not game or len(game.history) != decisions:
                return HTTPStatus.CONFLICT, {"error": "no hint: the game moved on while the hint thought; ask again"}
        return HTTPStatus.OK, {"action": [int(v) for v in action], "words": words, "agent": spec}

    def _think(self, agent: Chooser, game: Game) -> Future[tuple[Action, str]]:
        """Ask ``agent`` about ``game`` (a copy no one else touches) in a daemon thread; the answer, or
        the error, lands in the future returned. A hint agent of ``carcassonne play`` stops itself at
        the cap (module docstring); one that does not thinks on without the table's lock, and no other
        hint starts until it ends."""
        thinking: Future[tuple[Action, str]] = Future()

        def think() -> None:
            thinking.set_running_or_notify_cancel()
            try:
                thinking.set_result(hint_for(game, agent))
            except BaseException as e:  # handed to the request, which answers it in JSON
                thinking.set_exception(e)

        threading.Thread(target=think, name="carcassonne-hint", daemon=True).start()
        return thinking

    def _save_request(self, _: dict[str, Any]) -> dict[str, Any]:
        self._save()
        return self.state()

    def _handler(self, socket_timeout: float, request_seconds: float) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = socket_timeout  # applied to the connection: an idle one, or a client that takes no answer

            def setup(self) -> None:
                super().setup()
                self.rfile.close()  # the plain reader: the request is read within its bounds instead
                self.rfile = io.BufferedReader(_RequestReader(self.connection, socket_timeout, request_seconds))

            def handle_one_request(self) -> None:
                """One request; one that does not arrive in time (:class:`_RequestReader`) is answered 408."""
                self.requestline = self.request_version = ""  # what a 408 needs before the request line is read
                try:
                    super().handle_one_request()
                except _Late as e:  # the rest of the request is not read: the connection ends with the answer
                    self.close_connection = True
                    self._json(HTTPStatus.REQUEST_TIMEOUT, {"error": str(e)})

            def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal is the user's
                pass

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("X-Frame-Options", "DENY")  # no other site frames the table
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, data: dict[str, Any]) -> None:
                self._send(status, json.dumps(data).encode("utf-8"), "application/json")

            def _headers(self) -> dict[str, list[str]]:
                fields: dict[str, list[str]] = {}
                for name, value in self.headers.items():
                    fields.setdefault(name.lower(), []).append(value)
                return fields

            def _answer(self, method: str, body: bytes) -> None:
                refusal = server.refusal(method, self.path, self._headers())
                path = self.path.split("?", 1)[0]
                if refusal is not None:
                    self._json(*refusal)
                elif method == "GET" and path == "/favicon.ico":
                    self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
                elif method == "GET" and path in _OPEN_PATHS:
                    self._send(HTTPStatus.OK, server._page, "text/html; charset=utf-8")
                else:
                    self._json(*server.handle(method, self.path, body))

            def _body(self) -> bytes | Answer:
                """The body, at most MAX_BODY bytes (in time: :class:`_RequestReader`); else the refusal."""
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    length = -1
                if length < 0:
                    return HTTPStatus.BAD_REQUEST, {"error": "Content-Length must be a number of bytes"}
                if length > MAX_BODY:
                    return HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": f"the body must be 0 to {MAX_BODY} bytes"}
                body = self.rfile.read(length)
                if len(body) < length:
                    return HTTPStatus.BAD_REQUEST, {"error": "the body ended before its Content-Length"}
                return body

            def do_GET(self) -> None:
                self._answer("GET", b"")

            def do_POST(self) -> None:
                body = self._body()
                if isinstance(body, bytes):
                    self._answer("POST", body)
                else:  # the rest of the request is not read: the connection ends with the answer
                    self.close_connection = True
                    self._json(*body)

        return Handler


def _shown(values: Sequence[str]) -> str:
    """Header values as a refusal names them: quoted, cut short, or ``missing``."""
    return ", ".join(repr(v[:60]) for v in values) or "missing"


def _request(body: bytes) -> dict[str, Any]:
    """The JSON object of a POST's ``body`` (empty: ``{}``), read as :mod:`carcassonne_env.jsonio`
    reads a file (nesting too deep, NaN, a huge number: refused); :class:`PlayError` otherwise."""
    if not body.strip():
        return {}
    try:
        request = jsonio.loads(body, "the request body")
    except jsonio.JSONInputError as e:
        raise PlayError(str(e)) from None
    if not isinstance(request, dict):
        raise PlayError("the request body must be a JSON object")
    return request


def serve(session: PlaySession, save_path: Path, make_hint: Callable[[str], Chooser], *,
          host: str = "127.0.0.1", port: int = DEFAULT_PORT, announce: Callable[[str], None] = print,
          hint_seconds: float = HINT_SECONDS) -> Game:
    """Serve ``session`` until Ctrl-C or SIGTERM (the game is saved then, and at its end); returns
    the game. ``make_hint`` and ``hint_seconds`` are :class:`PlayServer`'s. The last save goes to
    ``save_path`` or, refused meanwhile, a free name beside it (:meth:`.SaveGuard.write`); one that
    cannot be written raises :class:`.SaveFailed` and prints no resume command."""
    try:
        server = PlayServer(session, save_path, make_hint, host, port, hint_seconds=hint_seconds)
    except OSError as e:
        raise PlayError(f"cannot serve on {host}:{port}: {e} (choose another --port)") from None
    announce(f"open {server.url} in a browser to play (Ctrl-C stops; the game is saved to {save_path})")

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop) if threading.current_thread() is threading.main_thread() else None
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        server.httpd.server_close()
        written = server.session.save(save_path, elsewhere=True)
        announce(f"saved the game to {written}; " + (
            f"replay it with: carcassonne replay {written} -o game.html" if server.session.game.is_over
            else f"resume with: carcassonne play --resume {written} --web"))
    return server.session.game
