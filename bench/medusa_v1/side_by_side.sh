#!/usr/bin/env bash
# Our server and Medusa v1.20.11 side by side: same commands, same machine, same run, rounds
# alternating which server goes first, medians and ratios at the end (issue 38). Loopback only.
#
#   bench/medusa_v1/setup.sh install     # once: Medusa from npm into $MEDUSA_DIR
#   bench/medusa_v1/side_by_side.sh      # fresh databases, both servers up, 3 rounds, table, both stopped
#
# Each round, for each server: `python -m bench.checkout_driver --shoppers 16 --seconds 30` (with the
# server's and PostgreSQL's CPU over the run, per checkout), then ../shared/bench/bench.sh's
# workloads (wrk -c32, 10 s each after a 3 s warm-up; CPU columns as bench.sh reports them).
# Ours: `commerce serve --workers 2` + `commerce worker` + `commerce scheduler`, COMMERCE_ENV=production,
# PostgreSQL database $OURS_DB + Redis db 8, port 9000; its server CPU counts all three processes
# (Medusa does the same work, event bus included, in its one process). Medusa: setup.sh, port 9100.
#
# Env (defaults): ROUNDS (3), SHOPPERS (16), CHECKOUT_SECONDS (30), DURATION (10s), CONNS (32),
#   WORKLOADS ("collections admin_customers admin_customers_cookie cart create_cart"),
#   OURS_PORT (9000), MEDUSA_PORT (9100), OURS_DB (commerce_bench), OURS_REDIS (redis://127.0.0.1:6379/8),
#   FRESH (1: recreate both databases from the seed before the run), KEEP (0: stop both servers at
#   the end; 1: leave them running), OUT (/tmp/side-by-side-<time>: raw outputs and table.md).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SHARED="${SHARED:-$REPO/../shared}"
ROUNDS="${ROUNDS:-3}"; SHOPPERS="${SHOPPERS:-16}"; CHECKOUT_SECONDS="${CHECKOUT_SECONDS:-30}"
export DURATION="${DURATION:-10s}" CONNS="${CONNS:-32}"
WORKLOADS="${WORKLOADS:-collections admin_customers admin_customers_cookie cart create_cart}"
OURS_PORT="${OURS_PORT:-9000}"; MEDUSA_PORT="${MEDUSA_PORT:-9100}"; export MEDUSA_PORT
OURS_DB="${OURS_DB:-commerce_bench}"; MEDUSA_DB="${MEDUSA_DB:-medusa_bench}"; export MEDUSA_DB; OURS_REDIS="${OURS_REDIS:-redis://127.0.0.1:6379/8}"
FRESH="${FRESH:-1}"; KEEP="${KEEP:-0}"
OUT="${OUT:-/tmp/side-by-side-$(date -u +%Y%m%dT%H%M%SZ)}"; mkdir -p "$OUT"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
SEED="${SEED:-$SHARED/fixtures/medusa-seed.json}"
PY="$REPO/.venv/bin/python"; [ -x "$PY" ] || PY=python3
COMMERCE="$REPO/.venv/bin/commerce"; [ -x "$COMMERCE" ] || COMMERCE=commerce
CLK=$(getconf CLK_TCK)

