"""Tianshou 2: its PPO on the single-agent view, the action mask in the observation, the project's board network.

    python docs/tutorials/tianshou_ppo.py                               # 10 epochs of 8,192 env steps, 100 rated games
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/tianshou_ppo.py  # one epoch of 256 steps, 4 rated games

Needs the ``tutorials`` extra (``tianshou==2.0.1``, torch). Three pieces connect the
env to Tianshou:

* :class:`ForTianshou`, a Gymnasium wrapper, puts the learner's mask into the observation under
  ``"mask"``, where Tianshou's policies look for it (its own PettingZoo wrapper does the same); Tianshou
  stores it in its buffer with the observation, so the update sees the mask each action was chosen under;
  and it gives the final info's winners a fixed shape (Tianshou stacks the infos of its envs);
* :class:`MaskedActor` is the actor Tianshou calls, ``forward(obs, state, info) -> (logits, state)``: the
  project's :class:`~agents.nets.board_net.BoardNet` scores the legal actions only, and every other of
  the N logits is −∞, so Tianshou's categorical never samples an illegal action;
* :class:`Critic` is the same network's value head.

Tianshou's :class:`~tianshou.algorithm.modelfree.ppo.PPO` then trains as on any Gymnasium env:
collectors over vectorised envs, an on-policy trainer. The trained network is saved, loaded into a new
one and rated against random play by the project's tournament runner.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from tianshou.algorithm.modelfree.ppo import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.data.types import TObs
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OnPolicyTrainerParams
from tianshou.utils.net.common import ActionReprNet
from torch import nn

import carcassonne_env  # noqa: F401  (registers the Gymnasium id)
from agents.nets.board_net import BoardNet
from agents.spec import register_agent
from carcassonne_env.players import EngineAgent, as_engine_agent
from training.common.evaluation import elo_words, rate_against_anchors
from training.common.threads import torch_threads

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"
#: Envs that collect in parallel (in this process: DummyVectorEnv).
ENVS = 2 if SHORT else 4
#: Epochs of the trainer, and env steps per epoch (the learner's decisions).
EPOCHS, EPOCH_STEPS = (1, 256) if SHORT else (10, 8_192)
#: Env steps collected before each update.
COLLECT_STEPS = 256 if SHORT else 1_024
#: Tile orders of the rating against random, each played in both seats.
EVAL_SEEDS = 2 if SHORT else 50
OUT = Path("runs/tutorials/tianshou_ppo")
#: The observation entries the network reads (all but Tianshou's ``mask``).
OBS_KEYS = ("board", "cells", "vector")


# --8<-- [start:mask]
class ForTianshou(gymnasium.Wrapper[dict[str, Any], Any, dict[str, Any], Any]):
    """The single-agent view as Tianshou takes it: the learner's action mask in the observation, as
    ``"mask"`` (int8, 1 = legal; all 0 once the game is over); and the winners in the final info, one seat
    or more (a tie), as one flag per seat, since Tianshou stacks the infos of its envs into arrays."""

    def __init__(self, env: gymnasium.Env[dict[str, Any], Any]) -> None:
        super().__init__(env)
        assert isinstance(env.observation_space, spaces.Dict) and isinstance(env.action_space, spaces.Discrete)
        self.observation_space = spaces.Dict({**env.observation_space.spaces,
                                              "mask": spaces.MultiBinary(int(env.action_space.n))})
        self.seats = np.arange(env.get_wrapper_attr("aec").game_config.players)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observation(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if "winners" in info:
            info = {**info, "winners": np.isin(self.seats, info["winners"])}
        return self.observation(obs), reward, terminated, truncated, info

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        mask = self.env.get_wrapper_attr("action_masks")()
        return {**observation, "mask": mask.astype(np.int8)}


def make_env() -> gymnasium.Env[dict[str, Any], Any]:
    """The 2-player tower variant against uniformly random play, the learner's seat drawn every game,
    with the self-play trainer's shaping (score-margin changes if the game ended now)."""
    return ForTianshou(gymnasium.make("carcassonne_env/Carcassonne-v1", seat=None, shaping=0.01,
                                      shaping_scores="end_now"))
# --8<-- [end:mask]


def observation(obs: Batch) -> dict[str, torch.Tensor]:
    """The network's input from a Tianshou batch of observations."""
    return {key: torch.as_tensor(obs[key]) for key in OBS_KEYS}


