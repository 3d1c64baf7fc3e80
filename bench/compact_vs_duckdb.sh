#!/usr/bin/env bash
# What a user runs to compact a table of many small files, against DuckDB
# rewriting the same files (issue 15's first "done when"): in one
# invocation, alternating A B A B, PAIRS pairs per strategy:
#   A  one timed child: `zamboni add-files T --source DIR --create` then
#      `zamboni compact T --target-file-size-bytes 268435456
#      --memory-budget-bytes 536870912` (binpack; then with
#      --sort-by "user_id, event_time"), into a fresh table folder;
#   B  `node bench/duckdb_copy.mjs 2 ...`: DuckDB's COPY of the same files
#      with 2 threads into one zstd Parquet file (ORDER BY user_id,
#      event_time for the sort case).
# Per pair: wall seconds and peak RSS (wait4's ru_maxrss of the child,
# through build/bench/run_child) of each side; then medians and the
# throughput ratio zamboni/DuckDB (DuckDB's median / zamboni's), against
# DuckDB's COPY statement time (its process time, which adds node's start
# and a count of the output, is shown beside it). Then the same zamboni runs
# with --max-concurrent-file-group-rewrites 1 (one group at a time): what
# the parallel paths add. Last, checks read by DuckDB on the last table of
# each configuration: columns, rows and the row-hash multiset of the live
# data files equal the input's; for sort, every output file in (user_id,
# event_time) order and the files' key ranges disjoint within a group.
# The generator's timestamp column is event_time (the issue's "ts").
#
# Usage: bench/compact_vs_duckdb.sh      (from anywhere; runs at the root)
# Environment (defaults are the full figure):
#   ZAMBONI=build/zamboni  RUN_CHILD=build/bench/run_child
#   ZB_BENCH_DATA=/tmp/zb-bench-data   cached inputs, made when missing
#   ZB_BENCH_WORK=/tmp/zb-bench-work   tables and DuckDB outputs (deleted)
#   FILES=2000 ROWS_PER_FILE=5000      the 10M-row set (about 538 MB)
#   PAIRS=3  DUCKDB_THREADS=2
#   MEMORY_BUDGET_BYTES=536870912  TARGET_FILE_SIZE_BYTES=268435456
#   ZB_EXTRA_FLAGS=""                  more compact flags, e.g. "--threads 2"
# Exit: 0 every check passed, 1 a check failed, 2 a flag was refused or a
# tool is missing; a failed run exits with its code. The speed and RSS
# targets are printed as MET or MISSED and do not change the exit code.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh

files=${FILES:-2000}
rows_per=${ROWS_PER_FILE:-5000}
pairs=${PAIRS:-3}
duck_threads=${DUCKDB_THREADS:-2}
budget=${MEMORY_BUDGET_BYTES:-536870912}
target=${TARGET_FILE_SIZE_BYTES:-268435456}
work=${ZB_BENCH_WORK:-/tmp/zb-bench-work}/compact_vs_duckdb
sort_cols=user_id,event_time
read -r -a extra <<<"${ZB_EXTRA_FLAGS:-}"

bench_need_tools
bench_need_flags add-files --source --create
bench_need_flags compact --target-file-size-bytes --memory-budget-bytes \
    --sort-by --max-concurrent-file-group-rewrites

data=$(bench_data events "$files" "$rows_per")
mapfile -t inputs < <(bench_parquet_files "$data")
rm -rf "$work"
mkdir -p "$work/root"
# No zamboni.yml or configs of the machine's apply: a root of our own.
export ZAMBONI_ROOT="$work/root"
echo "input: ${#inputs[@]} files, $(du -sb "$data" | cut -f1) bytes, $((files * rows_per)) rows ($data)"
echo "zamboni: $ZB ($("$ZB" --version 2>&1 | head -n 1)); $(nproc) cores"
cat "${inputs[@]}" >/dev/null # both sides start from the page cache

declare -A zb_walls zb_rss duck_copy duck_walls duck_rss last_table last_groups

# zb_run CONFIG I FLAG...: one A run into $work/CONFIG-I; records wall
# and RSS under CONFIG; keeps only the newest table of CONFIG.
zb_run() {
    local config=$1 i=$2 t res log
    shift 2
    t="$work/$config-$i"
    res="$work/$config-$i.result"
    log="$work/$config-$i.log"
    rm -rf "$t"
    bench_run_zb "$res" "$log" \
        "$ZB" add-files "$t" --source "$data" --create --then \
        "$ZB" compact "$t" --target-file-size-bytes "$target" \
        --memory-budget-bytes "$budget" "$@" ${extra[@]+"${extra[@]}"}
    zb_walls[$config]+=" $(bench_field "$res" wall_s)"
    zb_rss[$config]+=" $(bench_field "$res" maxrss_kib)"
    if [ -n "${last_table[$config]:-}" ]; then rm -rf "${last_table[$config]}"; fi
    last_table[$config]=$t
    last_groups[$config]=$(bench_groups "$log")
    printf '  %-16s %s %d: zamboni %7.3f s (add-files %s s), peak RSS %5d MiB, %s group(s)\n' \
        "$config" "$([ "$config" = "${config%-mc1}" ] && echo pair || echo run)" "$i" \
        "$(bench_field "$res" wall_s)" "$(bench_field "$res" steps_s | cut -d, -f1)" \
        "$(bench_mib "$(bench_field "$res" maxrss_kib)")" "${last_groups[$config]:-?}"
}

