#!/usr/bin/env bash
# The recipe of afterstate:pretrained (README "Training": the full preset, two generations from
# plain greedy) for several seeds, each followed by its 400-game check against greedy:value=linear
# on the tile orders of the shipped agent's check. About two hours on 2 CPU cores a seed; run it in
# the background and run it again after a kill: each seed's run resumes where it stopped (a seed
# already trained and checked is skipped). Needs `bash scripts/setup.sh train` once. Usage:
#   bash scripts/afterstate_seeds.sh [SEED ...] [-- EXTRA TRAIN FLAGS]    # default seeds: 0 1 2
#   nohup bash scripts/afterstate_seeds.sh 1 2 -- --workers 16 > runs/afterstate_seeds.log 2>&1 &
# Out (RUNS=DIR for another folder than runs/): runs/afterstate_seed<N>/ (the run: curve.csv,
# ratings.png, best.spec) and runs/afterstate_seed<N>/check/ (its best agent against
# greedy:value=linear: summary.json, pairings.csv; CHECK_SEEDS=N plays N tile orders instead of 200).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate
seeds=()
while [[ $# -gt 0 && "$1" != "--" ]]; do seeds+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
[[ ${#seeds[@]} -eq 0 ]] && seeds=(0 1 2)
for seed in "${seeds[@]}"; do
  out=${RUNS:-runs}/afterstate_seed$seed
  resume=()
  [[ -f "$out/state.json" ]] && resume=(--resume)
  echo "== seed $seed: $out ${resume[*]}"
  carcassonne train afterstate full --out "$out" --seed "$seed" --generations 2 --no-progress "${resume[@]}" "$@"
  [[ -f "$out/check/summary.json" ]] && continue
  check=()
  [[ -d "$out/check" ]] && check=(--resume)
  # The shipped agent's check (README strength table): 200 tile orders from 6,100,000, both seats.
  carcassonne tournament "$(cat "$out/best.spec")" greedy:value=linear --seeds "${CHECK_SEEDS:-200}" \
    --first-seed 6100000 --workers "$(nproc)" --out "$out/check" --no-progress "${check[@]}"
done
