#!/usr/bin/env bash
# The targets of the shipped multiplayer agents, on tile orders chosen before their training
# (docs/experiments/2026-11-29-multiplayer-agents.md for 3 and 4 players,
# docs/experiments/2026-12-06-five-and-six-players.md for 5 and 6); resumable (run it again after a kill):
#   3 players: afterstate:pretrained against two greedy seats and against two greedy:value=linear seats,
#              seeds 9,400,000-9,400,199 in every seat rotation (600 games each);
#   4 players: afterstate:pretrained against three greedy seats, seeds 9,500,000-9,500,149, 9,600,000-9,600,149
#              and 9,700,000-9,700,149 (600 games each; the shipped network was first measured on the last),
#              and against three greedy:value=linear seats, seeds 9,960,000-9,960,099 (400 games);
#   5 players: against four greedy seats, seeds 9,800,000-9,800,099 (500 games);
#   6 players: against five greedy seats, seeds 9,900,000-9,900,083 (504 games);
# then what the tower changes in those games (carcassonne stats). Usage:
#   bash scripts/multiplayer_targets.sh [PLAYERS ...]     # default: 3 4 5 6
# Needs ./.venv (scripts/setup.sh). WORKERS=N (default 2), OUT=DIR (default runs/targets).
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS="${WORKERS:-2}"
OUT="${OUT:-runs/targets}"
tables=("$@")
[ ${#tables[@]} -eq 0 ] && tables=(3 4 5 6)
run() {  # run OUT_DIR ARGS...: the tournament, resumed when its directory holds games
    local dir="$1"; shift
    local resume=()
    [ -s "$dir/games.jsonl" ] && resume=(--resume)
    .venv/bin/carcassonne tournament "$@" --workers "$WORKERS" --out "$dir" --no-progress "${resume[@]}"
}
played=()
for players in "${tables[@]}"; do
  case "$players" in
    3) run "$OUT/3p" afterstate:pretrained greedy greedy:value=linear --gauntlet --players 3 --seeds 200 --seed 9400000
       played+=("$OUT/3p") ;;
    4) run "$OUT/4p" afterstate:pretrained greedy --gauntlet --players 4 --seeds 150 --seed 9500000
       run "$OUT/4p_set2" afterstate:pretrained greedy --gauntlet --players 4 --seeds 150 --seed 9600000
       run "$OUT/4p_set3" afterstate:pretrained greedy --gauntlet --players 4 --seeds 150 --seed 9700000
       run "$OUT/4p_linear" afterstate:pretrained greedy:value=linear --gauntlet --players 4 --seeds 100 --seed 9960000
       played+=("$OUT/4p" "$OUT/4p_set2" "$OUT/4p_set3" "$OUT/4p_linear") ;;
    5) run "$OUT/5p" afterstate:pretrained greedy --gauntlet --players 5 --seeds 100 --seed 9800000
       played+=("$OUT/5p") ;;
    6) run "$OUT/6p" afterstate:pretrained greedy --gauntlet --players 6 --seeds 84 --seed 9900000
       played+=("$OUT/6p") ;;
    *) echo "PLAYERS must be 3, 4, 5 or 6, got $players" >&2; exit 2 ;;
  esac
done
.venv/bin/carcassonne stats "${played[@]}" --json "$OUT/tower_stats.json"
