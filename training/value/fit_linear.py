"""Fit the linear value of :mod:`agents.value` on finished games (tournament ``games.jsonl`` files).

Every game is replayed from its record; at the start of every turn (the PLACE decision) each player
contributes one sample: its features and the target ``final score − end-now score`` (what the
end-now value misses). The weights are the least-squares fit (a small ridge term keeps unused
features, such as the tower's in the base game, at zero). A share of the games (whole games, so
that correlated samples of one game do not leak) is held out, and the fit is judged on it by the
error of the predicted final margin (own minus best other) against the end-now margin's.

    carcassonne train value runs/value_data/games.jsonl -o agents/pretrained/value_linear.json

The weights shipped in ``agents/pretrained/value_linear.json`` were fitted by
``scripts/fit_value.sh`` on 485 of 600 games of greedy against ``greedy:fast=1`` (2-player tower
variant; 115 held out); the file records the data and the held-out errors.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation import margins
from agents.value import FEATURES, design_row, player_features
from carcassonne_env.engine import GameRecord, IllegalActionError, Phase
from carcassonne_env.jsonio import JSONInputError, loads, read_line
from training.common.run_folder import cannot_write
from training.common.storage import FileLock, LockError, atomic_write_text

__all__ = ["Samples", "fit", "samples_from_record"]


@dataclass
class Samples:
    """Regression rows of one or more games: inputs X, targets y, and per row the game, the end-now
    margin, the final margin and the end-now score (for the held-out report)."""

    x: np.ndarray
    y: np.ndarray
    game: np.ndarray
    end_now: np.ndarray
    final: np.ndarray
    players: int


def samples_from_record(record: GameRecord, game_index: int) -> Samples:
    """Replay ``record``; one row per player at every turn's PLACE decision (ValueError, naming the
    game, for a record that is not a finished, legal game)."""
    game = record.replay(0)
    rows: list[np.ndarray] = []
    end_now: list[np.ndarray] = []
    for action in record.actions:
        if game.phase is Phase.PLACE:
            f, e, t = player_features(game)
            rows.append(design_row(f, t))
            end_now.append(e)
        try:
            game.apply(action)
        except IllegalActionError as err:
            raise ValueError(f"game {game_index}: {err}") from None
    if not game.is_over:
        raise ValueError(f"game {game_index}: the record does not reach the end of the game")
    final = np.array(game.scores, dtype=np.float64)
    n = game.num_players
    x = np.concatenate(rows) if rows else np.zeros((0, 2 * len(FEATURES)))
    e_all = np.concatenate(end_now) if end_now else np.zeros(0)
    return Samples(x, np.tile(final, len(rows)) - e_all, np.full(len(e_all), game_index), e_all,
                   np.tile(final, len(rows)), n)


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Least squares with a ridge term ``ridge · len(y)`` on every weight."""
    k = x.shape[1]
    return np.linalg.solve(x.T @ x + ridge * len(y) * np.eye(k), x.T @ y)


