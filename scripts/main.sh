#!/usr/bin/env bash
# The main job: set up ./.venv, train a small agent (the `quick` preset of training/sb3/selfplay.py) on
# the 2-player tower variant, then rate it. Outputs go to runs/main/ (override with OUT=...).
#
#   1. carcassonne train ppo quick              -> runs/main/quick/final.zip, learning_curve.png
#   2. carcassonne tournament <quick> random    -> 200 seat-swapped games: win rate, Wilson interval
#   3. carcassonne tournament <quick> ppo:pretrained greedy random mcts:sims=50
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

echo "== 1/3 training the quick preset (MaskablePPO after a greedy warm start) -> $out/quick"
# shellcheck disable=SC2046
carcassonne train ppo quick --out "$out/quick" --no-progress $(resume "$out/quick/state.json")

agent="ppo:$out/quick/final.zip"
echo "== 2/3 the trained agent against random: 100 tile orders, both seats"
# shellcheck disable=SC2046
carcassonne tournament "$agent" random --seeds 100 --workers "$workers" --out "$out/vs_random" \
  $(resume "$out/vs_random/tournament.json")

echo "== 3/3 round robin: trained, pretrained, greedy, random, MCTS (50 simulations a move)"
# shellcheck disable=SC2046
carcassonne tournament "$agent" ppo:pretrained greedy random mcts:sims=50 --seeds 6 --workers "$workers" \
  --out "$out/tournament" $(resume "$out/tournament/tournament.json")

echo
echo "learning curve: $out/quick/learning_curve.png"
echo "ratings plot:   $out/tournament/ratings.png"
echo "TensorBoard:    tensorboard --logdir $out/quick/tensorboard"
