#!/usr/bin/env bash
# Compaction of a table stored in an S3 server against the same table on
# local disk, as a user runs it (issue 16's Performance section), and
# remove-orphans listing a large table location on S3.
#
# The store is s3rver on loopback (tests/s3/s3rver.mjs); the input is the
# 2,000-file 10M-row bench table of compact_vs_duckdb.sh (same generator,
# same cache), uploaded with an independent client (bench/s3_bench.mjs,
# @aws-sdk/client-s3). Tables on S3 commit through a catalog, so every
# table of the run is registered in one SQLite catalog: `zamboni
# add-files NS.T --source DIR_OR_URI --create --local-warehouse WH`
# (untimed), then the timed step `zamboni compact NS.T
# --target-file-size-bytes 268435456 --memory-budget-bytes 536870912`, in
# one invocation, alternating per pair:
#   local   source and warehouse on local disk;
#   s3      source s3://BUCKET/data, warehouse s3://BUCKET/wh, straight
#           to the server (--s3-endpoint);
#   s3+20ms the same through tests/s3/fault_proxy.mjs adding DELAY_MS (20)
#           to every request, what a real store's first byte costs; a byte
#           meter (s3_bench.mjs meter) sits between proxy and server.
# Settings as a user passes them: --s3-endpoint URL,
# ZAMBONI_S3_PATH_STYLE_ACCESS=true, AWS_ACCESS_KEY_ID /
# AWS_SECRET_ACCESS_KEY / AWS_REGION (s3rver's keys).
# Prints per run the compaction's wall seconds and peak RSS
# (build/bench/run_child), then medians and the throughput ratios
# S3/local (local median / S3 median) with issue 16's targets (0.8 and
# 0.7); the server's own ceiling (the independent client GETting every
# object of the table, 16 at once: objects/s, MB/s), directly and through
# the delay; from the delayed runs, requests per data file read (the
# proxy's per-key counts; target at most 2 for files under 1 MiB) and
# bytes read from the data files against their size (the meter's).
# Then remove-orphans: ORPHANS objects (100,000) of 100 bytes uploaded in
# parallel under a catalog table's location on S3, `zamboni
# remove-orphans NS.T --dry-run` timed once at a tenth of them and once
# at all: objects/s and peak RSS (bounded memory: the two RSS figures).
# Checks: each compaction rewrote every input file, and `zamboni scan
# --count` of each compacted table gives the input's rows (PASS/FAIL).
#
# Usage: bench/s3_compact.sh [--files N] [--rows-per-file N] [--pairs N]
#                            [--orphans N] [--delay-ms N]
#   quick: bench/s3_compact.sh --files 40 --rows-per-file 2000 --pairs 1 --orphans 2000
# Environment (defaults are the full figure; the flags above override):
#   ZAMBONI=build/zamboni  RUN_CHILD=build/bench/run_child  ZB_NODE=node
#   ZB_BENCH_DATA=/tmp/zb-bench-data   cached inputs, made when missing
#   ZB_BENCH_WORK=/tmp/zb-bench-work   catalog, tables, the server's folder
#   FILES=2000 ROWS_PER_FILE=5000 PAIRS=3 ORPHANS=100000 DELAY_MS=20
#   MEMORY_BUDGET_BYTES=536870912  TARGET_FILE_SIZE_BYTES=268435456
#   ZB_EXTRA_FLAGS=""                  more compact flags
# Exit: 0 every check passed, 1 a check failed, 2 a flag was refused or a
# tool is missing; a failed run exits with its code. Targets are printed
# as MET or MISSED and do not change the exit code.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh

files=${FILES:-2000}
rows_per=${ROWS_PER_FILE:-5000}
pairs=${PAIRS:-3}
orphans=${ORPHANS:-100000}
delay_ms=${DELAY_MS:-20}
while [ $# -gt 0 ]; do
    case $1 in
    --files) files=$2; shift 2 ;;
    --rows-per-file) rows_per=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --orphans) orphans=$2; shift 2 ;;
    --delay-ms) delay_ms=$2; shift 2 ;;
    *) echo "usage: $0 [--files N] [--rows-per-file N] [--pairs N] [--orphans N] [--delay-ms N]" >&2; exit 2 ;;
    esac
