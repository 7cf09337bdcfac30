#!/usr/bin/env bash
# Issue 22's throughput comparison in one run on one machine: whole training iterations of the SB3
# trainer and of the RLlib trainer (2 envs per EnvRunner, 1,024 env steps, minibatch 256, 4 epochs;
# 2 torch threads in each learner, 1 in each EnvRunner). Run it on a quiet machine; needs
# `bash scripts/setup.sh dev,train,ray`. ITERATIONS=N (default 8: the first iteration of each run is a
# warm-up, so both trainers' medians are over iterations 2..N). Out: runs/bench_rllib/ (progress.jsonl per RLlib run).
#
#   bash scripts/maintainer/bench_rllib_vs_sb3.sh
#       SB3; RLlib with 1 and 2 EnvRunners and no KL penalty (SB3's algorithm: --kl-coeff 0); with
#       RLlib's KL penalty; as it was before 2026-11-25 (KL penalty, the 200 MiB object store); SB3.
#   BASELINE=REV [ROUNDS=5] bash scripts/maintainer/bench_rllib_vs_sb3.sh
#       before/after: ROUNDS rounds of SB3, RLlib (2 EnvRunners, no KL) on this checkout and RLlib on
#       git revision REV (checked out and its compiled core built in a scratch worktree,
#       scripts/maintainer/built_revision.sh: ~3 minutes), alternating, then SB3 once more.
#   ROUNDS=N bash scripts/maintainer/bench_rllib_vs_sb3.sh
#       the target's figure on a machine whose speed drifts: N rounds of SB3 then RLlib (2 EnvRunners,
#       no KL), the ratio RLlib / SB3 within each round, their median and their geometric mean with a
#       95 % t interval over the rounds (~65 s a round).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck disable=SC1091
. .venv/bin/activate
here=$PWD
out=$here/runs/bench_rllib
iterations=${ITERATIONS:-8}
if ! [[ "$iterations" =~ ^[0-9]+$ ]] || (( iterations < 2 )); then
  echo "ITERATIONS=$iterations: need a whole number >= 2 (iteration 1 is a warm-up, left out of the medians)" >&2; exit 2
fi
if [[ -n "${ROUNDS:-}" ]] && { ! [[ "$ROUNDS" =~ ^[0-9]+$ ]] || (( ROUNDS < 1 )); }; then
  echo "ROUNDS=$ROUNDS: need a whole number >= 1" >&2; exit 2
fi
rm -rf "$out" && mkdir -p "$out"
sb3() {  # LABEL
  python -m training.sb3.bench_train --iterations "$iterations" --threads 2 > "$out/sb3.log" 2>&1
  python - "$out/sb3.log" "$1" "$out/medians.txt" <<'PY'
import re, statistics, sys
rates = [float(m.group(1)) for m in re.finditer(r"^iteration +\d+: +([\d.]+) env steps/s", open(sys.argv[1]).read(), re.M)]
later = rates[1:]  # iteration 1 is a warm-up, as for RLlib below
print(f"SB3 MaskablePPO, {sys.argv[2]}: median {statistics.median(later):.1f} env steps/s over iterations 2-{len(rates)} "
      f"(each: {', '.join(str(round(r)) for r in rates)})")
with open(sys.argv[3], "a") as medians:
    medians.write(f"sb3 {statistics.median(later):.1f}\n")
PY
}
rllib() {  # NAME CHECKOUT RUNNERS EXTRA-FLAGS...
  local name=$1 checkout=$2 runners=$3
  shift 3
  (cd "$checkout" && PYTHONPATH=$checkout python -m training.cli train rllib --num-cpus 2 --env-runners "$runners" \
    --envs-per-runner 2 --train-batch 1024 --minibatch 256 --epochs 4 --iterations "$iterations" --eval-every 0 \
    --checkpoint-every 0 --threads 2 --out "$out/$name" "$@" > "$out/$name.log" 2>&1)
  python - "$out/$name/progress.jsonl" "$name" "$runners" "$out/medians.txt" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
later = rows[1:]
median = statistics.median(r['env_steps_per_s'] for r in later)
print(f"RLlib {sys.argv[2]} ({sys.argv[3]} EnvRunner(s)): median {median:.1f} "
      f"env steps/s over iterations 2-{len(rows)}, {sum(r['seconds'] for r in later):.1f} s in all "
      f"(each: {', '.join(str(round(r['env_steps_per_s'])) for r in rows)})")
with open(sys.argv[4], "a") as medians:
    medians.write(f"rllib {median:.1f}\n")
PY
}
if [[ -n "${BASELINE:-}" ]]; then
  # shellcheck source=scripts/maintainer/built_revision.sh
  . scripts/maintainer/built_revision.sh
  built_revision "$BASELINE"  # with its compiled core, as this checkout's is installed
  for round in $(seq "${ROUNDS:-5}"); do
    sb3 "round $round"
    rllib "this-checkout-$round" "$here" 2 --kl-coeff 0
    rllib "baseline-$round" "$revision_tree" 2 --kl-coeff 0
  done
  sb3 "again"
  exit 0
fi
if [[ -n "${ROUNDS:-}" ]]; then
  for round in $(seq "$ROUNDS"); do
    sb3 "round $round"
    rllib "round-$round" "$here" 2 --kl-coeff 0
  done
  python - "$out/medians.txt" <<'PY'
import math, statistics, sys
from scipy import stats
values = [line.split() for line in open(sys.argv[1])]
sb3 = [float(v) for k, v in values if k == "sb3"]
rllib = [float(v) for k, v in values if k == "rllib"]
ratios = [r / s for r, s in zip(rllib, sb3)]
logs = [math.log(x) for x in ratios]
print(f"RLlib / SB3 within each round: {', '.join(f'{x:.2f}' for x in ratios)}; median {statistics.median(ratios):.2f}, "
      f"range {min(ratios):.2f}-{max(ratios):.2f}, {sum(x > 1 for x in ratios)} of {len(ratios)} above 1; "
      f"medians of the rounds: RLlib {statistics.median(rllib):.1f}, SB3 {statistics.median(sb3):.1f} env steps/s")
if len(logs) > 1:
    half = stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    mean = statistics.fmean(logs)
    print(f"geometric mean of the ratios {math.exp(mean):.3f}, 95 % t interval over the rounds "
          f"[{math.exp(mean - half):.3f}, {math.exp(mean + half):.3f}]")
PY
  exit 0
fi
sb3 "first"
rllib no-kl-1 "$here" 1 --kl-coeff 0
rllib no-kl-2 "$here" 2 --kl-coeff 0
rllib kl-2 "$here" 2
rllib before-2 "$here" 2 --object-store-mb 200
sb3 "last"
