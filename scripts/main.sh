#!/usr/bin/env bash
# The main job: set up ./.venv, train a small agent (the `quick` preset of the afterstate trainer,
# training/afterstate/value_iteration.py) on the 2-player tower variant, then rate it. Outputs go
# to runs/main/ (override with OUT=...).
#
#   1. carcassonne train afterstate quick      -> runs/main/quick/: best.npz, best.spec, curve.csv,
#                                                 ratings.png (each generation against greedy:fast=1,
#                                                 its starting point)
#   2. carcassonne tournament <quick> random    -> 200 seat-swapped games: win rate, Wilson interval
#   3. carcassonne tournament <quick> greedy random mcts:sims=50 afterstate:pretrained
#                                               -> ratings table, ratings.png
#
# Every step resumes: run it again after an interruption and it continues where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train
# shellcheck disable=SC1091
. .venv/bin/activate
out="${OUT:-runs/main}"
workers="${WORKERS:-2}"
mkdir -p "$out"

resume() { [ -e "$1" ] && echo "--resume" || true; }

echo "== 1/3 training the quick preset (afterstate value iteration from greedy) -> $out/quick"
# shellcheck disable=SC2046
carcassonne train afterstate quick --out "$out/quick" --workers "$workers" --no-progress \
  $(resume "$out/quick/state.json")

agent="$(cat "$out/quick/best.spec")"
echo "== 2/3 the trained agent ($agent) against random: 100 tile orders, both seats"
# shellcheck disable=SC2046
carcassonne tournament "$agent" random --seeds 100 --workers "$workers" --out "$out/vs_random" \
  $(resume "$out/vs_random/tournament.json")

echo "== 3/3 round robin: trained, greedy, random, MCTS (50 simulations a move), the pretrained afterstate agent"
# shellcheck disable=SC2046
carcassonne tournament "$agent" greedy random mcts:sims=50 afterstate:pretrained --seeds 3 --workers "$workers" \
  --out "$out/tournament" $(resume "$out/tournament/tournament.json")

echo
echo "learning curve: $out/quick/ratings.png (table: $out/quick/curve.csv)"
echo "ratings plot:   $out/tournament/ratings.png"
echo "TensorBoard:    tensorboard --logdir $out/quick/tensorboard"
