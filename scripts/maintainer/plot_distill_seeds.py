"""The distillation recipe on several seeds, in one picture: each round's student against greedy
(100 games a round, from each run's ``history.json``) and each run's 400-game check (its
``check/summary.json``, written by ``scripts/train_seeds.sh distill``). A run folder is a run's
output directory or its copy in ``docs/results`` (the same three files); a run still training (no
check yet) is drawn up to its last finished round. The runs must be of one game, which the title
names (:func:`~carcassonne_env.engine.describe_game`):

    python scripts/maintainer/plot_distill_seeds.py OUT.png docs/results/distill_seed0_8rounds runs/distill_seed[12]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from carcassonne_env.engine import GameConfig, describe_game
from training.arena.ratings import wilson


def _run(folder: Path) -> tuple[str, list[int], int, tuple[int, int, int] | None, str]:
    """(legend name, wins against greedy by round, games a round, the check's W-D-L or None, the game)."""
    history = sorted(json.loads((folder / "history.json").read_text()), key=lambda r: r["round"])
    state = json.loads((folder / "state.json").read_text())
    games = 2 * state["settings"]["eval_seeds"]
    wins = [round(r["ratings"]["greedy"]["win"] * games) for r in history]
    settings = state["settings"]
    game = describe_game(GameConfig(players=settings["players"], expansions=tuple(settings["expansions"])))
    name = f"seed {state['settings']['seed']} ({state['settings']['device']}, {history[-1]['hours']:.2f} h"
    summary = folder / "check" / "summary.json"
    if not summary.exists():
        return f"{name}, rounds 0–{len(wins) - 1} so far)", wins, games, None, game
    pairing = json.loads(summary.read_text())["pairings"][0]
    return f"{name})", wins, games, (pairing["wins"], pairing["draws"], pairing["losses"]), game


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit("usage: python scripts/maintainer/plot_distill_seeds.py OUT.png RUN_FOLDER [RUN_FOLDER ...]")
    out, folders = Path(argv[0]), [Path(a) for a in argv[1:]]
    runs = [_run(f) for f in folders]
    games_of = {game for *_, game in runs}
    if len(games_of) != 1:
        sys.exit(f"the runs are of different games ({'; '.join(sorted(games_of))}): draw each game apart")
    rounds = max(len(wins) for _, wins, _, _, _ in runs)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, (name, wins, games, check, _) in enumerate(runs):
        dx = 0.06 * (k - (len(runs) - 1) / 2)
        shares = [x / games for x in wins]
        bounds = [wilson(x, games) for x in wins]
        ax.errorbar([r + dx for r in range(len(wins))], shares, capsize=2, marker="o", color=f"C{k}", label=name,
                    yerr=[[s - b[0] for s, b in zip(shares, bounds, strict=True)],
                          [b[1] - s for s, b in zip(shares, bounds, strict=True)]])
        if check is not None:
            w, d, lost = check
            n = w + d + lost
            lo, hi = wilson(w, n)
            ax.errorbar([rounds - 0.7 + dx], [w / n], yerr=[[w / n - lo], [hi - w / n]], marker="s",
                        color=f"C{k}", capsize=3)
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.axhline(0.55, color="grey", lw=0.8, ls="--")
    ax.text(rounds - 0.7, 0.40, "400-game\ncheck", ha="center", fontsize=8)
    ax.set_xticks(range(rounds))
    ax.set(xlabel="DAgger round", ylabel="win share against greedy (95 % Wilson)", ylim=(0, 1),
           title=f"Distillation (no search): each round's student against greedy, by seed\ngame: {games_of.pop()}")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