# duck_run STRATEGY I [--order-by=COLS]: one B run.
duck_run() {
    local strategy=$1 i=$2 res="$work/duck-$1-$2.result" log="$work/duck-$1-$2.log"
    shift 2
    bench_run_zb "$res" "$log" node bench/duckdb_copy.mjs "$@" \
        --result="$work/duck-$strategy-$i.copy" "$duck_threads" \
        "$work/duck-$strategy.parquet" "${inputs[@]}"
    duck_copy[$strategy]+=" $(bench_field "$work/duck-$strategy-$i.copy" copy_s)"
    duck_walls[$strategy]+=" $(bench_field "$res" wall_s)"
    duck_rss[$strategy]+=" $(bench_field "$res" maxrss_kib)"
    printf '  %-16s pair %d: duckdb  %7.3f s (COPY %s s), peak RSS %5d MiB\n' \
        "$strategy" "$i" "$(bench_field "$res" wall_s)" \
        "$(bench_field "$work/duck-$strategy-$i.copy" copy_s)" \
        "$(bench_mib "$(bench_field "$res" maxrss_kib)")"
}

max_kib() { printf '%s\n' "$@" | sort -n | tail -n 1; }

for strategy in binpack sort; do
    sort_flags=()
    duck_flags=()
    if [ "$strategy" = sort ]; then
        sort_flags=(--sort-by "${sort_cols//,/, }")
        duck_flags=(--order-by="$sort_cols")
    fi
    echo "== $strategy: zamboni add-files + compact${sort_flags[*]:+ ${sort_flags[*]}} vs DuckDB COPY ($duck_threads threads), $pairs pairs"
    for ((i = 1; i <= pairs; i++)); do
        zb_run "$strategy" "$i" ${sort_flags[@]+"${sort_flags[@]}"}
        duck_run "$strategy" "$i" ${duck_flags[@]+"${duck_flags[@]}"}
    done
    rm -f "$work/duck-$strategy.parquet"
done
for strategy in binpack sort; do
    sort_flags=()
    if [ "$strategy" = sort ]; then sort_flags=(--sort-by "${sort_cols//,/, }"); fi
    echo "== $strategy with --max-concurrent-file-group-rewrites 1, $pairs runs"
    for ((i = 1; i <= pairs; i++)); do
        zb_run "$strategy-mc1" "$i" ${sort_flags[@]+"${sort_flags[@]}"} \
            --max-concurrent-file-group-rewrites 1
    done
done

echo "== medians of $pairs (throughput ratio zamboni/DuckDB = DuckDB's median COPY time / zamboni's median wall)"
targets_missed=0
target_line() { # WHAT OK
    if [ "$2" = yes ]; then echo "TARGET MET    $1"; else echo "TARGET MISSED $1"; targets_missed=1; fi
}
for strategy in binpack sort; do
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    {
        zm=$(bench_median ${zb_walls[$strategy]})
        z1=$(bench_median ${zb_walls[$strategy-mc1]})
        dc=$(bench_median ${duck_copy[$strategy]})
        dw=$(bench_median ${duck_walls[$strategy]})
        zr=$(max_kib ${zb_rss[$strategy]})
        z1r=$(max_kib ${zb_rss[$strategy-mc1]})
        dr=$(max_kib ${duck_rss[$strategy]})
    }
    r=$(bench_ratio "$dc" "$zm")
    printf '%-8s zamboni %7.3f s (peak RSS %d MiB, largest of the runs) | DuckDB COPY %7.3f s, process %7.3f s (peak RSS %d MiB)\n' \
        "$strategy" "$zm" "$(bench_mib "$zr")" "$dc" "$dw" "$(bench_mib "$dr")"
    printf '%-8s throughput zamboni/DuckDB: %sx (against DuckDB'"'"'s process wall: %sx)\n' \
        "$strategy" "$r" "$(bench_ratio "$dw" "$zm")"
    printf '%-8s --max-concurrent-file-group-rewrites 1: %7.3f s (peak RSS %d MiB), %sx DuckDB; default vs one group at a time: %sx the speed\n' \
        "$strategy" "$z1" "$(bench_mib "$z1r")" "$(bench_ratio "$dc" "$z1")" "$(bench_ratio "$z1" "$zm")"
    want=1.8
    if [ "$strategy" = sort ]; then want=1.5; fi
    ok=no; if bench_le "$want" "$r"; then ok=yes; fi
    target_line "$strategy throughput ${r}x DuckDB's (issue 15: at least ${want}x)" "$ok"
    ok=no; if [ "$(bench_mib "$zr")" -lt 600 ]; then ok=yes; fi
    target_line "$strategy peak RSS $(bench_mib "$zr") MiB at --memory-budget-bytes $budget (issue 15: under 600 MiB)" "$ok"
done

echo "== checks (DuckDB reads the Parquet files; the last table of each configuration)"
failed=0
for config in binpack sort binpack-mc1 sort-mc1; do
    check=(node bench/duckdb_check.mjs "$data" "${last_table[$config]}" --label="$config")
    case $config in
    sort*) check+=(--order-by="$sort_cols")
           if [ -n "${last_groups[$config]}" ]; then check+=(--groups="${last_groups[$config]}"); fi ;;
    esac
    "${check[@]}" || failed=1
done
rm -rf "$work"
if [ "$failed" -ne 0 ]; then
    echo "RESULT: FAIL (a check failed)"
    exit 1
fi
if [ "$targets_missed" -ne 0 ]; then
    echo "RESULT: checks PASS; a target was MISSED (see TARGET lines)"
else
    echo "RESULT: checks PASS; targets MET"
fi
