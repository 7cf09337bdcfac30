"""Ray RLlib: PPO self-play on the AEC env with the project's RLModule, checkpointed, loaded and rated.

    python docs/tutorials/rllib.py                               # 20 iterations of 2,048 steps, 100 rated games
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/rllib.py  # one iteration of 256 steps, 4 rated games

Needs the ``ray`` extra (``ray[rllib]==2.60.0``). The pieces are the project's, as ``carcassonne train
rllib`` uses them (``training/rllib/selfplay.py``):

* the env: ``carcassonne_v1`` through RLlib's ``PettingZooEnv`` wrapper, turn by turn: at every step only
  the player to move gets an observation, with its ``action_mask``
  (:func:`agents.nets.rllib_module.make_env`);
* the network: :class:`~agents.nets.rllib_module.CarcassonneRLModule`, the board network of the ``ppo:``
  agents as an RLModule, always masked; every seat plays the one shared module (self-play);
* the config: :func:`training.rllib.selfplay.build_config` makes RLlib's ``PPOConfig`` from the trainer's
  settings, and any RLlib method can change it before the algorithm is built.

This script builds the algorithm itself, trains it for a few iterations, saves a checkpoint, loads its
module back as a player for one game of the AEC env, and rates the checkpoint (the agent spec
``rllib:PATH``) against random play with the project's tournament runner.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import carcassonne_env
from agents.rllib import RLlibAgent
from training.arena.ray_support import ray_session
from training.common.evaluation import elo_words, rate_against_anchors
from training.rllib.selfplay import Settings, build_config, object_store_bytes

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"
#: Training iterations; each samples ``train_batch`` env steps (every seat's decisions), then updates.
ITERATIONS = 1 if SHORT else 20
#: Tile orders of the rating against random, each played in both seats.
EVAL_SEEDS = 2 if SHORT else 50
OUT = Path("runs/tutorials/rllib")

# --8<-- [start:settings]
#: The trainer's settings (every field is a flag of ``carcassonne train rllib``): the 2-player tower
#: variant, PPO's hyperparameters, the network; here the driver samples itself (no EnvRunner actors).
SETTINGS = Settings(env_runners=0, train_batch=256 if SHORT else 2_048, minibatch=128 if SHORT else 256,
                    epochs=2 if SHORT else 4, eval_every=0, seed=0)
# --8<-- [end:settings]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    checkpoint = (OUT / "checkpoint").resolve()  # RLlib saves and restores by absolute path
    # --8<-- [start:train]
    with ray_session(num_cpus=2, object_store_bytes=object_store_bytes(SETTINGS), needed_by="docs/tutorials/rllib.py"):
        config = build_config(SETTINGS)
        config = config.training(lr=3e-4)  # any RLlib setting can be changed here, before the build
        algo = config.build_algo()
        try:
            for iteration in range(1, ITERATIONS + 1):
                result = algo.train()
                runners = result["env_runners"]
                print(f"iteration {iteration}: {int(runners['num_env_steps_sampled_lifetime'])} env steps, "
                      f"{int(runners.get('num_episodes_lifetime', 0))} games finished", flush=True)
            algo.save_to_path(checkpoint)
        finally:
            algo.stop()
    print(f"saved {checkpoint}")
    # --8<-- [end:train]

    # --8<-- [start:load]
    player = RLlibAgent(checkpoint)  # the checkpoint's shared module, on the CPU, masked argmax
    env = carcassonne_env.env()  # the AEC env, version 1: the 2-player tower variant
    env.reset(seed=7)
    for _ in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
        else:
            assert obs is not None  # the agent to move always has its observation
            env.step(player.act(obs["observation"], obs["action_mask"]))
    print(f"one self-play game of the loaded module: scores {info['final_scores']}, winners {info['winners']}")
    # --8<-- [end:load]

    # --8<-- [start:rate]
    spec = f"rllib:{checkpoint}"
    shutil.rmtree(OUT / "rating", ignore_errors=True)  # a tournament folder resumes: start this one afresh
    ratings, _ = rate_against_anchors(spec, ["random"], EVAL_SEEDS, 10**6, SETTINGS.game_config(), OUT / "rating",
                                      workers=1, progress=False)
    r = ratings["random"]
    print(f"rllib against random: score {100 * r['score']:.1f} % [{100 * r['low']:.1f}, {100 * r['high']:.1f}], "
          f"wins {100 * r['win']:.1f} %, Elo {elo_words(r)}, margin {r['margin']:+.1f} points, {r['games']} games")
    # --8<-- [end:rate]


if __name__ == "__main__":
    main()
