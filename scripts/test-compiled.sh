#!/usr/bin/env bash
# The test suite again, on the mypyc-compiled build the wheel ships (setup.py): a copy of
# the tracked tree with the hot modules compiled in place, tested with ./.venv (run
# scripts/test.sh first). Tests marked pure_only (they patch compiled modules) are skipped.
#   bash scripts/test-compiled.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="$PWD"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bash benchmarks/perf/compiled.sh "$tmp/tree"
cd "$tmp/tree"
PYTHONPATH="$tmp/tree" "$checkout/.venv/bin/python" -m pytest -p no:cacheprovider "$@"
