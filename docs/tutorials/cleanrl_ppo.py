"""PPO with action masks in one file of plain torch, in the style of CleanRL's ``ppo.py``.

    python docs/tutorials/cleanrl_ppo.py                               # 81,920 env steps, 100 rated games
    python docs/tutorials/cleanrl_ppo.py --total-timesteps 200000 --num-envs 8
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/cleanrl_ppo.py  # 2 envs, one update of 256 steps, 4 rated games

Needs the ``train`` extra (torch, and tyro for the flags). Read it top to bottom: the settings, the
network, the vectorised env, the rollout, the advantages, the update, then the rating.

**Masks.** The network scores every one of the N = 17·W² + 15 actions; the illegal ones get a logit of
−∞, so their probability is exactly 0: they are never sampled, and they add nothing to the entropy or
to the gradients (their log-probability is set to 0 before it multiplies their probability of 0, so no
0 · −∞ appears). The mask comes from the env (``action_masks()``, called through the vector env) with
every observation and is stored with it, so the update scores the actions under the masks they were
chosen with.

The single-agent view's opponents play inside the env (uniformly random here), so this is ordinary
single-agent PPO. The network's heads follow the codec: one 1×1 convolution gives the 17 per-cell
logits, a linear layer the 15 others, and :func:`agents.nets.board_net.codec_index_map` puts them in
the order of the action indices.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
import tyro
from gymnasium import spaces
from torch import nn

import carcassonne_env  # noqa: F401  (registers the Gymnasium id)
from agents.nets.board_net import codec_index_map, head_channels
from agents.spec import register_agent
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.players import EngineAgent, as_engine_agent
from training.common.evaluation import elo_words, rate_against_anchors
from training.common.threads import torch_threads

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"


@dataclass
class Args:
    """Every setting is a flag: ``--total-timesteps 200000``."""

    seed: int = 0
    """Seeds the envs, torch (the sampled actions) and the minibatch order."""
    total_timesteps: int = 256 if SHORT else 81_920
    """Env steps (the learner's decisions, all envs together)."""
    num_envs: int = 2 if SHORT else 4
    """Envs stepped together (gymnasium's SyncVectorEnv)."""
    num_steps: int = 128
    """Steps per env in each rollout: a batch is num_envs × num_steps."""
    learning_rate: float = 3e-4
    """Adam's learning rate, annealed linearly to 0."""
    gamma: float = 0.995
    """Discount factor (a game is about 100 learner decisions)."""
    gae_lambda: float = 0.95
    """λ of the generalised advantage estimate."""
    num_minibatches: int = 4
    """Minibatches per epoch."""
    update_epochs: int = 4
    """Passes over each batch."""
    clip_coef: float = 0.2
    """PPO's clipping of the probability ratio (and of the value change)."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm."""
    shaping: float = 0.01
    """Reward for each point of change of the score margin if the game ended now (0: win/loss only)."""
    channels: int = 32
    """Features per board cell in the network."""
    eval_seeds: int = 2 if SHORT else 50
    """Tile orders of the rating against random, each played in both seats."""
    out: str = "runs/tutorials/cleanrl_ppo"
    """Where the weights and the rating's games go."""


def make_env(shaping: float) -> gymnasium.Env[Any, Any]:
    """The single-agent view of the 2-player tower variant; the learner's seat drawn every episode."""
    return gymnasium.make("carcassonne_env/Carcassonne-v1", seat=None, shaping=shaping, shaping_scores="end_now")


def boxes(space: spaces.Dict) -> dict[str, spaces.Box]:
    """The view's observation entries: ``board`` and ``cells`` (uint8 planes), ``vector`` (float32)."""
    entries = dict(space.spaces)
    assert all(isinstance(entry, spaces.Box) for entry in entries.values())
    return {key: entry for key, entry in entries.items() if isinstance(entry, spaces.Box)}


def plane_scale(space: spaces.Box) -> torch.Tensor:
    """1 / the bound of each plane (or vector entry) of ``space``, shaped to broadcast over it."""
    high = np.asarray(space.high, dtype=np.float32)
    per_plane = high.reshape(high.shape[0], -1).max(axis=1)
    return torch.as_tensor(1.0 / per_plane).reshape(-1, *[1] * (high.ndim - 1))


class Agent(nn.Module):
    """Actor-critic over the view's ``{"board", "cells", "vector"}``: a trunk at cell resolution (the 3×3
    sub-cells of each cell read by a stride-3 convolution, added to a 1×1 convolution of the cell planes
    and a projection of the vector), two 3×3 convolutions, then the action heads and the value."""

    board_scale: torch.Tensor
    cells_scale: torch.Tensor
    vector_scale: torch.Tensor
    source: torch.Tensor

    def __init__(self, space: spaces.Dict, channels: int) -> None:
        super().__init__()
        entries = boxes(space)
        board, cells, vector = entries["board"], entries["cells"], entries["vector"]
        self.window = cells.shape[1]  # W, cells per side
        self.register_buffer("board_scale", plane_scale(board))
        self.register_buffer("cells_scale", plane_scale(cells))
        self.register_buffer("vector_scale", plane_scale(vector))
        self.board_in = nn.Conv2d(board.shape[0], channels, kernel_size=3, stride=3)
        self.cells_in = nn.Conv2d(cells.shape[0], channels, kernel_size=1)
        self.vector_in = nn.Linear(vector.shape[0], channels)
        self.trunk = nn.Sequential(
            nn.ReLU(), nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(),
        )
        codec = ActionCodec(self.window)
        per_cell, other = head_channels(codec)
        self.per_cell_head = nn.Conv2d(channels, len(per_cell), kernel_size=1)
        self.other_head = nn.Linear(2 * channels, len(other))
        self.critic = nn.Sequential(nn.Linear(2 * channels, 64), nn.ReLU(), nn.Linear(64, 1))
        self.register_buffer("source", torch.as_tensor(codec_index_map(codec)))

    def features(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """The trunk's cells (B, C, W, W) and its pooled features (B, 2C): mean and max over the cells."""
        vector = obs["vector"] * self.vector_scale
        x = (self.board_in(obs["board"].float() * self.board_scale) + self.cells_in(obs["cells"].float() *
             self.cells_scale) + self.vector_in(vector)[:, :, None, None])
        x = self.trunk(x)
        return x, torch.cat([x.mean((2, 3)), x.amax((2, 3))], 1)

    def value(self, pooled: torch.Tensor) -> torch.Tensor:
        values: torch.Tensor = self.critic(pooled)
        return values.squeeze(1)

    def get_value(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.value(self.features(obs)[1])

    # --8<-- [start:logits]
    def masked_logits(self, obs: dict[str, torch.Tensor], mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The logits of all N actions (B, N), in the order of the action indices, −∞ where ``mask``
        (B, N, bool) is False; and the pooled features, for the value."""
        cells, pooled = self.features(obs)
        heads = torch.cat([self.per_cell_head(cells).flatten(1), self.other_head(pooled)], 1)
        return heads[:, self.source].masked_fill(~mask, float("-inf")), pooled

    def get_action_and_value(
        self, obs: dict[str, torch.Tensor], mask: torch.Tensor, action: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """A sampled legal action (or ``action``), its log-probability, the entropy and the value."""
        logits, pooled = self.masked_logits(obs, mask)
        log_probs = torch.log_softmax(logits, dim=1)  # −∞ at the illegal actions
        probs = log_probs.exp()  # exactly 0 there
        if action is None:
            action = torch.multinomial(probs, 1).squeeze(1)
        entropy = -(probs * log_probs.masked_fill(~mask, 0.0)).sum(1)
        return action, log_probs.gather(1, action[:, None]).squeeze(1), entropy, self.value(pooled)
    # --8<-- [end:logits]


def as_tensors(obs: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {key: torch.as_tensor(value) for key, value in obs.items()}


class MaskedArgmax:
    """The trained agent as a player: ``act(observation, action_mask)``, its most probable legal action."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        obs = {key: torch.as_tensor(value)[None] for key, value in observation.items()}
        mask = torch.as_tensor(action_mask, dtype=torch.bool)[None]
        with torch.no_grad():
            logits, _ = self.agent.masked_logits(obs, mask)
        return int(logits.argmax())


def main(args: Args) -> None:
    torch.set_num_threads(torch_threads(0))
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    # --8<-- [start:envs]
    # The vector env resets a finished game in the same step (SAME_STEP), so the observation and the
    # mask it returns are always those of a decision to take, never of a finished game.
    envs = gymnasium.vector.SyncVectorEnv([lambda: make_env(args.shaping)] * args.num_envs,
                                          autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    # --8<-- [end:envs]
    space = envs.single_observation_space
    assert isinstance(space, spaces.Dict)
    agent = Agent(space, args.channels)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    n_actions = int(envs.single_action_space.n)  # type: ignore[attr-defined]

    # Rollout storage: observations as the env gives them (uint8 planes stay uint8), masks as bool.
    obs_store = {key: torch.as_tensor(np.zeros((args.num_steps, args.num_envs, *box.shape), dtype=box.dtype))
                 for key, box in boxes(space).items()}
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    # declared: the vector env's types are generic (and left unbound by some gymnasium releases)
    next_obs_np: dict[str, np.ndarray]
    reward: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    next_obs_np, _ = envs.reset(seed=args.seed)
    next_obs = as_tensors(next_obs_np)
    next_mask = torch.as_tensor(np.stack(envs.call("action_masks")))
    next_done = torch.zeros(args.num_envs)
    wins: list[float] = []  # 1 win, 0.5 draw, 0 loss of every finished game
    start = time.perf_counter()
    global_step = 0
    for iteration in range(1, num_iterations + 1):
        for group in optimizer.param_groups:  # learning rate annealed linearly to 0
            group["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate

        # --8<-- [start:rollout]
        for step in range(args.num_steps):
            global_step += args.num_envs
            for key in obs_store:
                obs_store[key][step] = next_obs[key]
            masks[step] = next_mask
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value

            seats = envs.get_attr("seat")  # the learner's seat in each game (drawn again at each reset)
            next_obs_np, reward, terminations, truncations, infos = envs.step(action.numpy())
            next_obs = as_tensors(next_obs_np)
            next_mask = torch.as_tensor(np.stack(envs.call("action_masks")))
            next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            for i in np.flatnonzero(terminations | truncations):  # the finished game's info, before the reset
                winners = infos["final_info"]["winners"][i]
                wins.append((seats[i] in winners) / len(winners))
        # --8<-- [end:rollout]

        # Generalised advantage estimation, backwards through the rollout.
        with torch.no_grad():
            next_value = agent.get_value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            returns = advantages + values

        # Flatten the batch and optimise the policy and the value over minibatches.
        b_obs = {key: value.flatten(0, 1) for key, value in obs_store.items()}
        b_masks, b_actions, b_logprobs = masks.flatten(0, 1), actions.flatten(), logprobs.flatten()
        b_advantages, b_returns, b_values = advantages.flatten(), returns.flatten(), values.flatten()
        order = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed + iteration).shuffle(order)
            for first in range(0, batch_size, minibatch_size):
                mb = torch.as_tensor(order[first:first + minibatch_size])
                _, new_logprob, entropy, new_value = agent.get_action_and_value(
                    {key: value[mb] for key, value in b_obs.items()}, b_masks[mb], b_actions[mb])
                ratio = (new_logprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                clipped = b_values[mb] + (new_value - b_values[mb]).clamp(-args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((new_value - b_returns[mb]) ** 2, (clipped - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]  # torch's stub leaves Tensor.backward untyped
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        recent = wins[-100:]
        games = f"win rate {np.mean(recent):.2f} over the last {len(recent)} games" if recent else "no game over yet"
        print(f"iteration {iteration}/{num_iterations}: {global_step} steps, "
              f"{global_step / (time.perf_counter() - start):.0f} steps/s, {games}, policy loss {pg_loss.item():.3f}, "
              f"value loss {v_loss.item():.3f}, entropy {entropy.mean().item():.2f}", flush=True)
    envs.close()

    # Save the weights, load them into a new network, and rate that one with the tournament runner: a
    # name registered as an agent spec plays in this process (workers=1) in every seat of every tile order.
    weights = out / "agent.pt"
    torch.save(agent.state_dict(), weights)
    trained = Agent(space, args.channels)
    trained.load_state_dict(torch.load(weights, weights_only=True))
    trained.eval()

    def build(seed: int) -> EngineAgent:
        return as_engine_agent(MaskedArgmax(trained), window=trained.window)

    register_agent("cleanrl_ppo", build)
    config = make_env(args.shaping).get_wrapper_attr("aec").game_config
    shutil.rmtree(out / "rating", ignore_errors=True)  # a tournament folder resumes: start this one afresh
    ratings, _ = rate_against_anchors("cleanrl_ppo", ["random"], args.eval_seeds, 10**6, config, out / "rating",
                                      workers=1, progress=False)
    r = ratings["random"]
    print(f"cleanrl_ppo against random: score {100 * r['score']:.1f} % [{100 * r['low']:.1f}, "
          f"{100 * r['high']:.1f}], wins {100 * r['win']:.1f} %, Elo {elo_words(r)}, margin {r['margin']:+.1f} "
          f"points, {r['games']} games")


if __name__ == "__main__":
    main(tyro.cli(Args))
