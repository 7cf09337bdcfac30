#!/usr/bin/env bash
# Issue 22's throughput comparison in one run on one machine: whole training iterations of the SB3
# trainer and of the RLlib trainer (1 and 2 EnvRunners × 2 envs, 1,024 env steps, minibatch 256,
# 4 epochs; 2 torch threads in the learner of both, 1 in each EnvRunner), RLlib with its sized object
# store and with the 200 MiB one it had before. Run it on a
# quiet machine; needs `bash scripts/setup.sh dev,train,ray`. Out: runs/bench_rllib/ (progress.jsonl
# per RLlib run); prints each iteration's env steps/s and sampling seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate
out=runs/bench_rllib
rm -rf "$out" && mkdir -p "$out"
echo "== SB3 MaskablePPO"
python -m training.sb3.bench_train --iterations 3 --threads 2 2>&1 | grep -E "iteration|median"
for store in "" 200; do
  for runners in 1 2; do
    run="$out/runners${runners}_store${store:-sized}"
    echo "== RLlib, $runners EnvRunner(s) × 2 envs, object store ${store:-sized from the batch}${store:+ MiB}"
    carcassonne train rllib --num-cpus 2 --env-runners "$runners" --envs-per-runner 2 --train-batch 1024 \
      --minibatch 256 --epochs 4 --iterations 3 --eval-every 0 --checkpoint-every 0 --threads 2 \
      ${store:+--object-store-mb "$store"} --out "$run" > "$run.log" 2>&1
    python - "$run/progress.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(f"iteration {d['iteration']}: {d['env_steps_per_s']:6.1f} env steps/s, sampling {d['sample_seconds']:.2f} s, "
          f"whole {d['seconds']:.2f} s")
PY
  done
done
