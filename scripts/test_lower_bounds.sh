#!/usr/bin/env bash
# Check the lower bounds of pyproject.toml's dependencies: install exactly numpy, gymnasium and
# pettingzoo at their declared minimum (plus pytest, pytest-timeout, hypothesis and the project's other runtime
# dependencies, resolved against those pins) into ./.venv-lowest and run the
# engine and env tests that need nothing else (the training tests skip without the train extra).
# Arguments go to pytest. Takes one to two minutes on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-lowest
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "numpy==1.24.0" "gymnasium==1.0.0" "pettingzoo==1.27.0" pytest pytest-timeout hypothesis
# The project with its other dependencies, resolved against the three pinned ones.
"$venv/bin/python" -m pip install -q -e . -c <(printf 'numpy==1.24.0\ngymnasium==1.0.0\npettingzoo==1.27.0\n')
"$venv/bin/python" -m pip check
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "not slow" \
  tests/test_engine_api.py tests/test_save_load.py tests/test_rules_base.py tests/test_bad_input.py \
  tests/test_env_api.py tests/test_env_observation.py tests/test_env_mask.py tests/test_env_codec.py \
  tests/test_env_single_agent.py tests/test_env_pickling.py tests/test_players.py "$@"
