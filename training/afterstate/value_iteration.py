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
(the paths the run recorded are moved there, :mod:`training.common.relocate`); a candidate
that cannot be loaded at its gate is fitted again. A run folder reduced to ``state.json`` and the
admitted generations' ``candidate.npz`` (what a machine that is not kept should save) resumes too:
the fit plays its window's lost self-play games again, the same games. One run at a time holds the directory's lock
(:func:`training.common.run_folder.run_lock`). The best network is ``best.npz`` (agent spec
``afterstate:OUT/best.npz``); ``best.spec`` holds the best agent's spec (generation 0's greedy
until a generation is admitted).
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent, position_value
from agents.afterstate import PRETRAINED
from agents.evaluation import PositionValue
from agents.extras import optional_imports
from agents.first_place import spread_of_residuals
from agents.manifest import verified
from agents.nets.value_net import INPUTS, ValueNet, value_inputs
from agents.spec import AgentSpecError
from agents.value import FEATURES, design_row
from carcassonne_env.engine import GameConfig, GameRecord, Phase, describe_game
from training.arena import tournament
from training.arena.backends import BACKENDS
from training.common.cli import Command, trainer_main
from training.common.curves import Band, plot_against_anchors, write_csv
from training.common.evaluation import elo_words, play, rate_against_anchors
from training.common.gate import play_gate
from training.common.progress import RunClock, tensorboard_log
from training.common.run_folder import cwd_relative, locked_run_state, write_json
from training.common.settings import (
    BackendSettings,
    SettingError,
    check_agents,
    check_device,
    check_out,
    check_rules,
    finite,
    need,
)
from training.common.storage import atomic_copy, atomic_write_text
from training.common.threads import free_cores, use_torch_threads
from training.value.fit_linear import fit as fit_linear

__all__ = ["PRESETS", "Samples", "Settings", "fit_value_net", "read_records", "samples_from_games", "train"]


@dataclass(frozen=True)
class Settings(BackendSettings):
    """Every setting of an afterstate value-iteration run (each one is a command-line flag; the game, the run's
    directory, seed and where it computes: :class:`~training.common.settings.BackendSettings`)."""

    out: str = "runs/afterstate"
    """Output directory: generations, networks, TensorBoard logs, curve.csv, ratings.png (runs/afterstate/PRESET)."""
    seed: int = 0
    """Seeds the tile orders of self-play and gates, the agents' tie-breaks and the fits."""
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
_RESUMABLE = ("generations", *BackendSettings.RESUMABLE)


# ------------------------------------------------------------------------------------------ checks
def check(s: Settings) -> None:
    """Raise :class:`~training.common.settings.SettingError` naming the first setting that cannot run."""
    check_rules(s, positive_int=("generations", "games_per_generation", "window", "epochs", "batch_size",
                                 "gate_seeds", "anchor_seeds"),
                count=("workers", "threads"), share=("td_lambda",), positive=("learning_rate", "gate_elo"),
                non_negative=("ridge", "weight_decay"))
    need(finite(s.holdout) and 0.0 <= s.holdout < 0.5, "holdout", "must be in [0, 0.5)", s.holdout)
    need(bool(s.hidden) and min(s.hidden) >= 1, "hidden", "must list positive layer widths", s.hidden)
    need(s.backend in BACKENDS, "backend", f"must be one of {', '.join(BACKENDS)}", s.backend)
    need(bool(s.anchors), "anchors", "needs at least one agent spec", s.anchors)
    need(not s.address or s.backend == "ray", "address", "only --backend ray runs on a cluster", s.address)
    config = s.check_game(s.seed)
    check_out(s.out)
    check_device(s.device, auto=False)
    init = _spec_of(s.init, fast=False, players=s.players)
    if (init_file := _init_file(s.init)) is None:
        check_agents("init", [init], config)
    else:  # a network made for another player count is adopted: it plays this run's game, not its own
        try:
            make_agent(init, seed=0)
        except AgentSpecError as e:
            raise SettingError(f"--init: {e}") from None
        adopted_init(init_file, config.to_dict())
    check_agents("anchors", s.anchors, config)


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
    with optional_imports("carcassonne train afterstate", "train"):
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


# ------------------------------------------------------------------------------------------ the run
def _self_play(s: Settings, g: int, spec: str, out: Path, workers: int) -> None:
    """Play (or resume) generation ``g``'s self-play games into ``out`` (a tournament directory)."""
    settings = tournament.Settings(agents=(spec,), mode="self_play", seeds=s.games_per_generation,
                                   first_seed=10_000_000 * (s.seed + 1) + 100_000 * g, config=s.game_config().to_dict())
    play(settings, out, workers, s.progress, s.backend, s.address)


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


