"""How far each candidate agent's choices fall from a judge's action values, decision by decision.

Plays seeded games between two agents (both seat orders) and, at every decision, asks the judge
(an agent that values actions, e.g. ``afterstate:…,fast=1``) for its values of the legal actions on
a determinized copy, and each candidate for its choice on a copy of the same position. Prints per
candidate and per phase (placing the tile, or what follows it: follower, tower, pass): agreement
(the choice is one the judge values best) and regret (the judge's best value minus the value of
the choice, in points), with the share of the regret that comes from choices losing more than 5
points, and what those choices were (the chosen action's kind for the kind of the judge's best one).
A diagnostic, not a rating: the judge's values are its estimates, not the truth.

    python scripts/maintainer/choice_regret.py --judge afterstate:runs/long_seed1/gen_006/candidate.npz,fast=1 \\
        --players greedy:value=linear ppo:distilled --candidates greedy:value=linear ppo:distilled greedy \\
        --seeds 10 --seed 8900000
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any

import numpy as np

from agents.spec import make_agent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.actions import ActionKind
from carcassonne_env.engine.registry import TOWER_VARIANT

BLUNDER = 5.0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--judge", required=True)
    p.add_argument("--players", nargs=2, required=True, help="the two agents whose games give the positions")
    p.add_argument("--candidates", nargs="+", required=True)
    p.add_argument("--seeds", type=int, default=10, help="tile orders, each played in both seat orders")
    p.add_argument("--seed", type=int, default=8_900_000)
    p.add_argument("--out", help="write the table as JSON here too")
    a = p.parse_args()

    config = GameConfig(expansions=TOWER_VARIANT)  # the CLI's default game
    pile_rng = np.random.default_rng(a.seed)
    regrets: dict[tuple[str, str], list[float]] = defaultdict(list)
    blunders: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))  # by chosen, best kind
    for k in range(a.seeds):
        seed = a.seed + k
        for seats in (a.players, a.players[::-1]):
            game = Game(config, seed=seed)
            players = [make_agent(s, seed=seed + i) for i, s in enumerate(seats)]
            judge: Any = make_agent(a.judge, seed=seed + 7)  # an agent with action_values
            candidates = [make_agent(s, seed=seed + 11 + i) for i, s in enumerate(a.candidates)]
            while not game.is_over:
                legal = list(game.legal_actions())
                if len(legal) > 1:
                    values = np.asarray(judge.action_values(game.determinize(pile_rng)), dtype=np.float64)
                    best = values.max()
                    kind = "PLACE" if legal[0].kind == ActionKind.PLACE else "after placing"
                    for spec, agent in zip(a.candidates, candidates, strict=True):
                        choice = agent.choose_action(game.clone())
                        regret = float(best - values[legal.index(choice)])
                        regrets[(spec, kind)].append(regret)
                        if regret > BLUNDER:
                            top = legal[int(np.argmax(values))]
                            blunders[spec][f"{choice.kind.name} for {top.kind.name}"] += regret
                game.apply(players[game.current_player].choose_action(game.clone()))
        print(f"tile order {k + 1}/{a.seeds} done", flush=True)

    rows: list[dict[str, Any]] = []
    for spec in a.candidates:
        kinds = sorted({kind for s, kind in regrets if s == spec})
        for kind in [*kinds, "all"]:
            r = np.asarray([x for (s, kd), xs in regrets.items() if s == spec and kind in (kd, "all") for x in xs])
            rows.append({"candidate": spec, "action": kind, "decisions": int(r.size),
                         "agreement": float((r <= 1e-9).mean()), "regret": float(r.mean()),
                         "blunder_share": float(r[r > BLUNDER].sum() / max(r.sum(), 1e-12))})
    print(f"{'candidate':42} {'action':16} {'decisions':>9} {'agree':>7} {'regret':>7} {'>5 pts':>7}")
    for row in rows:
        print(f"{row['candidate']:42} {row['action']:16} {row['decisions']:9d} {row['agreement']:7.1%} "
              f"{row['regret']:7.2f} {row['blunder_share']:7.1%}")
    for spec in a.candidates:
        total = sum(blunders[spec].values())
        print(f"{spec}: regret of choices losing > {BLUNDER:g} points, by chosen kind for the judge's best kind: "
              + ", ".join(f"{k} {v / max(total, 1e-12):.0%}"
                           for k, v in sorted(blunders[spec].items(), key=lambda kv: -kv[1])[:6]))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"args": vars(a), "rows": rows, "blunders": {k: dict(v) for k, v in blunders.items()}}, f,
                      indent=1)


if __name__ == "__main__":
    main()