def _margin_rmse(scores: np.ndarray, final: np.ndarray, players: int) -> float:
    """RMS error of the margins of ``scores`` (rows of ``players``) against the final margins."""
    est = np.array([margins(list(r)) for r in scores.reshape(-1, players)])
    true = np.array([margins(list(r)) for r in final.reshape(-1, players)])
    return float(np.sqrt(np.mean((est - true) ** 2)))


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (also through a link)."""
    return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))


def main(argv: Sequence[str] | None = None, prog: str = "carcassonne train value") -> int:
    """``carcassonne train value`` (:mod:`training.cli.train`): parse ``argv`` and fit."""
    parser = argparse.ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fit the linear position value of greedy:value=linear (agents/value.py) on finished games.\n\n"
                    "Every game of the given tournament games.jsonl files is replayed; at each turn's start every\n"
                    "player gives one row: its features and the target final score - end-now score. The weights\n"
                    "are a ridge least-squares fit; whole games are held out and the fit is judged on them.",
        epilog="example: carcassonne train value runs/value_data/games.jsonl -o my_value.json\n"
               "then:    carcassonne tournament greedy:value=my_value.json greedy --seeds 100")
    parser.add_argument("games", nargs="+", type=Path, metavar="GAMES",
                        help="tournament games.jsonl files (finished games; carcassonne tournament writes them)")
    parser.add_argument("-o", "--out", type=Path, required=True, metavar="FILE",
                        help="the weights file to write (JSON); play it as greedy:value=FILE")
    parser.add_argument("--holdout", type=float, default=0.2, metavar="SHARE",
                        help="share of the games held out to judge the fit, in [0, 1) (default %(default)g)")
    parser.add_argument("--ridge", type=float, default=1e-3, metavar="X",
                        help="ridge term per sample of the least squares (default %(default)g)")
    parser.add_argument("--seed", type=int, default=0, metavar="N",
                        help="seed of the held-out split (default %(default)s)")
    parser.add_argument("--data", default=None, metavar="TEXT",
                        help="how the games were made, recorded in the weights file (default: the file names)")
    args = parser.parse_args(argv)
    if not 0 <= args.holdout < 1:
        parser.error(f"--holdout must be in [0, 1), got {args.holdout}")
    if not (math.isfinite(args.ridge) and args.ridge >= 0):
        parser.error(f"--ridge must be a finite number ≥ 0, got {args.ridge}")
    if args.seed < 0:
        parser.error(f"--seed must be ≥ 0, got {args.seed}")
    if args.out.suffix.lower() != ".json" or args.out.is_dir():
        parser.error(f"--out: expected a .json file name, got {str(args.out)!r}")
    if any(_same_file(path, args.out) for path in args.games):
        parser.error(f"--out {args.out}: is one of the games files (the weights would replace it)")
    if not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: cannot write there (no directory {args.out.parent})")
    try:
        lock = FileLock(args.out, "carcassonne train value").acquire()
    except LockError as e:
        parser.error(str(e))
    except OSError as e:
        parser.error(cannot_write(args.out, e))
    try:
        return _fit(parser, args)
    finally:
        lock.release()


def _fit(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Read the games of ``args``, fit, write ``args.out`` (atomically); exit through ``parser.error``."""
    records: list[tuple[int, int, GameRecord]] = []
    for f, path in enumerate(args.games):
        try:  # line by line, each within jsonio's bound (a binary file, /dev/zero: one error)
            with path.open("rb") as file:
                lines = [line.decode("utf-8") for line in iter(partial(read_line, file, path), b"")]
        except OSError as e:
            parser.error(f"cannot read {path}: {e}")
        except JSONInputError as e:
            parser.error(str(e))
        except UnicodeDecodeError:
            parser.error(f"cannot read {path}: not text (expected the JSON lines of a tournament's games)")
        for number, line in enumerate(lines, 1):
            try:
                data: dict[str, Any] = loads(line, f"line {number}")
                records.append((f, int(data["index"]), GameRecord.from_dict(data["record"])))
            except (ValueError, KeyError, TypeError) as e:
                print(f"skipping a line of {path}: {e}", file=sys.stderr)
    # Games in index order (parallel workers append them as they finish), so the fit and its
    # held-out split depend on the games only.
    records.sort(key=lambda r: r[:2])
    try:
        samples = [samples_from_record(record, i) for i, (_, _, record) in enumerate(records)]
    except ValueError as e:
        parser.error(str(e))
    players = {s.players for s in samples}
    if not samples:
        parser.error("no finished games in " + ", ".join(map(str, args.games)))
    if len(players) != 1:
        parser.error(f"the games must all have the same number of players, got {sorted(players)}")
    n = players.pop()
    rng = np.random.default_rng(args.seed)
    held = rng.random(len(samples)) < args.holdout
    train = [s for s, h in zip(samples, held, strict=True) if not h]
    test = [s for s, h in zip(samples, held, strict=True) if h]
    if not train:
        parser.error(f"--holdout {args.holdout} leaves none of the {len(samples)} games to fit on")
    x = np.concatenate([s.x for s in train])
    y = np.concatenate([s.y for s in train])
    weights = fit(x, y, args.ridge)
    report: dict[str, Any] = {"train_games": len(train), "train_rows": len(y), "test_games": len(test)}
    if test:
        xt = np.concatenate([s.x for s in test])
        et = np.concatenate([s.end_now for s in test])
        ft = np.concatenate([s.final for s in test])
        report["test_margin_rmse_end_now"] = round(_margin_rmse(et, ft, n), 2)
        report["test_margin_rmse_linear"] = round(_margin_rmse(et + xt @ weights, ft, n), 2)
    data = {"features": list(FEATURES), "weights": [round(float(w), 6) for w in weights], "players": n,
            "data": args.data or [str(p) for p in args.games], **report}
    try:
        atomic_write_text(args.out, json.dumps(data, indent=1) + "\n")
    except OSError as e:
        parser.error(f"cannot write {args.out}: {e}")
    for name, a, b in zip(FEATURES, weights[:len(FEATURES)], weights[len(FEATURES):], strict=True):
        print(f"{name:16s} t: {a:8.3f}   t²: {b:8.3f}")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
