"""Does reading the board explain more of the final scores than the afterstate value's summed features?

The value-ceiling measurement (``value_fit_ceiling.py``) found that, on 3- and 4-player self-play
games, a linear term over the afterstate value's per-player features explains as much of the targets
(final − end-now score) as the trainer's MLP over all 46 inputs: those inputs are exhausted. This
fits, on the same kind of games and the same held-out whole games, a small convolutional network over
the environment's observation of each player (its egocentric ``board`` planes max-pooled from 3×3
sub-cells to one value per cell, and its ``cells`` planes; :mod:`carcassonne_env.environment.observation`)
next to those 48 inputs, on what the linear term leaves, and prints the held-out mean squared error
(points², targets centred over the players) of: the end-now value, the linear term, the linear term
+ an MLP over the 48 inputs, the linear term + the CNN over the board and the 48 inputs. The two last
are trained alike (same epochs, batch, optimiser; the best held-out epoch kept), so a gap between them
is what the board adds. A sample of positions per game keeps the planes in memory.

    python scripts/maintainer/board_value_ceiling.py runs/table4_seed1 runs/table4_seed2 \\
        --positions-per-game 6 --epochs 8 --threads 2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.nets.value_net import INPUTS, value_inputs
from agents.value import FEATURES, design_row
from carcassonne_env.engine import Phase
from carcassonne_env.environment.observation import Encoder
from training.afterstate.value_iteration import read_records
from training.value.fit_linear import fit as fit_linear

WINDOW = 31


def encode(folders: list[Path], per_game: int, seed: int) -> dict[str, np.ndarray]:
    """Sampled PLACE positions of the games: planes (positions, players, C, W, W) uint8, inputs x
    (positions, players, 48), pile share t (positions,), targets y = final − end-now (positions, players)
    and the game index of each position."""
    records = read_records(folders)
    rng = np.random.default_rng(seed)
    planes, xs, ts, ys, games = [], [], [], [], []
    for index, record in enumerate(records):
        game = record.replay(0)
        count = 0  # the game's PLACE positions, then a sample of them encoded on a second replay
        for action in record.actions:
            count += game.phase is Phase.PLACE
            game.apply(action)
        final = np.asarray(game.scores, dtype=np.float64)
        chosen = set(rng.choice(count, size=min(per_game, count), replace=False).tolist())
        game = record.replay(0)
        encoder = Encoder(game.config, WINDOW)
        encoder.reset(game)
        place = 0
        for action in record.actions:
            if game.phase is Phase.PLACE:
                if place in chosen:
                    encoder.sync(game)
                    obs = [encoder.observation(game, p) for p in range(game.num_players)]
                    planes.append(np.stack([np.concatenate([
                        o["board"].reshape(o["board"].shape[0], WINDOW, 3, WINDOW, 3).max(axis=(2, 4)),
                        o["cells"]]) for o in obs]))
                    x, end_now, t = value_inputs(game)
                    xs.append(x)
                    ts.append(t)
                    ys.append(final - np.asarray(end_now, dtype=np.float64))
                    games.append(index)
                place += 1
            game.apply(action)
    return {"planes": np.stack(planes), "x": np.stack(xs).astype(np.float64), "t": np.asarray(ts),
            "y": np.stack(ys), "game": np.asarray(games)}


class BoardValue(nn.Module):
    """A correction per player from its planes and its 48 inputs (the MLP alone when ``board`` is off)."""

    def __init__(self, channels: int, inputs: int, board: bool) -> None:
        super().__init__()
        self.board = board
        self.conv = nn.Sequential(
            nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        ) if board else None
        width = inputs + (32 if board else 0)
        last = nn.Linear(64, 1)
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)
        self.head = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), last)

    def forward(self, planes: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        positions, players = x.shape[:2]
        features = x.reshape(positions * players, -1)
        if self.conv is not None:
            image = planes.reshape(positions * players, *planes.shape[2:]).float() / 8.0
            features = torch.cat([features, self.conv(image)], dim=1)
        out: torch.Tensor = self.head(features)
        return out.reshape(positions, players)


def train(model: BoardValue, data: dict[str, torch.Tensor], train_rows: np.ndarray, test_rows: np.ndarray,
          epochs: int, seed: int) -> tuple[float, int]:
    """Adam on the centred squared error of ``t · correction`` against the residual; the best held-out
    error and its epoch (0: the correction still zero)."""
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)

    def loss_of(rows: np.ndarray) -> torch.Tensor:
        idx = torch.as_tensor(rows)
        out: torch.Tensor = model(data["planes"][idx], data["x"][idx])
        out = (out - out.mean(dim=1, keepdim=True)) * data["t"][idx, None]
        return ((out - data["r"][idx]) ** 2).mean()

    def held() -> float:
        model.eval()
        with torch.no_grad():
            total = sum(float(loss_of(test_rows[i:i + 512])) * len(test_rows[i:i + 512])
                        for i in range(0, len(test_rows), 512))
        return total / len(test_rows)

    best = (held(), 0)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(train_rows)
        for i in range(0, len(order), 128):
            loss = loss_of(order[i:i + 128])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
        error = held()
        print(f"    epoch {epoch + 1}: held-out {error:.2f}", flush=True)
        if error < best[0]:
            best = (error, epoch + 1)
    return best


def main() -> None:
    """Encode, fit the linear term, then the MLP and the CNN on its residual; print the four errors."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", help="afterstate run folders (their gen_*/self_play games)")
    parser.add_argument("--positions-per-game", type=int, default=6)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--holdout", type=float, default=0.1, help="share of whole games held out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    folders = sorted(f for run in args.runs for f in run.glob("gen_*/self_play"))
    if not folders:
        raise SystemExit("no gen_*/self_play folders under the runs")
    start = time.perf_counter()
    d = encode(folders, args.positions_per_game, args.seed)
    positions, players = d["y"].shape
    print(f"{len(np.unique(d['game']))} games, {positions} positions of {players} players, planes "
          f"{d['planes'].shape[2:]} ({d['planes'].nbytes / 2**30:.1f} GiB), encoded in "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    games = np.unique(d["game"])
    held = np.random.default_rng(args.seed).choice(games, size=round(args.holdout * len(games)), replace=False)
    test = np.isin(d["game"], held)
    y = d["y"] - d["y"].mean(axis=1, keepdims=True)
    t = d["t"]
    f = d["x"][..., :len(FEATURES)]
    design = design_row(f, t[:, None, None])
    design = design - design.mean(axis=1, keepdims=True)
    w = fit_linear(design[~test].reshape(-1, design.shape[-1]), y[~test].reshape(-1), 1e-3)
    linear = design @ w
    r = y - linear
    print(f"  end-now (no correction)         {float((y[test] ** 2).mean()):8.2f}")
    print(f"  linear term over FEATURES       {float((r[test] ** 2).mean()):8.2f}", flush=True)
    x = d["x"]
    mean, std = x[~test].reshape(-1, x.shape[-1]).mean(0), x[~test].reshape(-1, x.shape[-1]).std(0) + 1e-6
    tensors = {"planes": torch.as_tensor(d["planes"]), "x": torch.as_tensor((x - mean) / std, dtype=torch.float32),
               "t": torch.as_tensor(t, dtype=torch.float32), "r": torch.as_tensor(r, dtype=torch.float32)}
    rows = np.arange(positions)
    for name, board in ((f"linear + MLP over the {len(INPUTS)} inputs", False),
                        ("linear + CNN over the board + the inputs", True)):
        print(f"  {name}:", flush=True)
        model = BoardValue(d["planes"].shape[2], len(INPUTS), board)
        error, epoch = train(model, tensors, rows[~test], rows[test], args.epochs, args.seed)
        print(f"  {name:<40} {error:8.2f}  (best epoch {epoch}; {time.perf_counter() - start:.0f} s so far)",
              flush=True)


if __name__ == "__main__":
    main()
