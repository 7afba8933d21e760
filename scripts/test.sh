#!/usr/bin/env bash
# The test command: lint, type-check and run the whole test suite in ./.venv.
#   bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
.venv/bin/ruff check verity tests benchmarks scripts
.venv/bin/ruff format --check verity tests benchmarks scripts
.venv/bin/mypy
# The wheel test (marker wheel) runs in .ci/install-check.sh, after this suite.
.venv/bin/python -m pytest -m "not wheel" "$@"
