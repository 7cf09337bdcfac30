"""A trained MaskablePPO checkpoint as a player: the agent spec ``ppo:PATH``, or ``ppo:NAME`` for a
network shipped with the package (:data:`SHIPPED`: ``pretrained``, ``distilled``, ``reach``,
``pooled``).

The policy always plays masked: only legal actions have probability. By default it plays the most
probable legal action (``deterministic``); with ``sample=1`` it samples from the masked
distribution with its own seeded generator, so a seeded agent is still reproducible.

A model trained with a prior (a residual policy, :mod:`agents.nets.prior`) names the agent whose
action values it adds to its logits; the agent computes that prior at every decision, from a
determinized copy of the game, with its own seeded generator.

Models are loaded once per process and path (tournaments build one agent per game). A shipped name
loads its file only once the manifest of the shipped models vouches for it
(:func:`agents.manifest.verified`); a path is loaded as it is. Either way the zip is cloudpickled: loading
it can run code (docs/reliability.md, "Which files can carry code").

The game a model was trained on: the manifest records it for a shipped one; a zip saved by the
project's trainers (``carcassonne train ppo``, ``carcassonne train distill``) records it in the entry
:data:`GAME_ENTRY` (:func:`record_game`, JSON data beside SB3's own entries, which SB3 ignores), read
without loading the model (:func:`recorded_game`); a zip saved otherwise records none
(:mod:`agents.compat` warns that its game is unknown).
"""

from __future__ import annotations

import functools
import json
import zipfile
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from carcassonne_env.players import EngineAgent, as_engine_agent

from .extras import MissingExtra, optional_imports
from .manifest import PRETRAINED_DIR, verified

__all__ = ["GAME_ENTRY", "PRETRAINED", "SHIPPED", "PPOAgent", "load_policy", "make_ppo", "record_game", "recorded_game",
           "resolve_checkpoint"]

#: The networks shipped with the package, by the name a spec gives them (docs/training.md):
#: ``pretrained``, PPO's ``full`` preset (a residual policy over greedy's action values);
#: ``distilled``, the distillation recipe's student, seed 0 round 7 (no search: one forward pass);
#: ``reach``, ``distilled`` fine-tuned with the reach head on a stronger teacher (no search either);
#: ``pooled``, ``reach`` fitted once more on every round that teacher labelled (18 rounds of 6 runs).
SHIPPED = {"pretrained": PRETRAINED_DIR / "tower_2p.zip", "distilled": PRETRAINED_DIR / "distilled_tower_2p.zip",
           "reach": PRETRAINED_DIR / "reach_tower_2p.zip", "pooled": PRETRAINED_DIR / "pooled_tower_2p.zip"}
PRETRAINED = SHIPPED["pretrained"]
#: What needs the train extra's torch and Stable-Baselines3 (:func:`agents.extras.optional_imports`).
_NEEDED_BY = "the ppo: agents"
#: The zip entry in which the project's trainers record the game a model was trained on
#: (``GameConfig.to_dict()`` as JSON); Stable-Baselines3 reads only its own entries.
GAME_ENTRY = "carcassonne_game.json"


def record_game(zip_file: str | Path | IO[bytes], game: dict[str, Any]) -> None:
    """Add :data:`GAME_ENTRY` holding ``game`` (``GameConfig.to_dict()``) to the SB3 zip ``zip_file``
    (a path or a seekable binary buffer), which must not hold one yet."""
    with zipfile.ZipFile(zip_file, "a") as archive:
        archive.writestr(GAME_ENTRY, json.dumps(game, sort_keys=True))


def recorded_game(path: Path) -> dict[str, Any] | None:
    """The game the zip at ``path`` records (:data:`GAME_ENTRY`), read as JSON data without loading
    the model; None when it records none (or is no zip: loading it says so)."""
    try:
        with zipfile.ZipFile(path) as archive:
            if GAME_ENTRY not in archive.namelist():
                return None
            game = json.loads(archive.read(GAME_ENTRY))
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    return game if isinstance(game, dict) else None


