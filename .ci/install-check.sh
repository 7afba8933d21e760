#!/usr/bin/env bash
# CI: build the sdist and the wheel, install the wheel into a clean virtual environment
# outside the checkout (dependencies from the package index) and run the commands from a
# temporary directory on the example files `verity examples .` copies out, first core-only
# (each command that needs an extra must exit 2 with one line naming what to install), then
# with the bench extra, then with the local extra installed as the README says (llama.cpp
# built with the portable CMAKE_ARGS, no pip cache: a few minutes), where `verity demo`
# must ship verified claims; last, the wheel test of the suite, which also runs the
# README's runnable blocks from the wheel. Dependencies resolve afresh from the index (no
# constraints, no cache), so a release within the bounds that breaks verity fails here.
#   bash .ci/install-check.sh
set -euo pipefail
export PIP_NO_CACHE_DIR=1
cd "$(dirname "$0")/.."
checkout="$PWD"
PYTHON="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
started=$SECONDS
before="$(git status --porcelain --untracked-files=normal)"
say() { echo "install-check: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

say "building the sdist and the wheel"
"$PYTHON" -m venv "$tmp/tools"
"$tmp/tools/bin/python" -m pip install --quiet --upgrade pip build
# Build from a copy, so the build leaves nothing (build/, *.egg-info) in the checkout.
mkdir "$tmp/src"
git ls-files -z | xargs -0 cp -P --parents -t "$tmp/src"
"$tmp/tools/bin/python" -m build --sdist --wheel --outdir "$tmp/dist" \
    "$tmp/src" >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; fail "python -m build"; }
wheel="$(ls "$tmp"/dist/*.whl)"
sdist="$(ls "$tmp"/dist/*.tar.gz)"
tar -tzf "$sdist" >"$tmp/sdist.txt"
"$tmp/tools/bin/python" -m zipfile -l "$wheel" >"$tmp/wheel.txt"
grep -q "/verity/schemas/evidence_graph.schema.json$" "$tmp/sdist.txt" || fail "sdist lacks the schemas"
grep -q "verity/schemas/evidence_graph.schema.json" "$tmp/wheel.txt" || fail "wheel lacks the schemas"
grep -q "verity/data/examples/graph.json" "$tmp/wheel.txt" || fail "wheel lacks the example files"
grep -q "/verity/data/examples/fee_gates.py$" "$tmp/sdist.txt" || fail "sdist lacks the example files"
grep -q "\.so " "$tmp/wheel.txt" && fail "the wheel holds compiled modules; verity is pure Python"
say "built $(basename "$sdist") and $(basename "$wheel")"

say "core-only install into a clean venv"
"$PYTHON" -m venv "$tmp/venv"
venv="$tmp/venv/bin"
"$venv/python" -m pip install --quiet --upgrade pip
"$venv/python" -m pip install --quiet "$wheel"

work="$tmp/work"
mkdir -p "$work"
cd "$work"
export PATH="$venv:$PATH"
unset PYTHONPATH VIRTUAL_ENV || true

# expect STATUS COMMAND...: run COMMAND, require exit STATUS and no traceback.
expect() {
    local want="$1"; shift
    local got=0
    "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
    if [ "$got" != "$want" ] || grep -q "Traceback" "$tmp/err"; then
        cat "$tmp/out" "$tmp/err" >&2
        fail "'$*' exited $got, expected $want"
    fi
    say "ok ($got): $*"
}
# needs EXTRA COMMAND...: run COMMAND, require exit 2 with one line naming the extra.
needs() {
    local extra="$1"; shift
    expect 2 "$@"
    [ "$(wc -l <"$tmp/err")" = 1 ] || { cat "$tmp/err" >&2; fail "'$*': not one line"; }
    grep -q "pip install 'verity-evidence\[$extra\]'" "$tmp/err" \
        || { cat "$tmp/err" >&2; fail "'$*' does not name verity-evidence[$extra]"; }
}

