#!/usr/bin/env bash
# Issue 22's throughput comparison in one run on one machine: whole training iterations of the SB3
# trainer and of the RLlib trainer (2 envs per EnvRunner, 1,024 env steps, minibatch 256, 4 epochs;
# 2 torch threads in each learner, 1 in each EnvRunner). RLlib runs as the same algorithm as SB3's
# MaskablePPO (no KL penalty: --kl-coeff 0) with 1 and 2 EnvRunners, then with RLlib's default KL
# penalty, then as it was before 2026-11-25 (KL penalty, the 200 MiB object store). Run it on a
# quiet machine; needs `bash scripts/setup.sh dev,train,ray`. ITERATIONS=N (default 8: with 3, one
# iteration in three is RLlib's warm-up and single iterations vary by a third). SB3 runs first and
# last. Out: runs/bench_rllib/ (progress.jsonl per RLlib run); prints each iteration's env steps/s
# and sampling seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate
out=runs/bench_rllib
rm -rf "$out" && mkdir -p "$out"
echo "== SB3 MaskablePPO"
python -m training.sb3.bench_train --iterations "${ITERATIONS:-8}" --threads 2 2>&1 | grep -E "iteration|median"
run() {  # NAME RUNNERS EXTRA-FLAGS...
  local name=$1 runners=$2
  shift 2
  echo "== RLlib, $runners EnvRunner(s) × 2 envs, $name"
  carcassonne train rllib --num-cpus 2 --env-runners "$runners" --envs-per-runner 2 --train-batch 1024 \
    --minibatch 256 --epochs 4 --iterations "${ITERATIONS:-8}" --eval-every 0 --checkpoint-every 0 --threads 2 \
    --out "$out/$name-$runners" "$@" > "$out/$name-$runners.log" 2>&1
  python - "$out/$name-$runners/progress.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(f"iteration {d['iteration']}: {d['env_steps_per_s']:6.1f} env steps/s, sampling {d['sample_seconds']:.2f} s, "
          f"whole {d['seconds']:.2f} s")
PY
}
run no-kl 1 --kl-coeff 0
run no-kl 2 --kl-coeff 0
run kl 2
run before 2 --object-store-mb 200
echo "== SB3 MaskablePPO, again"
python -m training.sb3.bench_train --iterations "${ITERATIONS:-8}" --threads 2 2>&1 | grep -E "iteration|median"
