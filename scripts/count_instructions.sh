#!/usr/bin/env bash
# Issue 20's speed figures in instructions, not seconds: `valgrind --tool=cachegrind` counts the
# instructions a workload executes, which the machine's load does not change (timed figures on a
# shared machine swing by 1.5x between identical runs). String hashing is fixed (PYTHONHASHSEED=0)
# and numpy's BLAS kept to one thread: its idle worker threads' spinning is counted too otherwise,
# which moved the figures by up to 10 % between runs. Each workload runs twice, N and 2N units,
# and the difference is divided by N, so interpreter start-up, imports and warm-up cancel out (the
# second N units are other seeds than the first: a figure is the mean over those, not a constant):
#   * an engine random game (base game, 2 players; agents.bench.engine_games_per_second), and
#   * an MCTS simulation at the opening of the tower variant (all expansions, 2 players,
#     `mcts:sims=300,rollout_turns=0,value=linear`, one position a unit; agents.bench.mcts_rate).
# On revision REV (built in a scratch worktree with its compiled core) and on this checkout (as
# installed: compiled unless CARCASSONNE_PURE_PYTHON=1). Usage, from the repository root with .venv
# set up (scripts/setup.sh) and valgrind installed (Debian: apt install valgrind):
#   bash scripts/count_instructions.sh [REV]     # REV default HEAD; ~4 minutes
# REV needs agents/bench.py's engine_games_per_second and mcts_rate (every revision since 2026-11-25).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rev="${1:-HEAD}"
command -v valgrind > /dev/null || { echo "count_instructions: valgrind is not installed" >&2; exit 1; }
# shellcheck disable=SC1091
. .venv/bin/activate
# shellcheck source=scripts/built_revision.sh
. scripts/built_revision.sh
built_revision "$rev"
tree=$revision_tree
workload='
import sys, time
from carcassonne_env.engine import GameConfig
from agents.bench import engine_games_per_second, mcts_rate
kind, units = sys.argv[1], int(sys.argv[2])
if kind == "engine":
    engine_games_per_second(GameConfig(players=2), units, time.process_time)
else:
    config = GameConfig(players=2, expansions=("tower", "black_tower", "watchtowers"))
    mcts_rate(config, 300, 1, units, time.process_time, "rollout_turns=0,value=linear")
'
instructions() {  # DIR KIND UNITS: instructions of the whole run (its output shown if it fails)
  local log
  log=$(cd "$1" && PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH="$1" valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null python -c "$workload" "$2" "$3" 2>&1) || { echo "$log" >&2; return 1; }
  sed -n 's/.*I *refs: *//p' <<< "$log" | tr -d ,
}
per_unit() {  # DIR KIND N
  local one two
  one=$(instructions "$1" "$2" "$3")
  two=$(instructions "$1" "$2" $(($3 * 2)))
  echo $(((two - one) / $3))
}
names=("$rev" "this checkout")
dirs=("$tree" "$root")
for i in 0 1; do
  engine=$(per_unit "${dirs[$i]}" engine 100)
  mcts=$(per_unit "${dirs[$i]}" mcts 2)
  printf '%-14s %12s instructions a random game (base)   %10s a simulation (MCTS, all expansions, opening)\n' \
    "${names[$i]}" "$engine" "$((mcts / 300))"
done