done
budget=${MEMORY_BUDGET_BYTES:-536870912}
target=${TARGET_FILE_SIZE_BYTES:-268435456}
work=${ZB_BENCH_WORK:-/tmp/zb-bench-work}/s3_compact
node=${ZB_NODE:-node}
bucket=zb-bench
read -r -a extra <<<"${ZB_EXTRA_FLAGS:-}"

bench_need_tools
for tool in "$node" sqlite3 curl; do
    command -v "$tool" >/dev/null || { echo "ERROR: $tool is needed" >&2; exit 2; }
done
bench_need_flags add-files --source --create --local-warehouse --uri --s3-endpoint
bench_need_flags compact --target-file-size-bytes --memory-budget-bytes --uri --s3-endpoint
bench_need_flags remove-orphans --dry-run --uri --s3-endpoint
bench_need_flags scan --count --uri --s3-endpoint

data=$(bench_data events "$files" "$rows_per")
mapfile -t inputs < <(bench_parquet_files "$data")
rows_total=$((files * rows_per))
data_bytes=$(du -sb "$data" | cut -f1)

pids=""
cleanup() {
    local p
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
rm -rf "$work"
mkdir -p "$work/root" "$work/wh" "$work/s3data"

# No credentials, profile or endpoint of the machine's; s3rver's keys.
for v in $(env | grep -o '^AWS_[A-Z0-9_]*' || true); do unset "$v"; done
unset ZAMBONI_S3_ENDPOINT
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
export ZAMBONI_S3_PATH_STYLE_ACCESS=true
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
# No zamboni.yml of the machine's: a root of our own, our catalog.
export ZAMBONI_ROOT="$work/root"
catalog=$work/catalog.db
export ZAMBONI_URI=sqlite:$catalog ZAMBONI_WAREHOUSE=bench

# start_listening NAME CMD...: CMD in the background; waits for its
# `listening PORT` line and sets ${NAME}_port.
start_listening() {
    local name=$1 log=$work/$1.out i port=""
    shift
    "$@" >"$log" 2>"$work/$name.err" &
    local pid=$!
    pids="$pids $pid"
    for i in $(seq 1 300); do
        port=$(sed -n '1s/^listening \([0-9][0-9]*\)$/\1/p' "$log" 2>/dev/null)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "ERROR: $name did not start: $(head -c 1000 "$work/$name.err")" >&2
        exit 2
    fi
    printf -v "${name}_port" '%s' "$port"
}

s3_port="" meter_port="" proxy_port="" # set by start_listening
# s3rver makes ListObjectsV2 continuation tokens with DES, which Node's
# OpenSSL 3 has only in its legacy provider: without it every listing
# longer than 1,000 keys answers 500.
start_listening s3 "$node" --openssl-legacy-provider tests/s3/s3rver.mjs --dir "$work/s3data" --port 0 --bucket "$bucket"
s3_url=http://127.0.0.1:$s3_port
start_listening meter "$node" bench/s3_bench.mjs meter --target "$s3_url"
meter_url=http://127.0.0.1:$meter_port
start_listening proxy "$node" tests/s3/fault_proxy.mjs --target "$meter_url" --listen 0 --delay-ms "$delay_ms"
proxy_url=http://127.0.0.1:$proxy_port

# The independent client always talks to the server itself.
client() { ZAMBONI_S3_ENDPOINT=$s3_url "$node" bench/s3_bench.mjs "$@" </dev/null; }
client_via() { local url=$1; shift; ZAMBONI_S3_ENDPOINT=$url "$node" bench/s3_bench.mjs "$@" </dev/null; }

sqlite3 "$catalog" "
  CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL,
    table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL,
    metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000),
    iceberg_type VARCHAR(5),
    PRIMARY KEY (catalog_name, table_namespace, table_name));
  CREATE TABLE iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL,
    namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255),
    property_value VARCHAR(1000),
    PRIMARY KEY (catalog_name, namespace, property_key));"

