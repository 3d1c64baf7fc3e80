# shellcheck shell=bash
# Shared by the user-facing benchmark scripts (compact_vs_duckdb.sh,
# memory_budget.sh): the zamboni executable and the child runner, cached
# data sets, flag checks, and reading run_child's result line.
# Sourced from the repository root, after `set -euo pipefail`.

ZB=${ZAMBONI:-build/zamboni}
RUN_CHILD=${RUN_CHILD:-build/bench/run_child}
DATA_ROOT=${ZB_BENCH_DATA:-/tmp/zb-bench-data}

bench_need_tools() {
    if [ ! -x "$ZB" ]; then
        echo "ERROR: no zamboni executable at $ZB (set ZAMBONI)" >&2
        exit 2
    fi
    if [ ! -x "$RUN_CHILD" ]; then
        echo "ERROR: no $RUN_CHILD: build it first:" \
             "cmake --build build --target run_child (or set RUN_CHILD)" >&2
        exit 2
    fi
}

# bench_need_flags VERB FLAG...: every FLAG is in `zamboni VERB --help`;
# otherwise the run would measure something else, so it stops (exit 2).
bench_need_flags() {
    local verb=$1 help missing=""
    shift
    help=$("$ZB" "$verb" --help 2>&1) || {
        echo "ERROR: $ZB $verb --help failed" >&2
        exit 2
    }
    for f in "$@"; do
        grep -qE -- "^  $f( |\$)" <<<"$help" || missing="$missing $f"
    done
    if [ -n "$missing" ]; then
        echo "REFUSED: $ZB $verb does not take:$missing" \
             "(this build cannot run this benchmark)" >&2
        exit 2
    fi
}

# bench_data NAME FILES ROWS_PER_FILE [PARTS]: the folder of a cached set
# made by gen_parquet_bench.mjs under $DATA_ROOT (made when missing or
# incomplete; a file FOLDER.complete beside it marks a finished one). With PARTS > 1 there are
# PARTS x FILES files (distinct rows), dealt into sub-folders part-0 ..
# part-(PARTS-1) of FILES each (add-files lists a folder recursively, so
# the whole folder is one table and each part another). GEN_JOBS
# generator processes (default: the cores) share the work. Prints the folder.
bench_data() {
    local name=$1 files=$2 rows=$3 parts=${4:-1} dir p
    dir="$DATA_ROOT/$name-${parts}x${files}x${rows}"
    if [ ! -f "$dir.complete" ]; then
        rm -rf "$dir"
        echo "generating $dir ($parts x $files files of $rows rows)..." >&2
        local j pids=() jobs=${GEN_JOBS:-$(nproc)}
        for ((j = 0; j < jobs; j++)); do
            node bench/gen_parquet_bench.mjs "$dir" $((files * parts)) "$rows" \
                "$j/$jobs" >/dev/null &
            pids+=($!)
        done
        for j in "${pids[@]}"; do wait "$j"; done
        if [ "$parts" -gt 1 ]; then
            # Distinct rows throughout: made as one set, then dealt out.
            local i=0
            for p in $(bench_parquet_files "$dir"); do
                mkdir -p "$dir/part-$((i / files))"
                mv "$p" "$dir/part-$((i / files))/"
                i=$((i + 1))
            done
        fi
        touch "$dir.complete"
    fi
    echo "$dir"
}

# bench_parquet_files DIR: the .parquet files under DIR, sorted, one a line.
bench_parquet_files() {
    find "$1" -name '*.parquet' ! -name '.*' | sort
}

bench_mib() { # KiB -> MiB, rounded
    echo $((($1 + 512) / 1024))
}

# bench_field RESULT_FILE KEY: one key=value of a run_child result line.
bench_field() {
    tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"
}

# bench_median V...: the median (the mean of the two middle values for an
# even count), three decimals.
bench_median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { if (NR == 0) { print "nan"; exit }
              m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.3f\n", m }'
}

# bench_ratio A B: A / B, three decimals.
bench_ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'
}

# bench_le A B: exit 0 when A <= B (numbers).
bench_le() {
    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# bench_run_zb RESULT LOG CMD...: runs CMD (with run_child's --then
# between steps) as a timed child; stdout and stderr go to LOG. A usage
# error (exit 2) means this build refused a flag: the script stops with
# the refusal rather than measuring something else. Other failures stop
# it too, showing the log's end.
bench_run_zb() {
    local result=$1 log=$2 rc=0
    shift 2
    "$RUN_CHILD" -o "$result" "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        if [ "$rc" -eq 2 ]; then
            echo "REFUSED: step $(bench_field "$result" step) of this command exited 2 (usage):" >&2
        else
            echo "ERROR: step $(bench_field "$result" step) of this command exited $rc:" >&2
        fi
        printf '  %s\n' "$*" >&2
        tail -n 5 "$log" | sed 's/^/  | /' >&2
        exit "$rc"
    fi
}

# bench_groups LOG: the number of compaction groups compact reported
# ("... across N compaction group(s)"), empty when it did not say.
bench_groups() {
    sed -n 's/.* across \([0-9][0-9]*\) compaction group.*/\1/p' "$1" | tail -n 1
}
