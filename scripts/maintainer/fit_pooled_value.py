"""Fit one value network on the self-play games of several afterstate runs of the same game, with the
trainer's own fit (:func:`training.afterstate.value_iteration.fit_value_net`, the first run's fit
settings) and write it. Several seeds of a recipe whose generations play the same agent (at 4 players
every seed's best stayed the 4-player linear value) are one larger sample of that agent's games: the
linear term's weights then come from 3,348 games instead of 1,000. The network records the spread of
its held-out games (the first-place aim at 3+ players) and the folders it was fitted on.

Each argument is a run's ``gen_NNN/self_play`` folder, ``FOLDER:N`` for its first N games (by game
index: a self-play tournament stopped early holds its first games). The 4-player network of
``afterstate:pretrained`` (seed 0's run was stopped after 348 games of its generation 2):

    python scripts/maintainer/fit_pooled_value.py agents/pretrained/afterstate_tower_4p.npz --seed 7 \\
        runs/afterstate_4p_seed0/gen_001/self_play runs/afterstate_4p_seed0/gen_002/self_play:348 \\
        runs/table4_seed1/gen_001/self_play runs/table4_seed2/gen_001/self_play

A folder may also be a tournament's ``--out`` (its ``tournament.json`` names the game): its games are
fitted with the ``table`` preset's fit settings for that game. The 5- and 6-player networks were fitted
on the games of their linear values (``PLAYERS=5 bash scripts/fit_value.sh``: greedy against copies of
``greedy:fast=1``, the games a run ``--init end_now`` plays first):

    python scripts/maintainer/fit_pooled_value.py agents/pretrained/afterstate_tower_5p.npz --seed 7 \
        runs/value_data_5p
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from carcassonne_env.engine import GameConfig, GameRecord
from training.afterstate.value_iteration import PRESETS, Settings, fit_value_net, samples_from_games
from training.arena import tournament
from training.common.run_folder import saved_settings


def folder_settings(folder: Path) -> Settings:
    """The fit settings of a self-play folder: those its afterstate run recorded in its ``state.json``;
    for a tournament's folder, the ``table`` preset's for the game its ``tournament.json`` names."""
    if (folder / "tournament.json").is_file() and not (folder.parent.parent / "state.json").is_file():
        try:
            game = GameConfig.from_dict(json.loads((folder / "tournament.json").read_text())["config"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{folder}: not a tournament's folder ({e})") from None
        return replace(PRESETS["table"][1], players=game.players, expansions=game.expansions)
    run = folder.parent.parent
    try:
        return saved_settings(Settings, json.loads((run / "state.json").read_text())["settings"], str(run))
    except (OSError, ValueError, KeyError) as e:  # SettingError is a ValueError
        raise SystemExit(f"{run}: not an afterstate run ({e})") from None


def first_games(argument: str) -> tuple[Path, int | None]:
    """``FOLDER`` or ``FOLDER:N``: the folder and how many of its first games (None: all)."""
    folder, _, count = argument.rpartition(":") if ":" in argument else (argument, "", "")
    if count and not (count.isdigit() and int(count) > 0):
        raise SystemExit(f"{argument}: FOLDER:N wants a positive number of games after the colon")
    return Path(folder), int(count) if count else None


def records_of(folder: Path, count: int | None) -> list[GameRecord]:
    """The first ``count`` games (all: None) of a self-play folder, by index; every one of them there."""
    games = sorted(tournament.iter_games(folder), key=lambda g: int(g["index"]))[:count]
    if count is not None and [int(g["index"]) for g in games] != list(range(count)):
        raise SystemExit(f"{folder}: does not hold its first {count} games")
    return [GameRecord.from_dict(g["record"]) for g in games]


def main() -> None:
    """Fit on the games of the self-play folders; write the network to ``out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the network to write (.npz)")
    parser.add_argument("folders", nargs="+",
                        help="RUN/gen_NNN/self_play or tournament folders of the same game, or FOLDER:N")
    parser.add_argument("--seed", type=int, required=True, help="seeds the held-out games and the MLP's fit")
    args = parser.parse_args()
    folders = [first_games(a) for a in args.folders]
    settings = [folder_settings(folder) for folder, _ in folders]
    configs = {json.dumps(s.game_config().to_dict(), sort_keys=True) for s in settings}
    if len(configs) != 1:
        raise SystemExit(f"the runs play different games: {sorted(configs)}")
    records = [r for folder, count in folders for r in records_of(folder, count)]
    s = replace(settings[0], td_lambda=1.0, device="cpu")
    samples = samples_from_games(records)
    config = s.game_config().to_dict()
    net, losses = fit_value_net(samples, s, args.seed, config)
    net = replace(net, info={**net.info, "pooled_from": list(args.folders), "fit_seed": args.seed})
    net.save(args.out)
    print(f"{args.out}: {len(records)} games of {samples.players} players; held-out mean squared error "
          f"{losses['heldout_mse']:.1f} (end-now {losses['heldout_mse_end_now']:.1f}, linear term "
          f"{losses['heldout_mse_linear']:.1f}), best epoch {losses['epochs']:.0f}, "
          f"spread {net.info.get('spread', float('nan')):.2f}")


if __name__ == "__main__":
    main()