echo "input: ${#inputs[@]} files, $data_bytes bytes, $rows_total rows ($data)"
echo "zamboni: $ZB ($("$ZB" --version 2>&1 | head -n 1)); $(nproc) cores; s3rver at $s3_url, +${delay_ms} ms proxy at $proxy_url"
t0=$(date +%s.%N)
client put "$data" "s3://$bucket/data" 16 >/dev/null
printf 'uploaded %d files in %.1f s\n' "${#inputs[@]}" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
cat "${inputs[@]}" >/dev/null # the local side starts from the page cache

# ceiling LABEL URL: the independent client GETs every data object.
ceiling() {
    local line n b s
    line=$(client_via "$2" get-all "s3://$bucket/data" 16)
    n=${line#objects=}; n=${n%% *}
    b=${line#*bytes=}; b=${b%% *}
    s=${line##*seconds=}
    printf '  ceiling %-8s %d objects in %.3f s: %.0f objects/s, %.1f MB/s (16 GETs at once, @aws-sdk/client-s3)\n' \
        "$1" "$n" "$s" "$(bench_ratio "$n" "$s")" "$(awk -v b="$b" -v s="$s" 'BEGIN { printf "%.1f", b / 1e6 / s }')"
    echo "$s" >"$work/ceiling-$1.s"
}
echo "== the server's own ceiling"
ceiling direct "$s3_url"
ceiling "+${delay_ms}ms" "$proxy_url"

common=(--memory-budget-bytes "$budget")
declare -A walls rss
failed=0
check_line() { # WHAT OK
    if [ "$2" = yes ]; then echo "  PASS $1"; else echo "  FAIL $1"; failed=1; fi
}

# run CONFIG I: add-files (untimed) then the timed compaction of a fresh
# table bench.CONFIG_I; its wall and RSS are recorded under CONFIG.
run() {
    local config=$1 i=$2 name source wh endpoint=() via=() delayed=0 res log rewrote count
    name=bench.${config//[^a-z0-9]/_}_$i
    res=$work/$config-$i.result
    log=$work/$config-$i.log
    case $config in
    local) source=$data wh=$work/wh ;;
    s3) source=s3://$bucket/data wh=s3://$bucket/wh endpoint=(--s3-endpoint "$s3_url")
        via=("${endpoint[@]}") ;;
    *) source=s3://$bucket/data wh=s3://$bucket/wh endpoint=(--s3-endpoint "$s3_url")
       via=(--s3-endpoint "$proxy_url") delayed=1 ;;
    esac
    bench_run_zb "$work/add.result" "$work/add.log" \
        "$ZB" add-files "$name" --source "$source" --create --local-warehouse "$wh" \
        "${common[@]}" ${endpoint[@]+"${endpoint[@]}"}
    if [ "$delayed" = 1 ]; then
        curl -sf -X POST "$proxy_url/__proxy/reset" >/dev/null
        curl -sf -X POST "$meter_url/__meter/reset" >/dev/null
    fi
    bench_run_zb "$res" "$log" "$ZB" compact "$name" --target-file-size-bytes "$target" \
        "${common[@]}" ${via[@]+"${via[@]}"} ${extra[@]+"${extra[@]}"}
    if [ "$delayed" = 1 ]; then
        curl -sf "$proxy_url/__proxy/stats" >"$work/$config-$i.proxy.json"
        curl -sf "$meter_url/__meter/stats" >"$work/$config-$i.meter.json"
    fi
    walls[$config]+=" $(bench_field "$res" wall_s)"
    rss[$config]+=" $(bench_field "$res" maxrss_kib)"
    rewrote=$(sed -n 's/.*: rewrote \([0-9][0-9]*\) file(s).*/\1/p' "$log" | tail -n 1)
    printf '  %-8s pair %d: compact %7.3f s, peak RSS %5d MiB, %.1f MB/s of input, rewrote %s file(s)\n' \
        "$config" "$i" "$(bench_field "$res" wall_s)" "$(bench_mib "$(bench_field "$res" maxrss_kib)")" \
        "$(awk -v b="$data_bytes" -v s="$(bench_field "$res" wall_s)" 'BEGIN { printf "%.1f", b / 1e6 / s }')" \
        "${rewrote:-?}"
    check_line "$config pair $i: compact rewrote all $files input files" "$([ "${rewrote:-0}" = "$files" ] && echo yes || echo no)"
    count=$("$ZB" scan --count "$name" "${common[@]}" ${endpoint[@]+"${endpoint[@]}"} 2>"$work/scan.err" || true)
    check_line "$config pair $i: scan --count gives $rows_total rows (got ${count:-error: $(head -c 200 "$work/scan.err")})" \
        "$([ "$count" = "$rows_total" ] && echo yes || echo no)"
    # The compacted tables are not needed again: keep the disk small, and
    # drop them from the catalog (remove-orphans loads every table of it).
    case $config in
    local) rm -rf "$work/wh/bench/${name#bench.}" ;;
    *) client rm "s3://$bucket/wh/bench/${name#bench.}" ;;
    esac
    sqlite3 "$catalog" "DELETE FROM iceberg_tables WHERE table_name = '${name#bench.}'"
}

