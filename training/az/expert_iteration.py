"""Expert iteration for the ``az`` search (AlphaZero's recipe with Gumbel MuZero's policy target), one
readable file.

    carcassonne train az quick                        # ≈ 1.5 minutes on 2 cores, into runs/az/quick
    carcassonne train az full                         # one night on 2 cores, runs/az/full; --resume continues it
    carcassonne train az quick --generations 3        # any setting can be overridden

The agent is :class:`~agents.az.AZAgent`: a Gumbel search over the real engine whose priors and leaf
values come from a policy-value network (:class:`~agents.nets.pv_net.PVNet`; its value is a correction
to a shipped position value, ``afterstate_long``). The search improves on its network; the network is
trained to predict what the search found. Generation 0 is ``--init`` (``pretrained``: the shipped warm
start, ``az:pretrained``; or a ``.pt`` that :meth:`PVNet.save` wrote).

Each **generation** g:

1. **Self-play**: the best network plays ``games_per_generation`` games against itself with the search
   (``sims`` root visits, Gumbel noise ``gumbel``) through the tournament back-ends (worker processes;
   ``--backend ray`` for a cluster), new tile orders every generation (``gen_NNN/self_play/``). The
   agent spec carries ``record=gen_NNN/records``: every decision with more than one legal action
   appends the search's targets to ``records/SEED.jsonl`` (:mod:`agents.az`, "Recording"): the
   improved policy π′ of the root over the legal actions (:func:`agents.az_tree.improved_policy`,
   summing to 1) and the base value's margin there. The tournament resumes game by game; a game played
   again truncates its seats' files, so a recorded game has exactly its own decisions. With Ray across
   nodes ``--out`` must lie on a file system every node shares (the records are written where the game
   is played).
2. **Fit**: the best network is trained further on the last ``window`` generations' decisions: each
   game is replayed from its record (``games.jsonl``), each recorded decision's observation encoded
   again and its legal actions checked against the recorded ones; the loss is the cross-entropy to π′
   plus ``value_weight`` × the squared error of the value head against the **residual** of the mover's
   final margin over the base value (:mod:`training.az.fit`). Whole games are held out
   (``holdout``) for the reported figures. torch on ``--device`` (auto: CUDA when there is one). The
   candidate is saved as data with its game (``gen_NNN/candidate.pt``, :meth:`PVNet.save`).
3. **Gate**: the candidate plays the best with the search (no noise, ``gate_sims``) on paired seeds,
   stopped early by the layer's SPRT (:func:`training.common.gate.play_gate`); admitted, it becomes the
   best (``best.pt``, ``best.spec``).

**Symmetries.** Quarter turns of the whole board, as augmentation (``augment_turns``, on by default):
the fit turns each training position by a random quarter turn, k ∈ 0–3 drawn per position and
minibatch (:mod:`training.az.fit`). The rules hold under a turn, and
:mod:`carcassonne_env.environment.turns` turns a sample so that it *is* the turned game's encoding:
the sub-cell planes with their links, the tiles' rotations, the PLACE index ``4·cell + r`` to the
turned cell with ``r + k`` (FLOOR, TOWER_TOP and CAPTURE to the turned cell; DEPLOY, RANSOM and the
rest unchanged), the target with its legal actions, and the window re-anchored on the turned box.
``tests/test_env_turns.py`` checks it plane by plane, with the mask and the legal actions, on positions
built turned with every expansion's pieces and on seeded games replayed from a turned start tile. A
position whose window does not cover the frontier (a board that overflows the window) is not turned:
part of the turned game would lie outside it. Turning costs ≈ 0.14 ms CPU a position (≈ +2 % on a
measured fit, docs/training.md). Reflections do not hold (the tile set is not closed under mirroring:
a mirrored curve-with-city is no tile of the catalogue).

``state.json`` names the step to run next (written atomically as each step finishes), so a killed run
continues with ``--resume`` where it stopped: the tournaments inside resume game by game, a candidate
that cannot be loaded is fitted again. ``curve.csv`` has a row per generation: the gate's figures, the
fit's held-out figures after it and before it (``…_before``: the best network's on the same positions)
and each step's seconds (the cost a generation measured).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.az import SHIPPED_AZ
from agents.manifest import verified
from carcassonne_env.engine import GameConfig, GameRecord
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.observation import Encoder
from training.arena import tournament
from training.arena.backends import BACKENDS
from training.arena.match import agent_seed
from training.common.cli import Command, trainer_main
from training.common.curves import write_csv
from training.common.evaluation import play
from training.common.gate import play_gate
from training.common.progress import RunClock
from training.common.run_folder import cwd_relative, locked_run_state, write_json
from training.common.settings import (
    BackendSettings,
    SettingError,
    check_device,
    check_out,
    check_rules,
    finite,
    need,
)
from training.common.storage import atomic_copy, atomic_path, atomic_write_text
from training.common.threads import free_cores, torch_threads

from .fit import Position, fit

__all__ = ["PRESETS", "Settings", "check", "held_out", "positions_of", "train"]


@dataclass(frozen=True)
class Settings(BackendSettings):
    """Every setting of an expert-iteration run of the ``az`` search (each one is a command-line flag; the
    game, the run's directory, seed and where it computes: :class:`~training.common.settings.BackendSettings`)."""

    out: str = "runs/az"
    """Output directory: generations, networks, curve.csv (runs/az/PRESET)."""
    seed: int = 0
    """Seeds the tile orders of self-play and gates, the search's noise and the fits."""
    device: str = "auto"
    """torch device of the fit: auto (CUDA when available), cpu, cuda or cuda:N."""
    generations: int = 4
    """Generations to train in total; --resume continues up to it (raise it to train longer)."""
    init: str = "pretrained"
    """Generation 0's network: pretrained (az:pretrained, the shipped warm start) or a .pt PVNet.save wrote."""
    games_per_generation: int = 100
    """Self-play games each generation."""
    sims: int = 32
    """Root visits of a self-play decision (the search whose improved policy is the target)."""
    k: int = 16
    """Root actions the search considers (Gumbel top-k)."""
    gumbel: float = 1.0
    """Scale of the root's Gumbel noise in self-play (1: Gumbel MuZero's; the gate plays without)."""
    gate_sims: int = 32
    """Root visits of a gate decision."""
    window: int = 2
    """Generations of self-play each fit sees (the newest ones)."""
    epochs: int = 2
    """Passes over the fit's positions."""
    batch_size: int = 64
    """Positions per minibatch of the fit."""
    learning_rate: float = 5e-4
    """Adam's learning rate at the fit's start (decayed linearly to 0)."""
    value_weight: float = 1.0
    """Weight of the value head's squared error (in units of 20 points) beside the policy's cross-entropy."""
    holdout: float = 0.1
    """Share of the fit's games held out for its reported figures."""
    gate_seeds: int = 100
    """Tile orders of the gate at most (each played in both seats)."""
    gate_elo: float = 20.0
    """The gate's SPRT H1 (Elo over the best); H0 is Elo ≤ 0; α = β = 0.05."""
    augment_turns: bool = True
    # runs started before this setting existed were fitted without turns, and resume so (_BEFORE)
    """Fit on each position turned by a random quarter turn of the board, 0–3 per position and minibatch."""


PRESETS: dict[str, tuple[str, Settings]] = {
    "quick": ("≈ 1.5 minutes on 2 CPU cores: one generation of 6 self-play games with an 8-visit search, a fit of "
              "one epoch and a gate of up to 4 tile orders (a smoke test of every step, not training).",
              Settings(out="runs/az/quick", generations=1, games_per_generation=6, sims=8, k=8, gate_sims=8,
                       epochs=1, gate_seeds=4, gate_elo=40.0)),
    "full": ("One night on 2 CPU cores (≈ 23 minutes a generation on 2 free cores, measured and extrapolated in "
             "docs/training.md; 16 generations ≈ 6 h, up to ≈ 11 h on shared cores): generations of 150 self-play "
             "games with a 32-visit search, fits of 2 epochs over the last 2 generations' ≈ 70,000 decisions, gates "
             "of up to 75 tile orders (150 games) at 32 visits.",
             Settings(out="runs/az/full", generations=16, games_per_generation=150, sims=32, k=16, gate_sims=32,
                      gate_seeds=75, window=2, epochs=2)),
}

#: The steps of a generation, in order: a state.json names the one to run next.
_STEPS = ("play", "fit", "gate")
#: Settings that may change on --resume (they do not change what the run computes).
_RESUMABLE = ("generations", *BackendSettings.RESUMABLE)
#: Settings added after runs were made, with the value those runs were computed with.
_BEFORE = {"augment_turns": False}
#: The folder of a generation that holds its self-play's targets (the agent's ``record=``).
_RECORDS = "records"


# ------------------------------------------------------------------------------------------ checks
def check(s: Settings) -> GameConfig:
    """Raise :class:`~training.common.settings.SettingError` naming the first setting that cannot run;
    the run's game."""
    check_rules(s, positive_int=("generations", "games_per_generation", "k", "window", "epochs", "batch_size",
                                 "gate_seeds"),
                count=("sims", "gate_sims", "workers", "threads"), positive=("learning_rate", "gate_elo"),
                non_negative=("value_weight",))
    need(finite(s.gumbel) and 0 <= s.gumbel <= 10, "gumbel", "must be in [0, 10] (the az: option's range)", s.gumbel)
    need(s.sims <= 100_000, "sims", "must be at most 100000 (the az: option's range)", s.sims)
    need(s.gate_sims <= 100_000, "gate_sims", "must be at most 100000 (the az: option's range)", s.gate_sims)
    need(s.k <= 256, "k", "must be at most 256 (the az: option's range)", s.k)
    need(finite(s.holdout) and 0.0 <= s.holdout < 0.5, "holdout", "must be in [0, 0.5)", s.holdout)
    need(s.backend in BACKENDS, "backend", f"must be one of {', '.join(BACKENDS)}", s.backend)
    need(not s.address or s.backend == "ray", "address", "only --backend ray runs on a cluster", s.address)
    config = s.check_game(s.seed)
    need(config.players == 2, "players", "must be 2 (the az network's value is the margin over one opponent)",
         s.players)
    check_out(s.out)
    need(not any(c in s.out for c in ",=:"), "out", "may not hold ',', '=' or ':' (it is named in agent specs)", s.out)
    check_device(s.device, auto=True)
    if s.init != "pretrained":
        from agents.nets.pv_net import PVNet

        try:
            PVNet.load(s.init, config)
        except ValueError as e:
            raise SettingError(f"--init: {e}") from None
    return config


def _device(name: str) -> str:
    """The torch device of ``--device`` (auto: cuda when available, else cpu)."""
    if name != "auto":
        return name
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _spec(network: str, sims: int, k: int, gumbel: float = 0.0, record: Path | None = None) -> str:
    """The ``az:`` spec of ``network`` (pretrained or a path) with its search's options, without the
    root's look-ahead guide (``guide=0``): self-play, targets and gates are the network's own search."""
    noise = f",gumbel={gumbel:g}" if gumbel else ""
    return f"az:{network},sims={sims},k={k}{noise},guide=0" + (f",record={record}" if record else "")


# ------------------------------------------------------------------------------------------ data
def positions_of(folder: Path, records: Path, config: GameConfig, window: int, first_game: int = 0
                 ) -> list[Position]:
    """Every recorded decision of the self-play tournament in ``folder`` (its games in index order, their
    targets in ``records``), numbered by game from ``first_game``: the observation encoded again by
    replaying the game, the legal actions (checked against the recorded ones), π′ and the residual of
    the mover's final margin over the recorded base value. ValueError naming a record file that does not
    belong to its game (a missing line is one the search did not write: a single legal action)."""
    codec = ActionCodec(window)
    out: list[Position] = []
    games = sorted(tournament.iter_games(folder), key=lambda g: int(g["index"]))
    for number, data in enumerate(games, start=first_game):
        record = GameRecord.from_dict(data["record"])
        scores = data["scores"]
        lines: dict[int, dict[str, Any]] = {}
        for seat in range(config.players):
            path = records / f"{agent_seed(int(data['seed']), seat)}.jsonl"
            lines.update((int(line["ply"]), line) for line in map(json.loads, path.read_text().splitlines()))
        game = record.replay(0)
        encoder = Encoder(config, window)
        encoder.reset(game)
        for ply, action in enumerate(record.actions):
            if ply in lines:
                line = lines[ply]
                encoder.sync(game)
                player = int(line["player"])
                indices, _ = codec.legal_indices(game, encoder.window, encoder.frontier_inside)
                legal = np.array(sorted(indices), dtype=np.int64)
                if player != game.current_player or legal.tolist() != line["indices"]:
                    raise ValueError(f"{records}: the decision at ply {ply} of the game of seed {data['seed']} is not "
                                     "the one its record names (a record of another game?)")
                margin = scores[player] - scores[1 - player]
                out.append(Position.of(encoder.observation(game, player), legal, np.asarray(line["policy"]), number,
                                       margin - float(line["base"])))
            game.apply(action)
    return out


def held_out(positions: Sequence[Position], share: float) -> tuple[list[Position], list[Position]]:
    """(training, held-out) positions: a game is held out when ⌊(i+1)·share⌋ > ⌊i·share⌋ (spread evenly)."""
    held = [int((p.game + 1) * share) > int(p.game * share) for p in positions]
    return ([p for p, h in zip(positions, held, strict=True) if not h],
            [p for p, h in zip(positions, held, strict=True) if h])


# ------------------------------------------------------------------------------------------ the run
def _self_play(s: Settings, g: int, spec: str, out: Path, workers: int) -> None:
    """Play (or resume) generation ``g``'s self-play games of ``spec`` into ``out`` (a tournament directory)."""
    settings = tournament.Settings(agents=(spec,), mode="self_play", seeds=s.games_per_generation,
                                   first_seed=10_000_000 * (s.seed + 1) + 100_000 * g, config=s.game_config().to_dict())
    play(settings, out, workers, s.progress, s.backend, s.address)


def _load(network: str) -> Any:
    """The PVNet of ``network`` (pretrained or a path), read as data."""
    from agents.nets.pv_net import PVNet

    return PVNet.load(verified(SHIPPED_AZ) if network == "pretrained" else network)


def _unloadable(path: Path) -> str | None:
    """Why the network at ``path`` cannot be loaded (missing, cut short, not a network), or None."""
    try:
        _load(str(path))
    except (OSError, ValueError) as e:
        return str(e)
    return None


def _write_curve(history: list[dict[str, Any]], out: Path) -> None:
    """``curve.csv``: a row per generation (module docstring)."""
    columns = ("generation", "admitted", "hours", "score", "score_low", "score_high", "elo", "games",
               "cross_entropy", "value_rmse", "agreement", "cross_entropy_before", "value_rmse_before", "positions",
               "play_s", "fit_s", "gate_s")
    write_csv(out / "curve.csv", columns, ([h.get(c, "") if not isinstance(h.get(c), float) else round(h[c], 4)
                                            for c in columns] for h in history))


def train(s: Settings) -> Path:
    """Run (or resume) the expert iteration described by ``s``; returns the directory of the run."""
    config = check(s)
    out = Path(s.out)
    best = s.init if s.init == "pretrained" else cwd_relative(Path(s.init).resolve())
    with locked_run_state(s, out, _RESUMABLE, {
            "settings": asdict(s), "generation": 1, "step": "play", "best": best, "seconds": 0.0, "history": [],
            "played": {}, "fits": {}, "timing": {}}, before=_BEFORE, choices={"step": _STEPS}) as state:
        return _train(s, out, state, config)


def _train(s: Settings, out: Path, state: dict[str, Any], config: GameConfig) -> Path:
    """The run of :func:`train` from its (fresh or resumed) ``state``, under the run's lock."""
    import torch

    workers = s.workers or free_cores()
    torch.set_num_threads(torch_threads(s.threads))
    print(s.game_line(), flush=True)
    clock = RunClock(float(state["seconds"]))

    def save(**changes: Any) -> None:
        state.update(changes, seconds=clock.seconds(), settings=asdict(s))
        write_json(out / "state.json", state)
        atomic_write_text(out / "best.spec", _spec(state["best"], s.gate_sims, s.k) + "\n")

    def timed(step: str, g: int, since: float) -> dict[str, dict[str, float]]:
        """The timings with the seconds since ``since`` added to generation ``g``'s ``step`` (a step
        resumed after a kill adds the time of its rest; the time before the kill is not counted)."""
        timing = state["timing"].get(str(g), {})
        return {**state["timing"], str(g): {**timing, step: timing.get(step, 0.0) + time.time() - since}}

    try:
        while int(state["generation"]) <= s.generations:
            g = int(state["generation"])
            gen = out / f"gen_{g:03d}"
            if state["step"] == "play":
                since = time.time()
                spec = state["played"].get(str(g)) or _spec(state["best"], s.sims, s.k, s.gumbel, gen / _RECORDS)
                save(played={**state["played"], str(g): spec})
                print(f"== generation {g}: {s.games_per_generation} self-play games of {spec}", flush=True)
                _self_play(s, g, spec, gen / "self_play", workers)
                save(step="fit", timing=timed("play_s", g, since))
            if state["step"] == "gate" and (damaged := _unloadable(gen / "candidate.pt")) is not None:
                print(f"   {gen / 'candidate.pt'} cannot be loaded ({damaged}): fitting it again", flush=True)
                save(step="fit")
            if state["step"] == "fit":
                since = time.time()
                net = _load(state["best"])
                first = max(1, g - s.window + 1)
                positions: list[Position] = []
                for k in range(first, g + 1):  # a lost or unfinished window generation is played (resumed) again
                    folder = out / f"gen_{k:03d}"
                    _self_play(s, k, state["played"][str(k)], folder / "self_play", workers)
                    games = positions[-1].game + 1 if positions else 0
                    positions += positions_of(folder / "self_play", folder / _RECORDS, config, net.window, games)
                train_set, heldout = held_out(positions, s.holdout)
                print(f"== generation {g}: fitting {state['best']} on {len(positions)} decisions of generations "
                      f"{first}–{g} ({len(heldout)} held out) on {_device(s.device)}", flush=True)
                figures = fit(net, train_set, heldout or train_set, s.epochs, s.batch_size, s.learning_rate,
                              s.seed * 1000 + g, s.value_weight, _device(s.device), s.augment_turns)
                with atomic_path(gen / "candidate.pt") as tmp:
                    net.save(tmp)
                save(step="gate", timing=timed("fit_s", g, since),
                     fits={**state["fits"], str(g): {**figures, "positions": float(len(positions))}})
            if state["step"] == "gate":
                since = time.time()
                candidate, best = _spec(str(gen / "candidate.pt"), s.gate_sims, s.k), _spec(state["best"], s.gate_sims,
                                                                                            s.k)
                print(f"== generation {g}: gate, {candidate} against {best}", flush=True)
                gate = play_gate(candidate, best, config, s.gate_seeds, 50_000_000 + 100_000 * s.seed + 1_000 * g,
                                 s.gate_elo, gen / "gate", workers, s.progress, s.backend, s.address)
                print(gate.report(), flush=True)
                changes: dict[str, Any] = {"step": "play", "generation": g + 1}
                if gate.passed:
                    atomic_copy(gen / "candidate.pt", out / "best.pt")
                    changes["best"] = str(gen / "candidate.pt")
                timing = timed("gate_s", g, since)
                entry = {"generation": g, "admitted": gate.passed, "hours": clock.hours(), **gate.figures,
                         "sprt": gate.decision, **state["fits"][str(g)], **timing[str(g)]}
                history = [h for h in state["history"] if h["generation"] != g] + [entry]
                _write_curve(history, out)
                save(history=history, timing=timing, **changes)
    finally:  # a step stopped half-way keeps its time: its finished games are kept, and --resume goes on from them
        save()
    print(f"best: {_spec(state['best'], s.gate_sims, s.k)} (per generation: {out / 'curve.csv'})")
    return out


COMMAND = Command(Settings, "Expert iteration for the az search: self-play with the search, the network fitted to "
                  "its improved policy and the games' outcomes, each generation gated (module "
                  "training/az/expert_iteration.py, docs/training.md).", PRESETS, "quick --generations 2")


main = trainer_main(COMMAND, "az", lambda s, given: train(s), refusals=(ValueError,))


if __name__ == "__main__":
    raise SystemExit(main())
