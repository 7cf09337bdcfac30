"""A trainer's settings: the frozen dataclass every trainer parses its command line into, and the
checks of its values at the edge.

Rules:

* each refusal is a :class:`SettingError` naming the command-line flag, the rule and the value
  (``--NAME: WHAT, got VALUE``), raised before any run starts (nothing is written);
* :class:`RunSettings` is what the layer reads of a trainer's settings: ``out`` and ``resume``;
* a rule that several settings follow (a positive integer, a share in [0, 1] ...) is checked over
  the settings it names by :func:`check_rules`, in the same words in every trainer;
* the game (``players``, ``expansions``: :class:`GameSettings`, which every trainer's dataclass
  extends), the seed, ``--out``, ``--device`` and agent specs are checked the same way in every
  trainer (:meth:`GameSettings.check_game`, :func:`check_out`, :func:`check_device`, :func:`check_agents`);
* the trainers that play their games in worker processes and fit a network with torch (``az``,
  ``afterstate``, ``distill``) share their run's settings too, and say which of them a ``--resume``
  may change: :class:`PlayAndFitSettings` (and :class:`BackendSettings`, where the games go through
  the tournaments' back-ends).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from agents.extras import optional_imports
from carcassonne_env.engine import ConfigError, GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT

__all__ = [
    "SEED_LIMIT", "BackendSettings", "GameSettings", "PlayAndFitSettings", "RunSettings", "SettingError",
    "check_agents", "check_device", "check_out", "check_rules", "finite", "flag", "is_int", "need",
]

#: Seeds are below this: numpy's and torch's global seeds (``np.random.seed``) take 32-bit integers.
SEED_LIMIT = 2**32


class SettingError(ValueError):
    """A setting no run can use; the message starts with the flag."""


class RunSettings(Protocol):
    """What the layer reads of a trainer's settings dataclass (frozen, one field a flag): the run's
    directory and whether the run continues the one there."""

    @property
    def out(self) -> str: ...

    @property
    def resume(self) -> bool: ...


def flag(name: str) -> str:
    """The command-line flag of setting ``name``."""
    return "--" + name.replace("_", "-")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def need(ok: bool, name: str, what: str, value: Any) -> None:
    """SettingError ``--NAME: WHAT, got VALUE`` unless ``ok``."""
    if not ok:
        raise SettingError(f"{flag(name)}: {what}, got {value!r}")


#: Each rule of :func:`check_rules`: whether a value follows it, and the refusal's words.
_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "positive_int": (lambda v: is_int(v) and v >= 1, "must be a positive integer"),
    "count": (lambda v: is_int(v) and v >= 0, "must be an integer ≥ 0"),
    "positive": (lambda v: finite(v) and v > 0, "must be a finite number > 0"),
    "non_negative": (lambda v: finite(v) and v >= 0, "must be a finite number ≥ 0"),
    "unit": (lambda v: finite(v) and 0 < v <= 1, "must be in (0, 1]"),
    "share": (lambda v: finite(v) and 0 <= v <= 1, "must be in [0, 1]"),
}


def check_rules(settings: object, *, positive_int: Iterable[str] = (), count: Iterable[str] = (),
                positive: Iterable[str] = (), non_negative: Iterable[str] = (), unit: Iterable[str] = (),
                share: Iterable[str] = ()) -> None:
    """Each setting named under a rule follows it (:func:`need`): ``positive_int`` an integer ≥ 1,
    ``count`` an integer ≥ 0, ``positive`` a finite number > 0, ``non_negative`` one ≥ 0, ``unit`` one
    in (0, 1], ``share`` one in [0, 1]."""
    named = {"positive_int": positive_int, "count": count, "positive": positive, "non_negative": non_negative,
             "unit": unit, "share": share}
    for rule, names in named.items():
        ok, what = _RULES[rule]
        for name in names:
            need(ok(getattr(settings, name)), name, what, getattr(settings, name))


@dataclass(frozen=True)
class GameSettings:
    """The game a run trains for: the settings every trainer's dataclass starts with."""

    players: int = 2
    """Players per game (2–6)."""
    expansions: tuple[str, ...] = TOWER_VARIANT
    """Expansions in play (the 2-player tower variant by default)."""

    def game_config(self) -> GameConfig:
        return GameConfig(players=self.players, expansions=self.expansions)

    def game_line(self) -> str:
        """``game: tower variant (tower, black_tower, watchtowers), 2 players``: the first line a
        trainer prints once its run's settings are settled (a resume's included), naming the game it
        trains for (:func:`~carcassonne_env.engine.describe_game`)."""
        return f"game: {describe_game(self.game_config())}"

    def check_game(self, seed: int) -> GameConfig:
        """The game of the run (``--players``, ``--expansions``), checked, and its ``--seed``, an integer
        in [0, :data:`SEED_LIMIT`)."""
        need(is_int(seed) and seed >= 0, "seed", "must be an integer ≥ 0", seed)
        need(seed < SEED_LIMIT, "seed", "must be below 2**32 (numpy's seeds)", seed)
        try:
            return self.game_config()
        except (ConfigError, ValueError) as e:
            raise SettingError(f"--players/--expansions: {e}") from None


