"""The ``carcassonne`` command: play, replay, tournament, evaluate, bench, train (:mod:`training.cli.train`);
its flags follow one dialect (:mod:`training.cli.dialect`).

Agents are named by spec strings (``random``, ``greedy:fast=1``, ``mcts:sims=400``,
``ppo:model.zip``, ``mymodule:MyAgent``, ``path/to/file.py:MyAgent``; see :mod:`agents.spec`).
A bad argument is reported in one line on stderr with exit status 2, never with a traceback.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents import AgentSpecError
from agents.compat import warn_other_game
from agents.extras import MissingExtra
from agents.isolation import DEFAULT_MOVE_TIME_LIMIT, close_agent, seat_agent
from carcassonne_env import argtypes
from carcassonne_env import bench as engine_bench
from carcassonne_env.engine import ConfigError, Game, GameConfig, IllegalActionError, ScoreEvent, describe_game
from carcassonne_env.play import PlayError
from carcassonne_env.play.score_story import event_line
from carcassonne_env.play.terminal import TableInterrupted
from carcassonne_env.players import EngineAgent
from training.arena import ladder, tower_stats
from training.arena.backends import BACKENDS, DEFAULT_WORKERS, Backend, WorkerLost, make_backend
from training.arena.match import MatchError, build_agents, close_agents, play_out
from training.arena.ray_support import RayError
from training.arena.schedule import Fixture, ScheduleError
from training.arena.tournament import Settings, TournamentError
from training.common.run_folder import cwd_relative

from . import play_human, train
from .dialect import refuse_old_spellings, spec_list
from .interrupt import INTERRUPTED, caused_by_ctrl_c, command_name, interrupted, resume_command

__all__ = ["BENCH_GAMES", "BENCH_WORKERS", "TOURNAMENT_SEEDS", "build_parser", "main", "version"]

_SPEC_HELP = ("agent spec: random, greedy, greedy:fast=1, greedy:value=linear, mcts:sims=400, mcts:seconds=1, "
              "mcts:pretrained, afterstate:pretrained, afterstate:PATH.npz, ppo:PATH, rllib:PATH, module:Class or "
              "path/to/file.py:Class")


#: Tile orders per table of ``carcassonne tournament`` when neither ``--seeds`` nor ``--games`` is given.
TOURNAMENT_SEEDS = 10
#: Games per measurement of ``carcassonne bench TARGET`` when ``--games`` is not given.
BENCH_GAMES: dict[str, int] = {**engine_bench.DEFAULT_GAMES, "tournament": 20, "agent": 5}
#: The workers ``carcassonne bench tournament`` measures with, one run each.
BENCH_WORKERS = (1, 2)


#: Old spellings of flags, per command, refused in one line that names the new one (dialect rule 5).
RENAMED: dict[str, dict[str, str]] = {"tournament": {"--first-seed": "--seed"}}


def version() -> str:
    """The installed project's version (``carcassonne_env.__version__``)."""
    import carcassonne_env

    return carcassonne_env.__version__


def _config(args: argparse.Namespace, players: int) -> GameConfig:
    return argtypes.game_config(players, args.expansions, args.rules)


#: The largest number of seconds a flag takes (the clock functions overflow beyond it); the largest
#: count is :data:`carcassonne_env.argtypes.MAX_COUNT`.
MAX_SECONDS = 7 * 86_400


def _sprt(text: str) -> tuple[float, float, float, float]:
    try:
        elo0, elo1, alpha, beta = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected elo0,elo1,alpha,beta (e.g. 0,10,0.05,0.05), got {text!r}") from None
    if not all(math.isfinite(v) for v in (elo0, elo1)):
        raise argparse.ArgumentTypeError(f"need finite Elo bounds, got {text!r}")
    if not (elo0 < elo1 and 0 < alpha < 1 and 0 < beta < 1):
        raise argparse.ArgumentTypeError(f"need elo0 < elo1 and 0 < alpha, beta < 1, got {text!r}")
    return elo0, elo1, alpha, beta


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 0–65535, got {text!r}") from None
    if not 0 <= value <= 65_535:
        raise argparse.ArgumentTypeError(f"expected a port number 0–65535, got {text!r}")
    return value


def _kind(text: str) -> str | None:
    """What ``text`` names: ``directory``, ``file`` (anything else that exists) or None (nothing yet);
    a name the system refuses (too long, ...) is an ArgumentTypeError."""
    try:
        path = Path(text)
        return ("directory" if path.is_dir() else "file") if path.exists() else None
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot use {text!r}: {e.strerror or e}") from None


