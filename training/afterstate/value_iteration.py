"""Afterstate value iteration by self-play — TD-Gammon's recipe, one readable file.

    carcassonne train afterstate quick                        # ≈ 4 minutes on 2 cores, into runs/afterstate/quick
    carcassonne train afterstate full                         # hours, runs/afterstate/full; --resume continues it
    carcassonne train afterstate quick --generations 4        # any setting can be overridden
    carcassonne train afterstate table --players 4            # a 4-player agent (default 3), runs/afterstate/table

The policy is the one-turn search of :class:`~agents.greedy.GreedyAgent`: every line of the
player's turn (placement, follower / floor / tower top, capture) is valued by a position value at
the turn's end, and the best line is played; the tile draw that follows is chance. Learning that
value *is* learning the policy: a better value ranks the lines better. The value is
:class:`~agents.nets.value_net.ValueNet`, a small MLP correcting the end-now score (what greedy
maximises) towards the expected final score.

Each **generation** g:

1. **Self-play**: the best agent so far plays ``games_per_generation`` games against itself through
   the tournament back-ends (worker processes; ``--backend ray`` for a cluster), new tile orders
   every generation (``gen_NNN/self_play/``).
2. **Fit**: a fresh network is fitted to the last ``window`` generations' games: at every turn's
   start, each player's inputs (:func:`~agents.nets.value_net.value_inputs`) and the target
   *final score − end-now score* (Monte Carlo, ``td_lambda`` = 1) or the TD(λ) return of the
   best value's predictions along the game. Whole games are held out to stop the fit
   (``gen_NNN/candidate.npz``). torch, on ``--device``.
3. **Gate**: the candidate plays the best on paired seeds (seat-swapped pairs, ``gate_seeds`` tile
   orders) with the tournament runner, stopped early by an SPRT (H0: Elo ≤ 0, H1: Elo ≥
   ``gate_elo``) in 2-player games. It is admitted only if the SPRT accepts H1, or, when the games
   run out first, if the 95 % interval of its paired score lies above ½ (``gen_NNN/gate/``).
4. **Rating**: the best agent after the gate plays every anchor (random, greedy,
   ``greedy:value=linear``) on the same ``anchor_seeds`` tile orders each generation; its score
   and Elo against each, with intervals, go to ``curve.csv``, TensorBoard (``anchor/…``) and
   ``ratings.png`` (ratings against training hours).

Generation 0 is the starting value (``init``: ``end_now`` = the reference greedy, ``linear`` =
the shipped linear value, or a ``.npz``), rated like the others. ``state.json`` records each step
as it finishes (written atomically), so a killed run continues with ``--resume`` where it stopped;
the tournaments inside resume game by game, also in a copy of the directory or under another name
(the paths the run recorded are moved there, :func:`training.checks.relocate_run`); a candidate
that cannot be loaded at its gate is fitted again. A run folder reduced to ``state.json`` and the
admitted generations' ``candidate.npz`` (what a machine that is not kept should save) resumes too:
the fit plays its window's lost self-play games again, the same games. One run at a time holds the directory's lock
(:func:`training.checks.run_lock`). The best network is ``best.npz`` (agent spec
``afterstate:OUT/best.npz``); ``best.spec`` holds the best agent's spec (generation 0's greedy
until a generation is admitted).
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import shutil
import time
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents import make_agent, position_value
from agents.afterstate import PRETRAINED
from agents.evaluation import PositionValue
from agents.first_place import spread_of_residuals
from agents.manifest import verified
from agents.nets.value_net import INPUTS, ValueNet, value_inputs
from agents.spec import AgentSpecError
from agents.value import FEATURES, design_row
from carcassonne_env.engine import ConfigError, GameConfig, GameRecord, Phase
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena import tournament
from training.arena.anchors import rate_against_anchors
from training.arena.backends import BACKENDS, make_backend
from training.arena.ratings import head_to_heads, pair_stats
from training.checks import (
    SEED_LIMIT,
    check_agents,
    check_device,
    check_out,
    cwd_relative,
    locked_run_state,
    write_json,
)
from training.sb3.threads import free_cores, torch_threads
from training.value.fit_linear import fit as fit_linear

__all__ = ["PRESETS", "Samples", "Settings", "fit_value_net", "gate_passes", "read_records", "samples_from_games",
           "train"]


@dataclass(frozen=True)
class Settings:
    """Every setting of an afterstate value-iteration run (each one is a command-line flag)."""

    out: str = "runs/afterstate"
    """Output directory: generations, networks, TensorBoard logs, curve.csv, ratings.png (runs/afterstate/PRESET)."""
    seed: int = 0
    """Seeds the tile orders of self-play and gates, the agents' tie-breaks and the fits."""
    players: int = 2
    """Players per game (2–6)."""
    expansions: tuple[str, ...] = TOWER_VARIANT
    """Expansions in play (the 2-player tower variant by default)."""
    generations: int = 8
    """Generations to train in total; --resume continues up to it (raise it to train longer)."""
    init: str = "end_now"
    """Generation 0's value: end_now (the reference greedy), linear (the shipped linear value for the run's player
    count), a .npz, or pretrained_2p (afterstate:pretrained's 2-player network; a network made for another
    player count is adopted for the run's)."""
    games_per_generation: int = 200
    """Self-play games each generation."""
    window: int = 3
    """Generations of self-play games each fit sees (the newest ones)."""
    play_fast: bool = True
    """Self-play with greedy's fast option (tower look-ahead pruned at PLACE: ~3× cheaper)."""
    eval_fast: bool = False
    """The gate and the ratings with the fast option too (for quick runs; the anchors are as named)."""
    td_lambda: float = 1.0
    """λ of the TD(λ) targets: 1 = Monte Carlo (final score), < 1 mixes in the best value's predictions."""
    linear_term: bool = True
    # the linear term is a ridge least squares over the fit's own games; the network starts at zero
    """Each fit starts with a linear term (as carcassonne train value fits); the network learns the rest."""
    relative: bool = True
    # fitted to the centred targets: not the points every player gains alike
    """Centre the network's correction over the players: it learns who gains on whom (what a margin search reads)."""
    ridge: float = 1e-3
    """Ridge term per row of the linear term's least squares."""
    hidden: tuple[int, ...] = (64, 64)
    """Hidden layer widths of the value network."""
    epochs: int = 40
    """Maximum passes over the fit's data (the held-out loss stops it earlier)."""
    batch_size: int = 512
    """Rows per minibatch of the fit."""
    learning_rate: float = 1e-3
    """Adam's learning rate of the fit."""
    weight_decay: float = 1e-4
    """Adam's weight decay of the fit."""
    holdout: float = 0.1
    """Share of the fit's games held out to choose the epoch."""
    gate_seeds: int = 200
    """Tile orders of the gate at most (each played in every seat rotation: 400 games for 2 players)."""
    gate_elo: float = 20.0
    """The gate's SPRT H1 (Elo over the best); H0 is Elo ≤ 0; α = β = 0.05."""
    anchors: tuple[str, ...] = ("random", "greedy", "greedy:value=linear")
    """Fixed agents every generation's best is rated against."""
    anchor_seeds: int = 50
    """Tile orders per anchor (the same every generation)."""
    workers: int = 0
    """Game-playing workers (0 = the free cores)."""
    backend: Literal["process", "ray"] = "process"
    """Where games are played: worker processes or Ray tasks (``address`` for a cluster)."""
    address: str = ""
    """Ray cluster address with --backend ray (empty: a local Ray)."""
    device: str = "cpu"
    """torch device of the fit: cpu or cuda."""
    threads: int = 0
    """torch threads of the fit (0 = choose from the free cores)."""
    resume: bool = False
    """Continue the run in --out, also copied or moved (same settings but generations, workers, device, threads)."""
    progress: bool = True
    """Show progress bars."""

    def game_config(self) -> GameConfig:
        return GameConfig(players=self.players, expansions=self.expansions)


