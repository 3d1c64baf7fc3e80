#!/usr/bin/env bash
# The process-wide memory budget and the threads of the zamboni executable,
# run as a child with its peak RSS from wait4 (build/bench/run_child):
# issue 15's second "done when".
#   (a) a 4 GiB table (4 x 215 files of 200,000 rows from
#       gen_parquet_bench.mjs) compacted binpack, then sorted by (user_id,
#       event_time), with --memory-budget-bytes 268435456: PASS when the
#       peak RSS is at most the budget + 160 MiB;
#   (b) `zamboni maintenance --parallel 4` over four 1 GiB tables (the four
#       parts of the same set, table folders named on the command line) at
#       the same budget, same check;
#   (c) the runs of (a) and (b) again with --memory-budget-bytes 0 (the
#       budget disabled): what the budget saves (no limit checked);
#   (d) a single-partition table that compacts as one group (the first
#       1 GiB part): `compact --threads 2` against `--threads 1`, PAIRS
#       pairs alternating; PASS when the median ratio is at most 0.6 (and
#       compact reported one group).
# Each table is made by an untimed `zamboni add-files --create` of the
# cached files; only the compact or maintenance command is measured. With
# CHECKS=1 (default) DuckDB then reads the budgeted runs' tables back:
# rows and row-hash multiset (count, sum and bit_xor of the hashes) equal
# the input's; sorted files in order.
#
# Usage: bench/memory_budget.sh [a b c d]   (default: all four parts)
# Environment (defaults are the full figure):
#   ZAMBONI=build/zamboni  RUN_CHILD=build/bench/run_child
#   ZB_BENCH_DATA=/tmp/zb-bench-data   cached inputs, made when missing
#   ZB_BENCH_WORK=/tmp/zb-bench-work   tables (deleted after each run)
#   PART_FILES=215 ROWS_PER_FILE=200000   each of the four 1 GiB parts
#   MEMORY_BUDGET_BYTES=268435456  HEADROOM_MIB=160  PAIRS=3
#   THREADS_RATIO_MAX=0.6  CHECKS=1
# Exit: 0 every check passed, 1 one failed, 2 a flag was refused or a
# tool is missing; a failed run exits with its code.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench_lib.sh

part_files=${PART_FILES:-215}
rows_per=${ROWS_PER_FILE:-200000}
budget=${MEMORY_BUDGET_BYTES:-268435456}
headroom_mib=${HEADROOM_MIB:-160}
pairs=${PAIRS:-3}
ratio_max=${THREADS_RATIO_MAX:-0.6}
checks=${CHECKS:-1}
work=${ZB_BENCH_WORK:-/tmp/zb-bench-work}/memory_budget
sort_cols=user_id,event_time
parts_wanted=${*:-a b c d}
limit_mib=$(((budget + 1048575) / 1048576 + headroom_mib))

wants() { [[ " $parts_wanted " == *" $1 "* ]]; }
also_c=""
if wants c; then also_c="; (c) the same at 0 (disabled)"; fi

bench_need_tools
bench_need_flags add-files --source --create
bench_need_flags compact --memory-budget-bytes --sort-by
if wants b || wants c; then bench_need_flags maintenance --parallel --memory-budget-bytes; fi
if wants d; then bench_need_flags compact --threads; fi

data=$(bench_data events "$part_files" "$rows_per" 4)
rm -rf "$work"
mkdir -p "$work/root"
# No zamboni.yml or configs of the machine's apply: a root of our own.
export ZAMBONI_ROOT="$work/root"
echo "input: $(bench_parquet_files "$data" | wc -l) files, $(du -sb "$data" | cut -f1) bytes in 4 parts ($data)"
echo "zamboni: $ZB ($("$ZB" --version 2>&1 | head -n 1)); $(nproc) cores; budget $budget bytes, limit $limit_mib MiB"

failed=0
verdict() { # OK WHAT
    if [ "$1" = yes ]; then echo "PASS $2"; else echo "FAIL $2"; failed=1; fi
}

# new_table T SOURCE: T made from the files under SOURCE (untimed).
new_table() {
    rm -rf "$1"
    bench_run_zb "$1.add.result" "$1.add.log" "$ZB" add-files "$1" --source "$2" --create
}

# measured NAME CMD...: runs CMD as the timed child; sets m_wall, m_mib,
# m_groups (compaction groups, when it said).
measured() {
    local name=$1
    shift
    bench_run_zb "$work/$name.result" "$work/$name.log" "$@"
    m_wall=$(bench_field "$work/$name.result" wall_s)
    m_mib=$(bench_mib "$(bench_field "$work/$name.result" maxrss_kib)")
    m_groups=$(bench_groups "$work/$name.log")
}

# check_table INPUT T [--order-by=COLS]: DuckDB's read-back (CHECKS=1).
check_table() {
    if [ "$checks" = 1 ]; then
        node bench/duckdb_check.mjs "$1" "$2" --aggregate --label="$(basename "$2")" "${@:3}" || failed=1
    fi
}

