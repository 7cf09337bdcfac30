#!/usr/bin/env bash
# Set up ./.venv with everything the tests need, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,train
# shellcheck disable=SC1091
. .venv/bin/activate
set +e
python -m pytest -q -n 2 "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: treating that as a failure" >&2
  exit 1
fi
exit "$rc"