PRESETS: dict[str, tuple[str, Settings]] = {
    "quick": ("≈ 5 minutes on 2 CPU cores: two generations from greedy (fast search throughout), 60 self-play "
              "games each, every generation rated against greedy:fast=1 (its starting point) on 30 tile orders.",
              Settings(out="runs/afterstate/quick", generations=2, games_per_generation=60, window=2, epochs=30,
                       eval_fast=True, gate_seeds=40, gate_elo=40.0, anchors=("greedy:fast=1",), anchor_seeds=30)),
    "full": ("The pretrained agent (≈ 20 minutes a generation on 2 cores; use many): generations of 1,000 "
             "self-play games from the reference greedy, gates of up to 400 games, rated against random, greedy "
             "and greedy:value=linear on 100 tile orders each.",
             Settings(out="runs/afterstate/full", generations=12, games_per_generation=1000, window=2,
                      anchor_seeds=100)),
    "table": ("Agents for 3–6 players (--players N, default 3; ≈ 40 minutes a generation at 3 players on 2 "
              "cores): generations of 300 self-play games from afterstate:pretrained's 2-player network (adopted "
              "for N players), a gauntlet gate (the candidate against N − 1 copies of the best) of up to 30 tile "
              "orders in every seat rotation, rated against greedy and greedy:value=linear on 20 tile orders each.",
              Settings(out="runs/afterstate/table", players=3, generations=4, init="pretrained_2p",
                       games_per_generation=300, window=2, gate_seeds=30, anchors=("greedy", "greedy:value=linear"),
                       anchor_seeds=20)),
}

