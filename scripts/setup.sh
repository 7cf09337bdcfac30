#!/usr/bin/env bash
# Create ./.venv once and install the project with the given extras (default: dev).
# torch is pinned to the CPU build first, so the "train" and "ray" extras never pull CUDA wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
# pip's "Location ... is ignored" lines come from a machine-wide index configuration, not from this
# project: they are filtered out; every other message (and pip's exit status) comes through.
pip_install() {
  python -m pip install -q "$@" 2>&1 | { grep -v "^WARNING: Location '.*' is ignored" || true; }
}
pip_install --upgrade pip
case ",$extras," in
  *,train,*|*,ray,*) pip_install torch==2.13.0 ;;
esac
pip_install -e ".[$extras]"
