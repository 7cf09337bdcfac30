"""The runaway web hint of issue 74, measured: ``python scripts/maintainer/hint_deadline.py``.

Serves a 2-player tower-variant table (human vs random) with ``carcassonne play``'s hint worker at
its default cap, asks a greedy hint, then a guided search of 100,000 simulations (minutes of
thinking), then greedy again and a hint naming a file; prints each answer's status and seconds and
whether the runaway hint's process still runs when its answer arrives.
"""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.hints import HINT_SECONDS, HintWorker
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.play import PlaySession
from carcassonne_env.play.server import TOKEN_HEADER, PlayServer


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie or a reaped process does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def main() -> None:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=3)
    session = PlaySession(game, ("human", "random"), [None, make_agent("random", seed=1)])
    with HintWorker(seconds=HINT_SECONDS) as hints:
        server = PlayServer(session, Path("/nonexistent/never-saved.json"), hints.agent,
                            hint_seconds=HINT_SECONDS).start()
        port = int(server.httpd.server_address[1])

        def hint(spec: str) -> tuple[int, dict[str, Any], float]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            started = time.monotonic()
            connection.request("POST", "/api/hint", json.dumps({"agent": spec}).encode(),
                               {"Host": f"127.0.0.1:{port}", TOKEN_HEADER: server.token,
                                "Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read()), time.monotonic() - started

        try:
            for spec in ("greedy", "mcts:sims=100000,guide=1", "greedy", "greedy:value=v.json"):
                pid = hints.process_id
                status, answer, seconds = hint(spec)
                print(f"{spec}: {status} in {seconds:.2f} s; its process running after the answer: {_alive(pid)}; "
                      f"{answer.get('error', answer.get('words', ''))[:80]}")
        finally:
            server.stop()


if __name__ == "__main__":  # the hint worker's process is started from a fork server, which imports this module
    main()
