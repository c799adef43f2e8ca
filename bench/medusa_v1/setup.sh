#!/usr/bin/env bash
# Medusa v1.20.11, the reference server for side-by-side benchmarks, installed outside the repo
# from the npm registry (no Medusa source lives here: only package.json/package-lock.json and the
# config). PostgreSQL database `medusa_bench`, Redis db 7, port 9100, NODE_ENV=production.
#
#   bench/medusa_v1/setup.sh            # install (if needed), fresh database, migrate, seed, start
#   bench/medusa_v1/setup.sh install    # npm ci into $MEDUSA_DIR
#   bench/medusa_v1/setup.sh db         # drop and recreate the database, migrate, seed, admin user
#   bench/medusa_v1/setup.sh start      # start on $MEDUSA_PORT and wait until it answers
#   bench/medusa_v1/setup.sh stop       # stop the server started by `start`
#   bench/medusa_v1/setup.sh status
#
# Env (defaults): MEDUSA_DIR (/work/tools/medusa), MEDUSA_PORT (9100), MEDUSA_DB (medusa_bench),
#   PGHOST/PGPORT/PGUSER (127.0.0.1/5432/postgres), REDIS_URL (redis://127.0.0.1:6379/7),
#   SEED (../shared/fixtures/medusa-seed.json beside the repo), MEDUSA_LOG (/tmp/medusa-9100.log).
#   Medusa's feature flags come from the environment and reach both `migrations run` and `start`
#   (some migrations run only with their flag on), e.g. MEDUSA_FF_TAX_INCLUSIVE_PRICING=true for
#   the tax-inclusive shop of inclusive_shop.py; Medusa logs each flag it was given.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
MEDUSA_DIR="${MEDUSA_DIR:-/work/tools/medusa}"
MEDUSA_PORT="${MEDUSA_PORT:-9100}"
MEDUSA_DB="${MEDUSA_DB:-medusa_bench}"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/7}"
export DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$MEDUSA_DB"
export MEDUSA_DISABLE_TELEMETRY=true
SEED="${SEED:-$REPO/../shared/fixtures/medusa-seed.json}"
MEDUSA_LOG="${MEDUSA_LOG:-/tmp/medusa-$MEDUSA_PORT.log}"
PIDFILE="$MEDUSA_DIR/medusa-$MEDUSA_PORT.pid"

install() {
  mkdir -p "$MEDUSA_DIR"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$HERE/medusa-config.js" "$HERE/preload.js" "$MEDUSA_DIR/"
  if [ ! -x "$MEDUSA_DIR/node_modules/.bin/medusa" ] || ! cmp -s "$HERE/package-lock.json" "$MEDUSA_DIR/node_modules/.package-lock.json.installed" 2>/dev/null; then
    (cd "$MEDUSA_DIR" && npm ci --legacy-peer-deps --no-audit --no-fund)
    cp "$HERE/package-lock.json" "$MEDUSA_DIR/node_modules/.package-lock.json.installed"
  fi
  (cd "$MEDUSA_DIR" && node -e 'console.log("medusa", require("@medusajs/medusa/package.json").version)')
}

db() {
  stop >/dev/null 2>&1 || true
  psql -d postgres -qc "DROP DATABASE IF EXISTS $MEDUSA_DB WITH (FORCE)" -c "CREATE DATABASE $MEDUSA_DB"
  redis-cli -u "$REDIS_URL" FLUSHDB >/dev/null
  cp "$SEED" "$MEDUSA_DIR/medusa-seed.json"
  cd "$MEDUSA_DIR"
  node_modules/.bin/medusa migrations run > /tmp/medusa-migrate.log 2>&1 || { tail -30 /tmp/medusa-migrate.log; exit 1; }
  node_modules/.bin/medusa seed -f ./medusa-seed.json > /tmp/medusa-seed.log 2>&1 || { tail -30 /tmp/medusa-seed.log; exit 1; }
  if [ "$(psql -d "$MEDUSA_DB" -tAc "SELECT count(*) FROM \"user\" WHERE email='admin@test.com'")" = 0 ]; then
    node_modules/.bin/medusa user -e admin@test.com -p supersecret
  fi
  echo "medusa database $MEDUSA_DB: $(psql -d "$MEDUSA_DB" -tAc 'SELECT count(*) FROM product') products," \
       "$(psql -d "$MEDUSA_DB" -tAc 'SELECT count(*) FROM region') regions"
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

start() {
  if running; then echo "medusa already running (pid $(cat "$PIDFILE"))"; return; fi
  cd "$MEDUSA_DIR"
  # NODE_ENV=production as deployed; preload.js stands in for the TLS proxy in front of it
  # (without which Medusa never issues its secure session cookie over plain HTTP) and binds it
  # to 127.0.0.1.
  NODE_ENV=production NODE_OPTIONS="--require $MEDUSA_DIR/preload.js" \
    setsid node_modules/.bin/medusa start -H 127.0.0.1 -p "$MEDUSA_PORT" > "$MEDUSA_LOG" 2>&1 < /dev/null &
  echo $! > "$PIDFILE"
  for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$MEDUSA_PORT/health" >/dev/null && { echo "medusa up on :$MEDUSA_PORT (pid $(cat "$PIDFILE"), log $MEDUSA_LOG)"; return; }
    running || { tail -30 "$MEDUSA_LOG"; exit 1; }
    sleep 1
  done
  echo "medusa did not answer on :$MEDUSA_PORT within 120 s" >&2; tail -30 "$MEDUSA_LOG"; exit 1
}

stop() {
  running || { echo "medusa not running"; rm -f "$PIDFILE"; return; }
  local pid; pid=$(cat "$PIDFILE")
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$PIDFILE"; echo "medusa stopped"
}

case "${1:-all}" in
  install) install ;;
  db) db ;;
  start) start ;;
  stop) stop ;;
  status) running && echo "running (pid $(cat "$PIDFILE"))" || echo "stopped" ;;
  all) install; db; start ;;
  *) echo "usage: $0 [install|db|start|stop|status|all]" >&2; exit 2 ;;
esac
