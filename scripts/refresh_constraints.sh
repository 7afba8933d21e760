#!/usr/bin/env bash
# Refresh constraints.txt, the exact versions of every package the tests run with
# (scripts/_venv.sh and CI install with `-c constraints.txt`). Run it on purpose, e.g. to
# move to newer dependencies: raise the upper bounds in pyproject.toml, run this, run
# `bash scripts/test.sh` (it re-installs at the new pins), then commit both files.
#   bash scripts/refresh_constraints.sh         # resolve afresh into a throwaway venv: the
#                                               # newest versions within pyproject.toml's
#                                               # bounds, no pip cache (builds llama.cpp)
#   bash scripts/refresh_constraints.sh VENV    # pin what the venv VENV holds
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
export PIP_NO_CACHE_DIR=1
say() { echo "refresh_constraints: $*" >&2; }
if [ $# -ge 1 ]; then
    venv="$1"
    [ -x "$venv/bin/python" ] || { say "no Python at $venv/bin/python"; exit 2; }
else
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    venv="$tmp/venv"
    say "resolving .[all,dev] afresh into $venv (full log: $tmp/install.log)"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    CMAKE_ARGS="${CMAKE_ARGS:-$("$PYTHON" scripts/_portable_cmake_args.py)}" \
        "$venv/bin/python" -m pip install -v --progress-bar off ".[all,dev]" 2>&1 \
        | "$PYTHON" scripts/_install_progress.py "$tmp/install.log"
fi
{
    echo "# The versions the tests run with: written by scripts/refresh_constraints.sh, not by hand."
    # Every installed package but pip (upgraded on its own) and verity itself.
    "$venv/bin/python" -m pip freeze --all --exclude-editable \
        | grep -v -i -E '^(pip|verity-evidence|verity_evidence)( |==|@)' | LC_ALL=C sort -f
} >constraints.txt.new
mv constraints.txt.new constraints.txt
say "wrote constraints.txt ($(grep -c '==' constraints.txt) pins); review with git diff"