def _write_curve(history: list[dict[str, Any]], anchors: Sequence[str], out: Path, config: GameConfig) -> None:
    """``curve.csv`` (a row per generation: its best's score, interval and Elo against each anchor) and
    ``ratings.png``: the Elo against each anchor (95 % interval) over training hours, within [−400, 600]
    (a clean sweep at the top). At more than two players the Elo is that of the agent's score against
    the best of the anchor's copies, so an agent as good as the anchor scores 1 / ``players``: its Elo,
    −400·log10(players − 1), is drawn dashed. The figure names the game, ``config``."""
    players = config.players
    figures = ("score", "low", "high", "elo")
    write_csv(out / "curve.csv", ["generation", "admitted", "hours", "best", *(f"{a}_{k}" for a in anchors
                                                                               for k in figures)],
              ([h["generation"], int(h["admitted"]), round(h["hours"], 4), h["best"],
                *(round(h["ratings"][a][k], 4) for a in anchors for k in figures)] for h in history))
    bands = {a: Band(*([h["ratings"][a][k] for h in history] for k in ("elo", "elo_low", "elo_high")))
             for a in anchors}
    even = -400.0 * math.log10(players - 1)
    plot_against_anchors(out / "ratings.png", [h["hours"] for h in history], bands,
                         [f"g{h['generation']}" for h in history], anchors[-1], span=(-400.0, 600.0), even=0.0,
                         ylabel="Elo of the best agent against the anchor",
                         title="Afterstate value iteration: each generation's best against fixed anchors\n"
                               "(open triangle at the top: a clean sweep)", game=describe_game(config),
                         note=(even, f"as good as the anchor ({players} players: wins 1/{players})")
                         if players > 2 else None)


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
    workers = s.workers or free_cores()
    use_torch_threads(s.threads, "carcassonne train afterstate")
    log = tensorboard_log(out, "carcassonne train afterstate")
    print(s.game_line(), flush=True)
    config = s.game_config().to_dict()
    clock = RunClock(float(state["seconds"]))

    def save(**changes: Any) -> None:
        state.update(changes, seconds=clock.seconds(), settings=asdict(s))
        write_json(out / "state.json", state)
        atomic_write_text(out / "best.spec", state["best"] + "\n")

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
                entry = {"generation": g, "admitted": admitted, "hours": clock.hours(), "best": state["best"],
                         "ratings": ratings}
                history = [h for h in state["history"] if h["generation"] != g] + [entry]
                for anchor, r in ratings.items():
                    log.add_scalar(f"anchor/{anchor}/elo", r["elo"], g)
                    log.add_scalar(f"anchor/{anchor}/score", r["score"], g)
                _write_curve(history, s.anchors, out, s.game_config())
                for anchor, r in ratings.items():
                    print(f"   vs {anchor:24s} score {r['score']:.3f} [{r['low']:.3f}, {r['high']:.3f}]  "
                          f"Elo {elo_words(r)}  margin {r['margin']:+.1f}", flush=True)
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
                gate = play_gate(candidate, state["best"], s.game_config(), s.gate_seeds,
                                 50_000_000 + 100_000 * s.seed + 1_000 * g, s.gate_elo, gen / "gate", workers,
                                 s.progress, s.backend, s.address)
                for k, v in gate.figures.items():
                    log.add_scalar(f"gate/{k}", v, g)
                print(gate.report(), flush=True)
                changes: dict[str, Any] = {"step": "rate", "admitted": gate.passed, "gates": {
                    **state.get("gates", {}), str(g): {**gate.figures, "sprt": gate.decision}}}
                if gate.passed:
                    atomic_copy(gen / "candidate.npz", out / "best.npz")
                    changes.update(best=candidate, best_value=str(gen / "candidate.npz"), best_generation=g)
                save(**changes)
    finally:  # a step stopped half-way keeps its time: its finished games are kept, and --resume goes on from them
        log.close()
        save()
    print(f"best: {state['best']} (ratings: {out / 'curve.csv'}, {out / 'ratings.png'})")
    return out


COMMAND = Command(Settings, "Afterstate value iteration by self-play (TD-Gammon's recipe): the position value that "
                  "greedy's one-turn search plays by, the afterstate: agents (module "
                  "training/afterstate/value_iteration.py, docs/training.md).", PRESETS, "quick --generations 4")


main = trainer_main(COMMAND, "afterstate", lambda s, given: train(s), refusals=(ValueError,))


if __name__ == "__main__":
    raise SystemExit(main())
