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
``POST /api/hint``          ``{"agent": SPEC}`` (default greedy): what it would play
``POST /api/save``          save the game to the save file
==========================  ==================================================================

The state is ``{"frame", "tiles", "waiting", "placements", "options", "can_undo", "tiles_left",
"log", "saved", "current", "decisions"}``: ``frame`` as a replay frame, ``tiles`` the placed tiles
``[x, y, symbol, id]`` in placement order, ``decisions`` the length of the game's history,
``waiting`` one of ``human`` / ``agent`` / ``over``, and on a human's decision
the engine's legal actions: ``placements`` ``[x, y, [rotations]]`` at a PLACE decision, else
``options`` ``{"action", "label", "point"}`` (``point``: where its numbered marker goes on the
board, in board SVG units, or null).

Invariant: the server applies only actions that ``game.legal_actions()`` lists, on a human's turn;
anything else (malformed JSON, a missing or mistyped field, an illegal action, the wrong turn, an
unknown path) is answered with HTTP 400 (404 for a path) and ``{"error": message}`` naming what is
wrong, and changes nothing. An agent that fails (:class:`~.session.AgentError`), or any other
error, is answered with HTTP 500 and ``{"error": message}`` naming the agent and its seat, after
the game is saved. The finished game is saved (a record ``carcassonne replay`` opens).
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..engine import TOWER_TOP_SLOT, Action, ActionKind, Game, Phase
from ..viewer.page import fill_page, static_text, tile_symbols
from ..viewer.palette import FLOOR_COLOURS, SEAT_COLOURS, SEAT_NAMES, css
from ..viewer.snapshots import frame
from ..viewer.tile_svg import SIZE, follower_point, symbol_id, tile_svg
from .session import AgentError, Chooser, PlayError, PlaySession, SaveFailed, TurnNote, option_label

__all__ = ["MAX_BODY", "PlayServer", "page_html", "serve"]

#: The largest request body accepted, in bytes.
MAX_BODY = 64 * 1024
_LOG = 12
_UNDONE = "undone: "


def page_html(session: PlaySession, title: str) -> str:
    """The play page: the static files, every tile symbol of the game's catalogue in every
    rotation, and the seats as JSON (assembled as the replay page is: :func:`~..viewer.page.fill_page`)."""
    game = session.game
    symbols = {symbol_id(t, r): tile_svg(t, r) for t in game.catalogue.types for r in range(4)}
    data = {
        "title": title, "size": SIZE, "expansions": list(game.config.expansions),
        "players": [{"name": SEAT_NAMES[p], "agent": session.seats[p], "colour": css(SEAT_COLOURS[p])}
                    for p in range(game.num_players)],
        "floor_colours": [css(FLOOR_COLOURS[c]) for c in sorted(FLOOR_COLOURS)],
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


class PlayServer:
    """``session`` served on ``host:port`` (0: any free port); saved to ``save_path``."""

    def __init__(self, session: PlaySession, save_path: Path, make_hint: Callable[[str], Chooser],
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.session = session
        self.save_path = save_path
        self.make_hint = make_hint
        self.saved: str | None = None
        self.log: list[str] = [self._line(note) for note in session.notes()]  # a resumed game's moves
        self._lock = threading.Lock()
        title = "Carcassonne: " + " vs ".join(session.seats)
        self._page = page_html(session, title).encode("utf-8")
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        if session.game.is_over:
            self._save()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> PlayServer:
        """Serve in a background thread (tests); :meth:`stop` ends it."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
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
            "decisions": len(game.history),
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
                                    "point": _point(game, a)} for a in legal]
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

    def handle(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """Answer one request: (status, JSON). Refusals are 400 / 404 with ``{"error": ...}``."""
        path = path.split("?", 1)[0]
        routes: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {
            ("GET", "/api/state"): lambda _: self.state(),
            ("POST", "/api/act"): self._act,
            ("POST", "/api/agent"): self._agent,
            ("POST", "/api/undo"): self._undo,
            ("POST", "/api/hint"): self._hint,
            ("POST", "/api/save"): self._save_request,
        }
        route = routes.get((method, path))
        if route is None:
            return HTTPStatus.NOT_FOUND, {"error": f"no such endpoint: {method} {path}"}
        request: Any = {}
        if method == "POST" and body.strip():
            try:
                request = json.loads(body)
            except (json.JSONDecodeError, UnicodeDecodeError):
                return HTTPStatus.BAD_REQUEST, {"error": "the request body is not JSON"}
            if not isinstance(request, dict):
                return HTTPStatus.BAD_REQUEST, {"error": "the request body must be a JSON object"}
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

    def _hint(self, request: dict[str, Any]) -> dict[str, Any]:
        spec = request.get("agent", "greedy")
        if not isinstance(spec, str) or not spec:
            raise PlayError(f"'agent' must be an agent spec, got {spec!r}")
        if not self.session.waiting_for_human:
            raise PlayError("a hint is for a human's decision")
        try:
            agent = self.make_hint(spec)
        except ValueError as e:
            raise PlayError(f"no hint: {e}") from None
        action, words = self.session.hint(agent)
        return {"action": [int(v) for v in action], "words": words, "agent": spec}

    def _save_request(self, _: dict[str, Any]) -> dict[str, Any]:
        self._save()
        return self.state()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal is the user's
                pass

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, data: dict[str, Any]) -> None:
                self._send(status, json.dumps(data).encode("utf-8"), "application/json")

            def do_GET(self) -> None:
                if self.path == "/favicon.ico":
                    self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
                elif self.path.split("?", 1)[0] in ("/", "/index.html"):
                    self._send(HTTPStatus.OK, server._page, "text/html; charset=utf-8")
                else:
                    self._json(*server.handle("GET", self.path, b""))

            def do_POST(self) -> None:
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    length = -1
                if not 0 <= length <= MAX_BODY:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": f"the body must be 0 to {MAX_BODY} bytes"})
                    return
                self._json(*server.handle("POST", self.path, self.rfile.read(length)))

        return Handler


def serve(session: PlaySession, save_path: Path, make_hint: Callable[[str], Chooser], *,
          host: str = "127.0.0.1", port: int = 8765, announce: Callable[[str], None] = print) -> Game:
    """Serve ``session`` until Ctrl-C or SIGTERM (the game is saved then, and at its end); returns
    the game. The last save goes to ``save_path`` or, refused meanwhile, a free name beside it
    (:meth:`.SaveGuard.write`); one that cannot be written raises :class:`.SaveFailed` and prints
    no resume command."""
    try:
        server = PlayServer(session, save_path, make_hint, host, port)
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
