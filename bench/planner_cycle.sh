#!/usr/bin/env bash
# serve's planner at scale (issue 18), on its own PostgreSQL on loopback
# (scripts/pg-test.sh start), the SQL catalog and the queue in one
# database. Not part of CI.
#   1. one planner cycle over TABLES tables (default 10,000; goal under
#      60 s) and over TABLES/10, by `zamboni serve` run under
#      build/bench/run_child: the cycle's duration from /metrics, the wall
#      time to the first cycle's end, and serve's peak RSS (bounded memory:
#      the two peaks side by side). The tables are registered by SQL in
#      iceberg_tables, all pointing at the metadata of a few real tables
#      (8 small files each, made by zb-table-gen + add-files): the planner
#      reads each table's metadata and manifest list as usual, it only
#      finds the same bytes. The fleet scales from zero, so each cycle
#      creates at most the class's max_jobs (MAX_JOBS, default 500) tasks.
#   2. the queue under a burst at the cap (ZAMBONI_QUEUE_MAX_TASKS = CAP,
#      default 10,000): (a) the queue full of excluded tasks: one cycle
#      whose creations displace them; (b) full of scheduled tasks (not
#      due): every creation refused. Cycle time, added / evicted / refused
#      counters, the queue's count after (never past the cap).
#   bash bench/planner_cycle.sh [BUILD_DIR]          (default build)
# Env: TABLES (10000), MAX_JOBS (500), CAP (10000).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
zb=$(pwd)/$build/zamboni
gen=$(pwd)/$build/zb-table-gen
rc_tool=$(pwd)/$build/bench/run_child
tables=${TABLES:-10000}
max_jobs=${MAX_JOBS:-500}
cap=${CAP:-10000}
for x in "$zb" "$gen" "$rc_tool"; do
    [ -x "$x" ] || { echo "ERROR: no $x; build it: cmake --build $build --target zamboni zb-table-gen run_child" >&2; exit 2; }
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
echo "PostgreSQL $(psql "$url" -qAt -c 'SHOW server_version') on loopback; $(nproc) cores"

for v in $(env | grep -o '^ZAMBONI_[A-Z0-9_]*'); do unset "$v"; done
export ZAMBONI_ROOT=$work/root HOME=$work
export ZAMBONI_MEMORY_BUDGET_BYTES=1073741824
# "large": where burst (b)'s tasks sit, so that "small" has room to try
export ZAMBONI_SIZE_CLASSES="[{\"name\":\"small\",\"cores\":1,\"memory\":\"512Mi\",\"max_jobs\":$max_jobs},{\"name\":\"large\",\"cores\":2,\"memory\":\"1Gi\",\"max_jobs\":$max_jobs}]"
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
# metric FILE NAME_ERE: the sum of the samples of the names matching
metric() {
    awk -v re="^($2)\$" '{ n = $1; sub(/\{.*/, "", n); if (n ~ re) { s += $2; f = 1 } }
                         END { if (f) printf "%.6g\n", s; else print "n/a" }' "$1"
}

# db_setup DB N: a database with N tables in warehouse wb (3 real ones,
# the rest rows of iceberg_tables pointing at their metadata)
db_setup() {
    local db=$1 n=$2 i
    psql "$url" -qAt -c "CREATE DATABASE $db"
    # a root of its own: its table config, its real tables' folders
    export ZAMBONI_ROOT=$work/root_$db
    export ZAMBONI_URI=$base/$db ZAMBONI_QUEUE_URI=$base/$db ZAMBONI_WAREHOUSE=wb
    "$zb" db migrate >/dev/null
    mkdir -p "$ZAMBONI_ROOT/configs/wb"
    # serve plans the tables its table config lists: all of them
    python3 - "$n" >"$ZAMBONI_ROOT/configs/wb/table-config.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"version": 2, "warehouse": "wb",
    "defaults": {"retention": {"remove_orphan_files": {"enabled": False}}},
    "namespaces": {"real": {"tables": {f"r{i}": {} for i in (1, 2, 3)}},
                   "bulk": {"tables": {f"t{g}": {} for g in range(1, n - 2)}}}}))
PY
    [ -s "$work/files" ] || {
        "$gen" --sqlite "$work/gen.db" --table g.src --location "$work/gen" --procs 1 --appends 8 --rows 100 >/dev/null
        ls "$work/gen/g/src/data/"*.parquet | LC_ALL=C sort >"$work/files"
    }
    for i in 1 2 3; do
        mkdir -p "$work/src/$db/r$i"
        xargs cp -t "$work/src/$db/r$i" <"$work/files"
        "$zb" add-files --create --source "$work/src/$db/r$i" "real.r$i" >/dev/null
    done
    psql "$base/$db" -qAt -v ON_ERROR_STOP=1 -c "
        INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, iceberg_type)
        SELECT 'wb', 'bulk', 't' || g, r.metadata_location, r.iceberg_type
        FROM generate_series(1, $((n - 3))) g
        JOIN iceberg_tables r ON r.catalog_name = 'wb' AND r.table_namespace = 'real'
             AND r.table_name = 'r' || (1 + g % 3)"
}

