"""A checkpoint of the RLlib trainer as a player: the agent spec ``rllib:PATH``.

PATH is a checkpoint directory written by ``carcassonne train rllib`` (an RLlib algorithm
checkpoint: the shared module is read from ``learner_group/learner/rl_module/shared``) or an
RLModule checkpoint directory itself. It needs the ``ray`` extra. The module's network is the board
network of the Stable-Baselines3 agents (:class:`agents.nets.board_net.BoardNet`), played as
``ppo:`` plays: masked, the most probable legal action, or with ``sample=1`` a draw from the
masked distribution with the agent's own seeded generator.

Modules are loaded once per process and path (tournaments build one agent per game).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from carcassonne_env.players import EngineAgent, as_engine_agent

from .extras import optional_imports

__all__ = ["MODULE_ID", "RLlibAgent", "load_module", "make_rllib", "module_path"]

#: The id of the module (policy) every seat shares.
MODULE_ID = "shared"
#: Where an algorithm checkpoint keeps its learner's modules (RLlib's component names).
_MODULES = Path("learner_group", "learner", "rl_module")
#: What needs the ray extra's Ray RLlib and torch (:func:`agents.extras.optional_imports`).
_NEEDED_BY = "the rllib: agents"


def module_path(checkpoint: str | Path) -> Path:
    """The module directory of ``checkpoint``: an algorithm checkpoint's shared module, or the
    directory itself when it is an RLModule checkpoint."""
    root = Path(checkpoint).resolve()  # RLlib reads checkpoints by absolute path
    for path in (root / _MODULES / MODULE_ID, root):
        if (path / "class_and_ctor_args.pkl").is_file():
            return path
    raise FileNotFoundError(f"no RLlib checkpoint at {str(checkpoint)!r} (expected {_MODULES / MODULE_ID} "
                            "inside it, or an RLModule checkpoint)")


@functools.lru_cache(maxsize=8)
def load_module(path: Path) -> Any:
    """The RLModule at ``path`` (:func:`module_path`) on the CPU in eval mode, once per process."""
    with optional_imports(_NEEDED_BY, "ray"):
        from ray.rllib.core.rl_module.rl_module import RLModule

        from .nets import rllib_module  # noqa: F401  (the class a checkpoint names, for legacy_module_names)
    from .nets.legacy import legacy_module_names

    with legacy_module_names():  # checkpoints saved under the trainer's old module names
        module: Any = RLModule.from_checkpoint(path)
    if not hasattr(module, "net"):
        raise ValueError(f"rllib: {path} holds a {type(module).__name__}, not the board network's module")
    module.eval()
    return module


class RLlibAgent:
    """Observation-level policy (``act(observation, action_mask) -> int``) of an RLlib checkpoint."""

    def __init__(self, path: str | Path, seed: int = 0, sample: bool = False) -> None:
        #: The module directory of the checkpoint (:func:`module_path`).
        self.path = module_path(path)
        self.module = load_module(self.path)
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        #: The board window the module was trained with (cells per side).
        self.window = int(self.module.net.features_extractor.window)

    def act(self, observation: dict[str, np.ndarray], action_mask: npt.NDArray[np.int8]) -> int:
        with optional_imports(_NEEDED_BY, "ray"):
            import torch

        mask = np.asarray(action_mask, dtype=bool)
        if not mask.any():
            raise ValueError("the action mask allows no action")
        batch = {k: torch.as_tensor(np.asarray(v))[None] for k, v in observation.items()}
        with torch.no_grad():
            legal, _ = self.module.net.legal_logits(batch, mask[None])
        valid = legal.valid[0].numpy()
        actions = legal.actions[0].numpy()[valid]
        logits = legal.logits[0].numpy()[valid].astype(np.float64)
        if not self.sample:
            return int(actions[np.argmax(logits)])
        probs = np.exp(logits - logits.max())
        return int(self.rng.choice(actions, p=probs / probs.sum()))


def make_rllib(seed: int, path: str, sample: bool = False) -> EngineAgent:
    """The ``rllib:PATH[,sample=1]`` spec."""
    agent = RLlibAgent(path, seed=seed, sample=sample)
    return as_engine_agent(agent, window=agent.window)
