#!/usr/bin/env bash
# The distillation recipe of README "Training" (seed 0's table) for several seeds, each followed by
# its 400-game check against greedy on new tile orders. Hours on 2 CPU cores a seed; run it in the
# background and run it again after a kill: each seed's run resumes where it stopped (a seed already
# trained and checked is skipped). Needs `bash scripts/setup.sh train` once. Usage:
#   bash scripts/distill_seeds.sh [SEED ...] [-- EXTRA TRAIN FLAGS]    # default seeds: 0 1 2
#   nohup bash scripts/distill_seeds.sh 1 2 -- --device cuda --workers 16 > runs/distill_seeds.log 2>&1 &
# Out (RUNS=DIR for another folder than runs/): runs/distill_seed<N>/ (the run: curve.png,
# history.json, round_NNN/student.zip) and runs/distill_seed<N>/check/ (the last student against
# greedy: summary.json, pairings.csv; CHECK_SEEDS=N plays N tile orders instead of 200).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate
seeds=()
while [[ $# -gt 0 && "$1" != "--" ]]; do seeds+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
[[ ${#seeds[@]} -eq 0 ]] && seeds=(0 1 2)
for seed in "${seeds[@]}"; do
  out=${RUNS:-runs}/distill_seed$seed
  resume=()
  [[ -f "$out/state.json" ]] && resume=(--resume)
  echo "== seed $seed: $out ${resume[*]}"
  carcassonne train distill full --out "$out" --seed "$seed" --rounds 6 --decisions 40000 --epochs 5 \
    --eval-seeds 50 --select-by loss --no-progress "${resume[@]}" "$@"
  # New tile orders (the trainer rates on 70,000,000 + 1,000 × seed onwards), both seats each.
  [[ -f "$out/check/summary.json" ]] && continue
  check=()
  [[ -d "$out/check" ]] && check=(--resume)
  carcassonne tournament "ppo:$out/student.zip" greedy --seeds "${CHECK_SEEDS:-200}" --first-seed 7100000 \
    --workers "$(nproc)" --out "$out/check" --no-progress "${check[@]}"
done
