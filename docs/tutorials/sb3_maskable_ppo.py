"""Stable-Baselines3: sb3-contrib's MaskablePPO on the single-agent view, trained, saved, loaded and rated.

    python docs/tutorials/sb3_maskable_ppo.py                               # 40,960 env steps, 200 rated games
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/sb3_maskable_ppo.py  # 512 env steps, 4 rated games

Needs the ``train`` extra. The learner plays one seat of the 2-player tower variant against uniformly random
play, with the project's board network (:class:`agents.nets.policy.CarcassonnePolicy`), never an illegal
action (the mask is applied in the policy's distribution). The model is saved to
``runs/tutorials/sb3_maskable_ppo/model.zip``, loaded back for one game, then rated by the project's
tournament runner as the agent spec ``ppo:PATH``: every tile order in both seats, the paired interval of its
score. The page: docs/tutorials/sb3_maskable_ppo.md.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

import carcassonne_env  # noqa: F401  (registers the Gymnasium id)
from agents.nets.policy import CarcassonnePolicy
from training.common.evaluation import elo_words, rate_against_anchors
from training.common.threads import torch_threads
from training.sb3.ppo import NOT_SAVED, ppo_kwargs

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"
#: Env steps of training (the learner's decisions): one update of PPO in the short run.
STEPS = 512 if SHORT else 40_960
#: Tile orders of the rating, each played in both seats.
EVAL_SEEDS = 2 if SHORT else 50
#: The agents it is rated against.
ANCHORS = ("random",) if SHORT else ("random", "greedy")
OUT = Path("runs/tutorials/sb3_maskable_ppo")


# --8<-- [start:env]
def make_env() -> gymnasium.Env[Any, Any]:
    """The single-agent view of the 2-player tower variant (version 1's default game): the learner's seat
    drawn at every reset, the other seat uniformly random (no ``opponents``), and the self-play trainer's
    shaping, a small reward for every change of the score margin *if the game ended now*."""
    return gymnasium.make("carcassonne_env/Carcassonne-v1", seat=None, shaping=0.01, shaping_scores="end_now")
# --8<-- [end:env]


def main() -> None:
    torch.set_num_threads(torch_threads(0))  # the free cores, at most 2: the networks are small
    OUT.mkdir(parents=True, exist_ok=True)
    env = make_env()

    # --8<-- [start:train]
    model = MaskablePPO(CarcassonnePolicy, env, n_steps=512, batch_size=256, seed=0, **ppo_kwargs())
    model.learn(STEPS)
    path = OUT / "model.zip"
    model.save(path, exclude=NOT_SAVED)  # the training-only rollout buffer class stays out of the zip
    print(f"trained {model.num_timesteps} env steps, saved {path}")
    # --8<-- [end:train]

    # --8<-- [start:load]
    loaded = MaskablePPO.load(path)
    obs, _ = env.reset(seed=7)
    done = False
    while not done:
        masks = get_action_masks(env)  # env.get_wrapper_attr("action_masks")(): the learner's legal actions
        action, _ = loaded.predict(obs, action_masks=masks, deterministic=True)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    seat = env.get_wrapper_attr("seat")
    print(f"one game with the loaded model in seat {seat}: scores {info['final_scores']}, winners {info['winners']}")
    # --8<-- [end:load]

    # --8<-- [start:rate]
    spec = f"ppo:{path}"
    config = env.get_wrapper_attr("aec").game_config  # the game it was trained on
    shutil.rmtree(OUT / "rating", ignore_errors=True)  # a tournament folder resumes: start this one afresh
    ratings, _ = rate_against_anchors(spec, ANCHORS, EVAL_SEEDS, 10**6, config, OUT / "rating", workers=1,
                                      progress=False)
    for anchor, r in ratings.items():
        print(f"{spec} against {anchor}: score {100 * r['score']:.1f} % [{100 * r['low']:.1f}, {100 * r['high']:.1f}], "
              f"wins {100 * r['win']:.1f} %, Elo {elo_words(r)}, margin {r['margin']:+.1f} points, {r['games']} games")
    # --8<-- [end:rate]


if __name__ == "__main__":
    main()
