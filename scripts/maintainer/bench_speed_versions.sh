#!/usr/bin/env bash
# Search speed of three versions of the code in alternating rounds, CPU time (docs/experiments/2026-11-search-speed.md):
# BEFORE (a git revision, default 637148c: the code before issue 20, timed through a copy of today's
# agents/bench.py), this checkout's Python source (CARCASSONNE_PURE_PYTHON=1) and its compiled core (engine and search agents).
# ROUNDS=N (default 3); the summary at the end comes from agents/bench_versions.py. Run from the repository root with .venv set up (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
before="${BEFORE:-637148c}"
rounds="${ROUNDS:-3}"
args=(--clock cpu --games 2 --positions 3 --sims 300 --guided-sims 20 --engine-games 150 --repeat 2)
tree=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tree"' EXIT
git worktree add -q --detach "$tree" "$before"
# today's benchmark, told that the old engine and agents have no compiled core
sed -e 's/^from carcassonne_env.engine import COMPILED, /COMPILED = False\nfrom carcassonne_env.engine import /' \
  -e 's/^from .compiled_search import COMPILED as SEARCH_COMPILED$/SEARCH_COMPILED = False/' \
  agents/bench.py > "$tree/agents/bench_speed.py"
# shellcheck disable=SC1091
. .venv/bin/activate
log=$(mktemp)
for round in $(seq "$rounds"); do
  echo "== round $round: $before"
  (cd "$tree" && PYTHONPATH="$tree" python -m agents.bench_speed speed "${args[@]}")
  echo "== round $round: this checkout, Python source"
  CARCASSONNE_PURE_PYTHON=1 python -m agents.bench speed "${args[@]}"
  echo "== round $round: this checkout, compiled core"
  python -m agents.bench speed "${args[@]}"
done | tee "$log"
echo "== medians over $rounds rounds; the ratio: median (range) of the per-round ratios"
python -m agents.bench_versions "$log"