# --8<-- [start:actor]
class MaskedActor(ActionReprNet[Any]):
    """Tianshou's actor over :class:`BoardNet`: the logits of all ``n`` actions, −∞ but at the legal ones."""

    def __init__(self, net: BoardNet, n: int) -> None:
        super().__init__()
        self.net, self.n = net, n

    def forward(self, obs: TObs, state: Any = None, info: dict[str, Any] | None = None) -> tuple[torch.Tensor, Any]:
        assert isinstance(obs, Batch)  # a dict observation arrives as a Batch of its entries
        mask = np.asarray(obs.mask, dtype=bool)
        legal, _ = self.net.legal_logits(observation(obs), mask)  # padded lists of the legal actions' logits
        rows, slots = legal.valid.nonzero(as_tuple=True)
        logits = torch.full((len(mask), self.n), float("-inf"))
        return logits.index_put((rows, legal.actions[rows, slots]), legal.logits[rows, slots]), state


class Critic(nn.Module):
    """The value head of the same network."""

    def __init__(self, net: BoardNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs: Batch, **kwargs: Any) -> torch.Tensor:
        return self.net.values(observation(obs)).squeeze(1)
# --8<-- [end:actor]


class MostProbable:
    """The trained network as a player: ``act(observation, action_mask)``, its most probable legal action."""

    def __init__(self, actor: MaskedActor) -> None:
        self.actor = actor

    def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        obs = Batch({key: value[None] for key, value in observation.items()}, mask=action_mask[None])
        with torch.no_grad():
            logits, _ = self.actor(obs)
        return int(logits.argmax())


def build(space: spaces.Dict, n: int) -> tuple[MaskedActor, Critic]:
    """An actor and a critic sharing one board network (the network of the ``ppo:`` agents)."""
    net = BoardNet(spaces.Dict({key: space[key] for key in OBS_KEYS}))
    net.orthogonal_init()
    return MaskedActor(net, n), Critic(net)


def main() -> None:
    torch.set_num_threads(torch_threads(0))
    torch.manual_seed(0)
    OUT.mkdir(parents=True, exist_ok=True)
    env = make_env()
    assert isinstance(env.observation_space, spaces.Dict) and isinstance(env.action_space, spaces.Discrete)
    n = int(env.action_space.n)

    # --8<-- [start:train]
    actor, critic = build(env.observation_space, n)
    policy = DiscreteActorPolicy(actor=actor, action_space=env.action_space, deterministic_eval=True)
    algorithm = PPO(policy=policy, critic=critic, optim=AdamOptimizerFactory(lr=3e-4), gamma=0.995,
                    gae_lambda=0.95, ent_coef=0.01, max_grad_norm=0.5)
    train_envs = DummyVectorEnv([make_env] * ENVS)
    train_envs.seed(0)
    collector = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(COLLECT_STEPS, ENVS))
    result = algorithm.run_training(OnPolicyTrainerParams(
        training_collector=collector, max_epochs=EPOCHS, epoch_num_steps=EPOCH_STEPS,
        collection_step_num_env_steps=COLLECT_STEPS, update_step_num_repetitions=4, batch_size=128,
        test_in_training=False, show_progress=False))
    print(f"trained {result.train_step} env steps, {result.train_episode} games, {result.timing.total_time:.0f} s")
    # --8<-- [end:train]

    # --8<-- [start:rate]
    weights = OUT / "board_net.pt"
    torch.save(actor.net.state_dict(), weights)
    trained, _ = build(env.observation_space, n)
    trained.net.load_state_dict(torch.load(weights, weights_only=True))
    trained.eval()
    window = int(trained.net.codec.size)

    def player(seed: int) -> EngineAgent:
        return as_engine_agent(MostProbable(trained), window=window)

    register_agent("tianshou_ppo", player)  # a spec name, played in this process (workers=1)
    shutil.rmtree(OUT / "rating", ignore_errors=True)  # a tournament folder resumes: start this one afresh
    config = env.get_wrapper_attr("aec").game_config
    ratings, _ = rate_against_anchors("tianshou_ppo", ["random"], EVAL_SEEDS, 10**6, config, OUT / "rating",
                                      workers=1, progress=False)
    r = ratings["random"]
    print(f"tianshou_ppo against random: score {100 * r['score']:.1f} % [{100 * r['low']:.1f}, "
          f"{100 * r['high']:.1f}], wins {100 * r['win']:.1f} %, Elo {elo_words(r)}, margin {r['margin']:+.1f} "
          f"points, {r['games']} games")
    # --8<-- [end:rate]


if __name__ == "__main__":
    main()
