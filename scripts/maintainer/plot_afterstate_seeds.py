"""Afterstate runs on several seeds, in one picture: per anchor, each run's best agent's score against
it by training hours (95 % interval), and each generation's gate (the candidate's paired score
against the best, 95 % interval, filled when admitted). Read from each run's ``state.json`` (its
``history`` and ``gates``), written by ``carcassonne train afterstate``; a run folder is the run's
output directory or its copy in ``docs/results``. The runs must be of one game, which the title
names (:func:`~carcassonne_env.engine.describe_game`). At N players a score is the share of games the
agent beats the best of its opponent's N − 1 copies (ties ½), so an agent as good as its opponent
scores 1/N: that line is drawn dashed.

    python scripts/maintainer/plot_afterstate_seeds.py OUT.png \
        docs/results/multiplayer_2026-11-29/afterstate_3p_seed0 runs/table3_seed[12]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from carcassonne_env.engine import GameConfig, describe_game


def _run(folder: Path) -> dict[str, Any]:
    """The run's ``state.json``; SystemExit naming the folder when it has none."""
    try:
        state: dict[str, Any] = json.loads((folder / "state.json").read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{folder}: no readable state.json ({e})") from None
    return state


def plot(out: Path, folders: list[Path]) -> None:
    """Draw the runs of ``folders`` (one colour each, labelled by seed) into ``out``."""
    runs = [_run(f) for f in folders]
    games = {describe_game(GameConfig(players=r["settings"]["players"], expansions=tuple(r["settings"]["expansions"])))
             for r in runs}
    if len(games) != 1:
        raise SystemExit(f"the runs are of different games ({'; '.join(sorted(games))}): draw each game apart")
    n = runs[0]["settings"]["players"]
    anchors = list(runs[0]["settings"]["anchors"])
    fig, axes = plt.subplots(1, len(anchors) + 1, figsize=(4.2 * (len(anchors) + 1), 3.8), sharey=True)
    for i, run in enumerate(runs):
        colour = f"C{i}"
        label = f"seed {run['settings']['seed']}"
        history = run["history"]
        hours = [h["hours"] for h in history]
        for ax, anchor in zip(axes, anchors, strict=False):
            # no rating while the best agent is the anchor itself (the run started from it)
            rows = [None if h["best"] == anchor else h["ratings"].get(anchor) for h in history]
            points = [(x, r) for x, r in zip(hours, rows, strict=True) if r is not None]
            if not points:
                continue
            ax.plot([x for x, _ in points], [r["score"] for _, r in points], marker="o", color=colour, label=label)
            ax.fill_between([x for x, _ in points], [r["low"] for _, r in points], [r["high"] for _, r in points],
                            color=colour, alpha=0.12)
        gates = run.get("gates", {})
        for g, gate in sorted(gates.items(), key=lambda kv: int(kv[0])):
            admitted = int(g) < len(history) and history[int(g)]["admitted"]
            x = int(g) + 0.08 * (i - (len(runs) - 1) / 2)
            axes[-1].errorbar([x], [gate["score"]], yerr=[[gate["score"] - gate["score_low"]],
                              [gate["score_high"] - gate["score"]]], marker="o", color=colour,
                              mfc=colour if admitted else "white", capsize=3,
                              label=label if g == min(gates, key=int) else None)
    for ax, anchor in zip(axes, anchors, strict=False):
        ax.set_title(f"best agent vs {anchor}".replace(",guide", ",\nguide"), fontsize=9)
        ax.set_xlabel("training hours (wall)")
    axes[-1].set_title("gate: candidate vs the best (filled: admitted)", fontsize=9)
    axes[-1].set_xlabel("generation")
    generations = sorted({int(g) for run in runs for g in run.get("gates", {})})
    axes[-1].set_xticks(generations or [1])
    axes[-1].set_xlim(min(generations or [1]) - 0.5, max(generations or [1]) + 0.5)
    axes[0].set_ylabel(f"score against the best of {n - 1} cop{'y' if n == 2 else 'ies'}" if n > 2 else "score")
    for ax in axes:
        ax.axhline(1.0 / n, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0.0, 1.0)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper right")
        else:
            ax.text(0.5, 0.5, "not rated: each run's best\nwas this anchor itself", ha="center", fontsize=8,
                    color="grey", transform=ax.transAxes)
    fig.suptitle(f"Afterstate value iteration, {len(runs)} seed{'s' if len(runs) > 1 else ''} "
                 f"(dashed: an equal agent's share, 1/{n})\ngame: {games.pop()}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit("usage: python scripts/maintainer/plot_afterstate_seeds.py OUT.png RUN_FOLDER ...")
    plot(Path(sys.argv[1]), [Path(a) for a in sys.argv[2:]])