#: The steps of a generation, in order: a state.json names the one to run next.
_STEPS = ("rate", "play", "fit", "gate")
#: Settings that may change on --resume (they do not change what the run computes).
_RESUMABLE = ("generations", "workers", "device", "threads", "progress", "resume", "backend", "address")


# ------------------------------------------------------------------------------------------ checks
def check(s: Settings) -> None:
    """Raise ValueError naming the first setting that cannot run."""
    try:
        s.game_config()
    except ConfigError as e:
        raise ValueError(f"--players / --expansions: {e}") from None
    positive = ("generations", "games_per_generation", "window", "epochs", "batch_size", "gate_seeds",
                "anchor_seeds")
    for name in positive:
        if getattr(s, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(s, name)}")
    for name in ("workers", "threads", "seed"):
        if getattr(s, name) < 0:
            raise ValueError(f"--{name} must be ≥ 0, got {getattr(s, name)}")
    if not 0.0 <= s.td_lambda <= 1.0:
        raise ValueError(f"--td-lambda must be in [0, 1], got {s.td_lambda}")
    if not 0.0 <= s.holdout < 0.5:
        raise ValueError(f"--holdout must be in [0, 0.5), got {s.holdout}")
    if not (s.learning_rate > 0 and math.isfinite(s.learning_rate)):
        raise ValueError(f"--learning-rate must be a positive number, got {s.learning_rate}")
    if not (s.ridge >= 0 and math.isfinite(s.ridge)):
        raise ValueError(f"--ridge must be ≥ 0, got {s.ridge}")
    if not (s.weight_decay >= 0 and math.isfinite(s.weight_decay)):
        raise ValueError(f"--weight-decay must be ≥ 0, got {s.weight_decay}")
    if not (s.gate_elo > 0 and math.isfinite(s.gate_elo)):
        raise ValueError(f"--gate-elo must be a positive number, got {s.gate_elo}")
    if not s.hidden or min(s.hidden) < 1:
        raise ValueError(f"--hidden must list positive layer widths, got {s.hidden}")
    if s.backend not in BACKENDS:
        raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {s.backend!r}")
    if s.seed >= SEED_LIMIT:
        raise ValueError(f"--seed must be below 2**32 (numpy's seeds), got {s.seed}")
    if not s.anchors:
        raise ValueError("--anchors needs at least one agent spec")
    if s.address and s.backend != "ray":
        raise ValueError(f"--address {s.address!r}: only --backend ray runs on a cluster")
    check_out(s.out)
    check_device(s.device, auto=False)
    for spec in (_spec_of(s.init, fast=False, players=s.players), *s.anchors):
        try:
            make_agent(spec, seed=0)
        except AgentSpecError as e:
            raise ValueError(f"agent {spec!r}: {e}") from None
    if _init_file(s.init) is not None:
        adopted_init(_init_file(s.init) or "", s.game_config().to_dict())
    else:
        check_agents("init", [_spec_of(s.init, fast=False, players=s.players)], s.game_config())
    check_agents("anchors", s.anchors, s.game_config())


def adopted_init(path: str, config: dict[str, Any], name: str | None = None) -> ValueNet:
    """The network of ``--init PATH.npz`` for a run of ``config``: itself when made for ``config``;
    made for another player count of the same game (expansions, rules), the same weights with
    ``config`` (``info`` says where from: ``name``, else ``path``). The inputs of a network do not
    depend on the count (a player's own features, the strongest other player's, the pile share), so
    a network made for 2 players plays at 3 as it is; the run's generations then fit new ones on
    games of its own count.
    ValueError naming both games for any other difference."""
    net = ValueNet.load(path)
    if net.config == config:
        return net
    if {**net.config, "players": config["players"]} != config:
        raise ValueError(f"--init {path}: the network was made for the game {json.dumps(net.config, sort_keys=True)}; "
                         f"only its player count may differ from this run's {json.dumps(config, sort_keys=True)}")
    # a spread is measured on games of the network's own count (agents.first_place): not carried over
    info = {**{k: v for k, v in net.info.items() if k != "spread"}, "adopted_from": name or path,
            "adopted_players": net.config["players"]}
    return replace(net, config=config, info=info)


def _init_file(init: str) -> str | None:
    """The network file of ``--init`` (a .npz, or the shipped 2-player one for ``pretrained_2p``); None for a
    value that is no network (end_now, linear). The shipped one, once the manifest vouches for it
    (:func:`agents.manifest.verified`), is named relative to the working directory when it lies below it,
    as the run's own files are: a run copied to another checkout resumes there."""
    return cwd_relative(verified(PRETRAINED)) if init == "pretrained_2p" else init if init.endswith(".npz") else None


