#!/usr/bin/env bash
# Rebuild agents/pretrained/value_linear.json, the learned value of greedy:value=linear and
# mcts:value=linear: 1,200 greedy-vs-greedy games of the 2-player tower variant (about 20 minutes
# with 2 workers; resumable), then the least-squares fit (seconds). The shipped file was made with
# the first 600 games (--seeds 300).
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS="${SEEDS:-300}"
OUT="${OUT:-runs/value_data}"
RESUME=()
[ -f "$OUT/games.jsonl" ] && RESUME=(--resume)
.venv/bin/carcassonne tournament greedy greedy:fast=1 --seeds "$SEEDS" --seed 100000 --workers 2 \
    --out "$OUT" "${RESUME[@]}"
.venv/bin/carcassonne train value "$OUT/games.jsonl" -o agents/pretrained/value_linear.json \
    --data "carcassonne tournament greedy greedy:fast=1 --seeds $SEEDS --seed 100000"
