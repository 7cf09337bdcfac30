"""Policy distillation: the student, the board network of :mod:`agents.nets.policy` inside a
MaskablePPO model (for its policy and its ``save``: the student plays as ``ppo:PATH``); made fresh
and seeded, loaded from a round's ``student.zip``, or started from ``--init``'s weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.extras import optional_imports
from training.common.run_folder import reading
from training.common.settings import SettingError

__all__ = ["init_path", "load_student", "new_student", "start_from"]


def new_student(env_kwargs: dict[str, Any], seed: int, device: str, **network: Any) -> Any:
    """A fresh MaskablePPO model with the board network of ``network`` (:func:`agents.nets.policy.policy_kwargs`'s
    arguments), seeded, for its policy and ``save``."""
    with optional_imports("carcassonne train distill", "train"):
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv

        from agents.nets.policy import CarcassonnePolicy, policy_kwargs
        from carcassonne_env.environment import SingleAgentEnv

    venv = DummyVecEnv([lambda: SingleAgentEnv(seat=None, **env_kwargs)])
    return MaskablePPO(CarcassonnePolicy, venv, n_steps=8, batch_size=8, seed=seed, device=device,
                       policy_kwargs=policy_kwargs(**network))


def load_student(model: Any, folder: Path, device: str, remedy: str) -> None:
    """The weights of ``folder``'s ``student.zip`` into ``model``'s policy (a damaged zip: one line
    naming it and ``remedy``)."""
    with optional_imports("carcassonne train distill", "train"):
        from agents.nets.policy import load_policy

    with reading(folder / "student.zip", remedy):
        model.policy.load_state_dict(load_policy(folder / "student.zip", device).state_dict())


def init_path(init: str) -> Path:
    """The student zip ``--init`` names: a shipped network's name (agents/ppo.py; ShippedFileError unless the
    manifest vouches for its file) or a path."""
    from agents.ppo import SHIPPED, resolve_checkpoint

    return resolve_checkpoint(init) if init in SHIPPED else Path(init)


def start_from(model: Any, path: Path, device: str) -> None:
    """``path``'s weights into ``model``'s policy; a head only ``model`` has keeps its fresh weights (a
    head whose output starts at zero, as the reach head's, then leaves the student's moves as they were).
    Raises SettingError when the networks differ otherwise."""
    with optional_imports("carcassonne train distill", "train"):
        from agents.nets.policy import load_policy

    with reading(path, "name another student with --init"):
        weights = load_policy(path, device).state_dict()
    try:
        missing, unexpected = model.policy.load_state_dict(weights, strict=False)
    except RuntimeError as e:
        raise SettingError(f"--init: {path}: its network differs in size from this run's (--channels, --blocks, "
                           f"--head-hidden): {str(e).splitlines()[1].strip()}") from None
    if unexpected or any(".reach_head." not in k for k in missing):
        raise SettingError(f"--init: {path}: its network's heads differ from this run's (--action-heads): "
                           f"{', '.join((unexpected or missing)[:3])}")
