#!/usr/bin/env bash
# Set up ./.venv and run the main job: a demo game on a tower variant, printed as text.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
# shellcheck disable=SC1091
. .venv/bin/activate
python -m carcassonne_env.demo --players 3 --expansions tower,black_tower,watchtowers --seed 2026 "$@"