def _spec_of(value: str, fast: bool, players: int) -> str:
    """The agent spec that searches on ``value`` (end_now, linear, pretrained_2p or a .npz path). Its
    networks aim at the margin at every player count (``spread=0`` at 3+ players, where an afterstate
    agent would otherwise aim at first place with the spread its network records): the run compares
    values under one aim, the one its anchors and its earlier generations were played with."""
    value = _init_file(value) or value
    option = ",fast=1" if fast else ""
    if value == "end_now":
        return "greedy" + (":fast=1" if fast else "")
    if value.endswith(".npz"):
        return f"afterstate:{value}{option}" + (",spread=0" if players >= 3 else "")
    return f"greedy:value={value}{option}"


# ------------------------------------------------------------------------------------------ data
@dataclass
class Samples:
    """Regression rows: inputs ``x`` (rows × len(INPUTS)), pile share ``t``, target corrections
    ``y`` (expected final − end-now score) and the game each row comes from. Rows come in blocks of
    ``players``: the players of one position, in seat order."""

    x: np.ndarray
    t: np.ndarray
    y: np.ndarray
    game: np.ndarray
    players: int


def _predicted_finals(value: PositionValue | None, game: Any, end_now: Sequence[float]) -> list[float]:
    """The best value's expected final scores of ``game`` (the end-now scores for the end-now value)."""
    final_scores = getattr(value, "final_scores", None)
    return list(end_now) if final_scores is None else [float(v) for v in final_scores(game)]


def samples_from_games(records: Sequence[GameRecord], td_lambda: float = 1.0,
                       value: PositionValue | None = None) -> Samples:
    """Replay each finished game; one row per player at every turn's start (PLACE). The target of a
    row is ``G − end_now``, where G is the λ-return of the expected final scores along the game:
    G_k = (1 − λ) · V(s_{k+1}) + λ · G_{k+1}, G at the end = the final scores; λ = 1 is the final
    score (Monte Carlo). ``value`` is the V of λ < 1."""
    xs, ts, ys, gs = [], [], [], []
    for index, record in enumerate(records):
        game = record.replay(0)
        states: list[tuple[np.ndarray, list[float], float, list[float]]] = []
        for action in record.actions:
            if game.phase is Phase.PLACE:
                x, end_now, t = value_inputs(game)
                v = _predicted_finals(value, game, end_now) if td_lambda < 1.0 else end_now
                states.append((x, end_now, t, v))
            game.apply(action)
        if not game.is_over:
            raise ValueError(f"game {index}: the record does not reach the end of the game")
        g = np.array(game.scores, dtype=np.float64)
        for k in range(len(states) - 1, -1, -1):
            x, end_now, t, _ = states[k]
            if k + 1 < len(states):
                g = (1.0 - td_lambda) * np.array(states[k + 1][3]) + td_lambda * g
            xs.append(x)
            ts.append(np.full(len(end_now), t))
            ys.append(g - np.array(end_now))
            gs.append(np.full(len(end_now), index))
    if not xs:
        raise ValueError("no positions to fit: the games are empty")
    return Samples(np.concatenate(xs), np.concatenate(ts), np.concatenate(ys), np.concatenate(gs), len(xs[0]))


def read_records(dirs: Sequence[Path]) -> list[GameRecord]:
    """The records of the games of self-play tournament directories, in game-index order (every line
    is replayed and checked against its recorded scores as it is read)."""
    records: list[GameRecord] = []
    for d in dirs:
        games = sorted(tournament.iter_games(d), key=lambda g: int(g["index"]))  # file order is completion order
        records.extend(GameRecord.from_dict(g["record"]) for g in games)
    return records


