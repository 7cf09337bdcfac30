"""The settings both PPO trainers share (``carcassonne train ppo`` on Stable-Baselines3, ``carcassonne
train rllib`` on RLlib): PPO's hyperparameters, the reward and the board network's trunk, with the
same flags, defaults and checks in both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .settings import GameSettings, check_rules

__all__ = ["PPOSettings"]


@dataclass(frozen=True)
class PPOSettings(GameSettings):
    """The game, PPO's hyperparameters, the reward shaping and the network's trunk."""

    learning_rate: float = 3e-4
    """Adam's learning rate of PPO."""
    gamma: float = 0.995
    """Discount factor of the returns."""
    gae_lambda: float = 0.95
    """λ of the generalised advantage estimate (GAE)."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus in PPO's loss (higher: more exploration)."""
    clip_range: float = 0.2
    """PPO's clipping of the policy ratio."""
    shaping: float = 0.01
    """Weight of the per-step shaping reward (0 = win/loss only)."""
    shaping_scores: Literal["current", "end_now"] = "end_now"
    """Shaping pays changes of the scores if the game ended now (potential-based) or of the current scores."""
    channels: int = 16
    """Features per board cell in the network's trunk (agents/nets/board_net.py)."""
    blocks: int = 2
    """Residual 3×3 convolution blocks of the trunk."""

    def check_ppo(self) -> None:
        """Raise :class:`~training.common.settings.SettingError` naming the first of these settings no run can use."""
        check_rules(self, positive_int=("channels",), positive=("learning_rate", "clip_range"),
                    unit=("gamma", "gae_lambda"), non_negative=("ent_coef", "shaping"))

    def env_kwargs(self) -> dict[str, Any]:
        """The env's game and reward."""
        return {"players": self.players, "expansions": self.expansions, "shaping": self.shaping,
                "shaping_scores": self.shaping_scores}
