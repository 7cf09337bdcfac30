#!/usr/bin/env bash
# MCTS against the code before issue 20 (docs/experiments/2026-11-search-speed.md): instructions a simulation and
# CPU-timed simulations/s of revision REV (default 637148c, the code before issue 20, which has no
# compiled core: it runs from its source, through a copy of today's agents/bench.py, as in
# bench_speed_versions.sh) and of this checkout as installed (compiled unless
# CARCASSONNE_PURE_PYTHON=1). Workloads: 2 players, mcts:...,rollout_turns=0,value=linear, the base
# game and every expansion, at the opening and in mid-game (35 tiles on the board).
#   * counted, where valgrind is installed: 300-simulation searches on 2 and on 4 positions under
#     `valgrind --tool=cachegrind` (PYTHONHASHSEED=0, numpy's BLAS on one thread), the difference
#     divided by 600 simulations (a mid-game position's set-up, ~2 % of its searches, included);
#   * timed: ROUNDS rounds (default 8) alternating the two versions of `python -m agents.bench mcts
#     --clock cpu --sims 1000 --positions 8`; each version's median and the ratio's median (range).
# Usage, from the repository root with .venv set up: bash scripts/maintainer/mcts_versions.sh [REV]  (~3 minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
rev="${1:-637148c}"
rounds="${ROUNDS:-8}"
options="rollout_turns=0,value=linear"
# shellcheck disable=SC1091
. .venv/bin/activate
tree=$(mktemp -d)
log=$(mktemp)
git worktree add -q --detach "$tree" "$rev" || { rm -rf "$tree" "$log"; exit 1; }
trap 'git -C "$root" worktree remove --force "$tree"; rm -f "$log"' EXIT
sed -e 's/^from carcassonne_env.engine import COMPILED, /COMPILED = False\nfrom carcassonne_env.engine import /' \
  -e 's/^from .compiled_search import COMPILED as SEARCH_COMPILED$/SEARCH_COMPILED = False/' \
  agents/bench.py > "$tree/agents/bench_speed.py"
names=("$rev" "this checkout")
dirs=("$tree" "$root")
modules=(agents.bench_speed agents.bench)
if command -v valgrind > /dev/null; then
  workload='
import sys, time
from carcassonne_env.engine import GameConfig
bench = __import__(sys.argv[1], fromlist=["mcts_rate"])
expansions = ("tower", "black_tower", "watchtowers") if sys.argv[2] == "all" else ()
bench.mcts_rate(GameConfig(players=2, expansions=expansions), 300, int(sys.argv[3]), int(sys.argv[4]),
                time.process_time, sys.argv[5])
'
  count() {  # DIR MODULE EXPANSIONS TILES POSITIONS: instructions of the whole run
    (cd "$1" && PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH="$1" valgrind --tool=cachegrind \
      --cache-sim=no --cachegrind-out-file=/dev/null python -c "$workload" "$2" "$3" "$4" "$5" "$options" 2>&1) \
      | sed -n 's/.*I *refs: *//p' | tr -d ,
  }
  for workload_name in "base 1" "base 35" "all 1" "all 35"; do
    read -r expansions tiles <<< "$workload_name"
    for i in 0 1; do
      a=$(count "${dirs[$i]}" "${modules[$i]}" "$expansions" "$tiles" 2)
      b=$(count "${dirs[$i]}" "${modules[$i]}" "$expansions" "$tiles" 4)
      printf 'counted  %-14s %-5s tiles=%-3s %9d instructions a simulation\n' "${names[$i]}" "$expansions" "$tiles" $(((b - a) / 600))
    done
  done
else
  echo "mcts_versions: valgrind is not installed; timing only" >&2
fi
for round in $(seq "$rounds"); do
  for i in 0 1; do
    echo "== round $round: ${names[$i]}"
    (cd "${dirs[$i]}" && PYTHONPATH="${dirs[$i]}" python -m "${modules[$i]}" mcts --clock cpu --sims 1000 --positions 8 \
      --mcts-options "$options")
  done
done > "$log"
python - "$log" "${names[@]}" <<'PY'
import re, statistics, sys
log, old_name, new_name = sys.argv[1:]
rates: dict[tuple[str, str], dict[str, list[float]]] = {}
version = ""
for line in open(log):
    if m := re.match(r"== round \d+: (.*)$", line):
        version = m[1]
    elif m := re.search(r"(base|all expansions)\s+(opening|mid-game).*?([\d.]+) simulations/s", line):
        rates.setdefault((m[1], m[2]), {}).setdefault(version, []).append(float(m[3]))
for (workload, stage), by in rates.items():
    old, new = by[old_name], by[new_name]
    ratios = [n / o for o, n in zip(old, new)]
    print(f"timed    {workload:<14} {stage:<8} {old_name} {statistics.median(old):>8,.0f}  this checkout "
          f"{statistics.median(new):>8,.0f} simulations/s  x {statistics.median(ratios):.1f} "
          f"({min(ratios):.1f}-{max(ratios):.1f}) over {len(ratios)} rounds")
PY
