#!/usr/bin/env bash
# The README's strength table: each shipped agent against greedy on 50 tile orders from seed 8100000,
# each order played in both seats (100 games a row), 2-player tower variant (the tournament's default).
# Rows run one after another, cheapest first, into runs/strength/<row>/; run again after an
# interruption and every row resumes. WORKERS (default 2) sets the worker processes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate
workers="${WORKERS:-2}"
# The rows after the first line's were added on 2026-12-07 (the same tile orders); the az rows as measured
# then, before the root guide (guide=0); the last two later that day: the root guide without a tree, and
# az:pretrained as it plays by default (the guide in every node of its tree).
for spec in random greedy:value=linear ppo:distilled ppo:pretrained afterstate:pretrained mcts:sims=50 \
            mcts:sims=20,guide=1,rollout_turns=0,value=afterstate \
            az:pretrained,sims=0,guide=0 ppo:pooled az:pretrained,guide=0 mcts:pretrained \
            az:pretrained,sims=0 az:pretrained; do
  out="runs/strength/$(echo "$spec" | tr ':,=' '___')"
  resume=--no-resume
  [ -e "$out/tournament.json" ] && resume=--resume
  echo "== $spec"
  carcassonne tournament "$spec" greedy --seeds 50 --seed 8100000 --workers "$workers" --out "$out" \
    --no-progress "$resume"
done
