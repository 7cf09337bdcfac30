#!/usr/bin/env bash
# Issue 53's targets for the shipped 3- and 4-player agents, on tile orders chosen before their
# training (docs/experiments/2026-11-29-multiplayer-agents.md); resumable (run it again after a kill):
#   3 players: afterstate:pretrained against two greedy seats and against two greedy:value=linear seats,
#              seeds 9,400,000-9,400,199 in every seat rotation (600 games each);
#   4 players: afterstate:pretrained against three greedy seats, seeds 9,500,000-9,500,149, 9,600,000-9,600,149
#              and 9,700,000-9,700,149 (600 games each; the shipped network was first measured on the last);
# then what the tower changes in those games (carcassonne stats). Needs ./.venv (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS="${WORKERS:-2}"
OUT="${OUT:-runs/targets}"
run() {  # run OUT_DIR ARGS...: the tournament, resumed when its directory holds games
    local dir="$1"; shift
    local resume=()
    [ -s "$dir/games.jsonl" ] && resume=(--resume)
    .venv/bin/carcassonne tournament "$@" --workers "$WORKERS" --out "$dir" --no-progress "${resume[@]}"
}
run "$OUT/3p" afterstate:pretrained greedy greedy:value=linear --gauntlet --players 3 --seeds 200 --seed 9400000
run "$OUT/4p" afterstate:pretrained greedy --gauntlet --players 4 --seeds 150 --seed 9500000
run "$OUT/4p_set2" afterstate:pretrained greedy --gauntlet --players 4 --seeds 150 --seed 9600000
run "$OUT/4p_set3" afterstate:pretrained greedy --gauntlet --players 4 --seeds 150 --seed 9700000
.venv/bin/carcassonne stats "$OUT/3p" "$OUT/4p" "$OUT/4p_set2" "$OUT/4p_set3" --json "$OUT/tower_stats.json"