dl=s3+${delay_ms}ms
echo "== compact (binpack), $pairs pairs: local, s3, $dl"
for ((i = 1; i <= pairs; i++)); do
    run local "$i"
    run s3 "$i"
    run "$dl" "$i"
done

echo "== medians of $pairs (throughput S3/local = local median / S3 median)"
targets_missed=0
target_line() { # WHAT OK
    if [ "$2" = yes ]; then echo "TARGET MET    $1"; else echo "TARGET MISSED $1"; targets_missed=1; fi
}
# shellcheck disable=SC2086 # space-separated numbers
{
    ml=$(bench_median ${walls[local]})
    ms=$(bench_median ${walls[s3]})
    md=$(bench_median ${walls[$dl]})
    rl=$(printf '%s\n' ${rss[local]} | sort -n | tail -n 1)
    rs=$(printf '%s\n' ${rss[s3]} | sort -n | tail -n 1)
    rd=$(printf '%s\n' ${rss[$dl]} | sort -n | tail -n 1)
}
printf '  local   %7.3f s (peak RSS %d MiB)\n' "$ml" "$(bench_mib "$rl")"
printf '  s3      %7.3f s (peak RSS %d MiB)  S3/local throughput %sx\n' "$ms" "$(bench_mib "$rs")" "$(bench_ratio "$ml" "$ms")"
printf '  %-7s %7.3f s (peak RSS %d MiB)  S3/local throughput %sx\n' "$dl" "$md" "$(bench_mib "$rd")" "$(bench_ratio "$ml" "$md")"
printf '  for scale: the ceiling GETs every object in %s s directly, %s s through +%s ms\n' \
    "$(cat "$work/ceiling-direct.s")" "$(cat "$work/ceiling-+${delay_ms}ms.s")" "$delay_ms"
r=$(bench_ratio "$ml" "$ms")
target_line "S3 throughput ${r}x local's (issue 16: at least 0.8x)" "$(bench_le 0.8 "$r" && echo yes || echo no)"
r=$(bench_ratio "$ml" "$md")
target_line "S3 +${delay_ms} ms throughput ${r}x local's (issue 16: at least 0.7x)" "$(bench_le 0.7 "$r" && echo yes || echo no)"

echo "== requests and bytes of the data files (last $dl run: the proxy's per-key counts, the meter's bytes)"
client sizes "s3://$bucket/data" >"$work/sizes.txt"
# shellcheck disable=SC2016 # JavaScript, not shell
"$node" -e '
const fs = require("fs");
const [proxyFile, meterFile, sizesFile] = process.argv.slice(1);
const proxy = JSON.parse(fs.readFileSync(proxyFile, "utf8"));
const meter = JSON.parse(fs.readFileSync(meterFile, "utf8"));
const size = {};
for (const l of fs.readFileSync(sizesFile, "utf8").split("\n"))
  if (l) { const i = l.indexOf(" "); size[l.slice(i + 1)] = Number(l.slice(0, i)); }
