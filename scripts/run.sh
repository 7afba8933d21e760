#!/usr/bin/env bash
# The main job on the embedded defaults.
#   bash scripts/run.sh [arguments for `verity demo`]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
exec .venv/bin/verity demo "$@"
