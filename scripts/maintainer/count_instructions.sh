#!/usr/bin/env bash
# Issue 20's speed figures in instructions, not seconds: `valgrind --tool=cachegrind` counts the
# instructions a workload executes, which the machine's load does not change (timed figures on a
# shared machine swing by 1.5x between identical runs). String hashing is fixed (PYTHONHASHSEED=0)
# and numpy's BLAS kept to one thread: its idle worker threads' spinning is counted too otherwise,
# which moved the figures by up to 10 % between runs. Each workload runs twice, N and 2N units,
# and the difference is divided by N, so interpreter start-up, imports and warm-up cancel out (the
# second N units are other seeds than the first: a figure is the mean over those, not a constant):
#   * an engine random game (base game, 2 players; the loop of agents.bench.engine_games_per_second),
#   * an engine random game with every expansion (the tower, black tower and watchtowers with their
#     tiles, 2 players: `python -m carcassonne_env.bench engine --expansions tower,black_tower,watchtowers`),
#     and the all-expansion cost per decision: instructions a decision with every expansion over those
#     a decision of the base game (docs/experiments/2026-11-search-speed.md: "all-expansion cost per decision", counted; a random
#     game's decisions are counted by random_playout), and
#   * an MCTS simulation at the opening of the tower variant (all expansions, 2 players,
#     `mcts:sims=300,rollout_turns=0,value=linear`, one position a unit; agents.bench.mcts_rate).
# On revision REV (built in a scratch worktree with its compiled core) and on this checkout (as
# installed: compiled unless CARCASSONNE_PURE_PYTHON=1). Usage, from the repository root with .venv
# set up (scripts/setup.sh) and valgrind installed (Debian: apt install valgrind):
#   bash scripts/maintainer/count_instructions.sh [REV]     # REV default HEAD; ~8 minutes, plus REV's build (3-5)
# REV needs agents/bench.py's engine_games_per_second and mcts_rate (every revision since 2026-11-25).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
rev="${1:-HEAD}"
command -v valgrind > /dev/null || { echo "count_instructions: valgrind is not installed" >&2; exit 1; }
# shellcheck disable=SC1091
. .venv/bin/activate
# shellcheck source=scripts/maintainer/built_revision.sh
. scripts/maintainer/built_revision.sh
built_revision "$rev"
tree=$revision_tree
# The random games are agents.bench.engine_games_per_second's loop (one rng, game g seeded g), which
# also counts the decisions: the 2N games begin with the N games, so the difference is games N..2N.
workload='
import random, sys, time
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.playout import random_playout
from agents.bench import mcts_rate
kind, units = sys.argv[1], int(sys.argv[2])
all_expansions = ("tower", "black_tower", "watchtowers")
if kind == "mcts":
    mcts_rate(GameConfig(players=2, expansions=all_expansions), 300, 1, units, time.process_time,
              "rollout_turns=0,value=linear")
else:
    config = GameConfig(players=2, expansions=all_expansions if kind == "expansions" else ())
    rng = random.Random(0)
    print("decisions", sum(random_playout(Game(config, seed=g), rng) for g in range(units)))
'
instructions() {  # DIR KIND UNITS: "instructions decisions" of the whole run (its output shown if it fails)
  local log
  log=$(cd "$1" && PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH="$1" valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null python -c "$workload" "$2" "$3" 2>&1) || { echo "$log" >&2; return 1; }
  echo "$(sed -n 's/.*I *refs: *//p' <<< "$log" | tr -d ,) $(sed -n 's/^decisions //p' <<< "$log")"
}
per_unit() {  # DIR KIND N: instructions a unit, then a decision (random games; none for MCTS)
  local i1 d1 i2 d2
  read -r i1 d1 <<< "$(instructions "$1" "$2" "$3")"
  read -r i2 d2 <<< "$(instructions "$1" "$2" $(($3 * 2)))"
  echo "$(((i2 - i1) / $3))${d1:+ $(((i2 - i1) / (d2 - d1)))}"
}
names=("$rev" "this checkout")
dirs=("$tree" "$root")
for i in 0 1; do
  read -r engine engine_decision <<< "$(per_unit "${dirs[$i]}" engine 100)"
  read -r expansions expansions_decision <<< "$(per_unit "${dirs[$i]}" expansions 50)"
  read -r mcts _ <<< "$(per_unit "${dirs[$i]}" mcts 2)"
  printf '%-14s %10s instructions a random game (base), %10s (all expansions); a decision %s / %s = %s×; %s a simulation (MCTS, all expansions, opening)\n' \
    "${names[$i]}" "$engine" "$expansions" "$engine_decision" "$expansions_decision" \
    "$(python -c "print(f'{$expansions_decision / $engine_decision:.2f}')")" "$((mcts / 300))"
done
