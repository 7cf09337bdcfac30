#!/usr/bin/env bash
# Check the lower bounds of pyproject.toml's dependencies: install exactly numpy, gymnasium and
# pettingzoo at their declared minimum (plus pytest, pytest-xdist, pytest-timeout, hypothesis and the
# project's other runtime dependencies, resolved against those pins) into ./.venv-lowest and run the
# engine and env tests that need nothing else (the training tests skip without the train extra).
# Arguments go to pytest (scripts/test.sh passes -n 2). Takes one to two minutes on a fresh machine.
# `--deps-only` installs the pinned dependencies and stops: it builds nothing in the source tree, so
# scripts/test.sh runs it while ./.venv is being set up, and this script again (without it) later.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-lowest
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "numpy==1.24.0" "gymnasium==1.0.0" "pettingzoo==1.27.0" pytest pytest-xdist pytest-timeout hypothesis
if [ "${1:-}" = "--deps-only" ]; then
  exit 0
fi
# The project with its other dependencies, resolved against the three pinned ones; built without the
# compiled core (its C compile is minutes of one core): the tests below run from the repository root,
# so they import the package from the source tree, with the compiled core where scripts/setup.sh built it.
CARCASSONNE_PURE_PYTHON=1 "$venv/bin/python" -m pip install -q . -c <(printf 'numpy==1.24.0\ngymnasium==1.0.0\npettingzoo==1.27.0\n')
"$venv/bin/python" -m pip check
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "not slow" \
  tests/test_engine_api.py tests/test_save_load.py tests/test_rules_base.py tests/test_bad_arguments.py \
  tests/test_env_api.py tests/test_env_observation.py tests/test_env_mask.py tests/test_env_codec.py \
  tests/test_env_single_agent.py tests/test_env_pickling.py tests/test_players.py "$@"
