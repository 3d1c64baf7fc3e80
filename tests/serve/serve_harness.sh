# tests/serve/serve_harness.sh - sourced by the `zamboni serve` end-to-end
# scripts (issue 18, "Done when"); sources tests/cli/harness.sh ($zb, $tmp,
# ok/bad/run/expect, harness_done). Arguments of every serve script:
#   ZAMBONI ZB_TABLE_GEN NODE
# Real PostgreSQL only: a database of its own on the server of
# scripts/pg-test.sh ($ZB_TEST_PG_URL), the SQL catalog and the queue in
# it (ZAMBONI_URI = ZAMBONI_QUEUE_URI); without the URL the script exits
# 77 (ctest: skipped) and says so.
#   wh_config W JSON            configs/W/table-config.json
#   mk_table W NS.T KIND        a table of known need (add-files of copies
#                               of one zb-table-gen run's Parquet files):
#                                 small    6 small files, one snapshot
#                                 old      1 file per snapshot, 2 snapshots
#                                          (the table's block makes them
#                                          expirable: old_block)
#                                 healthy  1 file, one snapshot
#   table_rows OUT W/NS.T...    "W/NS.T ROWS SHA256 REWRITES" per table, read
#                               by the independent reader (fleet_rows.mjs)
#   sql STATEMENT               one statement on the database (psql)
#   free_port                   a free loopback port
#   proc_start NAME ARGS...     `zamboni ARGS` in the background, output in
#                               $tmp/NAME.log, pid in ${NAME}_pid
#   serve_start NAME ARGS...    `zamboni serve --listen 127.0.0.1:PORT ARGS`
#                               (${NAME}_port), waits until /livez answers
#   proc_wait NAME SECS         waits for it; its exit in ${NAME}_rc (124:
#                               still running after SECS, then killed)
#   http NAME PATH              GET; the body in $tmp/body, code in $code
#   metrics NAME OUT            /metrics parsed by serve_metrics.mjs (the
#                               npm parser): "NAME{labels} VALUE" lines
#   mval FILE NAME [LABEL...]   sum of NAME's samples whose labels hold
#                               every LABEL (k="v"); "" when there is none
#   demand NAME CLASS           /demand?class=CLASS's demand figure
#   wait_until SECS CMD...      polls CMD every 0.2 s; 1 when it never held
#   show_log NAME [N]           a process's output under a failure
# Every process started here is killed (and continued) on exit.
serve_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
gen=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
node=$3
case "$node" in */*) node=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") ;; esac
set -- "$1"
. "$serve_here/../cli/harness.sh"
serve_pids=""
serve_db=""
serve_extra_cleanup=:
serve_cleanup() {
    local p
    for p in $serve_pids; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
    for p in $serve_pids; do wait "$p" 2>/dev/null; done
    $serve_extra_cleanup
    if [ -n "$serve_db" ] && [ -n "${ZB_TEST_PG_URL:-}" ]; then
        psql "$ZB_TEST_PG_URL" -qAt -c "DROP DATABASE IF EXISTS $serve_db WITH (FORCE)" >/dev/null 2>&1
    fi
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap serve_cleanup EXIT
export ZAMBONI_MEMORY_BUDGET_BYTES=1073741824
root=$ZAMBONI_ROOT

if [ -z "${ZB_TEST_PG_URL:-}" ]; then
    echo "SKIP: ZB_TEST_PG_URL is not set (run under: bash scripts/pg-test.sh run ctest ...)"
    exit 77
fi
for c in psql curl jq python3; do
    command -v "$c" >/dev/null || { echo "SKIP: $c not found"; exit 77; }
done
serve_db=zbserve_$(basename "$0" .sh | tr -c 'a-z0-9_\n' _)_$$
psql "$ZB_TEST_PG_URL" -qAt -v ON_ERROR_STOP=1 -c "CREATE DATABASE $serve_db" >/dev/null ||
    { echo "FAIL cannot create database $serve_db"; exit 1; }
serve_url=${ZB_TEST_PG_URL%/*}/$serve_db
sql() { psql "$serve_url" -qAt -v ON_ERROR_STOP=1 -c "$1"; }
export ZAMBONI_URI=$serve_url ZAMBONI_QUEUE_URI=$serve_url
echo "serve: database $serve_db"

wh_config() {
    mkdir -p "$root/configs/$1"
    printf '%s\n' "$2" >"$root/configs/$1/table-config.json"
}

# The table block of an "old" table: its snapshots past retention (any
# age), too few files to compact, too few manifests to rewrite.
old_block='{"min_input_files": 3, "retention": {"expire_snapshots": {"enabled": true, "max_snapshot_age_days": 0, "min_snapshots_to_keep": 1}, "remove_orphan_files": {"enabled": false}, "rewrite_manifests": {"enabled": true, "min_input_manifests": 3}}}'

gen_files() {
    [ -s "$tmp/gen.files" ] && return 0
    "$gen" --sqlite "$tmp/gen.db" --table g.src --location "$tmp/gen" \
        --procs 1 --appends 6 --rows 20 >/dev/null ||
        { echo "FAIL zb-table-gen"; exit 1; }
    ls "$tmp/gen/g/src/data/"*.parquet | LC_ALL=C sort >"$tmp/gen.files"
}

# mk_table W NS.T KIND
mk_table() {
    local w=$1 t=$2 kind=$3 d="$root/src/$1/$2"
    gen_files
    mkdir -p "$d/a" "$d/b"
    case "$kind" in
        small) head -n 6 "$tmp/gen.files" | xargs cp -t "$d/a" ;;
        old) sed -n 1p "$tmp/gen.files" | xargs cp -t "$d/a"
             sed -n 2p "$tmp/gen.files" | xargs cp -t "$d/b" ;;
        healthy) sed -n 1p "$tmp/gen.files" | xargs cp -t "$d/a" ;;
        *) echo "FAIL mk_table: kind $kind"; exit 1 ;;
    esac
    ZAMBONI_WAREHOUSE=$w run add-files --create --source "$d/a" "$t" ||
        { bad "add_files_${w}_$t" "exit $?"; exit 1; }
    if [ -n "$(ls "$d/b")" ]; then
        ZAMBONI_WAREHOUSE=$w run add-files --source "$d/b" "$t" ||
            { bad "add_files_b_${w}_$t" "exit $?"; exit 1; }
    fi
}

metadata_of() {
    local ns=${2%.*} tb=${2##*.}
    sql "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = '$1' AND table_namespace = '$ns' AND table_name = '$tb'" | sed 's/^file://'
}

# table_rows OUT W/NS.T...
table_rows() {
    local outf=$1 x w t
    shift
    for x in "$@"; do
        w=${x%%/*} t=${x#*/}
        echo "$x $(metadata_of "$w" "$t") $root/warehouses/$w/${t%.*}/${t##*.}"
    done | "$node" "$serve_here/../fleet/fleet_rows.mjs" >"$outf" 2>"$outf.err"
}

