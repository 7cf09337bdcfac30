#!/usr/bin/env bash
# Same moves (issue 20): the search agents play the same games on this checkout as on BEFORE (a git
# revision, default HEAD: run it on uncommitted changes). Both versions play the same tournaments
# (compiled: BEFORE is built in a scratch worktree, about 3 minutes), and every game record of
# games.jsonl must be equal with the timings stripped. The tournaments: the base game (2 players:
# greedy, greedy:value=linear, greedy:fast=1, guided MCTS), the watchtowers alone (3 players),
# the base game with 4 players, and the tower variant (2 players, the linear value and unguided MCTS).
# Usage: bash scripts/maintainer/same_moves.sh [BEFORE]; prints one line per tournament, exits 1 on a difference.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
before="${1:-HEAD}"
# shellcheck disable=SC1091
. .venv/bin/activate
# shellcheck source=scripts/maintainer/built_revision.sh
. scripts/maintainer/built_revision.sh
built_revision "$before"
tree=$revision_tree
out=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tree"; rm -rf "$out"' EXIT
tournaments=(
  "base2|--expansions '' --seeds 3 --seed 500 greedy greedy:value=linear greedy:fast=1 mcts:sims=30,guide=1,rollout_turns=0,value=linear"
  "watchtowers3|--expansions watchtowers --players 3 --seeds 2 --seed 900 greedy greedy:fast=1 mcts:sims=30,guide=1,rollout_turns=0"
  "base4|--expansions '' --players 4 --seeds 1 --seed 950 greedy greedy:fast=1 random mcts:sims=30,rollout_turns=0"
  "tower2|--seeds 2 --seed 990 greedy greedy:value=linear mcts:sims=30,rollout_turns=0,value=linear"
)
for version in "before:$tree" "after:$root"; do
  tag=${version%%:*}
  dir=${version#*:}
  for t in "${tournaments[@]}"; do
    name=${t%%|*}
    echo "== $tag: $name"
    # BEFORE runs from its worktree (its compiled modules beside its source), this checkout from its install
    (cd "$dir" && eval "PYTHONPATH='$dir' python -c 'from training.cli import entry_point; entry_point()' tournament \
      ${t#*|} --workers 2 --no-progress --out '$out/$tag-$name'" > "$out/$tag-$name.log" 2>&1) \
      || { cat "$out/$tag-$name.log"; exit 1; }
  done
done
python - "$out" "${tournaments[@]%%|*}" <<'EOF'
import json
import sys

def games(path: str) -> dict[tuple[int, int], dict[str, object]]:
    out = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            for timing in ("seconds", "max_seconds"):
                record.pop(timing)
            out[record["group"], record["index"]] = record
    return out

folder, names = sys.argv[1], sys.argv[2:]
failed = False
for name in names:
    a, b = games(f"{folder}/before-{name}/games.jsonl"), games(f"{folder}/after-{name}/games.jsonl")
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    actions = sum(len(r["record"]["actions"]) for r in a.values())
    print(f"{name}: {len(a)} games, {actions} actions, {len(differ)} differ{': ' + str(differ[:5]) if differ else ''}")
    failed |= bool(differ)
sys.exit(1 if failed else 0)
EOF
