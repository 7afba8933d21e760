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
    echo "verity: installing verity and its extras into .venv (the first time builds llama-cpp-python: a few minutes)" >&2
    .venv/bin/python -m pip install --quiet --upgrade pip >&2
    # The distribution was called "verity" before it became "verity-evidence".
    .venv/bin/python -m pip uninstall --quiet --yes verity >/dev/null 2>&1 || true
    .venv/bin/python -m pip install --quiet -e ".[all,dev]" >&2
    echo "$want" > "$stamp"
fi
