#!/usr/bin/env bash
# Rebuild the linear value of greedy:value=linear and mcts:value=linear for one player count
# (PLAYERS=2 to 6; default 2): greedy against greedy:fast=1 on the tower variant (for more than
# 2 players: greedy against PLAYERS-1 copies of greedy:fast=1, every seat rotation), 600 games
# (resumable), then the least-squares fit (seconds) into agents/pretrained/, whose manifest is then
# written afresh (agents/manifest.py: a shipped key loads only the bytes it lists).
#   2 players: value_linear.json    (SEEDS=300: 600 games, about 20 minutes with 2 workers)
#   3 players: value_linear_3p.json (SEEDS=200: 600 games, about 8 minutes)
#   4 players: value_linear_4p.json (SEEDS=150: 600 games, about 10 minutes)
#   5 players: value_linear_5p.json (SEEDS=120: 600 games)
#   6 players: value_linear_6p.json (SEEDS=100: 600 games)
set -euo pipefail
cd "$(dirname "$0")/.."
PLAYERS="${PLAYERS:-2}"
case "$PLAYERS" in
  2) SEEDS="${SEEDS:-300}"; OUT="${OUT:-runs/value_data}"; FILE=agents/pretrained/value_linear.json
     GAMES=(greedy greedy:fast=1) ;;
  3|4|5|6) SEEDS="${SEEDS:-$((600 / PLAYERS))}"; OUT="${OUT:-runs/value_data_${PLAYERS}p}"
       FILE="agents/pretrained/value_linear_${PLAYERS}p.json"; GAMES=(greedy greedy:fast=1 --gauntlet) ;;
  *) echo "PLAYERS must be 2 to 6, got $PLAYERS" >&2; exit 2 ;;
esac
RESUME=()
[ -f "$OUT/games.jsonl" ] && RESUME=(--resume)
.venv/bin/carcassonne tournament "${GAMES[@]}" --players "$PLAYERS" --seeds "$SEEDS" --seed 100000 \
    --workers "${WORKERS:-2}" --out "$OUT" "${RESUME[@]}"
.venv/bin/carcassonne train value "$OUT/games.jsonl" -o "$FILE" \
    --data "carcassonne tournament ${GAMES[*]} --players $PLAYERS --seeds $SEEDS --seed 100000"
.venv/bin/python scripts/maintainer/pretrained_manifest.py --write