def resolve_checkpoint(path: str | Path) -> Path:
    """A name of :data:`SHIPPED` → that model, once the manifest vouches for it (ShippedFileError naming the
    file otherwise); otherwise an existing ``.zip`` (the suffix may be left off)."""
    if str(path) in SHIPPED:
        return verified(SHIPPED[str(path)])
    p = Path(path)
    if not p.exists() and p.suffix != ".zip":
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"no MaskablePPO checkpoint at {str(path)!r} (shipped: {', '.join(SHIPPED)})")
    return p


@functools.lru_cache(maxsize=8)
def load_policy(path: Path) -> Any:
    """The policy of the MaskablePPO model at ``path`` on the CPU, loaded once per process
    (:func:`agents.nets.policy.load_policy`)."""
    with optional_imports(_NEEDED_BY, "train"):
        from .nets.policy import load_policy as load

    return load(path)


class PPOAgent:
    """Observation-level policy (``act(observation, action_mask) -> int``) of a MaskablePPO model."""

    def __init__(self, path: str | Path, seed: int = 0, sample: bool = False) -> None:
        self.path = resolve_checkpoint(path)
        try:
            self.policy = load_policy(self.path)
        except MissingExtra:
            raise
        except Exception as e:
            raise ValueError(f"{self.path}: not a loadable MaskablePPO model ({type(e).__name__}: {e})") from None
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        space = self.policy.observation_space
        #: The board window the model was trained with (cells per side).
        self.window = int(space["cells"].shape[-1])

    @property
    def prior(self) -> str:
        """The agent spec of the model's prior (a residual policy, :mod:`agents.nets.prior`), or ""."""
        return str(getattr(self.policy, "prior", ""))

    def act(self, observation: dict[str, np.ndarray], action_mask: npt.NDArray[np.int8]) -> int:
        with optional_imports(_NEEDED_BY, "train"):
            import torch

        mask = np.asarray(action_mask, dtype=bool)
        if not mask.any():
            raise ValueError("the action mask allows no action")
        if self.prior and "prior" not in observation:
            raise ValueError(f"{self.path} is a residual policy over {self.prior!r}: its observation needs the "
                             "'prior' entry (play it through make_ppo / the ppo: spec, which computes it)")
        policy = self.policy
        with torch.no_grad():
            obs, _ = policy.obs_to_tensor(observation)
            dist = policy.get_distribution(obs, action_masks=mask[None])
            actions, probs = _legal_probabilities(dist, mask)
        if not self.sample:
            return int(actions[np.argmax(probs)])
        return int(self.rng.choice(actions, p=probs / probs.sum()))


def _legal_probabilities(
    dist: Any, mask: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(legal action indices, their probabilities) of a one-observation masked distribution:
    the board network's legal-only distribution or sb3-contrib's masked categorical."""
    legal = getattr(dist, "legal", None)
    if legal is not None:  # agents.nets.policy.LegalActionDistribution
        valid = legal.valid[0].cpu().numpy()
        actions = legal.actions[0].cpu().numpy()[valid]
        probs = dist.log_p[0].exp().cpu().numpy()[valid]
    else:
        actions = np.flatnonzero(mask)
        probs = dist.distribution.probs[0].cpu().numpy()[actions]
    return actions.astype(np.int64), probs.astype(np.float64)


def make_ppo(seed: int, path: str, sample: bool = False) -> EngineAgent:
    """The ``ppo:PATH[,sample=1]`` spec: the model at PATH (or a name of :data:`SHIPPED`)."""
    agent = PPOAgent(path, seed=seed, sample=sample)
    if not agent.prior:
        return as_engine_agent(agent, window=agent.window)
    from .nets.prior import ActionPrior

    return as_engine_agent(agent, window=agent.window, extras=ActionPrior(agent.prior, agent.window, seed=seed,
                                                                       from_file=True))
