#!/usr/bin/env bash
# The test command: lint, type-check and run the whole test suite in ./.venv.
#   bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
.venv/bin/ruff check verity tests benchmarks scripts
.venv/bin/ruff format --check verity tests benchmarks scripts
.venv/bin/mypy
# The wheel test (marker wheel) runs in .ci/install-check.sh, after this suite. The tests
# run on VERITY_TEST_WORKERS pytest-xdist workers (default 2; 0 runs them in this process).
.venv/bin/python -m pytest -n "${VERITY_TEST_WORKERS:-2}" -m "not wheel" "$@"