rows_same() {
    if [ -s "$2" ] && cmp -s <(cut -d' ' -f1-3 "$2") <(cut -d' ' -f1-3 "$3"); then
        ok "$1 ($(awk '{s += $2} END {print s}' "$3") live rows in $(wc -l <"$3") table(s))"
    else
        echo "FAIL $1: $(diff <(cut -d' ' -f1-3 "$2") <(cut -d' ' -f1-3 "$3") | head -6) $(head -c 600 "$3.err")"
        fail=$((fail + 1))
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

proc_start() {
    local name=$1
    shift
    "$zb" "$@" >"$tmp/$name.log" 2>&1 </dev/null &
    printf -v "${name}_pid" '%s' "$!"
    serve_pids="$serve_pids $!"
}

serve_start() {
    local name=$1 port
    shift
    port=$(free_port)
    printf -v "${name}_port" '%s' "$port"
    proc_start "$name" serve --listen "127.0.0.1:$port" "$@"
    if ! wait_until 20 http_ok "$name" /livez; then
        bad "${name}_started" "no /livez on port $port"
        show_log "$name"
        return 1
    fi
}

proc_wait() {
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

# http NAME PATH [CURL_ARGS...]: $code ("000": no answer), body in $tmp/body
http() {
    local name=$1 path=$2 portvar="${1}_port"
    shift 2
    local auth=()
    [ -n "${SERVE_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $SERVE_TOKEN")
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' --max-time "${HTTP_MAX_TIME:-10}" \
        "${auth[@]}" "$@" "http://127.0.0.1:${!portvar}$path")
}
http_ok() { http "$1" "$2" && [ "$code" = 200 ]; }

metrics() {
    http "$1" /metrics
    [ "$code" = 200 ] || { echo "/metrics: HTTP $code" >"$2.err"; : >"$2"; return 1; }
    cp "$tmp/body" "$2.txt"
    "$node" "$serve_here/serve_metrics.mjs" <"$2.txt" >"$2" 2>"$2.err"
}

# mval FILE NAME [LABEL...]
mval() {
    local f=$1 name=$2
    shift 2
    awk -v name="$name" -v want="$*" '
        {
            i = index($1, "{"); n = i ? substr($1, 1, i - 1) : $1
            if (n != name) next
            lab = i ? substr($1, i) : ""
            k = split(want, w, " ")
            for (j = 1; j <= k; j++) if (index(lab, w[j]) == 0) next
            s += $2; found = 1
        }
        END { if (found) printf "%.10g\n", s }' "$f"
}

demand() {
    http "$1" "/demand?class=$2"
    [ "$code" = 200 ] && jq -er '.demand' "$tmp/body"
}

wait_until() {
    local end=$(( $(date +%s) + $1 ))
    shift
    while [ "$(date +%s)" -lt "$end" ]; do
        "$@" && return 0
        sleep 0.2
    done
    return 1
}

show_log() { sed "s/^/     $1: /" "$tmp/$1.log" | tail -"${2:-12}"; }

# live_tasks [CLASS]: scheduled, running and should-stop tasks
live_tasks() {
    sql "SELECT count(*) FROM zamboni_tasks WHERE state <> 'excluded'${1:+ AND size_class = '$1'}"
}

# A fake live task by SQL (insert_task W TABLE OP STATE PRIORITY CLASS
# [SCHEDULED_FOR_OFFSET_MS]); "running" ones hold a lease for an hour.
insert_task() {
    local rank
    case "$3" in
        compact) rank=0 ;; apply-properties) rank=1 ;; remove-dangling-deletes) rank=2 ;;
        rewrite-manifests) rank=3 ;; expire) rank=4 ;; remove-orphans) rank=5 ;;
    esac
    local now="(extract(epoch from clock_timestamp()) * 1000)::bigint"
    local lease=NULL worker=NULL attempt=0 msg=NULL
    if [ "$4" = running ]; then
        lease="$now + 3600000" worker="'fake-worker'" attempt=1
    fi
    if [ "$4" = excluded ]; then attempt=5 msg="'failed 5 times (test)'"; fi
    sql "INSERT INTO zamboni_tasks (warehouse, table_name, operation, op_rank, size_class, priority, state, scheduled_for_ms, attempt, max_attempts, lease_expires_ms, heartbeat_ms, created_ms, worker_id, last_message) VALUES ('$1', '$2', '$3', $rank, '$6', $5, '$4', $now + ${7:-0}, $attempt, 5, $lease, NULL, $now, $worker, $msg) RETURNING id"
}

# mval_re FILE NAME_ERE [LABEL...]: as mval over every name matching the
# whole ERE (the exporter's exact names are its own; the tests name what
# they mean: "added", "evicted" ...)
mval_re() {
    local f=$1 re=$2 n s="" v
    shift 2
    for n in $(sed 's/[{ ].*//' "$f" | LC_ALL=C sort -u | grep -E "^($re)\$"); do
        v=$(mval "$f" "$n" "$@")
        [ -n "$v" ] && s=$(awk -v a="${s:-0}" -v b="$v" 'BEGIN {printf "%.10g", a + b}')
    done
    echo "$s"
}
