#!/usr/bin/env bash
# Install (if needed) and start a throwaway PostgreSQL cluster on loopback for the
# SQL backend tests. Run as root on Debian/Ubuntu.
#
#   export VERITY_TEST_POSTGRES_URL="$(.ci/postgres.sh)"    # start; prints the URL on stdout
#   .ci/postgres.sh --stop                                   # stop the cluster again
#
# The cluster is named "verity", listens on 127.0.0.1 only, port $VERITY_PG_PORT
# (default 54329), and holds a database "verity" owned by the role "verity"
# (password "verity"). Re-running is safe: existing pieces are reused.
# Everything except the URL goes to stderr.
set -euo pipefail

PORT="${VERITY_PG_PORT:-54329}"
CLUSTER=verity
DB=verity
ROLE=verity
PASSWORD=verity

log() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (it installs packages and manages a cluster)"

pg_version() {
    ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1
}

if [ -z "$(pg_version)" ] || ! command -v pg_createcluster >/dev/null 2>&1; then
    log "installing Debian's postgresql with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
else
    log "postgresql $(pg_version) is already installed; skipping apt-get"
fi
VERSION="$(pg_version)"
[ -n "$VERSION" ] || die "no PostgreSQL server under /usr/lib/postgresql after installing"

if [ "${1:-}" = "--stop" ]; then
    if pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1==v && $2==c' | grep -q online; then
        pg_ctlcluster "$VERSION" "$CLUSTER" stop >&2
        log "stopped cluster $VERSION/$CLUSTER"
    else
        log "cluster $VERSION/$CLUSTER is not running"
    fi
    exit 0
fi

if ! pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1==v && $2==c {found=1} END {exit !found}'; then
    log "creating cluster $VERSION/$CLUSTER on 127.0.0.1:$PORT"
    pg_createcluster "$VERSION" "$CLUSTER" --port "$PORT" \
        -- --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >&2
fi
# Loopback only, whatever the cluster was created with.
sed -i "/^listen_addresses *=/d" "/etc/postgresql/$VERSION/$CLUSTER/postgresql.conf"
mkdir -p "/etc/postgresql/$VERSION/$CLUSTER/conf.d"
printf "listen_addresses = '127.0.0.1'\n" > "/etc/postgresql/$VERSION/$CLUSTER/conf.d/verity.conf"

if ! pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1==v && $2==c' | grep -q online; then
    mkdir -p /var/run/postgresql && chown postgres:postgres /var/run/postgresql
    pg_ctlcluster "$VERSION" "$CLUSTER" start >&2
fi

ACTUAL_PORT="$(pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1==v && $2==c {print $3}')"
[ "$ACTUAL_PORT" = "$PORT" ] || die "cluster $VERSION/$CLUSTER uses port $ACTUAL_PORT, not $PORT"

psql_admin() {
    runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$PORT" -d postgres "$@"
}

for _ in $(seq 1 30); do
    psql_admin -tAc 'SELECT 1' >/dev/null 2>&1 && break
    sleep 1
done
psql_admin -tAc 'SELECT 1' >/dev/null || die "the server on port $PORT does not answer"

if [ "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != "1" ]; then
    psql_admin -c "CREATE ROLE $ROLE LOGIN PASSWORD '$PASSWORD'" >&2
fi
if [ "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]; then
    psql_admin -c "CREATE DATABASE $DB OWNER $ROLE" >&2
fi

log "ready: PostgreSQL $VERSION cluster $CLUSTER on 127.0.0.1:$PORT, database $DB"
echo "postgresql://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"
