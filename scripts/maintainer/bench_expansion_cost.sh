#!/usr/bin/env bash
# Issue 20's "all-expansion cost per decision": ROUNDS rounds (default 9), each the engine's random-play
# benchmark on the base game then with every expansion (2 players, wall time), and per round the cost
# of an all-expansion decision against a base-game decision (base decisions/s over all-expansion
# decisions/s; 3,000 and 1,500 games, a few seconds each). The median of the per-round ratios is the
# figure: the machine's speed swings between runs (by up to 1.5x on the 2-core machine), and the two
# runs of a round are seconds apart. Needs the project's .venv (scripts/setup.sh).
#   bash scripts/maintainer/bench_expansion_cost.sh            # ROUNDS=9 by default, ~1 minute
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck disable=SC1091
. .venv/bin/activate
rate() {  # decisions/s of one `carcassonne_env.bench engine` run (its arguments)
  python -m carcassonne_env.bench engine --players 2 "$@" | sed -n 's/.* games\/s, \([0-9.]*\) decisions\/s.*/\1/p'
}
ratios=()
for round in $(seq "${ROUNDS:-9}"); do
  base=$(rate --expansions '' --tiles base --games 3000)
  all=$(rate --tiles base,tower,watchtowers --expansions tower,black_tower,watchtowers --games 1500)
  ratio=$(python -c "print(f'{$base / $all:.2f}')")
  ratios+=("$ratio")
  echo "round $round: base $base decisions/s, all expansions $all decisions/s, cost per decision ${ratio}x"
done
python -c "import statistics, sys; r = [float(x) for x in sys.argv[1:]]; \
print(f'median {statistics.median(r):.2f}x (range {min(r):.2f}-{max(r):.2f}) over {len(r)} rounds')" "${ratios[@]}"
