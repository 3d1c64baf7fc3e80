# tests/fleet/fleet_harness.sh - sourced by the worker-fleet scripts (issue
# 17); sources tests/cli/harness.sh ($zb, $tmp, ok/bad/run/expect,
# harness_done). Arguments of every fleet script:
#   ZAMBONI ZB_TABLE_GEN NODE BACKEND      BACKEND: sqlite or pg
# The catalog and the queue live in one database (ZAMBONI_URI =
# ZAMBONI_QUEUE_URI), so a worker's commit and its lease check are one
# statement. PostgreSQL: a database of its own on the server of
# scripts/pg-test.sh ($ZB_TEST_PG_URL); without it the script exits 77
# (ctest: skipped) and says so.
#   fleet_tables N FILES ROWS   N tables fleet.t1..tN of warehouse w, each
#                               FILES Parquet files of ROWS rows (one
#                               zb-table-gen run, copied, add-files)
#   sql STATEMENT               one statement on the database (psql/sqlite3)
#   fleet_rows OUT [TABLE...]   "NAME ROWS SHA256 REWRITES" per table, read
#                               by the independent reader (fleet_rows.mjs)
#   worker_start NAME ARGS...   `zamboni worker ARGS` in the background,
#                               output in $tmp/NAME.log, pid in ${NAME}_pid
#   worker_wait NAME SECS       waits for it; its exit in ${NAME}_rc (124:
#                               still running after SECS, then killed)
#   wait_until SECS CMD...      polls CMD every 0.1 s; 1 when it never held
#   task_state TABLE OP         the live task's state, "" when none
# Every worker started here is killed (and continued) on exit.
fleet_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
gen=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
node=$3
case "$node" in */*) node=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") ;; esac
backend=$4
set -- "$1"
. "$fleet_here/../cli/harness.sh"
fleet_pids=""
fleet_db=""
fleet_cleanup() {
    local p
    for p in $fleet_pids; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
    for p in $fleet_pids; do wait "$p" 2>/dev/null; done
    if [ -n "$fleet_db" ]; then
        psql "$ZB_TEST_PG_URL" -qAt -c "DROP DATABASE IF EXISTS $fleet_db WITH (FORCE)" >/dev/null 2>&1
    fi
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap fleet_cleanup EXIT
export ZAMBONI_WAREHOUSE=w
# A budget of its own: no warning about the machine's memory everywhere.
export ZAMBONI_MEMORY_BUDGET_BYTES=1073741824
root=$ZAMBONI_ROOT

case "$backend" in
    sqlite)
        : >"$root/catalog.db"
        fleet_url=sqlite:$root/catalog.db
        sql() { sqlite3 -batch -noheader "$root/catalog.db" "$1"; }
        ;;
    pg)
        if [ -z "${ZB_TEST_PG_URL:-}" ]; then
            echo "SKIP: ZB_TEST_PG_URL is not set (run under: bash scripts/pg-test.sh run ctest ...)"
            exit 77
        fi
        command -v psql >/dev/null || { echo "SKIP: psql not found"; exit 77; }
        fleet_db=zbfleet_$(basename "$0" .sh | tr -c 'a-z0-9_\n' _)_$$
        psql "$ZB_TEST_PG_URL" -qAt -v ON_ERROR_STOP=1 -c "CREATE DATABASE $fleet_db" >/dev/null ||
            { echo "FAIL cannot create database $fleet_db"; exit 1; }
        fleet_url=${ZB_TEST_PG_URL%/*}/$fleet_db
        sql() { psql "$fleet_url" -qAt -v ON_ERROR_STOP=1 -c "$1"; }
        ;;
    *)
        echo "usage: $0 ZAMBONI ZB_TABLE_GEN NODE sqlite|pg"
        exit 2
        ;;
esac
export ZAMBONI_URI=$fleet_url ZAMBONI_QUEUE_URI=$fleet_url
echo "fleet: $backend database ${fleet_db:-$root/catalog.db}"

# Every maintenance operation due at once (as the demo's configuration):
# expire keeps one snapshot, rewrite-manifests from two manifests.
mkdir -p "$root/configs/w"
cat >"$root/configs/w/table-config.json" <<'JSON'
{
  "version": 2,
  "warehouse": "w",
  "defaults": {
    "min_input_files": 2,
    "retention": {
      "expire_snapshots": {"enabled": true, "max_snapshot_age_days": 0, "min_snapshots_to_keep": 1},
      "remove_orphan_files": {"enabled": true, "older_than_days": 3},
      "remove_dangling_deletes": {"enabled": true},
      "rewrite_manifests": {"enabled": true, "min_input_manifests": 2}
    }
  }
}
JSON

# fleet_tables N FILES ROWS: two appends per table (two snapshots, two
# manifests), each half of the files.
fleet_tables() {
    local n=$1 files=$2 rows=$3 i half
    half=$(( files / 2 > 0 ? files / 2 : 1 ))
    "$gen" --sqlite "$tmp/gen.db" --table g.src --location "$tmp/gen" \
        --procs 1 --appends "$files" --rows "$rows" >/dev/null ||
        { echo "FAIL zb-table-gen"; exit 1; }
    ls "$tmp/gen/g/src/data/"*.parquet | LC_ALL=C sort >"$tmp/gen.files"
    for i in $(seq 1 "$n"); do
        mkdir -p "$root/src/t$i/a" "$root/src/t$i/b"
        head -n "$half" "$tmp/gen.files" | xargs cp -t "$root/src/t$i/a"
        tail -n +"$((half + 1))" "$tmp/gen.files" | xargs -r cp -t "$root/src/t$i/b"
        run add-files --create --source "$root/src/t$i/a" "fleet.t$i" ||
            { bad "add_files_t$i" "exit $?"; exit 1; }
        if [ -n "$(ls "$root/src/t$i/b")" ]; then
            run add-files --source "$root/src/t$i/b" "fleet.t$i" ||
                { bad "add_files_b_t$i" "exit $?"; exit 1; }
        fi
    done
    fleet_n=$n
}

metadata_of() {
    sql "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = 'w' AND table_namespace = 'fleet' AND table_name = '$1'" | sed 's/^file://'
}

# fleet_rows OUT [TABLE...]: default every table of fleet_tables
fleet_rows() {
    local outf=$1 t
    shift
    local list=("$@")
    [ ${#list[@]} -gt 0 ] || for t in $(seq 1 "$fleet_n"); do list+=("t$t"); done
    for t in "${list[@]}"; do
        echo "$t $(metadata_of "$t") $root/warehouses/w/fleet/$t"
    done | "$node" "$fleet_here/fleet_rows.mjs" >"$outf" 2>"$outf.err"
}

# rows_same NAME BEFORE AFTER: the rows and their hash of every table equal
rows_same() {
    if [ -s "$2" ] && cmp -s <(cut -d' ' -f1-3 "$2") <(cut -d' ' -f1-3 "$3"); then
        ok "$1 ($(awk '{s += $2} END {print s}' "$3") live rows in $(wc -l <"$3") table(s))"
    else
        echo "FAIL $1: $(diff <(cut -d' ' -f1-3 "$2") <(cut -d' ' -f1-3 "$3") | head -6) $(head -c 600 "$3.err")"
        fail=$((fail + 1))
    fi
}

worker_start() {
    local name=$1
    shift
    "$zb" worker "$@" >"$tmp/$name.log" 2>&1 </dev/null &
    printf -v "${name}_pid" '%s' "$!"
    fleet_pids="$fleet_pids $!"
}

worker_wait() {
    local name=$1 secs=$2 pidvar="${1}_pid" i
    local pid=${!pidvar}
    for i in $(seq 1 $((secs * 10))); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -CONT "$pid" 2>/dev/null
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        printf -v "${name}_rc" '%s' 124
        return
    fi
    wait "$pid"
    printf -v "${name}_rc" '%s' "$?"
}

wait_until() {
    local end=$(( $(date +%s) + $1 ))
    shift
    while [ "$(date +%s)" -lt "$end" ]; do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

task_state() {
    sql "SELECT state FROM zamboni_tasks WHERE warehouse = 'w' AND table_name = 'fleet.$1' AND operation = '$2'"
}

# show_log NAME: a worker's output under a failure
show_log() { sed "s/^/     $1: /" "$tmp/$1.log" | tail -${2:-12}; }

# Two size classes, the same memory per core (issue 17): a lost attempt
# runs again in "large".
export ZAMBONI_SIZE_CLASSES='[{"name":"small","cores":1,"memory":"512Mi","max_jobs":1},{"name":"large","cores":2,"memory":"1Gi","max_jobs":1}]'
# The worker's test-only pause before each compaction group commits
# (src/service/worker/worker.h), so a signal lands in the middle.
fleet_slow_var=ZB_TEST_WORKER_GROUP_DELAY_MS
slow() { export "$fleet_slow_var=$1"; }

# attempts TABLE OP: "attempt outcome" lines of the table's task, oldest first
attempts() {
    sql "SELECT attempt, outcome FROM zamboni_attempts WHERE table_name = 'fleet.$1' AND operation = '$2' ORDER BY attempt"
}
# data_files TABLE: Parquet files under the table's data folder
data_files() { find "$root/warehouses/w/fleet/$1" -name '*.parquet' 2>/dev/null | wc -l; }
