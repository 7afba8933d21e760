#!/usr/bin/env bash
# A copy of the tracked tree with the hot modules compiled by mypyc in place, as the
# wheel ships them (setup.py), to run the benchmarks on the compiled build:
#   bash benchmarks/perf/compiled.sh DIR
#   cd DIR && /path/to/checkout/.venv/bin/python benchmarks/perf/run.py ...
# DIR must not exist yet. Uses ./.venv (mypy comes with the dev extra).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${1:?usage: compiled.sh DIR}"
[ ! -e "$dir" ] || { echo "compiled.sh: $dir exists" >&2; exit 2; }
python="$PWD/.venv/bin/python"
mkdir -p "$dir"
git ls-files -z | xargs -0 cp -P --parents -t "$dir"
cd "$dir"
VERITY_REQUIRE_COMPILED=1 "$python" setup.py --quiet build_ext --inplace >build.log 2>&1 \
    || { tail -n 30 build.log >&2; echo "compiled.sh: the build failed" >&2; exit 1; }
"$python" -c 'import sys; sys.path.insert(0, "."); from verity._build import build_text; print("compiled.sh:", build_text())'
