# Sourced by scripts/run.sh and scripts/test.sh: make ./.venv and install verity into it.
# Re-installs only when pyproject.toml or constraints.txt changed since the last install.
# Each step is announced on stderr; pip's whole output goes to .venv/install.log, and its
# steps (and, while llama-cpp-python builds, how many compile steps are done) show on stderr.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "verity: [1/3] creating .venv with $("$PYTHON" --version)" >&2
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.verity-installed
log=.venv/install.log
want="$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    # llama-cpp-python builds llama.cpp from source, for generic x86-64 unless CMAKE_ARGS
    # says otherwise: verity.extras.PORTABLE_CMAKE_ARGS, read from the source by
    # scripts/_portable_cmake_args.py (verity is not installed yet). No pip cache: every
    # install downloads and builds afresh, and pip never reuses a wheel built another way.
    portable="$(.venv/bin/python scripts/_portable_cmake_args.py)" || exit 1
    export CMAKE_ARGS="${CMAKE_ARGS:-$portable}"
    export PIP_NO_CACHE_DIR=1
    : > "$log"
    echo "verity: [2/3] upgrading pip in .venv (full log: $log)" >&2
    .venv/bin/python -m pip install --upgrade pip 2>&1 | .venv/bin/python scripts/_install_progress.py "$log" \
        || { echo "verity: upgrading pip failed; see $log" >&2; exit 1; }
    echo "verity: [3/3] installing verity with all its extras into .venv at the tested versions" \
        "(constraints.txt); the first time this builds llama-cpp-python (llama.cpp, C and C++)" \
        "from source with CMAKE_ARGS=$CMAKE_ARGS: about three minutes on two idle cores, much" \
        "longer on a loaded machine" >&2
    .venv/bin/python -m pip install -v --no-cache-dir --progress-bar off -c constraints.txt -e ".[all,dev]" 2>&1 \
        | .venv/bin/python scripts/_install_progress.py "$log" \
        || { echo "verity: the install failed; the full log is $log" >&2; exit 1; }
    echo "$want" > "$stamp"
    echo "verity: .venv is ready" >&2
fi
