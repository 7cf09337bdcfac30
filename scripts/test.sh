#!/usr/bin/env bash
# Set up ./.venv with everything the tests need, then run the checks in order, stopping at the first
# that fails: ruff (lint, the [tool.ruff] config, notebooks included), mypy (--strict on the packages
# of [tool.mypy] in pyproject.toml), nbstripout --verify (notebooks are committed without outputs),
# the whole pytest suite with the notebooks executed by nbmake on their CI budget, then the engine
# and env tests again on the lowest declared numpy / gymnasium / pettingzoo
# (scripts/test_lower_bounds.sh, about a minute). Arguments go to the main pytest run (e.g. -m "not slow").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,train,notebooks,ray
# The replay viewer's browser test (tests/test_viewer_browser.py) drives Debian's Chromium: as root
# with apt-get (CI), install it where it is missing and make that test fail rather than skip without it.
if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
  if ! { command -v chromium && command -v chromedriver; } >/dev/null; then
    echo "== apt-get install chromium chromium-driver"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  export CARCASSONNE_REQUIRE_BROWSER=1
fi
# shellcheck disable=SC1091
. .venv/bin/activate
echo "== ruff check ."
python -m ruff check .
echo "== mypy"
python -m mypy
echo "== nbstripout --verify notebooks/*.ipynb"
if ! nbstripout --verify notebooks/*.ipynb; then
  echo "notebooks hold outputs or execution counts: run nbstripout notebooks/*.ipynb and commit" >&2
  exit 1
fi
echo "== pytest"
set +e
# --nbmake executes notebooks/*.ipynb as tests; --nbmake-timeout bounds each cell (seconds);
# --dist loadgroup: the Ray tests (xdist group "ray") share one local Ray; --durations: the slowest tests, for CI's log.
CARCASSONNE_NB_BUDGET=ci python -m pytest -q -n 2 --dist loadgroup --durations=15 --nbmake --nbmake-timeout=300 "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: treating that as a failure" >&2
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
echo "== lowest declared dependencies"
bash scripts/test_lower_bounds.sh