# one_cycle NAME: serve under run_child until its first cycle ends; prints
# the figures; leaves the metrics in $work/NAME.metrics
one_cycle() {
    local name=$1 port t0 child cycles=0 i
    port=$(free_port)
    t0=$(date +%s%N)
    "$rc_tool" -o "$work/$name.rc" "$zb" serve --listen "127.0.0.1:$port" --warehouse wb \
        --plan-interval 1h >"$work/$name.log" 2>&1 &
    local rcpid=$!
    pids="$pids $rcpid"
    for i in $(seq 1 3000); do       # 300 s at most
        if curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$work/$name.metrics" 2>/dev/null; then
            cycles=$(metric "$work/$name.metrics" 'zamboni_planner_cycles(_total)?')
            [ "$cycles" != n/a ] && [ "$cycles" != 0 ] && break
        fi
        kill -0 "$rcpid" 2>/dev/null || break
        sleep 0.1
    done
    local wall_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    child=$(pgrep -P "$rcpid" | head -1 || true)
    [ -n "$child" ] && kill -TERM "$child"
    wait "$rcpid" || true
    echo "  $name: first cycle done ${wall_ms} ms after start (cycles $cycles); cycle duration" \
        "$(metric "$work/$name.metrics" 'zamboni_planner_(last_)?cycle_(duration_)?seconds(_sum)?') s;" \
        "tables seen $(metric "$work/$name.metrics" 'zamboni_planner_tables(_seen)?(_total)?');" \
        "added $(metric "$work/$name.metrics" 'zamboni_[a-z_]*added[a-z_]*')," \
        "evicted $(metric "$work/$name.metrics" 'zamboni_[a-z_]*(evicted|displaced)[a-z_]*')," \
        "refused $(metric "$work/$name.metrics" 'zamboni_[a-z_]*refused[a-z_]*')"
    echo "  $name: serve under run_child: $(cat "$work/$name.rc" 2>/dev/null)"
    grep -iE 'error|warn' "$work/$name.log" | head -3 | sed "s/^/  $name log: /" || true
}

echo "== 1. one planner cycle over $tables tables and over $((tables / 10)) (3 real tables of 8 small files; the rest registered by SQL, pointing at their metadata)"
t0=$(date +%s%N)
db_setup plan_small $((tables / 10))
echo "  setup: $(( ($(date +%s%N) - t0) / 1000000 )) ms for $((tables / 10)) tables"
one_cycle "tables_$((tables / 10))"
t0=$(date +%s%N)
db_setup plan_full "$tables"
echo "  setup: $(( ($(date +%s%N) - t0) / 1000000 )) ms for $tables tables"
one_cycle "tables_$tables"
echo "  live tasks after: $(psql "$base/plan_full" -qAt -c 'SELECT count(*) FROM zamboni_tasks') (at most max_jobs=$max_jobs per cycle)"

echo "== 2. the queue under a burst at the cap ($cap), $tables tables wanting compaction, max_jobs $max_jobs"
export ZAMBONI_QUEUE_MAX_TASKS=$cap
q="$base/plan_full"
fill() {
    psql "$q" -qAt -v ON_ERROR_STOP=1 -c "DELETE FROM zamboni_tasks" -c "
        INSERT INTO zamboni_tasks (warehouse, table_name, operation, op_rank, size_class, priority, state,
            scheduled_for_ms, attempt, max_attempts, created_ms, last_message)
        SELECT 'wb', 'ghost.g' || g, 'compact', 0, '$4', g % 100, '$1',
            (extract(epoch from clock_timestamp()) * 1000)::bigint + $2, $3, 5,
            (extract(epoch from clock_timestamp()) * 1000)::bigint, 'bench'
        FROM generate_series(1, $cap) g"
}
fill excluded 0 5 small
echo "  (a) $cap excluded tasks"
one_cycle burst_excluded
echo "  (a) after: $(psql "$q" -qAt -c "SELECT count(*) || ' tasks: ' || count(*) FILTER (WHERE state = 'excluded') || ' excluded, ' || count(*) FILTER (WHERE table_name LIKE 'bulk.%' OR table_name LIKE 'real.%') || ' new' FROM zamboni_tasks")"
fill scheduled 3600000 0 large
echo "  (b) $cap scheduled tasks (class large, due in an hour): the queue full, nothing displaceable"
one_cycle burst_scheduled
echo "  (b) after: $(psql "$q" -qAt -c "SELECT count(*) || ' tasks: ' || count(*) FILTER (WHERE table_name LIKE 'ghost.%') || ' of the burst kept' FROM zamboni_tasks")"