@dataclass(frozen=True)
class PlayAndFitSettings(GameSettings):
    """The game and the run of a trainer that plays its games in worker processes and fits a network
    with torch (``az``, ``afterstate``, ``distill``): its directory and seed, where it computes, whether
    it continues. A trainer's dataclass extends it with its algorithm's settings, states its own
    ``out`` (and what its ``seed`` seeds), and lets a ``--resume`` change :attr:`RESUMABLE`."""

    out: str = "runs"
    """Output directory."""
    seed: int = 0
    """Seeds the run."""
    workers: int = 0
    """Game-playing workers (0 = the free cores)."""
    threads: int = 0
    """torch threads of the fit (0 = choose from the free cores)."""
    device: str = "cpu"
    """torch device of the fit: cpu or cuda."""
    resume: bool = False
    """Continue the run in --out, also copied or moved (same settings but its length, workers, device, threads)."""
    progress: bool = True
    """Show progress bars."""

    #: The settings here that a ``--resume`` may change (they do not change what the run computes).
    RESUMABLE: ClassVar[tuple[str, ...]] = ("workers", "device", "threads", "progress", "resume")


@dataclass(frozen=True)
class BackendSettings(PlayAndFitSettings):
    """:class:`PlayAndFitSettings` of a trainer whose games go through the tournaments' back-ends
    (:mod:`training.arena.backends`): worker processes, or Ray tasks on a cluster."""

    backend: Literal["process", "ray"] = "process"
    """Where games are played: worker processes or Ray tasks (``address`` for a cluster)."""
    address: str = ""
    """Ray cluster address with --backend ray (empty: a local Ray)."""

    RESUMABLE: ClassVar[tuple[str, ...]] = (*PlayAndFitSettings.RESUMABLE, "backend", "address")


def check_out(out: str) -> None:
    """``--out`` is a directory, or does not exist yet."""
    path = Path(out)
    need(bool(out) and not (path.exists() and not path.is_dir()), "out", "expected a directory (not a file)", out)


def check_device(device: str, *, auto: bool) -> None:
    """A torch device name: cpu, cuda, cuda:N (and auto where the trainer chooses). Every trainer
    refuses a CUDA device this machine does not have the same way (never a silent run on the CPU)."""
    names = "auto, cpu, cuda or cuda:N" if auto else "cpu, cuda or cuda:N"
    need(re.fullmatch(r"cpu|cuda(:\d+)?" + ("|auto" if auto else ""), device) is not None, "device",
         f"expected {names}", device)
    if device.startswith("cuda"):
        with optional_imports("--device cuda", "train"):
            import torch

        if not torch.cuda.is_available():
            raise SettingError(f"--device {device}: CUDA is not available on this machine (use --device cpu)")
        index = int(device.partition(":")[2] or 0)
        need(index < torch.cuda.device_count(), "device", f"this machine has {torch.cuda.device_count()} CUDA "
             "device(s)", device)


def check_agents(name: str, specs: Iterable[str], config: GameConfig) -> None:
    """Every spec builds an agent that can play ``config`` (its model or value network was made for
    it: :func:`agents.compat.check_fits`); a file or module agent is built in its own process, as it plays."""
    from agents.isolation import close_agent, seat_agent

    for spec in specs:
        try:
            close_agent(seat_agent(spec, seed=0, config=config))
        except ValueError as e:  # AgentSpecError included
            raise SettingError(f"{flag(name)}: {e}") from None