def _directory(text: str) -> Path:
    """A directory to write into: it may not exist yet, but may not be a file."""
    if not text or _kind(text) == "file":
        raise argparse.ArgumentTypeError(f"expected a directory, got {text!r}" + (" (a file)" if text else ""))
    return Path(text)


def _file(text: str) -> Path:
    """A file to write: not a directory."""
    if not text or _kind(text) == "directory":
        raise argparse.ArgumentTypeError(f"expected a file name, got {text!r}" + (" (a directory)" if text else ""))
    return Path(text)


def _seconds(text: str) -> float:
    """A finite number of seconds ≥ 0 (``nan``, ``inf`` and negatives are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds ≥ 0, got {text!r}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_SECONDS} seconds (a week), got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _hint_seconds(text: str) -> float:
    value = _positive_seconds(text)
    if value > play_human.MAX_HINT_SECONDS:
        raise argparse.ArgumentTypeError(f"expected at most {play_human.MAX_HINT_SECONDS:g} seconds, got {text!r}")
    return value


def _suffixed(*suffixes: str) -> Callable[[str], Path]:
    def parse(text: str) -> Path:
        if Path(text).suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(f"expected a {' or '.join(suffixes)} file name, got {text!r}")
        return _file(text)
    return parse


def _add_faults(p: argparse.ArgumentParser) -> None:
    p.add_argument("--on-error", choices=("forfeit", "stop"), default="forfeit",
                   help="what happens when an agent raises, exits, chooses an illegal action or exceeds "
                        "--move-time-limit: forfeit loses it that game and the run goes on; stop ends the run "
                        "with the error, for debugging (default %(default)s)")
    p.add_argument("--move-time-limit", type=_positive_seconds, metavar="SECONDS",
                   help="seconds an agent may take per decision; one that takes longer forfeits the game (see "
                        "--on-error). An agent named by a file or a module always plays from a process of its own, "
                        "stopped at the limit; a built-in agent plays in the process that plays the game "
                        f"(default {DEFAULT_MOVE_TIME_LIMIT:g})")
    _flag(p, "--allow-changed-agents", "with --resume: continue although an agent or a model file named in a SPEC "
          "(or, for evaluate, the engine's or the agents' code) changed since the run started")


def _flag(p: argparse.ArgumentParser | argparse._ArgumentGroup, name: str, help: str, default: bool = False) -> None:
    """A boolean option, the dialect's pair ``--x`` / ``--no-x`` (:mod:`training.cli.dialect`)."""
    p.add_argument(name, action=argparse.BooleanOptionalAction, default=default,
                   help=f"{help} (default: {'on' if default else 'off'})")


def _add_progress(p: argparse.ArgumentParser) -> None:
    _flag(p, "--progress", "show a progress bar on stderr (never when stderr is not a terminal)", default=True)


def _add_backend(p: argparse.ArgumentParser, process_workers: str = str(DEFAULT_WORKERS)) -> None:
    p.add_argument("--workers", type=argtypes.count, metavar="N", help="games played in parallel: worker processes, "
                   f"or the cores of the local Ray (default: {process_workers} with --backend process; with ray all "
                   "cores, or every CPU of the --address cluster)")
    p.add_argument("--backend", choices=BACKENDS, default="process", help="where games run: worker processes on "
                   "this machine, or Ray tasks on a local Ray or on the cluster at --address (ray needs the ray "
                   "extra; default %(default)s)")
    p.add_argument("--address", metavar="ADDR", help="with --backend ray: the Ray cluster to run on (auto, HOST:PORT "
                   "of 'ray start --head', or ray://HOST:10001) (default: start a local Ray for the run)")


