#!/usr/bin/env bash
# The task queue's throughput on PostgreSQL (issue 17), two figures:
#   1. library level (bench/bench_queue_take): 16 worker processes doing
#      zb_queue_take + zb_queue_finish with no work, 5,000 tasks: tasks/s
#      (goal >= 500) and the connections each process opened
#      (zb_sqldb_stats_get);
#   2. the product: 100 generated tables (8 small files each, two appends),
#      `zamboni enqueue`, then 16 real `zamboni worker` processes until the
#      queue is empty (about 300 tasks: compact, rewrite-manifests, expire,
#      remove-orphans as they are due): wall time, tasks/s, the most
#      connections the database saw per worker (pg_stat_activity, sampled).
# Starts its own PostgreSQL on loopback (scripts/pg-test.sh start). Not
# part of CI.
#   bash bench/queue_throughput.sh [BUILD_DIR]        (default build)
# Env: TASKS (library level, 5000), WORKERS (16), TABLES (100).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
zb=$(pwd)/$build/zamboni
gen=$(pwd)/$build/zb-table-gen
take=$(pwd)/$build/bench/bench_queue_take
tasks=${TASKS:-5000}
workers=${WORKERS:-16}
tables=${TABLES:-100}
for x in "$zb" "$gen" "$take"; do
    [ -x "$x" ] || { echo "ERROR: no $x; build it: cmake --build $build --target zamboni zb-table-gen bench_queue_take" >&2; exit 2; }
done
pgdir=$(mktemp -d /tmp/zb-pg-bench.XXXXXX)
chmod 755 "$pgdir"
work=$(mktemp -d)
pids=""
cleanup() {
    local p
    for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
    bash scripts/pg-test.sh stop "$pgdir" || true
    rm -rf "$pgdir" "$work"
}
trap cleanup EXIT
url=$(bash scripts/pg-test.sh start "$pgdir")
base=${url%/*}
psql "$url" -qAt -c "CREATE DATABASE bench_lib" -c "CREATE DATABASE bench_fleet"
echo "PostgreSQL $(psql "$url" -qAt -c 'SHOW server_version') on loopback; $(nproc) cores"

echo "== 1. library level: bench_queue_take, $tasks tasks, $workers processes"
"$take" "$base/bench_lib" "$tasks" "$workers"

echo "== 2. product: $tables tables, $workers zamboni worker processes"
for v in $(env | grep -o '^ZAMBONI_[A-Z0-9_]*'); do unset "$v"; done
export ZAMBONI_ROOT=$work/root ZAMBONI_WAREHOUSE=w HOME=$work
export ZAMBONI_URI=$base/bench_fleet ZAMBONI_QUEUE_URI=$base/bench_fleet
export ZAMBONI_MEMORY_BUDGET_BYTES=1073741824
mkdir -p "$ZAMBONI_ROOT/configs/w"
cat >"$ZAMBONI_ROOT/configs/w/table-config.json" <<'JSON'
{"version": 2, "warehouse": "w", "defaults": {"min_input_files": 2, "retention": {
  "expire_snapshots": {"enabled": true, "max_snapshot_age_days": 0, "min_snapshots_to_keep": 1},
  "remove_orphan_files": {"enabled": true, "older_than_days": 3},
  "rewrite_manifests": {"enabled": true, "min_input_manifests": 2}}}}
JSON
"$gen" --sqlite "$work/gen.db" --table g.src --location "$work/gen" --procs 1 --appends 8 --rows 100 >/dev/null
ls "$work/gen/g/src/data/"*.parquet | LC_ALL=C sort >"$work/files"
"$zb" db migrate >/dev/null
for i in $(seq 1 "$tables"); do
    mkdir -p "$work/src/t$i/a" "$work/src/t$i/b"
    head -n 4 "$work/files" | xargs cp -t "$work/src/t$i/a"
    tail -n +5 "$work/files" | xargs cp -t "$work/src/t$i/b"
    "$zb" add-files --create --source "$work/src/t$i/a" "fleet.t$i" >/dev/null
    "$zb" add-files --source "$work/src/t$i/b" "fleet.t$i" >/dev/null
done
"$zb" enqueue --warehouse w >/dev/null
n=$(psql "$base/bench_fleet" -qAt -c "SELECT count(*) FROM zamboni_tasks")
echo "enqueued: $n tasks on $tables tables"
t0=$(date +%s%N)
for i in $(seq 1 "$workers"); do
    "$zb" worker --idle-exit-after 2s >"$work/w$i.log" 2>&1 </dev/null &
    pids="$pids $!"
done
maxconn=0
while :; do
    left=$(psql "$base/bench_fleet" -qAt -c "SELECT count(*) FROM zamboni_tasks WHERE state IN ('scheduled', 'running')")
    c=$(psql "$base/bench_fleet" -qAt -c "SELECT count(*) FROM pg_stat_activity WHERE datname = 'bench_fleet' AND pid <> pg_backend_pid()")
    [ "$c" -gt "$maxconn" ] && maxconn=$c
    [ "$left" = 0 ] && break
    alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || { echo "ERROR: every worker exited with $left task(s) left" >&2; break; }
    sleep 0.05
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
for p in $pids; do wait "$p" || echo "a worker exited $?"; done
pids=""
succ=$(psql "$base/bench_fleet" -qAt -c "SELECT count(*) FROM zamboni_attempts WHERE outcome = 'success'")
other=$(psql "$base/bench_fleet" -qAt -c "SELECT outcome || ' ' || count(*) FROM zamboni_attempts WHERE outcome <> 'success' GROUP BY outcome" | tr '\n' ' ')
echo "zamboni worker x $workers: $succ of $n tasks succeeded in $ms ms: $(( succ * 1000 / (ms > 0 ? ms : 1) )) tasks/s${other:+; other outcomes: $other}"
echo "connections: at most $maxconn open at once for $workers workers ($(( (maxconn + workers - 1) / workers )) per worker, at most 4 allowed)"
grep -h -i 'connection' "$work"/w*.log | head -3 || true
