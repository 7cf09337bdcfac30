#!/usr/bin/env bash
# Create ./.venv once and install the project with the given extras (default: dev).
# torch is pinned to the CPU build first, so the "train" extra never pulls CUDA wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
case ",$extras," in
  *,train,*) python -m pip install -q torch==2.13.0 ;;
esac
python -m pip install -q -e ".[$extras]"
