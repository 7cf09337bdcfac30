#!/usr/bin/env bash
# Set up ./.venv with everything the tests need, then run the checks in order, stopping at the first
# that fails: ruff (lint, the [tool.ruff] config, notebooks included), mypy (--strict on the packages
# of [tool.mypy] in pyproject.toml), nbstripout --verify (notebooks are committed without outputs),
# the whole pytest suite with the notebooks executed by nbmake on their CI budget (on the compiled
# engine core), the rules tests again on the engine's Python source, then the engine
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
# The install compiles the engine core where it can (setup.py) and quietly falls back to the Python
# source where it cannot: here it must have compiled (tests/test_compiled_engine.py checks it).
export CARCASSONNE_REQUIRE_COMPILED=1
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
echo "== the rules again on the engine's Python source (the run above used the compiled core: setup.py)"
CARCASSONNE_PURE_PYTHON=1 python -m pytest -q -n 2 -p no:cacheprovider \
  tests/test_rules_base.py tests/test_rules_tower.py tests/test_rules_black_tower.py tests/test_rules_watchtowers.py \
  tests/test_golden_playthroughs.py tests/test_playouts.py tests/test_save_load.py tests/test_persistence.py \
  tests/test_engine_api.py tests/test_engine_end_now.py tests/test_engine_interface.py tests/test_bad_input.py \
  tests/test_variants.py tests/test_score_log.py tests/test_expansion_plugins.py tests/test_save_validation.py \
  tests/test_place_undo.py tests/test_frontier_slots.py tests/test_random_playout.py
echo "== lowest declared dependencies"
bash scripts/test_lower_bounds.sh
