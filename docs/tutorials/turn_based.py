"""Turn-based only: why the env refuses the parallel API, and three ways to consume it one decision at a time.

    python docs/tutorials/turn_based.py                               # 200 games a way
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/turn_based.py  # 2 games a way

Needs only the package (no torch). Carcassonne is played one player at a time, and one turn is one to
four decisions of the same player, so the AEC env declares ``is_parallelizable = False``, as PettingZoo's
classic board games do, and PettingZoo's ``aec_to_parallel`` refuses it. The script shows the refusal,
then plays the same seeded games three ways and checks that they are the same games:

1. the AEC loop itself (``env.agent_iter()``): one decision per step, the mask in every observation;
2. :class:`TurnBased`, a wrapper in the dict form that parallel-style multi-agent libraries use
   (observations, actions and rewards keyed by agent), where exactly one agent is in the observation
   dict at each step: the one to move (RLlib's ``MultiAgentEnv`` works this way);
3. the single-agent view, the other seats played inside ``step()`` by agents you choose.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.conversions import aec_to_parallel

import carcassonne_env
from carcassonne_env.players import Policy, RandomAgent

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"
#: Games played each way (seeds 0, 1, …).
GAMES = 2 if SHORT else 200
Observation = dict[str, Any]


def players(seed: int) -> dict[str, Policy]:
    """The seeded players of one game, one per agent: the same seed, the same choices in any loop."""
    return {f"player_{seat}": RandomAgent(1_000 * seed + seat) for seat in range(2)}


# --8<-- [start:refused]
def refusal() -> str:
    """What PettingZoo's ``aec_to_parallel`` says about the env."""
    env = carcassonne_env.env()
    assert env.metadata["is_parallelizable"] is False
    try:
        aec_to_parallel(env)
    except AssertionError as error:
        return str(error).split(". ")[0]
    raise AssertionError("aec_to_parallel accepted a turn-based env")
# --8<-- [end:refused]


# --8<-- [start:aec]
def aec_game(seed: int) -> tuple[int, ...]:
    """One game by the AEC loop; the final scores."""
    env = carcassonne_env.env()
    env.reset(seed=seed)
    seats = players(seed)
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)  # the AEC protocol: a finished agent is stepped with None once
        else:
            assert obs is not None  # the agent to move always has its observation
            env.step(seats[agent].act(obs["observation"], obs["action_mask"]))
    return tuple(info["final_scores"])
# --8<-- [end:aec]


# --8<-- [start:wrapper]
class TurnBased:
    """The AEC env with dict-keyed observations, actions and rewards, one acting agent per step.

    ``reset`` and ``step`` return the observations of exactly the agent to move (with its
    ``"action_mask"``); ``step`` takes ``{agent: action}`` for that agent only, and returns every
    agent's reward of that step (so an agent's return is the sum of its rewards over all steps,
    including the steps of the others) and, once the game is over, no observation and every agent's
    termination. A library that pairs each agent's observation with its next one (its transition)
    pairs the observations it saw of that agent: the other players' decisions lie in between."""

    def __init__(self, env: AECEnv[str, Observation, int | None]) -> None:
        self.env = env

    def reset(self, seed: int | None = None) -> tuple[dict[str, Observation], dict[str, Any]]:
        self.env.reset(seed=seed)
        return self._to_move(), {}

    def step(self, actions: dict[str, int]) -> tuple[
            dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        agent = self.env.agent_selection
        if set(actions) != {agent}:
            raise ValueError(f"it is {agent}'s decision alone, got actions for {sorted(actions)}")
        self.env.step(actions[agent])
        rewards = {a: float(r) for a, r in self.env.rewards.items()}
        over = all(self.env.terminations[a] or self.env.truncations[a] for a in self.env.agents)
        terminations = dict(self.env.terminations)
        truncations = dict(self.env.truncations)
        infos = {a: dict(self.env.infos[a]) for a in self.env.agents}
        if over:
            while self.env.agents:  # the AEC protocol: each finished agent is stepped with None once
                self.env.step(None)
            return {}, rewards, terminations, truncations, infos
        return self._to_move(), rewards, terminations, truncations, infos

    def _to_move(self) -> dict[str, Observation]:
        agent = self.env.agent_selection
        obs = self.env.observe(agent)
        assert obs is not None  # the agent to move always has its observation
        return {agent: obs}


def wrapped_game(seed: int) -> tuple[int, ...]:
    """One game through :class:`TurnBased`; checks that the rewards sum to a win and a loss (or a draw)."""
    env = TurnBased(carcassonne_env.env())
    obs, _ = env.reset(seed=seed)
    seats = players(seed)
    returns = dict.fromkeys(seats, 0.0)
    while obs:
        ((agent, o),) = obs.items()
        obs, rewards, _, _, infos = env.step({agent: seats[agent].act(o["observation"], o["action_mask"])})
        for a, r in rewards.items():
            returns[a] += r
    assert sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0]), returns  # win/loss rewards, 2 players
    return tuple(infos[agent]["final_scores"])
# --8<-- [end:wrapper]


# --8<-- [start:single]
class ObservationLevel:
    """``policy`` through its ``act`` alone. The single-agent view hands a player with both methods (as
    :class:`RandomAgent` has) the engine game, ``choose_action(game)``; this one is shown its observation."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def act(self, observation: Observation, action_mask: np.ndarray) -> int:
        return self.policy.act(observation, action_mask)


def single_agent_game(seed: int) -> tuple[int, ...]:
    """One game as the single-agent view sees it: the learner in seat 0, seat 1's player inside ``step()``."""
    seats = players(seed)
    opponent = ObservationLevel(seats["player_1"])
    env = gymnasium.make("carcassonne_env/Carcassonne-v1", seat=0, opponents=opponent)
    obs, _ = env.reset(seed=seed)
    learner = seats["player_0"]
    done = False
    while not done:
        action = learner.act(obs, env.get_wrapper_attr("action_masks")())
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return tuple(info["final_scores"])
# --8<-- [end:single]


def main() -> None:
    print(f"aec_to_parallel(carcassonne_env.env()) refuses: {refusal()}")
    ways: dict[str, Callable[[int], tuple[int, ...]]] = {
        "AEC loop": aec_game, "TurnBased wrapper": wrapped_game, "single-agent view": single_agent_game}
    scores: dict[str, list[tuple[int, ...]]] = {}
    for name, play in ways.items():
        start = time.perf_counter()
        scores[name] = [play(seed) for seed in range(GAMES)]
        seconds = time.perf_counter() - start
        print(f"{name}: {GAMES} games in {seconds:.1f} s, mean scores "
              f"{np.mean(scores[name], axis=0).round(1).tolist()}", flush=True)
    assert scores["AEC loop"] == scores["TurnBased wrapper"] == scores["single-agent view"]
    print(f"the same {GAMES} games all three ways: final scores identical")


if __name__ == "__main__":
    main()
