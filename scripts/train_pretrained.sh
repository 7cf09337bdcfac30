#!/usr/bin/env bash
# Trains the shipped agent (agents/pretrained/tower_2p.zip, spec ppo:pretrained) with the `full`
# preset on a 2-core CPU machine: 4 env processes, a 55-minute PPO budget, one evaluation at the end,
# then puts the model into the package and writes its manifest afresh. Resumable: run it again to
# continue the same run (the step count, pool and curves carry on). On more cores, drop the overrides
# (`carcassonne train ppo full`, into runs/ppo/full).
# Log: runs/pretrained/train.log; TensorBoard: tensorboard --logdir runs/pretrained/tensorboard
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-runs/pretrained}
mkdir -p "$out"
resume=()
[[ -f "$out/checkpoint.zip" ]] && resume=(--resume)
carcassonne train ppo full --out "$out" --seed 0 --n-envs 4 --eval-workers 2 --eval-every 0 \
  --eval-seeds 10 --threads 1 --max-minutes 55 --no-progress "${resume[@]}" 2>&1 | tee -a "$out/train.log"
# The model zip, re-packed with deflate (SB3 stores it uncompressed; the same files, a quarter the size).
python - "$out/final.zip" agents/pretrained/tower_2p.zip <<'PY'
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
    for item in src.infolist():
        dst.writestr(item, src.read(item), compress_type=zipfile.ZIP_DEFLATED)
PY
python scripts/maintainer/pretrained_manifest.py --write  # the new bytes, or ppo:pretrained refuses them
echo "$out/final.zip -> agents/pretrained/tower_2p.zip (spec ppo:pretrained)"