def _backend(args: argparse.Namespace) -> Backend:
    try:
        return make_backend(args.backend, args.address)
    except ValueError as e:  # --address without --backend ray
        raise TournamentError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    """The ``carcassonne`` parser (the trainers behind ``train`` parse their own arguments)."""
    parser = argparse.ArgumentParser(
        prog="carcassonne",
        description="Play, rate, benchmark and train Carcassonne agents. Every COMMAND has its own options: "
                    "carcassonne COMMAND --help. An agent is named by a spec string (random, greedy, "
                    "mcts:sims=400, ppo:PATH.zip ...: the README's agents table). Lists are one comma-separated "
                    "argument (--expansions tower,black_tower) and booleans a pair --x / --no-x.",
    )
    parser.add_argument("--version", action="version", version=f"carcassonne-env {version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser("play", help="play or watch one game between agents and people",
                          description="Play one game, seat i taken by the i-th SPEC. Between agents: one line a "
                                      "turn (who placed which tile where, its follower or floor, the points "
                                      "scored), then the final scores by category; --boards also prints the text "
                                      "board after every turn, --quiet only the final board and scores. A 'human' "
                                      "seat is played at the terminal, or in the browser with --web (docs/play.md).")
    play.add_argument("specs", nargs="*", metavar="SPEC",
                      help=f"2–6 seats in order: human, or an {_SPEC_HELP}")
    play.add_argument("--seed", type=argtypes.seed, default=0, metavar="N",
                      help="the game's seed: it draws the tile order (default %(default)s)")
    argtypes.add_game_arguments(play)
    play.add_argument("--delay", type=_seconds, default=0.0, metavar="SECONDS",
                      help="seconds to wait after each turn (default %(default)g)")
    play.add_argument("--frames", type=_directory, metavar="DIR",
                      help="also write one PNG picture of the board per turn into DIR (default: none)")
    play.add_argument("--html", type=_suffixed(".html", ".htm"), metavar="FILE",
                      help="also write the game's replay page to FILE, one self-contained HTML file (default: none)")
    play.add_argument("--gif", type=_suffixed(".gif"), metavar="FILE",
                      help="also write an animated GIF of the game to FILE, one frame per turn (default: none)")
    _flag(play, "--quiet", "print only the final board and scores")
    _flag(play, "--boards", "between agents: also print the text board and the scores after every turn")
    _flag(play, "--web", "play in the browser: serve the game on http://localhost:PORT")
    play.add_argument("--port", type=_port, metavar="PORT",
                      help=f"with --web: the port (0: any free port) (default {play_human.DEFAULT_PORT})")
    play.add_argument("--save", type=_file, metavar="FILE", help="with a human seat: the file that save, quit, "
                      f"Ctrl-C and the game's end write (default {play_human.DEFAULT_SAVE}, or the --resume file); "
                      "an existing file is replaced only when it is this game's save (docs/play.md)")
    _flag(play, "--force", "with a human seat: let the save replace another game's save (a file that is not a "
          "saved game is never replaced)")
    _flag(play, "--auto-single", "at the terminal table: a decision of yours with one legal action (a forced pass) "
          "is played for you, with one line saying so; off: it is asked, and undo can still take back the "
          "placement before it", default=True)
    play.add_argument("--resume", type=Path, metavar="FILE", help="continue the game saved in FILE, with its seats "
                      "unless SPECs are given; a save is data: its seats may name only built-in agents whose "
                      "options name no file (see --trust-saved-seats)")
    _flag(play, "--trust-saved-seats", "with --resume: seat the agents the save names even when they name a file, a "
          "module or a model path (their code runs: only for a save you made yourself); without it such a save is "
          "refused, naming the seat, before anything is loaded")
    play.add_argument("--hint-seconds", type=_hint_seconds, default=play_human.HINT_SECONDS, metavar="SECONDS",
                      help="the cap of one hint's thinking, at the terminal and in the browser: a hint still thinking "
                           "then is stopped, its memory freed, and the next one starts at once "
                           f"(at most {play_human.MAX_HINT_SECONDS:g}; default %(default)g)")

    replay = sub.add_parser("replay", help="write a game's replay page (HTML) to view in a browser",
                            description="Turn a game into one self-contained HTML page (no network needed) that "
                                        "shows the board at every decision, with step buttons, a slider, arrow "
                                        "keys, the action in words and the points scored.")
    replay.add_argument("record", type=Path, metavar="RECORD",
                        help="a saved game: a game saved by carcassonne play, a tournament's games.jsonl, or the "
                             "JSON of Game.to_dict or of a GameRecord")
    replay.add_argument("-o", "--out", type=_suffixed(".html", ".htm"), required=True, metavar="FILE",
                        help="the HTML file to write (.html or .htm, not RECORD itself)")
    replay.add_argument("--game", type=argtypes.seed, metavar="INDEX",
                        help="which game of a games.jsonl, by its index (needed when the file holds several)")
    replay.add_argument("--title", metavar="TEXT", help="the page title (default: the agents and the seed)")

    tour = sub.add_parser("tournament", help="rate agents in a round robin or a gauntlet",
                          description="Play a round robin (every set of --players agents) or a gauntlet (the "
                                      "first agent against each of the others); every tile order is played in "
                                      "every seat rotation. Games are saved to --out as they finish (--resume "
                                      "continues); prints Elo ratings with 95 % intervals and writes CSV, JSON "
                                      "and a PNG (docs/tournament.md).")
    tour.add_argument("specs", nargs="+", metavar="SPEC", help=f"the agents (distinct); each an {_SPEC_HELP}")
    _flag(tour, "--gauntlet", "the first SPEC plays each of the others, instead of a round robin")
    tour.add_argument("--players", type=int, choices=range(2, 7), default=2, metavar="{2..6}",
                      help="players per game (default %(default)s)")
    count = tour.add_mutually_exclusive_group()
    count.add_argument("--seeds", type=argtypes.count, metavar="N", help="tile orders per table; each is played in "
                       "every seat rotation, so a table plays --players × N games "
                       f"(default {TOURNAMENT_SEEDS})")
    count.add_argument("--games", type=argtypes.count, metavar="N",
                       help="games per table, rounded up to a multiple of --players (instead of --seeds)")
    tour.add_argument("--seed", type=argtypes.seed, default=0, metavar="N",
                      help="the first tile order's seed; the tables play seeds N, N+1, ... (default %(default)s)")
    _add_backend(tour)
    tour.add_argument("--out", type=_directory, default=Path("runs/tournament"), metavar="DIR",
                      help="output directory (default %(default)s)")
    _flag(tour, "--resume", "continue the tournament in --out, skipping finished games (the settings must match)")
    tour.add_argument("--anchor", metavar="SPEC", help="the agent rated 0 (default: random if present, else the "
                      "first SPEC)")
    tour.add_argument("--sprt", type=_sprt, metavar="ELO0,ELO1,ALPHA,BETA",
                      help="stop a 2-agent, 2-player match early when a sequential probability ratio test of "
                           "H0: Elo = ELO0 against H1: Elo = ELO1 (the first SPEC's) decides at error rates ALPHA, "
                           "BETA, e.g. 0,10,0.05,0.05 (default: play every game)")
    argtypes.add_game_arguments(tour)
    _add_faults(tour)
    _add_progress(tour)

    ev = sub.add_parser("evaluate", help="rate one agent against the reference ladder",
                        description="The reference benchmark: a round robin of SPEC and the ladder "
                                    f"{', '.join(ladder.LADDER)} on the 2-player tower variant "
                                    f"({', '.join(ladder.EXPANSIONS)}), seeds 0..SEEDS-1 in both seats, "
                                    "Elo with random = 0. Every agent is seeded from the game seed, so two "
                                    "users' figures are comparable. The ladder's games among themselves come "
                                    "from a store of games played once by this code (shipped, or the user cache, "
                                    "filled by the first evaluation that plays them); SPEC plays only its own. "
                                    "With --players N from 3 to 6: the ladder "
                                    f"{', '.join(ladder.MULTIPLAYER_LADDER)} on the N-player tower variant, less "
                                    "the agents whose shipped values are not made for N players (a note names "
                                    f"them), completed to N agents by {', '.join(ladder.RESERVES)} in this order; "
                                    "every set of N agents plays each seed in every seat rotation; its ladder "
                                    "games are stored in the user cache only. "
                                    "With --backend process, --workers defaults to the free cores (the cores less "
                                    "the load average).")
    ev.add_argument("spec", metavar="SPEC", help=f"the {_SPEC_HELP}")
    ev.add_argument("--players", type=int, choices=range(GameConfig.MIN_PLAYERS, GameConfig.MAX_PLAYERS + 1),
                    default=2, metavar="{2..6}",
                    help="players per game, and the ladder of that count (default %(default)s)")
    others = ", ".join(f"{n} players {s}" for n, s in ladder.DEFAULT_SEEDS.items() if n != 2)
    ev.add_argument("--seeds", type=argtypes.count, default=ladder.DEFAULT_SEEDS[2], action=_GivenSeeds,
                    metavar="N", help="tile orders per table, each played in every seat rotation (default "
                    f"{ladder.DEFAULT_SEEDS[2]} for 2 players: {2 * ladder.DEFAULT_SEEDS[2]} games per pairing; "
                    f"{others}: a first evaluation, which also plays the ladder's own games, takes about 10 "
                    "minutes on 2 cores)")
    ev.set_defaults(seeds_given=False)
    _add_backend(ev, "the free cores")
    ev.add_argument("--out", type=_directory, metavar="DIR",
                    help="output directory (default runs/evaluate/SPEC, the SPEC's / and : as _)")
    _flag(ev, "--resume", "continue the evaluation in --out, skipping finished games")
    shipped = cwd_relative(ladder.SHIPPED)
    ev.add_argument("--store-ladder", type=_suffixed(".gz"), metavar="FILE", help="also write the ladder's games "
                    f"among themselves to FILE, a store like the shipped {ladder.SHIPPED.name} (rewrite that one "
                    f"after changing the engine or agents: evaluate random --store-ladder {shipped})")
    _add_faults(ev)
    _add_progress(ev)

    _add_bench(sub)
    stats = sub.add_parser("stats", help="what the tower changes: captures, ransoms, floors by colour per agent",
                           description=tower_stats.DESCRIPTION)
    tower_stats.add_arguments(stats)
    train.add_parser(sub)
    return parser