expect 0 verity --version
grep -q "verity-evidence" "$tmp/out" || fail "--version does not name the distribution"
# The example files come from the installed package, not from the checkout.
expect 0 verity examples .
[ "$(grep -c '^wrote ' "$tmp/out")" = "$(ls examples | wc -l)" ] || fail "verity examples: not every file said"
expect 0 verity examples .
: >not-a-folder && expect 2 verity examples not-a-folder && rm not-a-folder
cp examples/graph.json examples/narration.json .
expect 1 verity verify graph.json narration.json
tr '\n' ' ' <narration.json >narrations.jsonl && echo >>narrations.jsonl
expect 0 verity verify-stream examples/ narrations.jsonl
grep -q '"report"' "$tmp/out" || fail "verify-stream wrote no report"
printf '[{"id": "p1", "text": "The tenant shall not sublet the flat."}]\n' >passages.json
printf 'The tenant shall not sublet the flat. The tenant may keep a dog.\n' >answer.txt
expect 1 verity check-answer passages.json answer.txt
expect 0 verity narrate graph.json --narrator scripted:clean
status=0; verity demo --narrator scripted --out-dir demo >"$tmp/out" 2>"$tmp/err" || status=$?
grep -q "Traceback" "$tmp/err" && { cat "$tmp/err" >&2; fail "demo traceback"; }
recheck=0; verity verify demo/graph.json demo/narration.json >/dev/null || recheck=$?
[ "$status" = "$recheck" ] || fail "demo exited $status, its re-check $recheck"
say "ok ($status): verity demo --narrator scripted (= its re-check)"
expect 0 verity graph-from-sql --out sales.json

needs bench verity bench --narrators scripted --limit 2
needs bench verity bench --report demo
needs local verity narrate graph.json --narrator local
needs local verity demo --out-dir demo-local
needs highs verity optimize --spend-profile 0 --goal no_fee --solver highs
needs serve verity serve --port 0
needs dask verity verify-stream examples/ narrations.jsonl --engine dask

say "adding the bench extra"
"$venv/python" -m pip install --quiet "${wheel}[bench]"
expect 0 verity bench --narrators scripted --limit 2 --out bench --resamples 200
[ -s bench/report.md ] && [ -s bench/survival.png ] || fail "bench wrote no report or figures"
expect 0 verity bench --report bench --resamples 200

# The local extra exactly as the README says: CMAKE_ARGS="$PORTABLE_CMAKE_ARGS" pip install
# 'verity-evidence[local]' --no-cache-dir (here the wheel), then the demo on the model.
portable="$("$venv/python" -c 'from verity.extras import PORTABLE_CMAKE_ARGS as a; print(a)')"
hint="$("$venv/python" -c 'from verity.extras import install_hint; print(install_hint("local"))')"
[ "$hint" = "CMAKE_ARGS=\"$portable\" pip install 'verity-evidence[local]' --no-cache-dir" ] \
    || fail "the local install hint is not the portable command: $hint"
say "adding the local extra: $hint (builds llama.cpp, a few minutes)"
CMAKE_ARGS="$portable" "$venv/python" -m pip install -v --no-cache-dir --progress-bar off \
    "${wheel}[local]" 2>&1 | "$venv/python" "$checkout/scripts/_install_progress.py" "$tmp/local.log" \
    || { tail -n 40 "$tmp/local.log" >&2; fail "installing ${wheel##*/}[local]"; }
rm -rf demo-local  # whatever the core-only attempt above left
expect 0 verity demo --out-dir demo-local --quiet
last_pass="$(grep '^pass ' "$tmp/out" | tail -n 1)"
echo "$last_pass" | grep -Eq 'verified ([1-9][0-9]*) of \1$' \
    || { cat "$tmp/out" >&2; fail "verity demo on the local model did not verify every claim"; }
grep -Eq '^Shipped narration \([1-9][0-9]* verified claims\):$' "$tmp/out" \
    || { cat "$tmp/out" >&2; fail "verity demo on the local model shipped no verified claim"; }
expect 0 verity verify demo-local/graph.json demo-local/narration.json
say "ok: verity demo on the local model: $last_pass"

# The wheel test of the suite (marked wheel: it builds the wheel itself and installs it
# into venvs that see only the core dependencies), with the checkout's .venv.
cd "$checkout"
if [ -x .venv/bin/python ]; then
    .venv/bin/python -m pytest -q -p no:cacheprovider -m wheel tests/test_install.py \
        || fail "tests/test_install.py"
else
    say "no .venv: run scripts/test.sh first for the wheel test"
fi

cd "$checkout"
[ "$(git status --porcelain --untracked-files=normal)" = "$before" ] || fail "the build changed the checkout"
say "passed in $((SECONDS - started)) s"