# ------------------------------------------------------------------------------------------ the fit
def fit_value_net(samples: Samples, s: Settings, seed: int, config: dict[str, Any],
                  log: Any = None, step: int = 0) -> tuple[ValueNet, dict[str, float]]:
    """Fit a fresh :class:`ValueNet` to ``samples``: the linear term by ridge least squares (with
    ``s.linear_term``), then the MLP on what it leaves by Adam on the squared error, from zero, whole
    games held out to pick the best epoch (epoch 0: the MLP still zero). With ``s.relative`` both fit
    the targets centred over each position's players. Returns the network and its held-out losses
    (mean squared points of the fitted criterion) with those of the end-now value (correction 0) and
    of the linear term alone."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = samples.players
    games = np.unique(samples.game)
    held = set(rng.choice(games, size=round(s.holdout * len(games)), replace=False).tolist())
    test = np.isin(samples.game, list(held))
    train = ~test
    mean = samples.x[train].mean(axis=0)
    std = samples.x[train].std(axis=0)
    std[std < 1e-6] = 1.0
    design = design_row(samples.x[:, :len(FEATURES)], samples.t[:, None])

    def centred_rows(a: np.ndarray) -> np.ndarray:
        """``a`` (rows first) minus its mean over each position's players, with ``s.relative``."""
        if not s.relative:
            return a
        grouped = a.reshape(-1, n, *a.shape[1:])
        return np.asarray(grouped - grouped.mean(axis=1, keepdims=True)).reshape(a.shape)

    linear = fit_linear(centred_rows(design)[train], centred_rows(samples.y)[train], s.ridge) \
        if s.linear_term else None
    residual = samples.y - (design @ linear if linear is not None else 0.0)
    device = torch.device(s.device)

    def tensors(mask: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Inputs, shares and residual targets of the rows in ``mask``, one position per row of players."""
        def grouped(a: np.ndarray) -> torch.Tensor:
            return torch.tensor(a[mask].reshape(-1, n, *a.shape[1:]), dtype=torch.float32, device=device)
        return grouped((samples.x - mean) / std), grouped(samples.t), grouped(residual)

    xtr, ttr, ytr = tensors(train)
    xte, tte, yte = tensors(test)
    widths = (len(INPUTS), *s.hidden)
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(widths):
        layers += [nn.Linear(a, b), nn.ReLU()]
    head = nn.Linear(widths[-1], 1)
    nn.init.zeros_(head.weight)
    nn.init.zeros_(head.bias)
    model = nn.Sequential(*layers, head).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=s.learning_rate, weight_decay=s.weight_decay)

    def centred(a: torch.Tensor) -> torch.Tensor:
        return a - a.mean(dim=-1, keepdim=True) if s.relative else a

    def loss_of(x: torch.Tensor, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        prediction = centred(model(x)[..., 0]) * t
        return ((prediction - centred(y)) ** 2).mean()

    model.eval()
    with torch.no_grad():
        linear_loss = float(loss_of(xte, tte, yte)) if len(yte) else math.nan
        end_now_loss = float((centred_rows(samples.y)[test] ** 2).mean()) if len(yte) else math.nan
    best = (linear_loss if len(yte) else math.inf, [p.detach().clone() for p in model.parameters()], 0)
    positions = len(ytr)
    batch = max(1, s.batch_size // n)
    for epoch in range(s.epochs):
        model.train()
        order = torch.randperm(positions, device=device)
        total = 0.0
        for i in range(0, positions, batch):
            idx = order[i:i + batch]
            loss = loss_of(xtr[idx], ttr[idx], ytr[idx])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]  # torch's stub leaves Tensor.backward untyped
            opt.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            held_loss = float(loss_of(xte, tte, yte)) if len(yte) else total / positions
        if log is not None:
            log.add_scalar("fit/train_mse", total / positions, step * 1000 + epoch)
            log.add_scalar("fit/heldout_mse", held_loss, step * 1000 + epoch)
        if held_loss < best[0]:
            best = (held_loss, [p.detach().clone() for p in model.parameters()], epoch + 1)
    with torch.no_grad():
        for p, saved in zip(model.parameters(), best[1], strict=True):
            p.copy_(saved)
    linears = [m for m in model if isinstance(m, nn.Linear)]
    # the final scores' noise that explains the held-out error: the spread of the first-place aim at 3+ players
    spread = {"spread": spread_of_residuals(best[0], float(samples.t[test].mean()), n, s.relative)} \
        if len(yte) and samples.t[test].mean() > 0 else {}
    net = ValueNet(
        tuple((m.weight.detach().cpu().double().numpy().T.copy(), m.bias.detach().cpu().double().numpy().copy())
              for m in linears),
        mean.astype(np.float64), std.astype(np.float64), config,
        {"rows": int(train.sum()), "heldout_rows": int(test.sum()), "epochs": best[2], **spread},
        linear, s.relative,
    )
    return net, {"heldout_mse": best[0], "heldout_mse_end_now": end_now_loss, "heldout_mse_linear": linear_loss,
                 "epochs": float(best[2])}


# ------------------------------------------------------------------------------------------ the gate
def gate_passes(games: Sequence[dict[str, Any]], candidate: str, best: str, sprt_decision: str | None,
                players: int = 2) -> tuple[bool, dict[str, float]]:
    """Whether the candidate is admitted: the SPRT accepted H1, or (no decision) the 95 % interval of
    its paired score (per tile order, over the seat rotations) lies above an equal agent's share,
    1 / ``players``. For more than two players the gate is a gauntlet, the candidate against
    ``players − 1`` copies of the best, and a game scores 1 when the candidate's score beats the
    best copy's, ½ on a tie, else 0: an agent no better than the best wins 1 / ``players`` of those."""
    stats = pair_stats(head_to_heads(games, (candidate, best)), candidate, best)
    low, high = stats.paired_score_ci
    passed = sprt_decision == "H1" or (sprt_decision is None and low > 1.0 / players)
    return passed, {"score": stats.score, "score_low": low, "score_high": high, "games": float(stats.games),
                    "elo": _finite(stats.elo), "margin": stats.margin}


def _finite(x: float) -> float:
    return max(-1000.0, min(1000.0, x))


# ------------------------------------------------------------------------------------------ the run
def _self_play(s: Settings, g: int, spec: str, out: Path, workers: int) -> None:
    """Play (or resume) generation ``g``'s self-play games into ``out`` (a tournament directory)."""
    _tournament(s, out, (spec,), "self_play", s.games_per_generation, 10_000_000 * (s.seed + 1) + 100_000 * g,
                workers)


def _tournament(s: Settings, out: Path, agents: tuple[str, ...], mode: str, seeds: int, first_seed: int,
                workers: int, sprt: tuple[float, float, float, float] | None = None) -> tuple[list[dict[str, Any]],
                                                                                         str | None]:
    """Play (or resume) a tournament into ``out``; the games the SPRT decision stands on (every game
    without a decision) and the decision."""
    settings = tournament.Settings(agents=agents, mode=mode, seeds=seeds, first_seed=first_seed,
                                   config=s.game_config().to_dict(), sprt=sprt)
    state = tournament.run(settings, out, workers, resume=True, progress=s.progress,
                           backend=make_backend(s.backend, s.address or None))
    games = tournament.sprt_games(settings, tournament.load_games(out), state)
    return games, state.decision if state is not None else None


def _rate(s: Settings, g: int, spec: str, out: Path, workers: int) -> dict[str, dict[str, float]]:
    """The best agent of generation ``g`` against every anchor on the fixed anchor seeds."""
    return rate_against_anchors(spec, s.anchors, s.anchor_seeds, 90_000_000 + 1_000 * s.seed, s.game_config(), out,
                                workers, s.progress, s.backend, s.address)[0]


def _initial_value(s: Settings, out: Path, config: dict[str, Any]) -> str:
    """Generation 0's value: ``--init``, or, for a network made for another player count, its adoption
    :func:`adopted_init` saved as ``OUT/init.npz`` (saved again when the file was lost: the adoption
    is exact)."""
    init_file = _init_file(s.init)
    if init_file is None or ValueNet.load(init_file).config == config:
        return init_file or s.init
    path = out / "init.npz"
    if _unloadable(path) is not None:
        net = adopted_init(init_file, config, s.init)
        net.save(path)
        print(f"== generation 0: {init_file} (made for {net.info['adopted_players']} players) adopted as {path}",
              flush=True)
    return str(path)


def _self_play_value(s: Settings, out: Path, state: dict[str, Any], k: int, config: dict[str, Any]) -> str:
    """The value whose agent plays generation ``k``'s self-play: the best at the generation's start,
    the candidate of the last generation before ``k`` that was admitted, else generation 0's.
    Those games follow from it and their seeds alone (:func:`training.arena.match.agent_seed`), so a run
    whose folder kept only ``state.json`` and its admitted networks plays the same games again.
    ValueError naming a lost admitted network: a fit is not repeated to the bit on another machine."""
    admitted = [int(h["generation"]) for h in state["history"] if 0 < int(h["generation"]) < k and h["admitted"]]
    if not admitted:
        return _initial_value(s, out, config)
    path = out / f"gen_{max(admitted):03d}" / "candidate.npz"
    if (damaged := _unloadable(path)) is not None:
        raise ValueError(f"{path}: generation {max(admitted)}'s admitted network, which played generation {k}'s "
                         f"self-play, cannot be loaded ({damaged}); restore it to resume the run")
    return str(path)


def _unloadable(path: Path) -> str | None:
    """Why the value network at ``path`` cannot be loaded (missing, cut short, not a network), or None."""
    try:
        ValueNet.load(path)
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as e:
        return str(e)
    return None


def _plot(history: list[dict[str, Any]], anchors: Sequence[str], path: Path, players: int = 2) -> None:
    """Elo of the best agent against each anchor (95 % interval) over training hours, one point per
    generation; a clean sweep (infinite Elo) is drawn at the top edge as an open marker. At more than
    two players the Elo is that of the agent's score against the best of the anchor's copies, so an
    agent as good as the anchor scores 1 / ``players``: its Elo, −400·log10(players − 1), is drawn dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    top, bottom = 600.0, -400.0
    fig, ax = plt.subplots(figsize=(7, 4.2))
    hours = [h["hours"] for h in history]
    for anchor in anchors:
        rows = [h["ratings"][anchor] for h in history]
        elo = [min(top, max(bottom, r["elo"])) for r in rows]
        line = ax.plot(hours, elo, marker="o", label=f"vs {anchor}")[0]
        ax.fill_between(hours, [min(top, max(bottom, r["elo_low"])) for r in rows],
                        [min(top, max(bottom, r["elo_high"])) for r in rows], alpha=0.15, color=line.get_color())
        swept = [(x, top) for x, r in zip(hours, rows, strict=True) if r["elo"] >= top]
        if swept:
            ax.plot(*zip(*swept, strict=True), marker="^", ms=10, mfc="white", ls="", color=line.get_color())
    for h in history:
        ax.annotate(f"g{h['generation']}", (h["hours"], min(top, max(bottom, h["ratings"][anchors[-1]]["elo"]))),
                    fontsize=7, textcoords="offset points", xytext=(0, 6), ha="center")
    ax.axhline(0.0, color="grey", lw=0.8)
    if players > 2:
        even = -400.0 * math.log10(players - 1)
        ax.axhline(even, color="grey", lw=0.8, ls="--")
        ax.annotate(f"as good as the anchor ({players} players: wins 1/{players})", (hours[0], even), fontsize=7,
                    textcoords="offset points", xytext=(0, -10), color="grey")
    ax.set_ylim(bottom - 20, top + 40)
    ax.set_xlabel("training hours (wall)")
    ax.set_ylabel("Elo of the best agent against the anchor")
    ax.set_title("Afterstate value iteration: each generation's best against fixed anchors\n"
                 "(open triangle at the top: a clean sweep)", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _write_curve(history: list[dict[str, Any]], anchors: Sequence[str], out: Path, players: int = 2) -> None:
    tmp = out / "curve.csv.tmp"
    with tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["generation", "admitted", "hours", "best", *(f"{a}_{k}" for a in anchors
                                                                  for k in ("score", "low", "high", "elo"))])
        for h in history:
            w.writerow([h["generation"], int(h["admitted"]), round(h["hours"], 4), h["best"],
                        *(round(h["ratings"][a][k], 4) for a in anchors for k in ("score", "low", "high", "elo"))])
    os.replace(tmp, out / "curve.csv")
    _plot(history, anchors, out / "ratings.png", players)


def train(s: Settings) -> Path:
    """Run (or resume) the value iteration described by ``s``; returns the directory of the run."""
    check(s)
    out = Path(s.out)
    with locked_run_state(s, out, _RESUMABLE, {
            "settings": asdict(s), "generation": 0, "step": "rate",
            "best": _spec_of(s.init, fast=s.eval_fast, players=s.players),
            "best_value": _init_file(s.init) or s.init, "seconds": 0.0, "history": []},
            choices={"step": _STEPS}) as state:
        return _train(s, out, state)


def _train(s: Settings, out: Path, state: dict[str, Any]) -> Path:
    """The run of :func:`train` from its (fresh or resumed) ``state``, under the run's lock."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    workers = s.workers or free_cores()
    torch.set_num_threads(torch_threads(s.threads))
    log = SummaryWriter(str(out / "tensorboard"))
    config = s.game_config().to_dict()
    started = time.time()
    base_seconds = float(state["seconds"])

    def save(**changes: Any) -> None:
        state.update(changes, seconds=base_seconds + time.time() - started, settings=asdict(s))
        write_json(out / "state.json", state)
        tmp = out / "best.spec.tmp"
        tmp.write_text(state["best"] + "\n")
        os.replace(tmp, out / "best.spec")

    initial = _initial_value(s, out, config)
    if state["best_value"] == _init_file(s.init) and not state["history"] and initial != state["best_value"]:
        save(best=_spec_of(initial, fast=s.eval_fast, players=s.players), best_value=initial)
    try:
        while True:
            g = int(state["generation"])
            gen = out / f"gen_{g:03d}"
            if state["step"] == "rate":
                print(f"== generation {g}: rating {state['best']} against {', '.join(s.anchors)}", flush=True)
                admitted = bool(state.get("admitted", True))
                if admitted or not state["history"]:
                    ratings = _rate(s, g, state["best"], gen / "anchors", workers)
                else:  # the best did not change: its games against the anchors would be the same
                    ratings = state["history"][-1]["ratings"]
                hours = (base_seconds + time.time() - started) / 3600
                entry = {"generation": g, "admitted": admitted, "hours": hours, "best": state["best"],
                         "ratings": ratings}
                history = [h for h in state["history"] if h["generation"] != g] + [entry]
                for anchor, r in ratings.items():
                    log.add_scalar(f"anchor/{anchor}/elo", r["elo"], g)
                    log.add_scalar(f"anchor/{anchor}/score", r["score"], g)
                _write_curve(history, s.anchors, out, s.players)
                for anchor, r in ratings.items():
                    print(f"   vs {anchor:24s} score {r['score']:.3f} [{r['low']:.3f}, {r['high']:.3f}]  "
                          f"Elo {r['elo']:+.0f}  margin {r['margin']:+.1f}", flush=True)
                save(history=history, step="play", generation=g + 1)
                continue
            if g > s.generations:
                break
            if state["step"] == "play":
                spec = _spec_of(_self_play_value(s, out, state, g, config), fast=s.play_fast, players=s.players)
                print(f"== generation {g}: {s.games_per_generation} self-play games of {spec}", flush=True)
                _self_play(s, g, spec, gen / "self_play", workers)
                save(step="fit")
            if state["step"] == "gate" and (damaged := _unloadable(gen / "candidate.npz")) is not None:
                print(f"   {gen / 'candidate.npz'} cannot be loaded ({damaged}): fitting it again", flush=True)
                shutil.rmtree(gen / "gate", ignore_errors=True)  # games of the lost candidate
                save(step="fit")
            if state["step"] == "fit":
                first = max(1, g - s.window + 1)
                paths = [out / f"gen_{k:03d}" / "self_play" for k in range(first, g + 1)]
                for played, folder in enumerate(paths, start=first):  # games lost with the machine: played again
                    games_file = folder / tournament.GAMES_FILE
                    if games_file.exists() and sum(1 for _ in games_file.open()) >= s.games_per_generation:
                        continue  # complete: read_records below checks every game, no need to twice
                    print(f"   generation {played}'s self-play games are not all in {folder}: playing them again",
                          flush=True)
                    _self_play(s, played, _spec_of(_self_play_value(s, out, state, played, config),
                                                   fast=s.play_fast, players=s.players), folder, workers)
                print(f"== generation {g}: fitting on the games of generations {first}–{g}", flush=True)
                best_value = position_value(state["best_value"]) if s.td_lambda < 1.0 else None
                samples = samples_from_games(read_records(paths), s.td_lambda, best_value)
                net, losses = fit_value_net(samples, s, s.seed * 1000 + g, config, log, g)
                net = replace(net, info={**net.info, "generation": g, "settings": asdict(s)})
                net.save(gen / "candidate.npz")
                for k, v in losses.items():
                    log.add_scalar(f"fit/{k}", v, g)
                print(f"   held-out mean squared error {losses['heldout_mse']:.1f} (end-now value: "
                      f"{losses['heldout_mse_end_now']:.1f}, linear term alone: {losses['heldout_mse_linear']:.1f}), "
                      f"{samples.y.size} rows, best epoch {losses['epochs']:.0f}", flush=True)
                save(step="gate")
            if state["step"] == "gate":
                candidate = _spec_of(str(gen / "candidate.npz"), fast=s.eval_fast, players=s.players)
                print(f"== generation {g}: gate, {candidate} against {state['best']}", flush=True)
                sprt = (0.0, s.gate_elo, 0.05, 0.05) if s.players == 2 else None
                mode = "round_robin" if s.players == 2 else "gauntlet"
                games, decision = _tournament(s, gen / "gate", (candidate, state["best"]), mode, s.gate_seeds,
                                              50_000_000 + 100_000 * s.seed + 1_000 * g, workers, sprt)
                passed, gate = gate_passes(games, candidate, state["best"], decision, s.players)
                for k, v in gate.items():
                    log.add_scalar(f"gate/{k}", v, g)
                print(f"   score {gate['score']:.3f} [{gate['score_low']:.3f}, {gate['score_high']:.3f}] over "
                      f"{gate['games']:.0f} games, SPRT {decision or 'undecided'}: "
                      + ("admitted" if passed else "not admitted"), flush=True)
                changes: dict[str, Any] = {"step": "rate", "admitted": passed,
                                           "gates": {**state.get("gates", {}), str(g): {**gate, "sprt": decision}}}
                if passed:
                    shutil.copyfile(gen / "candidate.npz", out / "best.npz.tmp")
                    os.replace(out / "best.npz.tmp", out / "best.npz")
                    changes.update(best=candidate, best_value=str(gen / "candidate.npz"), best_generation=g)
                save(**changes)
    finally:  # a step stopped half-way keeps its time: its finished games are kept, and --resume goes on from them
        log.close()
        save()
    print(f"best: {state['best']} (ratings: {out / 'curve.csv'}, {out / 'ratings.png'})")
    return out


def main(argv: Sequence[str] | None = None, prog: str = "carcassonne train afterstate") -> int:
    """``carcassonne train afterstate`` (:mod:`training.cli.train`): a preset, then overrides."""
    import sys

    import tyro

    from training.cli.dialect import comma_lists, list_flags, preset_help, refuse_old_spellings

    refuse_old_spellings(sys.argv[1:] if argv is None else argv, prog, lists=list_flags(Settings))
    summary = ("Afterstate value iteration by self-play (TD-Gammon's recipe): the position value that greedy's "
               "one-turn search plays by, the afterstate: agents (module training/afterstate/value_iteration.py, "
               "docs/training.md).")
    settings = tyro.extras.overridable_config_cli(PRESETS, args=argv, prog=prog, registry=comma_lists(),
                                                  description=preset_help(summary, prog, "quick --generations 4"))
    try:
        train(settings)
    except ValueError as e:
        raise SystemExit(f"{prog}: {e}") from None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
