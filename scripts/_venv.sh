# Sourced by scripts/run.sh and scripts/test.sh: make ./.venv and install verity into it.
# Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "verity: creating .venv with $("$PYTHON" --version)" >&2
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.verity-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    # llama-cpp-python builds llama.cpp from source. A build tuned to the build machine
    # (GGML_NATIVE, with AVX-512 and AMX) crashed in its first evaluation on a machine of
    # this kind, so it is built for generic x86-64 (AVX2) unless CMAKE_ARGS says otherwise;
    # --no-cache-dir keeps pip from reusing a wheel it built another way.
    export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF}"
    echo "verity: installing verity and its extras into .venv; the first time this builds" \
        "llama-cpp-python from source (CMAKE_ARGS=$CMAKE_ARGS), a few minutes on two cores" >&2
    .venv/bin/python -m pip install --quiet --upgrade pip >&2
    .venv/bin/python -m pip install --no-cache-dir --progress-bar on -e ".[all,dev]" >&2
    echo "$want" > "$stamp"
    echo "verity: .venv is ready" >&2
fi