let files = 0, small = 0, smallOk = 0, reqs = 0, max = 0, read = 0, need = 0;
for (const [key, n] of Object.entries(proxy.requests.byKey)) {
  if (!(key in size)) continue;            /* only the input data files */
  files++; reqs += n; max = Math.max(max, n);
  read += meter.bytesByKey[key] ?? 0; need += size[key];
  if (size[key] < (1 << 20)) { small++; if (n <= 2) smallOk++; }
}
const total = proxy.requests.total;
const ops = Object.entries(proxy.requests.byOp).map(([k, v]) => `${k} ${v}`).join(", ");
console.log(`  data files read: ${files}; requests per file: mean ${(reqs / Math.max(files, 1)).toFixed(2)}, max ${max}`);
console.log(`  files under 1 MiB read in at most 2 requests: ${smallOk} of ${small}`);
console.log(`  bytes read from the data files: ${read} of ${need} needed (${(read / Math.max(need, 1)).toFixed(3)}x)`);
console.log(`  all requests of the compaction: ${total} (${ops})`);
console.log(`RESULT_SMALL_OK=${small > 0 && smallOk === small ? 1 : 0}`);
' "$work/$dl-$pairs.proxy.json" "$work/$dl-$pairs.meter.json" "$work/sizes.txt" >"$work/requests.txt"
grep -v '^RESULT_' "$work/requests.txt"
target_line "data files under 1 MiB read in at most 2 requests each (issue 16)" \
    "$(grep -q '^RESULT_SMALL_OK=1' "$work/requests.txt" && echo yes || echo no)"

if [ "$orphans" -gt 0 ]; then
    echo "== remove-orphans --dry-run listing $orphans objects under a table's location on S3"
    # A catalog table on S3 of two data files; the objects go under its
    # location, where remove-orphans lists.
    mkdir -p "$work/orph-src"
    cp "${inputs[0]}" "${inputs[1]}" "$work/orph-src/"
    client put "$work/orph-src" "s3://$bucket/orph-src" 4 >/dev/null
    bench_run_zb "$work/add.result" "$work/add.log" \
        "$ZB" add-files bench.orphans --source "s3://$bucket/orph-src" --create \
        --local-warehouse "s3://$bucket/wh" --s3-endpoint "$s3_url" "${common[@]}"
    loc=s3://$bucket/wh/bench/orphans
    first=$((orphans / 10))
    done_n=0
    for n in "$first" "$orphans"; do
        t0=$(date +%s.%N)
        client put-many "$loc/data/junk" "$done_n" "$n" 100 64 >/dev/null
        printf '  uploaded %d objects in %.1f s\n' $((n - done_n)) "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
        done_n=$n
        res=$work/orphans-$n.result
        bench_run_zb "$res" "$work/orphans-$n.log" \
            "$ZB" remove-orphans bench.orphans --dry-run --s3-endpoint "$s3_url" "${common[@]}"
        printf '  %6d objects: %7.3f s, %.0f objects/s, peak RSS %d MiB\n' "$n" \
            "$(bench_field "$res" wall_s)" "$(bench_ratio "$n" "$(bench_field "$res" wall_s)")" \
            "$(bench_mib "$(bench_field "$res" maxrss_kib)")"
        grep -iE 'orphan|listed|file' "$work/orphans-$n.log" | tail -n 3 | sed 's/^/    | /'
    done
fi

if [ "$failed" -ne 0 ]; then
    echo "RESULT: FAIL (a check failed)"
    exit 1
fi
if [ "$targets_missed" -ne 0 ]; then
    echo "RESULT: checks PASS; a target was MISSED (see TARGET lines)"
else
    echo "RESULT: checks PASS; targets MET"
fi
