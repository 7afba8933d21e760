#!/usr/bin/env bash
# Install (if needed) Debian's headless-capable Chromium for the HTML report test and
# print its path on stdout. Run as root on Debian/Ubuntu.
#
#   export VERITY_TEST_BROWSER="$(.ci/browser.sh)"
#
# Re-running is safe: an installed chromium is reused. It is checked by rendering a blank
# page headless before its path is printed; everything else goes to stderr.
set -euo pipefail

log() { printf 'browser.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

find_browser() {
    command -v chromium || command -v chromium-browser || true
}

browser="$(find_browser)"
if [ -z "$browser" ]; then
    [ "$(id -u)" -eq 0 ] || die "run as root (it installs chromium with apt-get)"
    log "installing Debian's chromium with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq chromium >&2
    browser="$(find_browser)"
    [ -n "$browser" ] || die "chromium is not on the PATH after installing it"
fi

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$profile" --dump-dom 'data:text/html,<p>ok</p>' \
    2>/dev/null | grep -q '<p>ok</p>'; then
    die "$browser does not render a page headless"
fi
log "$("$browser" --version 2>/dev/null | head -n 1) at $browser"
printf '%s\n' "$browser"
