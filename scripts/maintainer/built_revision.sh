# Sourced by the scripts that compare this checkout with a git revision (same_moves.sh,
# count_instructions.sh): `built_revision REV` checks REV out in a scratch worktree, builds its
# compiled core in place (about 3 minutes) and sets `revision_tree` to the worktree; the worktree is
# removed when the calling script exits. Needs the project's .venv active (setup.py's build deps).
built_revision() {  # REV
  revision_tree=$(mktemp -d)
  git worktree add -q --detach "$revision_tree" "$1" || { rmdir "$revision_tree"; exit 1; }
  trap 'git -C "'"$PWD"'" worktree remove --force "'"$revision_tree"'"' EXIT
  echo "== building $1 in $revision_tree"
  (cd "$revision_tree" && python setup.py -q build_ext --inplace > build.log 2>&1) \
    || { cat "$revision_tree/build.log"; exit 1; }
}