declare -A rss
if wants a || wants c; then
    echo "== (a) the whole set as one table (4 GiB at full size), compact at --memory-budget-bytes $budget$also_c"
    for strategy in binpack sort; do
        sort_flags=()
        if [ "$strategy" = sort ]; then sort_flags=(--sort-by "${sort_cols//,/, }"); fi
        budgets=()
        if wants a; then budgets+=("$budget"); fi
        if wants c; then budgets+=(0); fi
        for b in "${budgets[@]}"; do
            t="$work/a-$strategy-$b"
            new_table "$t" "$data"
            measured "a-$strategy-$b" "$ZB" compact "$t" --memory-budget-bytes "$b" \
                ${sort_flags[@]+"${sort_flags[@]}"}
            rss[$strategy-$b]=$m_mib
            printf '  %-7s --memory-budget-bytes %-10s %8.3f s, peak RSS %5d MiB, %s group(s)\n' \
                "$strategy" "$b" "$m_wall" "$m_mib" "${m_groups:-?}"
            if [ "$b" != 0 ]; then
                ok=no; if [ "$m_mib" -le "$limit_mib" ]; then ok=yes; fi
                verdict "$ok" "(a) $strategy: peak RSS $m_mib MiB <= budget + $headroom_mib MiB = $limit_mib MiB"
                if [ "$strategy" = sort ]; then
                    check_table "$data" "$t" --order-by="$sort_cols" ${m_groups:+--groups="$m_groups"}
                else check_table "$data" "$t"; fi
            fi
            rm -rf "$t"
        done
        if wants a && wants c; then
            echo "  (c) $strategy: the budget saves $((rss[$strategy-0] - rss[$strategy-$budget])) MiB of peak RSS (${rss[$strategy-0]} MiB disabled)"
        fi
    done
fi

if wants b || wants c; then
    echo "== (b) maintenance --parallel 4 over its four parts as tables (1 GiB each at full size) at --memory-budget-bytes $budget$also_c"
    budgets=()
    if wants b; then budgets+=("$budget"); fi
    if wants c; then budgets+=(0); fi
    for b in "${budgets[@]}"; do
        tables=()
        for p in 0 1 2 3; do
            new_table "$work/b-$b-t$p" "$data/part-$p"
            tables+=("$work/b-$b-t$p")
        done
        measured "b-$b" "$ZB" maintenance --parallel 4 --memory-budget-bytes "$b" "${tables[@]}"
        rss[maint-$b]=$m_mib
        printf '  maintenance --parallel 4 --memory-budget-bytes %-10s %8.3f s, peak RSS %5d MiB\n' \
            "$b" "$m_wall" "$m_mib"
        if [ "$b" != 0 ]; then
            ok=no; if [ "$m_mib" -le "$limit_mib" ]; then ok=yes; fi
            verdict "$ok" "(b) maintenance --parallel 4: peak RSS $m_mib MiB <= budget + $headroom_mib MiB = $limit_mib MiB"
            for p in 0 1 2 3; do check_table "$data/part-$p" "${tables[$p]}"; done
        fi
        rm -rf "${tables[@]}"
    done
    if wants b && wants c; then
        echo "  (c) maintenance: the budget saves $((rss[maint-0] - rss[maint-$budget])) MiB of peak RSS (${rss[maint-0]} MiB disabled)"
    fi
fi

if wants d; then
    echo "== (d) one partition, one group (part-0, 1 GiB at full size): compact --threads 2 against --threads 1, $pairs pairs"
    t1s=() t2s=() groups_ok=yes
    for ((i = 1; i <= pairs; i++)); do
        for n in 1 2; do
            t="$work/d-$n-$i"
            new_table "$t" "$data/part-0"
            measured "d-$n-$i" "$ZB" compact "$t" --threads "$n"
            if [ "$n" = 1 ]; then t1s+=("$m_wall"); else t2s+=("$m_wall"); fi
            if [ "${m_groups:-}" != 1 ]; then groups_ok=no; fi
            printf '  pair %d --threads %d: %8.3f s, peak RSS %5d MiB, %s group(s)\n' \
                "$i" "$n" "$m_wall" "$m_mib" "${m_groups:-?}"
            rm -rf "$t"
        done
    done
    m1=$(bench_median "${t1s[@]}")
    m2=$(bench_median "${t2s[@]}")
    r=$(bench_ratio "$m2" "$m1")
    echo "  medians: --threads 1 $m1 s, --threads 2 $m2 s: ratio $r"
    verdict "$groups_ok" "(d) every run compacted one group (else this is not the single-group case)"
    ok=no; if bench_le "$r" "$ratio_max"; then ok=yes; fi
    verdict "$ok" "(d) --threads 2 takes $r of --threads 1's time (at most $ratio_max)"
fi

rm -rf "$work"
if [ "$failed" -ne 0 ]; then
    echo "RESULT: FAIL"
    exit 1
fi
echo "RESULT: PASS"
