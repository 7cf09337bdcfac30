"""The moves and CPU time of agents in four games against ``greedy:value=linear`` (tile orders 2-5, after one
warm-up game), one line per spec: ms CPU a decision, decisions, and a hash of the agent's moves. Run it on two
versions of the code to compare their moves (the same hash: the same moves).

    python docs/results/batched_look_ahead_2026-12-08/same_moves.py az:pretrained mcts:pretrained
"""

import hashlib
import sys
import time

import torch

from agents import make_agent
from agents.az import SHIPPED_AZ, load_net
from agents.manifest import verified
from carcassonne_env.engine import Game

torch.set_num_threads(1)
CONFIG = load_net(verified(SHIPPED_AZ)).config


def play(spec: str, seed: int) -> tuple[float, list[str]]:
    """CPU seconds and moves of ``spec`` in seat 0 of one game against ``greedy:value=linear``."""
    agent, other = make_agent(spec, seed=1), make_agent("greedy:value=linear", seed=2)
    game, cpu, moves = Game(CONFIG, seed=seed), 0.0, []
    while not game.is_over:
        mine = game.current_player == 0
        start = time.process_time()
        action = (agent if mine else other).choose_action(game.clone())
        if mine:
            cpu += time.process_time() - start
            moves.append(str(action))
        game.apply(action)
    return cpu, moves


for spec in sys.argv[1:]:
    play(spec, 1)
    results = [play(spec, seed) for seed in range(2, 6)]
    moves = [m for _, game_moves in results for m in game_moves]
    cpu = sum(c for c, _ in results)
    digest = hashlib.md5(repr(moves).encode()).hexdigest()[:10]
    print(f"{spec}: {1000 * cpu / len(moves):.2f} ms CPU a decision over {len(moves)} decisions, moves {digest}")
