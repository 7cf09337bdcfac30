"""My agent on the ladder: a network trained, saved, loaded by your own agent class and rated by the ladder.

    python docs/tutorials/my_agent_on_the_ladder.py                               # 20,000 decisions, 20 seeds
    CARCASSONNE_TUTORIAL_SHORT=1 python docs/tutorials/my_agent_on_the_ladder.py  # 128 decisions, 1 seed

Needs the ``train`` extra (torch). The agent is :class:`MyAgent`, a class of this file: anything with
``act(observation, action_mask) -> int`` (or ``choose_action(game) -> Action``) can be rated, and the
command line names it by its file and class, ``docs/tutorials/my_agent_on_the_ladder.py:MyAgent``.

1. **Train**: the project's board network (:class:`~agents.nets.board_net.BoardNet`) learns to play like
   ``greedy`` from greedy's labelled decisions (behaviour cloning, the warm start of ``carcassonne train
   ppo``): cross-entropy between its logits of the legal actions and greedy's soft preference over them.
2. **Save**: ``torch.save`` of its options and weights (tensors only: ``torch.load(weights_only=True)``
   loads them without running code).
3. **Load**: ``MyAgent(seed=…)`` reads the checkpoint that ``$MY_AGENT_CHECKPOINT`` names (default
   ``runs/tutorials/my_agent/my_agent.pt``). The ladder builds the class itself, with ``seed=`` alone,
   in a process of its own for every game, so the class finds its checkpoint without arguments.
4. **Rate**: ``carcassonne evaluate docs/tutorials/my_agent_on_the_ladder.py:MyAgent`` plays it against
   the reference ladder ``random``, ``greedy``, ``mcts:sims=200``, ``az:pretrained,guide_tree=0`` on the
   2-player tower variant, every tile order in both seats, and prints Elo ratings with ``random`` = 0 that
   compare with anyone's at the same ``--seeds`` (docs/tournament.md, "The reference benchmark").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

import carcassonne_env
from agents.nets.board_net import BoardNet
from agents.spec import make_agent
from training.common.labelled_games import Decision, labelled_games
from training.common.threads import torch_threads

SHORT = os.environ.get("CARCASSONNE_TUTORIAL_SHORT") == "1"
#: Greedy's decisions to learn from, and passes over them.
DECISIONS, EPOCHS = (128, 1) if SHORT else (20_000, 8)
#: Tile orders of the rating, each played in both seats against each ladder agent (the reference: 100).
EVAL_SEEDS = 1 if SHORT else 20
OUT = Path("runs/tutorials/my_agent")
#: The observation's entries.
OBS_KEYS = ("board", "cells", "vector")
#: The environment variable that names the checkpoint :class:`MyAgent` loads.
CHECKPOINT_VARIABLE = "MY_AGENT_CHECKPOINT"
#: The network's size, saved with its weights.
OPTIONS = {"channels": 16, "blocks": 2, "head_hidden": 64}


def network(options: dict[str, int]) -> BoardNet:
    """The project's board network of this size for the game the agent plays: the AEC env's default
    (version 1), the 2-player tower variant, with a board window of 31 cells."""
    env = carcassonne_env.raw_env()
    space = env.observation_space(env.possible_agents[0])
    assert isinstance(space, spaces.Dict) and isinstance(space["observation"], spaces.Dict)
    return BoardNet(space["observation"], channels=options["channels"], blocks=options["blocks"],
                    head_hidden=options["head_hidden"])


# --8<-- [start:agent]
def most_probable(net: BoardNet, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
    """``net``'s most probable legal action (its logits of the legal actions are padded with −1e8: the
    argmax is a legal one)."""
    obs = {key: torch.as_tensor(value)[None] for key, value in observation.items()}
    with torch.no_grad():
        legal, _ = net.legal_logits(obs, np.asarray(action_mask)[None])
    return int(legal.actions[0, legal.logits[0].argmax()])


class MyAgent:
    """The agent the ladder seats: its network's most probable legal action. Built as ``MyAgent(seed=…)``
    (the ladder passes a seed when ``__init__`` takes one); it plays deterministically."""

    def __init__(self, seed: int = 0) -> None:
        torch.set_num_threads(1)  # one game, one core: the ladder plays several games at once
        path = Path(os.environ.get(CHECKPOINT_VARIABLE, OUT / "my_agent.pt"))
        saved = torch.load(path, weights_only=True)
        self.net = network(saved["options"])
        self.net.load_state_dict(saved["weights"])
        self.net.eval()

    def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        return most_probable(self.net, observation, action_mask)
# --8<-- [end:agent]


# --8<-- [start:train]
def greedy_decisions(count: int) -> list[Decision]:
    """At least ``count`` of greedy's decisions, each with greedy's soft preference over the legal actions,
    from games of greedy against random and greedy (the decisions of the greedy seats only)."""
    games = labelled_games({}, seed=0, make_agent=lambda spec, seed: make_agent(spec, seed=seed), teacher="greedy",
                           partners=("random", "greedy"))
    decisions: list[Decision] = []
    while len(decisions) < count:
        _, samples, _ = next(games)
        decisions += samples
    return decisions


def train(decisions: list[Decision], epochs: int, rng: np.random.Generator) -> BoardNet:
    """BoardNet fitted to the decisions: cross-entropy of its legal-action logits against the soft targets
    (both in ascending action order: the padding has logit −1e8 and target 0)."""
    net = network(OPTIONS)
    net.orthogonal_init()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(1, epochs + 1):
        losses = []
        order = rng.permutation(len(decisions))
        for batch in np.array_split(order, max(1, len(order) // 64)):
            chosen = [decisions[i] for i in batch]
            obs = {key: torch.as_tensor(np.stack([d.observation[key] for d in chosen])) for key in OBS_KEYS}
            legal, _ = net.legal_logits(obs, np.stack([d.mask for d in chosen]))
            targets = torch.zeros_like(legal.logits)
            for row, d in enumerate(chosen):
                targets[row, :len(d.target)] = torch.as_tensor(d.target)
            loss = -(targets * torch.log_softmax(legal.logits, dim=1)).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]  # torch's stub leaves Tensor.backward untyped
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch}: cross-entropy {np.mean(losses):.3f} over {len(decisions)} decisions", flush=True)
    return net
# --8<-- [end:train]


def main() -> None:
    torch.set_num_threads(torch_threads(0))
    torch.manual_seed(0)
    OUT.mkdir(parents=True, exist_ok=True)
    decisions = greedy_decisions(DECISIONS)
    net = train(decisions, EPOCHS, np.random.default_rng(0))

    # --8<-- [start:save]
    checkpoint = (OUT / "my_agent.pt").resolve()
    torch.save({"options": OPTIONS, "weights": net.state_dict()}, checkpoint)
    os.environ[CHECKPOINT_VARIABLE] = str(checkpoint)  # MyAgent, and the processes started below, read it
    agent = MyAgent(seed=0)
    for d in decisions[:20]:  # the loaded agent plays what the trained network plays
        assert agent.act(d.observation, d.mask) == most_probable(net, d.observation, d.mask)
    print(f"saved {checkpoint}; MyAgent loads it and plays as the trained network")
    # --8<-- [end:save]

    # --8<-- [start:evaluate]
    spec = f"{os.path.relpath(__file__)}:MyAgent"  # a file and a class: the agent spec of your own agent
    out = OUT / "evaluate"
    shutil.rmtree(out, ignore_errors=True)  # an evaluation folder resumes (--resume): start this one afresh
    command = [sys.executable, "-m", "training.cli", "evaluate", spec, "--seeds", str(EVAL_SEEDS), "--out", str(out),
               "--no-progress"]
    print("$ carcassonne " + " ".join(command[3:]), flush=True)
    subprocess.run(command, check=True)
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for rating in summary["ratings"]:
        if rating["agent"] == spec:
            print(f"MyAgent on the ladder: Elo {rating['elo']:+.0f} [{rating['low']:+.0f}, {rating['high']:+.0f}] "
                  f"(random = 0), score {100 * rating['score']:.1f} % over {rating['games']} games")
    # --8<-- [end:evaluate]


if __name__ == "__main__":
    main()
