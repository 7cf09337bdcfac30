#!/usr/bin/env bash
# Set up ./.venv with everything the tests need, then run the checks, stopping at the first that
# fails: ruff (lint, the [tool.ruff] config, notebooks included), mypy (--strict on the packages of
# [tool.mypy] in pyproject.toml), nbstripout --verify (notebooks are committed without outputs), the
# rules tests on the engine's Python source, the whole pytest suite with the notebooks executed by
# nbmake on their CI budget (on the compiled engine core), and the engine and env tests again on the
# lowest declared numpy / gymnasium / pettingzoo (scripts/test_lower_bounds.sh).
# Arguments go to the main pytest run (e.g. -m "not slow").
#
# Both cores are kept busy: what waits on the network or the disk (Chromium, the lowest versions'
# packages) installs while ./.venv is set up; the compiled core (mypyc and one C compile: one core
# for minutes) builds while ruff, mypy and the Python-source rules run, which do not load it. A
# stage run beside another prints its output under its own "==" heading once it ends; a failed one
# stops the script.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
declare -A pids=()
browser=""
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$logs"' EXIT
# beside NAME COMMAND...: run COMMAND in the background, its output kept for `joined NAME`.
beside() {
  local name=$1
  shift
  "$@" >"$logs/$name" 2>&1 &
  pids[$name]=$!
}
# joined NAME: wait for NAME to end, print its output; stop the script if it failed.
joined() {
  local name=$1 rc=0
  wait "${pids[$name]}" || rc=$?
  unset "pids[$name]"
  echo "== $name"
  cat "$logs/$name"
  if [ "$rc" -ne 0 ]; then
    echo "$name failed (exit status $rc)" >&2
    exit 1
  fi
}

# The replay viewer's browser test (tests/test_viewer_browser.py) drives Debian's Chromium: as root
# with apt-get (CI), install it where it is missing and make that test fail rather than skip without it.
if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
  if ! { command -v chromium && command -v chromedriver; } >/dev/null; then
    browser="apt-get install chromium chromium-driver"
    beside "$browser" bash -c \
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null'
  fi
  export CARCASSONNE_REQUIRE_BROWSER=1
fi
beside "the lowest declared dependencies: install" bash scripts/test_lower_bounds.sh --deps-only
echo "== setup: ./.venv"
CARCASSONNE_PURE_PYTHON=1 bash scripts/setup.sh dev,train,notebooks,ray,docs,tutorials
# every tutorial's library is installed: tests/test_tutorials.py fails, not skips, one that is missing
export CARCASSONNE_REQUIRE_TUTORIALS=1
beside "setup: the compiled core" bash scripts/setup.sh --compile
# shellcheck disable=SC1091
. .venv/bin/activate
echo "== ruff check ."
python -m ruff check .
echo "== mypy"
python -m mypy
python -m mypy --strict docs/hooks  # the docs site's build hooks (mkdocs.yml), not a package
# the tutorials' scripts; the project's modules they import are checked by the run above
python -m mypy --strict --follow-imports=silent docs/tutorials
echo "== nbstripout --verify notebooks/*.ipynb"
if ! nbstripout --verify notebooks/*.ipynb; then
  echo "notebooks hold outputs or execution counts: run nbstripout notebooks/*.ipynb and commit" >&2
  exit 1
fi
echo "== the rules on the engine's Python source (the main run below uses the compiled core: setup.py)"
CARCASSONNE_PURE_PYTHON=1 python -m pytest -q -n 2 -p no:cacheprovider \
  tests/test_rules_base.py tests/test_rules_tower.py tests/test_rules_black_tower.py tests/test_rules_watchtowers.py \
  tests/test_golden_playthroughs.py tests/test_playouts.py tests/test_save_load.py tests/test_persistence.py \
  tests/test_engine_api.py tests/test_engine_end_now.py tests/test_engine_interface.py tests/test_bad_arguments.py \
  tests/test_variants.py tests/test_score_log.py tests/test_expansion_plugins.py tests/test_save_validation.py \
  tests/test_place_undo.py tests/test_frontier_slots.py tests/test_random_playout.py
joined "setup: the compiled core"
if [ -n "$browser" ]; then
  joined "$browser"
fi
# The compiled core must run in the main run (tests/test_compiled_engine.py checks it): the build
# falls back to the Python source quietly where it cannot compile.
export CARCASSONNE_REQUIRE_COMPILED=1
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
joined "the lowest declared dependencies: install"
echo "== the lowest declared dependencies: tests"
bash scripts/test_lower_bounds.sh -n 2