# ---- our server ------------------------------------------------------------------------------
OURS_PIDS=""
ours_env() {
  export COMMERCE_ENV=production DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$OURS_DB" REDIS_URL="$OURS_REDIS"
  export COOKIE_SECRET="${COOKIE_SECRET:-side-by-side-cookie-secret-0123456789abcdef}"
  export JWT_SECRET="${JWT_SECRET:-side-by-side-jwt-secret-0123456789abcdefgh}"
}
ours_db() {
  ( ours_env
    psql -d postgres -qc "DROP DATABASE IF EXISTS $OURS_DB WITH (FORCE)" -c "CREATE DATABASE $OURS_DB"
    redis-cli -u "$OURS_REDIS" FLUSHDB >/dev/null
    cd "$REPO"
    "$COMMERCE" migrate > "$OUT/ours-migrate.log" 2>&1 || { tail -20 "$OUT/ours-migrate.log"; exit 1; }
    "$COMMERCE" seed "$SEED" > "$OUT/ours-seed.log" 2>&1 || { tail -20 "$OUT/ours-seed.log"; exit 1; }
    [ "$(psql -d "$OURS_DB" -tAc "SELECT count(*) FROM \"user\" WHERE email='admin@test.com'")" != 0 ] ||
      "$COMMERCE" user create --email admin@test.com --password supersecret --role admin >/dev/null )
}
ours_start() {
  ss -ltnH "sport = :$OURS_PORT" | grep -q . && { echo "port $OURS_PORT is taken" >&2; exit 1; }
  ( ours_env; cd "$REPO"
    setsid "$COMMERCE" serve --host 127.0.0.1 --port "$OURS_PORT" --workers 2 > "$OUT/ours-serve.log" 2>&1 < /dev/null &
    echo $! > "$OUT/ours.pids"
    setsid "$COMMERCE" worker > "$OUT/ours-worker.log" 2>&1 < /dev/null & echo $! >> "$OUT/ours.pids"
    setsid "$COMMERCE" scheduler > "$OUT/ours-scheduler.log" 2>&1 < /dev/null & echo $! >> "$OUT/ours.pids" )
  OURS_PIDS=$(tr '\n' ' ' < "$OUT/ours.pids")
  for _ in $(seq 90); do
    curl -sf "http://127.0.0.1:$OURS_PORT/store/regions" >/dev/null && { echo "ours up on :$OURS_PORT (pids $OURS_PIDS)"; return; }
    sleep 1
  done
  echo "our server did not answer on :$OURS_PORT" >&2; tail -20 "$OUT/ours-serve.log"; exit 1
}
ours_stop() {
  local p
  for p in $OURS_PIDS; do kill -TERM -- "-$p" 2>/dev/null || true; done
  for p in $OURS_PIDS; do for _ in $(seq 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$p" 2>/dev/null || true; done
  OURS_PIDS=""
}

cleanup() {
  [ "$KEEP" = 1 ] && return
  ours_stop
  "$HERE/setup.sh" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

# ---- CPU accounting (as bench.sh: utime+stime of the roots and their descendants) ------------
descendants() {
  ps -e -o pid=,ppid= | awk -v roots="$*" '{p[$1]=$2} END{n=split(roots,r," "); for(i=1;i<=n;i++) s[r[i]]=1; ch=1; while(ch){ch=0; for(k in p) if(!(k in s) && (p[k] in s)){s[k]=1; ch=1}} for(k in s) print k}'
}
snap() { # a process may end between listing and reading it: skip it
  local p v; for p in "$@"; do v=$(awk '{sub(/^.*\) /,""); print $12+$13}' /proc/$p/stat 2>/dev/null) && echo "$p $v" || true; done; }
used() { awk 'NR==FNR{b[$1]=$2; next} {t+=$2-($1 in b ? b[$1] : 0)} END{print t+0}' <(echo "$1") <(echo "$2"); }
pg_pids() { # the backends connected to database $1 (others' work on a shared machine is not counted)
  ps -u postgres -o pid=,args= 2>/dev/null | awk -v db="$1" '$2=="postgres:" && $5==db {print $1}' | tr '\n' ' '; }

# ---- one server's share of a round -----------------------------------------------------------
run_server() { # round name port roots database
  local round=$1 name=$2 port=$3 roots=$4 db=$5 base="http://127.0.0.1:$3"
  local tag="r$round-$name"
  echo "== round $round: $name ($base) load $(cut -d' ' -f1-3 /proc/loadavg)"
  local s0 p0 s1 p1 t0 t1
  s0=$(snap $(descendants $roots)); p0=$(snap $(pg_pids "$db")); t0=$(date +%s.%N)
  (cd "$REPO" && "$PY" -m bench.checkout_driver --base "$base" --shoppers "$SHOPPERS" --seconds "$CHECKOUT_SECONDS") \
    > "$OUT/$tag-checkout.txt" 2>&1 || echo "checkout driver failed: see $OUT/$tag-checkout.txt"
  s1=$(snap $(descendants $roots)); p1=$(snap $(pg_pids "$db")); t1=$(date +%s.%N)
  echo "cpu server_s=$(awk -v t="$(used "$s0" "$s1")" -v c="$CLK" 'BEGIN{print t/c}') postgres_s=$(awk -v t="$(used "$p0" "$p1")" -v c="$CLK" 'BEGIN{print t/c}') wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') load=$(cut -d' ' -f1 /proc/loadavg)" \
    >> "$OUT/$tag-checkout.txt"
  head -1 "$OUT/$tag-checkout.txt"
  PG_DB="$db" SERVER_PID="$roots" BASE_URL="$base" WORKLOADS="$WORKLOADS" REPEAT=1 LABEL="$name round $round" RESULTS="$OUT/bench-results.md" \
    bash "$BENCH_SH" > "$OUT/$tag-bench.txt" 2>&1 || echo "bench.sh failed: see $OUT/$tag-bench.txt"
  echo "load $(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/$tag-bench.txt"
  grep '^| [a-z_]* | [A-Z]' "$OUT/$tag-bench.txt" || tail -5 "$OUT/$tag-bench.txt"
}

# bench.sh as shared, but for two lines. (1) Its snap() returns non-zero when the last process it
# reads ended meanwhile (a PostgreSQL backend of another client, often), which under `set -e`
# ends bench.sh mid-run: the copy skips such a process, as it already means to. (2) Its postgres
# CPU sums every postgres process, other people's tests included, which on a shared machine
# swamps a slow server's figure: the copy counts the backends connected to $PG_DB only.
BENCH_SH="$OUT/bench.sh"
sed -e 's#/proc/\$p/stat 2>/dev/null) \&\& echo "\$p \$v"$#&  || true#' \
    -e "s#^pg_pids() { ps -u postgres -o pid= 2>/dev/null | tr '\\\\n' ' '; }\$#pg_pids() { ps -u postgres -o pid=,args= 2>/dev/null | awk -v db=\"\$PG_DB\" '\$2==\"postgres:\" \&\& \$5==db {print \$1}' | tr '\\\\n' ' '; }#" \
    "$SHARED/bench/bench.sh" > "$BENCH_SH"
cp "$SHARED/bench/bench.lua" "$OUT/bench.lua"
[ "$(diff "$SHARED/bench/bench.sh" "$BENCH_SH" | grep -c '^>')" = 2 ] || { echo "bench.sh changed: using it as is (postgres CPU counts every client)" >&2; cp "$SHARED/bench/bench.sh" "$BENCH_SH"; }

# ---- the run ---------------------------------------------------------------------------------
echo "side by side: $ROUNDS rounds, outputs in $OUT; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$HERE/setup.sh" install
if [ "$FRESH" = 1 ]; then
  "$HERE/setup.sh" db
  ours_db
fi
"$HERE/setup.sh" start
MEDUSA_PIDS=$(cat "${MEDUSA_DIR:-/work/tools/medusa}/medusa-$MEDUSA_PORT.pid")
ours_start

for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then
    run_server "$round" ours "$OURS_PORT" "$OURS_PIDS" "$OURS_DB"; run_server "$round" medusa "$MEDUSA_PORT" "$MEDUSA_PIDS" "$MEDUSA_DB"
  else
    run_server "$round" medusa "$MEDUSA_PORT" "$MEDUSA_PIDS" "$MEDUSA_DB"; run_server "$round" ours "$OURS_PORT" "$OURS_PIDS" "$OURS_DB"
  fi
done

"$PY" "$HERE/side_by_side_table.py" "$OUT" "$ROUNDS" "$SHOPPERS" "$CHECKOUT_SECONDS" | tee "$OUT/table.md"
echo "raw outputs and table: $OUT"
