#!/usr/bin/env bash
# A shipped agent's recipe (docs/training.md; figures in docs/experiments/) for several seeds, each followed by its 400-game
# check on the tile orders of the shipped agent's own check, so the spread over seeds can be read:
#   distill      the distillation of ppo:distilled (rounds 0-7), checked against greedy
#                (about 4.5 hours on 2 CPU cores a seed; 6 rounds took 0.4 on one H200 with 7 CPU workers)
#   afterstate   the afterstate trainer of afterstate:pretrained (seed 1; two generations from plain greedy),
#                checked against greedy:value=linear (about 2 hours on 2 CPU cores a seed)
#   table3       the 3-player afterstate:pretrained recipe (one generation from the adopted 2-player network),
#                rated in the run against greedy and greedy:value=linear (about 35 minutes on 2 CPU cores a seed)
#   table4       the 4-player one (one generation of 1,000 games from the 4-player linear value; about 25 minutes)
#                (the table recipes have no separate check: their targets are scripts/multiplayer_targets.sh)
#   long         issue 52's long run: the afterstate trainer's full recipe for 8 generations past afterstate:pretrained's
#                2-player network, each fitted on all the run's games so far (--window 8), every generation's best
#                rated against greedy:value=linear, afterstate:pretrained and
#                mcts:sims=20,guide=1,rollout_turns=0,value=afterstate on 25 tile orders each (on 2 CPU cores about
#                16 minutes a generation, 10 more for each admitted one's ratings; use many cores; no separate check)
# Run it in the background and run it again after a kill: each seed's run resumes where it stopped
# (a seed already trained and checked is skipped). Needs `bash scripts/setup.sh train` once. Usage:
#   bash scripts/train_seeds.sh RECIPE [SEED ...] [-- EXTRA TRAIN FLAGS]    # default seeds: 0 1 2
#   nohup bash scripts/train_seeds.sh distill 1 2 -- --device cuda --observations-on-device --workers 16 > runs/distill_seeds.log 2>&1 &
# Out (RUNS=DIR for another folder than runs/): runs/<RECIPE>_seed<N>/ (the run, with its curve)
# and runs/<RECIPE>_seed<N>/check/ (summary.json, pairings.csv; CHECK_SEEDS=N plays N tile orders
# instead of 200, each in both seats).
set -euo pipefail
cd "$(dirname "$0")/.."
recipe=${1:-}
case "$recipe" in
  distill | afterstate | table3 | table4 | long) shift ;;
  *) echo "usage: bash scripts/train_seeds.sh distill|afterstate|table3|table4|long [SEED ...] [-- EXTRA TRAIN FLAGS]" >&2; exit 2 ;;
esac
# shellcheck disable=SC1091
. .venv/bin/activate
seeds=()
while [[ $# -gt 0 && "$1" != "--" ]]; do seeds+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
[[ ${#seeds[@]} -eq 0 ]] && seeds=(0 1 2)
for seed in "${seeds[@]}"; do
  out=${RUNS:-runs}/${recipe}_seed$seed
  resume=()
  [[ -f "$out/state.json" ]] && resume=(--resume)
  echo "== $recipe, seed $seed: $out ${resume[*]}"
  if [[ $recipe == distill ]]; then
    # ppo:distilled's teacher: seed 0's afterstate network (afterstate:pretrained until 2026-11-26).
    carcassonne train distill full --out "$out" --seed "$seed" --rounds 8 --decisions 40000 --epochs 5 \
      --eval-seeds 50 --select-by loss --teacher afterstate:agents/pretrained/afterstate_seed0_gen2.npz,fast=1 \
      --no-progress "${resume[@]}" "$@"
    # New tile orders (the trainer rates on 70,000,000 + 1,000 × seed onwards).
    match=("ppo:$out/student.zip" greedy --seed 7100000)
  elif [[ $recipe == table3 ]]; then
    carcassonne train afterstate table --players 3 --out "$out" --seed "$seed" --generations 1 --no-progress \
      "${resume[@]}" "$@"
    continue
  elif [[ $recipe == long ]]; then
    carcassonne train afterstate full --init pretrained_2p --generations 8 --window 8 --anchor-seeds 25 \
      --anchors 'greedy:value=linear,afterstate:pretrained,mcts:sims=20,guide=1,rollout_turns=0,value=afterstate' \
      --out "$out" --seed "$seed" --no-progress "${resume[@]}" "$@"
    continue
  elif [[ $recipe == table4 ]]; then
    carcassonne train afterstate table --players 4 --init linear --games-per-generation 1000 --out "$out" \
      --seed "$seed" --generations 1 --no-progress "${resume[@]}" "$@"
    continue
  else
    carcassonne train afterstate full --out "$out" --seed "$seed" --generations 2 --no-progress "${resume[@]}" "$@"
    match=("$(cat "$out/best.spec")" greedy:value=linear --seed 6100000)
  fi
  [[ -f "$out/check/summary.json" ]] && continue
  check=()
  [[ -d "$out/check" ]] && check=(--resume)
  carcassonne tournament "${match[@]}" --seeds "${CHECK_SEEDS:-200}" --workers "$(nproc)" --out "$out/check" \
    --no-progress "${check[@]}"
done
