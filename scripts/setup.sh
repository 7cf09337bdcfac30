#!/usr/bin/env bash
# Create ./.venv once and install the project with the given extras (default: dev).
# torch is pinned to the CPU build first, so the "train", "ray" and "tutorials" extras never pull CUDA wheels.
# `bash scripts/setup.sh --compile` builds the compiled core again and installs nothing else
# (scripts/test.sh installs the dependencies with CARCASSONNE_PURE_PYTHON=1, then compiles beside its
# lint and type checks). mypyc's type-check cache is build/mypy-cache, apart from `mypy`'s own
# (.mypy_cache): scripts/test.sh runs the two at once, with different options.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
export MYPY_CACHE_DIR="$PWD/build/mypy-cache"
# pip's "Location ... is ignored" lines come from a machine-wide index configuration, not from this
# project: they are filtered out; every other message (and pip's exit status) comes through.
pip_install() {
  python -m pip install -q "$@" 2>&1 | { grep -v "^WARNING: Location '.*' is ignored" || true; }
}
if [ "$extras" = "--compile" ]; then
  pip_install --no-deps -e .
  exit 0
fi
pip_install --upgrade pip
case ",$extras," in
  *,train,*|*,ray,*|*,tutorials,*) pip_install torch==2.13.0 ;;
esac
pip_install -e ".[$extras]"