def _add_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``carcassonne bench TARGET``: a parser per target, whose help names the setup it measures."""
    bench = sub.add_parser("bench", help="benchmarks: engine, env, tournament throughput, an agent's decision time",
                           description="Each TARGET measures one setup and prints it first (the game, the agents, "
                                       "the games, threads or workers, compiled or pure-Python engine), then its "
                                       "figures: carcassonne bench TARGET --help. Every target plays the tower "
                                       "variant unless --expansions or --rules says otherwise.")
    targets = bench.add_subparsers(dest="target", required=True, help="what to measure")
    game = (f"the game of {describe_game(argtypes.game_config(2, argtypes.DEFAULT_EXPANSIONS))} (--expansions, "
            "--rules for another)")
    engine = "the compiled engine core when it is installed (the pure-Python engine with CARCASSONNE_PURE_PYTHON=1)"
    for target, what in (("engine", "random games on the engine alone: games/s, decisions/s, decisions/game"),
                         ("env", "random games through the PettingZoo env: AEC steps/s with observations and masks")):
        p = targets.add_parser(target, help=what, description=(
            f"Measure {what}, in {game}; --players and --tiles choose the players and tile sets. The agents: "
            f"{engine_bench.AGENTS[target]}. One thread in this process, {engine}. The setup is printed first "
            f"(python -m carcassonne_env.bench {target} is the same command)."))
        engine_bench.add_arguments(p, target)
    p = targets.add_parser("tournament", help="games/s of self-play games on 1 and 2 workers", description=(
        f"Games/s of self-play games of each --specs agent against itself (seeds 0 to N-1) in {game}, "
        f"with {' and '.join(map(str, BENCH_WORKERS))} workers of --backend: after the first game, and with the "
        f"start-up; {engine}. The setup is printed first."))
    p.add_argument("--games", type=argtypes.count, default=BENCH_GAMES["tournament"], metavar="N",
                   help="games per measurement, at least 2 for the rate after the first game (default %(default)s)")
    _add_bench_specs(p)
    argtypes.add_game_arguments(p)
    p.add_argument("--backend", choices=BACKENDS, default="process", help="where the games run, as for carcassonne "
                   "tournament (default %(default)s)")
    p.add_argument("--address", metavar="ADDR", help="with --backend ray: the Ray cluster (default: a local Ray of "
                   f"{', then '.join(map(str, BENCH_WORKERS))} cores)")
    p = targets.add_parser("agent", help="the CPU time of one decision of each --specs agent", description=(
        "The CPU time of one decision of each --specs agent (choose_action alone), playing itself in every seat of "
        f"--games games (seeds 0 to N-1) in {game}, in this process, torch on --threads threads, {engine}; "
        "a search agent's simulations per CPU second on the same recorded positions. The setup is printed first."))
    p.add_argument("--games", type=argtypes.count, default=BENCH_GAMES["agent"], metavar="N",
                   help="games per agent (default %(default)s)")
    _add_bench_specs(p)
    argtypes.add_game_arguments(p)
    p.add_argument("--threads", type=argtypes.count, default=1, metavar="N",
                   help="torch threads, a core each (default %(default)s)")


def _add_bench_specs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--specs", default="random,greedy", metavar="SPEC,SPEC", help="comma-separated agents; a spec's "
                   "own options stay with it, e.g. mcts:sims=20,guide=1,greedy is two agents (default %(default)s)")


def _play(args: argparse.Namespace) -> None:
    play_human.check_flags(args)
    if play_human.wanted(args):
        play_human.play(args, lambda players: _config(args, players))
        return
    config = _config(args, len(args.specs))
    agents = build_agents(args.specs, args.seed, config)
    for agent, spec in zip(agents, args.specs, strict=True):
        warn_other_game(agent, spec, config)
    try:
        _play_agents(args, config, agents)
    finally:
        close_agents(agents)


def _turn_line(turn: int, who: str, words: Sequence[str], events: Sequence[ScoreEvent],
               scores: Sequence[int]) -> str:
    """One turn of a game between agents in one line: ``turn 12: Blue (greedy) placed “…” at (2,-1);
    put a knight on the city at (2,-1) — Blue +10: city at (2,-1), completed (scores 24, 31)``;
    ``words``: :func:`~carcassonne_env.viewer.snapshots.describe_action` of each decision of the turn
    (each starts with the seat's colour, said once), ``events``: the score changes of the turn."""
    colour = who.split(" ", 1)[0]
    line = f"turn {turn + 1}: {who} " + "; ".join(w.removeprefix(f"{colour} ") for w in words)
    if events:
        line += " — " + "; ".join(event_line(e) for e in events) + f" (scores {', '.join(map(str, scores))})"
    return line


def _play_agents(args: argparse.Namespace, config: GameConfig, agents: Sequence[EngineAgent]) -> None:
    """A game between ``agents`` (``carcassonne play`` without a person): a line a turn
    (:func:`_turn_line`; unless ``--quiet``), the board after every turn with ``--boards``."""
    from carcassonne_env.play.score_story import ScoreStory
    from carcassonne_env.viewer.palette import SEAT_NAMES
    from carcassonne_env.viewer.snapshots import describe_action

    game = Game(config, seed=args.seed)
    game.keep_score_log()
    names = [f"{SEAT_NAMES[seat]} ({spec})" for seat, spec in enumerate(args.specs)]
    encoder = None
    if args.frames is not None:
        from carcassonne_env.environment.observation import Encoder
        from carcassonne_env.environment.render import render_rgb, write_png

        args.frames.mkdir(parents=True, exist_ok=True)
        encoder = Encoder(config, 31)
        encoder.reset(game)
    words: list[str] = []
    before, told = game.clone(), 0
    for move in play_out(game, agents, args.specs):
        turn = move.turn
        if not args.quiet:
            words.append(describe_action(before, move.action))
            before = game.clone()
        if game.turn != turn or game.is_over:
            if not args.quiet:
                events = [e for e in game.score_log[told:] if not e.final]
                told = len(game.score_log)
                print(("\n" if args.boards else "") + _turn_line(turn, names[move.seat], words, events, game.scores))
            if args.boards:
                print(game.render_text())
                print(f"scores {list(game.scores)}")
            words = []
            if encoder is not None:
                encoder.sync(game)
                write_png(args.frames / f"turn_{turn + 1:03d}.png", render_rgb(game, encoder))
            time.sleep(args.delay)
    if args.quiet:
        print(game.render_text())
    else:
        final = [e for e in game.score_log if e.final]
        gained = [sum(e.points for e in final if e.player == p) for p in range(config.players)]
        print("end-of-game scoring: " + ", ".join(f"{SEAT_NAMES[p]} {g:+d}" for p, g in enumerate(gained)))
    if args.html is not None:
        from carcassonne_env.viewer import Replayable, write_replay_html

        print(f"wrote {write_replay_html(Replayable(game.record(), tuple(args.specs)), args.html)}")
    if args.gif is not None:
        from carcassonne_env.environment.gif import write_gif

        frames = write_gif(game.record(), args.gif)
        print(f"wrote {args.gif} ({frames} frames)")
    winners = ", ".join(f"{args.specs[w]} (seat {w})" for w in game.winners())
    print(f"final scores {list(game.scores)}; winner {winners}")
    if not args.quiet:
        print("the scores by category:")
        print(ScoreStory(game.score_log, (0,) * config.players, final=True).table(names))


def _replay(args: argparse.Namespace) -> None:
    from carcassonne_env.viewer import RecordError, load_document, write_replay_html
    from training.arena.tournament import find_game

    if play_human.same_file(args.out, args.record):
        raise RecordError(f"--out {args.out} is the RECORD itself: write the page to another file")
    # a tournament's games.jsonl is read line by line and every game checked before one is shown (each
    # one's moves must reach its recorded scores, no game twice); any other file is one game document
    document = find_game(args.record, args.game)
    if document is None:
        document = load_document(args.record, game=args.game)  # its errors name the file
    try:
        path = write_replay_html(document, args.out, title=args.title)
    except RecordError as e:
        raise RecordError(f"{args.record}: {e}") from None
    print(f"wrote {path}")


def _check_specs(specs: Sequence[str], config: GameConfig) -> None:
    """Build every spec once and check it fits ``config``: :class:`AgentSpecError` naming the bad one."""
    for spec in dict.fromkeys(specs):
        try:
            agent = seat_agent(spec, seed=0, config=config)  # a file or module agent: built in its process
            warn_other_game(agent, spec, config)
            close_agent(agent)
        except AgentSpecError:
            raise
        except ValueError as e:
            raise AgentSpecError(str(e)) from None


def _settings(args: argparse.Namespace, specs: Sequence[str], mode: str, seeds: int, config: GameConfig) -> Settings:
    """The tournament's settings, once every spec was built and checked against ``config`` (a bad spec
    fails here, in one line, before any process starts)."""
    from training.arena.tournament import Settings

    _check_specs(specs, config)
    return Settings(agents=tuple(specs), mode=mode, seeds=seeds, first_seed=getattr(args, "seed", 0),
                    config=config.to_dict(), sprt=getattr(args, "sprt", None), move_time_limit=args.move_time_limit)


def _tournament(args: argparse.Namespace, settings: Settings, anchor: str | None,
                given: Sequence[dict[str, Any]] = (), code: str | None = None) -> None:
    """Run ``settings`` into ``--out`` (``given``, ``code``: :func:`training.arena.tournament.run`'s),
    print the report and write its files."""
    from training.arena.report import build_report, print_report, write_report
    from training.arena.tournament import load_games, run

    state = run(settings, args.out, args.workers, args.resume, progress=args.progress, backend=_backend(args),
                on_error=args.on_error, allow_changed_agents=args.allow_changed_agents, given=given, code=code)
    specs = settings.agents
    anchor = anchor or ("random" if "random" in specs else specs[0])
    report = build_report(settings, load_games(args.out, settings), anchor, state)
    print_report(report)
    for path in write_report(report, args.out, settings):
        print(f"wrote {path}")


class _GivenSeeds(argparse.Action):
    """evaluate's ``--seeds N``, noting that it was given (``seeds_given``): its default depends on
    ``--players`` (:data:`training.arena.ladder.DEFAULT_SEEDS`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.seeds_given = True


def _evaluate(args: argparse.Namespace) -> None:
    """SPEC in a round robin with the ladder of ``--players`` (:func:`training.arena.ladder.ladder_for`);
    the ladder's games among themselves from a store when one has them, and stored in the user cache
    once this run has played them (:mod:`training.arena.ladder`)."""
    members, notes = ladder.ladder_for(args.players)
    # a table of 3 or more seats plays the rotations of its own cyclic order: a ladder agent as SPEC keeps
    # its place in the ladder, so that the ladder's tables are those of its store (2 players: SPEC first)
    specs = list(members) if args.players > 2 and args.spec in members else list(dict.fromkeys([args.spec, *members]))
    seeds = args.seeds if args.seeds_given else ladder.DEFAULT_SEEDS[args.players]
    args.out = args.out or Path("runs") / "evaluate" / re.sub(r"[^A-Za-z0-9_.=-]+", "_", args.spec)
    if args.workers is None and args.backend == "process":
        from training.common.threads import free_cores

        args.workers = free_cores()  # evaluate's default: every free core (tournament's is 1)
    settings = _settings(args, specs, "round_robin", seeds, ladder.ladder_config(args.players))
    mine = ladder.fingerprint_for(args.players)
    given, stored_notes = ladder.stored_games(settings, members, mine)
    for note in [*notes, *stored_notes]:
        print(f"carcassonne evaluate: {note}", file=sys.stderr)
    _tournament(args, settings, "random", given, mine.key)
    wanted = [args.store_ladder] if args.store_ladder else []
    if len(given) < sum(ladder.is_ladder_game(f.seats, members) for f in settings.fixtures()):
        wanted.append(None)  # the cache's file
    for path in wanted:
        stored = ladder.store_games(settings, args.out, members, mine, path)
        game = describe_game(settings.game_config)
        print(f"stored the ladder's games in {ladder.shown_path(stored)}; game: {game}" if stored else
              "the ladder's games of this run are not stored: some were forfeited or played under --move-time-limit or "
              "by other code", file=sys.stderr)


def _bench(args: argparse.Namespace) -> None:
    """``carcassonne bench TARGET``: the setup's line, then the figures of each measurement."""
    if args.target in ("engine", "env"):
        engine_bench.run(args.target, args)
        return
    config, specs = _config(args, 2), spec_list(args.specs)
    if not specs:
        raise ScheduleError(f"--specs: expected comma-separated agent specs, got {args.specs!r}")
    _check_specs(specs, config)
    game = f"game: {describe_game(config)}"
    if args.target == "agent":
        from agents import COMPILED as SEARCH_COMPILED
        from training.arena.decision_time import decision_times, recorded_positions, simulation_rate

        search = " and search agents" if SEARCH_COMPILED else ""
        print(f"setup: {game}; each agent in every seat ({', '.join(specs)}); {args.games} game(s) each from seed 0, "
              f"in this process; torch on {args.threads} thread(s); {engine_bench.engine_words()}{search}", flush=True)
        for spec in specs:
            print(decision_times(spec, args.games, config, threads=args.threads).line())
        positions = recorded_positions(config, args.games)
        for spec in specs:
            rate = simulation_rate(spec, positions, threads=args.threads)
            if rate is not None:
                print(f"agent: {spec}: {rate:.0f} simulations/s (CPU) over the same {len(positions)} recorded "
                      f"positions (every 4th decision of {args.games} greedy:fast=1 games)")
        return
    from training.arena.tournament import play_fixtures

    backend, games = _backend(args), args.games
    print(f"setup: {game}; each agent against itself ({', '.join(specs)}); {games} game(s) each from seed 0; "
          f"{' and '.join(map(str, BENCH_WORKERS))} workers of --backend {args.backend}; "
          f"{engine_bench.engine_words()}", flush=True)
    for spec in specs:
        fixtures = [Fixture(i, i, i, (spec, spec)) for i in range(games)]
        for workers in BENCH_WORKERS:
            start = time.perf_counter()
            finished = [time.perf_counter() for _ in play_fixtures(config, fixtures, workers, backend=backend)]
            print(f"tournament: {spec} vs {spec}, {args.backend}, {workers} worker(s): "
                  f"{_steady_rate(finished)}, {games / (finished[-1] - start):.2f} games/s with start-up "
                  f"({games} game{'s' if games > 1 else ''})")


def _steady_rate(finished: Sequence[float]) -> str:
    """Games/s after the first game, from the times the games finished: ``2.15 games/s after the
    first game``, or a dash and the reason when there is none (never ``nan``): one game, or every
    game finished at the same moment."""
    if len(finished) < 2:
        return "— games/s after the first game (one game: none after it; give --games 2 or more)"
    if finished[-1] <= finished[0]:
        return "— games/s after the first game (every game finished at the same moment)"
    return f"{(len(finished) - 1) / (finished[-1] - finished[0]):.2f} games/s after the first game"


def main(argv: Sequence[str] | None = None) -> int:
    """``carcassonne ARGV`` (default ``sys.argv[1:]``); returns the exit status: 2 and one line for a
    bad argument or a run that cannot go on, 130 and one line for a Ctrl-C at any moment
    (:func:`~training.cli.interrupt.interrupted`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _run(argv)
    except TableInterrupted:  # the table said it, with the command that resumes the game
        return INTERRUPTED
    except KeyboardInterrupt:
        return interrupted(argv)
    except Exception as e:
        if caused_by_ctrl_c(e):
            return interrupted(argv)
        raise


def _run(argv: list[str]) -> int:
    from carcassonne_env.viewer import RecordError

    if argv[:1] == ["train"]:  # the trainers parse their own arguments
        return train.main(argv[1:])
    if argv:
        refuse_old_spellings(argv[1:], f"carcassonne {argv[0]}", RENAMED.get(argv[0], {}))
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "bench":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if rest:  # bench: one line naming the target, not the usage of the whole command
        print(f"carcassonne bench {args.target}: error: unrecognised arguments {' '.join(rest)}", file=sys.stderr)
        return 2
    try:
        if args.command == "play":
            _play(args)
        elif args.command == "replay":
            _replay(args)
        elif args.command == "tournament":
            per_table = args.seeds or (-(-args.games // args.players) if args.games else TOURNAMENT_SEEDS)
            anchor = args.anchor
            if anchor is not None and anchor not in args.specs:
                raise TournamentError(f"--anchor: {anchor!r} is not one of the agents")
            mode = "gauntlet" if args.gauntlet else "round_robin"
            _tournament(args, _settings(args, args.specs, mode, per_table, _config(args, args.players)), anchor)
        elif args.command == "evaluate":
            _evaluate(args)
        elif args.command == "stats":
            return tower_stats.run(args, "carcassonne stats")
        else:
            _bench(args)
    except (AgentSpecError, ConfigError, ScheduleError, TournamentError, MatchError, IllegalActionError, RayError,
            RecordError, PlayError, WorkerLost, MissingExtra, OSError) as e:
        if caused_by_ctrl_c(e):  # a Ctrl-C that a library turned into its own error
            return interrupted(argv)
        print(f"{command_name(argv)}: error: {e}{_resume_hint(e, argv)}", file=sys.stderr)
        return 2
    return 0


def _resume_hint(error: Exception, argv: Sequence[str]) -> str:
    """For a run that lost a worker, how to continue it: its finished games are on disk."""
    resume = resume_command(argv)
    if not isinstance(error, WorkerLost) or resume is None:
        return ""
    return f"; the games finished so far are kept: resume with: {resume}"
