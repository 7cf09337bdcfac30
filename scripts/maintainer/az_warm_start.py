"""The warm start of the ``az`` network (``agents/pretrained/az_tower_2p.pt``): a small
:class:`~agents.nets.pv_net.PVNet` distilled, before any self-play, from two shipped models.

* **Policy** from ``ppo:pooled`` (a 64 × 4 BoardNet with action and reach heads, ~6 ms a position: too
  slow to evaluate thousands of leaves, and the strongest network that plays without search): the
  student's legal-action distribution is fitted to the teacher's full distribution (cross-entropy to
  soft targets, which carries the teacher's second choices too; a search needs good priors over its
  top-k, not only the argmax).
* **Value**: ``afterstate_long`` itself (the position value of ``mcts:pretrained``), as the network's
  base value (:mod:`agents.nets.pv_net`); the value head, the correction to it, stays at its initial 0.
  Fitting a CNN to reproduce ``afterstate_long`` (tried first: 10.4 points RMSE after 8 epochs) would
  only add error to a value that costs 0.07 ms a position; what the base value misses is for the
  trainer to learn from self-play (issue 77, point 3), not knowable from these positions.

Positions are every decision with more than one legal action of ``--games`` games in which
``ppo:pooled`` plays every seat, sampling from its distribution (``sample=1``: the positions a search
meets include the second choices, not only the argmax line). The last ``--heldout`` share of the games
is held out: the script prints the held-out cross-entropy and the share of positions where the student's
argmax is the teacher's, per epoch. The weights are written as data
(:meth:`PVNet.save`, the game recorded) to ``--out``. The fit is :func:`training.az.fit.fit` (shared
with the expert-iteration trainer) with the value weight 0: the value head is frozen.

    CARCASSONNE_PURE_PYTHON=1 python scripts/maintainer/az_warm_start.py --games 300 --epochs 8 \\
        --out agents/pretrained/az_tower_2p.pt
    python scripts/maintainer/pretrained_manifest.py --write
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch as th

from agents.nets.board_net import LegalActions
from agents.nets.pv_net import NetSize, PVNet
from agents.ppo import SHIPPED, load_policy
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.observation import Encoder
from training.az.fit import Position, fit

WINDOW = 31


def collect(config: GameConfig, games: int, seed: int) -> list[Position]:
    """The decisions of ``games`` games of sampled ``ppo:pooled`` self-play (module docstring)."""
    teacher = load_policy(SHIPPED["pooled"])
    codec = ActionCodec(WINDOW)
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    for g in range(games):
        game = Game(config, seed=seed + g)
        encoder = Encoder(config, WINDOW)
        encoder.reset(game)
        while not game.is_over:
            encoder.sync(game)
            indices, _ = codec.legal_indices(game, encoder.window, encoder.frontier_inside)
            legal = np.array(sorted(indices), dtype=np.int64)
            if len(legal) == 1:
                game.apply(codec.decode_for(game, int(legal[0]), encoder.window))
                continue
            obs = encoder.observation(game, game.current_player)
            tensors = {k: th.from_numpy(v[None]) for k, v in obs.items()}
            with th.inference_mode():
                logits, _ = teacher.legal_logits(tensors, LegalActions.from_lists([legal]))
            probs = th.softmax(logits.logits[0, :len(legal)].double(), 0).numpy()
            out.append(Position.of(obs, legal, probs, g))
            choice = int(legal[rng.choice(len(legal), p=probs / probs.sum())])
            game.apply(codec.decode_for(game, choice, encoder.window))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--heldout", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=770000)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    th.set_num_threads(1)
    th.manual_seed(args.seed)
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    start = time.process_time()
    positions = collect(config, args.games, args.seed)
    cut = round(args.games * (1 - args.heldout))
    train = [p for p in positions if p.game < cut]
    heldout = [p for p in positions if p.game >= cut]
    print(f"{len(positions)} positions of {args.games} games ({len(heldout)} held out), "
          f"{time.process_time() - start:.0f} s CPU", flush=True)
    pv = PVNet(config, WINDOW, NetSize())
    fit(pv, train, heldout, args.epochs, args.batch, args.lr, args.seed)
    pv.save(args.out)
    print(f"wrote {args.out} ({time.process_time() - start:.0f} s CPU in all)")


if __name__ == "__main__":
    main()
